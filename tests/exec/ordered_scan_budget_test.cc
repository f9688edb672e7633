// The process-wide ordered-scan envelope (exec/ordered_scan_budget.h):
// scans sharing one pool spill earlier and never hold more than it, the
// scratch cap fails a scan with ResourceLimitExceeded, every byte comes
// back on every path, and the order of the output never changes.
#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/ordered_lines.h"
#include "exec/ordered_scan_budget.h"
#include "support/ordered_lines_input.h"

namespace omnigraph::exec {
namespace ordered_scan_budget_test {

using testing::AddId;
using testing::DrainAll;
using testing::ShuffledIds;

// Every entry below is id "NNNNNN" (6 bytes) and line "line NNNNNN\n"
// (12 bytes): 18 bytes + 64 of bookkeeping held in a run, 26 spilled.
constexpr int64_t kHeldPerEntry = 6 + 12 + 2 * sizeof(std::string);
constexpr int64_t kSpilledPerEntry = 2 * 4 + 6 + 12;

TEST(OrderedScanBudgetTest, TheSpecDefaults) {
  OrderedScanBudget budget;
  EXPECT_EQ(budget.limits().resident_bytes, 150 * 1024 * 1024);
  EXPECT_EQ(budget.limits().scratch_bytes, int64_t{100} * 1024 * 1024 * 1024);
  EXPECT_EQ(budget.limits().min_run_bytes, 1024 * 1024);
}

TEST(OrderedScanBudgetTest, GrantsFitThePoolAndGuaranteesMayPassIt) {
  OrderedScanBudget budget({.resident_bytes = 1000, .scratch_bytes = 1, .min_run_bytes = 100});
  budget.ReserveGuaranteed(100);
  EXPECT_TRUE(budget.TryReserve(900));
  EXPECT_FALSE(budget.TryReserve(1));  // nothing left, and nothing waits
  budget.ReserveGuaranteed(100);       // a scan starting now still takes its minimum
  EXPECT_EQ(budget.usage().resident_bytes, 1100);
  EXPECT_FALSE(budget.TryReserve(1));
  budget.ReleaseResident(1100);
  EXPECT_EQ(budget.usage().resident_bytes, 0);
  EXPECT_EQ(budget.usage().peak_resident_bytes, 1100);
}

TEST(OrderedScanBudgetTest, TheScratchCapRefusesWithResourceLimitExceeded) {
  OrderedScanBudget budget({.resident_bytes = 1, .scratch_bytes = 1000, .min_run_bytes = 1});
  ASSERT_TRUE(budget.ReserveScratch(600).ok());
  Status refused = budget.ReserveScratch(500);
  EXPECT_EQ(refused.code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(refused.message(), "ordered_scan_scratch_bytes exceeds the limit: 1100 > 1000");
  EXPECT_EQ(HttpStatusOf(refused.code()), 413);
  EXPECT_EQ(budget.usage().scratch_bytes, 600);  // the refused bytes were not taken
  ASSERT_TRUE(budget.ReserveScratch(400).ok());  // exactly the cap is allowed
  budget.ReleaseScratch(1000);
  EXPECT_EQ(budget.usage().scratch_bytes, 0);
  EXPECT_EQ(budget.usage().peak_scratch_bytes, 1000);
}

// Two scans alive at once, their rows interleaved, under a 16 KiB pool
// with 2 KiB minimums: alone, either would hold its 2,000 rows (164,000
// bytes) in one in-memory run; together they spill whenever the pool is
// spent, the pool is filled exactly and never passed, and the output is the
// unbounded sort's.
TEST(OrderedScanBudgetTest, ScansSharingAPoolSpillEarlierAndNeverPassIt) {
  constexpr int kRows = 2000;
  OrderedScanBudget budget({.resident_bytes = 16 * 1024, .scratch_bytes = int64_t{1} << 30, .min_run_bytes = 2048});
  IdOrderedLines unbounded;
  IdOrderedLines first(kOrderedRunBytes, &budget);
  IdOrderedLines second(kOrderedRunBytes, &budget);
  EXPECT_EQ(budget.usage().resident_bytes, 2 * 2048);  // the two minimums
  const std::vector<int> ids = ShuffledIds(kRows, 3);
  for (int id : ids) {
    ASSERT_TRUE(AddId(unbounded, id).ok());
    ASSERT_TRUE(AddId(first, id).ok());
    ASSERT_TRUE(AddId(second, kRows - 1 - id).ok());
  }
  EXPECT_EQ(unbounded.spilled_runs(), 0u);
  EXPECT_GT(first.spilled_runs(), 10u);
  EXPECT_GT(second.spilled_runs(), 10u);
  // Every spill so far was early (the runs are far below 32 MiB).
  const OrderedScanBudget::Usage added = budget.usage();
  EXPECT_EQ(added.early_spills, static_cast<int64_t>(first.spilled_runs() + second.spilled_runs()));
  // Grants come 512 bytes at a time on top of 4 KiB of minimums, so the
  // pool is filled to the byte, and only to it.
  EXPECT_EQ(added.peak_resident_bytes, 16 * 1024);
  EXPECT_LE(added.resident_bytes, 16 * 1024);
  EXPECT_EQ(added.scratch_bytes % kSpilledPerEntry, 0);
  EXPECT_GT(added.scratch_bytes, 0);

  const std::vector<std::string> expected = testing::ExpectedLines(kRows);
  EXPECT_EQ(DrainAll(unbounded), expected);
  EXPECT_EQ(DrainAll(first), expected);
  EXPECT_EQ(DrainAll(second), expected);
  const OrderedScanBudget::Usage drained = budget.usage();
  EXPECT_EQ(drained.resident_bytes, 0);
  EXPECT_EQ(drained.scratch_bytes, 0);
  EXPECT_EQ(drained.peak_resident_bytes, 16 * 1024);
  // At most both scans' every row was on disk at once.
  EXPECT_LE(drained.peak_scratch_bytes, 2 * kRows * kSpilledPerEntry);
}

// The same on two threads: whatever the interleaving, the pool is never
// passed and each scan's output is the sorted input.
TEST(OrderedScanBudgetTest, ConcurrentScansOnThreadsStayWithinThePool) {
  constexpr int kRows = 20000;
  constexpr int64_t kPool = 64 * 1024;
  OrderedScanBudget budget({.resident_bytes = kPool, .scratch_bytes = int64_t{1} << 30, .min_run_bytes = 4096});
  std::vector<std::string> outputs[2];
  {
    IdOrderedLines scans[2] = {IdOrderedLines(kOrderedRunBytes, &budget), IdOrderedLines(kOrderedRunBytes, &budget)};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        for (int id : ShuffledIds(kRows, 10 + t)) {
          if (!AddId(scans[t], id).ok()) return;
        }
        outputs[t] = DrainAll(scans[t]);
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  EXPECT_EQ(outputs[0], testing::ExpectedLines(kRows));
  EXPECT_EQ(outputs[1], testing::ExpectedLines(kRows));
  const OrderedScanBudget::Usage usage = budget.usage();
  EXPECT_LE(usage.peak_resident_bytes, kPool);
  // 20,000 rows are 1.6 MB held: the pool made both scans spill.
  EXPECT_GT(usage.early_spills, 2 * (kRows * kHeldPerEntry / kPool) - 2);
  EXPECT_EQ(usage.resident_bytes, 0);
  EXPECT_EQ(usage.scratch_bytes, 0);
}

// 256-byte runs spill every 4 entries (4 x 82 bytes held), 104 bytes each
// (4 x 26): the tenth spill would make 1,040 bytes of scratch, past 1,000.
TEST(OrderedScanBudgetTest, PassingTheScratchCapFailsTheScanAndReleasesEverything) {
  OrderedScanBudget budget({.resident_bytes = int64_t{1} << 20, .scratch_bytes = 1000, .min_run_bytes = 4096});
  {
    IdOrderedLines lines(/*run_bytes=*/256, &budget);
    EXPECT_EQ(budget.usage().resident_bytes, 256);  // min(run_bytes, min_run_bytes)
    Status added = Status::OK();
    int id = 0;
    for (; id < 100 && added.ok(); ++id) added = AddId(lines, 99 - id);
    EXPECT_EQ(id, 40);
    EXPECT_EQ(added.code(), ErrorCode::kResourceLimitExceeded);
    EXPECT_EQ(added.message(), "ordered_scan_scratch_bytes exceeds the limit: 1040 > 1000");
    EXPECT_EQ(HttpStatusOf(added.code()), 413);
    EXPECT_EQ(lines.spilled_runs(), 9u);
    EXPECT_EQ(budget.usage().scratch_bytes, 936);
    EXPECT_GT(budget.usage().resident_bytes, 0);
  }
  // Destroyed after the error: nothing stays reserved.
  EXPECT_EQ(budget.usage().resident_bytes, 0);
  EXPECT_EQ(budget.usage().scratch_bytes, 0);
  EXPECT_EQ(budget.usage().peak_scratch_bytes, 936);
}

// The cap is also met in Drain (spilling the last run before the merge),
// and Drain gives everything back before returning the error.
TEST(OrderedScanBudgetTest, DrainReleasesEverythingWhenItFails) {
  OrderedScanBudget budget({.resident_bytes = int64_t{1} << 20, .scratch_bytes = 104, .min_run_bytes = 4096});
  IdOrderedLines lines(/*run_bytes=*/256, &budget);
  for (int id = 0; id < 5; ++id) ASSERT_TRUE(AddId(lines, 4 - id).ok());  // one run of 4 spilled, 1 held
  EXPECT_EQ(budget.usage().scratch_bytes, 104);
  int emitted = 0;
  Status drained = lines.Drain([&](std::string_view) {
    ++emitted;
    return Status::OK();
  });
  EXPECT_EQ(drained.code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(drained.message(), "ordered_scan_scratch_bytes exceeds the limit: 130 > 104");
  EXPECT_EQ(emitted, 0);
  EXPECT_EQ(budget.usage().resident_bytes, 0);
  EXPECT_EQ(budget.usage().scratch_bytes, 0);
}

// An emit error stops the merge; the scan's bytes come back with it.
TEST(OrderedScanBudgetTest, AnEmitErrorReleasesEverything) {
  OrderedScanBudget budget({.resident_bytes = 4096, .scratch_bytes = 1 << 20, .min_run_bytes = 1024});
  IdOrderedLines lines(kOrderedRunBytes, &budget);
  for (int id : ShuffledIds(500, 5)) ASSERT_TRUE(AddId(lines, id).ok());
  EXPECT_GT(lines.spilled_runs(), 5u);
  int emitted = 0;
  Status stopped = lines.Drain([&](std::string_view) -> Status {
    if (++emitted == 10) return IoError("client went away");
    return Status::OK();
  });
  EXPECT_EQ(stopped.code(), ErrorCode::kIoError);
  EXPECT_EQ(emitted, 10);
  EXPECT_EQ(budget.usage().resident_bytes, 0);
  EXPECT_EQ(budget.usage().scratch_bytes, 0);
}

// A line larger than the scan's minimum, with the pool spent: the empty run
// still takes it (a scan always progresses), and gives it back.
TEST(OrderedScanBudgetTest, AnEntryLargerThanTheMinimumIsAdmitted) {
  OrderedScanBudget budget({.resident_bytes = 2048, .scratch_bytes = 1 << 20, .min_run_bytes = 1024});
  IdOrderedLines holder(kOrderedRunBytes, &budget);
  ASSERT_TRUE(budget.TryReserve(1024));  // the pool is now spent
  IdOrderedLines lines(kOrderedRunBytes, &budget);
  const std::string big(5000, 'x');
  ASSERT_TRUE(lines.Add("b", big + "\n").ok());
  ASSERT_TRUE(lines.Add("a", "small\n").ok());  // spills the big one first
  EXPECT_EQ(lines.spilled_runs(), 1u);
  EXPECT_EQ(budget.usage().early_spills, 1);
  EXPECT_EQ(budget.usage().peak_resident_bytes, 2048 + 1024 + (1 + 5001 + 64 - 1024));
  EXPECT_EQ(DrainAll(lines), (std::vector<std::string>{"small\n", big + "\n"}));
  budget.ReleaseResident(1024);
  EXPECT_EQ(budget.usage().resident_bytes, 1024);  // `holder`'s minimum
}

}  // namespace ordered_scan_budget_test
}  // namespace omnigraph::exec
