#include "cluster/command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "io/local_store.h"

namespace omnigraph::cluster {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string NowRfc3339() { return FormatRfc3339(NowUnixMs()); }

Result<std::string> ResolveStorageRoot(const std::optional<std::string>& storage, const std::string& config_dir) {
  std::error_code error;
  if (!storage) {
    std::filesystem::path absolute = std::filesystem::absolute(config_dir, error).lexically_normal();
    std::string root = absolute.string();
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    return root;
  }
  std::string_view declared = *storage;
  constexpr std::string_view kFileScheme = "file://";
  if (declared.substr(0, kFileScheme.size()) == kFileScheme) {
    declared.remove_prefix(kFileScheme.size());
  } else if (declared.find("://") != std::string_view::npos) {
    return WithClusterCode(
        InvalidArgument(fmt::format("storage root '{}' is not supported by this build: only local roots (a path "
                                    "or file:// URI) are",
                                    *storage)),
        "storage_root_invalid");
  }
  std::string root = std::filesystem::absolute(std::string(declared), error).lexically_normal().string();
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

std::string GraphRootUri(const std::string& storage_root, std::string_view graph_id) {
  return JoinPath(storage_root, fmt::format("graphs/{}.omni", graph_id));
}

std::optional<ClusterStorage> OpenDesiredStorage(const DesiredCluster& desired, const std::string& config_dir,
                                                 StateObservations* observations, Diagnostics* diagnostics) {
  auto root = ResolveStorageRoot(desired.storage_root, config_dir);
  if (!root.ok()) {
    diagnostics->push_back(ErrorFromStatus(root.status(), "storage_root_invalid", "storage"));
    return std::nullopt;
  }
  ClusterStorage storage = OpenClusterStorage(*root);
  if (observations != nullptr) {
    observations->state_path = JoinPath(storage.root, kStateKey);
    observations->lock_path = JoinPath(storage.root, kLockKey);
  }
  return storage;
}

ClusterStorage OpenClusterStorage(const std::string& storage_root) {
  return ClusterStorage{storage_root, LocalStore::Make(storage_root)};
}

Diagnostic ErrorFromStatus(const Status& status, std::string_view fallback_code, std::string path) {
  std::string code = ClusterCodeOf(status);
  if (code.empty()) code = std::string(fallback_code);
  return ErrorDiagnostic(std::move(code), std::move(path), status.message());
}

void ObserveState(const StateRead& read, StateObservations* observations) {
  observations->state_found = read.state.has_value();
  if (!read.state) return;
  observations->applied_config_digest = read.state->config_digest;
  observations->state_revision = read.state->state_revision;
  observations->state_cas = read.cas;
  observations->resource_count = read.state->resources.size();
}

std::optional<StateRead> ReadObservedState(const ClusterStorage& storage, StateObservations* observations,
                                           Diagnostics* diagnostics) {
  auto read = ReadState(*storage.store, "");
  if (!read.ok()) {
    diagnostics->push_back(ErrorFromStatus(read.status(), "state_read_error", std::string(kStateKey)));
    return std::nullopt;
  }
  if (observations) ObserveState(*read, observations);
  return std::move(*read);
}

void ObserveForeignLock(const LockRecord& lock, int64_t now_unix_ms, StateObservations* observations) {
  observations->locked = true;
  observations->lock_id = lock.lock_id;
  observations->lock_operation = lock.operation;
  observations->lock_created_at = lock.created_at;
  observations->lock_pid = lock.pid;
  if (auto created = ParseRfc3339(lock.created_at)) {
    observations->lock_age_seconds = std::max<int64_t>(0, (now_unix_ms - *created) / 1000);
  }
}

CommandLock::~CommandLock() { Release(nullptr); }

bool CommandLock::Acquire(const ClusterStorage& storage, bool enabled, std::string_view operation,
                          StateObservations* observations, Diagnostics* diagnostics) {
  if (!enabled) {
    diagnostics->push_back(WarningDiagnostic(
        "state_lock_disabled", "state.lock",
        fmt::format("state.lock is false; {} runs without acquiring the cluster state lock", operation)));
    return true;
  }
  const int64_t now = NowUnixMs();
  auto acquired = AcquireLock(*storage.store, "", operation, now, static_cast<uint32_t>(::getpid()));
  if (!acquired.ok()) {
    const Status& refused = acquired.status();
    if (ClusterCodeOf(refused) == "state_lock_held") {
      if (auto held = ReadLock(*storage.store, ""); held.ok() && *held) {
        ObserveForeignLock(**held, now, observations);
      } else {
        observations->locked = true;
      }
    }
    diagnostics->push_back(ErrorFromStatus(refused, "state_lock_error", "__cluster/lock.json"));
    return false;
  }
  store_ = storage.store;
  lock_id_ = acquired->lock_id;
  observations->lock_acquired = true;
  observations->acquired_lock_id = acquired->lock_id;
  observations->lock_operation = acquired->operation;
  observations->lock_created_at = acquired->created_at;
  observations->lock_pid = acquired->pid;
  return true;
}

void CommandLock::Release(Diagnostics* diagnostics) {
  if (!lock_id_) return;
  Status released = ReleaseLock(*store_, "", *lock_id_);
  lock_id_.reset();
  if (!released.ok() && diagnostics != nullptr) {
    diagnostics->push_back(WarningDiagnostic("state_lock_error", "__cluster/lock.json", released.message()));
  }
}

}  // namespace omnigraph::cluster
