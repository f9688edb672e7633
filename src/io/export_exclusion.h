// The export-root exclusion (spec/cluster.md §4.4 step 7, §7 scenario 22):
// keeps an export of a graph and the removal of that graph's root apart,
// across processes, without either side ever waiting.
//
// An export reserves its graph root for its whole run, shared: exports of
// one root coexist. Removing the root (`cluster apply` executing an approved
// graph delete) reserves it exclusively from before its first removal until
// the removal is over. So:
//   - a delete while an export runs is refused: Conflict with detail
//     reason = export_in_progress (`cluster apply` reports it as
//     graph_delete_export_in_progress; the delete is retried by the next
//     apply);
//   - an export while a delete runs is refused: Conflict with detail
//     reason = graph_root_deleting, before it reads anything, so it never
//     reads a half-removed root;
//   - an export after a delete finished finds no graph: NotFound.
//
// It is built on ObjectStore::TryLockDirectory: on local storage flock(2)
// on the root directory itself, which the kernel releases when the holder's
// process dies, so a killed export or apply never strands a root. A store
// that cannot lock directories reserves nothing (ExportRootExclusion::held
// is false) and the two proceed unordered.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph {

// Values of the `reason` detail of the Conflicts below.
inline constexpr std::string_view kExportInProgressReason = "export_in_progress";
inline constexpr std::string_view kGraphRootDeletingReason = "graph_root_deleting";

enum class ExportRootUse {
  kExport,  // reading the whole root (shared)
  kDelete,  // removing the whole root (exclusive)
};

// A reservation, released when destroyed. Movable, not copyable.
class ExportRootExclusion {
 public:
  ExportRootExclusion() = default;
  explicit ExportRootExclusion(std::unique_ptr<ObjectStore::Lock> lock) : lock_(std::move(lock)) {}

  // Whether anything is held: false on a store that cannot lock
  // directories, and for the delete of a root that does not exist.
  bool held() const { return lock_ != nullptr; }

 private:
  std::unique_ptr<ObjectStore::Lock> lock_;
};

// Reserves the graph root `root` of `store` ("" = the store's root, as an
// api::Omnigraph handle opens it) for `use`, without waiting.
// REQUIRES: `root` is where a graph's directory is or was (its absence is
// reported, never created).
// Errors for kExport: Conflict (detail reason = graph_root_deleting) while a
// delete holds the root; NotFound "no graph at '<uri>'" when the root does
// not exist or was removed; IoError.
// Errors for kDelete: Conflict (detail reason = export_in_progress) while an
// export holds the root; IoError. An absent root reserves nothing and
// succeeds: there is nothing to remove.
Result<ExportRootExclusion> ReserveExportRoot(ObjectStore& store, const std::string& root, ExportRootUse use);

}  // namespace omnigraph
