// What every storage-touching cluster command shares (spec/cluster.md
// §2.1, §2.4, §4.0): the storage root the config names, the state
// observations each command reports, and the command lock taken for the
// run and released on every exit path.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/desired.h"
#include "cluster/diagnostics.h"
#include "cluster/state.h"
#include "cluster/state_lock.h"
#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::cluster {

// The inputs of every command: the config dir, how to load it, and (apply,
// approve) the actor (`--as`, else `operator.actor`).
struct CommandOptions {
  std::string config_dir = ".";
  LoadOptions load;
  std::optional<std::string> actor;
};

// §4.0 StateObservations (unset optionals are omitted from the JSON).
struct StateObservations {
  std::string state_path;
  std::string lock_path;
  bool state_found = false;
  std::optional<std::string> applied_config_digest;
  uint64_t state_revision = 0;
  std::optional<std::string> state_cas;
  uint64_t resource_count = 0;
  bool locked = false;  // a lock held by someone else was seen
  std::optional<std::string> lock_id;
  bool lock_acquired = false;
  std::optional<std::string> acquired_lock_id;
  std::optional<std::string> lock_operation;
  std::optional<std::string> lock_created_at;
  std::optional<uint32_t> lock_pid;
  std::optional<int64_t> lock_age_seconds;
};

// The storage root R (§2.1) of a config whose trimmed `storage:` is
// `storage`: a local path or `file://` URI (relative paths resolve against
// the CWD), else the absolute config dir; plain absolute paths, no
// trailing `/`. Errors: storage_root_invalid (an `s3://` root: not
// supported by this build, §0.1).
Result<std::string> ResolveStorageRoot(const std::optional<std::string>& storage, const std::string& config_dir);

// R/graphs/<g>.omni (§2.1).
std::string GraphRootUri(const std::string& storage_root, std::string_view graph_id);

// The storage root opened for a command: the store addresses keys relative
// to R (so ledger keys are used with root "").
struct ClusterStorage {
  std::string root;  // R, absolute
  std::shared_ptr<ObjectStore> store;
};

// Opens R as a local store (created lazily by the first write).
ClusterStorage OpenClusterStorage(const std::string& storage_root);

// Every command's first storage step: `desired`'s storage root (resolved
// against `config_dir`) opened, with the ledger and lock paths recorded in
// `observations` when given. None, with storage_root_invalid appended to
// `diagnostics`, when the root is invalid.
std::optional<ClusterStorage> OpenDesiredStorage(const DesiredCluster& desired, const std::string& config_dir,
                                                 StateObservations* observations, Diagnostics* diagnostics);

// A diagnostic for a failed step: its cluster code (state.h) or `fallback`,
// at `path`, with the status message.
Diagnostic ErrorFromStatus(const Status& status, std::string_view fallback_code, std::string path = "");

// Fills the state part of `observations` from a ledger read.
void ObserveState(const StateRead& read, StateObservations* observations);

// Reads the ledger's state.json (§2.3) and fills the state part of
// `observations` (may be null) from it. None on a read error, with a
// state_read_error diagnostic appended to `diagnostics`; an absent
// state.json is not an error (StateRead::state is empty).
// REQUIRES: the caller holds the command lock, when the command takes one.
std::optional<StateRead> ReadObservedState(const ClusterStorage& storage, StateObservations* observations,
                                           Diagnostics* diagnostics);

// Fills the lock part of `observations` from a foreign lock.
void ObserveForeignLock(const LockRecord& lock, int64_t now_unix_ms, StateObservations* observations);

// The command lock of one run (§2.4), released by Release or the
// destructor if the file still holds its id.
class CommandLock {
 public:
  CommandLock() = default;
  CommandLock(const CommandLock&) = delete;
  CommandLock& operator=(const CommandLock&) = delete;
  ~CommandLock();

  // Takes the lock for `operation` unless `enabled` is false (then warns
  // `state_lock_disabled` "state.lock is false; <operation> runs without
  // acquiring the cluster state lock"). Errors, as a diagnostic appended
  // to `diagnostics` (false returned): state_lock_held (observations get
  // locked and the lock metadata), state_lock_error.
  bool Acquire(const ClusterStorage& storage, bool enabled, std::string_view operation,
               StateObservations* observations, Diagnostics* diagnostics);
  // Releases now; a failure is a state_lock_error warning.
  void Release(Diagnostics* diagnostics);

 private:
  std::shared_ptr<ObjectStore> store_;
  std::optional<std::string> lock_id_;
};

int64_t NowUnixMs();
// The current time as RFC 3339 UTC (seconds).
std::string NowRfc3339();

}  // namespace omnigraph::cluster
