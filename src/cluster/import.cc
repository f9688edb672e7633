#include "cluster/import.h"

#include <fmt/format.h>

#include "cluster/catalog.h"
#include "cluster/external_blobs.h"
#include "cluster/observe.h"
#include "cluster/plan.h"
#include "cluster/sweep.h"

namespace omnigraph::cluster {
namespace {

void SetStatus(ClusterState* state, const std::string& address, std::string status,
               std::optional<std::string> condition) {
  ResourceStatus entry;
  entry.status = std::move(status);
  if (condition) entry.conditions.push_back(*condition);
  state->resource_statuses[address] = std::move(entry);
}

// §4.2 blob verification: a missing or altered payload drops the entry.
void VerifyPayloads(const ClusterStorage& storage, ClusterState* state, Diagnostics* diagnostics) {
  for (auto it = state->resources.begin(); it != state->resources.end();) {
    const std::optional<std::string> key = PayloadKeyOf("", it->first, it->second.digest);
    if (!key) {
      ++it;
      continue;
    }
    auto checked = CheckPayload(*storage.store, *key, it->second.digest);
    if (!checked.ok()) {
      SetStatus(state, it->first, "error", "payload_read_error");
      diagnostics->push_back(ErrorFromStatus(checked.status(), "catalog_payload_read_error", it->first));
      ++it;
    } else if (*checked == PayloadCheck::kPresent) {
      ++it;
    } else {
      const bool missing = *checked == PayloadCheck::kMissing;
      SetStatus(state, it->first, "drifted", missing ? "payload_missing" : "payload_mismatch");
      diagnostics->push_back(WarningDiagnostic(
          missing ? "catalog_payload_missing" : "catalog_payload_mismatch", it->first,
          missing ? fmt::format("the catalog payload '{}' of {} is missing", *key, it->first)
                  : fmt::format("the catalog payload '{}' of {} does not hash to its digest", *key, it->first)));
      it = state->resources.erase(it);
    }
  }
}

// §4.2: observes each declared graph root and rewrites its ledger entries.
// Returns the number of roots that exist but do not open.
size_t ObserveGraphs(const ClusterStorage& storage, const DesiredCluster& desired, ClusterState* state) {
  size_t failed = 0;
  const std::string now = NowRfc3339();
  for (const DesiredGraph& graph : desired.graphs) {
    const std::string graph_address = GraphAddress(graph.id);
    const std::string schema_address = SchemaAddress(graph.id);
    const std::string uri = GraphRootUri(storage.root, graph.id);
    const GraphProbe probe = ProbeGraph(uri);
    Observation observation;
    observation.kind = "graph";
    observation.address = graph_address;
    observation.graph_uri = uri;
    observation.observed_at = now;
    observation.exists = probe.exists;
    observation.desired_schema_digest = graph.schema_digest;
    if (!probe.exists) {
      state->resources.erase(graph_address);
      state->resources.erase(schema_address);
      observation.error = "derived graph root is missing";
      SetStatus(state, graph_address, "drifted", "graph_missing");
      SetStatus(state, schema_address, "drifted", "graph_missing");
    } else if (!probe.opened) {
      ++failed;
      observation.error = probe.error;
      SetStatus(state, graph_address, "error", "graph_observation_error");
      SetStatus(state, schema_address, "error", "graph_observation_error");
    } else {
      observation.graph_manifest_version = probe.manifest_version;
      observation.schema_digest = probe.schema_digest;
      const bool matches = *probe.schema_digest == graph.schema_digest;
      observation.schema_matches_desired = matches;
      state->resources[schema_address] = StateResource{.digest = *probe.schema_digest};
      StateResource entry;
      if (auto existing = state->resources.find(graph_address); existing != state->resources.end()) {
        entry = existing->second;
      } else {
        entry.embedding_provider = graph.embedding_provider;
        entry.external_blob_policy = PersistedExternalBlobPolicyJson(graph.external_blob_policy);
      }
      entry.digest = LedgerGraphDigest(*state, graph.id, entry.embedding_provider, entry.external_blob_policy);
      state->resources[graph_address] = entry;
      SetStatus(state, graph_address, matches ? "applied" : "drifted",
                matches ? std::nullopt : std::optional<std::string>("schema_mismatch"));
      SetStatus(state, schema_address, matches ? "applied" : "drifted",
                matches ? std::nullopt : std::optional<std::string>("schema_mismatch"));
    }
    state->observations[graph_address] = observation;
  }
  return failed;
}

ObserveReport RunObserve(const CommandOptions& options, bool import) {
  ObserveReport report;
  report.operation = import ? "import" : "refresh";
  report.config_dir = options.config_dir;
  const LoadOutcome outcome = LoadDesiredCluster(options.config_dir, options.load);
  report.diagnostics = outcome.diagnostics;
  if (!outcome.ok() || !outcome.desired) return report;
  const DesiredCluster& desired = *outcome.desired;
  auto opened = OpenDesiredStorage(desired, options.config_dir, &report.state_observations, &report.diagnostics);
  if (!opened) return report;
  const ClusterStorage& storage = *opened;

  CommandLock lock;
  if (!lock.Acquire(storage, desired.state_lock, report.operation, &report.state_observations,
                    &report.diagnostics)) {
    return report;
  }
  auto read = ReadObservedState(storage, &report.state_observations, &report.diagnostics);
  if (!read) {
    lock.Release(&report.diagnostics);
    return report;
  }
  ClusterState state;
  if (import) {
    if (read->state) {
      report.diagnostics.push_back(ErrorDiagnostic(
          "state_already_exists", std::string(kStateKey),
          "import requires no existing state.json; run `cluster refresh` to re-observe an existing cluster"));
      lock.Release(&report.diagnostics);
      return report;
    }
    state.config_digest = desired.config_digest;
  } else {
    if (!read->state) {
      report.diagnostics.push_back(ErrorDiagnostic(
          "state_missing", std::string(kStateKey),
          "refresh requires an existing state.json; run `cluster import` to bootstrap state"));
      lock.Release(&report.diagnostics);
      return report;
    }
    state = *read->state;
    if (Status authority = CheckLedgerAuthority(state); !authority.ok()) {
      report.diagnostics.push_back(ErrorFromStatus(authority, "external_blob_policy_digest_mismatch",
                                                   std::string(kStateKey)));
      for (const auto& [address, resource] : state.resources) report.resource_digests[address] = resource.digest;
      report.resource_statuses = state.resource_statuses;
      report.observations = state.observations;
      lock.Release(&report.diagnostics);
      return report;
    }
  }
  SweepOutcome sweep = SweepRecoveries(storage, desired, options.actor, &state);
  report.diagnostics.insert(report.diagnostics.end(), sweep.diagnostics.begin(), sweep.diagnostics.end());
  VerifyPayloads(storage, &state, &report.diagnostics);
  if (size_t failed = ObserveGraphs(storage, desired, &state); failed > 0) {
    report.diagnostics.push_back(ErrorDiagnostic("graph_observation_error", "graphs",
                                                 fmt::format("{} graph observation(s) failed", failed)));
  }
  const bool write = !(import && HasErrors(report.diagnostics));
  if (write) {
    state.state_revision = import ? 1 : state.state_revision + 1;
    auto written = WriteState(*storage.store, "", state, read->cas);
    if (!written.ok()) {
      report.diagnostics.push_back(ErrorFromStatus(written.status(), "state_write_error", std::string(kStateKey)));
    } else {
      StateRead now{state, *written};
      ObserveState(now, &report.state_observations);
      FinishSweep(storage, sweep.retired, sweep.consumed, &report.diagnostics);
    }
  }
  for (const auto& [address, resource] : state.resources) report.resource_digests[address] = resource.digest;
  report.resource_statuses = state.resource_statuses;
  report.observations = state.observations;
  lock.Release(&report.diagnostics);
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

}  // namespace

ObserveReport RunImport(const CommandOptions& options) { return RunObserve(options, true); }

Result<ClusterState> BootstrapState(const ClusterStorage& storage, const DesiredCluster& desired) {
  ClusterState state;
  state.config_digest = desired.config_digest;
  if (size_t failed = ObserveGraphs(storage, desired, &state); failed > 0) {
    return WithClusterCode(InvalidArgument(fmt::format("{} graph observation(s) failed", failed)),
                           "graph_observation_error");
  }
  return state;
}
ObserveReport RunRefresh(const CommandOptions& options) { return RunObserve(options, false); }

}  // namespace omnigraph::cluster
