// Runs a batch of blocking calls (fsync, fdatasync) concurrently on a small
// set of long-lived threads. File systems batch concurrent sync requests
// into one journal commit, so N new files cost about one barrier instead of
// N; keeping the threads alive saves a thread creation per call, which on
// a one-node insert was a sixth of its CPU time.
#pragma once

#include <cstddef>
#include <functional>

#include "util/status.h"

namespace omnigraph {

// Runs task(i) for every i in [0, count) and returns the first error in
// index order, or OK. Task 0 runs on the calling thread; the rest run on
// pool threads (started on first use, at most kMaxSyncWorkers, never
// stopped). While it waits, the caller runs queued tasks itself, so a
// batch never waits for a busy pool. Safe to call from several threads and
// after fork() (a child starts its own threads).
Status RunConcurrently(size_t count, const std::function<Status(size_t)>& task);

// Pool threads kept for sync batches.
inline constexpr size_t kMaxSyncWorkers = 8;

}  // namespace omnigraph
