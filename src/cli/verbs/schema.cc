// `schema show [URI]` (alias `get`; surface §5.2): the accepted `.pg`
// source. schema plan / apply will join it here.
#include <iostream>
#include <memory>
#include <string>

#include "api/wire/report_json.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct SchemaShowOptions {
  std::string uri;  // positional graph URI
};

int RunSchemaShow(Context& context, const SchemaShowOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "schema show", {}); !st.ok()) return context.Fail(st);
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto source = (*graph)->SchemaSource();
  if (!source.ok()) return context.Fail(source.status());
  if (context.flags.json) {
    std::cout << api::wire::SchemaSourceJson(*source).dump(2) << "\n";
  } else {
    std::cout << *source;
    if (!source->empty() && source->back() != '\n') std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterSchema(CLI::App& app, Context& context) {
  CLI::App* schema = app.add_subcommand("schema", "schema commands");
  auto show_options = std::make_shared<SchemaShowOptions>();
  CLI::App* show = schema->add_subcommand("show", "print the accepted schema");
  show->alias("get");
  show->add_option("uri", show_options->uri, "graph directory");
  show->callback([&context, show_options] { context.exit_code = RunSchemaShow(context, *show_options); });
  schema->require_subcommand(1);
}

}  // namespace omnigraph::cli
