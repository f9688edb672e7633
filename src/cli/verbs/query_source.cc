#include "cli/verbs/query_source.h"

#include <iostream>

#include "cli/context.h"
#include "cli/input.h"
#include "cli/remote/read_output.h"

namespace omnigraph::cli {

void AddQuerySourceOptions(CLI::App* command, QuerySourceOptions* options) {
  command->add_option("name", options->name, "query name (required when the source holds several)");
  // The spelling the compiler's "pass --name" error names.
  command->add_option("--name", options->name_flag, "query name (same as the positional NAME)");
  options->file_option = command->add_option("--query", options->file, "query file (.gq)");
  options->inline_option = command->add_option("-e,--query-string", options->inline_source, "query source text");
  command->add_option("--params", options->params, "parameters as a JSON object");
  command->add_option("--params-file", options->params_file, "file holding the parameters JSON object");
  options->branch_option = command->add_option("--branch", options->branch, "branch (default main)");
}

CLI::Validator NonEmptyCommitId() {
  return CLI::Validator([](std::string& value) { return value.empty() ? "a commit id must not be empty" : ""; },
                        "COMMIT");
}

bool HasQuerySource(const QuerySourceOptions& options) {
  return options.file_option->count() > 0 || options.inline_option->count() > 0;
}

Result<std::string> QueryName(const QuerySourceOptions& options) {
  if (options.name_flag.empty()) return options.name;
  if (!options.name.empty() && options.name != options.name_flag) {
    return UsageError("pass the query name once: NAME or --name");
  }
  return options.name_flag;
}

Result<QueryRequest> ResolveQueryRequest(const QuerySourceOptions& options) {
  QueryRequest request;
  OG_ASSIGN_OR_RETURN(request.name, QueryName(options));
  const bool inline_source = options.inline_option->count() > 0;
  if ((options.file_option->count() > 0) == inline_source) {
    return UsageError("pass exactly one of --query FILE or -e/--query-string SOURCE");
  }
  if (inline_source) {
    request.source = options.inline_source;
    request.source_file = "<inline>";
    return request;
  }
  if (options.file == "-" && options.params_file == "-") {
    return UsageError("standard input can feed only one of --query and --params-file");
  }
  OG_ASSIGN_OR_RETURN(request.source, ReadFile(options.file));
  request.source_file = options.file;
  return request;
}

Result<StoredQueryCall> ResolveStoredQueryCall(const QuerySourceOptions& options) {
  StoredQueryCall call;
  OG_ASSIGN_OR_RETURN(call.name, QueryName(options));
  if (call.name.empty()) {
    return UsageError("pass --query FILE or -e SOURCE, or the NAME of a query stored on the server");
  }
  OG_ASSIGN_OR_RETURN(call.params_json, ReadParams(options.params, options.params_file));
  return call;
}

Result<exec::OutputFormat> ReadFormat(const GlobalFlags& flags, const std::string& format_flag,
                                      std::optional<exec::OutputFormat> alias_format) {
  if (flags.json) return exec::OutputFormat::kJson;
  if (!format_flag.empty()) {
    auto parsed = exec::ParseOutputFormat(format_flag);
    if (!parsed) return UsageError("--format must be table, kv, csv, jsonl or json");
    return *parsed;
  }
  if (alias_format) return *alias_format;
  return flags.default_output.value_or(exec::OutputFormat::kTable);
}

Status PrintServedRead(const GlobalFlags& flags, std::string body, exec::OutputFormat format) {
  OG_ASSIGN_OR_RETURN(remote::ServedRead read, remote::ServedRead::Parse(std::move(body)));
  std::cout << exec::FormatGrid(read.Grid(), format, flags.table);
  return Status::OK();
}

}  // namespace omnigraph::cli
