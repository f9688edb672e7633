// Process-local gates of one graph root (design/write-path.md "gates";
// spec/engine.md §5.1 step 4). They only order work inside this process;
// correctness across processes comes from the `__manifest` put-if-absent
// and the exact pins each publication checks.
//
// Fixed order, always: the schema gate (shared for ordinary writers,
// exclusive for contract changes and branch creation), then branch gates in
// sorted name order, then table gates in sorted key order.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace omnigraph::graph {

enum class SchemaAccess { kShared, kExclusive };

class Gates {
 public:
  // The gates of the graph at `graph_uri` (one set per root per process).
  static Gates& For(const std::string& graph_uri);

  std::shared_mutex& schema() { return schema_; }
  std::mutex& Branch(const std::string& name) { return Named(branches_, name); }
  std::mutex& Table(const std::string& key) { return Named(tables_, key); }

 private:
  std::mutex& Named(std::map<std::string, std::unique_ptr<std::mutex>>& map, const std::string& name);

  std::shared_mutex schema_;
  std::mutex registry_;
  std::map<std::string, std::unique_ptr<std::mutex>> branches_;  // guarded by registry_
  std::map<std::string, std::unique_ptr<std::mutex>> tables_;    // guarded by registry_
};

// Holds a set of gates in the fixed order until destroyed.
class HeldGates {
 public:
  HeldGates(Gates& gates, SchemaAccess schema, std::vector<std::string> branches, std::vector<std::string> tables);
  HeldGates(const HeldGates&) = delete;
  HeldGates& operator=(const HeldGates&) = delete;

 private:
  std::shared_lock<std::shared_mutex> shared_schema_;
  std::unique_lock<std::shared_mutex> exclusive_schema_;
  std::vector<std::unique_lock<std::mutex>> held_;
};

}  // namespace omnigraph::graph
