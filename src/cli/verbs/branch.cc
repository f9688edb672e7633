// `branch create [--uri U] [--from B] NAME`, `branch list [--uri U]`,
// `branch delete [--uri U] NAME` and `branch merge [--uri U] SOURCE
// [--into T] [--delete-branch] [--as-commit]` (spec/branches.md BR-3, BR-9, BR-13.1).
#include <iostream>
#include <functional>
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

struct BranchCreateOptions {
  std::string uri;            // --uri
  std::string from = "main";  // --from
  std::string name;           // positional
};

struct BranchListOptions {
  std::string uri;  // --uri
};

struct BranchDeleteOptions {
  std::string uri;   // --uri
  std::string name;  // positional
};

struct BranchMergeOptions {
  std::string uri;            // --uri
  std::string source;         // positional
  std::string into = "main";  // --into
  bool delete_branch = false;
  bool as_commit = false;     // --as-commit (BR-11.1)
};

using Json = nlohmann::ordered_json;

// The output of each branch verb from its wire form (api/wire), local or
// served alike.
void PrintBranchCreate(const Json& report, bool json) {
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("created branch {} from {}\n", compiler::EscapeForDisplay(Text(report, "name")),
                           compiler::EscapeForDisplay(Text(report, "from")));
}

void PrintBranchList(const Json& list, bool json) {
  if (json) {
    std::cout << list.dump(2) << "\n";
    return;
  }
  for (const auto& name : Member(list, "branches")) {
    std::cout << compiler::EscapeForDisplay(name.is_string() ? name.get<std::string>() : std::string()) << "\n";
  }
}

void PrintBranchDelete(const Json& report, bool json) {
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("deleted branch {}\n", compiler::EscapeForDisplay(Text(report, "name")));
}

void PrintBranchMerge(const Json& report, bool json) {
  const std::string source = Text(report, "source");
  // A refused delete never fails the merge (BR-9.10): a warning, exit 0.
  if (report.contains("branch_delete_error") && Member(report, "branch_delete_error").is_string()) {
    std::cerr << fmt::format("warning: merged, but could not delete branch '{}': {}\n",
                             compiler::EscapeForDisplay(source),
                             compiler::EscapeForDisplay(Text(report, "branch_delete_error")));
  }
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("merged {} into {}: {}\n", compiler::EscapeForDisplay(source),
                           compiler::EscapeForDisplay(Text(report, "target")),
                           Text(report, "outcome"));
  if (Flag(report, "branch_deleted", false)) {
    std::cout << fmt::format("deleted branch {}\n", compiler::EscapeForDisplay(source));
  }
  const Json& commit = Member(report, "commit");
  if (commit.is_object() && Flag(commit, "published", true) == false) {
    std::cout << fmt::format("unpublished commit: {}\n", Text(commit, "graph_commit_id"));
  }
}

// The served form of each branch verb (§5.1): the route's reply printed
// as the local result is; writes echo "omnigraph <verb> → <url> (served)".
int RunServedBranch(Context& context, const std::string& uri, std::string_view verb,
                    const std::function<Result<Json>(remote::RemoteGraph&)>& call,
                    void (*print)(const Json&, bool), bool write) {
  auto graph = remote::RemoteGraph::Open(context.flags, uri);
  if (!graph.ok()) return context.Fail(graph.status());
  if (verb == "branch delete") {
    if (Status st = ConfirmDestructive(context.flags, "branch delete", graph->url()); !st.ok()) {
      return context.Fail(st);
    }
  }
  if (write) EchoWriteTarget(context.flags, verb, graph->url(), /*served=*/true);
  auto reply = call(*graph);
  if (!reply.ok()) return context.Fail(reply.status());
  // What the write made durable, for a confirmation that cannot be written.
  if (verb == "branch create") {
    context.published = fmt::format("branch '{}'", reply->value("name", ""));
  } else if (verb == "branch delete") {
    context.published = fmt::format("deletion of branch '{}'", reply->value("name", ""));
  } else if (verb == "branch merge" && reply->contains("commit") && (*reply)["commit"].is_object()) {
    context.published = fmt::format("commit '{}'", (*reply)["commit"].value("graph_commit_id", ""));
  }
  print(*reply, context.flags.json);
  return kExitOk;
}

// The local forms echo their write target (§5.1) as schema apply does,
// but not under --json: scripts read a --json branch write's stdout and
// stderr as one JSON document (../shared/cases/branches/B18 merges them).

// Opens the graph a branch verb addresses and gives it the write actor.
Result<std::unique_ptr<api::Omnigraph>> OpenForBranchControl(Context& context, const std::string& uri) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> graph, OpenGraph(uri, context.flags));
  OG_RETURN_IF_ERROR(SetWriteActor(*graph, context.flags));
  return graph;
}

int RunBranchCreate(Context& context, const BranchCreateOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "branch create", {.actor = true, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  if (AddressesServer(options.uri, context.flags)) {
    return RunServedBranch(
        context, options.uri, "branch create",
        [&](remote::RemoteGraph& graph) { return graph.BranchCreate(options.name, options.from); },
        PrintBranchCreate, true);
  }
  auto graph = OpenForBranchControl(context, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  if (!context.flags.json) EchoWriteTarget(context.flags, "branch create", GivenUri(options.uri, context.flags));
  auto created = (*graph)->BranchCreate(options.name, options.from);
  if (!created.ok()) return context.Fail(created.status());
  context.published = fmt::format("branch '{}'", created->name);
  created->uri = GivenUri(options.uri, context.flags);
  PrintBranchCreate(api::wire::BranchCreateJson(*created), context.flags.json);
  return kExitOk;
}

int RunBranchList(Context& context, const BranchListOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "branch list", {.served = true}); !st.ok()) return context.Fail(st);
  if (AddressesServer(options.uri, context.flags)) {
    return RunServedBranch(
        context, options.uri, "branch list", [](remote::RemoteGraph& graph) { return graph.BranchList(); },
        PrintBranchList, false);
  }
  auto graph = OpenGraph(options.uri, context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  auto branches = (*graph)->BranchList();
  if (!branches.ok()) return context.Fail(branches.status());
  PrintBranchList(api::wire::BranchListJson(*branches), context.flags.json);
  return kExitOk;
}

int RunBranchDelete(Context& context, const BranchDeleteOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "branch delete", {.actor = true, .yes = true, .served = true});
      !st.ok()) {
    return context.Fail(st);
  }
  if (AddressesServer(options.uri, context.flags)) {
    return RunServedBranch(
        context, options.uri, "branch delete",
        [&](remote::RemoteGraph& graph) { return graph.BranchDelete(options.name); }, PrintBranchDelete, true);
  }
  auto graph = OpenForBranchControl(context, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  if (!context.flags.json) EchoWriteTarget(context.flags, "branch delete", GivenUri(options.uri, context.flags));
  if (Status deleted = (*graph)->BranchDelete(options.name); !deleted.ok()) return context.Fail(deleted);
  context.published = fmt::format("deletion of branch '{}'", options.name);
  PrintBranchDelete(api::wire::BranchDeleteJson(GivenUri(options.uri, context.flags), options.name, (*graph)->actor()),
                    context.flags.json);
  return kExitOk;
}

int RunBranchMerge(Context& context, const BranchMergeOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "branch merge", {.actor = true, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  if (options.as_commit && options.delete_branch) {
    return context.Fail(UsageError("--as-commit cannot be combined with --delete-branch"));
  }
  if (AddressesServer(options.uri, context.flags)) {
    if (options.as_commit) return context.Fail(UsageError("--as-commit is not served; address the graph with --store"));
    return RunServedBranch(
        context, options.uri, "branch merge",
        [&](remote::RemoteGraph& graph) {
          return graph.BranchMerge(options.source, options.into, options.delete_branch);
        },
        PrintBranchMerge, true);
  }
  auto graph = OpenForBranchControl(context, options.uri);
  if (!graph.ok()) return context.Fail(graph.status());
  if (!context.flags.json) EchoWriteTarget(context.flags, "branch merge", GivenUri(options.uri, context.flags));
  api::BranchMergeOptions merge;
  merge.delete_branch = options.delete_branch;
  merge.as_commit = options.as_commit;
  auto report = (*graph)->BranchMerge(options.source, options.into, merge);
  if (!report.ok()) return context.Fail(report.status());
  if (report->commit) context.published = fmt::format("commit '{}'", report->commit->id);
  PrintBranchMerge(api::wire::BranchMergeJson(*report), context.flags.json);
  return kExitOk;
}

}  // namespace

void RegisterBranch(CLI::App& app, Context& context) {
  CLI::App* branch = app.add_subcommand("branch", "create, list, delete and merge branches");

  auto create_options = std::make_shared<BranchCreateOptions>();
  CLI::App* create = branch->add_subcommand("create", "create a branch from another branch's head");
  create->add_option("--uri", create_options->uri, "graph directory");
  create->add_option("--from", create_options->from, "source branch (default main)");
  create->add_option("name", create_options->name, "new branch name")->required();
  create->callback([&context, create_options] { context.exit_code = RunBranchCreate(context, *create_options); });

  auto list_options = std::make_shared<BranchListOptions>();
  CLI::App* list = branch->add_subcommand("list", "every live branch, sorted");
  list->add_option("--uri", list_options->uri, "graph directory");
  list->callback([&context, list_options] { context.exit_code = RunBranchList(context, *list_options); });

  auto delete_options = std::make_shared<BranchDeleteOptions>();
  CLI::App* remove = branch->add_subcommand("delete", "delete a branch");
  remove->add_option("--uri", delete_options->uri, "graph directory");
  remove->add_option("name", delete_options->name, "branch name")->required();
  remove->callback([&context, delete_options] { context.exit_code = RunBranchDelete(context, *delete_options); });

  auto merge_options = std::make_shared<BranchMergeOptions>();
  CLI::App* merge = branch->add_subcommand("merge", "merge a branch into another (default main)");
  merge->add_option("--uri", merge_options->uri, "graph directory");
  merge->add_option("source", merge_options->source, "source branch")->required();
  merge->add_option("--into", merge_options->into, "target branch (default main)");
  merge->add_flag("--delete-branch", merge_options->delete_branch, "delete the source after the merge");
  merge->add_flag("--as-commit", merge_options->as_commit,
                  "write the merge commit unpublished (publish it with `commit publish`)");
  merge->callback([&context, merge_options] { context.exit_code = RunBranchMerge(context, *merge_options); });

  branch->require_subcommand(1);
}

}  // namespace omnigraph::cli
