#include "exec/repair.h"

#include "table/dataset.h"

namespace omnigraph::exec {

std::string_view DriftClassName(DriftClass drift) {
  return drift == DriftClass::kNoDrift ? "no_drift" : "foreign_drift";
}

Result<std::vector<TableDrift>> ClassifyDrift(graph::GraphStore& graph) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot main, graph.Latest());
  std::vector<TableDrift> out;
  for (const auto& [key, entry] : main.state().tables) {
    TableDrift drift;
    drift.type_key = key;
    drift.last_linear_version = entry.pin.last_linear_version;
    OG_ASSIGN_OR_RETURN(drift.lance_head_version, table::Dataset::LatestVersion(
                                                      graph.store().get(), JoinPath(graph.root(), entry.location)));
    // A HEAD below the recorded version cannot come from a graph writer
    // either; only commits above it are someone else's.
    drift.classification =
        drift.lance_head_version > drift.last_linear_version ? DriftClass::kForeignDrift : DriftClass::kNoDrift;
    out.push_back(std::move(drift));
  }
  return out;
}

}  // namespace omnigraph::exec
