// `optimize [URI]` and `repair [URI]` (surface §5.2; engine.md §8.1, §8.3):
// compaction of main's tables in at most one commit, and the read-only
// drift report.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct MaintenanceOptions {
  std::string uri;  // positional graph URI
};

int RunOptimize(Context& context, const MaintenanceOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "optimize", {.actor = true, .cluster = true}); !st.ok()) return context.Fail(st);
  auto target = ResolveMaintenanceTarget(options.uri, flags);
  if (!target.ok()) return context.Fail(target.status());
  EchoWriteTarget(flags, "optimize", target->path);
  auto graph = api::Omnigraph::Open(target->path);
  if (!graph.ok()) return context.Fail(graph.status());
  if (Status st = SetWriteActor(**graph, flags); !st.ok()) return context.Fail(st);
  auto result = (*graph)->Optimize();
  if (!result.ok()) return context.Fail(result.status());
  if (result->commit) context.published = fmt::format("commit '{}'", result->commit->id);
  const std::string& given = target->shown;
  if (flags.json) {
    std::cout << api::wire::OptimizeJson(given, *result).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("optimize {} — {} datasets\n", given, result->tables.size());
  for (const exec::OptimizeTableStats& t : result->tables) {
    if (t.skipped) {
      std::cout << fmt::format("  {}: skipped ({})\n", t.type_key, *t.skipped);
    } else if (t.committed) {
      std::cout << fmt::format("  {}: frags {} → {} ✓\n", t.type_key, t.fragments_removed, t.fragments_added);
    } else {
      std::cout << fmt::format("  {}: no-op\n", t.type_key);
    }
    for (const exec::PendingIndex& p : t.pending_indexes) {
      std::cout << fmt::format("    ↳ index pending on property '{}': {}\n", p.property, p.reason);
    }
  }
  return kExitOk;
}

int RunRepair(Context& context, const MaintenanceOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "repair", {.cluster = true}); !st.ok()) return context.Fail(st);
  auto target = ResolveMaintenanceTarget(options.uri, flags);
  if (!target.ok()) return context.Fail(target.status());
  auto graph = api::Omnigraph::Open(target->path);
  if (!graph.ok()) return context.Fail(graph.status());
  auto tables = (*graph)->Repair();
  if (!tables.ok()) return context.Fail(tables.status());
  if (flags.json) {
    std::cout << api::wire::RepairJson(target->shown, *tables).dump(2) << "\n";
    return kExitOk;
  }
  // Foreign drift is reported, never adopted: the exit code stays 0.
  for (const exec::TableDrift& t : *tables) {
    std::cout << fmt::format("{}: {} (last_linear_version={} lance_head_version={})\n", t.type_key,
                             exec::DriftClassName(t.classification), t.last_linear_version, t.lance_head_version);
  }
  return kExitOk;
}

}  // namespace

void RegisterOptimize(CLI::App& app, Context& context) {
  auto options = std::make_shared<MaintenanceOptions>();
  CLI::App* optimize = app.add_subcommand("optimize", "compact main's tables (non-destructive)");
  optimize->add_option("uri", options->uri, "graph directory");
  optimize->callback([&context, options] { context.exit_code = RunOptimize(context, *options); });
}

void RegisterRepair(CLI::App& app, Context& context) {
  auto options = std::make_shared<MaintenanceOptions>();
  CLI::App* repair = app.add_subcommand("repair", "report tables with foreign linear commits (read-only)");
  repair->add_option("uri", options->uri, "graph directory");
  repair->callback([&context, options] { context.exit_code = RunRepair(context, *options); });
}

}  // namespace omnigraph::cli
