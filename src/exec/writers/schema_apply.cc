#include "exec/writers/schema_apply.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "compiler/catalog.h"
#include "graph/branches.h"
#include "graph/init.h"
#include "graph/write/door.h"
#include "exec/writer_loop.h"
#include "table/staging.h"
#include "util/checksum.h"

namespace omnigraph::exec {
namespace {

// The accepted catalog of `state` and the desired one carrying its identities.
struct Catalogs {
  std::shared_ptr<const compiler::Catalog> accepted;
  compiler::Catalog desired;
};

Result<Catalogs> CompileBoth(CatalogCache& catalogs, const graph::GraphState& state,
                             const SchemaChangeRequest& request) {
  OG_ASSIGN_OR_RETURN(auto accepted, catalogs.CatalogFor(state));
  OG_ASSIGN_OR_RETURN(compiler::Catalog desired, compiler::CompileSchema(request.source, request.source_file));
  desired.InheritIdentity(*accepted);
  return Catalogs{std::move(accepted), std::move(desired)};
}

compiler::SchemaPlan Plan(const Catalogs& c, const graph::GraphState& state, bool allow_data_loss) {
  auto populated = [&](std::string_view table_key) {
    const graph::TableEntry* entry = state.FindTable(table_key);
    return entry != nullptr && entry->pin.row_count > 0;
  };
  return compiler::PlanSchemaChange(*c.accepted, c.desired, populated, allow_data_loss);
}

// An added type's incarnation: derived from the contract that adds it, so a
// retry of the same apply derives the same path (write-path.md).
uint64_t DerivedIncarnation(const std::string& ir_hash, uint64_t stable_id) {
  uint64_t id = Checksum64(fmt::format("table-incarnation:{}:{}", ir_hash, stable_id));
  return id == 0 ? 1 : id;
}

// The stable property id a physical field carries ("" for system columns).
std::string PropertyIdOf(const Field& field) {
  auto it = field.metadata.find(std::string(compiler::kStablePropertyIdKey));
  return it == field.metadata.end() ? "" : it->second;
}

// The metadata-only chain that turns the pinned columns into `wanted`
// (the desired table schema), matched by stable property id.
std::vector<graph::LinkStager> EvolveColumns(const Schema& pinned, const Schema& wanted) {
  std::map<std::string, std::string> renames;
  std::vector<std::string> drops;
  std::vector<Field> adds;
  std::map<std::string, const Field*> wanted_by_id;
  for (const Field& f : wanted.fields()) {
    if (!PropertyIdOf(f).empty()) wanted_by_id[PropertyIdOf(f)] = &f;
  }
  std::set<std::string> present;
  for (const Field& f : pinned.fields()) {
    const std::string id = PropertyIdOf(f);
    if (id.empty()) continue;  // id / src / dst
    present.insert(id);
    auto it = wanted_by_id.find(id);
    if (it == wanted_by_id.end()) {
      drops.push_back(f.name);
    } else if (it->second->name != f.name) {
      renames[f.name] = it->second->name;
    }
  }
  for (const auto& [id, field] : wanted_by_id) {
    if (!present.count(id)) adds.push_back(*field);
  }
  // The order the three links leave, to decide whether a reorder is needed.
  std::vector<std::string> order;
  for (const Field& f : pinned.fields()) {
    if (std::find(drops.begin(), drops.end(), f.name) != drops.end()) continue;
    auto it = renames.find(f.name);
    order.push_back(it == renames.end() ? f.name : it->second);
  }
  for (const Field& f : adds) order.push_back(f.name);
  std::vector<std::string> catalog_order;
  for (const Field& f : wanted.fields()) catalog_order.push_back(f.name);

  std::vector<graph::LinkStager> links;
  if (!renames.empty() || !drops.empty()) {
    links.push_back([renames, drops](const table::Dataset& base, const table::StageOptions& options) {
      return table::StageProject(base, renames, drops, options);
    });
  }
  if (!adds.empty()) {
    links.push_back([adds](const table::Dataset& base, const table::StageOptions& options) {
      return table::StageAddColumns(base, adds, options);
    });
  }
  if (order != catalog_order) {
    links.push_back([catalog_order](const table::Dataset& base, const table::StageOptions& options) {
      return table::StageProject(base, {}, {}, options, catalog_order);
    });
  }
  return links;
}

// Every table effect and the new contract of one apply.
Result<std::vector<graph::Effect>> ApplyEffects(const graph::WriteTxn& txn, const Catalogs& c,
                                                const SchemaChangeRequest& request) {
  graph::GraphStore& graph = txn.base().graph();
  const compiler::Catalog& accepted = *c.accepted;
  const compiler::Catalog& desired = c.desired;
  const std::string ir_hash = desired.IrHash();
  std::vector<graph::Effect> effects;

  // One desired table: evolve, rename or add it.
  auto desired_table = [&](const std::string& key, uint64_t stable_id, const std::string* accepted_key,
                           const Schema& schema) -> Status {
    if (accepted_key == nullptr) {
      graph::TableIdentity identity{stable_id, DerivedIncarnation(ir_hash, stable_id)};
      OG_ASSIGN_OR_RETURN(graph::TableEntry entry,
                          graph::CreateAddedTable(graph, graph::TableSpec{key, stable_id, schema}, identity));
      effects.push_back(graph::RegisterTable{std::move(entry)});
      return Status::OK();
    }
    const graph::TableEntry* entry = txn.state().FindTable(*accepted_key);
    if (entry == nullptr) return CorruptData(fmt::format("accepted table '{}' is not registered", *accepted_key));
    OG_ASSIGN_OR_RETURN(table::Dataset pinned, txn.base().OpenDataset(*entry));
    std::vector<graph::LinkStager> links = EvolveColumns(*pinned.schema(), schema);
    if (!links.empty()) effects.push_back(graph::ChainTip{*accepted_key, std::move(links)});
    if (*accepted_key != key) effects.push_back(graph::RenameTable{*accepted_key, key, entry->identity});
    return Status::OK();
  };

  // Each desired type of one kind, with the accepted type of its id.
  std::set<std::string> kept;
  auto each_type = [&](const auto& desired_types, const auto& accepted_types, auto table_schema) -> Status {
    for (const auto& type : desired_types) {
      std::string before_key;
      for (const auto& a : accepted_types) {
        if (a.stable_id == type.stable_id) before_key = a.TableKey();
      }
      if (!before_key.empty()) kept.insert(before_key);
      OG_RETURN_IF_ERROR(desired_table(type.TableKey(), type.stable_id, before_key.empty() ? nullptr : &before_key,
                                       table_schema(type)));
    }
    return Status::OK();
  };
  OG_RETURN_IF_ERROR(each_type(desired.nodes(), accepted.nodes(),
                               [&](const compiler::NodeType& t) { return desired.NodeTableSchema(t); }));
  OG_RETURN_IF_ERROR(each_type(desired.edges(), accepted.edges(),
                               [&](const compiler::EdgeType& t) { return desired.EdgeTableSchema(t); }));
  for (const auto& [key, entry] : txn.state().tables) {
    if (!kept.count(key)) effects.push_back(graph::RetireTable{key, entry.identity});
  }
  effects.push_back(graph::ReplaceContract{graph::SchemaContract{request.source, desired.ToIrJson(), ir_hash}});
  return effects;
}

Status RefuseWhileBranchesLive(graph::GraphStore& graph) {
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, graph::ListBranches(graph));
  std::vector<std::string> others;
  for (const std::string& b : branches) {
    if (b != graph::kMainBranch) others.push_back(b);
  }
  if (others.empty()) return Status::OK();
  return Status(ErrorCode::kConflict,
                fmt::format("schema apply requires a graph with only main; found non-main branches: {}",
                            fmt::join(others, ", ")),
                {{"kind", "manifest_conflict"}});
}

}  // namespace

Result<SchemaChangeResult> PlanSchema(graph::GraphStore& graph, CatalogCache& catalogs,
                                      const SchemaChangeRequest& request) {
  OG_ASSIGN_OR_RETURN(graph::Snapshot main, graph.Latest());
  OG_ASSIGN_OR_RETURN(Catalogs c, CompileBoth(catalogs, main.state(), request));
  SchemaChangeResult result;
  result.plan = Plan(c, main.state(), request.allow_data_loss);
  result.manifest_version = main.manifest_version();
  return result;
}

Result<SchemaChangeResult> ApplySchema(graph::GraphStore& graph, CatalogCache& catalogs,
                                       const SchemaChangeRequest& request) {
  SchemaChangeResult result;
  Status written = RunWriter(graph, graph::kMainBranch, request.actor_id,
                             [&](const graph::WriteTxn& txn, RetryPolicy*) -> Status {
    result = SchemaChangeResult{};
    OG_ASSIGN_OR_RETURN(Catalogs c, CompileBoth(catalogs, txn.state(), request));
    result.plan = Plan(c, txn.state(), request.allow_data_loss);
    result.manifest_version = txn.state().manifest_version;
    if (!result.plan.supported) {
      std::vector<std::string> reasons;
      for (const compiler::SchemaStep& step : result.plan.steps) {
        if (step.kind == "unsupported_change") reasons.push_back(step.Describe());
      }
      return Status(ErrorCode::kInvalidArgument,
                    fmt::format("schema change is not supported: {}", fmt::join(reasons, "; ")),
                    {{"kind", "unsupported_schema_change"}});
    }
    // A true no-op (identical contract and source) publishes nothing.
    if (result.plan.steps.empty() && request.source == txn.state().schema.source) return Status::OK();
    OG_RETURN_IF_ERROR(RefuseWhileBranchesLive(graph));
    OG_ASSIGN_OR_RETURN(std::vector<graph::Effect> effects, ApplyEffects(txn, c, request));
    graph::DoorOptions door;
    door.schema_access = graph::SchemaAccess::kExclusive;
    OG_ASSIGN_OR_RETURN(graph::DoorOutcome published, graph::CommitThroughDoor(graph, txn, std::move(effects), door));
    result.applied = true;
    result.commit = published.commit;
    result.manifest_version = published.published.manifest_version();
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(written);
  return result;
}

}  // namespace omnigraph::exec
