// The one re-prepare loop every writer runs in (spec/engine.md §5.1, §5.2;
// design/write-path.md "a retryable pre-effect attempt discards all staged
// work, captures a new WriteTxn, and repeats boundedly").
//
// An attempt captures a fresh WriteTxn, prepares, validates, stages and
// goes through the door. When it loses to another writer (ReadSetChanged)
// it is repeated from a fresh capture only if its RetryPolicy says so:
// insert-only writes re-prepare (their effect does not depend on what they
// read), everything else returns the conflict. Batches are never replayed
// against a new base.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "graph/graph_store.h"
#include "graph/write/write_txn.h"

namespace omnigraph::exec {

struct RetryPolicy {
  // Set by an attempt once it knows its plan: true only for insert-only
  // mutations and append/merge loads without a caller precondition.
  bool re_prepare_on_read_set_changed = false;
};

// One attempt against a captured txn; it may set `*policy`.
using WriterAttempt = std::function<Status(const graph::WriteTxn& txn, RetryPolicy* policy)>;

// Runs `attempt` on fresh captures of `branch` until it succeeds, fails with
// anything but a retryable ReadSetChanged, or kMaxRePrepareAttempts
// attempts were made. Each attempt holds the branch's writer queue
// (GraphStore::LockBranchWriters) from capture to publication.
// Errors: those of the attempt; NotFound (kind branch_not_found).
Status RunWriter(graph::GraphStore& graph, std::string_view branch, const std::optional<std::string>& actor,
                 const WriterAttempt& attempt);

inline constexpr int kMaxRePrepareAttempts = 32;

}  // namespace omnigraph::exec
