// `load [URI] --data FILE --mode overwrite|append|merge [--branch B [--from BASE]]`
// (surface §4, §5.2): a strict NDJSON load, one atomic commit; and the
// hidden, deprecated `ingest [URI] --data FILE [--branch B] [--from BASE]
// [--mode MODE]` (§4.6), the same load of loader-compatible records.
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/input.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"
#include "cli/wire_view.h"

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

struct LoadOptions {
  std::string uri;              // positional graph URI
  std::string data;             // --data: the NDJSON file ("-" is stdin)
  std::string mode;             // --mode
  std::string branch = "main";  // --branch
  std::string from;             // --from: create a missing --branch from this branch
};

// Prints a load's outcome from its wire form (LoadOutput), local or served
// alike.
void PrintLoad(const nlohmann::ordered_json& report, bool json) {
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("loaded {} on branch {} with {}: {} entities across {} node types and {} edge types\n",
                           Text(report, "uri"), Text(report, "branch"),
                           Text(report, "mode"), Member(report, "total_entities").dump(),
                           Member(report, "nodes").size(), Member(report, "edges").size());
}

// The served half of `load` and `ingest`: opens the server's graph, reads
// the file, asks for --yes before an overwrite (destructive on a server,
// §5.1), echoes the target (`verb`), sends the file with `send` and records
// the published commit on `context`. Errors: those of RemoteGraph::Open,
// ReadFile, ConfirmDestructive and `send`.
Result<nlohmann::ordered_json> LoadServed(
    Context& context, std::string_view verb, const std::string& uri, const std::string& data_path,
    const std::string& mode,
    const std::function<Result<nlohmann::ordered_json>(remote::RemoteGraph&, const std::string&)>& send) {
  GlobalFlags& flags = context.flags;
  OG_ASSIGN_OR_RETURN(remote::RemoteGraph graph, remote::RemoteGraph::Open(flags, uri));
  OG_ASSIGN_OR_RETURN(std::string data, ReadFile(data_path));
  if (mode == "overwrite") {
    OG_RETURN_IF_ERROR(ConfirmDestructive(flags, fmt::format("{} --mode overwrite", verb), graph.url()));
  }
  EchoWriteTarget(flags, std::string(verb), graph.url(), /*served=*/true);
  auto report = send(graph, data);
  if (report.ok() && Member(*report, "commit").is_object()) {
    context.published = fmt::format("commit '{}'", Text(Member(*report, "commit"), "graph_commit_id"));
  }
  return report;
}

// The load on a server (§5.1): POST /load/ndjson with the file as the
// body; an overwrite is destructive there and needs --yes.
int RunServedLoad(Context& context, const LoadOptions& options) {
  std::optional<std::string> from;
  if (!options.from.empty()) from = options.from;
  auto report = LoadServed(context, "load", options.uri, options.data, options.mode,
                           [&](remote::RemoteGraph& graph, const std::string& data) {
                             return graph.Load(data, options.mode, options.branch, from);
                           });
  if (!report.ok()) return context.Fail(remote::WithSourceName(report.status(), options.data, "<request body>"));
  PrintLoad(*report, context.flags.json);
  return kExitOk;
}

// The local half of `load` and `ingest`: resolves the graph, reads the
// file, echoes the write target (`verb`), opens the graph as the write
// actor and loads with `syntax`, drawing progress. Sets `*uri` to the
// resolved graph and records the published commit on `context`. Errors:
// those of ResolveUri, ReadFile, Open, SetWriteActor and Omnigraph::Load.
Result<api::LoadReport> LoadLocally(Context& context, std::string_view verb, const std::string& uri_argument,
                                    const std::string& data_path, api::LoadMode mode, const std::string& branch,
                                    const std::optional<std::string>& create_from, exec::LoadSyntax syntax,
                                    std::string* uri) {
  OG_ASSIGN_OR_RETURN(*uri, ResolveUri(uri_argument, context.flags));
  OG_ASSIGN_OR_RETURN(std::string data, ReadFile(data_path));
  EchoWriteTarget(context.flags, std::string(verb), *uri);
  OG_ASSIGN_OR_RETURN(auto graph, api::Omnigraph::Open(*uri));
  OG_RETURN_IF_ERROR(SetWriteActor(*graph, context.flags));
  LoadProgressBar bar(data);
  auto report = graph->Load(data, data_path, mode, branch, bar.callback(), create_from, syntax);
  bar.Finish();
  if (report.ok() && report->commit) context.published = fmt::format("commit '{}'", report->commit->id);
  return report;
}

int RunLoad(Context& context, const LoadOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "load", {.actor = true, .yes = true, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  auto mode = api::ParseLoadMode(options.mode);
  if (!mode) {
    std::cerr << "error: --mode must be overwrite, append or merge\n";
    return kExitUsage;
  }
  if (AddressesServer(options.uri, flags)) return RunServedLoad(context, options);
  std::optional<std::string> create_from;
  if (!options.from.empty()) create_from = options.from;
  std::string uri;
  auto report = LoadLocally(context, "load", options.uri, options.data, *mode, options.branch, create_from,
                            exec::LoadSyntax::kStrict, &uri);
  if (!report.ok()) return context.Fail(report.status());
  PrintLoad(api::wire::LoadReportJson(*report, uri), flags.json);
  return kExitOk;
}

struct IngestOptions {
  std::string uri;              // positional graph URI
  std::string data;             // --data: the records ("-" is stdin)
  std::string mode = "merge";   // --mode
  std::string branch = "main";  // --branch
  std::string from = "main";    // --from: create a missing --branch from this branch
};

// Prints an ingest's outcome from its wire form (IngestOutput: LoadOutput
// and base_branch), local or served alike (surface §5.2 `ingest`):
// "ingested N entities from <uri> into branch B from BASE with MODE
// (branch created|branch exists)", then "  <node|edge> <Type>: <N>" per
// type, nodes first, each sorted by name.
void PrintIngest(const nlohmann::ordered_json& report, const std::string& base, bool json) {
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  const bool created = Flag(report, "branch_created", false);
  std::cout << fmt::format("ingested {} entities from {} into branch {} from {} with {} ({})\n",
                           Member(report, "total_entities").dump(), Text(report, "uri"), Text(report, "branch"), base,
                           Text(report, "mode"), created ? "branch created" : "branch exists");
  for (std::string_view kind : {"nodes", "edges"}) {
    const nlohmann::ordered_json& types = Member(report, kind);
    if (!types.is_array()) continue;
    for (const nlohmann::ordered_json& type : types) {
      std::cout << fmt::format("  {} {}: {}\n", kind == "nodes" ? "node" : "edge", Text(type, "name"),
                               Member(type, "entities_loaded").dump());
    }
  }
}

// The ingest on a server: POST /ingest with the JSON envelope.
int RunServedIngest(Context& context, const IngestOptions& options) {
  auto report = LoadServed(context, "ingest", options.uri, options.data, options.mode,
                           [&](remote::RemoteGraph& graph, const std::string& data) {
                             return graph.Ingest(data, options.mode, options.branch, options.from);
                           });
  if (!report.ok()) return context.Fail(report.status());
  PrintIngest(*report, options.from, context.flags.json);
  return kExitOk;
}

int RunIngest(Context& context, const IngestOptions& options) {
  GlobalFlags& flags = context.flags;
  std::cerr << "warning: `ingest` is deprecated; use `load` (strict NDJSON)\n";
  if (Status st = PrepareVerb(&flags, "ingest", {.actor = true, .yes = true, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  auto mode = api::ParseLoadMode(options.mode);
  if (!mode) {
    std::cerr << "error: --mode must be overwrite, append or merge\n";
    return kExitUsage;
  }
  if (AddressesServer(options.uri, flags)) return RunServedIngest(context, options);
  std::string uri;
  auto report = LoadLocally(context, "ingest", options.uri, options.data, *mode, options.branch, options.from,
                            exec::LoadSyntax::kLegacy, &uri);
  if (!report.ok()) return context.Fail(report.status());
  nlohmann::ordered_json wire = api::wire::LoadReportJson(*report, uri);
  wire["base_branch"] = options.from;
  PrintIngest(wire, options.from, flags.json);
  return kExitOk;
}

}  // namespace

void RegisterIngest(CLI::App& app, Context& context) {
  auto options = std::make_shared<IngestOptions>();
  // Hidden from --help (an empty group): deprecated in favour of `load`.
  CLI::App* ingest = app.add_subcommand("ingest", "deprecated: loader-compatible load (use load)")->group("");
  ingest->add_option("uri", options->uri, "graph directory");
  ingest->add_option("--data", options->data, "records: JSON values separated by whitespace")->required();
  ingest->add_option("--mode", options->mode, "overwrite | append | merge (default merge)");
  ingest->add_option("--branch", options->branch, "target branch (default main)");
  ingest->add_option("--from", options->from, "create a missing --branch from this branch (default main)");
  ingest->callback([&context, options] { context.exit_code = RunIngest(context, *options); });
}

void RegisterLoad(CLI::App& app, Context& context) {
  auto options = std::make_shared<LoadOptions>();
  CLI::App* load = app.add_subcommand("load", "strict NDJSON load (one atomic commit)");
  load->add_option("uri", options->uri, "graph directory");
  load->add_option("--data", options->data, "NDJSON file")->required();
  load->add_option("--mode", options->mode, "overwrite | append | merge")->required();
  load->add_option("--branch", options->branch, "target branch (default main)");
  load->add_option("--from", options->from, "create a missing --branch from this branch first");
  load->callback([&context, options] { context.exit_code = RunLoad(context, *options); });
}

}  // namespace omnigraph::cli
