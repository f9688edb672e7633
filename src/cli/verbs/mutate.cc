// `mutate [NAME] (--query FILE | -e GQ) [--params …] [--branch B]
// [--if-commit ID]` (surface §3, §5.2): runs a mutation, one atomic commit.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "api/wire/report_json.h"
#include "cli/input.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/query_source.h"
#include "cli/verbs/verbs.h"
#include "cli/wire_view.h"
#include "graph/branches.h"

namespace omnigraph::cli {
namespace {

struct MutateOptions {
  QuerySourceOptions source;
  std::string if_commit;  // --if-commit: publish only while the head is this commit
};

// Prints a mutation's outcome from its wire form (MutationOutput,
// api/wire/report_json.h), local or served alike: the JSON itself, or
// `changed B via Q: N nodes, M edges`, the actor, and a proposal's line
// (BR-11.1, BR-12.2).
void PrintMutation(const nlohmann::ordered_json& report, bool json) {
  if (json) {
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("changed {} via {}: {} nodes, {} edges\n", Text(report, "branch"),
                           Text(report, "query_name"), Member(report, "affected_nodes").dump(),
                           Member(report, "affected_edges").dump());
  if (Member(report, "actor_id").is_string()) std::cout << "actor_id: " << Text(report, "actor_id") << "\n";
  const nlohmann::ordered_json& commit = Member(report, "commit");
  if (!commit.is_object()) return;
  const std::string id = Text(commit, "graph_commit_id");
  if (commit.contains("unattached_root")) {
    std::cout << fmt::format("unattached snapshot: {} (root {})\n", id, Text(commit, "unattached_root"));
  } else if (Flag(commit, "published", true) == false) {
    std::cout << fmt::format("unpublished commit: {}\n", id);
  }
}

// Records and prints a served mutation's MutationOutput.
int FinishServedMutation(Context& context, const nlohmann::ordered_json& report) {
  if (report.contains("commit") && Member(report, "commit").is_object()) {
    context.published = fmt::format("commit '{}'", Member(report, "commit").value("graph_commit_id", ""));
  }
  PrintMutation(report, context.flags.json);
  return kExitOk;
}

// The mutation on a server (§5.1): POST /mutate, or /mutate/if-graph-commit
// for --if-commit (a lost race is 412 → exit 4 with its body under --json).
int RunServedMutate(Context& context, const MutateOptions& options, const QueryRequest& request,
                    const std::string& params) {
  auto graph = remote::RemoteGraph::Open(context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  std::optional<std::string> if_commit;
  if (!options.if_commit.empty()) if_commit = options.if_commit;
  const bool branch_given = options.source.branch_option->count() > 0;
  auto report = graph->Mutate(request.source, request.name, params, branch_given ? options.source.branch : "",
                              if_commit);
  if (!report.ok()) return context.Fail(remote::WithSourceName(report.status(), request.source_file));
  return FinishServedMutation(context, *report);
}

// `mutate NAME` without a source on a server: the stored mutation NAME
// (POST /queries/{name}[/if-graph-commit]).
int RunStoredMutation(Context& context, const MutateOptions& options) {
  auto call = ResolveStoredQueryCall(options.source);
  if (!call.ok()) return context.Fail(call.status());
  auto graph = remote::RemoteGraph::Open(context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  std::optional<std::string> if_commit;
  if (!options.if_commit.empty()) if_commit = options.if_commit;
  const bool branch_given = options.source.branch_option->count() > 0;
  auto body = graph->InvokeStored(call->name, call->params_json, branch_given ? options.source.branch : "",
                                  std::nullopt, /*expect_mutation=*/true, if_commit);
  if (!body.ok()) return context.Fail(body.status());
  auto report = nlohmann::ordered_json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (!report.is_object()) return context.Fail(Internal("the server's mutation reply is not a JSON object"));
  return FinishServedMutation(context, report);
}

int RunMutate(Context& context, const MutateOptions& options) {
  GlobalFlags& flags = context.flags;
  if (Status st = PrepareVerb(&flags, "mutate", {.actor = true, .served = true}); !st.ok()) return context.Fail(st);
  if (AddressesServer("", flags) && !HasQuerySource(options.source)) return RunStoredMutation(context, options);
  auto request = ResolveQueryRequest(options.source);
  if (!request.ok()) return context.Fail(request.status());
  if (AddressesServer("", flags)) {
    auto params = ReadParams(options.source.params, options.source.params_file);
    if (!params.ok()) return context.Fail(params.status());
    return RunServedMutate(context, options, *request, *params);
  }
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
  PrintMutation(api::wire::MutationReportJson(*report, (*graph)->actor()), flags.json);
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
