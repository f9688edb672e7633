// The object-store interface every storage layer writes through
// (architecture.md §2 io). Paths are relative, '/'-separated keys under the
// store's root; directories are implied by keys.
//
// Durability contract: a successful Put, PutIfAbsent or ObjectWriter::Finish
// means the bytes and the directory entry naming them survive a power cut.
// Visibility is atomic: readers see the whole object or nothing.
//
// A write that fails after its object became visible under its name, but
// before the name was made durable (the directory sync failed), returns its
// error with the detail kDurabilityDetail = "unconfirmed": readers may see
// the object now, and it may be gone after a power cut. Callers must not
// report such a write as acknowledged.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/buffer.h"
#include "util/status.h"

namespace omnigraph {

inline constexpr std::string_view kDurabilityDetail = "durability";

struct ObjectMeta {
  std::string path;   // full key relative to the store root
  uint64_t size = 0;  // bytes
  // Which object the name held when it was looked at: different whenever
  // the name has since been bound to another object (LocalStore: device,
  // inode and change time; an object store's ETag). Empty when unknown.
  std::string identity;
};

// Counters of storage requests, for benchmarks that budget them.
struct StoreCounters {
  std::atomic<uint64_t> reads{0};         // Get, GetRange, ReadAt, Head
  std::atomic<uint64_t> writes{0};        // Put, PutIfAbsent, ObjectWriter::Finish
  std::atomic<uint64_t> lists{0};
  std::atomic<uint64_t> deletes{0};
  std::atomic<uint64_t> sync_calls{0};    // fsync/fdatasync calls (files and directories)
  // Durability barriers: the times a caller waited for syncs to finish. A
  // batch of concurrent syncs (ObjectStore::Sync) is one barrier however
  // many calls it makes; a lone file or directory sync is one too.
  std::atomic<uint64_t> sync_barriers{0};

  void Reset() { reads = writes = lists = deletes = sync_calls = sync_barriers = 0; }
};

// How a write reaches disk.
struct WriteOptions {
  // true: the call returns only after the bytes and the directory entry are
  // fsynced. false: the bytes are written but durability is deferred to a
  // later ObjectStore::Sync of the path, so several writes share one set of
  // sync barriers.
  bool durable = true;
  // Only with durable = false, for PutIfAbsent and OpenWriter: create the
  // final name directly (exclusive create) instead of writing a temporary
  // file and publishing it. Readers could then observe a partial object, so
  // use it only for objects nobody reads before something durable names them
  // (data files with fresh random names, detached manifests).
  bool direct = false;
};

// An object opened for repeated ranged reads.
class RandomAccessObject {
 public:
  virtual ~RandomAccessObject() = default;
  virtual uint64_t size() const = 0;
  // Reads [offset, offset + length). CorruptData when the range runs past the
  // end of the object (a truncated file), IoError on read failure.
  virtual Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) = 0;
  virtual const std::string& path() const = 0;
};

// Streams a new object. Nothing is visible until Finish() succeeds; a writer
// destroyed without Finish() leaves nothing behind.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  virtual Status Write(const void* data, size_t size) = 0;
  Status Write(std::string_view bytes) { return Write(bytes.data(), bytes.size()); }
  // Makes the object durable and visible, replacing any previous object.
  virtual Status Finish() = 0;
  virtual uint64_t bytes_written() const = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Whole object. NotFound when absent.
  virtual Result<BufferPtr> Get(const std::string& path) = 0;
  // [offset, offset + length). NotFound when absent; CorruptData past the end.
  virtual Result<BufferPtr> GetRange(const std::string& path, uint64_t offset, uint64_t length) = 0;
  // Size of the object. NotFound when absent; CorruptData when the name is
  // held by something that is not an object (a directory, a dangling link).
  virtual Result<ObjectMeta> Head(const std::string& path) = 0;
  virtual Result<std::unique_ptr<RandomAccessObject>> OpenForRead(const std::string& path) = 0;

  // Atomically creates or replaces `path` with `data` (durably unless
  // options.durable is false).
  virtual Status Put(const std::string& path, std::string_view data, const WriteOptions& options = {}) = 0;
  // Creates `path` only if no object exists there; AlreadyExists otherwise.
  // Atomic across processes: of concurrent callers exactly one succeeds.
  virtual Status PutIfAbsent(const std::string& path, std::string_view data, const WriteOptions& options = {}) = 0;
  virtual Result<std::unique_ptr<ObjectWriter>> OpenWriter(const std::string& path,
                                                           const WriteOptions& options = {}) = 0;
  // Two-phase put-if-absent, so a commit can sync its new manifest in the
  // same batch as the files it names: StageForPublish writes `data` to a
  // temporary object next to `path` (not synced; pass the returned key to
  // Sync), PublishIfAbsent then creates `path` from it atomically if absent
  // (AlreadyExists otherwise) and makes the directory entry durable. The
  // staged object is removed either way.
  virtual Result<std::string> StageForPublish(const std::string& path, std::string_view data) = 0;
  virtual Status PublishIfAbsent(const std::string& staged, const std::string& path) = 0;
  // Makes objects written with durable = false durable: their bytes and the
  // directory entries naming them (LocalStore: one concurrent round of
  // fdatasync per file and fsync per directory; the directory of a
  // temporary name is not synced, as that name is never published).
  // Errors: NotFound for a missing path, IoError.
  virtual Status Sync(const std::vector<std::string>& paths) = 0;

  // Removes `path`; NotFound when absent.
  virtual Status Delete(const std::string& path) = 0;
  // Removes `path` and makes the removal durable before returning (a
  // removal that acknowledges a user operation, such as deleting a branch's
  // record). Stores whose deletes are durable use Delete.
  virtual Status DeleteDurable(const std::string& path) { return Delete(path); }
  // Removes every object under `prefix/` (used by tests and cleanup).
  virtual Status DeletePrefix(const std::string& prefix) = 0;
  // Objects under `prefix/`, sorted by path. Non-recursive lists only the
  // direct children that are objects. An absent prefix lists nothing.
  virtual Result<std::vector<ObjectMeta>> List(const std::string& prefix, bool recursive = false) = 0;
  // Direct child "directories" of `prefix/` (names only, sorted).
  virtual Result<std::vector<std::string>> ListDirectories(const std::string& prefix) = 0;
  // Names (not paths) in use directly under `prefix/`, sorted, without
  // sizes: what resolving a latest version needs, at one directory read
  // instead of a stat per object (a long history keeps thousands of
  // versions). Besides objects, a store with directories lists any other
  // entry holding a name (a directory, a dangling link), so a damaged
  // newest version is reported when opened instead of skipped. Temporary
  // names are not listed; an absent prefix lists nothing. Errors: IoError.
  virtual Result<std::vector<std::string>> ListNames(const std::string& prefix) {
    OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> objects, List(prefix));
    std::vector<std::string> names;
    names.reserve(objects.size());
    for (ObjectMeta& object : objects) {
      size_t slash = object.path.rfind('/');
      names.push_back(slash == std::string::npos ? std::move(object.path) : object.path.substr(slash + 1));
    }
    return names;
  }

  // Absolute URI of `path` (Lance base paths record absolute roots).
  virtual std::string Uri(const std::string& path) const = 0;

  // An exclusive lock named `path`, held until the returned object is
  // destroyed, shared by every process using this store (and by every
  // handle in this one). It only orders cooperating writers; correctness
  // never depends on it (conditional puts decide). Blocks while another
  // holder has it, for at most `max_wait`: then it returns nullptr and the
  // caller proceeds unordered, so a stalled holder (a stopped process)
  // cannot stop every other writer. Stores that cannot lock return nullptr
  // at once. Errors: IoError.
  struct Lock {
    virtual ~Lock() = default;
  };
  static constexpr std::chrono::milliseconds kWaitForever = std::chrono::milliseconds::max();
  virtual Result<std::unique_ptr<Lock>> LockExclusive(const std::string& path,
                                                      std::chrono::milliseconds max_wait = kWaitForever) {
    (void)path;
    (void)max_wait;
    return std::unique_ptr<Lock>();
  }

  // A shared or exclusive advisory lock on the directory `prefix` ("" =
  // the store's root), held until the returned object is destroyed and
  // honoured by every process using this store; the export-root exclusion
  // (io/export_exclusion.h) is built on it. Never waits. Shared holders
  // coexist; an exclusive holder excludes every other. Stores that cannot
  // lock directories return nullptr at once: nothing is held.
  // Errors: Conflict when a holder in an excluding mode has the directory;
  // NotFound when the directory does not exist, or was removed or replaced
  // while it was being locked; IoError.
  enum class DirectoryLockMode { kShared, kExclusive };
  virtual Result<std::unique_ptr<Lock>> TryLockDirectory(const std::string& prefix, DirectoryLockMode mode) {
    (void)prefix;
    (void)mode;
    return std::unique_ptr<Lock>();
  }

  StoreCounters& counters() { return counters_; }

 protected:
  StoreCounters counters_;
};

using ObjectStorePtr = std::shared_ptr<ObjectStore>;

// Joins key segments with '/', ignoring empty segments.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace omnigraph
