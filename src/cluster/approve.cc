#include "cluster/approve.h"

#include "cluster/plan.h"
#include "cluster/records.h"
#include "cluster/sweep.h"
#include "util/ulid.h"

namespace omnigraph::cluster {

ApproveReport RunApprove(const CommandOptions& options, const std::string& resource) {
  ApproveReport report;
  report.config_dir = options.config_dir;
  const LoadOutcome outcome = LoadDesiredCluster(options.config_dir, options.load);
  report.diagnostics = outcome.diagnostics;
  if (!outcome.ok() || !outcome.desired) return report;
  const DesiredCluster& desired = *outcome.desired;
  auto opened = OpenDesiredStorage(desired, options.config_dir, nullptr, &report.diagnostics);
  if (!opened) return report;
  const ClusterStorage& storage = *opened;
  StateObservations observations;
  CommandLock lock;
  if (!lock.Acquire(storage, desired.state_lock, "approve", &observations, &report.diagnostics)) return report;
  auto read = ReadObservedState(storage, &observations, &report.diagnostics);
  if (read && !read->state) {
    report.diagnostics.push_back(ErrorDiagnostic(
        "state_missing", std::string(kStateKey),
        "approve requires an existing state.json; run `cluster import` to bootstrap state"));
  } else if (read) {
    PlanInputs inputs;
    inputs.desired = &desired;
    inputs.state = &*read->state;
    inputs.approvals = ListApprovalsWithWarnings(storage, &report.diagnostics);
    inputs.metadata_updates = false;
    const ClusterPlan plan = PlanCluster(inputs);
    const ApprovalGate* gate = nullptr;
    for (const ApprovalGate& candidate : plan.gates) {
      if (candidate.resource == resource) gate = &candidate;
    }
    const PlanChange* change = nullptr;
    for (const PlanChange& candidate : plan.changes) {
      if (candidate.resource == resource) change = &candidate;
    }
    if (gate == nullptr || change == nullptr) {
      report.diagnostics.push_back(
          ErrorDiagnostic("approval_not_required", resource,
                          "no pending change for this resource requires approval (check `cluster plan`)"));
    } else {
      ApprovalArtifact artifact;
      artifact.approval_id = Ulid::New().ToString();
      artifact.resource = resource;
      artifact.operation = std::string(OperationName(change->operation));
      artifact.reason = gate->reason;
      artifact.bound_config_digest = desired.config_digest;
      artifact.bound_before_digest = change->before_digest;
      artifact.bound_after_digest = change->after_digest;
      artifact.approved_by = options.actor;
      artifact.created_at = NowRfc3339();
      if (Status written = WriteApprovalArtifact(*storage.store, "", artifact); !written.ok()) {
        report.diagnostics.push_back(ErrorFromStatus(written, "state_write_error", std::string(kApprovalsDir)));
      } else {
        report.approval_id = artifact.approval_id;
        report.resource = artifact.resource;
        report.operation = artifact.operation;
        report.approved_by = artifact.approved_by;
      }
    }
  }
  lock.Release(&report.diagnostics);
  report.ok = !HasErrors(report.diagnostics);
  return report;
}

}  // namespace omnigraph::cluster
