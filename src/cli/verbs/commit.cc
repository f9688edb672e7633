// `commit list [URI] [--branch B]` and `commit show [--uri U] ID` (surface
// §5.2; branches.md BR-13.1): the graph's commit history. commit changes,
// publish and drop will join them here.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/verbs/verbs.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

struct CommitListOptions {
  std::string uri;              // positional graph URI
  std::string branch = "main";  // --branch
};

struct CommitShowOptions {
  std::string uri;  // --uri
  std::string id;   // positional graph commit id
};

int RunCommitList(Context& context, const CommitListOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "commit list", {}); !st.ok()) return context.Fail(st);
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto commits = (*graph)->ListCommits(options.branch);
  if (!commits.ok()) return context.Fail(commits.status());
  if (context.flags.json) {
    std::cout << api::wire::CommitListJson(*commits).dump(2) << "\n";
    return kExitOk;
  }
  for (const graph::CommitRecord& commit : *commits) {
    std::cout << fmt::format("{} graph_branch={} graph_manifest_version={}{}\n", commit.id,
                             commit.graph_branch.value_or("main"), commit.manifest_version,
                             commit.actor_id ? " actor=" + compiler::EscapeForDisplay(*commit.actor_id) : "");
  }
  return kExitOk;
}

int RunCommitShow(Context& context, const CommitShowOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "commit show", {}); !st.ok()) return context.Fail(st);
  // The graph is named by --uri here, not positionally (the id is), so the
  // usual "no graph given" message would name the wrong flag.
  if (options.uri.empty() && flags.store.empty() && flags.default_store.empty() && flags.profile_error.ok()) {
    return context.Fail(UsageError("no graph given: pass --uri <graph> or --store <path> (or set "
                                   "defaults.store in the operator config)"));
  }
  auto graph = OpenGraph(options.uri, flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto commit = (*graph)->ShowCommit(options.id);
  if (!commit.ok()) return context.Fail(commit.status());
  if (flags.json) {
    std::cout << api::wire::CommitJson(*commit).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "graph_commit_id: " << commit->id << "\n";
  std::cout << "graph_branch: " << commit->graph_branch.value_or("main") << "\n";
  std::cout << "graph_manifest_version: " << commit->manifest_version << "\n";
  if (commit->parent_id) std::cout << "parent_commit_id: " << *commit->parent_id << "\n";
  if (commit->merged_parent_id) std::cout << "merged_parent_commit_id: " << *commit->merged_parent_id << "\n";
  if (commit->actor_id) std::cout << "actor_id: " << compiler::EscapeForDisplay(*commit->actor_id) << "\n";
  std::cout << "created_at: " << commit->created_at_us << "\n";
  return kExitOk;
}

}  // namespace

void RegisterCommit(CLI::App& app, Context& context) {
  CLI::App* commit = app.add_subcommand("commit", "graph commit history");

  auto list_options = std::make_shared<CommitListOptions>();
  CLI::App* list = commit->add_subcommand("list", "commits reachable from a branch, newest first");
  list->add_option("uri", list_options->uri, "graph directory");
  list->add_option("--branch", list_options->branch, "branch (default main)");
  list->callback([&context, list_options] { context.exit_code = RunCommitList(context, *list_options); });

  auto show_options = std::make_shared<CommitShowOptions>();
  CLI::App* show = commit->add_subcommand("show", "one commit");
  show->add_option("--uri", show_options->uri, "graph directory");
  show->add_option("id", show_options->id, "graph commit id")->required();
  show->callback([&context, show_options] { context.exit_code = RunCommitShow(context, *show_options); });

  RegisterCommitChanges(commit, context);

  commit->require_subcommand(1);
}

}  // namespace omnigraph::cli
