#include "cluster/plan_command.h"

#include <fmt/format.h>

#include "api/omnigraph.h"
#include "api/wire/report_json.h"
#include "cluster/files.h"
#include "cluster/records.h"
#include "cluster/sweep.h"

namespace omnigraph::cluster {

void PreviewMigrations(const std::string& storage_root, const DesiredCluster& desired, ClusterPlan* plan,
                       Diagnostics* diagnostics) {
  for (PlanChange& change : plan->changes) {
    if (change.operation != ChangeOperation::kUpdate || change.resource.rfind("schema.", 0) != 0) continue;
    const std::string id = change.resource.substr(7);
    auto unavailable = [&](const std::string& why) {
      diagnostics->push_back(WarningDiagnostic("schema_preview_unavailable", change.resource,
                                               fmt::format("schema migration preview unavailable: {}", why)));
    };
    const std::optional<std::string> path = DesiredResourcePath(desired, change.resource);
    if (!path) {
      unavailable("the desired schema file is unknown");
      continue;
    }
    auto source = ReadSourceFile(*path);
    if (!source.ok()) {
      unavailable(source.status().message());
      continue;
    }
    auto graph = api::Omnigraph::Open(GraphRootUri(storage_root, id));
    if (!graph.ok()) {
      unavailable(graph.status().message());
      continue;
    }
    auto preview = (*graph)->PlanSchema(*source, *path, /*allow_data_loss=*/false);
    if (!preview.ok()) {
      unavailable(preview.status().message());
      continue;
    }
    MigrationPreview migration;
    migration.supported = preview->plan.supported;
    for (const compiler::SchemaStep& step : preview->plan.steps) {
      migration.steps.push_back(api::wire::SchemaStepJson(step).dump());
    }
    change.migration = std::move(migration);
  }
}

PlanReport RunPlan(const CommandOptions& options) {
  PlanReport report;
  report.config_dir = options.config_dir;
  const LoadOutcome outcome = LoadDesiredCluster(options.config_dir, options.load);
  report.diagnostics = outcome.diagnostics;
  if (outcome.desired) {
    report.desired_config_digest = outcome.desired->config_digest;
    report.resource_digests = outcome.desired->resource_digests;
    report.dependencies = outcome.desired->dependencies;
  }
  if (!outcome.ok() || !outcome.desired) return report;
  const DesiredCluster& desired = *outcome.desired;
  auto opened = OpenDesiredStorage(desired, options.config_dir, &report.state_observations, &report.diagnostics);
  if (!opened) return report;
  const ClusterStorage& storage = *opened;
  CommandLock lock;
  if (!lock.Acquire(storage, desired.state_lock, "plan", &report.state_observations, &report.diagnostics)) {
    return report;
  }
  ListSidecarsWithWarnings(storage, /*with_pending=*/true, &report.diagnostics);
  auto read = ReadObservedState(storage, &report.state_observations, &report.diagnostics);
  if (!read) {
    lock.Release(&report.diagnostics);
    return report;
  }
  PlanInputs inputs;
  inputs.desired = &desired;
  inputs.state = read->state ? &*read->state : nullptr;
  inputs.approvals = ListApprovalsWithWarnings(storage, &report.diagnostics);
  report.plan = PlanCluster(inputs);
  report.diagnostics.insert(report.diagnostics.end(), report.plan.diagnostics.begin(),
                            report.plan.diagnostics.end());
  PreviewMigrations(storage.root, desired, &report.plan, &report.diagnostics);
  lock.Release(&report.diagnostics);
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

}  // namespace omnigraph::cluster
