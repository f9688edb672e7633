// What every verb of the `omnigraph` CLI shares while one command line runs
// (spec/surface.md §5): the global flags, the operator config they fall back
// on, how a verb finds its graph, and how a failure becomes an exit code.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/omnigraph.h"
#include "exec/result_format.h"
#include "util/status.h"

namespace omnigraph::cli {

// Exit codes (surface §5.4).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPreconditionFailed = 4;

// The global flags of §5.1, and the operator-config values (§5.5) that
// stand in for them when the command line is silent.
struct GlobalFlags {
  std::string store;
  std::string server;  // --server NAME|URL (§5.1)
  std::string graph;   // --graph ID: the graph on that server, or of the cluster (--cluster)
  // --cluster DIR|URI (§5.1): a cluster root (a name of clusters.<name> in
  // the operator config becomes its root when the verb is prepared).
  std::string cluster;
  bool cluster_given = false;  // --cluster was on the command line (even empty)
  std::string profile;         // --profile
  bool profile_given = false;  // --profile was on the command line (even empty)
  bool json = false;
  bool quiet = false;
  bool yes = false;
  std::string actor;
  // From the operator config (§5.5), each used only when the command line
  // does not say otherwise. default_store is the selected profile's store
  // when a profile is selected, else defaults.store.
  std::string default_store;
  // The server and graph a command addresses when the command line names
  // no graph: the selected profile's server and default_graph when a
  // profile is selected, else defaults.server and defaults.default_graph.
  std::string default_server;
  std::string default_graph;
  // servers.<name>.url of the operator config, by name.
  std::map<std::string, std::string> servers;
  // Why the selected profile (--profile, else $OMNIGRAPH_PROFILE) cannot
  // address a graph; reported only when a command would use it.
  Status profile_error;
  std::string default_actor;
  std::optional<exec::OutputFormat> default_output;
  exec::TableOptions table;

  // The actor recorded on a write's commits: --as, else operator.actor.
  const std::string& WriteActor() const { return actor.empty() ? default_actor : actor; }
};

// The global flags a verb can use (§5.1: a flag a verb cannot use fails
// loudly). --quiet only silences the write-target line and is harmless
// everywhere.
struct VerbFlags {
  bool store = true;   // addresses a graph
  bool json = true;    // has a JSON form of its output
  bool actor = false;  // makes commits that record an actor (--as)
  bool yes = false;    // can be destructive (--yes)
  bool served = false; // can address a graph on a server (--server, --graph): capability `any`
  // takes --cluster (§5.1: optimize, repair, cleanup, lint, policy,
  // queries), with --graph selecting one of its graphs
  bool cluster = false;
};

// One command line's state, shared by the verb that runs and the code that
// parsed it. Verbs keep a reference to it in their CLI11 callbacks.
struct Context {
  GlobalFlags flags;
  // The exit code of the verb that ran (kExitOk until one fails).
  int exit_code = kExitOk;
  // What a write verb made durable before writing its confirmation
  // ("commit '<id>'", "graph '<uri>'"); see RunResult::published.
  std::string published;

  // Prints `status` on stderr (control characters escaped, a located
  // error's position on a second line, an indeterminate publication's
  // advice) and returns its exit code: kExitPreconditionFailed for a lost
  // precondition, kExitUsage for a UsageError, else kExitError. With
  // --json, a lost precondition also prints its whole wire error body on
  // stdout (branches.md BR-8); other errors print nothing there.
  int Fail(const Status& status) const;
};

// A command-line usage error (conflicting or missing options): exit code 2
// instead of 1 (§5.4).
Status UsageError(std::string message);

// Refuses a global flag `verb` cannot use (`accepts`), as a UsageError
// naming the verb and the flag.
Status CheckGlobalFlags(const GlobalFlags& flags, std::string_view verb, VerbFlags accepts);

// Checks the verb's global flags, then reads the operator config into
// `flags` (defaults, the selected profile, the actor, output and table
// options) and prints its warnings on stderr. Errors: as CheckGlobalFlags
// and LoadOperatorConfig; UsageError for a --profile this build cannot use
// and for an invalid actor on a write.
Status PrepareVerb(GlobalFlags* flags, std::string_view verb, VerbFlags accepts);

// The graph a command addresses as the user spelled it: the positional
// URI, else --store, else the selected profile's store, else the operator
// config's defaults.store.
const std::string& GivenUri(const std::string& positional, const GlobalFlags& flags);

// The graph a command addresses (GivenUri), as a local path. Errors:
// UsageError when none is given, when both a positional URI and --store
// are, when the selected profile cannot address a graph, or for an
// http(s) URI (a served graph is addressed with --server/--graph, §5.1);
// Unsupported for another scheme.
Result<std::string> ResolveUri(const std::string& positional, const GlobalFlags& flags);

// Whether the command addresses a graph on a server (§5.1) rather than
// storage: --server is given, or no positional URI, --store or store
// default is, and --graph, the selected profile or defaults.server names
// a server. A store default (defaults.store, a profile's store) wins over
// defaults.server; a profile replaces both defaults.
bool AddressesServer(const std::string& positional, const GlobalFlags& flags);

// The graph a maintenance verb (optimize, repair, cleanup, lint)
// addresses: with --cluster, the graph --graph selects (else the cluster's
// only graph) as the cluster's applied state records it
// (cluster::AppliedGraphRoot), else ResolveUri. `path` is the local path
// to open, `shown` the graph as the verb's output names it (the given URI;
// with --cluster, the graph's root). Errors: UsageError for --cluster
// with a positional URI; as AppliedGraphRoot and ResolveUri.
struct MaintenanceTarget {
  std::string path;
  std::string shown;
};
Result<MaintenanceTarget> ResolveMaintenanceTarget(const std::string& positional, const GlobalFlags& flags);

// The cluster config directory a control verb (policy, queries) reads:
// --cluster (a directory, a clusters.<name> already made its root), else
// `config` (the verb's --config), else ".". Errors: UsageError when
// --cluster and --config name different directories, and for a --cluster
// URI (these verbs read cluster.yaml and its files, which a storage root
// does not hold).
Result<std::string> ClusterConfigDir(const GlobalFlags& flags, const std::string& config);

// Opens the graph a command addresses (ResolveUri, then Omnigraph::Open).
Result<std::unique_ptr<api::Omnigraph>> OpenGraph(const std::string& positional, const GlobalFlags& flags);

// Gives `graph` the actor a write records (GlobalFlags::WriteActor), none
// when it is empty. Errors: as Omnigraph::set_actor.
Status SetWriteActor(api::Omnigraph& graph, const GlobalFlags& flags);

// Consent to a destructive write against a non-local target (§5.1): OK
// with --yes, or when the user types `yes`/`y` at the prompt on a
// terminal. Errors: UsageError without --yes when stdin is no terminal or
// under --json; InvalidArgument "not confirmed" for another answer.
// `what` names the write ("branch delete"), `target` the graph.
Status ConfirmDestructive(const GlobalFlags& flags, std::string_view what, const std::string& target);

// The stderr line a write verb prints before it writes (§5.1), unless
// --quiet: "omnigraph <verb> → <uri> (direct, local)", or with `served`
// "omnigraph <verb> → <url> (served)".
void EchoWriteTarget(const GlobalFlags& flags, std::string_view verb, const std::string& uri, bool served = false);

}  // namespace omnigraph::cli
