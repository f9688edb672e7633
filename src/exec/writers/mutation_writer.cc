#include "exec/writers/mutation_writer.h"

#include <fmt/format.h>

#include "compiler/params.h"
#include "compiler/typecheck.h"
#include "exec/mutation_executor.h"
#include "exec/writer_loop.h"
#include "exec/writers/table_adapter.h"
#include "graph/history/commit_id.h"
#include "graph/proposals.h"
#include "graph/write/door.h"

namespace omnigraph::exec {
namespace {

std::map<std::string, Scalar> ParamScalars(const compiler::ParamMap& params) {
  std::map<std::string, Scalar> out;
  for (const auto& [name, p] : params) out.emplace(name, p.value);
  return out;
}

Status UnknownCommit(const std::string& id) {
  return NotFound(fmt::format("commit '{}' not found", id));
}

// The live unattached snapshot `id` a child is based on (BR-12.1).
Result<graph::Proposal> UnattachedParent(graph::GraphStore& graph, const std::string& id) {
  OG_RETURN_IF_ERROR(graph::ValidateCommitId(id));
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> parent, graph::FindProposal(graph, id));
  if (!parent || !parent->recipe.unattached()) return UnknownCommit(id);
  OG_ASSIGN_OR_RETURN(bool live, graph::IsLive(graph, *parent));
  if (!live) return UnknownCommit(id);
  return std::move(*parent);
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
  // An unattached child writes on its parent's recorded target.
  std::string branch = r.branch.empty() ? std::string(graph::kMainBranch) : r.branch;
  if (r.source.find("unattached") != std::string_view::npos) {
    // Compile errors are reported by the attempt, against its capture.
    OG_ASSIGN_OR_RETURN(graph::Snapshot main, graph.Latest());
    OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(main.state()));
    auto compiled = catalogs.CompiledQuery(main.state(), *catalog, r.source, r.source_file, r.name);
    if (compiled.ok() && (*compiled)->write_form.on) {
      const std::string& on = *(*compiled)->write_form.on;
      if (r.if_commit) {
        return InvalidArgument("a precondition cannot be combined with `as unattached branch on`: the base is the "
                               "parent snapshot");
      }
      OG_ASSIGN_OR_RETURN(graph::Proposal parent, UnattachedParent(graph, on));
      const std::string& target = parent.recipe.target.branch;
      if (!r.branch.empty() && r.branch != target) {
        return InvalidArgument(fmt::format("unattached snapshot '{}' belongs to branch '{}', not '{}'", on, target,
                                           r.branch));
      }
      branch = target;
    }
  }
  Status written = RunWriter(graph, branch, r.actor_id, [&](const graph::WriteTxn& captured, RetryPolicy* policy) {
    outcome = MutationOutcome{};
    std::optional<graph::WriteTxn> rebased;
    graph::DoorOptions door;
    OG_ASSIGN_OR_RETURN(auto catalog, catalogs.CatalogFor(captured.state()));
    OG_ASSIGN_OR_RETURN(auto compiled,
                        catalogs.CompiledQuery(captured.state(), *catalog, r.source, r.source_file, r.name));
    const compiler::ir::QueryIR& query = *compiled;
    if (!query.is_mutation) {
      return InvalidArgument(fmt::format("query '{}' is a read query; run it with `query`", query.name));
    }
    OG_ASSIGN_OR_RETURN(compiler::ParamMap params, compiler::BindParams(query, r.params_json, bind));
    // The request is valid in itself; only now does the head decide (a query
    // that could never run is reported as such, not as a lost race).
    if (r.if_commit && captured.state().head.id != *r.if_commit) {
      return HeadIsNot(captured.ref().branch, *r.if_commit, captured.state().head.id);
    }
    const compiler::ir::WriteForm& form = query.write_form;
    if (form.kind == compiler::ir::WriteForm::Kind::kCommit) {
      door.proposal = graph::ProposalForm{};
    } else if (form.kind == compiler::ir::WriteForm::Kind::kUnattachedBranch) {
      door.proposal = graph::ProposalForm{true, std::nullopt, nullptr};
      if (form.on) {
        // The parent must still be live on this very capture of its target.
        OG_ASSIGN_OR_RETURN(graph::Proposal parent, UnattachedParent(graph, *form.on));
        if (parent.recipe.target.name != captured.ref().name ||
            parent.recipe.captured_head != captured.authority_head()) {
          return UnknownCommit(*form.on);
        }
        door.proposal->root = parent.recipe.root;
        door.proposal->base = parent.state;
        rebased = captured.OnBase(graph::ProposalSnapshot(graph, parent));
      }
    }
    const graph::WriteTxn& txn = rebased ? *rebased : captured;
    OG_ASSIGN_OR_RETURN(MutationPlan plan, PlanMutation(txn.base(), *catalog, query, ParamScalars(params),
                                                         r.blob_policy ? *r.blob_policy : DenyExternalBlobs()));
    outcome.branch = txn.ref().branch;
    outcome.query_name = query.name;
    outcome.affected_nodes = plan.affected_nodes;
    outcome.affected_edges = plan.affected_edges;
    if (!plan.changes_anything()) return Status::OK();  // nothing changed: no commit
    OG_RETURN_IF_ERROR(ValidateWrite(txn.base(), *catalog, plan.delta));
    policy->re_prepare_on_read_set_changed = plan.insert_only && !r.if_commit;
    OG_ASSIGN_OR_RETURN(std::vector<graph::Effect> effects, StageChanges(txn, ToTableChanges(plan.delta)));
    auto published = graph::CommitThroughDoor(graph, txn, std::move(effects), door);
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
    outcome.published = !door.proposal.has_value();
    if (door.proposal && door.proposal->unattached) {
      outcome.unattached_root = door.proposal->root.value_or(published->commit.id);
    }
    return Status::OK();
  });
  OG_RETURN_IF_ERROR(written);
  return outcome;
}

}  // namespace omnigraph::exec
