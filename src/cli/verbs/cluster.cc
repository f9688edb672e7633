// `cluster <verb> --config DIR [--json]` (spec/cluster.md §4, surface.md
// §5.2): the cluster control plane. Only `validate` exists so far; the
// other verbs (import, plan, apply, approve, status, refresh,
// force-unlock) register beside it under the same `cluster` group.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/verbs/verbs.h"
#include "cluster/desired.h"
#include "policy/bundle.h"

namespace omnigraph::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct ClusterOptions {
  std::string config = ".";  // --config: the config dir
};

OrderedJson DiagnosticsJson(const cluster::Diagnostics& diagnostics) {
  OrderedJson list = OrderedJson::array();
  for (const cluster::Diagnostic& diagnostic : diagnostics) {
    list.push_back(OrderedJson{{"code", diagnostic.code},
                               {"severity", cluster::SeverityName(diagnostic.severity)},
                               {"path", diagnostic.path},
                               {"message", diagnostic.message}});
  }
  return list;
}

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
                     {"diagnostics", DiagnosticsJson(diagnostics)}};
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

}  // namespace

void RegisterCluster(CLI::App& app, Context& context) {
  CLI::App* group = app.add_subcommand("cluster", "cluster control plane (cluster.yaml)");
  group->require_subcommand(1);
  auto options = std::make_shared<ClusterOptions>();
  CLI::App* validate = group->add_subcommand("validate", "check a cluster config dir without touching storage");
  validate->add_option("--config", options->config, "cluster config directory (holds cluster.yaml)");
  validate->callback([&context, options] { context.exit_code = RunValidate(context, *options); });
}

}  // namespace omnigraph::cli
