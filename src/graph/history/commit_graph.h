// The commit graph of one branch snapshot: every commit reachable from its
// effective head by both parent links (spec/branches.md BR-1, BR-5, BR-6,
// BR-9.3; spec/engine.md §1.5, §2).
//
// It is read from the snapshot's own history storage only (its head, its
// buffer and the history segments it names), never from other branches
// and never from older `__manifest` versions: a merge imports the source's
// records, so every reachable id resolves from the branch alone (BR-5).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/history/history_segments.h"
#include "graph/manifest/graph_state.h"

namespace omnigraph::graph {

class CommitGraph;
using CommitGraphPtr = std::shared_ptr<const CommitGraph>;

class CommitGraph {
 public:
  // Loads the commits reachable from `state.head`. Errors: VersionReclaimed
  // (detail kind history_gap) when a segment is gone, CorruptData for a
  // damaged segment, Internal "commit '<id>' is reachable from branch '<b>'
  // but has no record" when a parent link leads nowhere (BR-5).
  static Result<CommitGraphPtr> Load(HistoryStore& history, const GraphState& state);

  const CommitRecord& head() const { return *head_; }
  // The commit with id `id`, or whose hb1 id wraps the intent nonce `id`
  // (engine.md §2.2); nullptr when the branch does not reach it.
  const CommitRecord* Find(std::string_view id) const;
  size_t size() const { return records_.size(); }
  // The reachable set, newest first: generation descending, then created_at
  // descending, then id descending bytewise (BR-6.1). Head first, genesis last.
  std::vector<const CommitRecord*> NewestFirst() const;
  // The first-parent chain from the head back to genesis, head first.
  std::vector<const CommitRecord*> FirstParentChain() const;
  // Every reachable record, by id.
  const std::unordered_map<std::string, CommitRecord>& records() const { return records_; }
  // The history segments the snapshot names (for lineage import).
  const std::vector<std::string>& segments() const { return segments_; }

 private:
  std::unordered_map<std::string, CommitRecord> records_;
  std::unordered_map<std::string, std::string> by_nonce_;  // hb1 nonce -> id
  std::vector<std::string> segments_;
  const CommitRecord* head_ = nullptr;
};

// The merge base of two heads over the union of both graphs (BR-9.3): the
// common ancestor with the smallest sum of distances from the two heads
// (both parent links followed), ties to the larger generation, then the
// larger created_at, then the larger id bytewise. nullptr when they share
// no ancestor.
const CommitRecord* MergeBase(const CommitGraph& source, const CommitGraph& target);

// Whether `ancestor` is reachable from `graph`'s head (itself included).
inline bool Reaches(const CommitGraph& graph, std::string_view ancestor) { return graph.Find(ancestor) != nullptr; }

}  // namespace omnigraph::graph
