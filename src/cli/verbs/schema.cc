// `schema show [URI]` (alias `get`), `schema plan` and `schema apply`
// (surface §1.9, §5.2). `show` and `apply` also address a server.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/input.h"
#include "cli/cluster_guard.h"
#include "cli/remote/remote_graph.h"
#include "cli/remote/schema_reader.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct SchemaShowOptions {
  std::string uri;  // positional graph URI
};

// The accepted schema of the graph a command addresses: its store's, or
// the server's GET /schema (§5.1).
Result<std::string> AcceptedSchema(const Context& context, const std::string& uri) {
  if (AddressesServer(uri, context.flags)) {
    OG_ASSIGN_OR_RETURN(remote::RemoteGraph graph, remote::RemoteGraph::Open(context.flags, uri));
    OG_ASSIGN_OR_RETURN(nlohmann::ordered_json reply, graph.Schema());
    if (!reply.contains("schema_source") || !reply["schema_source"].is_string()) {
      return Internal("the server's schema reply has no schema_source");
    }
    return reply["schema_source"].get<std::string>();
  }
  OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> graph, OpenGraph(uri, context.flags));
  return graph->SchemaSource();
}

int RunSchemaShow(Context& context, const SchemaShowOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "schema show", {.served = true}); !st.ok()) return context.Fail(st);
  auto source = AcceptedSchema(context, options.uri);
  if (!source.ok()) return context.Fail(source.status());
  if (context.flags.json) {
    std::cout << api::wire::SchemaSourceJson(*source).dump(2) << "\n";
  } else {
    std::cout << *source;
    if (!source->empty() && source->back() != '\n') std::cout << "\n";
  }
  return kExitOk;
}

struct SchemaChangeOptions {
  std::string uri;              // positional graph URI
  std::string schema;           // --schema: the desired .pg
  bool allow_data_loss = false;  // --allow-data-loss
};

// Prints the human form of a schema plan or apply, local or served alike.
void PrintSchemaChange(std::string_view verb, std::string_view uri, const exec::SchemaChangeResult& result,
                       bool apply) {
  std::cout << fmt::format("{} for {}\n", verb, uri);
  std::cout << "supported: " << (result.plan.supported ? "yes" : "no") << "\n";
  if (apply) {
    std::cout << "applied: " << (result.applied ? "yes" : "no") << "\n";
    std::cout << "graph_manifest_version: " << result.manifest_version << "\n";
  }
  if (result.plan.steps.empty()) std::cout << "no schema changes\n";
  for (const compiler::SchemaStep& step : result.plan.steps) std::cout << "- " << step.Describe() << "\n";
}

// `schema apply` on a server (§5.1): POST /schema/apply, printed as a
// local apply prints (the reply's uri is the graph's storage URI).
int RunServedSchemaApply(Context& context, const SchemaChangeOptions& options) {
  auto graph = remote::RemoteGraph::Open(context.flags, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  auto source = ReadFile(options.schema);
  if (!source.ok()) return context.Fail(source.status());
  EchoWriteTarget(context.flags, "schema apply", graph->url(), /*served=*/true);
  auto reply = graph->SchemaApply(*source, options.allow_data_loss);
  if (!reply.ok()) return context.Fail(reply.status());
  auto result = remote::ParseSchemaApplyOutput(*reply);
  if (!result.ok()) return context.Fail(result.status());
  if (context.flags.json) {
    std::cout << reply->dump(2) << "\n";
    return kExitOk;
  }
  const auto uri = reply->find("uri");
  PrintSchemaChange("schema apply", uri != reply->end() && uri->is_string() ? uri->get<std::string>() : graph->url(),
                    *result, /*apply=*/true);
  return kExitOk;
}

// `schema plan` (apply = false; direct only) and `schema apply` (apply =
// true; direct or served).
int RunSchemaChange(Context& context, const SchemaChangeOptions& options, bool apply) {
  const char* verb = apply ? "schema apply" : "schema plan";
  if (Status st = PrepareVerb(&context.flags, verb, {.actor = apply, .served = apply}); !st.ok()) {
    return context.Fail(st);
  }
  if (apply && AddressesServer(options.uri, context.flags)) return RunServedSchemaApply(context, options);
  auto source = ReadFile(options.schema);
  if (!source.ok()) return context.Fail(source.status());
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  if (apply) {
    if (Status st = RefuseClusterManagedGraph((*graph)->uri(), verb); !st.ok()) return context.Fail(st);
    if (Status st = SetWriteActor(**graph, context.flags); !st.ok()) return context.Fail(st);
    EchoWriteTarget(context.flags, verb, GivenUri(options.uri, context.flags));
  }
  auto result = apply ? (*graph)->ApplySchema(*source, options.schema, options.allow_data_loss)
                      : (*graph)->PlanSchema(*source, options.schema, options.allow_data_loss);
  if (!result.ok()) return context.Fail(result.status());
  if (result->commit) context.published = fmt::format("commit '{}'", result->commit->id);
  const std::string& uri = GivenUri(options.uri, context.flags);
  if (context.flags.json) {
    auto json = apply ? api::wire::SchemaApplyJson(uri, *result) : api::wire::SchemaPlanJson(uri, *result);
    std::cout << json.dump(2) << "\n";
    return kExitOk;
  }
  PrintSchemaChange(verb, uri, *result, apply);
  return kExitOk;
}

void AddSchemaChange(CLI::App* schema, Context& context, const char* name, const char* help, bool apply) {
  auto options = std::make_shared<SchemaChangeOptions>();
  CLI::App* verb = schema->add_subcommand(name, help);
  verb->add_option("uri", options->uri, "graph directory");
  verb->add_option("--schema", options->schema, "desired schema file (.pg)")->required();
  verb->add_flag("--allow-data-loss", options->allow_data_loss, "allow dropping populated types and properties");
  verb->callback([&context, options, apply] { context.exit_code = RunSchemaChange(context, *options, apply); });
}

}  // namespace

void RegisterSchema(CLI::App& app, Context& context) {
  CLI::App* schema = app.add_subcommand("schema", "schema commands");
  auto show_options = std::make_shared<SchemaShowOptions>();
  CLI::App* show = schema->add_subcommand("show", "print the accepted schema");
  show->alias("get");
  show->add_option("uri", show_options->uri, "graph directory");
  show->callback([&context, show_options] { context.exit_code = RunSchemaShow(context, *show_options); });
  AddSchemaChange(schema, context, "plan", "plan a schema change (changes nothing)", false);
  AddSchemaChange(schema, context, "apply", "apply a schema change (metadata only)", true);
  schema->require_subcommand(1);
}

}  // namespace omnigraph::cli
