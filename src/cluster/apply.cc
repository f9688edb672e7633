#include "cluster/apply.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "api/omnigraph.h"
#include "cluster/catalog.h"
#include "cluster/files.h"
#include "cluster/import.h"
#include "cluster/observe.h"
#include "cluster/records.h"
#include "cluster/sweep.h"
#include "io/export_exclusion.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/sha256.h"
#include "util/ulid.h"

namespace omnigraph::cluster {
namespace {

constexpr std::string_view kBlockedMessage = "waiting on an unapplied or missing dependency";

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Why a graph's work stopped, and the reasons step 5 demotes with.
struct GraphFailure {
  std::string graph_reason;   // for graph.<g>
  std::string schema_reason;  // for schema.<g>
};

// One run of `cluster apply`: the phases of §4.4 over a working copy of the
// ledger. A phase that must return at once (an `after_*` failpoint, a new
// payload error) sets `stop_`.
class ApplyRun {
 public:
  ApplyRun(const CommandOptions& options, const ApplyHooks& hooks, ApplyReport* report)
      : options_(options), hooks_(hooks), report_(*report) {}

  void Run();

 private:
  bool Prepare();
  void CreateGraphs();
  void UpdateSchemas();
  void Demote();
  void PublishPayloads();
  void DeleteGraphs();
  ClusterState NewState();
  void Finish(ClusterState next);

  // Evaluates failpoint `name`; when it fires, reports injected_failpoint
  // and returns true.
  bool Injected(std::string_view name);
  void Error(std::string code, std::string path, std::string message) {
    report_.diagnostics.push_back(ErrorDiagnostic(std::move(code), std::move(path), std::move(message)));
  }
  void Warn(std::string code, std::string path, std::string message) {
    report_.diagnostics.push_back(WarningDiagnostic(std::move(code), std::move(path), std::move(message)));
  }
  PlanChange* Find(const std::string& address);
  void Block(PlanChange* change, std::string reason);
  bool Applied(const PlanChange& change) const { return change.disposition == Disposition::kApplied; }
  // Re-reads `address`'s source file and checks it still hashes to
  // `digest` (resource_content_changed otherwise).
  Result<std::string> ReadUnchanged(const std::string& address, const std::string& digest);
  RecoverySidecar NewSidecar(std::string kind, const std::string& graph_id) const;

  const CommandOptions& options_;
  const ApplyHooks& hooks_;
  ApplyReport& report_;

  std::optional<LoadOutcome> outcome_;
  const DesiredCluster* desired_ = nullptr;
  std::optional<ClusterStorage> storage_;
  CommandLock lock_;
  ClusterState snapshot_;  // the ledger as read
  std::optional<std::string> snapshot_cas_;  // none: no ledger yet
  ClusterState state_;     // after the sweep
  SweepOutcome sweep_;
  ClusterPlan plan_;
  std::map<std::string, GraphFailure> failed_;        // graph id -> why
  std::vector<std::string> completed_sidecars_;       // operation ids to delete after the write
  std::map<std::string, std::string> deleted_graphs_; // graph id -> approval id
  bool graph_work_stopped_ = false;                   // a before_* failpoint fired
  bool stop_ = false;
};

bool ApplyRun::Injected(std::string_view name) {
  Status hit = failpoint::Hit(name);
  if (hit.ok()) return false;
  Error("injected_failpoint", "", fmt::format("injected failpoint triggered: {}", name));
  return true;
}

PlanChange* ApplyRun::Find(const std::string& address) {
  for (PlanChange& change : report_.changes) {
    if (change.resource == address) return &change;
  }
  return nullptr;
}

void ApplyRun::Block(PlanChange* change, std::string reason) {
  if (change == nullptr) return;
  change->disposition = Disposition::kBlocked;
  change->reason = std::move(reason);
}

Result<std::string> ApplyRun::ReadUnchanged(const std::string& address, const std::string& digest) {
  const std::optional<std::string> path = DesiredResourcePath(*desired_, address);
  if (!path) return WithClusterCode(NotFound(fmt::format("no source file for {}", address)), "resource_content_changed");
  auto source = ReadSourceFile(*path);
  if (!source.ok()) {
    return WithClusterCode(IoError(fmt::format("could not re-read '{}': {}", *path, source.status().message())),
                           "resource_content_changed");
  }
  if (Sha256Hex(*source) != digest) {
    return WithClusterCode(
        Status(ErrorCode::kConflict,
               fmt::format("'{}' changed while `cluster apply` was running (planned digest {}); re-run the command",
                           *path, digest)),
        "resource_content_changed");
  }
  return std::move(*source);
}

RecoverySidecar ApplyRun::NewSidecar(std::string kind, const std::string& graph_id) const {
  RecoverySidecar sidecar;
  sidecar.operation_id = Ulid::New().ToString();
  sidecar.started_at = NowRfc3339();
  sidecar.actor = options_.actor;
  sidecar.kind = std::move(kind);
  sidecar.graph_id = graph_id;
  sidecar.graph_uri = GraphRootUri(storage_->root, graph_id);
  sidecar.state_cas_base = snapshot_cas_;
  return sidecar;
}

// Step 1.
bool ApplyRun::Prepare() {
  outcome_ = LoadDesiredCluster(options_.config_dir, options_.load);
  report_.diagnostics = outcome_->diagnostics;
  if (outcome_->desired) report_.desired_config_digest = outcome_->desired->config_digest;
  if (!outcome_->ok() || !outcome_->desired) return false;
  desired_ = &*outcome_->desired;
  storage_ = OpenDesiredStorage(*desired_, options_.config_dir, &report_.state_observations, &report_.diagnostics);
  if (!storage_) return false;
  if (!lock_.Acquire(*storage_, desired_->state_lock, "apply", &report_.state_observations, &report_.diagnostics)) {
    return false;
  }
  auto read = ReadObservedState(*storage_, &report_.state_observations, &report_.diagnostics);
  if (!read) return false;
  if (read->state) {
    snapshot_ = *read->state;
    snapshot_cas_ = *read->cas;
  } else {
    // Upstream refuses here (state_missing). We start from the ledger
    // `cluster import` would write and say so: a first `apply` in a fresh
    // config directory then converges it in one step (README).
    auto bootstrapped = BootstrapState(*storage_, *desired_);
    if (!bootstrapped.ok()) {
      report_.diagnostics.push_back(
          ErrorFromStatus(bootstrapped.status(), "graph_observation_error", std::string(kStateKey)));
      return false;
    }
    report_.diagnostics.push_back(WarningDiagnostic(
        "state_bootstrapped", std::string(kStateKey),
        "no state.json yet: apply started from the ledger `cluster import` would record"));
    snapshot_ = std::move(*bootstrapped);
  }
  report_.resource_statuses = snapshot_.resource_statuses;
  if (Status authority = CheckLedgerAuthority(snapshot_); !authority.ok()) {
    report_.diagnostics.push_back(
        ErrorFromStatus(authority, "external_blob_policy_digest_mismatch", std::string(kStateKey)));
    return false;
  }
  state_ = snapshot_;
  sweep_ = SweepRecoveries(*storage_, *desired_, options_.actor, &state_);
  report_.diagnostics.insert(report_.diagnostics.end(), sweep_.diagnostics.begin(), sweep_.diagnostics.end());

  // Step 2.
  PlanInputs inputs;
  inputs.desired = desired_;
  inputs.state = &state_;
  inputs.approvals = ListApprovalsWithWarnings(*storage_, &report_.diagnostics);
  inputs.pending_recovery = sweep_.pending;
  plan_ = PlanCluster(inputs);
  report_.diagnostics.insert(report_.diagnostics.end(), plan_.diagnostics.begin(), plan_.diagnostics.end());
  report_.changes = plan_.changes;
  for (const ApprovalGate& gate : plan_.gates) {
    const PlanChange* change = Find(gate.resource);
    if (change != nullptr && Applied(*change) && !gate.satisfied) {
      Error("apply_approval_invariant_violation", gate.resource,
            fmt::format("{} is planned as applied without a satisfied approval; refusing to apply", gate.resource));
      return false;
    }
  }
  return true;
}

// Step 3.
void ApplyRun::CreateGraphs() {
  for (PlanChange& change : report_.changes) {
    if (stop_) return;
    if (!StartsWith(change.resource, "graph.") || change.operation != ChangeOperation::kCreate || !Applied(change)) {
      continue;
    }
    const std::string id = change.resource.substr(6);
    if (!failed_.empty() || graph_work_stopped_) {
      Warn("graph_create_skipped", change.resource,
           fmt::format("graph '{}' was not created: an earlier graph operation of this run failed", id));
      failed_[id] = {"dependency_not_applied", "dependency_not_applied"};
      continue;
    }
    const std::string schema_address = SchemaAddress(id);
    const std::string schema_digest = desired_->resource_digests.at(schema_address);
    RecoverySidecar sidecar = NewSidecar("graph_create", id);
    sidecar.desired_schema_digest = schema_digest;
    if (Status written = WriteRecoverySidecar(*storage_->store, "", sidecar); !written.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(written, "state_write_error", change.resource));
      failed_[id] = {"graph_create_failed", "dependency_not_applied"};
      continue;
    }
    if (Injected(failpoint::kClusterApplyBeforeGraphCreate)) {
      failed_[id] = {"graph_create_failed", "dependency_not_applied"};
      graph_work_stopped_ = true;
      continue;
    }
    auto source = ReadUnchanged(schema_address, schema_digest);
    if (!source.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(source.status(), "resource_content_changed", schema_address));
      (void)DeleteRecoverySidecar(*storage_->store, "", sidecar.operation_id);
      failed_[id] = {"graph_create_failed", "dependency_not_applied"};
      continue;
    }
    const std::string path = DesiredResourcePath(*desired_, schema_address).value_or("schema.pg");
    auto graph = api::Omnigraph::Init(sidecar.graph_uri, *source, path);
    if (!graph.ok()) {
      Error("graph_create_failed", change.resource,
            fmt::format("could not initialize graph at '{}': {}", sidecar.graph_uri, graph.status().message()));
      failed_[id] = {"graph_create_failed", "dependency_not_applied"};
      continue;
    }
    if (auto snapshot = (*graph)->Snapshot("main"); snapshot.ok()) {
      sidecar.expected_manifest_version = snapshot->graph_manifest_version;
      (void)WriteRecoverySidecar(*storage_->store, "", sidecar);  // best effort (§4.4 step 3)
    }
    if (Injected(failpoint::kClusterApplyAfterGraphCreate)) {
      stop_ = true;
      return;
    }
    completed_sidecars_.push_back(sidecar.operation_id);
  }
}

// Step 4.
void ApplyRun::UpdateSchemas() {
  bool failed_before = false;
  for (PlanChange& change : report_.changes) {
    if (stop_) return;
    if (!StartsWith(change.resource, "schema.") || change.operation != ChangeOperation::kUpdate ||
        !Applied(change)) {
      continue;
    }
    const std::string id = change.resource.substr(7);
    if (failed_before || graph_work_stopped_) {
      Warn("schema_apply_skipped", change.resource,
           fmt::format("schema of graph '{}' was not applied: an earlier graph operation of this run failed", id));
      failed_[id] = {"dependency_not_applied", "dependency_not_applied"};
      continue;
    }
    const std::string uri = GraphRootUri(storage_->root, id);
    auto fail = [&](const std::string& why) {
      Error("schema_apply_failed", change.resource, fmt::format("schema apply is not supported on '{}': {}", uri, why));
      failed_[id] = {"dependency_not_applied", "schema_apply_failed"};
      failed_before = true;
    };
    auto graph = api::Omnigraph::Open(uri);
    if (!graph.ok()) {
      fail(graph.status().message());
      continue;
    }
    auto source = ReadUnchanged(change.resource, *change.after_digest);
    if (!source.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(source.status(), "resource_content_changed", change.resource));
      failed_[id] = {"dependency_not_applied", "schema_apply_failed"};
      failed_before = true;
      continue;
    }
    const std::string path = DesiredResourcePath(*desired_, change.resource).value_or("schema.pg");
    auto preview = (*graph)->PlanSchema(*source, path, /*allow_data_loss=*/false);
    if (!preview.ok()) {
      fail(preview.status().message());
      continue;
    }
    if (!preview->plan.supported) {
      std::string why;
      for (const compiler::SchemaStep& step : preview->plan.steps) {
        if (step.kind != "unsupported_change") continue;
        if (!why.empty()) why += "; ";
        why += step.Describe();
      }
      fail(why);
      continue;
    }
    if (auto branches = (*graph)->BranchList(); branches.ok() && branches->size() > 1) {
      fail("schema apply requires a graph with only main");
      continue;
    }
    auto before = (*graph)->Snapshot("main");
    RecoverySidecar sidecar = NewSidecar("schema_apply", id);
    sidecar.desired_schema_digest = *change.after_digest;
    if (before.ok()) sidecar.observed_manifest_version = before->graph_manifest_version;
    if (Status written = WriteRecoverySidecar(*storage_->store, "", sidecar); !written.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(written, "state_write_error", change.resource));
      failed_[id] = {"dependency_not_applied", "schema_apply_failed"};
      failed_before = true;
      continue;
    }
    if (Injected(failpoint::kClusterApplyBeforeSchemaApply)) {
      failed_[id] = {"dependency_not_applied", "schema_apply_failed"};
      graph_work_stopped_ = true;
      continue;
    }
    if (Status actor = (*graph)->set_actor(options_.actor); !actor.ok()) {
      fail(actor.message());
      (void)DeleteRecoverySidecar(*storage_->store, "", sidecar.operation_id);
      continue;
    }
    auto applied = (*graph)->ApplySchema(*source, path, /*allow_data_loss=*/false);
    if (!applied.ok()) {
      fail(applied.status().message());
      const GraphProbe probe = ProbeGraph(uri);
      const bool unchanged = probe.opened && before.ok() &&
                             probe.manifest_version == before->graph_manifest_version &&
                             probe.schema_digest == change.before_digest;
      if (unchanged) {
        if (Status removed = DeleteRecoverySidecar(*storage_->store, "", sidecar.operation_id); !removed.ok()) {
          Warn("recovery_sidecar_cleanup_failed", change.resource, removed.message());
        }
      }
      continue;
    }
    sidecar.expected_manifest_version = applied->manifest_version;
    (void)WriteRecoverySidecar(*storage_->store, "", sidecar);
    if (Injected(failpoint::kClusterApplyAfterSchemaApply)) {
      stop_ = true;
      return;
    }
    completed_sidecars_.push_back(sidecar.operation_id);
  }
}

// Step 5: Applied (and Derived) dependants of a failed graph become
// Blocked, then every Deferred and Blocked change is warned about.
void ApplyRun::Demote() {
  for (const auto& [id, failure] : failed_) {
    for (PlanChange& change : report_.changes) {
      if (change.disposition != Disposition::kApplied && change.disposition != Disposition::kDerived) continue;
      if (change.resource == GraphAddress(id)) {
        Block(&change, failure.graph_reason);
      } else if (change.resource == SchemaAddress(id)) {
        Block(&change, failure.schema_reason);
      } else if (GraphOfAddress(change.resource) == id) {
        Block(&change, "dependency_not_applied");
      } else if (StartsWith(change.resource, "policy.") && change.operation != ChangeOperation::kDelete) {
        auto bindings = desired_->policy_bindings.find(change.resource);
        if (bindings != desired_->policy_bindings.end() &&
            std::find(bindings->second.begin(), bindings->second.end(), GraphAddress(id)) != bindings->second.end()) {
          Block(&change, "dependency_not_applied");
        }
      }
    }
  }
}

// Step 6.
void ApplyRun::PublishPayloads() {
  const bool errors_before = HasErrors(report_.diagnostics);
  for (const PlanChange& change : report_.changes) {
    if (!Applied(change) || change.operation == ChangeOperation::kDelete) continue;
    const std::optional<std::string> key = PayloadKeyOf("", change.resource, *change.after_digest);
    if (!key) continue;
    if (auto existing = storage_->store->Head(*key); existing.ok()) continue;  // trusted as is (§2.5)
    auto source = ReadUnchanged(change.resource, *change.after_digest);
    if (!source.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(source.status(), "resource_content_changed", change.resource));
      continue;
    }
    if (Status stored = StorePayload(*storage_->store, *key, *change.after_digest, *source); !stored.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(stored, "resource_payload_write_error", change.resource));
    }
  }
  if (!errors_before && HasErrors(report_.diagnostics)) {
    stop_ = true;
    return;
  }
  if (Injected(failpoint::kClusterApplyAfterPayloadPhase)) stop_ = true;
}

// Step 7.
void ApplyRun::DeleteGraphs() {
  for (PlanChange& change : report_.changes) {
    if (stop_) return;
    if (!StartsWith(change.resource, "graph.") || change.operation != ChangeOperation::kDelete || !Applied(change)) {
      continue;
    }
    const std::string id = change.resource.substr(6);
    std::optional<std::string> approval_id;
    for (const ApprovalGate& gate : plan_.gates) {
      if (gate.resource == change.resource) approval_id = gate.approval_id;
    }
    if (graph_work_stopped_) {
      Warn("graph_delete_skipped", change.resource,
           fmt::format("graph '{}' was not deleted: an earlier graph operation of this run failed", id));
      failed_[id] = {"graph_delete_failed", "dependency_not_applied"};
      continue;
    }
    // Held through the removal: an export of the root (in any process)
    // refuses the delete, and an export starting meanwhile is refused.
    const std::string graph_root = fmt::format("graphs/{}.omni", id);
    auto reserved = ReserveExportRoot(*storage_->store, graph_root, ExportRootUse::kDelete);
    if (!reserved.ok()) {
      const bool exporting = reserved.status().code() == ErrorCode::kConflict;
      Error(exporting ? "graph_delete_export_in_progress" : "graph_delete_failed", change.resource,
            exporting ? fmt::format("cannot delete graph root '{}' while an export of it is running; "
                                    "re-run `cluster apply` when it ends",
                                    GraphRootUri(storage_->root, id))
                      : fmt::format("could not reserve graph root '{}' for deletion: {}",
                                    GraphRootUri(storage_->root, id), reserved.status().message()));
      failed_[id] = {"graph_delete_failed", "dependency_not_applied"};
      graph_work_stopped_ = true;
      continue;
    }
    RecoverySidecar sidecar = NewSidecar("graph_delete", id);
    sidecar.approval_id = approval_id;
    if (Status written = WriteRecoverySidecar(*storage_->store, "", sidecar); !written.ok()) {
      report_.diagnostics.push_back(ErrorFromStatus(written, "state_write_error", change.resource));
      failed_[id] = {"graph_delete_failed", "dependency_not_applied"};
      continue;
    }
    if (Injected(failpoint::kClusterApplyBeforeGraphDelete)) {
      failed_[id] = {"graph_delete_failed", "dependency_not_applied"};
      graph_work_stopped_ = true;
      continue;
    }
    if (Status removed = storage_->store->DeletePrefix(graph_root); !removed.ok()) {
      Error("graph_delete_failed", change.resource,
            fmt::format("could not delete graph root '{}': {}", sidecar.graph_uri, removed.message()));
      failed_[id] = {"graph_delete_failed", "dependency_not_applied"};
      continue;
    }
    if (Injected(failpoint::kClusterApplyAfterGraphDelete)) {
      stop_ = true;
      return;
    }
    deleted_graphs_[id] = approval_id.value_or("");
    completed_sidecars_.push_back(sidecar.operation_id);
  }
}

// Step 8.
ClusterState ApplyRun::NewState() {
  ClusterState next = state_;
  for (const PlanChange& change : report_.changes) {
    const std::string& address = change.resource;
    if (change.disposition == Disposition::kApplied) {
      if (change.operation == ChangeOperation::kDelete) {
        next.resources.erase(address);
        next.resource_statuses.erase(address);
      } else {
        StateResource resource = DesiredStateResource(*desired_, address);
        resource.digest = *change.after_digest;
        next.resources[address] = resource;
        next.resource_statuses[address] = ResourceStatus{"applied", {}, std::nullopt};
      }
    } else if (change.disposition == Disposition::kDerived) {
      next.resource_statuses[address] = ResourceStatus{"applied", {}, std::nullopt};
    } else if (change.disposition == Disposition::kBlocked && change.reason != "cluster_recovery_pending") {
      next.resource_statuses[address] = ResourceStatus{"blocked", {*change.reason}, std::string(kBlockedMessage)};
    }
  }
  const std::string now = NowRfc3339();
  for (const auto& [id, approval_id] : deleted_graphs_) {
    const std::string query_prefix = QueryAddress(id, "");
    for (auto it = next.resources.begin(); it != next.resources.end();) {
      const bool subtree = it->first == GraphAddress(id) || it->first == SchemaAddress(id) ||
                           StartsWith(it->first, query_prefix);
      if (subtree) next.resource_statuses.erase(it->first);
      it = subtree ? next.resources.erase(it) : std::next(it);
    }
    for (auto it = next.resource_statuses.begin(); it != next.resource_statuses.end();) {
      it = StartsWith(it->first, query_prefix) ? next.resource_statuses.erase(it) : std::next(it);
    }
    Observation tombstone;
    tombstone.kind = "tombstone";
    tombstone.address = GraphAddress(id);
    tombstone.deleted_at = now;
    if (!approval_id.empty()) tombstone.approval_id = approval_id;
    tombstone.actor = options_.actor;
    next.observations[GraphAddress(id)] = tombstone;
    if (!approval_id.empty()) next.approval_records[approval_id] = ApprovalRecord{now, "apply"};
  }
  // Re-derive each desired graph's composite from the ledger; a graph whose
  // graph or schema change is Blocked keeps its ledger provider and policy.
  for (const DesiredGraph& graph : desired_->graphs) {
    auto entry = next.resources.find(GraphAddress(graph.id));
    if (entry == next.resources.end()) continue;
    bool held = false;
    for (const PlanChange& change : report_.changes) {
      if ((change.resource == GraphAddress(graph.id) || change.resource == SchemaAddress(graph.id)) &&
          change.disposition == Disposition::kBlocked) {
        held = true;
      }
    }
    if (!held) {
      const StateResource wanted = DesiredStateResource(*desired_, GraphAddress(graph.id));
      entry->second.embedding_provider = wanted.embedding_provider;
      entry->second.external_blob_policy = wanted.external_blob_policy;
    }
    entry->second.digest =
        LedgerGraphDigest(next, graph.id, entry->second.embedding_provider, entry->second.external_blob_policy);
  }
  PlanInputs fresh;
  fresh.desired = desired_;
  fresh.state = &next;
  report_.converged = PlanCluster(fresh).changes.empty();
  if (report_.converged) next.config_digest = desired_->config_digest;
  return next;
}

// Steps 9 and 10.
void ApplyRun::Finish(ClusterState next) {
  if (next == snapshot_) {
    report_.resource_statuses = next.resource_statuses;
    FinishSweep(*storage_, sweep_.retired, sweep_.consumed, &report_.diagnostics);
    return;
  }
  next.state_revision = snapshot_.state_revision + 1;
  if (hooks_.before_state_write) hooks_.before_state_write();
  if (Injected(failpoint::kClusterApplyBeforeStateWrite)) return;
  auto written = WriteState(*storage_->store, "", next, snapshot_cas_);
  if (!written.ok()) {
    report_.diagnostics.push_back(ErrorFromStatus(written.status(), "state_write_error", std::string(kStateKey)));
    return;
  }
  report_.state_written = true;
  report_.resource_statuses = next.resource_statuses;
  ObserveState(StateRead{next, *written}, &report_.state_observations);
  std::vector<std::string> retired = sweep_.retired;
  retired.insert(retired.end(), completed_sidecars_.begin(), completed_sidecars_.end());
  std::vector<std::pair<std::string, std::string>> consumed = sweep_.consumed;
  for (const auto& [id, approval_id] : deleted_graphs_) {
    if (!approval_id.empty()) consumed.emplace_back(approval_id, "apply");
  }
  FinishSweep(*storage_, retired, consumed, &report_.diagnostics);
}

void ApplyRun::Run() {
  report_.config_dir = options_.config_dir;
  report_.actor = options_.actor;
  if (!Prepare()) {
    lock_.Release(&report_.diagnostics);
    return;
  }
  CreateGraphs();
  if (!stop_) UpdateSchemas();
  if (!stop_) {
    Demote();
    PublishPayloads();
  }
  if (!stop_) {
    DeleteGraphs();
    Demote();
  }
  if (!stop_) {
    for (const PlanChange& change : report_.changes) {
      if (change.disposition == Disposition::kDeferred) {
        Warn("apply_unsupported_change", change.resource,
             fmt::format("{} of {} is not supported by cluster apply ({})", OperationName(change.operation),
                         change.resource, change.reason.value_or("")));
      } else if (change.disposition == Disposition::kBlocked) {
        Warn("apply_dependency_blocked", change.resource,
             fmt::format("blocked by an unapplied or missing dependency ({})", change.reason.value_or("")));
      }
    }
    for (const PlanChange& change : report_.changes) {
      if (change.disposition == Disposition::kApplied) ++report_.applied_count;
      if (change.disposition == Disposition::kDeferred || change.disposition == Disposition::kBlocked) {
        ++report_.deferred_count;
      }
    }
    Finish(NewState());
  }
  lock_.Release(&report_.diagnostics);
}

}  // namespace

ApplyReport RunApply(const CommandOptions& options, const ApplyHooks& hooks) {
  ApplyReport report;
  ApplyRun(options, hooks, &report).Run();
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

}  // namespace omnigraph::cluster
