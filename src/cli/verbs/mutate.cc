// `mutate [NAME] (--query FILE | -e GQ) [--params …] [--branch B]
// [--if-commit ID]` (surface §3, §5.2): runs a mutation, one atomic commit.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/input.h"
#include "cli/verbs/query_source.h"
#include "cli/verbs/verbs.h"
#include "graph/branches.h"

namespace omnigraph::cli {
namespace {

struct MutateOptions {
  QuerySourceOptions source;
  std::string if_commit;  // --if-commit: publish only while the head is this commit
};

int RunMutate(Context& context, const MutateOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "mutate", {.actor = true}); !st.ok()) return context.Fail(st);
  auto request = ResolveQueryRequest(options.source);
  if (!request.ok()) return context.Fail(request.status());
  auto uri = ResolveUri("", flags);
  if (!uri.ok()) return context.Fail(uri.status());
  auto params = ReadParams(options.source.params, options.source.params_file);
  if (!params.ok()) return context.Fail(params.status());
  auto graph = api::Omnigraph::Open(*uri);
  if (!graph.ok()) return context.Fail(graph.status());
  if (Status st = SetWriteActor(**graph, flags); !st.ok()) return context.Fail(st);
  std::optional<std::string> if_commit;
  if (!options.if_commit.empty()) if_commit = options.if_commit;
  // No --branch is "not given" (main, or an unattached parent's target);
  // a given but empty one is a bad name, not that.
  const bool branch_given = options.source.branch_option->count() > 0;
  if (branch_given) {
    if (Status st = graph::CheckPublicBranchName(graph::TrimBranchName(options.source.branch), "mutate"); !st.ok()) {
      return context.Fail(st);
    }
  }
  auto report = (*graph)->Mutate(request->source, request->source_file, request->name, *params,
                                 branch_given ? options.source.branch : std::string(), if_commit);
  // A lost --if-commit exits 4 with its error body (Context::Fail).
  if (!report.ok()) return context.Fail(report.status());
  if (report->commit) context.published = fmt::format("commit '{}'", report->commit->id);
  if (flags.json) {
    std::cout << api::wire::MutationReportJson(*report, (*graph)->actor()).dump(2) << "\n";
  } else {
    std::cout << fmt::format("changed {} via {}: {} nodes, {} edges\n", report->branch, report->query_name,
                             report->affected_nodes, report->affected_edges);
    if (!flags.WriteActor().empty()) std::cout << "actor_id: " << flags.WriteActor() << "\n";
    // BR-11.1, BR-12.2: a proposal says so.
    if (report->commit && report->unattached_root) {
      std::cout << fmt::format("unattached snapshot: {} (root {})\n", report->commit->id, *report->unattached_root);
    } else if (report->commit && !report->published) {
      std::cout << fmt::format("unpublished commit: {}\n", report->commit->id);
    }
  }
  return kExitOk;
}

}  // namespace

void RegisterMutate(CLI::App& app, Context& context) {
  auto options = std::make_shared<MutateOptions>();
  CLI::App* mutate = app.add_subcommand("mutate", "run a mutation");
  AddQuerySourceOptions(mutate, &options->source);
  mutate->add_option("--if-commit", options->if_commit, "publish only if the branch head is this commit")
      ->check(NonEmptyCommitId());
  mutate->callback([&context, options] { context.exit_code = RunMutate(context, *options); });
}

}  // namespace omnigraph::cli
