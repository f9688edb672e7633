// `cluster status` and `cluster force-unlock` (spec/cluster.md §4.6,
// §4.7): the lock-free views of a storage root. Both parse only the
// header of cluster.yaml, take no lock and open no graph, so they work
// while another command holds the lock (which is how an operator finds and
// removes a stale one).
#pragma once

#include <map>
#include <string>

#include "cluster/command.h"
#include "cluster/state.h"

namespace omnigraph::cluster {

// §4.6 JSON {ok, config_dir, state_observations, resource_digests,
// resource_statuses, observations, diagnostics}.
struct StatusReport {
  bool ok = false;
  std::string config_dir;
  StateObservations state_observations;
  std::map<std::string, std::string> resource_digests;
  std::map<std::string, ResourceStatus> resource_statuses;
  std::map<std::string, Observation> observations;
  Diagnostics diagnostics;
};

// Reports the lock (a bad file is a warning: invalid_state_lock,
// unsupported_state_lock_version), sidecar warnings (one
// cluster_recovery_pending each), the state (missing: warning
// state_missing, still ok) and the payload catalog of its query and policy
// entries (warnings catalog_payload_missing / catalog_payload_mismatch,
// error catalog_payload_read_error). Errors: the header's (desired.h
// LoadClusterHeader), storage_root_invalid, state_read_error,
// invalid_state_json, unsupported_state_version.
StatusReport RunStatus(const CommandOptions& options);

// §4.7 JSON {ok, config_dir, state_observations, lock_removed, diagnostics}.
struct ForceUnlockReport {
  bool ok = false;
  std::string config_dir;
  StateObservations state_observations;  // the lock seen (kept on failure)
  bool lock_removed = false;
  Diagnostics diagnostics;
};

// Header check, then removes the lock only when it holds exactly
// `lock_id`. Errors: the header's, storage_root_invalid,
// state_lock_missing, invalid_state_lock, unsupported_state_lock_version,
// state_lock_id_mismatch "lock id mismatch: held lock is <id>, refusing
// to remove (pass the exact id from `cluster status`)", state_lock_error.
// Every failure keeps the file.
ForceUnlockReport RunForceUnlock(const CommandOptions& options, const std::string& lock_id);

}  // namespace omnigraph::cluster
