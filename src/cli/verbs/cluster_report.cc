#include "cli/verbs/cluster_report.h"

#include <fmt/format.h>

namespace omnigraph::cli {
namespace {

using cluster::StateObservations;

template <typename T>
void SetIf(ClusterJson& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

ClusterJson StateObservationsJson(const StateObservations& o) {
  ClusterJson json;
  json["state_path"] = o.state_path;
  json["lock_path"] = o.lock_path;
  json["state_found"] = o.state_found;
  SetIf(json, "applied_config_digest", o.applied_config_digest);
  json["state_revision"] = o.state_revision;
  SetIf(json, "state_cas", o.state_cas);
  json["resource_count"] = o.resource_count;
  json["locked"] = o.locked;
  SetIf(json, "lock_id", o.lock_id);
  json["lock_acquired"] = o.lock_acquired;
  SetIf(json, "acquired_lock_id", o.acquired_lock_id);
  SetIf(json, "lock_operation", o.lock_operation);
  SetIf(json, "lock_created_at", o.lock_created_at);
  SetIf(json, "lock_pid", o.lock_pid);
  SetIf(json, "lock_age_seconds", o.lock_age_seconds);
  return json;
}

ClusterJson DigestsJson(const std::map<std::string, std::string>& digests) {
  ClusterJson json = ClusterJson::object();
  for (const auto& [address, digest] : digests) json[address] = digest;
  return json;
}

ClusterJson ChangesJson(const std::vector<cluster::PlanChange>& changes) {
  ClusterJson list = ClusterJson::array();
  for (const cluster::PlanChange& change : changes) {
    ClusterJson json;
    json["resource"] = change.resource;
    json["operation"] = cluster::OperationName(change.operation);
    SetIf(json, "before_digest", change.before_digest);
    SetIf(json, "after_digest", change.after_digest);
    if (change.disposition) json["disposition"] = cluster::DispositionName(*change.disposition);
    SetIf(json, "reason", change.reason);
    if (change.binding_change) json["binding_change"] = true;
    SetIf(json, "metadata_change", change.metadata_change);
    if (change.migration) {
      ClusterJson steps = ClusterJson::array();
      for (const std::string& step : change.migration->steps) steps.push_back(ClusterJson::parse(step));
      json["migration"] = ClusterJson{{"supported", change.migration->supported}, {"steps", steps}};
    }
    list.push_back(std::move(json));
  }
  return list;
}

void PrintDiagnostics(const cluster::Diagnostics& diagnostics, std::ostream& out) {
  for (const cluster::Diagnostic& diagnostic : diagnostics) out << cluster::FormatDiagnostic(diagnostic) << "\n";
}

std::string LockDetail(const StateObservations& o) {
  return fmt::format("id={}, operation={}, pid={}, created_at={}, age_seconds={}", o.lock_id.value_or(""),
                     o.lock_operation.value_or(""), o.lock_pid ? std::to_string(*o.lock_pid) : "",
                     o.lock_created_at.value_or(""),
                     o.lock_age_seconds ? std::to_string(*o.lock_age_seconds) : "");
}

}  // namespace

ClusterJson ClusterDiagnosticsJson(const cluster::Diagnostics& diagnostics) {
  ClusterJson list = ClusterJson::array();
  for (const cluster::Diagnostic& diagnostic : diagnostics) {
    list.push_back(ClusterJson{{"code", diagnostic.code},
                               {"severity", cluster::SeverityName(diagnostic.severity)},
                               {"path", diagnostic.path},
                               {"message", diagnostic.message}});
  }
  return list;
}

ClusterJson ObserveReportJson(const cluster::ObserveReport& report) {
  return ClusterJson{{"ok", report.ok},
                     {"operation", report.operation},
                     {"config_dir", report.config_dir},
                     {"state_observations", StateObservationsJson(report.state_observations)},
                     {"resource_digests", DigestsJson(report.resource_digests)},
                     {"resource_statuses", ClusterJson::parse(cluster::ResourceStatusesJson(report.resource_statuses))},
                     {"observations", ClusterJson::parse(cluster::ObservationsJson(report.observations))},
                     {"diagnostics", ClusterDiagnosticsJson(report.diagnostics)}};
}

ClusterJson PlanReportJson(const cluster::PlanReport& report) {
  ClusterJson dependencies = ClusterJson::array();
  for (const cluster::Dependency& edge : report.dependencies) {
    dependencies.push_back(ClusterJson{{"from", edge.from}, {"to", edge.to}});
  }
  ClusterJson blast = ClusterJson::array();
  for (const cluster::BlastRadius& radius : report.plan.blast_radius) {
    blast.push_back(ClusterJson{{"resource", radius.resource}, {"affected", radius.affected}});
  }
  ClusterJson gates = ClusterJson::array();
  for (const cluster::ApprovalGate& gate : report.plan.gates) {
    gates.push_back(ClusterJson{{"resource", gate.resource}, {"reason", gate.reason}, {"satisfied", gate.satisfied}});
  }
  ClusterJson desired_revision{{"config_digest", report.desired_config_digest ? ClusterJson(*report.desired_config_digest)
                                                                              : ClusterJson(nullptr)}};
  return ClusterJson{{"ok", report.ok},
                     {"config_dir", report.config_dir},
                     {"desired_revision", desired_revision},
                     {"resource_digests", DigestsJson(report.resource_digests)},
                     {"dependencies", dependencies},
                     {"state_observations", StateObservationsJson(report.state_observations)},
                     {"changes", ChangesJson(report.plan.changes)},
                     {"blast_radius", blast},
                     {"approvals_required", gates},
                     {"diagnostics", ClusterDiagnosticsJson(report.diagnostics)}};
}

ClusterJson ApplyReportJson(const cluster::ApplyReport& report) {
  ClusterJson json;
  json["ok"] = report.ok;
  json["config_dir"] = report.config_dir;
  SetIf(json, "actor", report.actor);
  json["desired_revision"] = ClusterJson{
      {"config_digest", report.desired_config_digest ? ClusterJson(*report.desired_config_digest) : ClusterJson(nullptr)}};
  json["state_observations"] = StateObservationsJson(report.state_observations);
  json["changes"] = ChangesJson(report.changes);
  json["applied_count"] = report.applied_count;
  json["deferred_count"] = report.deferred_count;
  json["converged"] = report.converged;
  json["state_written"] = report.state_written;
  json["resource_statuses"] = ClusterJson::parse(cluster::ResourceStatusesJson(report.resource_statuses));
  json["diagnostics"] = ClusterDiagnosticsJson(report.diagnostics);
  return json;
}

ClusterJson ApproveReportJson(const cluster::ApproveReport& report) {
  ClusterJson json;
  json["ok"] = report.ok;
  json["config_dir"] = report.config_dir;
  SetIf(json, "approval_id", report.approval_id);
  SetIf(json, "resource", report.resource);
  SetIf(json, "operation", report.operation);
  SetIf(json, "approved_by", report.approved_by);
  json["diagnostics"] = ClusterDiagnosticsJson(report.diagnostics);
  return json;
}

ClusterJson StatusReportJson(const cluster::StatusReport& report) {
  return ClusterJson{{"ok", report.ok},
                     {"config_dir", report.config_dir},
                     {"state_observations", StateObservationsJson(report.state_observations)},
                     {"resource_digests", DigestsJson(report.resource_digests)},
                     {"resource_statuses", ClusterJson::parse(cluster::ResourceStatusesJson(report.resource_statuses))},
                     {"observations", ClusterJson::parse(cluster::ObservationsJson(report.observations))},
                     {"diagnostics", ClusterDiagnosticsJson(report.diagnostics)}};
}

ClusterJson ForceUnlockReportJson(const cluster::ForceUnlockReport& report) {
  return ClusterJson{{"ok", report.ok},
                     {"config_dir", report.config_dir},
                     {"state_observations", StateObservationsJson(report.state_observations)},
                     {"lock_removed", report.lock_removed},
                     {"diagnostics", ClusterDiagnosticsJson(report.diagnostics)}};
}

void PrintObserveReport(const cluster::ObserveReport& report, std::ostream& out) {
  const StateObservations& o = report.state_observations;
  if (report.ok) {
    out << fmt::format("cluster {}: revision {}, {} resource(s)\n", report.operation, o.state_revision,
                       o.resource_count);
    if (o.state_cas) out << "  state_cas: " << *o.state_cas << "\n";
    // §8 Q3: upstream reports the lock as released by the time it prints.
    out << "  lock: not acquired\n";
  } else {
    out << fmt::format("cluster {} failed\n", report.operation);
  }
  PrintDiagnostics(report.diagnostics, out);
}

void PrintPlanReport(const cluster::PlanReport& report, std::ostream& out) {
  if (!report.ok) {
    out << "cluster plan failed\n";
    PrintDiagnostics(report.diagnostics, out);
    return;
  }
  out << fmt::format("cluster plan: {} change(s), {} approval gate(s)\n", report.plan.changes.size(),
                     report.plan.gates.size());
  for (const cluster::PlanChange& change : report.plan.changes) {
    out << "  " << cluster::OperationTitle(change.operation) << " " << change.resource
        << (change.binding_change ? " [bindings]" : "") << "\n";
    if (!change.migration) continue;
    if (!change.migration->supported) out << "      migration UNSUPPORTED:\n";
    for (const std::string& step : change.migration->steps) out << "      " << step << "\n";
  }
  if (report.plan.changes.empty()) out << "  no changes\n";
  PrintDiagnostics(report.diagnostics, out);
}

void PrintApplyReport(const cluster::ApplyReport& report, std::ostream& out) {
  if (report.ok) {
    out << fmt::format("cluster apply: {} applied, {} deferred/blocked\n", report.applied_count,
                       report.deferred_count);
  } else {
    out << "cluster apply failed\n";
  }
  for (const cluster::PlanChange& change : report.changes) {
    out << "  " << cluster::OperationTitle(change.operation) << " " << change.resource
        << (change.binding_change ? " [bindings]" : "");
    if (change.disposition) {
      out << " [" << cluster::DispositionTitle(*change.disposition);
      if (change.reason) out << ": " << *change.reason;
      out << "]";
    }
    out << "\n";
  }
  if (report.ok) {
    out << fmt::format("  state: revision {}, converged: {}, written: {}\n", report.state_observations.state_revision,
                       report.converged, report.state_written);
    out << "  note: cluster-booted servers (--cluster) serve this on their next restart; omnigraph.yaml deployments "
           "are unaffected\n";
  }
  PrintDiagnostics(report.diagnostics, out);
}

void PrintApproveReport(const cluster::ApproveReport& report, std::ostream& out) {
  if (report.ok && report.approval_id) {
    out << fmt::format("cluster approve: {} {} approved by {} (approval {})\n", report.operation.value_or(""),
                       report.resource.value_or(""), report.approved_by.value_or(""), *report.approval_id);
  } else {
    out << "cluster approve failed\n";
  }
  PrintDiagnostics(report.diagnostics, out);
}

void PrintStatusReport(const cluster::StatusReport& report, std::ostream& out) {
  const StateObservations& o = report.state_observations;
  if (!report.ok) {
    out << "cluster status failed\n";
  } else if (!o.state_found) {
    out << "cluster state missing\n";
  } else {
    out << fmt::format("cluster state: revision {}, {} resource(s)\n", o.state_revision, o.resource_count);
    out << "  applied config: " << o.applied_config_digest.value_or("none") << "\n";
  }
  if (report.ok) {
    if (o.locked) out << "  lock: held (" << LockDetail(o) << ")\n";
    else out << "  lock: not held\n";
  }
  PrintDiagnostics(report.diagnostics, out);
}

void PrintForceUnlockReport(const cluster::ForceUnlockReport& report, std::ostream& out) {
  const StateObservations& o = report.state_observations;
  if (report.ok) {
    out << "cluster force-unlock: removed lock (id=" << o.lock_id.value_or("") << ")\n";
  } else {
    out << "cluster force-unlock failed\n";
    if (o.locked) out << "  lock: held (" << LockDetail(o) << ")\n";
  }
  PrintDiagnostics(report.diagnostics, out);
}

}  // namespace omnigraph::cli
