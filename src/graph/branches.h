// Branch control: names, create, list, delete (spec/branches.md BR-2, BR-3;
// spec/engine.md §3; design/write-path.md "Native graph-branch
// create/delete is a control exception").
//
// A branch life is one native ref `{logical}.{ULID}` of `__manifest`, a deep
// clone of its source's latest version: same pins, same schema contract,
// same history buffer and segments, and the source's head as its effective
// head. No table is copied and no commit is written. Delete removes the
// ref's record (the name disappears from every read at once) and leaves the
// tree for cleanup, so commits merged elsewhere and their snapshots stay
// readable. Branch control is serialized within one process by the gates;
// across processes it is unsupported (BR-3.4), and two live incarnations of
// one name are reported, never silently resolved.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::graph {

// Leading and trailing whitespace removed (BR-2 step 1).
std::string TrimBranchName(std::string_view name);

// BR-2 steps 1 and 3 for `operation` ("branch_create", "branch_merge", …):
// InvalidArgument "branch name cannot be empty", or "<operation> does not
// allow internal system ref '<name>'" for a name whose first segment starts
// with "__" (engine-owned refs and tags).
Status CheckPublicBranchName(std::string_view trimmed, std::string_view operation);

// BR-2 step 4, the syntax a new branch name must have. Errors:
// InvalidArgument naming the rule broken.
Status ValidateNewBranchName(std::string_view trimmed);

struct CreatedBranch {
  std::string name;
  std::string from;
  NativeRef ref;
};

// Creates branch `name` from the latest snapshot of branch `from` (BR-3.1).
// Errors: InvalidArgument (empty, reserved or malformed name, `main`:
// "cannot create branch 'main'", a commit id as source: "branch creation
// from pinned snapshots is not supported yet"); NotFound "branch '<from>'
// not found"; Conflict "branch '<n>' already exists", "cannot create branch
// '<n>' while live branch '<m>' shares its physical Lance path; live graph
// branch names may not be ancestors or descendants"; IoError.
Result<CreatedBranch> CreateBranch(GraphStore& graph, std::string_view name, std::string_view from);

// Every live branch including main, sorted bytewise (BR-3.2).
Result<std::vector<std::string>> ListBranches(GraphStore& graph);

// Deletes branch `name` (BR-3.3). `active_branch` is the calling handle's
// bound branch (nullopt when the caller binds none). Waits for the branch's
// writes in flight in any process (GraphStore::LockBranchWriters).
// Errors, checked in this order: InvalidArgument "cannot delete branch
// 'main'" (and empty/reserved names); NotFound "branch '<n>' not found";
// Conflict "cannot delete branch '<n>' while live branch '<c>' shares its
// physical Lance path; delete the child branch first", "cannot delete
// branch '<n>' because descendant branch '<d>' still depends on it",
// "cannot delete currently active branch '<n>'"; IoError.
Status DeleteBranch(GraphStore& graph, std::string_view name, const std::optional<std::string>& active_branch);

}  // namespace omnigraph::graph
