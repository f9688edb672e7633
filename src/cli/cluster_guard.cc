#include "cli/cluster_guard.h"

#include <filesystem>

namespace omnigraph::cli {

Status RefuseClusterManagedGraph(const std::string& uri, std::string_view verb) {
  namespace fs = std::filesystem;
  std::string path = uri.rfind("file://", 0) == 0 ? uri.substr(7) : uri;
  fs::path graph = fs::absolute(path).lexically_normal();
  if (graph.filename().empty()) graph = graph.parent_path();
  if (graph.extension() != ".omni" || graph.parent_path().filename() != "graphs") return Status::OK();
  fs::path root = graph.parent_path().parent_path();
  std::error_code error;
  if (!fs::exists(root / "__cluster" / "state.json", error)) return Status::OK();
  return InvalidArgument(std::string(verb) + " refused: '" + graph.string() + "' is a graph of the cluster at '" +
                         root.string() +
                         "', whose ledger is its only schema authority; change cluster.yaml or its schema and run "
                         "`omnigraph cluster apply` instead");
}

}  // namespace omnigraph::cli
