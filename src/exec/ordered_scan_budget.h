// The process-wide envelope of ordered scans (spec/engine.md Appendix A,
// "ordered-scan memory pool 150 MiB, scratch 100 GiB"; spec/surface.md §7.1,
// "ordered-scan spill envelope"). Every external merge sort of a process
// (exec/ordered_lines.h) draws the bytes its in-memory run holds from one
// resident pool and the bytes it spills from one scratch cap, so N
// concurrent exports share 150 MiB instead of each holding its own 32 MiB
// run, and scratch disk stays bounded whatever the number of scans.
//
// Resident bytes. A scan takes a guaranteed minimum (`min_run_bytes`) when
// it starts, unconditionally, and grows its run beyond that only by grants
// that fit in the pool (TryReserve). A refused grant is never waited for:
// the scan sorts and spills the run it has and continues within its
// minimum. So a scan always progresses, no scan waits on another, and
// resident bytes stay within the pool with two bounded exceptions, both
// counted in usage(): a scan starting while the pool is full still takes
// its minimum, and a single entry larger than a scan's minimum is admitted
// into an empty run. While the pool is overdrawn every grant is refused, so
// the other scans spill down to their minimum at their next grant request.
//
// Scratch bytes. A scan reserves the bytes of each run before writing it
// and releases them all when it ends; a run that would take the total past
// the cap fails the scan with ResourceLimitExceeded (HTTP 413).
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>

#include "util/status.h"

namespace omnigraph::exec {

inline constexpr int64_t kOrderedScanPoolBytes = int64_t{150} << 20;
inline constexpr int64_t kOrderedScanScratchBytes = int64_t{100} << 30;
// Large enough that a scan held to its minimum still writes runs of a
// useful size (a 100 GiB scratch cap is at most 102,400 such runs, merged
// from one scratch file), small enough that a hundred concurrent scans
// overdraw the pool by less than its size.
inline constexpr int64_t kOrderedScanMinRunBytes = int64_t{1} << 20;

// The resource name of the scratch cap in ResourceLimitExceeded
// (surface.md §6 `resource_limit.resource`).
inline constexpr std::string_view kOrderedScanScratchResource = "ordered_scan_scratch_bytes";

struct OrderedScanLimits {
  int64_t resident_bytes = kOrderedScanPoolBytes;  // the shared memory pool
  int64_t scratch_bytes = kOrderedScanScratchBytes;  // spilled bytes, all scans together
  int64_t min_run_bytes = kOrderedScanMinRunBytes;   // each scan's guaranteed minimum
};

class OrderedScanBudget {
 public:
  // REQUIRES: every limit > 0.
  explicit OrderedScanBudget(OrderedScanLimits limits = {});
  OrderedScanBudget(const OrderedScanBudget&) = delete;
  OrderedScanBudget& operator=(const OrderedScanBudget&) = delete;

  const OrderedScanLimits& limits() const { return limits_; }

  // Resident bytes (of ids and lines held in runs), all thread-safe.
  // ReserveGuaranteed always grants `bytes` (a scan's minimum, or one
  // oversized entry), even past the pool; TryReserve grants `bytes` only if
  // the pool then still holds everything reserved. Release returns bytes
  // reserved by either. REQUIRES: bytes >= 0; Release only what was reserved.
  void ReserveGuaranteed(int64_t bytes);
  bool TryReserve(int64_t bytes);
  void ReleaseResident(int64_t bytes);

  // Scratch bytes (of spilled runs). Errors: ResourceLimitExceeded with
  // resource kOrderedScanScratchResource, limit the cap and actual the total
  // this reservation would make, "ordered_scan_scratch_bytes exceeds the
  // limit: <actual> > <cap>"; nothing is reserved then.
  // REQUIRES: bytes >= 0; Release only what was reserved.
  Status ReserveScratch(int64_t bytes);
  void ReleaseScratch(int64_t bytes);

  // Counts a run spilled because the pool refused to grow it (usage()).
  void CountEarlySpill();

  struct Usage {
    int64_t resident_bytes = 0;       // reserved now
    int64_t peak_resident_bytes = 0;  // highest resident_bytes since construction
    int64_t scratch_bytes = 0;        // reserved now
    int64_t peak_scratch_bytes = 0;
    int64_t early_spills = 0;         // runs spilled before their run_bytes
  };
  Usage usage() const;

 private:
  const OrderedScanLimits limits_;
  mutable std::mutex mutex_;
  Usage usage_;
};

}  // namespace omnigraph::exec
