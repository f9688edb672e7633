// The mutation writer (spec/surface.md §3; spec/engine.md §5.2 "Mutation";
// spec/branches.md BR-8): capture, plan against the captured snapshot,
// validate, stage one transaction per touched table, and publish one commit
// through the door, or none when nothing changed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "exec/blob_value.h"
#include "exec/catalog_cache.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

struct MutationRequest {
  std::string_view source;       // .gq text
  std::string_view source_file;  // names the source in errors
  std::string name;              // the mutation (the only query when empty)
  std::string_view params_json;  // a JSON object
  std::string branch = "main";  // empty: not given (main, or an unattached parent's target)
  // BR-8: publish only while the branch's effective head is exactly this id.
  std::optional<std::string> if_commit;
  std::optional<std::string> actor_id;
  int64_t now_ms = 0;  // now(), taken once per request
  // Admits external Blob URIs (default: deny every one). REQUIRES: outlives the call.
  const ExternalBlobPolicy* blob_policy = nullptr;
};

struct MutationOutcome {
  std::string branch;
  std::string query_name;
  uint64_t affected_nodes = 0;
  uint64_t affected_edges = 0;
  std::optional<graph::CommitRecord> commit;  // nullopt when nothing changed
  // false when the mutation was declared `as commit` or `as unattached
  // branch`: `commit` is then the proposal's candidate (BR-11.1, BR-12.2).
  bool published = true;
  std::optional<std::string> unattached_root;  // set for an unattached snapshot
};

// Runs the mutation. Insert-only mutations without a precondition
// re-prepare when another writer published first; others report it.
// A mutation declared `as commit` writes an unpublished commit and one
// declared `as unattached branch [on "<P>"]` an unattached snapshot
// instead of publishing (graph/write/publisher.h Propose): the branch head
// does not move. For a child (`on "<P>"`) the branch is P's recorded
// target; a request naming another branch than main or P's target is
// InvalidArgument, and so is a precondition; a P that is unknown, expired
// or not an unattached snapshot is NotFound "commit '<P>' not found".
// Errors: InvalidArgument (a read query; compile and parameter errors;
// constraint violations; an `hb1.` precondition that does not parse),
// KeyConflict, ResourceLimitExceeded, ReadSetChanged, PreconditionFailed
// (details branch, expected, actual: BR-8, never retried, precedence over
// ReadSetChanged), NotFound (kind branch_not_found), storage errors.
Result<MutationOutcome> RunMutation(graph::GraphStore& graph, CatalogCache& catalogs, const MutationRequest& request);

// `--if-commit` lost: the head of `branch` is `actual`, not `expected`
// (branches.md BR-8, whose message and details this is; the front ends
// render it through api/wire/error_json.h). `actual` is nullopt when there
// is no head to report, shown as "<absent>" and left out of the details.
Status HeadIsNot(const std::string& branch, const std::string& expected, const std::optional<std::string>& actual);

}  // namespace omnigraph::exec
