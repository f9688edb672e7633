#include "cluster/status.h"

#include <fmt/format.h>

#include "cluster/catalog.h"
#include "cluster/sweep.h"

namespace omnigraph::cluster {
namespace {

// The header load and storage root shared by status and force-unlock;
// none (with the diagnostics appended) when either fails.
std::optional<ClusterStorage> OpenFromHeader(const std::string& config_dir, StateObservations* observations,
                                             Diagnostics* diagnostics) {
  const LoadOutcome outcome = LoadClusterHeader(config_dir);
  diagnostics->insert(diagnostics->end(), outcome.diagnostics.begin(), outcome.diagnostics.end());
  if (!outcome.ok() || !outcome.desired) return std::nullopt;
  return OpenDesiredStorage(*outcome.desired, config_dir, observations, diagnostics);
}

}  // namespace

StatusReport RunStatus(const CommandOptions& options) {
  StatusReport report;
  report.config_dir = options.config_dir;
  const std::optional<ClusterStorage> storage =
      OpenFromHeader(options.config_dir, &report.state_observations, &report.diagnostics);
  if (!storage) return report;
  auto lock = ReadLock(*storage->store, "");
  if (!lock.ok()) {
    std::string code = ClusterCodeOf(lock.status());
    report.diagnostics.push_back(WarningDiagnostic(code.empty() ? "invalid_state_lock" : code,
                                                   std::string(kLockKey), lock.status().message()));
  } else if (*lock) {
    ObserveForeignLock(**lock, NowUnixMs(), &report.state_observations);
  }
  ListSidecarsWithWarnings(*storage, /*with_pending=*/true, &report.diagnostics);
  auto read = ReadObservedState(*storage, &report.state_observations, &report.diagnostics);
  if (!read) return report;
  if (!read->state) {
    report.diagnostics.push_back(WarningDiagnostic(
        "state_missing", std::string(kStateKey),
        "no cluster state.json yet; run `cluster import` to bootstrap state"));
    report.ok = !HasErrors(report.diagnostics);
    return report;
  }
  const ClusterState& state = *read->state;
  for (const auto& [address, resource] : state.resources) {
    report.resource_digests[address] = resource.digest;
    const std::optional<std::string> key = PayloadKeyOf("", address, resource.digest);
    if (!key) continue;
    auto checked = CheckPayload(*storage->store, *key, resource.digest);
    if (!checked.ok()) {
      report.diagnostics.push_back(ErrorFromStatus(checked.status(), "catalog_payload_read_error", address));
    } else if (*checked == PayloadCheck::kMissing) {
      report.diagnostics.push_back(WarningDiagnostic(
          "catalog_payload_missing", address, fmt::format("the catalog payload '{}' of {} is missing", *key, address)));
    } else if (*checked == PayloadCheck::kDigestMismatch) {
      report.diagnostics.push_back(
          WarningDiagnostic("catalog_payload_mismatch", address,
                            fmt::format("the catalog payload '{}' of {} does not hash to its digest", *key, address)));
    }
  }
  report.resource_statuses = state.resource_statuses;
  report.observations = state.observations;
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

ForceUnlockReport RunForceUnlock(const CommandOptions& options, const std::string& lock_id) {
  ForceUnlockReport report;
  report.config_dir = options.config_dir;
  const std::optional<ClusterStorage> storage =
      OpenFromHeader(options.config_dir, &report.state_observations, &report.diagnostics);
  if (!storage) return report;
  if (auto lock = ReadLock(*storage->store, ""); lock.ok() && *lock) {
    ObserveForeignLock(**lock, NowUnixMs(), &report.state_observations);
  }
  if (auto read = ReadState(*storage->store, ""); read.ok()) ObserveState(*read, &report.state_observations);
  Status removed = ForceUnlock(*storage->store, "", lock_id);
  if (!removed.ok()) {
    report.diagnostics.push_back(ErrorFromStatus(removed, "state_lock_error", std::string(kLockKey)));
    return report;
  }
  report.lock_removed = true;
  report.state_observations.locked = false;
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

}  // namespace omnigraph::cluster
