// `init --schema FILE URI [--force]` (surface §5.2): creates a graph.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/input.h"
#include "cli/cluster_guard.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct InitOptions {
  std::string schema;  // --schema
  std::string uri;     // positional graph URI
  bool force = false;  // --force: replace orphan schema files
};

int RunInit(Context& context, const InitOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "init", {}); !st.ok()) return context.Fail(st);
  auto uri = ResolveUri(options.uri, flags);
  if (!uri.ok()) return context.Fail(uri.status());
  if (Status st = RefuseClusterManagedGraph(*uri, "init"); !st.ok()) return context.Fail(st);
  auto source = ReadFile(options.schema);
  if (!source.ok()) return context.Fail(source.status());
  auto graph = api::Omnigraph::Init(*uri, *source, options.schema, options.force);
  if (!graph.ok()) return context.Fail(graph.status());
  // The URI as the user gave it (§5.2), file:// included.
  const std::string& given = GivenUri(options.uri, flags);
  context.published = fmt::format("graph '{}'", given);
  if (flags.json) {
    std::cout << api::wire::InitJson(given).dump(2) << "\n";
  } else {
    std::cout << "initialized " << given << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterInit(CLI::App& app, Context& context) {
  auto options = std::make_shared<InitOptions>();
  CLI::App* init = app.add_subcommand("init", "create a graph from a .pg schema");
  init->add_option("--schema", options->schema, "schema file (.pg)")->required();
  init->add_option("uri", options->uri, "graph directory");
  init->add_flag("--force", options->force, "replace orphan schema files");
  init->callback([&context, options] { context.exit_code = RunInit(context, *options); });
}

}  // namespace omnigraph::cli
