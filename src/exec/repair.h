// `repair` (spec/engine.md §8.3; spec/surface.md §5.2; design/write-path.md
// "repair reports a foreign linear commit above omnigraph.last_linear_version
// as foreign_drift"): a read-only classification of every table main reads.
//
// Graph writers only ever commit detached versions, so a table's linear
// HEAD stays at the highest linear version a pin ever reached, which the
// registration records as last_linear_version. A linear commit above it was
// written by something else: it is reported, never adopted, and nothing is
// written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::exec {

enum class DriftClass { kNoDrift, kForeignDrift };
// "no_drift" | "foreign_drift"
std::string_view DriftClassName(DriftClass drift);

struct TableDrift {
  std::string type_key;
  DriftClass classification = DriftClass::kNoDrift;
  uint64_t last_linear_version = 0;  // the registration's
  uint64_t lance_head_version = 0;   // the table's linear HEAD now
};

// Classifies every table of main's latest snapshot, by table key.
// Errors: NotFound (a table's dataset is missing), IoError, and those of
// GraphStore::Latest.
Result<std::vector<TableDrift>> ClassifyDrift(graph::GraphStore& graph);

}  // namespace omnigraph::exec
