#include "exec/changes/change_feed.h"

#include <algorithm>
#include <unordered_map>

#include "exec/changes/change_tokens.h"
#include "exec/changes/commit_diff.h"

namespace omnigraph::exec {
namespace {

// The branch's first-parent chain, genesis first.
class Chain {
 public:
  static Result<Chain> Load(graph::GraphStore& graph, const graph::Snapshot& snapshot) {
    Chain chain;
    OG_ASSIGN_OR_RETURN(chain.history_, graph.Commits(snapshot));
    chain.commits_ = chain.history_->FirstParentChain();
    std::reverse(chain.commits_.begin(), chain.commits_.end());
    for (size_t i = 0; i < chain.commits_.size(); ++i) chain.index_.emplace(chain.commits_[i]->id, i);
    return chain;
  }

  const graph::CommitRecord& operator[](size_t i) const { return *commits_[i]; }
  size_t head() const { return commits_.size() - 1; }
  // The position of commit `id` (an exact id or the intent nonce an hb1 id
  // wraps) on the chain; nullopt when the branch reaches it otherwise or not at all.
  std::optional<size_t> Find(std::string_view id) const {
    const graph::CommitRecord* commit = history_->Find(id);
    if (commit == nullptr) return std::nullopt;
    auto it = index_.find(commit->id);
    return it == index_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

 private:
  graph::CommitGraphPtr history_;  // owns the records
  std::vector<const graph::CommitRecord*> commits_;
  std::unordered_map<std::string_view, size_t> index_;
};

// Where one page of a poll starts and where the poll ends, as chain positions.
struct PollPlan {
  size_t poll_start = 0;            // the poll delivers the commits after this one
  size_t after = 0;                 // the last commit whose block was delivered whole
  size_t cut = 0;                   // the last commit the poll covers
  std::optional<ChangeKey> inside;  // resume inside the block after `after`
};

Status CheckRequest(const FeedPosition& position, const ChangeFeedRequest& request) {
  int given = int{position.cursor.has_value()} + int{position.start.has_value()} + int{position.page_token.has_value()};
  if (given > 1) return InvalidArgument("cursor, start, and page_token are mutually exclusive");
  OG_RETURN_IF_ERROR(CheckPageLimits(request.page, "change_feed"));
  if (request.max_commits == 0) return InvalidArgument("max_commits must be at least 1");
  if (request.max_commits > kMaxFeedCommits) {
    return ResourceLimitExceeded("change_feed_commits", kMaxFeedCommits, request.max_commits);
  }
  return Status::OK();
}

// The chain position a start mode names (BR-10.2 `start`).
Result<size_t> StartPosition(const Chain& chain, std::string_view start) {
  if (start == "now") return chain.head();
  if (start == "beginning") return size_t{0};  // after genesis, which is never a block
  if (start.rfind("after:", 0) == 0) {
    std::optional<size_t> at = chain.Find(start.substr(6));
    if (!at) return CursorRejected("start commit is not on this branch's first-parent chain");
    return *at;
  }
  return InvalidArgument("start must be now | beginning | after:<commit_id>");
}

Result<PollPlan> PlanPage(const Chain& chain, const FeedScope& scope, const FeedPosition& position,
                          uint32_t max_commits) {
  auto on_chain = [&](const std::string& id) -> Result<size_t> {
    std::optional<size_t> at = chain.Find(id);
    if (!at) return CursorRejected("its commit is not on this branch's first-parent chain");
    return *at;
  };
  if (position.page_token) {
    OG_ASSIGN_OR_RETURN(FeedPageToken token, DecodeFeedPageToken(*position.page_token, scope));
    PollPlan plan;
    OG_ASSIGN_OR_RETURN(plan.poll_start, on_chain(token.poll_start));
    OG_ASSIGN_OR_RETURN(plan.after, on_chain(token.after));
    OG_ASSIGN_OR_RETURN(plan.cut, on_chain(token.cut));
    if (plan.poll_start > plan.after || plan.after > plan.cut) {
      return CursorRejected("not a change cursor or page token (inconsistent positions)");
    }
    plan.inside = std::move(token.inside);
    return plan;
  }
  size_t start;
  if (position.cursor) {
    OG_ASSIGN_OR_RETURN(FeedCursor cursor, DecodeFeedCursor(*position.cursor, scope));
    OG_ASSIGN_OR_RETURN(start, on_chain(cursor.after));
  } else {
    OG_ASSIGN_OR_RETURN(start, StartPosition(chain, position.start.value_or("now")));
  }
  return PollPlan{start, start, std::min<size_t>(start + max_commits, chain.head()), std::nullopt};
}

}  // namespace

Result<ChangeFeedPage> PollChanges(graph::GraphStore& graph, std::string_view branch, const FeedPosition& position,
                                   const ChangeFeedRequest& request) {
  OG_RETURN_IF_ERROR(CheckRequest(position, request));
  // The head as of this page: a new poll's cut, and what caught_up means.
  OG_ASSIGN_OR_RETURN(graph::Snapshot latest, graph.Latest(branch));
  OG_ASSIGN_OR_RETURN(Chain chain, Chain::Load(graph, latest));
  FeedScope scope{chain[0].id, latest.state().branch_identity, request.filter.Fingerprint()};
  OG_ASSIGN_OR_RETURN(PollPlan plan, PlanPage(chain, scope, position, request.max_commits));
  auto cursor_after = [&](size_t at) { return EncodeFeedCursor(FeedCursor{scope, chain[at].id}); };

  ChangeFeedPage page;
  PageBudget budget(request.page);
  for (size_t at = plan.after + 1; at <= plan.cut; ++at) {
    const graph::CommitRecord& commit = chain[at];
    auto diff = DiffCommit(graph, chain[at - 1], commit, request.filter);
    if (!diff.ok()) {
      if (!EndsFeedAt(diff.status())) return diff.status();
      // The poll's first commit is its error; a later one ends the poll
      // before it, so what came before is delivered and checkpointed.
      if (at == plan.poll_start + 1) return diff.status().WithDetail("cursor", cursor_after(at - 1));
      page.cursor = cursor_after(at - 1);
      page.caught_up = false;
      return page;
    }
    ChangeBlock block{CauseOf(commit), {}};
    size_t first = (at == plan.after + 1 && plan.inside) ? diff->PositionAfter(*plan.inside) : 0;
    for (size_t i = first; i < diff->size(); ++i) {
      EntityChange change = diff->Render(i);
      uint64_t bytes = WireBytes(change);
      if (!budget.Fits(bytes)) {
        // The page ends inside this block (or just before it): only a page
        // token continues it, never a cursor.
        std::optional<ChangeKey> inside;
        if (i > 0) inside = diff->KeyAt(i - 1);
        page.next_page_token = EncodeFeedPageToken(
            FeedPageToken{scope, chain[plan.poll_start].id, chain[plan.cut].id, chain[at - 1].id, std::move(inside)});
        if (!block.changes.empty()) page.blocks.push_back(std::move(block));
        return page;
      }
      budget.Take(bytes);
      block.changes.push_back(std::move(change));
    }
    page.blocks.push_back(std::move(block));
  }
  page.cursor = cursor_after(plan.cut);
  page.caught_up = plan.cut == chain.head();
  return page;
}

}  // namespace omnigraph::exec
