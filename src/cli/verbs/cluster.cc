// `cluster <verb> --config DIR [--json]` (spec/cluster.md §4, surface.md
// §5.2): the cluster control plane — validate, import, refresh, plan,
// apply, approve, status and force-unlock. This file parses flags and
// prints; the commands are in src/cluster, their outputs in
// cluster_report.cc.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/verbs/cluster_report.h"
#include "cli/verbs/verbs.h"
#include "cluster/desired.h"
#include "policy/bundle.h"

namespace omnigraph::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct ClusterOptions {
  std::string config = ".";  // --config: the config dir
  std::string resource;      // approve RESOURCE
  std::string lock_id;       // force-unlock LOCK_ID
};

// §4.1's JSON: {ok, config_dir, config_file, resource_digests, resources,
// dependencies, diagnostics}.
OrderedJson ValidateJson(const cluster::LoadOutcome& outcome, const cluster::Diagnostics& diagnostics) {
  OrderedJson digests = OrderedJson::object();
  OrderedJson resources = OrderedJson::array();
  OrderedJson dependencies = OrderedJson::array();
  if (outcome.desired) {
    for (const auto& [address, digest] : outcome.desired->resource_digests) digests[address] = digest;
    for (const cluster::ResourceSummary& resource : outcome.desired->resources) {
      OrderedJson entry{{"address", resource.address}, {"kind", resource.kind}, {"digest", resource.digest}};
      if (resource.path) entry["path"] = *resource.path;
      resources.push_back(entry);
    }
    for (const cluster::Dependency& dependency : outcome.desired->dependencies) {
      dependencies.push_back(OrderedJson{{"from", dependency.from}, {"to", dependency.to}});
    }
  }
  return OrderedJson{{"ok", !cluster::HasErrors(diagnostics)},
                     {"config_dir", outcome.config_dir},
                     {"config_file", outcome.config_file},
                     {"resource_digests", digests},
                     {"resources", resources},
                     {"dependencies", dependencies},
                     {"diagnostics", ClusterDiagnosticsJson(diagnostics)}};
}

// The policy compiler as cluster.md §1.6 runs it on every bound bundle:
// strict parse (server.md §2.2), then the kind alignment of its binding.
std::optional<std::string> CheckPolicyBundle(std::string_view source, cluster::PolicyBundleKind kind,
                                             std::string_view /*graph_id*/) {
  auto bundle = policy::ParseBundle(source, "policy bundle");
  if (!bundle.ok()) return bundle.status().message();
  Status bound = policy::CheckBinding(
      *bundle, kind == cluster::PolicyBundleKind::kServer ? policy::Binding::kCluster : policy::Binding::kGraph);
  if (!bound.ok()) return bound.message();
  return std::nullopt;
}

// §4.1: loads the config dir (no storage I/O) and reports it; exit 1 iff
// some diagnostic is an error (the output is printed either way).
int RunValidate(Context& context, const ClusterOptions& options) {
  GlobalFlags& flags = context.flags;
  VerbFlags accepts;
  accepts.store = false;
  if (Status st = PrepareVerb(&flags, "cluster validate", accepts); !st.ok()) return context.Fail(st);
  cluster::LoadOptions load;
  load.check_policy_bundle = CheckPolicyBundle;
  const cluster::LoadOutcome outcome = cluster::LoadDesiredCluster(options.config, load);
  cluster::Diagnostics diagnostics = outcome.diagnostics;
  if (outcome.desired && outcome.ok()) {
    const cluster::Diagnostics warnings = cluster::ValidateOnlyWarnings(*outcome.desired);
    diagnostics.insert(diagnostics.end(), warnings.begin(), warnings.end());
  }
  const bool ok = !cluster::HasErrors(diagnostics);
  if (flags.json) {
    std::cout << ValidateJson(outcome, diagnostics).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    if (ok && outcome.desired) {
      std::cout << "cluster config valid: " << outcome.desired->resources.size() << " resource(s), "
                << outcome.desired->dependencies.size() << " dependency edge(s)\n";
    } else {
      std::cout << "cluster config invalid\n";
    }
    for (const cluster::Diagnostic& diagnostic : diagnostics) std::cout << cluster::FormatDiagnostic(diagnostic) << "\n";
  }
  return ok ? kExitOk : kExitError;
}

// The command options of a storage-touching verb: --config, the policy
// compiler for bound bundles, and (apply, approve) the actor.
cluster::CommandOptions CommandOptionsOf(const ClusterOptions& options, const GlobalFlags& flags, bool with_actor) {
  cluster::CommandOptions command;
  command.config_dir = options.config;
  command.load.check_policy_bundle = CheckPolicyBundle;
  if (with_actor && !flags.WriteActor().empty()) command.actor = flags.WriteActor();
  return command;
}

// Prints a report (--json: pretty JSON on stdout; else its human text) and
// returns the exit code: 1 iff `ok` is false (§4.0).
template <typename Report, typename ToJson, typename Print>
int Emit(const GlobalFlags& flags, const Report& report, ToJson to_json, Print print) {
  if (flags.json) {
    std::cout << to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print(report, std::cout);
  }
  return report.ok ? kExitOk : kExitError;
}

// Prepares a storage-touching verb: `--as` only where `with_actor`.
Status PrepareClusterVerb(Context& context, std::string_view verb, bool with_actor) {
  VerbFlags accepts;
  accepts.store = false;
  accepts.actor = with_actor;
  return PrepareVerb(&context.flags, verb, accepts);
}

int RunImport(Context& context, const ClusterOptions& options, bool refresh) {
  if (Status st = PrepareClusterVerb(context, refresh ? "cluster refresh" : "cluster import", false); !st.ok()) {
    return context.Fail(st);
  }
  const cluster::CommandOptions command = CommandOptionsOf(options, context.flags, false);
  return Emit(context.flags, refresh ? cluster::RunRefresh(command) : cluster::RunImport(command),
              ObserveReportJson, PrintObserveReport);
}

int RunPlan(Context& context, const ClusterOptions& options) {
  if (Status st = PrepareClusterVerb(context, "cluster plan", false); !st.ok()) return context.Fail(st);
  return Emit(context.flags, cluster::RunPlan(CommandOptionsOf(options, context.flags, false)), PlanReportJson,
              PrintPlanReport);
}

int RunApply(Context& context, const ClusterOptions& options) {
  if (Status st = PrepareClusterVerb(context, "cluster apply", true); !st.ok()) return context.Fail(st);
  return Emit(context.flags, cluster::RunApply(CommandOptionsOf(options, context.flags, true)), ApplyReportJson,
              PrintApplyReport);
}

int RunApprove(Context& context, const ClusterOptions& options) {
  if (Status st = PrepareClusterVerb(context, "cluster approve", true); !st.ok()) return context.Fail(st);
  const cluster::CommandOptions command = CommandOptionsOf(options, context.flags, true);
  if (!command.actor) {
    std::cerr << "`cluster approve` requires an approver: pass the global --as <ACTOR> flag or set `operator.actor` "
                 "in ~/.omnigraph/config.yaml — an approval without an approver is meaningless\n";
    return kExitError;
  }
  return Emit(context.flags, cluster::RunApprove(command, options.resource), ApproveReportJson, PrintApproveReport);
}

int RunStatus(Context& context, const ClusterOptions& options) {
  if (Status st = PrepareClusterVerb(context, "cluster status", false); !st.ok()) return context.Fail(st);
  return Emit(context.flags, cluster::RunStatus(CommandOptionsOf(options, context.flags, false)), StatusReportJson,
              PrintStatusReport);
}

int RunForceUnlock(Context& context, const ClusterOptions& options) {
  if (Status st = PrepareClusterVerb(context, "cluster force-unlock", false); !st.ok()) return context.Fail(st);
  return Emit(context.flags,
              cluster::RunForceUnlock(CommandOptionsOf(options, context.flags, false), options.lock_id),
              ForceUnlockReportJson, PrintForceUnlockReport);
}

}  // namespace

void RegisterCluster(CLI::App& app, Context& context) {
  CLI::App* group = app.add_subcommand("cluster", "cluster control plane (cluster.yaml)");
  group->require_subcommand(1);
  auto options = std::make_shared<ClusterOptions>();
  auto verb = [&](const char* name, const char* description, auto run) {
    CLI::App* sub = group->add_subcommand(name, description);
    sub->add_option("--config", options->config, "cluster config directory (holds cluster.yaml)");
    sub->callback([&context, options, run] { context.exit_code = run(context, *options); });
    return sub;
  };
  verb("validate", "check a cluster config dir without touching storage", RunValidate);
  verb("import", "bootstrap state.json from the graphs the storage root holds",
       [](Context& c, const ClusterOptions& o) { return RunImport(c, o, false); });
  verb("refresh", "re-observe the graphs and payloads into state.json",
       [](Context& c, const ClusterOptions& o) { return RunImport(c, o, true); });
  verb("plan", "show the changes `cluster apply` would make", RunPlan);
  verb("apply", "make the storage root match cluster.yaml", RunApply);
  verb("approve", "approve one gated destructive change", RunApprove)
      ->add_option("RESOURCE", options->resource, "the gated resource address (e.g. graph.scratch)")
      ->required();
  verb("status", "show the cluster state and lock without taking it", RunStatus);
  verb("force-unlock", "remove a stale cluster state lock by its id", RunForceUnlock)
      ->add_option("LOCK_ID", options->lock_id, "the lock id `cluster status` shows")
      ->required();
}

}  // namespace omnigraph::cli
