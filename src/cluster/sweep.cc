#include "cluster/sweep.h"

#include <fmt/format.h>

#include "cluster/external_blobs.h"
#include "cluster/observe.h"
#include "cluster/plan.h"

namespace omnigraph::cluster {
namespace {

void MarkStatus(ClusterState* state, const std::string& address, std::string status,
                std::optional<std::string> condition, std::optional<std::string> message = std::nullopt) {
  ResourceStatus& entry = state->resource_statuses[address];
  entry.status = std::move(status);
  entry.conditions.clear();
  if (condition) entry.conditions.push_back(*condition);
  entry.message = std::move(message);
}

// Sets `schema.<g>` to the live schema and re-derives `graph.<g>` (§6.2
// "roll forward"), keeping a ledger graph entry's provider and policy, else
// taking the desired ones.
void RollForward(const DesiredCluster& desired, const RecoverySidecar& sidecar, const std::string& live_digest,
                 const std::optional<std::string>& actor, ClusterState* state, SweepOutcome* outcome) {
  const std::string& id = sidecar.graph_id;
  state->resources[SchemaAddress(id)] = StateResource{.digest = live_digest};
  StateResource graph;
  if (auto existing = state->resources.find(GraphAddress(id)); existing != state->resources.end()) {
    graph = existing->second;
  } else {
    for (const DesiredGraph& declared : desired.graphs) {
      if (declared.id != id) continue;
      graph.embedding_provider = declared.embedding_provider;
      graph.external_blob_policy = PersistedExternalBlobPolicyJson(declared.external_blob_policy);
    }
  }
  graph.digest = LedgerGraphDigest(*state, id, graph.embedding_provider, graph.external_blob_policy);
  state->resources[GraphAddress(id)] = graph;
  MarkStatus(state, GraphAddress(id), "applied", std::nullopt);
  MarkStatus(state, SchemaAddress(id), "applied", std::nullopt);
  state->recovery_records[sidecar.operation_id] =
      RecoveryRecord{sidecar.kind, id, "rolled_forward", NowRfc3339(), actor ? actor : sidecar.actor};
  outcome->diagnostics.push_back(WarningDiagnostic(
      "cluster_recovery_rolled_forward", GraphAddress(id),
      fmt::format("recovered interrupted {} of graph '{}' (operation {}): the live schema is the one it intended",
                  sidecar.kind, id, sidecar.operation_id)));
  outcome->retired.push_back(sidecar.operation_id);
}

void KeepPending(const RecoverySidecar& sidecar, SweepOutcome* outcome, std::string_view why) {
  const std::string& id = sidecar.graph_id;
  outcome->pending.insert(id);
  outcome->diagnostics.push_back(WarningDiagnostic(
      "cluster_recovery_pending", GraphAddress(id),
      fmt::format("recovery sidecar {} ({} of graph '{}') is unresolved: {}", sidecar.operation_id, sidecar.kind, id,
                  why)));
}

// §6.2 rows create and schema once the root opened: live = ledger → retire;
// live = intended → roll forward; other → drifted, kept.
void SettleOpened(const DesiredCluster& desired, const RecoverySidecar& sidecar, const std::string& live_digest,
                  const std::optional<std::string>& actor, ClusterState* state, SweepOutcome* outcome) {
  const std::string& id = sidecar.graph_id;
  auto ledger = state->resources.find(SchemaAddress(id));
  if (ledger != state->resources.end() && ledger->second.digest == live_digest) {
    outcome->retired.push_back(sidecar.operation_id);
  } else if (live_digest == sidecar.desired_schema_digest) {
    RollForward(desired, sidecar, live_digest, actor, state, outcome);
  } else {
    MarkStatus(state, GraphAddress(id), "drifted", "actual_applied_state_pending");
    MarkStatus(state, SchemaAddress(id), "drifted", "actual_applied_state_pending");
    KeepPending(sidecar, outcome, "the live schema is neither the applied nor the intended one");
  }
}

void SweepDelete(const RecoverySidecar& sidecar, bool root_exists, const std::optional<std::string>& actor,
                 ClusterState* state, SweepOutcome* outcome) {
  const std::string& id = sidecar.graph_id;
  if (root_exists) {
    outcome->diagnostics.push_back(WarningDiagnostic(
        "graph_delete_incomplete", GraphAddress(id),
        fmt::format("interrupted delete of graph '{}' (operation {}) left its root; the approved delete re-runs", id,
                    sidecar.operation_id)));
    outcome->retired.push_back(sidecar.operation_id);
    return;
  }
  if (state->resources.count(GraphAddress(id)) == 0) {
    outcome->retired.push_back(sidecar.operation_id);
    return;
  }
  const std::string now = NowRfc3339();
  const std::string query_prefix = QueryAddress(id, "");
  for (auto it = state->resources.begin(); it != state->resources.end();) {
    const bool subtree = it->first == GraphAddress(id) || it->first == SchemaAddress(id) ||
                         it->first.compare(0, query_prefix.size(), query_prefix) == 0;
    if (subtree) state->resource_statuses.erase(it->first);
    it = subtree ? state->resources.erase(it) : std::next(it);
  }
  Observation tombstone;
  tombstone.kind = "tombstone";
  tombstone.address = GraphAddress(id);
  tombstone.deleted_at = now;
  tombstone.approval_id = sidecar.approval_id;
  tombstone.actor = actor ? actor : sidecar.actor;
  state->observations[GraphAddress(id)] = tombstone;
  state->recovery_records[sidecar.operation_id] =
      RecoveryRecord{sidecar.kind, id, "rolled_forward", now, actor ? actor : sidecar.actor};
  if (sidecar.approval_id) {
    state->approval_records[*sidecar.approval_id] = ApprovalRecord{now, sidecar.operation_id};
    outcome->consumed.emplace_back(*sidecar.approval_id, sidecar.operation_id);
  }
  outcome->diagnostics.push_back(WarningDiagnostic(
      "cluster_recovery_rolled_forward", GraphAddress(id),
      fmt::format("recovered interrupted delete of graph '{}' (operation {}): the root is gone", id,
                  sidecar.operation_id)));
  outcome->retired.push_back(sidecar.operation_id);
}

}  // namespace

std::vector<RecoverySidecar> ListSidecarsWithWarnings(const ClusterStorage& storage, bool with_pending,
                                                      Diagnostics* diagnostics) {
  auto listing = ListRecoverySidecars(*storage.store, "");
  if (!listing.ok()) {
    diagnostics->push_back(WarningDiagnostic("recovery_sidecar_read_error", std::string(kRecoveriesDir),
                                             listing.status().message()));
    return {};
  }
  for (const Status& problem : listing->problems) {
    std::string code = ClusterCodeOf(problem);
    if (code.empty()) code = "invalid_recovery_sidecar";
    diagnostics->push_back(WarningDiagnostic(code, std::string(kRecoveriesDir), problem.message()));
  }
  if (with_pending) {
    for (const RecoverySidecar& sidecar : listing->records) {
      diagnostics->push_back(WarningDiagnostic(
          "cluster_recovery_pending", GraphAddress(sidecar.graph_id),
          fmt::format("recovery sidecar {} ({} of graph '{}') awaits the next `cluster apply`", sidecar.operation_id,
                      sidecar.kind, sidecar.graph_id)));
    }
  }
  return std::move(listing->records);
}

std::vector<ApprovalArtifact> ListApprovalsWithWarnings(const ClusterStorage& storage, Diagnostics* diagnostics) {
  auto listing = ListApprovalArtifacts(*storage.store, "");
  if (!listing.ok()) {
    diagnostics->push_back(
        WarningDiagnostic("approval_read_error", std::string(kApprovalsDir), listing.status().message()));
    return {};
  }
  for (const Status& problem : listing->problems) {
    std::string code = ClusterCodeOf(problem);
    if (code.empty()) code = "invalid_approval_artifact";
    diagnostics->push_back(WarningDiagnostic(code, std::string(kApprovalsDir), problem.message()));
  }
  return std::move(listing->records);
}

SweepOutcome SweepRecoveries(const ClusterStorage& storage, const DesiredCluster& desired,
                             const std::optional<std::string>& actor, ClusterState* state) {
  SweepOutcome outcome;
  for (const RecoverySidecar& sidecar : ListSidecarsWithWarnings(storage, false, &outcome.diagnostics)) {
    const std::string uri = GraphRootUri(storage.root, sidecar.graph_id);
    const GraphProbe probe = ProbeGraph(uri);
    if (sidecar.kind == "graph_delete") {
      SweepDelete(sidecar, probe.exists, actor, state, &outcome);
    } else if (sidecar.kind == "graph_create" && !probe.exists) {
      outcome.retired.push_back(sidecar.operation_id);
    } else if (probe.opened) {
      SettleOpened(desired, sidecar, *probe.schema_digest, actor, state, &outcome);
    } else if (sidecar.kind == "graph_create") {
      MarkStatus(state, GraphAddress(sidecar.graph_id), "error", "graph_create_incomplete");
      outcome.pending.insert(sidecar.graph_id);
      outcome.diagnostics.push_back(ErrorDiagnostic(
          "graph_create_incomplete", GraphAddress(sidecar.graph_id),
          fmt::format("graph root '{}' exists but cannot be opened ({}); remove the graph root and re-run `cluster "
                      "apply`",
                      uri, probe.error)));
    } else {
      KeepPending(sidecar, &outcome,
                  probe.exists ? fmt::format("graph root '{}' does not open ({})", uri, probe.error)
                               : fmt::format("graph root '{}' is missing", uri));
    }
  }
  return outcome;
}

void FinishSweep(const ClusterStorage& storage, const std::vector<std::string>& retired,
                 const std::vector<std::pair<std::string, std::string>>& consumed, Diagnostics* diagnostics) {
  for (const std::string& operation_id : retired) {
    Status removed = DeleteRecoverySidecar(*storage.store, "", operation_id);
    if (!removed.ok()) {
      diagnostics->push_back(
          WarningDiagnostic("recovery_sidecar_cleanup_failed", std::string(kRecoveriesDir), removed.message()));
    }
  }
  if (consumed.empty()) return;
  Diagnostics ignored;
  std::vector<ApprovalArtifact> approvals = ListApprovalsWithWarnings(storage, &ignored);
  const std::string now = NowRfc3339();
  for (const auto& [approval_id, operation] : consumed) {
    for (ApprovalArtifact& artifact : approvals) {
      if (artifact.approval_id != approval_id || artifact.consumed_at) continue;
      artifact.consumed_at = now;
      artifact.consumed_by_operation = operation;
      Status written = WriteApprovalArtifact(*storage.store, "", artifact);
      if (!written.ok()) {
        diagnostics->push_back(
            WarningDiagnostic("approval_read_error", std::string(kApprovalsDir), written.message()));
      }
    }
  }
}

}  // namespace omnigraph::cluster
