// Compaction planning (spec/engine.md §8.1; design/write-path.md "Optimize
// plans each table's compaction from its pin"): which fragments of one
// dataset version a rewrite should compact, decided from the manifest alone
// (no data file is read). StageRewriteGroups (staging.h) stages the plan.
#pragma once

#include <cstdint>
#include <vector>

#include "table/dataset.h"

namespace omnigraph::table {

struct CompactionOptions {
  // A fragment with fewer live rows than this is small; a rewrite writes
  // files of at most this many rows (Lance's default target, 1 Mi rows).
  uint64_t target_rows_per_fragment = 1 << 20;
};

// Why a fragment is a compaction candidate.
struct CompactionCandidate {
  bool has_deletions = false;    // its deletion vector removes rows
  bool small = false;            // fewer live rows than the target
  bool holds_dropped = false;    // its files list a field id the schema lacks
};

struct CompactionPlan {
  // Groups of fragment ids, each a contiguous run of the version's fragment
  // list in its order, disjoint; empty when nothing is worth rewriting.
  std::vector<std::vector<uint64_t>> groups;

  bool empty() const { return groups.empty(); }
  // Fragments the rewrite replaces.
  uint64_t fragments_removed() const;
};

// Whether `fragment`'s data files list a field id (tombstones aside) that
// `schema` does not hold: the values of a dropped column.
bool HoldsDroppedFields(const Schema& schema, const lance::Fragment& fragment);

// Plans the compaction of `base`. Every fragment that has deleted rows,
// holds dropped-column values, or has fewer live rows than the target is a
// candidate; maximal contiguous runs of candidates form the groups. A run is
// rewritten when it has two or more fragments (small files merge into
// fewer) or any fragment with deletions or dropped values (those must be
// rewritten even alone: the deleted rows and dropped values are then gone
// from the files the new version references). A lone small fragment with
// nothing to erase is left alone, so planning a freshly compacted version
// again yields an empty plan.
CompactionPlan PlanCompaction(const Dataset& base, const CompactionOptions& options = {});

}  // namespace omnigraph::table
