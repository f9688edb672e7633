// `graphs list [--json]` (surface §5.2, capability `served`): the graphs a
// server serves, `<graph_id>\t<uri>` per line; JSON {graphs:[{graph_id,
// uri}]}.
#include <iostream>
#include <string>

#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

int RunGraphsList(Context& context) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "graphs list", {.store = false, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  if (flags.server.empty() && flags.default_server.empty()) {
    return context.Fail(UsageError("`graphs list` asks a server: pass --server <name|url> (or set defaults.server in "
                                   "the operator config)"));
  }
  auto graphs = remote::ListGraphs(flags);
  if (!graphs.ok()) return context.Fail(graphs.status());
  if (flags.json) {
    std::cout << graphs->dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& graph : (*graphs)["graphs"]) {
    std::cout << compiler::EscapeForDisplay(graph.value("graph_id", "")) << "\t"
              << compiler::EscapeForDisplay(graph.value("uri", "")) << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterGraphs(CLI::App& app, Context& context) {
  CLI::App* graphs = app.add_subcommand("graphs", "the graphs a server serves");
  CLI::App* list = graphs->add_subcommand("list", "every served graph and its storage URI");
  list->callback([&context] { context.exit_code = RunGraphsList(context); });
  graphs->require_subcommand(1);
}

}  // namespace omnigraph::cli
