#include "graph/history/commit_graph.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include <fmt/format.h>

#include "graph/history/commit_id.h"

namespace omnigraph::graph {
namespace {

bool NewerThan(const CommitRecord& a, const CommitRecord& b) {
  if (a.generation != b.generation) return a.generation > b.generation;
  if (a.created_at_us != b.created_at_us) return a.created_at_us > b.created_at_us;
  return a.id > b.id;
}

// Hop distance from `head` to every commit it reaches (both parent links).
std::unordered_map<std::string_view, uint64_t> Distances(const CommitGraph& graph) {
  std::unordered_map<std::string_view, uint64_t> distance;
  std::deque<const CommitRecord*> queue;
  distance.emplace(graph.head().id, 0);
  queue.push_back(&graph.head());
  while (!queue.empty()) {
    const CommitRecord* c = queue.front();
    queue.pop_front();
    uint64_t next = distance[c->id] + 1;
    for (const auto* parent : {&c->parent_id, &c->merged_parent_id}) {
      if (!*parent) continue;
      const CommitRecord* p = graph.Find(**parent);
      if (p == nullptr || !distance.emplace(p->id, next).second) continue;
      queue.push_back(p);
    }
  }
  return distance;
}

}  // namespace

Result<CommitGraphPtr> CommitGraph::Load(HistoryStore& history, const GraphState& state) {
  // Every record the snapshot's history storage holds, by id.
  std::unordered_map<std::string, CommitRecord> stored;
  auto keep = [&](const CommitRecord& c) { stored.try_emplace(c.id, c); };
  keep(state.head);
  for (const CommitRecord& c : state.settled) keep(c);
  std::deque<std::string> pending(state.history_segments.begin(), state.history_segments.end());
  std::unordered_set<std::string> seen(pending.begin(), pending.end());
  while (!pending.empty()) {
    OG_ASSIGN_OR_RETURN(HistorySegmentPtr segment, history.Read(pending.front()));
    pending.pop_front();
    for (const CommitRecord& c : segment->records) keep(c);
    for (const std::string& parent : segment->parents) {
      if (seen.insert(parent).second) pending.push_back(parent);
    }
  }

  // The reachable set, checked link by link: a parent without a record is
  // an integrity failure, never a shorter history.
  auto graph = std::make_shared<CommitGraph>();
  graph->segments_ = state.history_segments;
  std::deque<std::string> walk{state.head.id};
  while (!walk.empty()) {
    std::string id = std::move(walk.front());
    walk.pop_front();
    if (graph->records_.count(id)) continue;
    auto it = stored.find(id);
    if (it == stored.end()) {
      return Internal(fmt::format("commit '{}' is reachable from branch '{}' but has no record", id, state.branch));
    }
    const CommitRecord& c = graph->records_.emplace(id, std::move(it->second)).first->second;
    if (c.parent_id) walk.push_back(*c.parent_id);
    if (c.merged_parent_id) walk.push_back(*c.merged_parent_id);
  }
  for (const auto& [id, c] : graph->records_) {
    if (std::string_view nonce = NonceOf(id); !nonce.empty()) graph->by_nonce_.emplace(std::string(nonce), id);
  }
  graph->head_ = &graph->records_.at(state.head.id);
  return CommitGraphPtr(std::move(graph));
}

const CommitRecord* CommitGraph::Find(std::string_view id) const {
  if (auto it = records_.find(std::string(id)); it != records_.end()) return &it->second;
  if (auto it = by_nonce_.find(std::string(id)); it != by_nonce_.end()) return &records_.at(it->second);
  return nullptr;
}

std::vector<const CommitRecord*> CommitGraph::NewestFirst() const {
  std::vector<const CommitRecord*> out;
  out.reserve(records_.size());
  for (const auto& [id, c] : records_) out.push_back(&c);
  std::sort(out.begin(), out.end(), [](const CommitRecord* a, const CommitRecord* b) { return NewerThan(*a, *b); });
  return out;
}

std::vector<const CommitRecord*> CommitGraph::FirstParentChain() const {
  std::vector<const CommitRecord*> chain;
  for (const CommitRecord* c = head_; c != nullptr; c = c->parent_id ? Find(*c->parent_id) : nullptr) {
    chain.push_back(c);
  }
  return chain;
}

const CommitRecord* MergeBase(const CommitGraph& source, const CommitGraph& target) {
  auto from_source = Distances(source);
  auto from_target = Distances(target);
  const CommitRecord* best = nullptr;
  uint64_t best_sum = 0;
  for (const auto& [id, ds] : from_source) {
    auto it = from_target.find(id);
    if (it == from_target.end()) continue;
    const CommitRecord* c = source.Find(id);
    uint64_t sum = ds + it->second;
    if (best == nullptr || sum < best_sum || (sum == best_sum && NewerThan(*c, *best))) {
      best = c;
      best_sum = sum;
    }
  }
  return best;
}

}  // namespace omnigraph::graph
