// The options `query` and `mutate` share (surface §5.2): which query to
// run, from which source, with which parameters, on which branch.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "exec/result_format.h"
#include "util/status.h"

namespace omnigraph::cli {

struct QuerySourceOptions {
  std::string name;               // positional NAME
  std::string name_flag;          // --name, the same as NAME
  std::string file;               // --query FILE ("-" is stdin)
  std::string inline_source;      // -e/--query-string SOURCE
  std::string params;             // --params JSON
  std::string params_file;        // --params-file FILE
  std::string branch = "main";    // --branch
  // Whether a source was given is told by the option, not by its value:
  // `-e ''` is an (empty) source, not a missing one.
  CLI::Option* file_option = nullptr;
  CLI::Option* inline_option = nullptr;
  CLI::Option* branch_option = nullptr;
};

// Adds the shared options to `command`, bound to `*options`, which must
// outlive parsing.
void AddQuerySourceOptions(CLI::App* command, QuerySourceOptions* options);

// A commit id option's check: an empty id (an unset shell variable) must
// not silently mean "none"; for --if-commit that would turn a conditional
// write into an unconditional one.
CLI::Validator NonEmptyCommitId();

// Whether the command line gives a query source (--query or -e); without
// one, a served `query`/`mutate` invokes the stored query NAME (§5.2).
bool HasQuerySource(const QuerySourceOptions& options);

// The query name of NAME/--name. Errors: UsageError when both are given
// and differ.
Result<std::string> QueryName(const QuerySourceOptions& options);

// A query stored on a server, named by NAME when no source is given, and
// its params (--params / --params-file). Errors: UsageError when no NAME
// is given either; those of QueryName and ReadParams.
struct StoredQueryCall {
  std::string name;
  std::string params_json;
};
Result<StoredQueryCall> ResolveStoredQueryCall(const QuerySourceOptions& options);

// The query a command line asks for.
struct QueryRequest {
  std::string name;         // "" when the source must hold a single query
  std::string source;       // the .gq text
  std::string source_file;  // names the source in errors ("<inline>" for -e)
};

// Resolves NAME/--name and reads the source. Errors: UsageError when the
// name is given twice differently, when not exactly one of --query and -e
// is given, or when both --query and --params-file read standard input;
// as ReadFile.
Result<QueryRequest> ResolveQueryRequest(const QuerySourceOptions& options);

// The format of a read's output (§5.3): --json, else `format_flag`
// (--format), else `alias_format` (an operator alias's), else the operator
// config's defaults.output, else table. Errors: UsageError "--format must
// be table, kv, csv, jsonl or json".
Result<exec::OutputFormat> ReadFormat(const GlobalFlags& flags, const std::string& format_flag,
                                      std::optional<exec::OutputFormat> alias_format = std::nullopt);

// Prints a served read's ReadOutput `body` on stdout through the same
// layouts as a local result (§5.3). Errors: as remote::ServedRead::Parse.
Status PrintServedRead(const GlobalFlags& flags, std::string body, exec::OutputFormat format);

}  // namespace omnigraph::cli
