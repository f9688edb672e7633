#include "cluster/plan.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cluster/digest.h"
#include "cluster/external_blobs.h"

namespace omnigraph::cluster {
namespace {

constexpr std::string_view kGraphPrefix = "graph.";
constexpr std::string_view kSchemaPrefix = "schema.";
constexpr std::string_view kQueryPrefix = "query.";
constexpr std::string_view kPolicyPrefix = "policy.";
constexpr std::string_view kProviderPrefix = "provider.embedding.";

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Whether an approval artifact binds exactly this change of the desired
// config (§3.3).
bool Binds(const ApprovalArtifact& artifact, const PlanChange& change, const std::string& config_digest) {
  return artifact.bound_config_digest == config_digest && artifact.bound_before_digest == change.before_digest &&
         artifact.bound_after_digest == change.after_digest;
}

// The graphs a policy Create/Update binds (from its desired bindings).
std::vector<std::string> BoundGraphs(const DesiredCluster& desired, const std::string& policy_address) {
  std::vector<std::string> graphs;
  auto found = desired.policy_bindings.find(policy_address);
  if (found == desired.policy_bindings.end()) return graphs;
  for (const std::string& scope : found->second) {
    if (StartsWith(scope, kGraphPrefix)) graphs.push_back(scope.substr(kGraphPrefix.size()));
  }
  return graphs;
}

}  // namespace

std::string_view OperationName(ChangeOperation operation) {
  switch (operation) {
    case ChangeOperation::kCreate: return "create";
    case ChangeOperation::kUpdate: return "update";
    case ChangeOperation::kDelete: return "delete";
  }
  return "create";
}

std::string_view OperationTitle(ChangeOperation operation) {
  switch (operation) {
    case ChangeOperation::kCreate: return "Create";
    case ChangeOperation::kUpdate: return "Update";
    case ChangeOperation::kDelete: return "Delete";
  }
  return "Create";
}

std::string_view DispositionName(Disposition disposition) {
  switch (disposition) {
    case Disposition::kApplied: return "applied";
    case Disposition::kDerived: return "derived";
    case Disposition::kDeferred: return "deferred";
    case Disposition::kBlocked: return "blocked";
  }
  return "applied";
}

std::string_view DispositionTitle(Disposition disposition) {
  switch (disposition) {
    case Disposition::kApplied: return "Applied";
    case Disposition::kDerived: return "Derived";
    case Disposition::kDeferred: return "Deferred";
    case Disposition::kBlocked: return "Blocked";
  }
  return "Applied";
}

std::optional<std::string> GraphOfAddress(std::string_view address) {
  for (std::string_view prefix : {kGraphPrefix, kSchemaPrefix}) {
    if (StartsWith(address, prefix)) return std::string(address.substr(prefix.size()));
  }
  if (StartsWith(address, kQueryPrefix)) {
    std::string_view rest = address.substr(kQueryPrefix.size());
    // Graph ids hold no dot (§1.2), so the first one ends the id.
    return std::string(rest.substr(0, rest.find('.')));
  }
  return std::nullopt;
}

std::optional<std::string> DesiredResourcePath(const DesiredCluster& desired, std::string_view address) {
  for (const ResourceSummary& resource : desired.resources) {
    if (resource.address == address) return resource.path;
  }
  return std::nullopt;
}

StateResource DesiredStateResource(const DesiredCluster& desired, const std::string& address) {
  StateResource resource;
  if (auto digest = desired.resource_digests.find(address); digest != desired.resource_digests.end()) {
    resource.digest = digest->second;
  }
  if (StartsWith(address, kPolicyPrefix)) {
    if (auto bindings = desired.policy_bindings.find(address); bindings != desired.policy_bindings.end()) {
      resource.applies_to = bindings->second;
    }
  } else if (StartsWith(address, kProviderPrefix)) {
    const std::string name = address.substr(kProviderPrefix.size());
    if (auto profile = desired.config.embedding_providers.find(name);
        profile != desired.config.embedding_providers.end()) {
      resource.embedding_profile = EmbeddingProfileJson(profile->second);
    }
  } else if (StartsWith(address, kGraphPrefix)) {
    const std::string id = address.substr(kGraphPrefix.size());
    for (const DesiredGraph& graph : desired.graphs) {
      if (graph.id != id) continue;
      resource.embedding_provider = graph.embedding_provider;
      resource.external_blob_policy = PersistedExternalBlobPolicyJson(graph.external_blob_policy);
    }
  }
  return resource;
}

std::string LedgerGraphDigest(const ClusterState& state, const std::string& graph_id,
                              const std::optional<std::string>& embedding_provider,
                              const std::optional<std::string>& external_blob_policy) {
  GraphDigestInputs inputs;
  inputs.graph_id = graph_id;
  if (auto schema = state.resources.find(SchemaAddress(graph_id)); schema != state.resources.end()) {
    inputs.schema_digest = schema->second.digest;
  }
  const std::string query_prefix = QueryAddress(graph_id, "");
  for (auto it = state.resources.lower_bound(query_prefix);
       it != state.resources.end() && StartsWith(it->first, query_prefix); ++it) {
    inputs.query_digests[it->first.substr(query_prefix.size())] = it->second.digest;
  }
  if (embedding_provider) {
    inputs.embedding_provider_address = *embedding_provider;
    if (auto provider = state.resources.find(*embedding_provider); provider != state.resources.end()) {
      inputs.embedding_provider_digest = provider->second.digest;
    }
  }
  inputs.external_blob_policy_json = external_blob_policy;
  return GraphCompositeDigest(inputs);
}

Status CheckLedgerAuthority(const ClusterState& state) {
  for (const auto& [address, resource] : state.resources) {
    if (!StartsWith(address, kGraphPrefix)) continue;
    const std::string id = address.substr(kGraphPrefix.size());
    if (LedgerGraphDigest(state, id, resource.embedding_provider, resource.external_blob_policy) != resource.digest) {
      return WithClusterCode(
          Status(ErrorCode::kCorruptData,
                 "the applied graph resource metadata is not bound by its composite digest; restore the cluster "
                 "state ledger from a trusted copy before retrying"),
          "external_blob_policy_digest_mismatch");
    }
  }
  return Status::OK();
}

ClusterPlan PlanCluster(const PlanInputs& inputs) {
  const DesiredCluster& desired = *inputs.desired;
  ClusterPlan plan;
  static const std::map<std::string, StateResource> kNoResources;
  const std::map<std::string, StateResource>& applied = inputs.state ? inputs.state->resources : kNoResources;

  // §3.1 content diff and §3.2 metadata updates, by address (both maps are
  // ordered, so the merge is sorted).
  for (const auto& [address, digest] : desired.resource_digests) {
    auto before = applied.find(address);
    if (before == applied.end()) {
      plan.changes.push_back(PlanChange{.resource = address, .operation = ChangeOperation::kCreate,
                                        .after_digest = digest});
    } else if (before->second.digest != digest) {
      plan.changes.push_back(PlanChange{.resource = address, .operation = ChangeOperation::kUpdate,
                                        .before_digest = before->second.digest, .after_digest = digest});
    } else if (inputs.metadata_updates && inputs.state) {
      const StateResource wanted = DesiredStateResource(desired, address);
      PlanChange change{.resource = address, .operation = ChangeOperation::kUpdate,
                        .before_digest = digest, .after_digest = digest};
      if (StartsWith(address, kPolicyPrefix) && before->second.applies_to != wanted.applies_to) {
        change.binding_change = true;
        change.metadata_change = "policy_bindings";
        plan.changes.push_back(change);
      } else if (StartsWith(address, kProviderPrefix) &&
                 before->second.embedding_profile != wanted.embedding_profile) {
        change.metadata_change = "embedding_profile";
        plan.changes.push_back(change);
      }
    }
  }
  for (const auto& [address, resource] : applied) {
    if (desired.resource_digests.count(address) == 0) {
      plan.changes.push_back(PlanChange{.resource = address, .operation = ChangeOperation::kDelete,
                                        .before_digest = resource.digest});
    }
  }
  std::sort(plan.changes.begin(), plan.changes.end(),
            [](const PlanChange& a, const PlanChange& b) { return a.resource < b.resource; });

  // Graph sets of §3.4.
  std::set<std::string> graph_created, graph_deleted, schema_pending;
  for (const PlanChange& change : plan.changes) {
    if (StartsWith(change.resource, kGraphPrefix)) {
      const std::string id = change.resource.substr(kGraphPrefix.size());
      if (change.operation == ChangeOperation::kCreate) graph_created.insert(id);
      if (change.operation == ChangeOperation::kDelete) graph_deleted.insert(id);
    }
  }
  for (const PlanChange& change : plan.changes) {
    if (!StartsWith(change.resource, kSchemaPrefix)) continue;
    const std::string id = change.resource.substr(kSchemaPrefix.size());
    if (change.operation == ChangeOperation::kDelete ||
        (change.operation == ChangeOperation::kCreate && graph_created.count(id) == 0)) {
      schema_pending.insert(id);
    }
  }

  // §3.3 gates.
  std::map<std::string, bool> approved;  // gated address -> satisfied
  for (const PlanChange& change : plan.changes) {
    if (change.operation != ChangeOperation::kDelete) continue;
    const bool graph_delete = StartsWith(change.resource, kGraphPrefix);
    const bool lone_schema_delete = StartsWith(change.resource, kSchemaPrefix) &&
                                    graph_deleted.count(change.resource.substr(kSchemaPrefix.size())) == 0;
    if (!graph_delete && !lone_schema_delete) continue;
    ApprovalGate gate{.resource = change.resource, .reason = std::string(kGateReason)};
    for (const ApprovalArtifact& artifact : inputs.approvals) {
      if (artifact.resource != change.resource || artifact.consumed_at) continue;
      if (!gate.satisfied && Binds(artifact, change, desired.config_digest)) {
        gate.satisfied = true;
        gate.approval_id = artifact.approval_id;
      } else if (!Binds(artifact, change, desired.config_digest)) {
        plan.diagnostics.push_back(WarningDiagnostic(
            "approval_stale", change.resource,
            fmt::format("approval {} for {} no longer matches the planned change (config or digests moved); it "
                        "authorises nothing — run `cluster approve {}` again",
                        artifact.approval_id, change.resource, change.resource)));
      }
    }
    approved[change.resource] = gate.satisfied;
    plan.gates.push_back(std::move(gate));
  }

  // §3.4 dispositions.
  const std::set<std::string>& pending = inputs.pending_recovery;
  auto in = [](const std::set<std::string>& set, const std::string& id) { return set.count(id) != 0; };
  auto rides = [&](const std::string& id) {
    auto gate = approved.find(GraphAddress(id));
    return in(graph_deleted, id) && gate != approved.end() && gate->second && !in(pending, id);
  };
  auto blocked = [](PlanChange& change, std::string_view reason) {
    change.disposition = Disposition::kBlocked;
    change.reason = std::string(reason);
  };
  auto as_graph_delete = [&](PlanChange& change, const std::string& id) {
    if (in(pending, id)) blocked(change, "cluster_recovery_pending");
    else if (rides(id)) change.disposition = Disposition::kApplied;
    else blocked(change, "approval_required");
  };
  for (PlanChange& change : plan.changes) {
    const std::string& address = change.resource;
    const std::optional<std::string> graph = GraphOfAddress(address);
    if (StartsWith(address, kGraphPrefix)) {
      const std::string& id = *graph;
      if (change.operation == ChangeOperation::kCreate) {
        if (in(pending, id)) blocked(change, "cluster_recovery_pending");
        else change.disposition = Disposition::kApplied;
      } else if (change.operation == ChangeOperation::kUpdate) {
        if (in(schema_pending, id)) {
          change.disposition = Disposition::kDeferred;
          change.reason = "apply_unsupported_kind";
        } else {
          change.disposition = Disposition::kDerived;
        }
      } else {
        as_graph_delete(change, id);
      }
    } else if (StartsWith(address, kSchemaPrefix)) {
      const std::string& id = *graph;
      if (change.operation == ChangeOperation::kCreate) {
        if (in(graph_created, id) && !in(pending, id)) change.disposition = Disposition::kApplied;
        else blocked(change, "cluster_recovery_pending");
      } else if (change.operation == ChangeOperation::kUpdate) {
        if (in(pending, id)) blocked(change, "cluster_recovery_pending");
        else change.disposition = Disposition::kApplied;
      } else if (in(graph_deleted, id)) {
        as_graph_delete(change, id);
      } else {
        change.disposition = Disposition::kDeferred;
        change.reason = "apply_unsupported_kind";
      }
    } else if (StartsWith(address, kQueryPrefix)) {
      const std::string& id = *graph;
      if (change.operation == ChangeOperation::kDelete) {
        if (rides(id)) change.disposition = Disposition::kApplied;
        else if (in(graph_deleted, id)) blocked(change, "approval_required");
        else change.disposition = Disposition::kApplied;
      } else if (in(pending, id)) {
        blocked(change, "cluster_recovery_pending");
      } else if (in(schema_pending, id)) {
        blocked(change, "dependency_not_applied");
      } else {
        change.disposition = Disposition::kApplied;
      }
    } else if (StartsWith(address, kPolicyPrefix) && change.operation != ChangeOperation::kDelete) {
      const std::vector<std::string> bound = BoundGraphs(desired, address);
      if (std::any_of(bound.begin(), bound.end(), [&](const std::string& id) { return in(pending, id); })) {
        blocked(change, "cluster_recovery_pending");
      } else {
        change.disposition = Disposition::kApplied;
      }
    } else {
      change.disposition = Disposition::kApplied;
    }
  }

  // §3.5 blast radius.
  for (const PlanChange& change : plan.changes) {
    BlastRadius radius{.resource = change.resource};
    for (const Dependency& edge : desired.dependencies) {
      if (edge.to == change.resource) radius.affected.push_back(edge.from);
    }
    if (!radius.affected.empty()) plan.blast_radius.push_back(std::move(radius));
  }
  return plan;
}

}  // namespace omnigraph::cluster
