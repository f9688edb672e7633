#include "api/wire/report_json.h"

namespace omnigraph::api::wire {
namespace {

// An optional string as JSON: its value, or null.
Json OrNull(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

// [{name, entities_loaded}] of one kind of entity in a load.
Json TypeCountsJson(const std::vector<TypeCount>& counts) {
  Json out = Json::array();
  for (const TypeCount& count : counts) out.push_back({{"name", count.name}, {"entities_loaded", count.entities_loaded}});
  return out;
}

}  // namespace

Json CommitJson(const graph::CommitRecord& commit, bool published, const std::optional<std::string>& unattached_root) {
  Json j;
  j["graph_commit_id"] = commit.id;
  j["graph_branch"] = OrNull(commit.graph_branch);
  j["graph_manifest_version"] = commit.manifest_version;
  j["parent_commit_id"] = OrNull(commit.parent_id);
  j["merged_parent_commit_id"] = OrNull(commit.merged_parent_id);
  j["actor_id"] = OrNull(commit.actor_id);
  j["created_at"] = commit.created_at_us;
  j["published"] = published;
  if (unattached_root) j["unattached_root"] = *unattached_root;
  return j;
}

Json CommitViewJson(const exec::CommitView& view) {
  return CommitJson(view.commit, view.published, view.unattached_root);
}

Json CommitViewListJson(const std::vector<exec::CommitView>& views) {
  Json list = Json::array();
  for (const exec::CommitView& view : views) list.push_back(CommitViewJson(view));
  return Json{{"commits", list}};
}

Json CommitDropJson(std::string_view id, const std::vector<std::string>& dropped) {
  return Json{{"graph_commit_id", std::string(id)}, {"dropped", dropped}};
}

Json CommitListJson(const std::vector<graph::CommitRecord>& commits) {
  Json list = Json::array();
  for (const graph::CommitRecord& commit : commits) list.push_back(CommitJson(commit));
  return Json{{"commits", list}};
}

Json InitJson(std::string_view uri) { return Json{{"uri", std::string(uri)}}; }

Json LoadReportJson(const LoadReport& report, std::string_view uri) {
  Json j;
  j["uri"] = std::string(uri);
  j["branch"] = report.branch;
  j["mode"] = std::string(LoadModeName(report.mode));
  j["branch_created"] = report.branch_created;
  j["nodes"] = TypeCountsJson(report.nodes);
  j["edges"] = TypeCountsJson(report.edges);
  j["total_entities"] = report.total_entities;
  j["commit"] = report.commit ? CommitJson(*report.commit) : Json(nullptr);
  return j;
}

Json MutationReportJson(const MutationReport& report, const std::optional<std::string>& actor_id) {
  Json j;
  j["branch"] = report.branch;
  j["query_name"] = report.query_name;
  j["affected_nodes"] = report.affected_nodes;
  j["affected_edges"] = report.affected_edges;
  j["actor_id"] = OrNull(actor_id);
  j["commit"] = report.commit ? CommitJson(*report.commit, report.published, report.unattached_root) : Json(nullptr);
  return j;
}

Json SnapshotJson(const SnapshotInfo& info) {
  Json j;
  j["graph_branch"] = info.graph_branch;
  j["graph_manifest_version"] = info.graph_manifest_version;
  j["internal_schema_version"] = info.internal_schema_version;
  Json datasets = Json::array();
  for (const DatasetInfo& dataset : info.datasets) {
    datasets.push_back({{"entity_kind", dataset.entity_kind},
                        {"type_name", dataset.type_name},
                        {"dataset_path", dataset.dataset_path},
                        {"published_dataset_version", dataset.published_dataset_version},
                        {"native_dataset_branch", nullptr},
                        {"entity_count", dataset.entity_count}});
  }
  j["datasets"] = datasets;
  return j;
}

Json SchemaSourceJson(std::string_view source) { return Json{{"schema_source", std::string(source)}}; }

Json SchemaStepJson(const compiler::SchemaStep& step) {
  Json j;
  j["kind"] = step.kind;
  if (step.kind == "unsupported_change") {
    j["entity"] = step.entity.value_or("");
    j["reason"] = step.reason.value_or("");
    if (step.code) j["code"] = *step.code;
    if (step.tier) j["tier"] = *step.tier;
    return j;
  }
  j["type_kind"] = step.type_kind;
  j["type_name"] = step.type_name;
  if (step.from) j["from"] = *step.from;
  if (step.property) j["property_name"] = *step.property;
  if (step.mode) j["mode"] = *step.mode;
  if (step.columns) j["columns"] = *step.columns;
  return j;
}

namespace {

Json SchemaStepsJson(const compiler::SchemaPlan& plan) {
  Json steps = Json::array();
  for (const compiler::SchemaStep& step : plan.steps) steps.push_back(SchemaStepJson(step));
  return steps;
}

}  // namespace

Json SchemaPlanJson(std::string_view uri, const exec::SchemaChangeResult& result) {
  Json j;
  j["uri"] = std::string(uri);
  j["supported"] = result.plan.supported;
  j["step_count"] = result.plan.steps.size();
  j["steps"] = SchemaStepsJson(result.plan);
  return j;
}

Json SchemaApplyJson(std::string_view uri, const exec::SchemaChangeResult& result) {
  Json j;
  j["uri"] = std::string(uri);
  j["supported"] = result.plan.supported;
  j["applied"] = result.applied;
  j["step_count"] = result.plan.steps.size();
  j["graph_manifest_version"] = result.manifest_version;
  j["steps"] = SchemaStepsJson(result.plan);
  return j;
}

Json BranchCreateJson(const BranchCreateReport& report) {
  Json j;
  j["uri"] = report.uri;
  j["from"] = report.from;
  j["name"] = report.name;
  j["actor_id"] = OrNull(report.actor_id);
  return j;
}

Json BranchListJson(const std::vector<std::string>& branches) { return Json{{"branches", branches}}; }

Json BranchDeleteJson(std::string_view uri, std::string_view name, const std::optional<std::string>& actor_id) {
  Json j;
  j["uri"] = std::string(uri);
  j["name"] = std::string(name);
  j["actor_id"] = OrNull(actor_id);
  return j;
}

Json BranchMergeJson(const BranchMergeReport& report) {
  Json j;
  j["source"] = report.source;
  j["target"] = report.target;
  j["outcome"] = report.outcome;
  j["actor_id"] = OrNull(report.actor_id);
  if (report.branch_deleted) j["branch_deleted"] = *report.branch_deleted;
  if (report.branch_delete_error) j["branch_delete_error"] = *report.branch_delete_error;
  j["commit"] = report.commit ? CommitJson(*report.commit, report.published) : Json(nullptr);
  return j;
}

Json OptimizeJson(std::string_view uri, const exec::OptimizeResult& result) {
  Json datasets = Json::array();
  for (const exec::OptimizeTableStats& t : result.tables) {
    Json pending = Json::array();
    for (const exec::PendingIndex& p : t.pending_indexes) pending.push_back({{"property", p.property}, {"reason", p.reason}});
    Json j;
    j["type_key"] = t.type_key;
    j["fragments_removed"] = t.fragments_removed;
    j["fragments_added"] = t.fragments_added;
    j["committed"] = t.committed;
    j["skipped"] = t.skipped.has_value();
    j["published_dataset_version"] = t.published_dataset_version;
    j["lance_head_version"] = t.lance_head_version;
    j["pending_indexes"] = pending;
    datasets.push_back(std::move(j));
  }
  return Json{{"uri", std::string(uri)}, {"datasets", datasets}};
}

Json RepairJson(std::string_view uri, const std::vector<exec::TableDrift>& tables) {
  Json datasets = Json::array();
  for (const exec::TableDrift& t : tables) {
    Json j;
    j["type_key"] = t.type_key;
    j["classification"] = std::string(exec::DriftClassName(t.classification));
    j["last_linear_version"] = t.last_linear_version;
    j["lance_head_version"] = t.lance_head_version;
    datasets.push_back(std::move(j));
  }
  return Json{{"uri", std::string(uri)}, {"datasets", datasets}};
}

}  // namespace omnigraph::api::wire
