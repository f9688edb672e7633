// `profile list` and `profile show [NAME]` (surface §5.2, §5.5; local):
// the profiles.<name> entries of the operator config.
//
// Human output:
//   list: one line per profile, sorted by name:
//           <name>\tstore <uri> | server <name|url>[ graph <id>] | cluster <root>[ graph <id>]
//         ("<name>\t(empty)" for a profile that names nothing)
//   show: `profile: <name>`, then one `<key>: <value>` line per key set,
//         in the order store, server, cluster, default_graph.
// JSON: list {"profiles":[<profile>…]}; show <profile>, where <profile> is
// {"name", "store"?, "server"?, "cluster"?, "default_graph"?}.
// `profile show` without NAME shows the profile $OMNIGRAPH_PROFILE selects.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/operator_config.h"
#include "cli/verbs/verbs.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

// The profile's keys that are set, in the order of the header comment.
std::vector<std::pair<std::string_view, std::string>> ProfileKeys(const OperatorProfile& profile) {
  std::vector<std::pair<std::string_view, std::string>> keys;
  if (profile.store) keys.emplace_back("store", *profile.store);
  if (profile.server) keys.emplace_back("server", *profile.server);
  if (profile.cluster) keys.emplace_back("cluster", *profile.cluster);
  if (profile.default_graph) keys.emplace_back("default_graph", *profile.default_graph);
  return keys;
}

OrderedJson ProfileJson(const std::string& name, const OperatorProfile& profile) {
  OrderedJson json{{"name", name}};
  for (const auto& [key, value] : ProfileKeys(profile)) json[std::string(key)] = value;
  return json;
}

// "store <uri>", "server <s> graph <g>", …: what the profile addresses.
std::string ProfileSummary(const OperatorProfile& profile) {
  std::string summary;
  for (const auto& [key, value] : ProfileKeys(profile)) {
    if (!summary.empty()) summary += " ";
    summary += fmt::format("{} {}", key == "default_graph" ? "graph" : key, compiler::EscapeForDisplay(value));
  }
  return summary.empty() ? "(empty)" : summary;
}

Result<OperatorConfig> PrepareProfileVerb(Context& context, std::string_view verb) {
  OG_RETURN_IF_ERROR(PrepareVerb(&context.flags, verb, {.store = false}));
  return LoadOperatorConfig();
}

int RunProfileList(Context& context) {
  auto config = PrepareProfileVerb(context, "profile list");
  if (!config.ok()) return context.Fail(config.status());
  if (context.flags.json) {
    OrderedJson profiles = OrderedJson::array();
    for (const auto& [name, profile] : config->profiles) profiles.push_back(ProfileJson(name, profile));
    std::cout << OrderedJson{{"profiles", profiles}}.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& [name, profile] : config->profiles) {
    std::cout << compiler::EscapeForDisplay(name) << "\t" << ProfileSummary(profile) << "\n";
  }
  return kExitOk;
}

int RunProfileShow(Context& context, const std::string& given) {
  auto config = PrepareProfileVerb(context, "profile show");
  if (!config.ok()) return context.Fail(config.status());
  std::string name = given;
  if (name.empty()) {
    const char* selected = std::getenv("OMNIGRAPH_PROFILE");
    if (selected == nullptr || *selected == '\0') {
      return context.Fail(UsageError("no profile given: pass a profile NAME (or set $OMNIGRAPH_PROFILE)"));
    }
    name = selected;
  }
  auto profile = config->profiles.find(name);
  if (profile == config->profiles.end()) {
    return context.Fail(NotFound(fmt::format("profile '{}' is not in {}", name,
                                             config->path.empty() ? "the operator config (none was found)"
                                                                  : config->path)));
  }
  if (context.flags.json) {
    std::cout << ProfileJson(name, profile->second).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "profile: " << compiler::EscapeForDisplay(name) << "\n";
  for (const auto& [key, value] : ProfileKeys(profile->second)) {
    std::cout << key << ": " << compiler::EscapeForDisplay(value) << "\n";
  }
  return kExitOk;
}

}  // namespace

void RegisterProfile(CLI::App& app, Context& context) {
  CLI::App* profile = app.add_subcommand("profile", "the profiles of the operator config");
  profile->require_subcommand(1);
  CLI::App* list = profile->add_subcommand("list", "every profile and what it addresses");
  list->callback([&context] { context.exit_code = RunProfileList(context); });
  auto name = std::make_shared<std::string>();
  CLI::App* show = profile->add_subcommand("show", "one profile's keys");
  show->add_option("NAME", *name, "profile name (default: $OMNIGRAPH_PROFILE)");
  show->callback([&context, name] { context.exit_code = RunProfileShow(context, *name); });
}

}  // namespace omnigraph::cli
