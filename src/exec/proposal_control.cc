#include "exec/proposal_control.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "exec/writers/mutation_writer.h"
#include "graph/branches.h"
#include "graph/history/commit_id.h"
#include "graph/proposals.h"
#include "graph/read_target.h"
#include "graph/write/gates.h"
#include "graph/write/publisher.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/utf8.h"

namespace omnigraph::exec {
namespace {

Status CommitNotFound(std::string_view id) {
  return NotFound(fmt::format("commit '{}' not found", utf8::ShortenForMessage(id)));
}

CommitView ViewOf(const graph::Proposal& proposal) {
  return CommitView{proposal.commit(), false, proposal.recipe.root};
}

// The published commit `id`, nullopt when no live branch reaches it.
Result<std::optional<graph::CommitRecord>> FindPublished(graph::GraphStore& graph, std::string_view id,
                                                         std::string_view first_branch) {
  auto found = graph::FindCommit(graph, id, first_branch);
  if (found.ok()) return std::optional<graph::CommitRecord>(std::move(*found));
  if (found.status().code() == ErrorCode::kNotFound) return std::optional<graph::CommitRecord>();
  return found.status();
}

// Holds the target branch's gate: a publish and a drop of one proposal are
// serialized on it (BR-11.4).
graph::HeldGates TargetGate(graph::GraphStore& graph, const graph::Proposal& proposal) {
  return graph::HeldGates(graph::Gates::For(graph.uri()), graph::SchemaAccess::kShared,
                          {proposal.recipe.target.branch}, {});
}

}  // namespace

Result<CommitView> ShowCommitOrProposal(graph::GraphStore& graph, std::string_view id, std::string_view first_branch) {
  OG_RETURN_IF_ERROR(graph::ValidateCommitId(id));
  OG_ASSIGN_OR_RETURN(std::optional<graph::CommitRecord> published, FindPublished(graph, id, first_branch));
  if (published) return CommitView{std::move(*published), true, std::nullopt};
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> proposal, graph::FindProposal(graph, id));
  if (proposal) {
    OG_ASSIGN_OR_RETURN(bool live, graph::IsLive(graph, *proposal));
    if (live) return ViewOf(*proposal);
  }
  return CommitNotFound(id);
}

Result<CommitView> PublishCommit(graph::GraphStore& graph, const std::string& id) {
  OG_RETURN_IF_ERROR(graph::ValidateCommitId(id));
  OG_ASSIGN_OR_RETURN(std::optional<graph::CommitRecord> published, FindPublished(graph, id, graph::kMainBranch));
  if (published) return CommitView{std::move(*published), true, std::nullopt};  // idempotent
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> found, graph::FindProposal(graph, id));
  if (!found) return CommitNotFound(id);
  if (found->recipe.unattached()) {
    return Status(ErrorCode::kConflict,
                  fmt::format("commit '{}' is an unattached snapshot and cannot be published", id),
                  {{"commit_refusal", "unattached_cannot_publish"}, {"graph_commit_id", id}});
  }
  // Ordered with the target's other writers and its deletion, as a write
  // is (the writers lock first, then the gate, in the writers' order).
  auto writers = graph.LockBranchWriters(found->recipe.target.branch);
  if (!writers.ok() && writers.status().code() == ErrorCode::kNotFound) return CommitNotFound(id);
  OG_RETURN_IF_ERROR(writers.status());
  if (writers->ref.name != found->recipe.target.name) return CommitNotFound(id);  // another incarnation now
  graph::HeldGates gate = TargetGate(graph, *found);
  // A drop or another publish may have finished while this one waited.
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> proposal, graph::FindProposal(graph, id));
  if (!proposal) {
    OG_ASSIGN_OR_RETURN(published, FindPublished(graph, id, graph::kMainBranch));
    if (published) return CommitView{std::move(*published), true, std::nullopt};
    return CommitNotFound(id);
  }
  const graph::ProposalRecipe& recipe = proposal->recipe;
  auto current_head = [&]() -> std::optional<std::string> {
    auto now = graph.AtRef(recipe.target, graph.manifests().LatestVersion(recipe.target).ValueOr(0));
    return now.ok() ? std::optional<std::string>(now->head().id) : std::nullopt;
  };
  auto landed = graph::PublishProposed(graph, recipe.target, recipe.captured_head, *proposal->state);
  if (!landed.ok()) {
    if (landed.status().code() == ErrorCode::kReadSetChanged) {
      return HeadIsNot(recipe.target.branch, recipe.captured_head, current_head());
    }
    if (landed.status().code() == ErrorCode::kNotFound) return CommitNotFound(id);
    return landed.status();
  }
  // The publication is the whole publish; a tag left behind only costs
  // cleanup, and a repeated publish answers the published commit.
  if (failpoint::Hit(failpoint::kCommitPublishBeforeUntag).ok()) (void)graph::RemoveProposalTag(graph, *proposal);
  return CommitView{landed->commit, true, std::nullopt};
}

Result<std::vector<std::string>> DropCommit(graph::GraphStore& graph, const std::string& id) {
  OG_RETURN_IF_ERROR(graph::ValidateCommitId(id));
  OG_ASSIGN_OR_RETURN(std::optional<graph::CommitRecord> published, FindPublished(graph, id, graph::kMainBranch));
  if (published) {
    return Status(ErrorCode::kConflict, fmt::format("commit '{}' is published and cannot be dropped", id),
                  {{"kind", "manifest_conflict"}});
  }
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> found, graph::FindProposal(graph, id));
  if (!found) return CommitNotFound(id);
  graph::HeldGates gate = TargetGate(graph, *found);
  OG_ASSIGN_OR_RETURN(std::optional<graph::Proposal> proposal, graph::FindProposal(graph, id));
  if (!proposal) return CommitNotFound(id);  // a publish or drop won
  std::vector<graph::Proposal> doomed;
  if (!proposal->recipe.unattached()) {
    doomed.push_back(std::move(*proposal));
  } else {
    OG_ASSIGN_OR_RETURN(bool live, graph::IsLive(graph, *proposal));
    if (!live) return CommitNotFound(id);
    // The subtree below `id`, children before parents (post-order).
    OG_ASSIGN_OR_RETURN(std::vector<graph::Proposal> all, graph::ListProposals(graph));
    std::multimap<std::string, graph::Proposal> children;  // by parent id
    for (graph::Proposal& p : all) {
      if (p.recipe.unattached() && p.recipe.root == proposal->recipe.root && p.recipe.id != p.recipe.parent) {
        children.emplace(*p.recipe.parent, std::move(p));
      }
    }
    std::vector<std::pair<graph::Proposal, bool>> stack;  // (node, children pushed)
    stack.emplace_back(std::move(*proposal), false);
    while (!stack.empty()) {
      if (stack.back().second) {
        doomed.push_back(std::move(stack.back().first));
        stack.pop_back();
        continue;
      }
      stack.back().second = true;
      std::string parent = stack.back().first.recipe.id;
      // Children newest id last, so the removal order is deterministic.
      auto [begin, end] = children.equal_range(parent);
      std::vector<graph::Proposal> kids;
      for (auto it = begin; it != end; ++it) kids.push_back(it->second);
      std::sort(kids.begin(), kids.end(),
                [](const graph::Proposal& a, const graph::Proposal& b) { return a.recipe.id > b.recipe.id; });
      for (graph::Proposal& kid : kids) stack.emplace_back(std::move(kid), false);
    }
  }
  std::vector<std::string> dropped;
  for (const graph::Proposal& p : doomed) {
    OG_RETURN_IF_ERROR(graph::RemoveProposalTag(graph, p));
    dropped.push_back(p.recipe.id);
    OG_FAILPOINT(failpoint::kCommitDropAfterUntag);
  }
  return dropped;
}

Result<std::vector<CommitView>> ListUnpublished(graph::GraphStore& graph, const std::string& branch) {
  std::string name = graph::TrimBranchName(branch);
  OG_RETURN_IF_ERROR(graph::CheckPublicBranchName(name, "commit_list"));
  OG_ASSIGN_OR_RETURN(graph::NativeRef ref, graph.manifests().Resolve(name));
  OG_ASSIGN_OR_RETURN(std::vector<graph::Proposal> all, graph::ListProposals(graph));
  std::vector<CommitView> out;
  for (const graph::Proposal& p : all) {
    if (p.recipe.target.name != ref.name) continue;
    OG_ASSIGN_OR_RETURN(bool live, graph::IsLive(graph, p));
    if (live) out.push_back(ViewOf(p));
  }
  std::sort(out.begin(), out.end(), [](const CommitView& a, const CommitView& b) {
    if (a.commit.created_at_us != b.commit.created_at_us) return a.commit.created_at_us > b.commit.created_at_us;
    return a.commit.id > b.commit.id;
  });
  return out;
}

}  // namespace omnigraph::exec
