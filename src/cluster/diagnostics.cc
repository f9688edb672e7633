#include "cluster/diagnostics.h"

#include <algorithm>
#include <utility>

namespace omnigraph::cluster {

Diagnostic ErrorDiagnostic(std::string code, std::string path, std::string message) {
  return Diagnostic{Severity::kError, std::move(code), std::move(path), std::move(message)};
}

Diagnostic WarningDiagnostic(std::string code, std::string path, std::string message) {
  return Diagnostic{Severity::kWarning, std::move(code), std::move(path), std::move(message)};
}

bool HasErrors(const Diagnostics& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& diagnostic) { return diagnostic.severity == Severity::kError; });
}

std::string_view SeverityName(Severity severity) { return severity == Severity::kError ? "error" : "warning"; }

std::string FormatDiagnostic(const Diagnostic& diagnostic) {
  // The warning label is padded so codes line up under errors.
  std::string line = diagnostic.severity == Severity::kError ? "ERROR " : "WARN  ";
  line += diagnostic.code;
  line += ' ';
  line += diagnostic.path;
  line += ": ";
  line += diagnostic.message;
  return line;
}

}  // namespace omnigraph::cluster
