#include "exec/changes/paging.h"

#include <string>

namespace omnigraph::exec {

Status CheckPageLimits(const PageLimits& limits, std::string_view resource) {
  if (limits.changes == 0) return InvalidArgument("limit must be at least 1");
  if (limits.bytes == 0) return InvalidArgument("max_bytes must be at least 1");
  if (limits.changes > kMaxPageChanges) {
    return ResourceLimitExceeded(std::string(resource) + "_page_rows", kMaxPageChanges, limits.changes);
  }
  if (limits.bytes > kMaxPageBytes) {
    return ResourceLimitExceeded(std::string(resource) + "_page_bytes", kMaxPageBytes, limits.bytes);
  }
  return Status::OK();
}

}  // namespace omnigraph::exec
