// `commit list [URI] [--branch B] [--unpublished]`, `commit show [--uri U]
// ID`, `commit publish [--uri U] ID` and `commit drop [--uri U] ID`
// (surface §5.2; branches.md BR-6, BR-11, BR-12, BR-13.1): the graph's
// commit history and its unpublished commits and unattached snapshots.
// `commit changes` is in changes.cc.
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"
#include "cli/wire_view.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

struct CommitListOptions {
  std::string uri;              // positional graph URI
  std::string branch = "main";  // --branch
  bool unpublished = false;     // --unpublished: live proposals instead (BR-11.5)
};

// `commit publish` and `commit drop`: the id names the commit, --uri the graph.
struct CommitIdOptions {
  std::string uri;  // --uri
  std::string id;   // positional graph commit id
};

// The one-line form of a commit in `commit list` (BR-6.1, BR-11.5).
std::string CommitLine(const graph::CommitRecord& commit) {
  return fmt::format("{} graph_branch={} graph_manifest_version={}{}", commit.id, commit.graph_branch.value_or("main"),
                     commit.manifest_version,
                     commit.actor_id ? " actor=" + compiler::EscapeForDisplay(*commit.actor_id) : "");
}

using Json = nlohmann::ordered_json;

// The one-line form of a commit's wire form (CommitOutput), as CommitLine.
std::string CommitLine(const Json& commit) {
  return fmt::format("{} graph_branch={} graph_manifest_version={}{}", Text(commit, "graph_commit_id"),
                     Member(commit, "graph_branch").is_string() ? Text(commit, "graph_branch") : "main",
                     Member(commit, "graph_manifest_version").dump(),
                     Member(commit, "actor_id").is_string()
                         ? " actor=" + compiler::EscapeForDisplay(Text(commit, "actor_id"))
                         : "");
}

// `commit list` from its wire form ({commits}), local or served alike.
void PrintCommitList(const Json& list, bool json) {
  if (json) {
    std::cout << list.dump(2) << "\n";
    return;
  }
  for (const Json& commit : Member(list, "commits")) std::cout << CommitLine(commit) << "\n";
}

// `commit show` from its wire form (CommitOutput), local or served alike.
void PrintCommitShow(const Json& commit, bool json) {
  if (json) {
    std::cout << commit.dump(2) << "\n";
    return;
  }
  auto optional = [&](const char* key, const char* label) {
    if (Member(commit, key).is_string()) std::cout << label << Text(commit, key) << "\n";
  };
  std::cout << "graph_commit_id: " << Text(commit, "graph_commit_id") << "\n";
  std::cout << "graph_branch: "
            << (Member(commit, "graph_branch").is_string() ? Text(commit, "graph_branch") : "main") << "\n";
  std::cout << "graph_manifest_version: " << Member(commit, "graph_manifest_version").dump() << "\n";
  optional("parent_commit_id", "parent_commit_id: ");
  optional("merged_parent_commit_id", "merged_parent_commit_id: ");
  if (Member(commit, "actor_id").is_string()) {
    std::cout << "actor_id: " << compiler::EscapeForDisplay(Text(commit, "actor_id")) << "\n";
  }
  std::cout << "created_at: " << Member(commit, "created_at").dump() << "\n";
  if (Flag(commit, "published", true) == false) std::cout << "published: false\n";
  optional("unattached_root", "unattached_root: ");
}

// The graph of a verb whose positional argument is a commit id.
Result<std::unique_ptr<api::Omnigraph>> OpenByUri(Context& context, const std::string& uri) {
  GlobalFlags& flags = context.flags;
  if (uri.empty() && flags.store.empty() && flags.default_store.empty() && flags.profile_error.ok()) {
    return UsageError("no graph given: pass --uri <graph> or --store <path> (or set defaults.store in the operator "
                      "config)");
  }
  return OpenGraph(uri, flags);
}

struct CommitShowOptions {
  std::string uri;  // --uri
  std::string id;   // positional graph commit id
};

int RunCommitList(Context& context, const CommitListOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "commit list", {.served = true}); !st.ok()) return context.Fail(st);
  if (AddressesServer(options.uri, context.flags)) {
    if (options.unpublished) {
      return context.Fail(UsageError("--unpublished is not served; address the graph with --store"));
    }
    auto graph = remote::RemoteGraph::Open(context.flags, options.uri);
    if (!graph.ok()) return context.Fail(graph.status());
    auto list = graph->CommitList(options.branch);
    if (!list.ok()) return context.Fail(list.status());
    PrintCommitList(*list, context.flags.json);
    return kExitOk;
  }
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  if (options.unpublished) {
    auto views = (*graph)->ListUnpublished(options.branch);
    if (!views.ok()) return context.Fail(views.status());
    if (context.flags.json) {
      std::cout << api::wire::CommitViewListJson(*views).dump(2) << "\n";
      return kExitOk;
    }
    for (const exec::CommitView& view : *views) {
      std::cout << CommitLine(view.commit) << " published=false"
                << (view.unattached_root ? " unattached_root=" + *view.unattached_root : "") << "\n";
    }
    return kExitOk;
  }
  auto commits = (*graph)->ListCommits(options.branch);
  if (!commits.ok()) return context.Fail(commits.status());
  PrintCommitList(api::wire::CommitListJson(*commits), context.flags.json);
  return kExitOk;
}

int RunCommitShow(Context& context, const CommitShowOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "commit show", {.served = true}); !st.ok()) return context.Fail(st);
  if (AddressesServer(options.uri, flags)) {
    auto graph = remote::RemoteGraph::Open(flags, options.uri);
    if (!graph.ok()) return context.Fail(graph.status());
    auto commit = graph->CommitShow(options.id);
    if (!commit.ok()) return context.Fail(commit.status());
    PrintCommitShow(*commit, flags.json);
    return kExitOk;
  }
  // The graph is named by --uri here, not positionally (the id is), so the
  // usual "no graph given" message would name the wrong flag.
  if (options.uri.empty() && flags.store.empty() && flags.default_store.empty() && flags.profile_error.ok()) {
    return context.Fail(UsageError("no graph given: pass --uri <graph> or --store <path> (or set "
                                   "defaults.store in the operator config)"));
  }
  auto graph = OpenGraph(options.uri, flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto view = (*graph)->DescribeCommit(options.id);
  if (!view.ok()) return context.Fail(view.status());
  PrintCommitShow(api::wire::CommitViewJson(*view), flags.json);
  return kExitOk;
}

int RunCommitPublish(Context& context, const CommitIdOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "commit publish", {}); !st.ok()) return context.Fail(st);
  auto graph = OpenByUri(context, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  // A moved head exits 4 with its precondition_failure body (Context::Fail).
  auto view = (*graph)->CommitPublish(options.id);
  if (!view.ok()) return context.Fail(view.status());
  context.published = fmt::format("commit '{}'", view->commit.id);
  if (context.flags.json) {
    std::cout << api::wire::CommitViewJson(*view).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("published commit {} on branch {}\n", view->commit.id,
                           compiler::EscapeForDisplay(view->commit.graph_branch.value_or("main")));
  return kExitOk;
}

int RunCommitDrop(Context& context, const CommitIdOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "commit drop", {}); !st.ok()) return context.Fail(st);
  auto graph = OpenByUri(context, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  auto dropped = (*graph)->CommitDrop(options.id);
  if (!dropped.ok()) return context.Fail(dropped.status());
  if (context.flags.json) {
    std::cout << api::wire::CommitDropJson(options.id, *dropped).dump(2) << "\n";
    return kExitOk;
  }
  for (const std::string& id : *dropped) std::cout << "dropped commit " << id << "\n";
  return kExitOk;
}

}  // namespace

void RegisterCommit(CLI::App& app, Context& context) {
  CLI::App* commit = app.add_subcommand("commit", "graph commit history");

  auto list_options = std::make_shared<CommitListOptions>();
  CLI::App* list = commit->add_subcommand("list", "commits reachable from a branch, newest first");
  list->add_option("uri", list_options->uri, "graph directory");
  list->add_option("--branch", list_options->branch, "branch (default main)");
  list->add_flag("--unpublished", list_options->unpublished,
                 "list the branch's live unpublished commits and unattached snapshots instead");
  list->callback([&context, list_options] { context.exit_code = RunCommitList(context, *list_options); });

  auto show_options = std::make_shared<CommitShowOptions>();
  CLI::App* show = commit->add_subcommand("show", "one commit");
  show->add_option("--uri", show_options->uri, "graph directory");
  show->add_option("id", show_options->id, "graph commit id")->required();
  show->callback([&context, show_options] { context.exit_code = RunCommitShow(context, *show_options); });

  auto publish_options = std::make_shared<CommitIdOptions>();
  CLI::App* publish = commit->add_subcommand("publish", "publish an unpublished commit on its branch");
  publish->add_option("--uri", publish_options->uri, "graph directory");
  publish->add_option("id", publish_options->id, "unpublished commit id")->required();
  publish->callback([&context, publish_options] { context.exit_code = RunCommitPublish(context, *publish_options); });

  auto drop_options = std::make_shared<CommitIdOptions>();
  CLI::App* drop = commit->add_subcommand("drop", "drop an unpublished commit or an unattached snapshot's subtree");
  drop->add_option("--uri", drop_options->uri, "graph directory");
  drop->add_option("id", drop_options->id, "unpublished commit or unattached snapshot id")->required();
  drop->callback([&context, drop_options] { context.exit_code = RunCommitDrop(context, *drop_options); });

  RegisterCommitChanges(commit, context);

  commit->require_subcommand(1);
}

}  // namespace omnigraph::cli
