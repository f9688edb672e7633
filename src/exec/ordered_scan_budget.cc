#include "exec/ordered_scan_budget.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace omnigraph::exec {

OrderedScanBudget::OrderedScanBudget(OrderedScanLimits limits) : limits_(limits) {
  assert(limits_.resident_bytes > 0 && limits_.scratch_bytes > 0 && limits_.min_run_bytes > 0);
}

void OrderedScanBudget::ReserveGuaranteed(int64_t bytes) {
  std::lock_guard lock(mutex_);
  usage_.resident_bytes += bytes;
  usage_.peak_resident_bytes = std::max(usage_.peak_resident_bytes, usage_.resident_bytes);
}

bool OrderedScanBudget::TryReserve(int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (usage_.resident_bytes + bytes > limits_.resident_bytes) return false;
  usage_.resident_bytes += bytes;
  usage_.peak_resident_bytes = std::max(usage_.peak_resident_bytes, usage_.resident_bytes);
  return true;
}

void OrderedScanBudget::ReleaseResident(int64_t bytes) {
  std::lock_guard lock(mutex_);
  assert(bytes <= usage_.resident_bytes);
  usage_.resident_bytes -= bytes;
}

Status OrderedScanBudget::ReserveScratch(int64_t bytes) {
  std::lock_guard lock(mutex_);
  int64_t total = usage_.scratch_bytes + bytes;
  if (total > limits_.scratch_bytes) {
    return ResourceLimitExceeded(std::string(kOrderedScanScratchResource), static_cast<uint64_t>(limits_.scratch_bytes),
                                 static_cast<uint64_t>(total));
  }
  usage_.scratch_bytes = total;
  usage_.peak_scratch_bytes = std::max(usage_.peak_scratch_bytes, total);
  return Status::OK();
}

void OrderedScanBudget::ReleaseScratch(int64_t bytes) {
  std::lock_guard lock(mutex_);
  assert(bytes <= usage_.scratch_bytes);
  usage_.scratch_bytes -= bytes;
}

void OrderedScanBudget::CountEarlySpill() {
  std::lock_guard lock(mutex_);
  ++usage_.early_spills;
}

OrderedScanBudget::Usage OrderedScanBudget::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

}  // namespace omnigraph::exec
