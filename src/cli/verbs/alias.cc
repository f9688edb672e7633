// `alias NAME [ARGS…] [--params JSON | --params-file F] [--format F | --json]`
// (surface §5.2, §5.3, §5.5; local): runs operator alias
// aliases.<NAME>.{server, graph, query, args, params, format}, a read query
// stored on a server, through the same route and output as
// `query QUERY --server SERVER --graph GRAPH` (POST /queries/{name}).
//
// Parameters: the alias's `params`, overridden by --params/--params-file,
// overridden by the positional ARGS, which bind to the alias's `args`
// names in order. An ARG that reads as a JSON number, true, false or null
// binds as that value, any other as a string (pass a string that looks
// like a number through --params).
//
// An alias the operator config lacks is looked up in the working
// directory's omnigraph.yaml (ProjectConfig, cli/operator_config.h): its
// graph's URI gives the server and graph, graphs.<g>.bearer_token_env the
// token (else the §5.5 chain), cli.branch the branch and cli.output_format
// the format when the alias names none. `query --alias NAME [ARGS…]` is
// this verb (app.cc).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/input.h"
#include "cli/operator_config.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/query_source.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct AliasOptions {
  std::string name;               // positional NAME
  std::vector<std::string> args;  // positional ARGS
  std::string params;             // --params JSON
  std::string params_file;        // --params-file FILE
  std::string format;             // --format
};

// A positional ARG's JSON value (see the header comment).
nlohmann::json ArgValue(const std::string& text) {
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_number() || value.is_boolean() || value.is_null()) return value;
  return text;  // not JSON (discarded), or a string, list or object
}

// Parses `text` (named `what` in errors) as a JSON object.
Result<nlohmann::json> ParamsObject(const std::string& text, std::string_view what) {
  nlohmann::json object = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded()) return InvalidArgument(fmt::format("{} is not valid JSON", what));
  if (!object.is_object()) return InvalidArgument(fmt::format("{} must be a JSON object", what));
  return object;
}

// The parameters of one invocation, as a JSON object's text.
Result<std::string> AliasParams(const std::string& name, const OperatorAlias& alias, const AliasOptions& options) {
  if (options.args.size() > alias.args.size()) {
    return UsageError(fmt::format("alias '{}' takes {} argument(s){}, got {}", name, alias.args.size(),
                                  alias.args.empty() ? "" : fmt::format(" ({})", fmt::join(alias.args, ", ")),
                                  options.args.size()));
  }
  OG_ASSIGN_OR_RETURN(nlohmann::json params, ParamsObject(alias.params_json, fmt::format("aliases.{}.params", name)));
  OG_ASSIGN_OR_RETURN(std::string given_text, ReadParams(options.params, options.params_file));
  OG_ASSIGN_OR_RETURN(nlohmann::json given,
                      ParamsObject(given_text, options.params_file.empty() ? "--params" : "--params-file"));
  for (const auto& [key, value] : given.items()) params[key] = value;
  for (size_t i = 0; i < options.args.size(); ++i) params[alias.args[i]] = ArgValue(options.args[i]);
  return params.dump();
}

// "<path> (aliases: a, b)" for the aliases of one file.
template <typename Aliases>
std::string AliasesIn(const std::string& path, const Aliases& aliases) {
  std::vector<std::string_view> names;
  for (const auto& entry : aliases) names.push_back(entry.first);
  return fmt::format("{} ({})", path,
                     names.empty() ? std::string("it defines no aliases")
                                   : fmt::format("aliases: {}", fmt::join(names, ", ")));
}

// The alias NAME: aliases.<NAME> of the operator config `config`, else of
// omnigraph.yaml in the working directory (`project`, read here when
// needed). Errors: UsageError naming the aliases there are when neither
// has it, the key it lacks, or why a project alias cannot run; as
// LoadProjectConfig.
Result<ProjectAlias> FindAlias(const OperatorConfig& config, const std::string& name, ProjectConfig* project) {
  auto alias = config.aliases.find(name);
  if (alias == config.aliases.end()) {
    OG_ASSIGN_OR_RETURN(*project, LoadProjectConfig("."));
    auto local = project->aliases.find(name);
    if (local != project->aliases.end()) {
      if (!local->second.problem.empty()) return UsageError(local->second.problem);
      return local->second;
    }
    std::string where =
        AliasesIn(config.path.empty() ? std::string("the operator config (none was found)") : config.path,
                  config.aliases);
    if (!project->path.empty()) where += " or " + AliasesIn(project->path, project->aliases);
    return UsageError(fmt::format("alias '{}' is not in {}", name, where));
  }
  if (!alias->second.server) return UsageError(fmt::format("alias '{}' names no server (aliases.{}.server)", name, name));
  if (!alias->second.query) return UsageError(fmt::format("alias '{}' names no query (aliases.{}.query)", name, name));
  return ProjectAlias{alias->second, std::nullopt, std::nullopt, ""};
}

int RunAlias(Context& context, const AliasOptions& options) {
  GlobalFlags& flags = context.flags;
  if (!flags.server.empty() || !flags.graph.empty()) {
    return context.Fail(UsageError(fmt::format("`alias` takes its server and graph from aliases.{}; drop {}",
                                               options.name, !flags.server.empty() ? "--server" : "--graph")));
  }
  if (Status st = PrepareVerb(&flags, "alias", {.store = false}); !st.ok()) return context.Fail(st);
  auto config = LoadOperatorConfig();
  if (!config.ok()) return context.Fail(config.status());
  ProjectConfig project;
  auto found = FindAlias(*config, options.name, &project);
  if (!found.ok()) return context.Fail(found.status());
  const OperatorAlias& alias = found->alias;
  if (!project.path.empty()) {
    // The project file's table layout, where the operator config sets none.
    if (!config->table_max_column_width && project.table_max_column_width) {
      flags.table.max_column_width = *project.table_max_column_width;
    }
    if (project.table_cell_wrap) flags.table.wrap_cells = true;
  }
  auto format = ReadFormat(flags, options.format, alias.format);
  if (!format.ok()) return context.Fail(format.status());
  auto params = AliasParams(options.name, alias, options);
  if (!params.ok()) return context.Fail(params.status());
  // The alias addresses its server and graph as --server and --graph
  // would (a graph it leaves out falls back to defaults.default_graph).
  flags.server = *alias.server;
  flags.graph = alias.graph.value_or("");
  auto target = remote::ResolveServedTarget(flags);
  if (!target.ok()) return context.Fail(target.status());
  if (found->token_env) {
    const char* token = std::getenv(found->token_env->c_str());
    if (token != nullptr && *token != '\0') target->token = token;
  }
  remote::RemoteGraph graph(std::move(*target));
  auto body = graph.InvokeStored(*alias.query, *params, found->branch.value_or(""), std::nullopt,
                                 /*expect_mutation=*/false, std::nullopt);
  if (!body.ok()) return context.Fail(body.status());
  if (Status st = PrintServedRead(flags, std::move(*body), *format); !st.ok()) return context.Fail(st);
  return kExitOk;
}

}  // namespace

void RegisterAlias(CLI::App& app, Context& context) {
  auto options = std::make_shared<AliasOptions>();
  CLI::App* alias = app.add_subcommand("alias", "run an operator alias (a stored read query on a named server)");
  alias->add_option("NAME", options->name, "alias name (aliases.<name> of the operator config)")->required();
  alias->add_option("ARGS", options->args, "values of the alias's args, in order");
  alias->add_option("--params", options->params, "parameters as a JSON object");
  alias->add_option("--params-file", options->params_file, "file holding the parameters JSON object");
  alias->add_option("--format", options->format, "table | kv | csv | jsonl | json");
  alias->callback([&context, options] { context.exit_code = RunAlias(context, *options); });
}

}  // namespace omnigraph::cli
