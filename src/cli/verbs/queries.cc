// `queries list|validate [--config DIR(=.) | --cluster DIR [--graph ID]]
// [--json]` (surface §5.1, §5.2, capability `control`; cluster.md §1.3):
// the stored queries a cluster config directory declares
// (graphs.<g>.queries), discovered and checked against each graph's
// desired schema by the same load `cluster validate` runs
// (cluster/desired.h); nothing in storage is read. The global --cluster
// names the config directory as --config does; --graph keeps one graph.
//
// Human output:
//   list:     <graph>\t<query>\t<file as declared>   one line per query,
//             by graph then name; the queries' diagnostics on stderr
//   validate: `queries valid: N quer(y|ies) across G graph(s)` or
//             `queries invalid`, then one line per diagnostic of the
//             queries ("ERROR <code> <path>: <message>" / "WARN  …")
// JSON: {ok, config_dir, queries:[{graph, name, file, path, digest}],
// diagnostics:[{code, severity, path, message}]}. `validate` exits 1 when a
// diagnostic is an error, `list` only when the config cannot be loaded.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/verbs/cluster_report.h"
#include "cli/verbs/verbs.h"
#include "cluster/desired.h"

namespace omnigraph::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

// The diagnostics that concern the stored queries: those at a graph's
// `queries` path, and every one of a load that stopped before the graphs
// (the config could not be read or parsed).
cluster::Diagnostics QueryDiagnostics(const cluster::LoadOutcome& outcome, const std::string& graph) {
  if (!outcome.desired) return outcome.diagnostics;
  cluster::Diagnostics relevant;
  for (const cluster::Diagnostic& diagnostic : outcome.diagnostics) {
    const std::string& path = diagnostic.path;
    const size_t queries = path.find(".queries");
    const bool at_queries = path.starts_with("graphs.") && queries != std::string::npos &&
                            (queries + 8 == path.size() || path[queries + 8] == '.');
    const bool of_graph = graph.empty() || path.starts_with("graphs." + graph + ".");
    if (at_queries && of_graph) relevant.push_back(diagnostic);
  }
  return relevant;
}

size_t QueryCount(const cluster::DesiredCluster& desired) {
  size_t count = 0;
  for (const cluster::DesiredGraph& graph : desired.graphs) count += graph.query_files.size();
  return count;
}

OrderedJson QueriesJson(const cluster::LoadOutcome& outcome, const cluster::Diagnostics& diagnostics) {
  OrderedJson queries = OrderedJson::array();
  if (outcome.desired) {
    for (const cluster::DesiredGraph& graph : outcome.desired->graphs) {
      for (const auto& [name, file] : graph.query_files) {
        OrderedJson entry{{"graph", graph.id}, {"name", name}, {"file", file}};
        const std::string address = cluster::QueryAddress(graph.id, name);
        for (const cluster::ResourceSummary& resource : outcome.desired->resources) {
          if (resource.address != address) continue;
          if (resource.path) entry["path"] = *resource.path;
          entry["digest"] = resource.digest;
        }
        queries.push_back(std::move(entry));
      }
    }
  }
  return OrderedJson{{"ok", !cluster::HasErrors(diagnostics)},
                     {"config_dir", outcome.config_dir},
                     {"queries", queries},
                     {"diagnostics", ClusterDiagnosticsJson(diagnostics)}};
}

void PrintJson(const OrderedJson& json) {
  std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// The config --cluster or --config names, loaded; with --graph, only that
// graph's queries are kept.
Result<cluster::LoadOutcome> LoadQueries(Context& context, std::string_view verb, const std::string& config) {
  OG_RETURN_IF_ERROR(PrepareVerb(&context.flags, verb, {.store = false, .cluster = true}));
  if (!context.flags.graph.empty() && !context.flags.cluster_given) {
    return UsageError("--graph selects a graph of a cluster: pass --cluster <dir> with it");
  }
  OG_ASSIGN_OR_RETURN(std::string config_dir, ClusterConfigDir(context.flags, config));
  cluster::LoadOutcome outcome = cluster::LoadDesiredCluster(config_dir);
  const std::string& graph = context.flags.graph;
  if (!graph.empty() && outcome.desired) {
    std::vector<cluster::DesiredGraph>& graphs = outcome.desired->graphs;
    std::string names;
    for (const cluster::DesiredGraph& g : graphs) names += (names.empty() ? "" : ", ") + g.id;
    std::erase_if(graphs, [&](const cluster::DesiredGraph& g) { return g.id != graph; });
    if (graphs.empty()) {
      // Not a usage error: the command is well formed and the graph absent
      // (exit 1, as `repair --cluster . --graph <unknown>`).
      return NotFound(fmt::format("the cluster config '{}' declares no graph '{}' ({})", config_dir, graph,
                                    names.empty() ? "it declares none" : "graphs: " + names));
    }
  }
  return outcome;
}

int RunQueriesList(Context& context, const std::string& config_dir) {
  auto outcome = LoadQueries(context, "queries list", config_dir);
  if (!outcome.ok()) return context.Fail(outcome.status());
  const cluster::Diagnostics diagnostics = QueryDiagnostics(*outcome, context.flags.graph);
  if (context.flags.json) {
    PrintJson(QueriesJson(*outcome, diagnostics));
  } else {
    for (const cluster::Diagnostic& diagnostic : diagnostics) std::cerr << cluster::FormatDiagnostic(diagnostic) << "\n";
    if (outcome->desired) {
      for (const cluster::DesiredGraph& graph : outcome->desired->graphs) {
        for (const auto& [name, file] : graph.query_files) std::cout << graph.id << "\t" << name << "\t" << file << "\n";
      }
    }
  }
  return outcome->desired ? kExitOk : kExitError;
}

int RunQueriesValidate(Context& context, const std::string& config_dir) {
  auto outcome = LoadQueries(context, "queries validate", config_dir);
  if (!outcome.ok()) return context.Fail(outcome.status());
  const cluster::Diagnostics diagnostics = QueryDiagnostics(*outcome, context.flags.graph);
  const bool ok = outcome->desired && !cluster::HasErrors(diagnostics);
  if (context.flags.json) {
    PrintJson(QueriesJson(*outcome, diagnostics));
  } else {
    if (ok) {
      const size_t count = QueryCount(*outcome->desired);
      std::cout << fmt::format("queries valid: {} quer{} across {} graph(s)\n", count, count == 1 ? "y" : "ies",
                               outcome->desired->graphs.size());
    } else {
      std::cout << "queries invalid\n";
    }
    for (const cluster::Diagnostic& diagnostic : diagnostics) std::cout << cluster::FormatDiagnostic(diagnostic) << "\n";
  }
  return ok ? kExitOk : kExitError;
}

}  // namespace

void RegisterQueries(CLI::App& app, Context& context) {
  CLI::App* queries = app.add_subcommand("queries", "the stored queries of a cluster config");
  queries->require_subcommand(1);
  auto config = std::make_shared<std::string>();  // "" when not given: --cluster, else "."
  CLI::App* list = queries->add_subcommand("list", "every stored query a cluster config declares");
  list->add_option("--config", *config, "cluster config directory (holds cluster.yaml)");
  list->callback([&context, config] { context.exit_code = RunQueriesList(context, *config); });
  CLI::App* validate = queries->add_subcommand("validate", "check the stored queries against their graphs' schemas");
  validate->add_option("--config", *config, "cluster config directory (holds cluster.yaml)");
  validate->callback([&context, config] { context.exit_code = RunQueriesValidate(context, *config); });
}

}  // namespace omnigraph::cli
