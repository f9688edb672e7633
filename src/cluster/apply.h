// `cluster apply` (spec/cluster.md §4.4, §6): makes the storage root match
// the desired cluster — creates graph roots, applies schema changes,
// publishes query and policy payloads, executes approved graph deletes —
// and records the outcome in the ledger with one CAS write. Crash safety
// comes from recovery sidecars written before each graph mutation and the
// sweep (sweep.h) that settles them on the next run; the failpoints of
// §6.1 stop a run at each durable step.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/command.h"
#include "cluster/plan.h"

namespace omnigraph::cluster {

// Test seams of one run.
struct ApplyHooks {
  // Runs at [before_state_write], before the failpoint is evaluated: a test
  // rewrites state.json here to race the CAS (§6.1, §7 scenario 23).
  std::function<void()> before_state_write;
};

// §4.4 JSON {ok, config_dir, actor?, desired_revision, state_observations,
// changes, applied_count, deferred_count, converged, state_written,
// resource_statuses, diagnostics}.
struct ApplyReport {
  bool ok = false;
  std::string config_dir;
  std::optional<std::string> actor;
  std::optional<std::string> desired_config_digest;
  StateObservations state_observations;
  std::vector<PlanChange> changes;
  size_t applied_count = 0;   // #Applied
  size_t deferred_count = 0;  // #Deferred + #Blocked
  bool converged = false;
  bool state_written = false;
  // As persisted; the pre-apply ones when the write failed or was skipped.
  std::map<std::string, ResourceStatus> resource_statuses;
  Diagnostics diagnostics;
};

// Runs §4.4 steps 1–10. Codes (beyond the load's): storage_root_invalid,
// state_lock_held, state_lock_error, state_read_error, invalid_state_json,
// (no ledger: the warning state_bootstrapped, then graph_observation_error
// from BootstrapState; upstream's state_missing is not raised, see README),
// external_blob_policy_digest_mismatch, the
// sweep's (sweep.h), apply_approval_invariant_violation,
// graph_create_failed "could not initialize graph at '<uri>': <err>",
// graph_create_skipped, schema_apply_failed "schema apply is not supported
// on '<uri>': <err>", schema_apply_skipped, resource_content_changed,
// resource_payload_write_error, graph_delete_failed,
// recovery_sidecar_cleanup_failed, apply_unsupported_change,
// apply_dependency_blocked, state_cas_mismatch, state_write_error, and
// injected_failpoint "injected failpoint triggered: <name>".
ApplyReport RunApply(const CommandOptions& options, const ApplyHooks& hooks = {});

}  // namespace omnigraph::cluster
