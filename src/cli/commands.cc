#include "cli/commands.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "cli/operator_config.h"
#include "compiler/catalog.h"
#include "compiler/lint.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

// A progress bar on stderr while a large load parses its records (surface
// §5: only for loads of more than a few thousand lines, and only when
// stderr is a terminal, so logs and pipes stay clean).
class LoadProgressBar {
 public:
  static constexpr size_t kMinLines = 5000;

  explicit LoadProgressBar(std::string_view data)
      : enabled_(::isatty(STDERR_FILENO) == 1 &&
                 static_cast<size_t>(std::count(data.begin(), data.end(), '\n')) > kMinLines) {}

  exec::LoadProgress callback() {
    if (!enabled_) return {};
    return [this](uint64_t done, uint64_t total) {
      constexpr int kWidth = 30;
      int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
      int filled = percent * kWidth / 100;
      std::cerr << fmt::format("\rloading [{}{}] {:3}%", std::string(static_cast<size_t>(filled), '#'),
                               std::string(static_cast<size_t>(kWidth - filled), ' '), percent)
                << std::flush;
      drawn_ = true;
    };
  }

  // Clears the bar so later output starts on a clean line.
  void Finish() {
    if (drawn_) std::cerr << "\r" << std::string(48, ' ') << "\r" << std::flush;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
};

using Json = nlohmann::ordered_json;

constexpr std::string_view kVersion = "0.1.0";

struct GlobalFlags {
  std::string store;
  std::string profile;  // --profile
  bool profile_given = false;  // --profile was on the command line (even empty)
  bool json = false;
  bool quiet = false;
  bool yes = false;
  std::string actor;
  // From the operator config (§5.5), each used only when the command line
  // does not say otherwise. default_store is the selected profile's store
  // when a profile is selected, else defaults.store.
  std::string default_store;
  // Why the selected profile (--profile, else $OMNIGRAPH_PROFILE) cannot
  // address a graph; reported only when a command would use it.
  Status profile_error;
  std::string default_actor;
  std::optional<exec::OutputFormat> default_output;
  exec::TableOptions table;

  // The actor recorded on a write's commits: --as, else operator.actor.
  const std::string& WriteActor() const { return actor.empty() ? default_actor : actor; }
};

// A command-line usage error (conflicting or missing options): exit code 2
// instead of 1 (§5.4).
Status UsageError(std::string message) {
  return Status(ErrorCode::kInvalidArgument, std::move(message), {{"exit", "usage"}});
}

// The global flags a verb can use (§5.1: a flag a verb cannot use fails
// loudly). --quiet only silences the write-target line and is harmless
// everywhere.
struct VerbFlags {
  bool store = true;   // addresses a graph
  bool json = true;    // has a JSON form of its output
  bool actor = false;  // makes commits that record an actor (--as)
  bool yes = false;    // can be destructive (--yes)
};

Status CheckGlobalFlags(const GlobalFlags& flags, std::string_view verb, VerbFlags accepts) {
  if (!flags.store.empty() && !accepts.store) return UsageError(fmt::format("`{}` addresses no graph; drop --store", verb));
  if (flags.profile_given && !accepts.store) {
    return UsageError(fmt::format("`{}` addresses no graph; drop --profile", verb));
  }
  if (flags.json && !accepts.json) return UsageError(fmt::format("`{}` has no JSON output; drop --json", verb));
  if (!flags.actor.empty() && !accepts.actor) {
    // An actor is recorded on commits; a read makes none.
    return UsageError(fmt::format("--as applies to writes; `{}` makes no commit", verb));
  }
  if (flags.yes && !accepts.yes) return UsageError(fmt::format("--yes applies to destructive writes; `{}` is not one", verb));
  return Status::OK();
}

// The profile named by --profile, else by $OMNIGRAPH_PROFILE (§5.1), in
// place of defaults.store. A profile this build cannot use (absent from the
// config, or addressing a server or cluster) becomes flags->profile_error,
// so a command never silently falls back to another graph; PrepareVerb
// reports it at once when --profile named it, and ResolveUri when the
// command would use it.
void SelectProfile(const OperatorConfig& config, GlobalFlags* flags) {
  std::string name = flags->profile;
  if (!flags->profile_given) {
    const char* environment = std::getenv("OMNIGRAPH_PROFILE");
    if (environment == nullptr || *environment == '\0') return;
    name = environment;
  }
  flags->default_store.clear();
  auto profile = config.profiles.find(name);
  if (profile == config.profiles.end()) {
    std::vector<std::string_view> names;
    for (const auto& entry : config.profiles) names.push_back(entry.first);
    std::string where = config.path.empty() ? std::string("the operator config (none was found)") : config.path;
    flags->profile_error = UsageError(fmt::format("profile '{}' is not in {} ({})", name, where,
                                                  names.empty() ? std::string("it defines no profiles")
                                                                : fmt::format("profiles: {}", fmt::join(names, ", "))));
  } else if (profile->second.store) {
    flags->default_store = *profile->second.store;
  } else if (profile->second.server || profile->second.cluster) {
    flags->profile_error = UsageError(fmt::format(
        "profile '{}' addresses a {}, which this build cannot reach; address the graph with --store <path>", name,
        profile->second.server ? "server" : "cluster"));
  } else {
    flags->profile_error = UsageError(fmt::format("profile '{}' names no store", name));
  }
}

// Checks the verb's global flags, then reads the operator config into
// `flags` and prints its warnings on stderr. Errors: as CheckGlobalFlags
// and LoadOperatorConfig.
Status PrepareVerb(GlobalFlags* flags, std::string_view verb, VerbFlags accepts) {
  OG_RETURN_IF_ERROR(CheckGlobalFlags(*flags, verb, accepts));
  OG_ASSIGN_OR_RETURN(OperatorConfig config, LoadOperatorConfig());
  for (const std::string& warning : config.warnings) std::cerr << "warning: " << warning << "\n";
  if (config.store) flags->default_store = *config.store;
  if (accepts.store) {
    SelectProfile(config, flags);
    // A profile named on the command line is checked even when an explicit
    // graph wins over it: a mistyped --profile is never silently ignored.
    if (flags->profile_given && !flags->profile_error.ok()) return flags->profile_error;
  }
  if (config.actor) flags->default_actor = *config.actor;
  // Only writes record an actor, so only they are refused a bad one (from
  // --as or the config file).
  if (accepts.actor && !flags->WriteActor().empty()) {
    if (Status st = api::Omnigraph::ValidateActorId(flags->WriteActor()); !st.ok()) return UsageError(st.message());
  }
  flags->default_output = config.output;
  if (config.table_max_column_width) flags->table.max_column_width = *config.table_max_column_width;
  flags->table.wrap_cells = config.table_cell_wrap;
  return Status::OK();
}

// Errors go to stderr only (stdout stays parseable for --json callers).
// Type errors keep their position out of the message text (it is part of
// the contract, compiler/source.h); it is printed on a second line here so
// that every bad query still names file, line and column.
int Fail(const Status& st, bool /*json*/ = false) {
  // Messages quote input (paths, names, values): their control characters,
  // newlines included, are shown escaped, so none reaches the terminal raw
  // or forges a line. The only lines a message has on purpose are the two
  // of a located parse or catalog error's source excerpt (already escaped).
  std::string_view text = st.message();
  std::string_view excerpt;
  const auto& code = st.details().find("code");
  if (code != st.details().end() && (code->second == "parse" || code->second == "catalog")) {
    size_t last = text.rfind('\n');
    size_t cut = last == std::string_view::npos || last == 0 ? std::string_view::npos : text.rfind('\n', last - 1);
    if (cut != std::string_view::npos) {
      excerpt = text.substr(cut);
      text = text.substr(0, cut);
    }
  }
  std::cerr << "error: " << compiler::EscapeForDisplay(text) << excerpt << "\n";
  const Status::Details& details = st.details();
  auto file = details.find("file"), line = details.find("line"), column = details.find("column");
  if (file != details.end() && line != details.end() && column != details.end()) {
    std::string location = fmt::format("{}:{}:{}", file->second, line->second, column->second);
    if (st.message().find(location) == std::string::npos) std::cerr << "  --> " << location << "\n";
  }
  // A write whose publication may or may not have landed (its directory
  // sync failed after the new version became visible, or the readback
  // failed): the caller must look before retrying, or it may write twice.
  if (auto outcome = details.find("outcome"); outcome != details.end() && outcome->second == "indeterminate") {
    auto commit = details.find("commit");
    std::cerr << "  outcome: indeterminate: commit '" << (commit != details.end() ? commit->second : "?")
              << "' may have been published; check `omnigraph commit list` before retrying\n";
  }
  auto exit = details.find("exit");
  return exit != details.end() && exit->second == "usage" ? kExitUsage : kExitError;
}

// Reads `fd` to its end. A descriptor that cannot be read (closed, a
// directory) is an error, never an empty input.
Result<std::string> ReadAllFrom(int fd, std::string_view name) {
  std::string out;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return InvalidArgument(fmt::format("cannot read {}: it is a directory", name));
      return IoError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    }
    out.append(chunk, static_cast<size_t>(n));
  }
}

// The whole of file `path`; "-" is standard input.
Result<std::string> ReadFile(const std::string& path) {
  if (path == "-") return ReadAllFrom(STDIN_FILENO, "standard input");
  const std::string name = fmt::format("'{}'", path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    std::string message = fmt::format("cannot read {}: {}", name, std::strerror(err));
    return err == ENOENT ? NotFound(std::move(message)) : IoError(std::move(message));
  }
  // A directory opens but reads as an error (EISDIR), refused rather than
  // taken as empty: `load --data dir` must not commit an empty load.
  auto data = ReadAllFrom(fd, name);
  ::close(fd);
  return data;
}

// The graph a command addresses as the user spelled it: the positional
// URI, else --store, else the selected profile's store, else the operator
// config's defaults.store.
const std::string& GivenUri(const std::string& positional, const GlobalFlags& flags) {
  return !positional.empty() ? positional : !flags.store.empty() ? flags.store : flags.default_store;
}

// The graph a command addresses (GivenUri), as a local path.
Result<std::string> ResolveUri(const std::string& positional, const GlobalFlags& flags) {
  if (!positional.empty() && !flags.store.empty() && positional != flags.store) {
    return UsageError("pass the graph either as a positional URI or with --store, not both");
  }
  if (positional.empty() && flags.store.empty() && !flags.profile_error.ok()) return flags.profile_error;
  std::string uri = GivenUri(positional, flags);
  if (uri.empty()) {
    return UsageError("no graph given: pass a graph URI or --store <path> (or set defaults.store in the operator config)");
  }
  if (uri.rfind("http://", 0) == 0 || uri.rfind("https://", 0) == 0) {
    return InvalidArgument("a remote graph must be addressed with --server <url>, which this build does not serve");
  }
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (size_t scheme = uri.find("://"); scheme != std::string::npos && scheme > 0 &&
                                       uri.find('/') == scheme + 1) {
    return Status(ErrorCode::kUnsupported,
                  fmt::format("'{}': this build stores graphs on local paths only (a path or file:// URI), "
                              "not on '{}://'",
                              uri, uri.substr(0, scheme)));
  }
  return uri;
}

// Opens the graph a command addresses (ResolveUri, then Omnigraph::Open).
Result<std::unique_ptr<api::Omnigraph>> OpenGraph(const std::string& positional, const GlobalFlags& flags) {
  OG_ASSIGN_OR_RETURN(std::string uri, ResolveUri(positional, flags));
  return api::Omnigraph::Open(uri);
}

void EchoWriteTarget(const GlobalFlags& flags, std::string_view verb, const std::string& uri) {
  if (!flags.quiet) std::cerr << fmt::format("omnigraph {} → {} (direct, local)\n", verb, uri);
}

Json CommitJson(const graph::CommitRecord& c) {
  Json j;
  j["graph_commit_id"] = c.id;
  j["graph_branch"] = c.graph_branch ? Json(*c.graph_branch) : Json(nullptr);
  j["graph_manifest_version"] = c.manifest_version;
  j["parent_commit_id"] = c.parent_id ? Json(*c.parent_id) : Json(nullptr);
  j["merged_parent_commit_id"] = c.merged_parent_id ? Json(*c.merged_parent_id) : Json(nullptr);
  j["actor_id"] = c.actor_id ? Json(*c.actor_id) : Json(nullptr);
  j["created_at"] = c.created_at_us;
  return j;
}

Result<std::string> ReadParams(const std::string& params, const std::string& params_file) {
  if (!params.empty() && !params_file.empty()) return UsageError("pass --params or --params-file, not both");
  if (!params_file.empty()) return ReadFile(params_file);
  return params.empty() ? std::string("{}") : params;
}

}  // namespace

namespace {

// The index of the verb in `args`: the first word that is neither a global
// flag nor the value of one (args.size() when there is none).
size_t VerbIndex(const std::vector<std::string>& args) {
  size_t verb = 0;
  while (verb < args.size() && args[verb].rfind("-", 0) == 0) {
    bool takes_value = (args[verb] == "--store" || args[verb] == "--as" || args[verb] == "--profile");
    verb += takes_value ? 2 : 1;
  }
  return verb;
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
  return args;
}

// A query process is short-lived and decodes whole columns into large
// buffers that it frees and allocates again. glibc serves blocks above
// 128 KiB with their own mmap and unmaps them on free, so every such buffer
// pays a page fault per 4 KiB on each use (a third of a cold 100k-row query
// on a VM). Serving them from the heap and never trimming it lets freed
// pages be reused; the process exits before the retained memory matters.
void KeepFreedMemoryForReuse() {
  constexpr int kOneGiB = 1 << 30;
  ::mallopt(M_MMAP_THRESHOLD, kOneGiB);
  ::mallopt(M_TRIM_THRESHOLD, kOneGiB);
  ::mallopt(M_TOP_PAD, 64 << 20);
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

// The first of the §5.1 flags that address a server or cluster (--server,
// --graph, --cluster) on the command line, which this build has no use for;
// without this, CLI11 would take the flag's value for a command name.
std::optional<std::string> RemoteAddressingFlag(const std::vector<std::string>& args) {
  for (const std::string& word : args) {
    if (word == "--") break;
    for (std::string_view flag : {"--server", "--graph", "--cluster"}) {
      if (word == flag || word.rfind(std::string(flag) + "=", 0) == 0) return std::string(flag);
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {
int RunVerbs(int argc, char** argv, std::string* published);
}  // namespace

bool IsWriteVerb(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t verb = VerbIndex(args);
  if (verb >= args.size()) return false;
  const std::string& word = args[verb];
  return word == "init" || word == "load" || word == "mutate" || word == "change";
}

RunResult Run(int argc, char** argv) {
  RunResult result;
  result.exit_code = RunVerbs(argc, argv, &result.published);
  if (result.exit_code != kExitOk) result.published.clear();
  return result;
}

namespace {

int RunVerbs(int argc, char** argv, std::string* published) {
  CLI::App app{"omnigraph: a typed property-graph database on Lance", "omnigraph"};
  app.require_subcommand(0, 1);
  // Global flags are accepted before or after the subcommand (§5.1):
  // subcommands inherit fallthrough, handing unknown options to the app.
  app.fallthrough();
  GlobalFlags flags;
  bool show_version = false;
  app.add_option("--store", flags.store, "address one graph's storage directly (path or file:// URI)");
  app.add_flag("--json", flags.json, "print JSON instead of human text");
  app.add_flag("--quiet", flags.quiet, "suppress the stderr write-target line");
  app.add_flag("--yes", flags.yes, "consent to destructive writes against non-local targets");
  app.add_option("--as", flags.actor, "actor id for writes");
  app.add_option("--profile", flags.profile, "address the graph of this operator-config profile (also $OMNIGRAPH_PROFILE)")
      ->each([&flags](const std::string&) { flags.profile_given = true; });
  app.add_flag("-v,--version", show_version, "print the version");
  app.set_help_all_flag("--help-all");

  int exit_code = kExitOk;

  // ---- init
  auto* init = app.add_subcommand("init", "create a graph from a .pg schema");
  std::string init_schema, init_uri;
  bool init_force = false;
  init->add_option("--schema", init_schema, "schema file (.pg)")->required();
  init->add_option("uri", init_uri, "graph directory");
  init->add_flag("--force", init_force, "replace orphan schema files");
  init->callback([&] {
    if (Status st = PrepareVerb(&flags, "init", {}); !st.ok()) return void(exit_code = Fail(st));
    auto uri = ResolveUri(init_uri, flags);
    if (!uri.ok()) return void(exit_code = Fail(uri.status()));
    auto source = ReadFile(init_schema);
    if (!source.ok()) return void(exit_code = Fail(source.status()));
    auto graph = api::Omnigraph::Init(*uri, *source, init_schema, init_force);
    if (!graph.ok()) return void(exit_code = Fail(graph.status(), flags.json));
    *published = fmt::format("graph '{}'", GivenUri(init_uri, flags));
    if (flags.json) {
      std::cout << Json{{"uri", GivenUri(init_uri, flags)}}.dump(2) << "\n";
    } else {
      // The URI as the user gave it (§5.2), file:// included.
      std::cout << "initialized " << GivenUri(init_uri, flags) << "\n";
    }
  });

  // ---- load
  auto* load = app.add_subcommand("load", "strict NDJSON load (one atomic commit)");
  std::string load_uri, load_data, load_mode, load_branch = "main";
  load->add_option("uri", load_uri, "graph directory");
  load->add_option("--data", load_data, "NDJSON file")->required();
  load->add_option("--mode", load_mode, "overwrite | append | merge")->required();
  load->add_option("--branch", load_branch, "target branch (default main)");
  load->callback([&] {
    if (Status st = PrepareVerb(&flags, "load", {.actor = true, .yes = true}); !st.ok()) return void(exit_code = Fail(st));
    auto mode = api::ParseLoadMode(load_mode);
    if (!mode) {
      std::cerr << "error: --mode must be overwrite, append or merge\n";
      return void(exit_code = kExitUsage);
    }
    auto uri = ResolveUri(load_uri, flags);
    if (!uri.ok()) return void(exit_code = Fail(uri.status()));
    auto data = ReadFile(load_data);
    if (!data.ok()) return void(exit_code = Fail(data.status()));
    EchoWriteTarget(flags, "load", *uri);
    auto graph = api::Omnigraph::Open(*uri);
    if (!graph.ok()) return void(exit_code = Fail(graph.status(), flags.json));
    if (Status st = (*graph)->set_actor(flags.WriteActor().empty() ? std::nullopt
                                                                    : std::optional<std::string>(flags.WriteActor()));
        !st.ok()) {
      return void(exit_code = Fail(st));
    }
    LoadProgressBar bar(*data);
    auto report = (*graph)->Load(*data, load_data, *mode, load_branch, bar.callback());
    bar.Finish();
    if (!report.ok()) return void(exit_code = Fail(report.status(), flags.json));
    if (report->commit) *published = fmt::format("commit '{}'", report->commit->id);
    if (flags.json) {
      Json j;
      j["uri"] = *uri;
      j["branch"] = report->branch;
      j["mode"] = std::string(api::LoadModeName(report->mode));
      j["branch_created"] = false;
      auto counts = [](const std::vector<api::TypeCount>& list) {
        Json out = Json::array();
        for (const auto& c : list) out.push_back({{"name", c.name}, {"entities_loaded", c.entities_loaded}});
        return out;
      };
      j["nodes"] = counts(report->nodes);
      j["edges"] = counts(report->edges);
      j["total_entities"] = report->total_entities;
      j["commit"] = report->commit ? CommitJson(*report->commit) : Json(nullptr);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("loaded {} on branch {} with {}: {} entities across {} node types and {} edge types\n",
                               *uri, report->branch, api::LoadModeName(report->mode), report->total_entities,
                               report->nodes.size(), report->edges.size());
    }
  });

  // ---- query / mutate
  auto* query = app.add_subcommand("query", "run a read query");
  auto* mutate = app.add_subcommand("mutate", "run a mutation");
  std::string q_name, q_name_flag, q_file, q_inline, q_params, q_params_file, q_branch = "main", q_snapshot, q_format,
      q_if_commit;
  CLI::Option* query_branch = nullptr;
  // By option, not by value: `-e ''` is an (empty) source, not a missing one.
  std::vector<CLI::Option*> file_options, inline_options;
  for (CLI::App* cmd : {query, mutate}) {
    cmd->add_option("name", q_name, "query name (required when the source holds several)");
    // The spelling the compiler's "pass --name" error names.
    cmd->add_option("--name", q_name_flag, "query name (same as the positional NAME)");
    file_options.push_back(cmd->add_option("--query", q_file, "query file (.gq)"));
    inline_options.push_back(cmd->add_option("-e,--query-string", q_inline, "query source text"));
    cmd->add_option("--params", q_params, "parameters as a JSON object");
    cmd->add_option("--params-file", q_params_file, "file holding the parameters JSON object");
    CLI::Option* branch = cmd->add_option("--branch", q_branch, "branch (default main)");
    if (cmd == query) query_branch = branch;
  }
  // A snapshot names its own branch: giving both is a usage error (exit 2),
  // even when --branch is main.
  // An empty id (an unset shell variable) must not silently mean "none":
  // for --if-commit that would turn a conditional write into an
  // unconditional one.
  const CLI::Validator non_empty_commit_id(
      [](std::string& value) { return value.empty() ? "a commit id must not be empty" : ""; }, "COMMIT");
  query->add_option("--snapshot", q_snapshot, "read the graph as of a commit id")
      ->excludes(query_branch)
      ->check(non_empty_commit_id);
  query->add_option("--format", q_format, "table | kv | csv | jsonl | json");
  mutate->add_option("--if-commit", q_if_commit, "publish only if the branch head is this commit")
      ->check(non_empty_commit_id);
  auto query_source = [&](std::string* source, std::string* file) -> Status {
    if (!q_name_flag.empty()) {
      if (!q_name.empty() && q_name != q_name_flag) return UsageError("pass the query name once: NAME or --name");
      q_name = q_name_flag;
    }
    auto given = [](const std::vector<CLI::Option*>& options) {
      return std::any_of(options.begin(), options.end(), [](const CLI::Option* o) { return o->count() > 0; });
    };
    const bool inline_source = given(inline_options);
    if (given(file_options) == inline_source) {
      return UsageError("pass exactly one of --query FILE or -e/--query-string SOURCE");
    }
    if (inline_source) {
      *source = q_inline;
      *file = "<inline>";
      return Status::OK();
    }
    if (q_file == "-" && q_params_file == "-") {
      return UsageError("standard input can feed only one of --query and --params-file");
    }
    OG_ASSIGN_OR_RETURN(*source, ReadFile(q_file));
    *file = q_file;
    return Status::OK();
  };
  query->callback([&] {
    KeepFreedMemoryForReuse();
    if (Status st = PrepareVerb(&flags, "query", {}); !st.ok()) return void(exit_code = Fail(st));
    std::string source, file;
    Status st = query_source(&source, &file);
    if (!st.ok()) return void(exit_code = Fail(st));
    exec::OutputFormat format = exec::OutputFormat::kTable;
    if (flags.json) {
      format = exec::OutputFormat::kJson;
    } else if (!q_format.empty()) {
      auto parsed = exec::ParseOutputFormat(q_format);
      if (!parsed) {
        std::cerr << "error: --format must be table, kv, csv, jsonl or json\n";
        return void(exit_code = kExitUsage);
      }
      format = *parsed;
    } else if (flags.default_output) {
      format = *flags.default_output;
    }
    auto uri = ResolveUri("", flags);
    if (!uri.ok()) return void(exit_code = Fail(uri.status()));
    auto params = ReadParams(q_params, q_params_file);
    if (!params.ok()) return void(exit_code = Fail(params.status()));
    auto graph = api::Omnigraph::Open(*uri);
    if (!graph.ok()) return void(exit_code = Fail(graph.status(), flags.json));
    api::ReadTarget target;
    target.branch = q_branch;
    if (!q_snapshot.empty()) target.snapshot = q_snapshot;
    auto result = (*graph)->Query(source, file, q_name, *params, target);
    if (!result.ok()) return void(exit_code = Fail(result.status(), flags.json));
    std::cout << exec::FormatResult(*result, format, flags.table);
  });
  mutate->callback([&] {
    if (Status st = PrepareVerb(&flags, "mutate", {.actor = true}); !st.ok()) return void(exit_code = Fail(st));
    std::string source, file;
    Status st = query_source(&source, &file);
    if (!st.ok()) return void(exit_code = Fail(st));
    auto uri = ResolveUri("", flags);
    if (!uri.ok()) return void(exit_code = Fail(uri.status()));
    auto params = ReadParams(q_params, q_params_file);
    if (!params.ok()) return void(exit_code = Fail(params.status()));
    auto graph = api::Omnigraph::Open(*uri);
    if (!graph.ok()) return void(exit_code = Fail(graph.status(), flags.json));
    if (Status st = (*graph)->set_actor(flags.WriteActor().empty() ? std::nullopt
                                                                    : std::optional<std::string>(flags.WriteActor()));
        !st.ok()) {
      return void(exit_code = Fail(st));
    }
    std::optional<std::string> if_commit;
    if (!q_if_commit.empty()) if_commit = q_if_commit;
    auto report = (*graph)->Mutate(source, file, q_name, *params, q_branch, if_commit);
    if (!report.ok()) {
      if (report.status().code() == ErrorCode::kPreconditionFailed) {
        if (flags.json) {
          Json body = {{"expected", report.status().details().count("expected") ? report.status().details().at("expected") : ""},
                       {"actual", report.status().details().count("actual") ? report.status().details().at("actual") : ""}};
          std::cout << body.dump(2) << "\n";
        }
        std::cerr << "error: " << report.status().message() << "\n";
        return void(exit_code = kExitPreconditionFailed);
      }
      return void(exit_code = Fail(report.status(), flags.json));
    }
    if (report->commit) *published = fmt::format("commit '{}'", report->commit->id);
    if (flags.json) {
      Json j;
      j["branch"] = report->branch;
      j["query_name"] = report->query_name;
      j["affected_nodes"] = report->affected_nodes;
      j["affected_edges"] = report->affected_edges;
      j["actor_id"] = flags.WriteActor().empty() ? Json(nullptr) : Json(flags.WriteActor());
      j["commit"] = report->commit ? CommitJson(*report->commit) : Json(nullptr);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("changed {} via {}: {} nodes, {} edges\n", report->branch, report->query_name,
                               report->affected_nodes, report->affected_edges);
      if (!flags.WriteActor().empty()) std::cout << "actor_id: " << flags.WriteActor() << "\n";
    }
  });

  // ---- export
  auto* exp = app.add_subcommand("export", "NDJSON export of a branch");
  std::string export_uri, export_branch = "main";
  std::vector<std::string> export_types;
  bool export_jsonl = false;
  exp->add_option("uri", export_uri, "graph directory");
  exp->add_option("--branch", export_branch, "branch (default main)");
  // One type per --type (repeatable), so a graph URI after it stays the URI.
  exp->add_option("--type", export_types, "only this node/edge type (repeatable)")->allow_extra_args(false);
  exp->add_flag("--jsonl", export_jsonl, "accepted for compatibility (no effect)");
  exp->callback([&] {
    if (Status st = PrepareVerb(&flags, "export", {.json = false}); !st.ok()) return void(exit_code = Fail(st));
    auto graph = OpenGraph(export_uri, flags);
    if (!graph.ok()) return void(exit_code = Fail(graph.status()));
    auto out = (*graph)->Export(export_branch, export_types);
    if (!out.ok()) return void(exit_code = Fail(out.status()));
    std::cout << *out;
  });

  // ---- snapshot
  auto* snap = app.add_subcommand("snapshot", "show the datasets a branch reads");
  std::string snap_uri, snap_branch = "main";
  snap->add_option("uri", snap_uri, "graph directory");
  snap->add_option("--branch", snap_branch, "branch (default main)");
  snap->callback([&] {
    if (Status st = PrepareVerb(&flags, "snapshot", {}); !st.ok()) return void(exit_code = Fail(st));
    auto graph = OpenGraph(snap_uri, flags);
    if (!graph.ok()) return void(exit_code = Fail(graph.status()));
    auto info = (*graph)->Snapshot(snap_branch);
    if (!info.ok()) return void(exit_code = Fail(info.status(), flags.json));
    if (flags.json) {
      Json j;
      j["graph_branch"] = info->graph_branch;
      j["graph_manifest_version"] = info->graph_manifest_version;
      j["internal_schema_version"] = info->internal_schema_version;
      Json datasets = Json::array();
      for (const auto& d : info->datasets) {
        datasets.push_back({{"entity_kind", d.entity_kind},
                            {"type_name", d.type_name},
                            {"dataset_path", d.dataset_path},
                            {"published_dataset_version", d.published_dataset_version},
                            {"native_dataset_branch", nullptr},
                            {"entity_count", d.entity_count}});
      }
      j["datasets"] = datasets;
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << fmt::format("graph_branch: {}\ngraph_manifest_version: {}\ninternal_schema_version: {}\n",
                               info->graph_branch, info->graph_manifest_version, info->internal_schema_version);
      for (const auto& d : info->datasets) {
        std::cout << fmt::format("{} type '{}' published_dataset_version={} native_dataset_branch=main entities={}\n",
                                 d.entity_kind, d.type_name, d.published_dataset_version, d.entity_count);
      }
    }
  });

  // ---- schema show
  auto* schema = app.add_subcommand("schema", "schema commands");
  auto* schema_show = schema->add_subcommand("show", "print the accepted schema");
  schema_show->alias("get");
  std::string schema_uri;
  schema_show->add_option("uri", schema_uri, "graph directory");
  schema_show->callback([&] {
    if (Status st = PrepareVerb(&flags, "schema show", {}); !st.ok()) return void(exit_code = Fail(st));
    auto graph = OpenGraph(schema_uri, flags);
    if (!graph.ok()) return void(exit_code = Fail(graph.status()));
    auto source = (*graph)->SchemaSource();
    if (!source.ok()) return void(exit_code = Fail(source.status(), flags.json));
    if (flags.json) {
      std::cout << Json{{"schema_source", *source}}.dump(2) << "\n";
    } else {
      std::cout << *source;
      if (!source->empty() && source->back() != '\n') std::cout << "\n";
    }
  });
  schema->require_subcommand(1);

  // ---- lint
  auto* lint = app.add_subcommand("lint", "check queries against a schema");
  std::string lint_uri, lint_query, lint_schema;
  lint->add_option("uri", lint_uri, "graph directory (when no --schema)");
  lint->add_option("--query", lint_query, "query file (.gq)")->required();
  lint->add_option("--schema", lint_schema, "schema file (.pg)");
  lint->callback([&] {
    if (Status st = PrepareVerb(&flags, "lint", {}); !st.ok()) return void(exit_code = Fail(st));
    auto queries = ReadFile(lint_query);
    if (!queries.ok()) return void(exit_code = Fail(queries.status()));
    std::string schema_source, schema_file = lint_schema.empty() ? "schema.pg" : lint_schema;
    compiler::LintSchemaSource origin;
    if (!lint_schema.empty()) {
      auto s = ReadFile(lint_schema);
      if (!s.ok()) return void(exit_code = Fail(s.status()));
      schema_source = *s;
      origin = compiler::LintSchemaSource{compiler::LintSchemaSource::Kind::kFile, lint_schema};
    } else {
      auto uri = ResolveUri(lint_uri, flags);
      if (!uri.ok()) return void(exit_code = Fail(uri.status()));
      auto graph = api::Omnigraph::Open(*uri);
      if (!graph.ok()) return void(exit_code = Fail(graph.status()));
      auto s = (*graph)->SchemaSource();
      if (!s.ok()) return void(exit_code = Fail(s.status()));
      schema_source = *s;
      origin = compiler::LintSchemaSource{compiler::LintSchemaSource::Kind::kGraph, *uri};
    }
    auto catalog = compiler::CompileSchema(schema_source, schema_file);
    if (!catalog.ok()) return void(exit_code = Fail(catalog.status()));
    compiler::LintReport report = compiler::LintQueries(*catalog, *queries, lint_query, origin);
    std::cout << (flags.json ? report.ToJson() + "\n" : report.ToHuman());
    exit_code = report.exit_code();
  });

  // ---- commit list / show
  auto* commit = app.add_subcommand("commit", "graph commit history");
  auto* commit_list = commit->add_subcommand("list", "commits reachable from a branch, newest first");
  std::string commit_uri, commit_branch = "main", commit_id;
  commit_list->add_option("uri", commit_uri, "graph directory");
  commit_list->add_option("--branch", commit_branch, "branch (default main)");
  commit_list->callback([&] {
    if (Status st = PrepareVerb(&flags, "commit list", {}); !st.ok()) return void(exit_code = Fail(st));
    auto graph = OpenGraph(commit_uri, flags);
    if (!graph.ok()) return void(exit_code = Fail(graph.status()));
    auto commits = (*graph)->ListCommits(commit_branch);
    if (!commits.ok()) return void(exit_code = Fail(commits.status(), flags.json));
    if (flags.json) {
      Json list = Json::array();
      for (const auto& c : *commits) list.push_back(CommitJson(c));
      std::cout << Json{{"commits", list}}.dump(2) << "\n";
    } else {
      for (const auto& c : *commits) {
        std::cout << fmt::format("{} graph_branch={} graph_manifest_version={}{}\n", c.id,
                                 c.graph_branch.value_or("main"), c.manifest_version,
                                 c.actor_id ? " actor=" + compiler::EscapeForDisplay(*c.actor_id) : "");
      }
    }
  });
  auto* commit_show = commit->add_subcommand("show", "one commit");
  std::string show_uri;
  commit_show->add_option("--uri", show_uri, "graph directory");
  commit_show->add_option("id", commit_id, "graph commit id")->required();
  commit_show->callback([&] {
    if (Status st = PrepareVerb(&flags, "commit show", {}); !st.ok()) return void(exit_code = Fail(st));
    if (show_uri.empty() && flags.store.empty() && flags.default_store.empty() && flags.profile_error.ok()) {
      return void(exit_code = Fail(UsageError("no graph given: pass --uri <graph> or --store <path> (or set "
                                              "defaults.store in the operator config)")));
    }
    auto graph = OpenGraph(show_uri, flags);
    if (!graph.ok()) return void(exit_code = Fail(graph.status()));
    auto c = (*graph)->ShowCommit(commit_id);
    if (!c.ok()) return void(exit_code = Fail(c.status(), flags.json));
    if (flags.json) {
      std::cout << CommitJson(*c).dump(2) << "\n";
    } else {
      std::cout << "graph_commit_id: " << c->id << "\n";
      std::cout << "graph_branch: " << c->graph_branch.value_or("main") << "\n";
      std::cout << "graph_manifest_version: " << c->manifest_version << "\n";
      if (c->parent_id) std::cout << "parent_commit_id: " << *c->parent_id << "\n";
      if (c->merged_parent_id) std::cout << "merged_parent_commit_id: " << *c->merged_parent_id << "\n";
      if (c->actor_id) std::cout << "actor_id: " << compiler::EscapeForDisplay(*c->actor_id) << "\n";
      std::cout << "created_at: " << c->created_at_us << "\n";
    }
  });
  commit->require_subcommand(1);

  // ---- version
  auto* version = app.add_subcommand("version", "print the version");
  version->callback([&] {
    if (Status st = CheckGlobalFlags(flags, "version", {.store = false, .json = false}); !st.ok()) return void(exit_code = Fail(st));
    std::cout << "omnigraph " << kVersion << "\ninternal-schema " << graph::kStorageStamp << "\n";
  });

  bool help_verb = false;
  std::vector<std::string> args = RewriteDeprecatedVerbs(argc, argv, &help_verb);
  const std::vector<std::string> words = args;
  if (std::optional<std::string> flag = RemoteAddressingFlag(words)) {
    std::cerr << "error: " << *flag
              << " addresses a server or cluster, which this build does not reach; address a local graph with a "
                 "path or --store <path>\n";
    return kExitUsage;
  }
  if (help_verb) {
    // --help wins over everything else in CLI11, so a help request for a
    // command that does not exist would print the program's help.
    if (auto unknown = UnknownCommand(&app, words)) {
      std::cerr << "error: unknown command '" << *unknown << "'\nRun with --help or --help-all for more information.\n";
      return kExitUsage;
    }
  }
  try {
    // CLI11 takes the vector form reversed (it pops from the back).
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (auto unknown = UnknownCommand(&app, words)) {
      std::cerr << "error: unknown command '" << *unknown << "'\nRun with --help or --help-all for more information.\n";
    } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
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
  return exit_code;
}

}  // namespace
}  // namespace omnigraph::cli
