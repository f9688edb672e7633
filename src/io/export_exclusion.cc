#include "io/export_exclusion.h"

#include <fmt/format.h>

namespace omnigraph {

Result<ExportRootExclusion> ReserveExportRoot(ObjectStore& store, const std::string& root, ExportRootUse use) {
  const bool export_use = use == ExportRootUse::kExport;
  auto lock = store.TryLockDirectory(root, export_use ? ObjectStore::DirectoryLockMode::kShared
                                                      : ObjectStore::DirectoryLockMode::kExclusive);
  if (lock.ok()) return ExportRootExclusion(std::move(*lock));
  const Status& status = lock.status();
  const std::string uri = store.Uri(root);
  if (status.code() == ErrorCode::kConflict) {
    if (export_use) {
      return Status(ErrorCode::kConflict, fmt::format("graph root '{}' is being deleted; the export is refused", uri),
                    {{"reason", std::string(kGraphRootDeletingReason)}});
    }
    return Status(ErrorCode::kConflict, fmt::format("an export of graph root '{}' is in progress", uri),
                  {{"reason", std::string(kExportInProgressReason)}});
  }
  if (status.code() == ErrorCode::kNotFound) {
    if (!export_use) return ExportRootExclusion();
    return NotFound(fmt::format("no graph at '{}'", uri));
  }
  return status;
}

}  // namespace omnigraph
