// Lines keyed by entity id, handed back in ascending id order with bounded
// memory: an external merge sort (spec/engine.md Appendix A, "ordered scan":
// sorted runs of at most 32 MiB spilled to scratch, then merged). Export
// renders each row's line as it scans a table batch by batch, and emits the
// table in id order without holding the table.
//
// With an OrderedScanBudget (exec/ordered_scan_budget.h) the run's bytes
// come from the process's shared pool and its spilled bytes count against
// the process's scratch cap: a run the pool will not grow is spilled early.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/ordered_scan_budget.h"
#include "util/status.h"

namespace omnigraph::exec {

// Bytes of ids and lines a run holds before it is sorted and spilled.
inline constexpr int64_t kOrderedRunBytes = int64_t{32} << 20;

class IdOrderedLines {
 public:
  // `run_bytes`: see kOrderedRunBytes (tests make it small to force spills).
  // `budget`: the process's ordered-scan envelope, which must outlive this;
  // nullptr leaves the scan bounded by `run_bytes` alone, with no scratch
  // cap (for tests and tools that run one scan). The scan takes its
  // guaranteed minimum (min(run_bytes, min_run_bytes)) from the budget here
  // and gives every byte back in Drain or the destructor, whichever is first,
  // on success and error alike.
  explicit IdOrderedLines(int64_t run_bytes = kOrderedRunBytes, OrderedScanBudget* budget = nullptr);
  ~IdOrderedLines();
  IdOrderedLines(const IdOrderedLines&) = delete;
  IdOrderedLines& operator=(const IdOrderedLines&) = delete;

  // Adds `line` under `id` (ids are unique within one table). Errors:
  // IoError when a run cannot be written to the scratch directory
  // (std::filesystem::temp_directory_path: $TMPDIR, else /tmp);
  // ResourceLimitExceeded when spilling a run would pass the budget's
  // scratch cap (OrderedScanBudget::ReserveScratch). After an error the
  // scan is unusable: destroy it.
  Status Add(std::string_view id, std::string line);

  // Hands every line to `emit`, in ascending id order (byte order), empties
  // this and releases its budget. Stops at, and returns, the first error of
  // `emit`. Errors: those of Add (the last run is spilled first when
  // earlier ones were), IoError reading a spilled run back.
  Status Drain(const std::function<Status(std::string_view line)>& emit);

  // Runs written to scratch so far (for tests and diagnostics).
  size_t spilled_runs() const { return runs_.size(); }

 private:
  struct Entry {
    std::string id;
    std::string line;
  };
  struct CloseFile {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  using File = std::unique_ptr<std::FILE, CloseFile>;
  // One spilled run: [offset, offset + bytes) of the scratch file.
  struct Run {
    int64_t offset = 0;
    int64_t bytes = 0;
  };

  // min(run_bytes_, the budget's min_run_bytes); 0 without a budget.
  int64_t MinRunBytes() const;
  // Makes room in the run for `entry_bytes` more: a grant from the pool,
  // else an early spill (OrderedScanBudget, "Resident bytes").
  Status Reserve(int64_t entry_bytes);
  void SortRun();
  Status Spill();
  Status Merge(const std::function<Status(std::string_view line)>& emit);
  // Gives back every reserved byte and drops the run and the scratch file.
  void Release();

  int64_t run_bytes_;
  OrderedScanBudget* budget_;
  std::vector<Entry> run_;
  int64_t held_bytes_ = 0;     // of the entries in run_
  int64_t granted_bytes_ = 0;  // resident bytes reserved from budget_ (>= held_bytes_)
  int64_t scratch_bytes_ = 0;  // scratch bytes reserved from budget_
  // Every run goes to one unlinked scratch file, so a scan holds one
  // descriptor however many runs it spills (the pool makes runs small when
  // many scans share it), and the kernel frees the file when it is closed,
  // also when the process dies.
  File scratch_;
  int64_t scratch_end_ = 0;
  std::vector<Run> runs_;
};

}  // namespace omnigraph::exec
