#include "io/sync_workers.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace omnigraph {
namespace {

// One batch handed to RunConcurrently: its tasks and how many are done.
struct Batch {
  const std::function<Status(size_t)>* task = nullptr;
  std::vector<Status> results;
  size_t remaining = 0;  // guarded by Pool::mutex
};

struct Job {
  Batch* batch;
  size_t index;
};

class Pool {
 public:
  Status Run(size_t count, const std::function<Status(size_t)>& task) {
    Batch batch;
    batch.task = &task;
    batch.results.resize(count);
    batch.remaining = count - 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 1; i < count; ++i) queue_.push_back(Job{&batch, i});
      // One idle thread per queued job, up to the cap.
      while (threads_ < kMaxSyncWorkers && idle_ < queue_.size()) {
        std::thread([this] { Work(); }).detach();
        ++threads_;
        ++idle_;
      }
    }
    work_ready_.notify_all();
    batch.results[0] = task(0);
    std::unique_lock<std::mutex> lock(mutex_);
    // Help: run this batch's jobs still queued rather than wait for them.
    while (batch.remaining > 0) {
      auto mine = std::find_if(queue_.begin(), queue_.end(), [&](const Job& j) { return j.batch == &batch; });
      if (mine == queue_.end()) {
        batch_done_.wait(lock);
        continue;
      }
      Job job = *mine;
      queue_.erase(mine);
      lock.unlock();
      batch.results[job.index] = task(job.index);
      lock.lock();
      --batch.remaining;
    }
    lock.unlock();
    for (const Status& st : batch.results) OG_RETURN_IF_ERROR(st);
    return Status::OK();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] { return !queue_.empty(); });
      Job job = queue_.front();
      queue_.pop_front();
      --idle_;
      lock.unlock();
      Status st = (*job.batch->task)(job.index);
      lock.lock();
      job.batch->results[job.index] = std::move(st);
      ++idle_;
      if (--job.batch->remaining == 0) batch_done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable batch_done_;
  std::deque<Job> queue_;
  size_t threads_ = 0;
  size_t idle_ = 0;
};

// The pool is never destroyed: its threads block in a wait at exit, and a
// destructor racing them at static teardown would gain nothing.
std::mutex pool_mutex;
Pool* pool = nullptr;

Pool& ThePool() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    // A forked child has none of the parent's threads; it starts its own
    // pool (the parent's is leaked in the child, its mutex possibly held).
    ::pthread_atfork(nullptr, nullptr, [] {
      new (&pool_mutex) std::mutex();
      pool = nullptr;
    });
  });
  std::lock_guard<std::mutex> lock(pool_mutex);
  if (pool == nullptr) pool = new Pool();
  return *pool;
}

}  // namespace

Status RunConcurrently(size_t count, const std::function<Status(size_t)>& task) {
  if (count == 0) return Status::OK();
  if (count == 1) return task(0);
  return ThePool().Run(count, task);
}

}  // namespace omnigraph
