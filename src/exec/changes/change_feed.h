// The change feed of one branch (spec/branches.md BR-10.2; spec/engine.md
// §6.4): one block per commit of the branch's first-parent chain, oldest
// first, each the commit's cause and its changes (BR-10.1), every commit a
// block even when the filter leaves it empty. Genesis is never a block.
//
// A poll captures the head when it starts and covers at most max_commits
// commits after its start position (its "cut"); commits published later
// wait for the next poll. A poll is one or more pages. A page that ends
// inside the poll carries only a page token; the page that ends the poll
// (terminal) carries the durable cursor and whether the cursor reached the
// branch's head. Cursors mark block boundaries only, so a consumer never
// checkpoints half a commit; delivery is at least once (a consumer that
// crashes between receiving and checkpointing sees a block again) and
// consumers dedupe by graph_commit_id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/changes/change.h"
#include "exec/changes/paging.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

inline constexpr uint32_t kDefaultFeedCommits = 128;
inline constexpr uint32_t kMaxFeedCommits = 512;

// Where a poll starts: exactly one of the three, or none (= start "now").
struct FeedPosition {
  std::optional<std::string> cursor;      // a terminal page's cursor
  std::optional<std::string> start;       // "now" | "beginning" | "after:<commit_id>"
  std::optional<std::string> page_token;  // continues a poll
};

struct ChangeFeedRequest {
  ChangeFilter filter;
  PageLimits page;                             // changes and bytes per page
  uint32_t max_commits = kDefaultFeedCommits;  // commits one poll covers
};

struct ChangeBlock {
  ChangeCause cause;
  std::vector<EntityChange> changes;
};

struct ChangeFeedPage {
  // The first block may continue a block the previous page of the poll
  // began (same cause; the changes after those already delivered), and the
  // last may be continued by the next page.
  std::vector<ChangeBlock> blocks;
  std::optional<std::string> next_page_token;  // a page inside the poll
  std::optional<std::string> cursor;           // the terminal page
  // Terminal page only: the cursor is at the branch's head as of this page.
  bool caught_up = false;

  bool terminal() const { return cursor.has_value(); }
};

// One page of `branch`'s feed from `position`.
// Errors:
//   InvalidArgument "cursor, start, and page_token are mutually exclusive";
//     "start must be now | beginning | after:<commit_id>"; page limits
//     (CheckPageLimits, resources change_feed_page_rows/_bytes) and
//     "max_commits must be at least 1";
//   ResourceLimitExceeded resource change_feed_commits above
//     kMaxFeedCommits;
//   ChangeCursorRejected "change cursor rejected: …" for a start commit not
//     on the first-parent chain ("start commit is not on this branch's
//     first-parent chain"), and for a cursor or page token that is damaged,
//     of another kind, or bound to another graph, branch, incarnation or
//     filter (change_tokens.h), or whose commit is not on the chain;
//   ChangeFeedGap (410; details cursor = the cursor just before the
//     commit, first_unreadable_commit_id) and ChangeDiffRefused (409;
//     details as DiffCommit's, plus cursor) when the poll's first commit
//     cannot be diffed; a later commit instead ends the page before it,
//     terminal with caught_up false, so the next poll raises it;
//   NotFound (kind branch_not_found) for a branch that is not live; history
//     and storage errors.
Result<ChangeFeedPage> PollChanges(graph::GraphStore& graph, std::string_view branch, const FeedPosition& position,
                                   const ChangeFeedRequest& request);

}  // namespace omnigraph::exec
