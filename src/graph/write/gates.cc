#include "graph/write/gates.h"

#include <algorithm>

namespace omnigraph::graph {

Gates& Gates::For(const std::string& graph_uri) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Gates>> all;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = all[graph_uri];
  if (!slot) slot = std::make_unique<Gates>();
  return *slot;
}

std::mutex& Gates::Named(std::map<std::string, std::unique_ptr<std::mutex>>& map, const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_);
  auto& slot = map[name];
  if (!slot) slot = std::make_unique<std::mutex>();
  return *slot;
}

HeldGates::HeldGates(Gates& gates, SchemaAccess schema, std::vector<std::string> branches,
                     std::vector<std::string> tables) {
  if (schema == SchemaAccess::kShared) {
    shared_schema_ = std::shared_lock<std::shared_mutex>(gates.schema());
  } else {
    exclusive_schema_ = std::unique_lock<std::shared_mutex>(gates.schema());
  }
  for (std::vector<std::string>* names : {&branches, &tables}) {
    std::sort(names->begin(), names->end());
    names->erase(std::unique(names->begin(), names->end()), names->end());
  }
  for (const std::string& b : branches) held_.emplace_back(gates.Branch(b));
  for (const std::string& t : tables) held_.emplace_back(gates.Table(t));
}

}  // namespace omnigraph::graph
