#include "cli/context.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/wire/error_json.h"
#include "cli/operator_config.h"
#include "cluster/serving.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

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
  flags->default_server.clear();
  flags->default_graph.clear();
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
  } else if (profile->second.server) {
    flags->default_server = *profile->second.server;
    flags->default_graph = profile->second.default_graph.value_or("");
  } else if (profile->second.cluster) {
    flags->profile_error = UsageError(fmt::format(
        "profile '{}' addresses a cluster, which data commands cannot reach; address the graph with --store <path> "
        "or --server <url> --graph <id>",
        name));
  } else {
    flags->profile_error = UsageError(fmt::format("profile '{}' names no store", name));
  }
}

// Whether `status`, under --json, also prints its wire error body
// (api/wire/error_json.h) on stdout. Only a lost --if-commit does:
// branches.md BR-8 and surface §5.2 ask for "the whole error body" there.
// Every other error keeps stdout empty (surface §5.4 and §6.1: the message
// goes to stderr), so a --json caller reads either the command's output
// or nothing, and the case scripts that print a failed step's stdout stay
// as they are. ErrorJson renders every kind of error; the server sends it
// for all of them.
bool PrintsErrorBodyOnStdout(const Status& status) { return status.code() == ErrorCode::kPreconditionFailed; }

// The exit code of a failure (surface §5.4).
int ExitCodeOf(const Status& status) {
  if (status.code() == ErrorCode::kPreconditionFailed) return kExitPreconditionFailed;
  auto exit = status.details().find("exit");
  return exit != status.details().end() && exit->second == "usage" ? kExitUsage : kExitError;
}

// The message goes to stderr. Type errors keep their position out of the
// message text (it is part of the contract, compiler/source.h); it is
// printed on a second line here so that every bad query still names file,
// line and column.
int ReportFailure(const Status& st, bool json) {
  if (json && PrintsErrorBodyOnStdout(st)) {
    // The body quotes input (the expected commit id is the caller's), so
    // bytes that are not UTF-8 are replaced rather than failing the dump.
    std::cout << api::wire::ErrorJson(st).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
  }
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
  // A reclaimed pin: BR-7 fixes the message; which table and what is gone
  // follow for the operator.
  if (auto table = details.find("table_key"), cause = details.find("cause");
      st.code() == ErrorCode::kVersionReclaimed && table != details.end() && cause != details.end()) {
    std::cerr << "  table " << table->second << ": " << compiler::EscapeForDisplay(cause->second) << "\n";
  }
  return ExitCodeOf(st);
}

}  // namespace

int Context::Fail(const Status& status) const { return ReportFailure(status, flags.json); }

Status UsageError(std::string message) {
  return Status(ErrorCode::kInvalidArgument, std::move(message), {{"exit", "usage"}});
}

Status CheckGlobalFlags(const GlobalFlags& flags, std::string_view verb, VerbFlags accepts) {
  if (flags.cluster_given && !accepts.cluster) {
    if (accepts.store) {
      return UsageError("--cluster addresses a cluster, which this command does not reach; address a graph with a "
                        "path, --store <path> or --server <url> --graph <id>");
    }
    return UsageError(fmt::format("`{}` does not take --cluster", verb));
  }
  const bool cluster = accepts.cluster && flags.cluster_given;
  if (cluster) {
    if (flags.cluster.empty()) return UsageError("--cluster needs a cluster directory or URI");
    if (!flags.server.empty()) return UsageError("pass either --cluster or --server, not both");
    if (!flags.store.empty()) return UsageError("pass the graph either with --store or with --cluster, not both");
  }
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
  if (!accepts.served && (!flags.server.empty() || (!flags.graph.empty() && !cluster))) {
    const char* flag = !flags.server.empty() ? "--server" : "--graph";
    if (!accepts.store) return UsageError(fmt::format("`{}` addresses no graph; drop {}", verb, flag));
    return UsageError(fmt::format("`{}` works on storage directly and cannot address a server; drop {}", verb, flag));
  }
  if (!flags.server.empty() && !flags.store.empty()) {
    return UsageError("pass the graph either with --store or with --server, not both");
  }
  return Status::OK();
}

Status PrepareVerb(GlobalFlags* flags, std::string_view verb, VerbFlags accepts) {
  OG_RETURN_IF_ERROR(CheckGlobalFlags(*flags, verb, accepts));
  OG_ASSIGN_OR_RETURN(OperatorConfig config, LoadOperatorConfig());
  for (const std::string& warning : config.warnings) std::cerr << "warning: " << warning << "\n";
  if (config.store) flags->default_store = *config.store;
  if (config.server) flags->default_server = *config.server;
  if (config.default_graph) flags->default_graph = *config.default_graph;
  flags->servers = config.servers;
  if (accepts.cluster && flags->cluster_given) {
    if (auto named = config.clusters.find(flags->cluster); named != config.clusters.end()) {
      flags->cluster = named->second;
    }
  }
  if (accepts.store) {
    SelectProfile(config, flags);
    // A profile named on the command line is checked even when an explicit
    // graph wins over it: a mistyped --profile is never silently ignored.
    if (flags->profile_given && !flags->profile_error.ok()) return flags->profile_error;
  }
  if (config.actor) flags->default_actor = *config.actor;
  // Only writes record an actor, so only they are refused a bad one (from
  // --as or the config file).
  // A served write's actor is the one its token authenticates (§5.1).
  if (accepts.actor && !flags->actor.empty() && AddressesServer("", *flags)) {
    return UsageError(fmt::format("--as applies to direct writes; a served `{}` is recorded as the actor its token "
                                  "authenticates",
                                  verb));
  }
  if (accepts.actor && !flags->WriteActor().empty()) {
    if (Status st = api::Omnigraph::ValidateActorId(flags->WriteActor()); !st.ok()) return UsageError(st.message());
  }
  flags->default_output = config.output;
  if (config.table_max_column_width) flags->table.max_column_width = *config.table_max_column_width;
  flags->table.wrap_cells = config.table_cell_wrap;
  return Status::OK();
}

bool AddressesServer(const std::string& positional, const GlobalFlags& flags) {
  if (!flags.server.empty()) return true;
  if (flags.cluster_given) return false;  // a cluster's graph (--cluster --graph)
  if (!positional.empty() || !flags.store.empty() || !flags.default_store.empty()) return false;
  return !flags.default_server.empty() || !flags.graph.empty();
}

const std::string& GivenUri(const std::string& positional, const GlobalFlags& flags) {
  return !positional.empty() ? positional : !flags.store.empty() ? flags.store : flags.default_store;
}

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
    return UsageError(fmt::format("a remote graph must be addressed with --server <url> --graph <id>, not as a "
                                  "positional URI ('{}')",
                                  uri));
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

Result<MaintenanceTarget> ResolveMaintenanceTarget(const std::string& positional, const GlobalFlags& flags) {
  if (!flags.cluster_given) {
    OG_ASSIGN_OR_RETURN(std::string path, ResolveUri(positional, flags));
    return MaintenanceTarget{std::move(path), GivenUri(positional, flags)};
  }
  if (!positional.empty()) {
    return UsageError(fmt::format("pass the graph either as '{}' or with --cluster, not both", positional));
  }
  OG_ASSIGN_OR_RETURN(std::string root, cluster::AppliedGraphRoot(flags.cluster, flags.graph));
  return MaintenanceTarget{root, root};
}

Result<std::string> ClusterConfigDir(const GlobalFlags& flags, const std::string& config) {
  if (!flags.cluster_given) return config.empty() ? std::string(".") : config;
  if (flags.cluster.find("://") != std::string::npos) {
    return UsageError(fmt::format("--cluster '{}' is a storage root; this command reads a cluster config directory "
                                  "(the one holding cluster.yaml)",
                                  flags.cluster));
  }
  if (!config.empty() && config != flags.cluster) {
    return UsageError("pass the cluster either with --cluster or with --config, not both");
  }
  return flags.cluster;
}

Result<std::unique_ptr<api::Omnigraph>> OpenGraph(const std::string& positional, const GlobalFlags& flags) {
  OG_ASSIGN_OR_RETURN(std::string uri, ResolveUri(positional, flags));
  return api::Omnigraph::Open(uri);
}

Status SetWriteActor(api::Omnigraph& graph, const GlobalFlags& flags) {
  return graph.set_actor(flags.WriteActor().empty() ? std::nullopt : std::optional<std::string>(flags.WriteActor()));
}

Status ConfirmDestructive(const GlobalFlags& flags, std::string_view what, const std::string& target) {
  if (flags.yes) return Status::OK();
  if (flags.json || ::isatty(STDIN_FILENO) == 0) {
    return UsageError(fmt::format("{} on {} is destructive: pass --yes to confirm", what, target));
  }
  std::cerr << fmt::format("{} on {}? type yes to confirm: ", what, target);
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "yes" || answer == "y") return Status::OK();
  return InvalidArgument("not confirmed");
}

void EchoWriteTarget(const GlobalFlags& flags, std::string_view verb, const std::string& uri, bool served) {
  if (flags.quiet) return;
  std::cerr << fmt::format("omnigraph {} → {} ({})\n", verb, uri, served ? "served" : "direct, local");
}

}  // namespace omnigraph::cli
