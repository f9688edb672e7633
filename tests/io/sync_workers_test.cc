// The sync-batch runner (io/sync_workers.h).
#include "io/sync_workers.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace omnigraph {
namespace sync_workers_test {

// True when all `count` tasks of one batch were running at the same time:
// each waits (bounded) until every task has arrived.
bool RanAllAtOnce(size_t count) {
  std::mutex mutex;
  std::condition_variable arrived;
  size_t present = 0;
  std::atomic<size_t> together{0};
  Status st = RunConcurrently(count, [&](size_t) -> Status {
    std::unique_lock<std::mutex> lock(mutex);
    ++present;
    arrived.notify_all();
    if (arrived.wait_for(lock, std::chrono::seconds(10), [&] { return present == count; })) ++together;
    return Status::OK();
  });
  return st.ok() && together == count;
}

TEST(SyncWorkersTest, RunsEveryTaskOnceAndConcurrently) {
  std::vector<std::atomic<int>> runs(7);
  ASSERT_TRUE(RunConcurrently(7, [&](size_t i) -> Status {
                ++runs[i];
                return Status::OK();
              }).ok());
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_TRUE(RanAllAtOnce(kMaxSyncWorkers + 1));  // the caller plus every pool thread
  EXPECT_TRUE(RunConcurrently(0, [](size_t) -> Status { return Internal("never runs"); }).ok());
}

TEST(SyncWorkersTest, ReturnsTheFirstErrorInIndexOrderAfterEveryTaskRan) {
  std::atomic<int> ran{0};
  Status st = RunConcurrently(5, [&](size_t i) -> Status {
    ++ran;
    if (i == 3) return IoError("three");
    if (i == 4) return IoError("four");
    return Status::OK();
  });
  EXPECT_EQ(st.message(), "three");
  EXPECT_EQ(ran.load(), 5);
}

TEST(SyncWorkersTest, BatchesWiderThanThePoolAndFromManyThreadsComplete) {
  std::atomic<int> ran{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        Status st = RunConcurrently(3 * kMaxSyncWorkers, [&](size_t) -> Status {
          ++ran;
          return Status::OK();
        });
        EXPECT_TRUE(st.ok());
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(ran.load(), 4 * 50 * 3 * static_cast<int>(kMaxSyncWorkers));
}

TEST(SyncWorkersTest, AForkedChildStartsItsOwnThreads) {
  ASSERT_TRUE(RanAllAtOnce(4));  // the parent's pool exists
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(RanAllAtOnce(4) ? 0 : 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace sync_workers_test
}  // namespace omnigraph
