// ObjectStore on a local POSIX file system (architecture.md §2 io).
//
// - PutIfAbsent writes a temporary file, fsyncs it and link(2)s it to the
//   target name: link fails with EEXIST when the name exists, which makes the
//   create atomic across processes, and the name only ever denotes complete
//   bytes.
// - Put and ObjectWriter write a temporary file, fsync it and rename(2) it
//   over the target.
// - Every publication fsyncs the parent directory (and any directory it had
//   to create, plus that directory's parent) before returning. The first
//   durable write into a directory in a process also fsyncs the parent of
//   each directory above it up to the root.
// Temporary files are named `.tmp_<uuid>` in the target directory; listings
// skip them. Writes with WriteOptions::durable = false skip the fsyncs; Sync()
// later fdatasyncs every named file and then fsyncs each distinct directory,
// so a batch of new files costs about one journal commit instead of two per
// file.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "io/object_store.h"

namespace omnigraph {

class LocalStore final : public ObjectStore {
 public:
  // `root` is an existing or creatable directory; keys resolve beneath it.
  explicit LocalStore(std::string root);
  static std::shared_ptr<LocalStore> Make(std::string root) { return std::make_shared<LocalStore>(std::move(root)); }

  Result<BufferPtr> Get(const std::string& path) override;
  Result<BufferPtr> GetRange(const std::string& path, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(const std::string& path) override;
  Result<std::unique_ptr<RandomAccessObject>> OpenForRead(const std::string& path) override;
  Status Put(const std::string& path, std::string_view data, const WriteOptions& options = {}) override;
  Status PutIfAbsent(const std::string& path, std::string_view data, const WriteOptions& options = {}) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(const std::string& path, const WriteOptions& options = {}) override;
  Status Sync(const std::vector<std::string>& paths) override;
  Result<std::string> StageForPublish(const std::string& path, std::string_view data) override;
  Status PublishIfAbsent(const std::string& staged, const std::string& path) override;
  Status Delete(const std::string& path) override;
  Status DeleteDurable(const std::string& path) override;
  Status DeletePrefix(const std::string& prefix) override;
  Result<std::vector<ObjectMeta>> List(const std::string& prefix, bool recursive = false) override;
  Result<std::vector<std::string>> ListDirectories(const std::string& prefix) override;
  Result<std::vector<std::string>> ListNames(const std::string& prefix) override;
  std::string Uri(const std::string& path) const override;
  // flock(2) on the file `path` (created when missing; never deleted, so
  // every process locks the same inode). Released when the process dies.
  Result<std::unique_ptr<Lock>> LockExclusive(const std::string& path,
                                              std::chrono::milliseconds max_wait = kWaitForever) override;

  // flock(2) on the directory `prefix` itself (LOCK_SH or LOCK_EX, with
  // LOCK_NB), opened read-only; the kernel releases it when the holder's
  // process dies. After locking, the directory still named `prefix` must be
  // the one locked (same device and inode), so a lock taken on a directory
  // that a concurrent holder removed is NotFound, not a lock on nothing.
  Result<std::unique_ptr<Lock>> TryLockDirectory(const std::string& prefix, DirectoryLockMode mode) override;

  const std::string& root() const { return root_; }

  // Last modification time of the object `path`, Unix nanoseconds (the
  // collector's age test for files no manifest names). Errors: NotFound,
  // IoError.
  Result<int64_t> ModifiedUnixNanos(const std::string& path);

  // Internal helpers shared with the writer implementation.
  std::string FullPath(const std::string& path) const;
  // Creates the directory of `full_path` and any missing parents, fsyncing
  // each parent that gained an entry. Errors: IoError.
  Status EnsureParentDirectory(const std::string& full_path);
  // Creates the root directory and any missing parents (as above), then
  // fsyncs the root's parent even when the root existed, so the root's own
  // entry is durable. For `init`. Errors: IoError.
  Status CreateRoot();
  // open(2) of `full_path` with `flags` (O_CREAT among them, mode 0644),
  // creating missing parent directories only when the open says they are
  // missing. Errors: AlreadyExists (O_EXCL), IoError.
  Result<int> OpenCreating(const std::string& full_path, int flags);
  Status SyncDirectory(const std::string& dir);
  // fsyncs each of `directories` (full paths, concurrently), plus the parent
  // of every directory between them and the root whose own entry this
  // process has not yet seen made durable (see UnconfirmedDirectories).
  Status SyncDirectories(std::vector<std::string> directories);
  Status SyncFile(int fd, const std::string& full_path);
  // Makes the entry of `full_path`, just published, durable. A failure
  // carries kDurabilityDetail = "unconfirmed" (see object_store.h).
  Status SyncPublishedName(const std::string& full_path);

 private:
  Status WriteTempFile(const std::string& full_path, std::string_view data, bool durable, std::string* temp_path);
  // Exclusive create of `full_path` holding `data`, without syncing.
  Status WriteExclusive(const std::string& full_path, std::string_view data);
  std::string root_;
  // Waits for a lock that LockExclusive gave up on, by lock path: while one
  // is still pending, later calls for that path do not wait again (each
  // write behind a stopped holder would otherwise lose max_wait).
  struct LockWaiter;
  std::mutex abandoned_mutex_;
  std::map<std::string, std::shared_ptr<LockWaiter>> abandoned_waits_;

  // Directory entries are durable only once their parent is synced. A
  // directory that exists may come from a writer that failed or died
  // between its mkdir and that sync, so before an object in it is
  // acknowledged, every directory between it and the root must have had its
  // parent synced, by this process or (for the root) by init. These are the
  // directories this process has done that for; the first durable write into
  // a directory pays for its ancestors once.
  std::vector<std::string> UnconfirmedDirectories(const std::string& dir);
  void ConfirmDirectories(const std::vector<std::string>& directories);
  // Appends the parents UnconfirmedDirectories calls for to `directories`
  // and returns the directories they confirm once synced.
  std::vector<std::string> AddUnconfirmedParents(std::vector<std::string>* directories);
  Status EnsureDirectory(const std::string& dir);
  std::mutex durable_directories_mutex_;
  std::unordered_set<std::string> durable_directories_;
};

namespace internal {

// The error of `operation` (a stat or open) on `full` having failed with
// `err`. A name held by a link to nothing is in use, not free (CorruptData):
// reporting it absent would let a reader skip it (an older version read as
// the latest) and a writer then collide with it. A regular file found there
// after an ENOENT was published concurrently, so the object was absent
// (NotFound). Exposed for tests.
Status MissingOrDangling(const char* operation, const std::string& full, int err);

}  // namespace internal
}  // namespace omnigraph
