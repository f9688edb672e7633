#include "exec/schema_binding.h"

#include <map>

namespace omnigraph::exec {
namespace {

// The physical column of `dataset_schema` holding property `field` (by
// stable property id; by name for the system columns).
std::optional<std::string> SourceColumn(const Schema& dataset_schema, const Field& field) {
  auto id = field.metadata.find(std::string(compiler::kStablePropertyIdKey));
  if (id == field.metadata.end()) {
    if (dataset_schema.FindField(field.name)) return field.name;
    return std::nullopt;
  }
  for (const Field& physical : dataset_schema.fields()) {
    auto pid = physical.metadata.find(std::string(compiler::kStablePropertyIdKey));
    if (pid != physical.metadata.end() && pid->second == id->second) return physical.name;
  }
  return std::nullopt;
}

}  // namespace

Result<graph::Snapshot> BindToCatalog(const graph::Snapshot& snapshot, const compiler::Catalog& current) {
  if (snapshot.state().schema.ir_hash == current.IrHash()) return snapshot;
  // Current table key and schema by (kind, stable type id).
  std::map<std::pair<bool, uint64_t>, std::pair<std::string, Schema>> wanted;
  for (const compiler::NodeType& node : current.nodes()) {
    wanted[{true, node.stable_id}] = {node.TableKey(), current.NodeTableSchema(node)};
  }
  for (const compiler::EdgeType& edge : current.edges()) {
    wanted[{false, edge.stable_id}] = {edge.TableKey(), current.EdgeTableSchema(edge)};
  }
  auto state = std::make_shared<graph::GraphState>(snapshot.state());
  state->tables.clear();
  std::map<std::string, std::vector<graph::BoundColumn>> bindings;
  for (const auto& [key, entry] : snapshot.tables()) {
    auto it = wanted.find({entry.is_node(), entry.identity.stable_id});
    if (it == wanted.end()) continue;  // a type the current schema dropped
    const auto& [current_key, schema] = it->second;
    OG_ASSIGN_OR_RETURN(table::Dataset dataset, snapshot.OpenDataset(entry));
    std::vector<graph::BoundColumn> columns;
    bool identical = dataset.schema()->num_fields() == schema.num_fields();
    for (const Field& field : schema.fields()) {
      std::optional<std::string> source = SourceColumn(*dataset.schema(), field);
      identical = identical && source == field.name;
      columns.push_back({field, std::move(source)});
    }
    graph::TableEntry rebound = entry;
    rebound.table_key = current_key;
    if (!identical) bindings.emplace(entry.location, std::move(columns));
    state->tables.emplace(current_key, std::move(rebound));
  }
  return snapshot.Rebound(state, std::make_shared<const graph::ReadBinding>(std::move(bindings)));
}

}  // namespace omnigraph::exec
