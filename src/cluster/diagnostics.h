// Diagnostics of the cluster control plane (spec/cluster.md §4.0): every
// problem a cluster command finds is a value — severity, code, dotted config
// path and message — collected in order, never thrown. Upstream tests match
// codes exactly and messages by substring, so both are kept byte-identical
// to the spec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::cluster {

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string code;     // e.g. "duplicate_yaml_key"
  std::string path;     // dotted config path, e.g. "graphs.knowledge.schema"
  std::string message;  // human text

  bool operator==(const Diagnostic& other) const = default;
};

using Diagnostics = std::vector<Diagnostic>;

// An error-severity diagnostic.
Diagnostic ErrorDiagnostic(std::string code, std::string path, std::string message);
// A warning-severity diagnostic.
Diagnostic WarningDiagnostic(std::string code, std::string path, std::string message);

// True when some diagnostic in `diagnostics` has error severity: a command's
// `ok` is the negation (§1.1 step 5).
bool HasErrors(const Diagnostics& diagnostics);

// "error" or "warning", as the JSON output spells the severity (§4.0).
std::string_view SeverityName(Severity severity);

// The human form printed after a command's summary (§4.0):
// "ERROR <code> <path>: <message>" or "WARN  <code> <path>: <message>".
std::string FormatDiagnostic(const Diagnostic& diagnostic);

}  // namespace omnigraph::cluster
