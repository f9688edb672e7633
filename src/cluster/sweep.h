// The recovery sweep (spec/cluster.md §6.2, in the first-subset form of
// §0.1): settles the recovery sidecars an interrupted `cluster apply` left,
// roll-forward only. It runs under the lock after the authority check, in
// apply, refresh and import; it edits the working copy of the ledger, and
// the caller retires sidecars and consumes approvals only once its state
// write succeeded (FinishSweep).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/command.h"
#include "cluster/desired.h"
#include "cluster/diagnostics.h"
#include "cluster/records.h"
#include "cluster/state.h"

namespace omnigraph::cluster {

struct SweepOutcome {
  // P of §3.4: graphs whose sidecar is kept (their changes stay Blocked).
  std::set<std::string> pending;
  // Sidecars to delete after the state write (operation ids).
  std::vector<std::string> retired;
  // Approvals a rolled-forward delete consumed: (approval id, operation id).
  std::vector<std::pair<std::string, std::string>> consumed;
  Diagnostics diagnostics;
};

// Sweeps every sidecar under the storage root against `state` (edited in
// place: rolled-forward entries, statuses, recovery records, tombstones,
// approval records). Listing problems become warnings
// (invalid_recovery_sidecar, unsupported_recovery_sidecar_version,
// recovery_sidecar_read_error); warnings cluster_recovery_rolled_forward,
// cluster_recovery_pending, graph_delete_incomplete; error
// graph_create_incomplete for a created root that no longer opens.
// `desired` supplies the provider binding and external-blob policy of a
// rolled-forward graph's composite.
SweepOutcome SweepRecoveries(const ClusterStorage& storage, const DesiredCluster& desired,
                             const std::optional<std::string>& actor, ClusterState* state);

// After a successful state write: deletes the retired sidecars and marks the
// consumed approval artifacts (`consumed_at`, `consumed_by_operation`).
// Failures are warnings (recovery_sidecar_cleanup_failed, approval_read_error).
void FinishSweep(const ClusterStorage& storage, const std::vector<std::string>& retired,
                 const std::vector<std::pair<std::string, std::string>>& consumed, Diagnostics* diagnostics);

// Every sidecar under R, listing problems as warnings; plan and status add
// `cluster_recovery_pending` per sidecar (`with_pending`).
std::vector<RecoverySidecar> ListSidecarsWithWarnings(const ClusterStorage& storage, bool with_pending,
                                                      Diagnostics* diagnostics);

// Every approval artifact under R, listing problems as warnings.
std::vector<ApprovalArtifact> ListApprovalsWithWarnings(const ClusterStorage& storage, Diagnostics* diagnostics);

}  // namespace omnigraph::cluster
