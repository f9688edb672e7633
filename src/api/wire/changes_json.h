// Wire forms of diffs and the change feed (spec/branches.md BR-10.1,
// BR-10.2, BR-10.3), shared by the CLI and the HTTP server.
//
// JSON is compact (exec::PrettyJson re-lays it out for the CLI); members
// marked `?` in the spec are omitted when absent. Property values are
// copied as the engine rendered them (export encoding), so numbers keep
// their exact spelling.
//
//   change  {"kind":"node"|"edge","type":{"id":…,"name":…},"id":…,
//            "op":"insert"|"update"|"delete","before"?:IMAGE,"after"?:IMAGE}
//   IMAGE   {"properties":{…},"endpoints"?:{"from":…,"to":…}}
//   cause   {"graph_commit_id":…,"parent_commit_id"?:…,
//            "merged_parent_commit_id"?:…,"authored_branch":…,
//            "actor_id"?:…,"authored_at":<µs>}
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/changes/baseline.h"
#include "exec/changes/change.h"
#include "exec/changes/change_feed.h"
#include "exec/changes/commit_changes.h"

namespace omnigraph::api::wire {

void AppendChangeJson(std::string* out, const exec::EntityChange& change);
void AppendCauseJson(std::string* out, const exec::ChangeCause& cause);

// BR-10.1 CLI JSON of a whole commit (every page joined):
// {"cause":…,"changes":[…]}.
std::string CommitChangesJson(const exec::ChangeCause& cause, const std::vector<exec::EntityChange>& changes);
// One raw page (`--page-token`, HTTP): {"cause":…,"changes":[…],
// "next_page_token":<token or null>}.
std::string CommitChangesPageJson(const exec::CommitChangesPage& page);

// BR-10.1 CLI human form: the cause lines, then per change its header, its
// endpoints (edges) and its property lines. `next_page_token`, when given,
// is a final `next_page_token: <t>` line (`--page-token`).
std::string CommitChangesText(const exec::ChangeCause& cause, const std::vector<exec::EntityChange>& changes,
                              const std::optional<std::string>& next_page_token = std::nullopt);

// The blocks of one poll joined across its pages: a block a page continues
// (same commit as the last block so far) is merged into it.
class ChangeFeedCollector {
 public:
  // Adds a page; the terminal page's cursor and caught_up are kept.
  void Add(exec::ChangeFeedPage page);
  const std::vector<exec::ChangeBlock>& blocks() const { return blocks_; }
  const std::optional<std::string>& cursor() const { return cursor_; }
  bool caught_up() const { return caught_up_; }

 private:
  std::vector<exec::ChangeBlock> blocks_;
  std::optional<std::string> cursor_;
  bool caught_up_ = false;
};

// BR-10.2 CLI JSON: {"blocks":[{"cause":…,"changes":[…]}…],"cursor":…,
// "caught_up":…}.
std::string ChangeFeedJson(const std::vector<exec::ChangeBlock>& blocks, const std::string& cursor, bool caught_up);
// One raw page (HTTP `GET /changes`): {"blocks":[…],"next_page_token":…}
// inside a poll, {"blocks":[…],"cursor":…,"caught_up":…} when terminal.
std::string ChangeFeedPageJson(const exec::ChangeFeedPage& page);
// BR-10.2 CLI human form: each block as CommitChangesText, blocks separated
// by a blank line, "(no new commits)" when there are none; then a blank
// line, "cursor: <c>" and "caught_up: true|false".
std::string ChangeFeedText(const std::vector<exec::ChangeBlock>& blocks, const std::string& cursor, bool caught_up);

// BR-10.3 handshake {"snapshot_commit_id":…,"resume_cursor":…} (the CLI's
// JSON output).
std::string BaselineHandshakeJson(const exec::ChangeBaseline& baseline);
// The HTTP stream's final NDJSON line, written after every record:
// {"baseline":{…handshake…}} and a newline.
std::string BaselineTrailerLine(const exec::ChangeBaseline& baseline);
// BR-10.3 CLI human form: "snapshot: <path>", "snapshot_commit_id: <id>",
// "resume_cursor: <c>", one per line.
std::string BaselineText(std::string_view snapshot_path, const exec::ChangeBaseline& baseline);

}  // namespace omnigraph::api::wire
