// `cluster plan` (spec/cluster.md §4.3): the changes `cluster apply` would
// make, read-only. Plan takes the lock (§8 Q5) so that it reads a ledger
// no apply is rewriting, never writes or sweeps, and previews schema
// migrations against the live graph (§3.6).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cluster/command.h"
#include "cluster/plan.h"

namespace omnigraph::cluster {

// §4.3 JSON {ok, config_dir, desired_revision{config_digest},
// resource_digests, dependencies, state_observations, changes,
// blast_radius, approvals_required, diagnostics}.
struct PlanReport {
  bool ok = false;
  std::string config_dir;
  std::optional<std::string> desired_config_digest;
  std::map<std::string, std::string> resource_digests;  // desired
  std::vector<Dependency> dependencies;
  StateObservations state_observations;
  ClusterPlan plan;  // plan.diagnostics are merged into `diagnostics`
  Diagnostics diagnostics;
};

// Load (errors → ok false, no changes) → lock → sidecar warnings
// (cluster_recovery_pending per sidecar) → read state (missing ⇒ every
// resource a Create, still ok) → §3 with approvals, no recovery-pending
// graphs → migration previews (warning schema_preview_unavailable when a
// preview fails) → unlock. Codes: those of LoadDesiredCluster,
// storage_root_invalid, state_lock_held, state_lock_error,
// state_read_error, invalid_state_json, approval_stale.
PlanReport RunPlan(const CommandOptions& options);

// §3.6: attaches the engine's schema-apply preview (default soft-drop
// options) to each schema Update of `plan` whose graph root opens;
// failures add schema_preview_unavailable warnings.
void PreviewMigrations(const std::string& storage_root, const DesiredCluster& desired, ClusterPlan* plan,
                       Diagnostics* diagnostics);

}  // namespace omnigraph::cluster
