// How changes are cut into pages (spec/branches.md BR-10.1 "Paging"): at
// most `changes` changes per page, and changes whose wire JSON
// (exec::WireBytes; causes and framing not counted) adds up to at most
// `bytes`. The byte budget is a packing target, never a wall: a page always
// takes its first change, so a change larger than the budget travels on a
// page of its own instead of stopping the listing.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/status.h"

namespace omnigraph::exec {

inline constexpr uint32_t kDefaultPageChanges = 1000;
inline constexpr uint32_t kMaxPageChanges = 8192;
inline constexpr uint64_t kDefaultPageBytes = uint64_t{4} << 20;
inline constexpr uint64_t kMaxPageBytes = uint64_t{32} << 20;

struct PageLimits {
  uint32_t changes = kDefaultPageChanges;  // the `limit` of BR-10.1
  uint64_t bytes = kDefaultPageBytes;
};

// Errors: InvalidArgument "limit must be at least 1" / "max_bytes must be
// at least 1"; ResourceLimitExceeded (413) with resource
// "<resource>_page_rows" above kMaxPageChanges and "<resource>_page_bytes"
// above kMaxPageBytes.
Status CheckPageLimits(const PageLimits& limits, std::string_view resource);

class PageBudget {
 public:
  explicit PageBudget(const PageLimits& limits) : limits_(limits) {}

  // Whether a change of `bytes` wire bytes still fits on the page.
  bool Fits(uint64_t bytes) const {
    return changes_ < limits_.changes && (changes_ == 0 || bytes_ + bytes <= limits_.bytes);
  }
  void Take(uint64_t bytes) {
    ++changes_;
    bytes_ += bytes;
  }

 private:
  PageLimits limits_;
  uint32_t changes_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace omnigraph::exec
