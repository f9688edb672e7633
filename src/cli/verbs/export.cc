// `export [URI] [--branch B] [--type T]…` (surface §4.5, §5.2): the NDJSON
// of a branch on stdout, in the form `load` reads back.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct ExportOptions {
  std::string uri;                 // positional graph URI
  std::string branch = "main";     // --branch
  std::vector<std::string> types;  // --type, repeatable; empty: every type
  bool jsonl = false;              // --jsonl: accepted for compatibility
};

int RunExport(Context& context, const ExportOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "export", {.json = false, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  if (AddressesServer(options.uri, context.flags)) {
    // POST /export sends the same NDJSON the local export prints.
    auto graph = remote::RemoteGraph::Open(context.flags, options.uri);
    if (!graph.ok()) return context.Fail(graph.status());
    auto out = graph->Export(options.branch, options.types);
    if (!out.ok()) return context.Fail(out.status());
    std::cout << *out;
    return kExitOk;
  }
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto out = (*graph)->Export(options.branch, options.types);
  if (!out.ok()) return context.Fail(out.status());
  std::cout << *out;
  return kExitOk;
}

}  // namespace

void RegisterExport(CLI::App& app, Context& context) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* exp = app.add_subcommand("export", "NDJSON export of a branch");
  exp->add_option("uri", options->uri, "graph directory");
  exp->add_option("--branch", options->branch, "branch (default main)");
  // One type per --type (repeatable), so a graph URI after it stays the URI.
  exp->add_option("--type", options->types, "only this node/edge type (repeatable)")->allow_extra_args(false);
  exp->add_flag("--jsonl", options->jsonl, "accepted for compatibility (no effect)");
  exp->callback([&context, options] { context.exit_code = RunExport(context, *options); });
}

}  // namespace omnigraph::cli
