// `snapshot [URI] [--branch B]` (surface §5.2): the datasets a branch reads
// and the versions it pins.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"
#include "cli/wire_view.h"

namespace omnigraph::cli {
namespace {

struct SnapshotOptions {
  std::string uri;              // positional graph URI
  std::string branch = "main";  // --branch
};

// Prints a snapshot from its wire form (SnapshotOutput), local or served
// alike.
void PrintSnapshot(const nlohmann::ordered_json& info, bool json) {
  if (json) {
    std::cout << info.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("graph_branch: {}\ngraph_manifest_version: {}\ninternal_schema_version: {}\n",
                           Text(info, "graph_branch"), Member(info, "graph_manifest_version").dump(),
                           Member(info, "internal_schema_version").dump());
  for (const auto& dataset : Member(info, "datasets")) {
    std::cout << fmt::format("{} type '{}' published_dataset_version={} native_dataset_branch=main entities={}\n",
                             Text(dataset, "entity_kind"), Text(dataset, "type_name"),
                             Member(dataset, "published_dataset_version").dump(),
                             Member(dataset, "entity_count").dump());
  }
}

int RunSnapshot(Context& context, const SnapshotOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "snapshot", {.served = true}); !st.ok()) return context.Fail(st);
  if (AddressesServer(options.uri, context.flags)) {
    auto graph = remote::RemoteGraph::Open(context.flags, options.uri);
    if (!graph.ok()) return context.Fail(graph.status());
    auto info = graph->Snapshot(options.branch);
    if (!info.ok()) return context.Fail(info.status());
    PrintSnapshot(*info, context.flags.json);
    return kExitOk;
  }
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto info = (*graph)->Snapshot(options.branch);
  if (!info.ok()) return context.Fail(info.status());
  PrintSnapshot(api::wire::SnapshotJson(*info), context.flags.json);
  return kExitOk;
}

}  // namespace

void RegisterSnapshot(CLI::App& app, Context& context) {
  auto options = std::make_shared<SnapshotOptions>();
  CLI::App* snapshot = app.add_subcommand("snapshot", "show the datasets a branch reads");
  snapshot->add_option("uri", options->uri, "graph directory");
  snapshot->add_option("--branch", options->branch, "branch (default main)");
  snapshot->callback([&context, options] { context.exit_code = RunSnapshot(context, *options); });
}

}  // namespace omnigraph::cli
