// The authority one write attempt captured (spec/engine.md §1.7, §5.1 step
// 1; design/write-path.md "capture one immutable WriteTxn").
//
// A WriteTxn is immutable once captured: every planning and validation
// step of the attempt reads it, the door rechecks it under the gates, and
// the publication's compare-and-swap proves nothing moved. A retry captures
// a new one; nothing is ever rebased.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/graph_store.h"

namespace omnigraph::graph {

// Transaction property keys recorded on every detached table commit.
inline constexpr std::string_view kStagedAgainstBranchIncarnation = "omnigraph.staged_against_branch_incarnation";
inline constexpr std::string_view kStagedAgainstGraphHead = "omnigraph.staged_against_graph_head";
inline constexpr std::string_view kDeletedIds = "omnigraph.deleted_ids";
inline constexpr std::string_view kDeletedIdsPath = "omnigraph.deleted_ids_path";
// Deleted ids up to this size are recorded inline; larger sets go to a side file.
inline constexpr size_t kDeletedIdsInlineBytes = 64 * 1024;

class WriteTxn {
 public:
  // Captures the latest snapshot of the branch whose native ref is `ref`
  // and mints the intent nonce (a ULID the commit id will wrap) and the
  // authorship time.
  // REQUIRES: `ref` came from GraphStore::LockBranchWriters, whose lock the
  // caller holds (that confirmed it live; nothing here probes it again).
  // Errors: those of ManifestReader::LatestVersion and GraphStore::AtRef.
  static Result<WriteTxn> Capture(GraphStore& graph, const NativeRef& ref, std::optional<std::string> actor_id);

  // The captured snapshot: branch incarnation, manifest version M, effective
  // head, pins and schema contract.
  const Snapshot& base() const { return base_; }
  const GraphState& state() const { return base_.state(); }
  // The branch incarnation the write publishes on.
  const NativeRef& ref() const { return ref_; }
  const std::string& intent_nonce() const { return intent_nonce_; }
  int64_t created_at_us() const { return created_at_us_; }
  const std::optional<std::string>& actor_id() const { return actor_id_; }
  // The target authority publication is conditioned on: the captured
  // manifest version M and effective head of the branch. They equal the
  // base's, except for a write staged on another base (OnBase).
  uint64_t authority_version() const { return authority_version_; }
  const std::string& authority_head() const { return authority_head_; }
  // This capture with `base` as the state the write plans and stages
  // against, keeping the branch authority: an unattached child stages on
  // its parent snapshot (spec/branches.md BR-12.1; write-path.md
  // WriteTxn.unattached_base). REQUIRES: `base` has the same schema contract.
  WriteTxn OnBase(Snapshot base) const;

  // Identity of the accepted schema contract (catalog) the write plans against.
  const std::string& schema_ir_hash() const { return base_.state().schema.ir_hash; }

 private:
  WriteTxn() = default;
  Snapshot base_;
  NativeRef ref_;
  uint64_t authority_version_ = 0;
  std::string authority_head_;
  std::string intent_nonce_;
  int64_t created_at_us_ = 0;
  std::optional<std::string> actor_id_;
};

}  // namespace omnigraph::graph
