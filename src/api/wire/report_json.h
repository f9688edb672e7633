// The JSON documents of write receipts and graph metadata (spec/surface.md
// §5.2 `--json` output; the same bodies as the HTTP API's outputs), shared
// by the CLI and the server so both spell every field alike.
//
// Each function returns an ordered document: members appear in the order
// the spec lists them, which is the order `dump()` prints. Absent optional
// values are JSON null unless a function says otherwise. Read results
// (query rows) are encoded by exec/result_format.h instead.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/omnigraph.h"

namespace omnigraph::api::wire {

using Json = nlohmann::ordered_json;

// CommitOutput: {graph_commit_id, graph_branch, graph_manifest_version,
// parent_commit_id, merged_parent_commit_id, actor_id, created_at,
// published, unattached_root?} (`commit show`; graph_branch is null for
// main; published is false for an unpublished commit or unattached
// snapshot, BR-13.2; unattached_root only for an unattached snapshot).
Json CommitJson(const graph::CommitRecord& commit, bool published = true,
                const std::optional<std::string>& unattached_root = std::nullopt);
Json CommitViewJson(const exec::CommitView& view);
// {commits: [CommitOutput…]} (`commit list --unpublished`).
Json CommitViewListJson(const std::vector<exec::CommitView>& views);
// The `commit drop` output: {graph_commit_id, dropped: [ids in removal order]}.
Json CommitDropJson(std::string_view id, const std::vector<std::string>& dropped);

// {commits: [CommitOutput…]} in the given order (`commit list`).
Json CommitListJson(const std::vector<graph::CommitRecord>& commits);

// The `init` receipt: {uri}, the graph as the user addressed it.
Json InitJson(std::string_view uri);

// The `load` receipt (§4.4): {uri, branch, mode, branch_created, nodes,
// edges, total_entities, commit}; nodes and edges are [{name,
// entities_loaded}], commit a CommitOutput or null. `uri` is the graph
// path loaded.
Json LoadReportJson(const LoadReport& report, std::string_view uri);

// The `mutate` receipt (§3.3): {branch, query_name, affected_nodes,
// affected_edges, actor_id, commit}; commit is null when nothing changed.
// `actor_id` is the actor the commit records (nullopt: none).
Json MutationReportJson(const MutationReport& report, const std::optional<std::string>& actor_id);

// The `snapshot` output: {graph_branch, graph_manifest_version,
// internal_schema_version, datasets: [{entity_kind, type_name,
// dataset_path, published_dataset_version, native_dataset_branch,
// entity_count}]}. native_dataset_branch is null: every dataset of this
// build lives on its native main.
Json SnapshotJson(const SnapshotInfo& info);

// The `schema show` output: {schema_source}.
Json SchemaSourceJson(std::string_view source);

// One schema plan step (surface.md §1.9): {kind, ...} with the members the
// step kind has (type_kind, type_name, from, property, mode, columns; for
// unsupported_change: entity, reason, code, tier).
Json SchemaStepJson(const compiler::SchemaStep& step);
// `schema plan --json`: {uri, supported, step_count, steps}.
Json SchemaPlanJson(std::string_view uri, const exec::SchemaChangeResult& result);
// `schema apply --json`: {uri, supported, applied, step_count,
// graph_manifest_version, steps}.
Json SchemaApplyJson(std::string_view uri, const exec::SchemaChangeResult& result);

// BranchCreateOutput {uri, from, name, actor_id} (BR-3.1).
Json BranchCreateJson(const BranchCreateReport& report);
// {branches: [names…]} (BR-3.2).
Json BranchListJson(const std::vector<std::string>& branches);
// BranchDeleteOutput {uri, name, actor_id} (BR-3.3).
Json BranchDeleteJson(std::string_view uri, std::string_view name, const std::optional<std::string>& actor_id);
// BranchMergeOutput {source, target, outcome, actor_id, branch_deleted?,
// branch_delete_error?, commit} (BR-9.10, BR-9.11; commit null for
// already_up_to_date).
Json BranchMergeJson(const BranchMergeReport& report);

// The `optimize` output (surface.md §5.2): {uri, datasets: [{type_key,
// fragments_removed, fragments_added, committed, skipped,
// published_dataset_version, lance_head_version, pending_indexes:
// [{property, reason}]}]}; skipped is a boolean (the reason is only
// printed by the human form).
Json OptimizeJson(std::string_view uri, const exec::OptimizeResult& result);

// The `repair` output (engine.md §8.3): {uri, datasets: [{type_key,
// classification, last_linear_version, lance_head_version}]};
// classification is no_drift | foreign_drift.
Json RepairJson(std::string_view uri, const std::vector<exec::TableDrift>& tables);

}  // namespace omnigraph::api::wire
