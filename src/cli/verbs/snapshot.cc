// `snapshot [URI] [--branch B]` (surface §5.2): the datasets a branch reads
// and the versions it pins.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct SnapshotOptions {
  std::string uri;              // positional graph URI
  std::string branch = "main";  // --branch
};

int RunSnapshot(Context& context, const SnapshotOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "snapshot", {}); !st.ok()) return context.Fail(st);
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto info = (*graph)->Snapshot(options.branch);
  if (!info.ok()) return context.Fail(info.status());
  if (context.flags.json) {
    std::cout << api::wire::SnapshotJson(*info).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("graph_branch: {}\ngraph_manifest_version: {}\ninternal_schema_version: {}\n",
                           info->graph_branch, info->graph_manifest_version, info->internal_schema_version);
  for (const api::DatasetInfo& dataset : info->datasets) {
    std::cout << fmt::format("{} type '{}' published_dataset_version={} native_dataset_branch=main entities={}\n",
                             dataset.entity_kind, dataset.type_name, dataset.published_dataset_version,
                             dataset.entity_count);
  }
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
