#include "cli/app.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

// The index of the verb in `args`: the first word that is neither a global
// flag nor the value of one (args.size() when there is none).
size_t VerbIndex(const std::vector<std::string>& args) {
  size_t verb = 0;
  while (verb < args.size() && args[verb].rfind("-", 0) == 0) {
    bool takes_value = (args[verb] == "--store" || args[verb] == "--as" || args[verb] == "--profile" ||
                        args[verb] == "--server" || args[verb] == "--graph" || args[verb] == "--cluster");
    verb += takes_value ? 2 : 1;
  }
  return verb;
}

// `query --alias NAME [ARGS…]` (the corpus cookbooks' spelling; hidden) is
// `alias NAME [ARGS…]`: the verb word becomes `alias` and `--alias` (or
// `--alias=NAME`, which becomes NAME) is dropped, wherever it stands
// before a `--`.
void RewriteQueryAlias(std::vector<std::string>* args, size_t verb) {
  for (size_t i = verb + 1; i < args->size(); ++i) {
    std::string& word = (*args)[i];
    if (word == "--") return;
    if (word == "--alias") {
      args->erase(args->begin() + static_cast<std::ptrdiff_t>(i));
    } else if (word.rfind("--alias=", 0) == 0) {
      word = word.substr(8);
    } else {
      continue;
    }
    (*args)[verb] = "alias";
    return;
  }
}

// The deprecated spellings (surface §5.2) are rewritten to their commands
// before parsing, each with a one-line warning on stderr: `read` → `query`,
// `change` → `mutate`, and `check`, `query lint`, `query check` → `lint`.
// `help [COMMAND…]` becomes `[COMMAND…] --help`, without a warning, and
// sets *help_verb.
std::vector<std::string> RewriteDeprecatedVerbs(int argc, char** argv, bool* help_verb) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t verb = VerbIndex(args);
  if (verb >= args.size()) return args;
  auto rewrite = [&](std::string deprecated, std::string_view replacement) {
    std::cerr << fmt::format("warning: `{}` is deprecated; use `{}`\n", deprecated, replacement);
  };
  if (args[verb] == "help") {
    // `help [COMMAND…]` asks for COMMAND's help, as `[COMMAND…] --help`
    // (`help help` for the program's), with deprecated spellings rewritten
    // as below.
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(verb));
    if (verb < args.size() && args[verb] == "help") args.erase(args.begin() + static_cast<std::ptrdiff_t>(verb));
    args.push_back("--help");
    *help_verb = true;
    verb = VerbIndex(args);
    if (verb >= args.size()) return args;
  }
  if (args[verb] == "check" || args[verb] == "read" || args[verb] == "change") {
    std::string_view replacement = args[verb] == "check" ? "lint" : args[verb] == "read" ? "query" : "mutate";
    rewrite(args[verb], replacement);
    args[verb] = std::string(replacement);
  } else if (args[verb] == "query" && verb + 1 < args.size() &&
             (args[verb + 1] == "lint" || args[verb + 1] == "check")) {
    rewrite("query " + args[verb + 1], "lint");
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(verb));
    args[verb] = "lint";
  }
  if (args[verb] == "query") RewriteQueryAlias(&args, verb);
  return args;
}

// The command words the user typed when one of them names no command of
// this program ("frobnicate", "schema plan"), so the usage error can say so
// instead of CLI11's generic complaint. `args` is in command-line order.
std::optional<std::string> UnknownCommand(CLI::App* app, const std::vector<std::string>& args) {
  auto every = [](CLI::App*) { return true; };
  CLI::App* current = app;
  std::string path;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.rfind('-', 0) == 0) {
      // An option; skip its value when it takes one and is not "--x=value".
      const CLI::Option* option = current->get_option_no_throw(word);
      if (option == nullptr) option = app->get_option_no_throw(word);
      if (option != nullptr && option->get_items_expected_min() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    if (current->get_subcommands(every).empty()) return std::nullopt;  // a command's own arguments
    CLI::App* next = nullptr;
    for (CLI::App* sub : current->get_subcommands(every)) {
      if (sub->check_name(word)) next = sub;
    }
    path += path.empty() ? word : " " + word;
    if (next == nullptr) return path;
    current = next;
  }
  return std::nullopt;
}

// The global flags of §5.1 that this build serves, bound to `flags`.
// `show_version` is set by -v/--version.
void AddGlobalFlags(CLI::App& app, GlobalFlags* flags, bool* show_version) {
  app.add_option("--store", flags->store, "address one graph's storage directly (path or file:// URI)");
  app.add_option("--server", flags->server, "address an omnigraph-server (a servers.<name> entry or an http:// URL)");
  app.add_option("--graph", flags->graph, "select a graph on that server, or of the cluster (--cluster)");
  app.add_option("--cluster", flags->cluster, "cluster root (a directory or URI) for optimize, repair, cleanup, lint, "
                                              "policy and queries")
      ->each([flags](const std::string&) { flags->cluster_given = true; });
  app.add_flag("--json", flags->json, "print JSON instead of human text");
  app.add_flag("--quiet", flags->quiet, "suppress the stderr write-target line");
  app.add_flag("--yes", flags->yes, "consent to destructive writes against non-local targets");
  app.add_option("--as", flags->actor, "actor id for writes");
  app.add_option("--profile", flags->profile, "address the graph of this operator-config profile (also $OMNIGRAPH_PROFILE)")
      ->each([flags](const std::string&) { flags->profile_given = true; });
  app.add_flag("-v,--version", *show_version, "print the version");
  app.set_help_all_flag("--help-all");
}

// The usage error for a command word that names no command (exit code 2).
int ReportUnknownCommand(const std::string& command) {
  std::cerr << "error: unknown command '" << command << "'\nRun with --help or --help-all for more information.\n";
  return kExitUsage;
}

// Parses argv and runs the verb it names; returns the exit code and sets
// context->published when a write verb made something durable.
int RunVerbs(int argc, char** argv, Context* context) {
  CLI::App app{"omnigraph: a typed property-graph database on Lance", "omnigraph"};
  app.require_subcommand(0, 1);
  // Global flags are accepted before or after the subcommand (§5.1):
  // subcommands inherit fallthrough, handing unknown options to the app.
  app.fallthrough();
  bool show_version = false;
  AddGlobalFlags(app, &context->flags, &show_version);

  bool help_verb = false;
  std::vector<std::string> args = RewriteDeprecatedVerbs(argc, argv, &help_verb);
  const std::vector<std::string> words = args;
  const size_t verb = VerbIndex(words);
  RegisterVerbs(app, *context, verb < words.size() ? std::string_view(words[verb]) : std::string_view());
  if (help_verb) {
    // --help wins over everything else in CLI11, so a help request for a
    // command that does not exist would print the program's help.
    if (auto unknown = UnknownCommand(&app, words)) return ReportUnknownCommand(*unknown);
  }
  try {
    // CLI11 takes the vector form reversed (it pops from the back).
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto unknown = UnknownCommand(&app, words)) return ReportUnknownCommand(*unknown);
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      // CLI11's own message lists them in its reversed parse order;
      // remaining() has them in command-line order.
      std::vector<std::string> extras = app.remaining(true);
      std::cerr << "error: unexpected arguments: " << fmt::format("{}", fmt::join(extras, " "))
                << "\nRun with --help or --help-all for more information.\n";
    } else {
      std::cerr << "error: " << e.what() << "\nRun with --help or --help-all for more information.\n";
    }
    return kExitUsage;
  }
  if (show_version && app.get_subcommands().empty()) {
    std::cout << "omnigraph " << kVersion << "\n";
    return kExitOk;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << app.help();
    return kExitUsage;
  }
  return context->exit_code;
}

}  // namespace

bool IsWriteVerb(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t verb = VerbIndex(args);
  if (verb >= args.size()) return false;
  const std::string& word = args[verb];
  return word == "init" || word == "load" || word == "mutate" || word == "change" || word == "branch";
}

RunResult Run(int argc, char** argv) {
  Context context;
  RunResult result;
  result.exit_code = RunVerbs(argc, argv, &context);
  if (result.exit_code == kExitOk) result.published = std::move(context.published);
  return result;
}

}  // namespace omnigraph::cli
