// The load writer (spec/surface.md §4; spec/engine.md §5.2 "Load"):
// strict NDJSON (or the loader-compatible syntax, §4.6), validated completely, then one atomic commit (also for
// empty input).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "exec/catalog_cache.h"
#include "exec/loader.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

struct LoadRequest {
  std::string_view data;       // the file's bytes
  std::string_view file_name;  // names the input in errors ("data.jsonl:7: …")
  LoadMode mode = LoadMode::kMerge;
  std::string branch = "main";
  std::optional<std::string> actor_id;
  LoadProgress progress;
  // Admits external Blob URIs (default: deny every one). REQUIRES: outlives the call.
  const ExternalBlobPolicy* blob_policy = nullptr;
  // How `data` is read: strict graph batch, or loader-compatible (§4.6).
  LoadSyntax syntax = LoadSyntax::kStrict;
};

struct LoadOutcome {
  std::map<std::string, uint64_t> node_records;  // input records per type
  std::map<std::string, uint64_t> edge_records;
  uint64_t total_records = 0;
  graph::CommitRecord commit;
};

// Loads. Append and merge re-prepare when another writer published first;
// overwrite reports it. Errors: those of PlanLoad, KeyConflict,
// ResourceLimitExceeded, ReadSetChanged, NotFound (kind branch_not_found),
// storage errors.
Result<LoadOutcome> RunLoad(graph::GraphStore& graph, CatalogCache& catalogs, const LoadRequest& request);

// Plans `request` against the head of `branch` without writing anything:
// the check a load onto a branch it is about to fork from `branch` makes
// first, so that input the load would refuse never leaves a new branch
// behind. Errors: those of PlanLoad; ResourceLimitExceeded (the keyed
// write ceilings of CheckKeyedWriteBudgets); NotFound (branch_not_found).
Status CheckLoad(graph::GraphStore& graph, CatalogCache& catalogs, const LoadRequest& request,
                 std::string_view branch);

}  // namespace omnigraph::exec
