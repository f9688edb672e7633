#include "exec/writers/mutation_writer.h"

#include <fmt/format.h>

#include "compiler/params.h"
#include "compiler/typecheck.h"
#include "exec/mutation_executor.h"
#include "exec/writer_loop.h"
#include "exec/writers/table_adapter.h"
#include "graph/history/commit_id.h"
#include "graph/write/door.h"

namespace omnigraph::exec {
namespace {

std::map<std::string, Scalar> ParamScalars(const compiler::ParamMap& params) {
  std::map<std::string, Scalar> out;
  for (const auto& [name, p] : params) out.emplace(name, p.value);
  return out;
}

}  // namespace

Status HeadIsNot(const std::string& branch, const std::string& expected, const std::optional<std::string>& actual) {
  Status::Details details{{"branch", branch}, {"expected", expected}};
  if (actual) details.emplace("actual", *actual);
  return Status(ErrorCode::kPreconditionFailed,
                fmt::format("precondition failed on branch '{}': expected head '{}' but current is {}", branch,
                            expected, actual.value_or("<absent>")),
                std::move(details));
}

Result<MutationOutcome> RunMutation(graph::GraphStore& graph, CatalogCache& catalogs, const MutationRequest& r) {
  compiler::BindOptions bind;
  bind.now_ms = r.now_ms;  // stable across re-prepares
  if (r.if_commit) OG_RETURN_IF_ERROR(graph::ValidateCommitId(*r.if_commit));
  MutationOutcome outcome;
  Status written = RunWriter(graph, r.branch, r.actor_id, [&](const graph::WriteTxn& txn, RetryPolicy* policy) {
    outcome = MutationOutcome{};
    OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(txn.state()));
    OG_ASSIGN_OR_RETURN(auto compiled, catalogs.CompiledQuery(txn.state(), *catalog, r.source, r.source_file, r.name));
    const compiler::ir::QueryIR& query = *compiled;
    if (!query.is_mutation) {
      return InvalidArgument(fmt::format("query '{}' is a read query; run it with `query`", query.name));
    }
    OG_ASSIGN_OR_RETURN(compiler::ParamMap params, compiler::BindParams(query, r.params_json, bind));
    // The request is valid in itself; only now does the head decide (a query
    // that could never run is reported as such, not as a lost race).
    if (r.if_commit && txn.state().head.id != *r.if_commit) {
      return HeadIsNot(txn.ref().branch, *r.if_commit, txn.state().head.id);
    }
    OG_ASSIGN_OR_RETURN(MutationPlan plan, PlanMutation(txn.base(), *catalog, query, ParamScalars(params)));
    outcome.branch = txn.ref().branch;
    outcome.query_name = query.name;
    outcome.affected_nodes = plan.affected_nodes;
    outcome.affected_edges = plan.affected_edges;
    if (!plan.changes_anything()) return Status::OK();  // nothing changed: no commit
    OG_RETURN_IF_ERROR(ValidateWrite(txn.base(), *catalog, plan.delta));
    policy->re_prepare_on_read_set_changed = plan.insert_only && !r.if_commit;
    OG_ASSIGN_OR_RETURN(std::vector<graph::Effect> effects, StageChanges(txn, ToTableChanges(plan.delta)));
    auto published = graph::CommitThroughDoor(graph, txn, std::move(effects));
    if (!published.ok()) {
      if (r.if_commit && published.status().code() == ErrorCode::kReadSetChanged) {
        // The head moved between the check above and the publication: the
        // compare-and-swap on the head was lost (BR-8: 412, CLI exit 4).
        auto now = graph.Latest(txn.ref().branch);
        return HeadIsNot(txn.ref().branch, *r.if_commit,
                         now.ok() ? std::optional<std::string>(now->head().id) : std::nullopt);
      }
      return published.status();
    }
    outcome.commit = published->commit;
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(written);
  return outcome;
}

}  // namespace omnigraph::exec
