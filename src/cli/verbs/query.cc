// `query [NAME] (--query FILE | -e GQ) [--params … | --params-file F]
// [--branch B | --snapshot ID] [--format F | --json]` (surface §5.2, §5.3):
// runs a read query and prints its rows.
#include <malloc.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/input.h"
#include "compiler/query_parser.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/query_source.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct QueryOptions {
  QuerySourceOptions source;
  std::string snapshot;  // --snapshot: a graph commit id
  std::string format;    // --format
};

// A query process is short-lived and decodes whole columns into large
// buffers that it frees and allocates again. glibc serves blocks above
// 128 KiB with their own mmap and unmaps them on free, so every such buffer
// pays a page fault per 4 KiB on each use (a third of a cold 100k-row query
// on a VM). Serving them from the heap and never trimming it lets freed
// pages be reused; the process exits before the retained memory matters.
void KeepFreedMemoryForReuse() {
  constexpr int kOneGiB = 1 << 30;
  ::mallopt(M_MMAP_THRESHOLD, kOneGiB);
  ::mallopt(M_TRIM_THRESHOLD, kOneGiB);
  ::mallopt(M_TOP_PAD, 64 << 20);
}

// The read on a server (§5.1): POST /query.
int RunServedQuery(Context& context, const QueryOptions& options, const QueryRequest& request,
                   const std::string& params, exec::OutputFormat format) {
  auto graph = remote::RemoteGraph::Open(context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  // A mutation is refused with the local message, before anything is sent
  // (a source that does not parse is left to the server to report).
  if (auto parsed = compiler::ParseQueries(request.source, request.source_file); parsed.ok()) {
    for (const auto& declaration : parsed->queries) {
      bool selected = request.name.empty() ? parsed->queries.size() == 1 : declaration.name == request.name;
      if (selected && declaration.is_mutation) {
        return context.Fail(
            InvalidArgument(fmt::format("query '{}' is a mutation; run it with `mutate`", declaration.name)));
      }
    }
  }
  std::optional<std::string> snapshot;
  if (!options.snapshot.empty()) snapshot = options.snapshot;
  auto body = graph->Query(request.source, request.name, params, options.source.branch, snapshot);
  if (!body.ok()) return context.Fail(remote::WithSourceName(body.status(), request.source_file));
  if (Status st = PrintServedRead(context.flags, std::move(*body), format); !st.ok()) return context.Fail(st);
  return kExitOk;
}

// `query NAME` without a source on a server: the stored query NAME
// (POST /queries/{name}), which must be a read.
int RunStoredQuery(Context& context, const QueryOptions& options, exec::OutputFormat format) {
  auto call = ResolveStoredQueryCall(options.source);
  if (!call.ok()) return context.Fail(call.status());
  auto graph = remote::RemoteGraph::Open(context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  std::optional<std::string> snapshot;
  if (!options.snapshot.empty()) snapshot = options.snapshot;
  auto body = graph->InvokeStored(call->name, call->params_json, snapshot ? "" : options.source.branch, snapshot,
                                  /*expect_mutation=*/false, std::nullopt);
  if (!body.ok()) return context.Fail(body.status());
  if (Status st = PrintServedRead(context.flags, std::move(*body), format); !st.ok()) return context.Fail(st);
  return kExitOk;
}

int RunQuery(Context& context, const QueryOptions& options) {
  KeepFreedMemoryForReuse();
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "query", {.served = true}); !st.ok()) return context.Fail(st);
  // Format precedence (§5.3): --json, --format, defaults.output, table.
  auto read_format = ReadFormat(flags, options.format);
  if (!read_format.ok()) return context.Fail(read_format.status());
  const exec::OutputFormat format = *read_format;
  if (AddressesServer("", flags) && !HasQuerySource(options.source)) return RunStoredQuery(context, options, format);
  auto request = ResolveQueryRequest(options.source);
  if (!request.ok()) return context.Fail(request.status());
  auto params = ReadParams(options.source.params, options.source.params_file);
  if (AddressesServer("", flags)) {
    if (!params.ok()) return context.Fail(params.status());
    return RunServedQuery(context, options, *request, *params, format);
  }
  auto uri = ResolveUri("", flags);
  if (!uri.ok()) return context.Fail(uri.status());
  if (!params.ok()) return context.Fail(params.status());
  auto graph = api::Omnigraph::Open(*uri);
  if (!graph.ok()) return context.Fail(graph.status());
  api::ReadTarget target;
  target.branch = options.source.branch;
  if (!options.snapshot.empty()) target.snapshot = options.snapshot;
  auto result = (*graph)->Query(request->source, request->source_file, request->name, *params, target);
  if (!result.ok()) return context.Fail(result.status());
  std::cout << exec::FormatResult(*result, format, flags.table);
  return kExitOk;
}

}  // namespace

void RegisterQuery(CLI::App& app, Context& context) {
  auto options = std::make_shared<QueryOptions>();
  CLI::App* query = app.add_subcommand("query", "run a read query");
  AddQuerySourceOptions(query, &options->source);
  // A snapshot names its own branch: giving both is a usage error (exit 2),
  // even when --branch is main.
  query->add_option("--snapshot", options->snapshot, "read the graph as of a commit id")
      ->excludes(options->source.branch_option)
      ->check(NonEmptyCommitId());
  query->add_option("--format", options->format, "table | kv | csv | jsonl | json");
  query->callback([&context, options] { context.exit_code = RunQuery(context, *options); });
}

}  // namespace omnigraph::cli
