// Offline query lint (spec/surface.md §6.4, CLI `omnigraph lint`).
//
// Every query of a `.gq` file is type checked against a schema; each gets a
// result (ok with an `operation` descriptor, or error with the type error
// message). Findings: Q000 (error) when the file does not parse — then there
// are no per-query results; L201 (warning) for a nullable, non-key,
// non-@embed property of a node type that some update query targets but no
// update query assigns. Mutations that declare no parameters get the warning
// "mutation declares no params; hardcoded mutations are easy to miss".
// Mutations mixing insert/update with delete are reported as errors (they
// can never run, §3.2 D2).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "compiler/query_ir.h"

namespace omnigraph::compiler {

struct LintSchemaSource {
  enum class Kind { kFile, kGraph };
  Kind kind = Kind::kFile;
  std::string location;  // the .pg path (kFile) or the graph URI (kGraph)
};

// One result column of a read query: kind ∈ string, bool, int (I32/U32),
// bigint (I64/U64), float, date, datetime, blob, vector (vector_dim), list
// (item_kind), object (a bare node variable).
struct LintResultField {
  std::string name;
  std::string kind;
  std::optional<std::string> item_kind;
  std::optional<int32_t> vector_dim;
  bool nullable = false;
};

struct LintOperation {
  std::vector<LintResultField> result;  // empty for mutations
  std::vector<ir::TypeRef> reads;
  std::vector<ir::TypeRef> writes;
};

struct LintQueryResult {
  std::string name;
  bool is_mutation = false;
  bool ok = true;
  std::vector<std::string> warnings;
  std::optional<std::string> error;
  // "file:line:column" of the error, when the checker knows it (printed on
  // the line after the error, and as "location" in JSON).
  std::optional<std::string> error_location;
  std::optional<LintOperation> operation;  // when ok
};

struct LintFinding {
  enum class Severity { kError, kWarning, kInfo };
  Severity severity = Severity::kError;
  std::string code;
  std::string message;
  std::optional<std::string> type_name;
  std::optional<std::string> property;
  std::vector<std::string> query_names;
};

struct LintReport {
  bool ok = true;  // status "ok" | "error"
  LintSchemaSource schema_source;
  std::string query_path;
  size_t queries_processed = 0;
  size_t errors = 0;
  size_t warnings = 0;
  size_t infos = 0;
  std::vector<LintQueryResult> results;
  // Sorted by severity (error, warning, info), type, property, message.
  std::vector<LintFinding> findings;

  // The JSON of §6.4: {"status", "schema_source", "query_path",
  // "queries_processed", "errors", "warnings", "infos", "results",
  // "findings"}; optional members omitted when absent. `pretty` indents by
  // two spaces (CLI --json), else compact.
  std::string ToJson(bool pretty = true) const;
  // Human lines (§5.2): `OK    query `q` (read)`, `ERROR query `q`: msg`,
  // `WARN  query `q`: warning`, findings `<SEV> <message>`, then
  // `INFO  Lint complete: N queries processed (E error(s), W warning(s), I info item(s))`.
  std::string ToHuman() const;
  // CLI exit code: 1 when status is error, else 0.
  int exit_code() const { return ok ? 0 : 1; }
};

// The operation descriptor of a checked query (result columns, reads, writes).
LintOperation DescribeOperation(const ir::QueryIR& query);

// Lints the `.gq` text `query_source` (named `query_path`) against `catalog`.
LintReport LintQueries(const Catalog& catalog, std::string_view query_source, std::string_view query_path,
                       LintSchemaSource schema_source);

}  // namespace omnigraph::compiler
