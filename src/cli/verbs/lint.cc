// `lint [URI] --query FILE [--schema FILE]` (surface §5.2, §6.4): checks
// queries offline against a schema file, else against a graph's accepted
// schema. Exit 1 when the report's status is error.
#include <iostream>
#include <memory>
#include <string>

#include "cli/input.h"
#include "cli/verbs/verbs.h"
#include "compiler/catalog.h"
#include "compiler/lint.h"

namespace omnigraph::cli {
namespace {

struct LintOptions {
  std::string uri;     // positional graph URI (when no --schema)
  std::string query;   // --query: the .gq file
  std::string schema;  // --schema: the .pg file
};

int RunLint(Context& context, const LintOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "lint", {.cluster = true}); !st.ok()) return context.Fail(st);
  if (flags.cluster_given && !options.schema.empty()) {
    return context.Fail(UsageError("pass the schema either with --schema or as a graph of --cluster, not both"));
  }
  auto queries = ReadFile(options.query);
  if (!queries.ok()) return context.Fail(queries.status());
  std::string schema_source, schema_file = options.schema.empty() ? "schema.pg" : options.schema;
  compiler::LintSchemaSource origin;
  if (!options.schema.empty()) {
    auto source = ReadFile(options.schema);
    if (!source.ok()) return context.Fail(source.status());
    schema_source = *source;
    origin = compiler::LintSchemaSource{compiler::LintSchemaSource::Kind::kFile, options.schema};
  } else {
    auto target = ResolveMaintenanceTarget(options.uri, flags);
    if (!target.ok()) return context.Fail(target.status());
    auto graph = api::Omnigraph::Open(target->path);
    if (!graph.ok()) return context.Fail(graph.status());
    auto source = (*graph)->SchemaSource();
    if (!source.ok()) return context.Fail(source.status());
    schema_source = *source;
    origin = compiler::LintSchemaSource{compiler::LintSchemaSource::Kind::kGraph, target->path};
  }
  auto catalog = compiler::CompileSchema(schema_source, schema_file);
  if (!catalog.ok()) return context.Fail(catalog.status());
  compiler::LintReport report = compiler::LintQueries(*catalog, *queries, options.query, origin);
  std::cout << (flags.json ? report.ToJson() + "\n" : report.ToHuman());
  return report.exit_code();
}

}  // namespace

void RegisterLint(CLI::App& app, Context& context) {
  auto options = std::make_shared<LintOptions>();
  CLI::App* lint = app.add_subcommand("lint", "check queries against a schema");
  lint->add_option("uri", options->uri, "graph directory (when no --schema)");
  lint->add_option("--query", options->query, "query file (.gq)")->required();
  lint->add_option("--schema", options->schema, "schema file (.pg)");
  lint->callback([&context, options] { context.exit_code = RunLint(context, *options); });
}

}  // namespace omnigraph::cli
