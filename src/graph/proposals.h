// Unpublished commits and unattached snapshots as stored (spec/branches.md
// BR-11, BR-12; design/write-path.md writer table rows "as commit" and
// "as unattached branch").
//
// A proposal is a detached version D of its target's `__manifest` holding
// the complete result rows, whose head row is the candidate commit, and
// whose transaction carries the recipe of its publication in the property
// omnigraph.unpublished_graph_commit. It is addressed by an engine-owned tag
// of `__manifest`:
//   unpublished_<C>         an unpublished commit C (recipe version 1);
//   unattached_<R>_<C>      snapshot C of the unattached tree rooted at R
//                           (recipe version 2; R = C for a root).
// The tag is the proposal's existence: dropping removes it, and cleanup
// reclaims what no tag or published version names. This module names,
// finds, reads and judges proposals; the publisher (graph/write/publisher.h)
// is the only writer of their `__manifest` versions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::graph {

inline constexpr std::string_view kUnpublishedCommitProperty = "omnigraph.unpublished_graph_commit";
inline constexpr std::string_view kUnpublishedTagPrefix = "unpublished_";
inline constexpr std::string_view kUnattachedTagPrefix = "unattached_";

// How a proposal was made and how it would be published.
struct ProposalRecipe {
  uint32_t version = 1;  // 1: unpublished commit; 2: unattached snapshot
  std::string id;        // C
  NativeRef target;      // the target branch incarnation
  // The target's authority the write captured: its manifest version M and
  // effective head H. The proposal is live while the target is at H.
  uint64_t captured_manifest_version = 0;
  std::string captured_head;
  std::optional<std::string> root;    // unattached: R
  std::optional<std::string> parent;  // unattached: the base snapshot (H or P)

  bool unattached() const { return version == 2; }
  bool operator==(const ProposalRecipe&) const = default;
};

// JSON text of the recipe (the transaction property's value).
std::string EncodeProposalRecipe(const ProposalRecipe& recipe);
// Errors: CorruptData naming `where` for malformed or incomplete JSON.
Result<ProposalRecipe> DecodeProposalRecipe(std::string_view json, std::string_view where);

// "unpublished_<id>" / "unattached_<root>_<id>".
std::string UnpublishedTagName(std::string_view id);
std::string UnattachedTagName(std::string_view root, std::string_view id);

// One stored proposal: its tag, detached version and decoded rows (head =
// the candidate commit; manifest_version = the version it reports).
struct Proposal {
  std::string tag;
  uint64_t detached_version = 0;
  ProposalRecipe recipe;
  std::shared_ptr<const GraphState> state;

  const CommitRecord& commit() const { return state->head; }
};

// The proposal whose id is `id`, whatever its liveness; nullopt when no tag
// names it. Errors: CorruptData (a tag whose version lacks its recipe or
// rows), IoError.
Result<std::optional<Proposal>> FindProposal(GraphStore& graph, std::string_view id);

// Every stored proposal (unpublished commits and unattached snapshots),
// in tag-name order. Errors: as FindProposal.
Result<std::vector<Proposal>> ListProposals(GraphStore& graph);

// Whether `proposal` is live (BR-11.5, BR-12.4): its target incarnation is
// live and the target's effective head is still the captured head. An
// unattached snapshot is live while its root is: the root's target
// authority decides the whole tree.
// Errors: IoError and other storage errors (the evidence is incomplete:
// callers fail closed).
Result<bool> IsLive(GraphStore& graph, const Proposal& proposal);

// The proposal's snapshot, for reads (BR-11.2, BR-12.3): its rows as a
// snapshot of the target branch.
Snapshot ProposalSnapshot(GraphStore& graph, const Proposal& proposal);

// The snapshot of the live proposal `id`; nullopt when there is none (no
// tag, or expired). Errors: those of FindProposal and IsLive.
Result<std::optional<Snapshot>> LiveProposalSnapshot(GraphStore& graph, std::string_view id);

// Removes `proposal`'s tag. A tag already gone is success (a concurrent
// drop won). Errors: IoError.
Status RemoveProposalTag(GraphStore& graph, const Proposal& proposal);

}  // namespace omnigraph::graph
