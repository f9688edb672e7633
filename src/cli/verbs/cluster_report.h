// The outputs of the storage-touching `cluster` verbs (spec/cluster.md
// §4.0, §4.2–§4.7): each report as its --json object (keys in the spec's
// order, unset optionals omitted) and as its human text, diagnostics last.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "cluster/apply.h"
#include "cluster/approve.h"
#include "cluster/diagnostics.h"
#include "cluster/import.h"
#include "cluster/plan_command.h"
#include "cluster/status.h"

namespace omnigraph::cli {

using ClusterJson = nlohmann::ordered_json;

// §4.0 `[{code, severity, path, message}]`.
ClusterJson ClusterDiagnosticsJson(const cluster::Diagnostics& diagnostics);

ClusterJson ObserveReportJson(const cluster::ObserveReport& report);
ClusterJson PlanReportJson(const cluster::PlanReport& report);
ClusterJson ApplyReportJson(const cluster::ApplyReport& report);
ClusterJson ApproveReportJson(const cluster::ApproveReport& report);
ClusterJson StatusReportJson(const cluster::StatusReport& report);
ClusterJson ForceUnlockReportJson(const cluster::ForceUnlockReport& report);

void PrintObserveReport(const cluster::ObserveReport& report, std::ostream& out);
void PrintPlanReport(const cluster::PlanReport& report, std::ostream& out);
void PrintApplyReport(const cluster::ApplyReport& report, std::ostream& out);
void PrintApproveReport(const cluster::ApproveReport& report, std::ostream& out);
void PrintStatusReport(const cluster::StatusReport& report, std::ostream& out);
void PrintForceUnlockReport(const cluster::ForceUnlockReport& report, std::ostream& out);

}  // namespace omnigraph::cli
