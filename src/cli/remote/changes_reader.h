// The change pages a server sends (GET /commits/{id}/changes and GET
// /changes; spec/branches.md BR-10.1, BR-10.2; api/wire/changes_json.h)
// read back into the engine's page types, so `commit changes` and
// `changes poll` against a server join and print pages exactly as they do
// against a store. Property values keep the exact JSON text sent.
#pragma once

#include <string_view>

#include "exec/changes/baseline.h"
#include "exec/changes/change_feed.h"
#include "exec/changes/commit_changes.h"
#include "util/status.h"

namespace omnigraph::cli::remote {

// {"cause":…,"changes":[…],"next_page_token":…}. Errors: InvalidArgument
// naming what is malformed.
Result<exec::CommitChangesPage> ParseCommitChangesPage(std::string_view body);

// {"blocks":[{"cause":…,"changes":[…]}…]} with "next_page_token" inside a
// poll, or "cursor" and "caught_up" on its terminal page. Errors:
// InvalidArgument naming what is malformed.
Result<exec::ChangeFeedPage> ParseChangeFeedPage(std::string_view body);

// The reply of POST /changes/baseline (BR-10.3): the snapshot's NDJSON
// lines, then the terminal line {"baseline":{"snapshot_commit_id":…,
// "resume_cursor":…}}, which is required (a reply cut short has none and
// yields no cursor). Errors: InvalidArgument naming what is malformed.
Result<exec::ChangeBaseline> ParseBaseline(std::string body);

}  // namespace omnigraph::cli::remote
