// `cleanup`: the tracing collector that reclaims table versions, old
// `__manifest` versions and dead staging no retained graph state needs
// (spec/engine.md §8.2; design/write-path.md "Detached manifests are
// reclaimed by the tracing collector cleanup runs", writer table row
// "Cleanup"; spec/branches.md BR-7, BR-9.3, BR-11.5, BR-14.6).
//
// Cleanup is not a graph-content writer: it publishes nothing and never
// moves a head. One run:
//
//   plan   take the writers lock of every live branch (sorted), list the
//          ref view (branch records and tags), every `__manifest` tree
//          (main, live refs, retired trees) and every table dataset;
//          decode every `__manifest` version and read every detached table
//          manifest. Roots: per live branch the head, the newest N versions
//          (--keep) and/or those younger than --older-than (a version goes
//          only when outside both), the branch's creation version in its own
//          tree and in its parent's; every version a tag of `__manifest`
//          names (live proposals; an expired proposal's tag is released);
//          the merge base of every pair of live heads; the snapshot of a
//          live proposal's captured input. The pins of every retained
//          version are the table roots; every table's linear versions are
//          never touched (the last linear version is a permanent root, and
//          linear commits above it are foreign: counted, never deleted).
//          The published set of a table is every staged version any decoded
//          `__manifest` version names, extended backwards along read_version
//          links that no version names (a chain's unpinned links).
//   check  list the ref view again: any change refuses the whole plan
//          before the first deletion (Conflict).
//   sweep  release expired proposal tags; per table delete each published
//          non-root version (chains oldest link first, tip last) and each
//          provably dead unpublished staging version: first its files no
//          surviving version names, then its manifest; then the
//          non-retained `__manifest` versions (files, then manifest) and
//          the retired trees nothing retains; finally files no manifest
//          names that are older than kOrphanGraceSeconds.
//
// Index directories (`_indices/`) are neither swept nor judged orphans:
// this build does not decode index metadata, so it deletes none and every
// retained version keeps its indexes whole.
//
// Every step is idempotent and ordered so that a run killed anywhere
// leaves every retained version complete, and the next run finishes the
// work: a swept manifest goes after its files, and `__manifest` versions
// (which put table versions in the published set) go after every table.
//
// Locking: a writer only ever stages new detached versions on pins of the
// head it captured under its branch's writers lock, so holding every live
// branch's writers lock for the run means no head moves and no capture
// is in flight while roots are computed and files deleted. A read of an
// old snapshot may meet a reclaimed version: VersionReclaimed, the
// specified answer (BR-7). A writer that waits longer than the store's
// lock wait proceeds unordered; a branch created meanwhile changes the ref
// view and refuses the plan. History is never touched: `commit list`,
// `commit show` and merge bases read the heads' history buffers and the
// `__history` segments, never an older `__manifest` version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph_store.h"

namespace omnigraph::graph {

// Files no manifest names are deleted only when older than this
// (UNVERIFIED_THRESHOLD_DAYS = 7): a writer in flight may be about to name them.
inline constexpr int64_t kOrphanGraceSeconds = 7 * 24 * 3600;
// A retired `__manifest` tree whose incarnation (the ULID in its name) is
// younger than this is kept: a branch create in another process writes its
// tree before its record.
inline constexpr int64_t kRetiredTreeGraceSeconds = 60;
// The type key a report gives the `__manifest` dataset.
inline constexpr std::string_view kManifestDatasetKey = "__manifest";

struct CleanupPolicy {
  std::optional<uint64_t> keep_versions;    // --keep N (N >= 1)
  std::optional<uint64_t> older_than_secs;  // --older-than
  // false: plan and report only (the preview); nothing is deleted or released.
  bool confirm = false;
  // The run's wall clock in Unix nanoseconds; 0 = now. Tests move it.
  int64_t now_unix_nanos = 0;
};

// What one dataset lost (or would lose, in a preview).
struct DatasetCleanup {
  // The table key the newest decoded registration gives the location
  // ("node:Item"), kManifestDatasetKey, or the location itself when no
  // `__manifest` version names it.
  std::string type_key;
  std::string location;               // relative to the graph root
  uint64_t manifests_removed = 0;     // versions removed (= old_versions_removed)
  uint64_t bytes_removed = 0;         // every byte removed (manifests, files, orphans)
  uint64_t unpublished_manifests = 0; // of manifests_removed: dead staging
  uint64_t unpublished_bytes = 0;     // of bytes_removed: dead staging
  uint64_t orphan_files_removed = 0;  // files no manifest named, past the grace
  // `__manifest` only: archived history segments a level merge superseded
  // (their records live on in the segment that absorbed them).
  uint64_t history_segments_removed = 0;
  uint64_t foreign_versions = 0;      // linear versions above the last linear version
  std::optional<std::string> error;   // why this dataset was skipped or stopped
};

struct CleanupReport {
  bool confirmed = false;
  std::vector<DatasetCleanup> datasets;  // `__manifest` first, then tables by location
  std::vector<std::string> released_tags;  // expired proposal tags (sorted)

  uint64_t versions_removed() const;
  uint64_t bytes_removed() const;
  // Datasets that lost a version or a byte.
  uint64_t datasets_touched() const;
};

// Errors: InvalidArgument "cleanup requires a retention policy: --keep N
// and/or --older-than DUR" when neither is set; InvalidArgument "--keep
// must be at least 1" for keep 0.
Status ValidateCleanupPolicy(const CleanupPolicy& policy);

// Runs the collector on `graph` (see the file comment).
// Errors: those of ValidateCleanupPolicy (nothing read); Conflict with
// detail kind cleanup_view_changed when a branch or tag was created or
// removed between planning and the first deletion (nothing deleted);
// storage errors while planning (nothing deleted); a storage error while
// sweeping stops the run after what it already deleted (the next run
// completes it). A dataset that cannot be read is skipped with its
// `error` set and blocks the `__manifest` sweep of the run.
Result<CleanupReport> RunCleanup(GraphStore& graph, const CleanupPolicy& policy);

}  // namespace omnigraph::graph
