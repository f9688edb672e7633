#include "io/local_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>
#include <mutex>
#include <condition_variable>

#include <fmt/format.h>

#include "io/sync_workers.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/random.h"

namespace omnigraph {
namespace {

constexpr std::string_view kTempPrefix = ".tmp_";

Status ErrnoStatus(std::string_view what, const std::string& path, int err) {
  if (err == ENOENT) return NotFound(fmt::format("{} '{}': no such file", what, path));
  if (err == EEXIST) return AlreadyExists(fmt::format("{} '{}': already exists", what, path));
  return IoError(fmt::format("{} '{}': {}", what, path, std::strerror(err)));
}

std::string DirectoryOf(const std::string& full_path) {
  size_t slash = full_path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : full_path.substr(0, slash));
}

bool IsTemporaryName(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  return name.substr(0, kTempPrefix.size()) == kTempPrefix;
}

Status WriteAll(int fd, const void* data, size_t size, const std::string& path) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status ReadAllAt(int fd, uint8_t* out, uint64_t offset, uint64_t length, const std::string& path) {
  while (length > 0) {
    ssize_t n = ::pread(fd, out, length, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("read", path, errno);
    }
    if (n == 0) return CorruptData(fmt::format("'{}' ended early: {} bytes missing at offset {}", path, length, offset));
    out += n;
    offset += static_cast<uint64_t>(n);
    length -= static_cast<uint64_t>(n);
  }
  return Status::OK();
}

// An object name held by something other than a regular file (a
// directory, a dangling link, a FIFO): the store is damaged there.
Status NotARegularFile(const std::string& full) {
  return CorruptData(fmt::format("'{}' exists but is not a regular file", full));
}

}  // namespace

namespace internal {

Status MissingOrDangling(const char* operation, const std::string& full, int err) {
  struct stat link;
  // A regular file there now was created after the failed call (a writer
  // published it meanwhile): the object was absent when it was looked up.
  if (err == ENOENT && ::lstat(full.c_str(), &link) == 0 && !S_ISREG(link.st_mode)) return NotARegularFile(full);
  return ErrnoStatus(operation, full, err);
}

}  // namespace internal

namespace {

using internal::MissingOrDangling;

// A read-only private mapping of the `size` bytes of `fd` as a buffer (the
// mapping keeps the file's data alive; `fd` may be closed). Objects are
// immutable once named and replaced only by rename, so a mapping never sees
// bytes change or vanish under it.
Result<BufferPtr> MapFile(int fd, size_t size, const std::string& path) {
  if (size == 0) return BufferPtr(Buffer::Zeroed(0));
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) return ErrnoStatus("mmap", path, errno);
  std::shared_ptr<const void> mapping(mapped, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  return BufferPtr(Buffer::View(static_cast<const uint8_t*>(mapped), size, std::move(mapping)));
}

// Files of at least this many bytes are read through one mapping instead of
// copies: decoding reads the page cache in place, without an anonymous
// page fault per 4 KiB of every buffer (most of a cold query's read cost).
constexpr uint64_t kMapFilesFrom = 1 << 20;

class LocalRandomAccessObject final : public RandomAccessObject {
 public:
  LocalRandomAccessObject(int fd, uint64_t size, std::string path, StoreCounters* counters)
      : fd_(fd), size_(size), path_(std::move(path)), counters_(counters) {}
  ~LocalRandomAccessObject() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) override {
    ++counters_->reads;
    if (offset > size_ || length > size_ - offset) {
      return CorruptData(fmt::format("'{}': range [{}, {}) is past the end of the {}-byte object", path_, offset,
                                     offset + length, size_));
    }
    if (size_ >= kMapFilesFrom) {
      if (!mapping_) {
        OG_ASSIGN_OR_RETURN(mapping_, MapFile(fd_, static_cast<size_t>(size_), path_));
      }
      return mapping_->Slice(static_cast<size_t>(offset), static_cast<size_t>(length));
    }
    auto buffer = Buffer::Uninitialized(length);
    OG_RETURN_IF_ERROR(ReadAllAt(fd_, buffer->mutable_data(), offset, length, path_));
    return BufferPtr(std::move(buffer));
  }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
  StoreCounters* counters_;
  BufferPtr mapping_;  // the whole file, once mapped
};

class LocalObjectWriter final : public ObjectWriter {
 public:
  // `temp_path` empty = writing the final name directly (WriteOptions::direct).
  LocalObjectWriter(LocalStore* store, std::string full_path, std::string temp_path, int fd, bool durable)
      : store_(store), full_path_(std::move(full_path)), temp_path_(std::move(temp_path)), fd_(fd), durable_(durable) {}
  ~LocalObjectWriter() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(written_path().c_str());
    }
  }
  Status Write(const void* data, size_t size) override {
    if (fd_ < 0) return Internal("write after Finish");
    const auto* p = static_cast<const uint8_t*>(data);
    written_ += size;
    if (buffer_.size() + size > kBufferBytes) {
      OG_RETURN_IF_ERROR(Flush());
      if (size >= kBufferBytes) return WriteAll(fd_, p, size, written_path());
    }
    buffer_.insert(buffer_.end(), p, p + size);
    return Status::OK();
  }
  Status Finish() override {
    if (fd_ < 0) return Internal("Finish called twice");
    OG_RETURN_IF_ERROR(Flush());
    if (durable_) {
      ++store_->counters().sync_barriers;
      OG_RETURN_IF_ERROR(store_->SyncFile(fd_, written_path()));
    }
    ::close(fd_);
    fd_ = -1;
    if (temp_path_.empty()) {
      ++store_->counters().writes;
      return Status::OK();
    }
    Status published = Publish();
    if (!published.ok()) ::unlink(temp_path_.c_str());
    return published;
  }
  uint64_t bytes_written() const override { return written_; }

 private:
  // Writes are gathered up to this many bytes. The buffer grows as data
  // arrives instead of being reserved up front: most objects are a few KiB
  // (one-row fragments, manifests), and reserving 1 MiB per writer made the
  // allocator map, fault in and trim a megabyte for each of them.
  static constexpr size_t kBufferBytes = 1 << 20;
  const std::string& written_path() const { return temp_path_.empty() ? full_path_ : temp_path_; }
  Status Flush() {
    Status st = WriteAll(fd_, buffer_.data(), buffer_.size(), written_path());
    buffer_.clear();
    return st;
  }
  Status Publish() {
    OG_FAILPOINT(failpoint::kStoreBeforePublish);
    if (::rename(temp_path_.c_str(), full_path_.c_str()) != 0) return ErrnoStatus("rename", full_path_, errno);
    ++store_->counters().writes;
    if (!durable_) return Status::OK();
    return store_->SyncPublishedName(full_path_);
  }

  LocalStore* store_;
  std::string full_path_;
  std::string temp_path_;
  int fd_;
  bool durable_;
  uint64_t written_ = 0;
  std::vector<uint8_t> buffer_;
};

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  while (!a.empty() && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out;
  out.reserve(a.size() + 1 + b.size());
  out.append(a).append("/").append(b);
  return out;
}

LocalStore::LocalStore(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = ".";
}

std::string LocalStore::FullPath(const std::string& path) const { return JoinPath(root_, path); }

std::string LocalStore::Uri(const std::string& path) const {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(FullPath(path), ec);
  return ec ? FullPath(path) : absolute.lexically_normal().string();
}

Status LocalStore::SyncFile(int fd, const std::string& full_path) {
  OG_FAILPOINT(failpoint::kStoreBeforeFileSync);
  ++counters_.sync_calls;
  if (::fdatasync(fd) != 0) return ErrnoStatus("fdatasync", full_path, errno);
  return Status::OK();
}

Status LocalStore::SyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open directory", dir, errno);
  ++counters_.sync_calls;
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync directory", dir, err);
  return Status::OK();
}

// `dir` and its ancestors below the root, nearest first, up to the first one
// already confirmed.
std::vector<std::string> LocalStore::UnconfirmedDirectories(const std::string& dir) {
  std::vector<std::string> chain;
  std::lock_guard<std::mutex> lock(durable_directories_mutex_);
  for (std::string d = dir; d.size() > root_.size() && d != root_; d = DirectoryOf(d)) {
    if (durable_directories_.count(d)) break;
    chain.push_back(d);
  }
  return chain;
}

void LocalStore::ConfirmDirectories(const std::vector<std::string>& directories) {
  std::lock_guard<std::mutex> lock(durable_directories_mutex_);
  durable_directories_.insert(directories.begin(), directories.end());
}

std::vector<std::string> LocalStore::AddUnconfirmedParents(std::vector<std::string>* directories) {
  std::vector<std::string> unconfirmed;
  size_t named = directories->size();
  for (size_t d = 0; d < named; ++d) {
    for (std::string& dir : UnconfirmedDirectories((*directories)[d])) {
      std::string parent = DirectoryOf(dir);
      if (std::find(directories->begin(), directories->end(), parent) == directories->end()) {
        directories->push_back(std::move(parent));
      }
      unconfirmed.push_back(std::move(dir));
    }
  }
  return unconfirmed;
}

Status LocalStore::SyncDirectories(std::vector<std::string> directories) {
  std::vector<std::string> unconfirmed = AddUnconfirmedParents(&directories);
  Status st = directories.size() == 1 ? SyncDirectory(directories[0])
                                      : RunConcurrently(directories.size(), [&](size_t i) {
                                          return SyncDirectory(directories[i]);
                                        });
  if (st.ok()) ConfirmDirectories(unconfirmed);
  return st;
}

Status LocalStore::SyncPublishedName(const std::string& full_path) {
  ++counters_.sync_barriers;
  Status st = [&]() -> Status {
    OG_FAILPOINT(failpoint::kStoreBeforeDirSync);
    return SyncDirectories({DirectoryOf(full_path)});
  }();
  if (st.ok()) return st;
  return st.WithDetail(std::string(kDurabilityDetail), "unconfirmed");
}

Status LocalStore::EnsureDirectory(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return IoError(fmt::format("'{}' is not a directory", dir));
    return Status::OK();
  }
  std::string parent = DirectoryOf(dir);
  OG_RETURN_IF_ERROR(EnsureDirectory(parent));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("mkdir", dir, errno);
  // The new directory's entry lives in its parent; make it durable. (Also
  // after EEXIST: the writer that created it may not have synced it yet.)
  ++counters_.sync_barriers;
  OG_RETURN_IF_ERROR(SyncDirectory(parent));
  if (UnconfirmedDirectories(parent).empty()) ConfirmDirectories({dir});
  return Status::OK();
}

Status LocalStore::EnsureParentDirectory(const std::string& full_path) {
  return EnsureDirectory(DirectoryOf(full_path));
}

Status LocalStore::CreateRoot() {
  struct stat st;
  bool existed = ::stat(root_.c_str(), &st) == 0;
  OG_RETURN_IF_ERROR(EnsureDirectory(root_));
  if (!existed) return Status::OK();  // its parent was synced when it was made
  // Made by someone else (a user's mkdir), maybe without a durable entry.
  ++counters_.sync_barriers;
  return SyncDirectory(DirectoryOf(root_));
}

Result<int> LocalStore::OpenCreating(const std::string& full_path, int flags) {
  // Optimistic: the parent usually exists, so no stat precedes the open;
  // only a missing (or non-directory) parent takes the slow path.
  int fd = ::open(full_path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
    OG_RETURN_IF_ERROR(EnsureParentDirectory(full_path));
    fd = ::open(full_path.c_str(), flags | O_CLOEXEC, 0644);
  }
  if (fd < 0) return ErrnoStatus((flags & O_EXCL) ? "create" : "open", full_path, errno);
  return fd;
}

Status LocalStore::WriteTempFile(const std::string& full_path, std::string_view data, bool durable,
                                 std::string* temp_path) {
  *temp_path = JoinPath(DirectoryOf(full_path), std::string(kTempPrefix) + Uuid::Random().ToHex());
  OG_ASSIGN_OR_RETURN(int fd, OpenCreating(*temp_path, O_WRONLY | O_CREAT | O_EXCL));
  Status st = WriteAll(fd, data.data(), data.size(), *temp_path);
  if (st.ok() && durable) {
    ++counters_.sync_barriers;
    st = SyncFile(fd, *temp_path);
  }
  ::close(fd);
  if (!st.ok()) ::unlink(temp_path->c_str());
  return st;
}

Status LocalStore::WriteExclusive(const std::string& full_path, std::string_view data) {
  OG_ASSIGN_OR_RETURN(int fd, OpenCreating(full_path, O_WRONLY | O_CREAT | O_EXCL));
  Status st = WriteAll(fd, data.data(), data.size(), full_path);
  ::close(fd);
  if (!st.ok()) ::unlink(full_path.c_str());
  if (st.ok()) ++counters_.writes;
  return st;
}

Status LocalStore::Sync(const std::vector<std::string>& paths) {
  if (paths.empty()) return Status::OK();
  std::vector<std::string> files, directories;
  for (const std::string& path : paths) {
    files.push_back(FullPath(path));
    // A temporary object's name is never meant to survive a crash (it is
    // published under its final name later, and that directory is synced
    // then); only its bytes must be durable now.
    if (IsTemporaryName(path)) continue;
    std::string dir = DirectoryOf(files.back());
    if (std::find(directories.begin(), directories.end(), dir) == directories.end()) directories.push_back(dir);
  }
  // One round: every file's bytes and every directory's entries are synced
  // concurrently. Nothing orders a file's data against its name here; both
  // only have to be durable before the call returns, since nothing names
  // these objects until the caller publishes them afterwards.
  OG_FAILPOINT(failpoint::kStoreBeforeDirSync);
  ++counters_.sync_barriers;
  // Directories this process has not seen made durable add their parents.
  std::vector<std::string> unconfirmed = AddUnconfirmedParents(&directories);
  Status st = RunConcurrently(files.size() + directories.size(), [&](size_t i) -> Status {
    if (i >= files.size()) return SyncDirectory(directories[i - files.size()]);
    int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open for sync", files[i], errno);
    Status st = SyncFile(fd, files[i]);
    ::close(fd);
    return st;
  });
  if (st.ok()) ConfirmDirectories(unconfirmed);
  return st;
}

Result<BufferPtr> LocalStore::Get(const std::string& path) {
  OG_ASSIGN_OR_RETURN(auto object, OpenForRead(path));
  return object->ReadAt(0, object->size());
}

Result<BufferPtr> LocalStore::GetRange(const std::string& path, uint64_t offset, uint64_t length) {
  OG_ASSIGN_OR_RETURN(auto object, OpenForRead(path));
  return object->ReadAt(offset, length);
}

Result<ObjectMeta> LocalStore::Head(const std::string& path) {
  ++counters_.reads;
  std::string full = FullPath(path);
  struct stat st;
  if (::stat(full.c_str(), &st) != 0) return MissingOrDangling("stat", full, errno);
  if (!S_ISREG(st.st_mode)) return NotARegularFile(full);
  // An inode number alone can be reused once its file is deleted; with the
  // change time (ns) a reused one is told apart.
  return ObjectMeta{path, static_cast<uint64_t>(st.st_size),
                    fmt::format("{:x}.{:x}.{:x}.{:x}", st.st_dev, st.st_ino, st.st_ctim.tv_sec, st.st_ctim.tv_nsec)};
}

Result<std::unique_ptr<RandomAccessObject>> LocalStore::OpenForRead(const std::string& path) {
  std::string full = FullPath(path);
  // O_NONBLOCK: a FIFO or device under an object's name must be refused
  // below, not block the open (it changes nothing for regular files).
  int fd = ::open(full.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return MissingOrDangling("open", full, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("stat", full, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotARegularFile(full);
  }
  return std::unique_ptr<RandomAccessObject>(
      new LocalRandomAccessObject(fd, static_cast<uint64_t>(st.st_size), full, &counters_));
}

Status LocalStore::Put(const std::string& path, std::string_view data, const WriteOptions& options) {
  std::string full = FullPath(path);
  std::string temp;
  OG_RETURN_IF_ERROR(WriteTempFile(full, data, options.durable, &temp));
  Status st = [&]() -> Status {
    OG_FAILPOINT(failpoint::kStoreBeforePublish);
    if (::rename(temp.c_str(), full.c_str()) != 0) return ErrnoStatus("rename", full, errno);
    return Status::OK();
  }();
  if (!st.ok()) {
    ::unlink(temp.c_str());
    return st;
  }
  ++counters_.writes;
  if (!options.durable) return Status::OK();
  return SyncPublishedName(full);
}

// Names `temp`'s file `full` unless an object exists there (AlreadyExists),
// atomically across processes; `temp` is gone afterwards either way.
// renameat2(RENAME_NOREPLACE) does it in one directory operation; file
// systems without it get link() (which refuses an existing name) and an
// unlink of the temporary name.
static Status MoveIfAbsent(const std::string& temp, const std::string& full) {
  Status st = [&]() -> Status {
    OG_FAILPOINT(failpoint::kStoreBeforePublish);
    return Status::OK();
  }();
  if (!st.ok()) {
    ::unlink(temp.c_str());
    return st;
  }
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, full.c_str(), RENAME_NOREPLACE) == 0) return Status::OK();
  int err = errno;
  if (err == EINVAL || err == ENOSYS) {
    err = ::link(temp.c_str(), full.c_str()) == 0 ? 0 : errno;
  }
  ::unlink(temp.c_str());
  return err == 0 ? Status::OK() : ErrnoStatus("create", full, err);
}

Status LocalStore::PutIfAbsent(const std::string& path, std::string_view data, const WriteOptions& options) {
  std::string full = FullPath(path);
  if (options.direct && !options.durable) return WriteExclusive(full, data);
  std::string temp;
  OG_RETURN_IF_ERROR(WriteTempFile(full, data, options.durable, &temp));
  OG_RETURN_IF_ERROR(MoveIfAbsent(temp, full));
  ++counters_.writes;
  if (!options.durable) return Status::OK();
  return SyncPublishedName(full);
}

Result<std::string> LocalStore::StageForPublish(const std::string& path, std::string_view data) {
  std::string full = FullPath(path);
  std::string temp;
  OG_RETURN_IF_ERROR(WriteTempFile(full, data, /*durable=*/false, &temp));
  // Return the key relative to the store root.
  return temp.substr(root_.size() + 1);
}

Status LocalStore::PublishIfAbsent(const std::string& staged, const std::string& path) {
  std::string full = FullPath(path);
  OG_RETURN_IF_ERROR(MoveIfAbsent(FullPath(staged), full));
  ++counters_.writes;
  return SyncPublishedName(full);
}

Result<std::unique_ptr<ObjectWriter>> LocalStore::OpenWriter(const std::string& path, const WriteOptions& options) {
  std::string full = FullPath(path);
  bool direct = options.direct && !options.durable;
  std::string temp = direct ? "" : JoinPath(DirectoryOf(full), std::string(kTempPrefix) + Uuid::Random().ToHex());
  OG_ASSIGN_OR_RETURN(int fd, OpenCreating(direct ? full : temp, O_WRONLY | O_CREAT | O_EXCL));
  return std::unique_ptr<ObjectWriter>(new LocalObjectWriter(this, full, temp, fd, options.durable));
}

namespace {

class FileLock final : public ObjectStore::Lock {
 public:
  explicit FileLock(int fd) : fd_(fd) {}
  ~FileLock() override { ::close(fd_); }  // closing releases the flock

 private:
  int fd_;
};

}  // namespace

// One blocking flock in a helper thread (see LockExclusive).
struct LocalStore::LockWaiter {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;       // the flock returned
  bool abandoned = false;  // nobody waits for it any more: release at once
  int error = 0;
};

Result<std::unique_ptr<ObjectStore::Lock>> LocalStore::LockExclusive(const std::string& path,
                                                                    std::chrono::milliseconds max_wait) {
  std::string full = FullPath(path);
  OG_ASSIGN_OR_RETURN(int fd, OpenCreating(full, O_RDWR | O_CREAT));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return std::unique_ptr<Lock>(new FileLock(fd));
  if (errno != EWOULDBLOCK && errno != EINTR) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("lock", full, err);
  }
  // Held elsewhere: a helper thread makes the blocking flock, so the kernel
  // still hands the lock over at once, while this thread's wait is bounded.
  // A waiter given up on releases the lock as soon as it gets it.
  if (max_wait != kWaitForever) {
    std::lock_guard<std::mutex> lock(abandoned_mutex_);
    auto it = abandoned_waits_.find(full);
    if (it != abandoned_waits_.end()) {
      std::lock_guard<std::mutex> waiter_lock(it->second->mutex);
      if (!it->second->done) {
        ::close(fd);  // the holder we gave up on still has it
        return std::unique_ptr<Lock>();
      }
      abandoned_waits_.erase(it);
    }
  }
  auto waiter = std::make_shared<LockWaiter>();
  std::thread([waiter, fd] {
    int rc;
    do {
      rc = ::flock(fd, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    int error = rc == 0 ? 0 : errno;
    std::lock_guard<std::mutex> lock(waiter->mutex);
    waiter->done = true;
    waiter->error = error;
    if (waiter->abandoned) ::close(fd);
    waiter->done_cv.notify_all();
  }).detach();
  {
    std::unique_lock<std::mutex> lock(waiter->mutex);
    auto finished = [&] { return waiter->done; };
    if (max_wait == kWaitForever) {
      waiter->done_cv.wait(lock, finished);
    } else if (!waiter->done_cv.wait_for(lock, max_wait, finished)) {
      waiter->abandoned = true;
      lock.unlock();
      std::lock_guard<std::mutex> abandoned_lock(abandoned_mutex_);
      abandoned_waits_[full] = waiter;
      return std::unique_ptr<Lock>();
    }
  }
  if (waiter->error != 0) {
    ::close(fd);
    return ErrnoStatus("lock", full, waiter->error);
  }
  return std::unique_ptr<Lock>(new FileLock(fd));
}

Result<std::unique_ptr<ObjectStore::Lock>> LocalStore::TryLockDirectory(const std::string& prefix,
                                                                        DirectoryLockMode mode) {
  const std::string full = FullPath(prefix);
  int fd;
  do {
    fd = ::open(full.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return NotFound(fmt::format("lock '{}': no such directory", full));
    return ErrnoStatus("lock", full, err);
  }
  auto held = std::make_unique<FileLock>(fd);  // closes the descriptor on a failure below
  int rc;
  do {
    rc = ::flock(fd, (mode == DirectoryLockMode::kShared ? LOCK_SH : LOCK_EX) | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      return Status(ErrorCode::kConflict, fmt::format("lock '{}': held by another holder", full));
    }
    return ErrnoStatus("lock", full, err);
  }
  // A holder that removed the directory released it only after the
  // removal: the descriptor opened before then names a directory that is
  // gone (or a new one now holds the name).
  struct stat locked, named;
  if (::fstat(fd, &locked) != 0) return ErrnoStatus("lock", full, errno);
  if (::stat(full.c_str(), &named) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return NotFound(fmt::format("lock '{}': the directory was removed", full));
    return ErrnoStatus("lock", full, err);
  }
  if (locked.st_dev != named.st_dev || locked.st_ino != named.st_ino) {
    return NotFound(fmt::format("lock '{}': the directory was removed", full));
  }
  return std::unique_ptr<Lock>(std::move(held));
}

Result<int64_t> LocalStore::ModifiedUnixNanos(const std::string& path) {
  ++counters_.reads;
  std::string full = FullPath(path);
  struct stat st;
  if (::stat(full.c_str(), &st) != 0) return ErrnoStatus("stat", full, errno);
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

Status LocalStore::Delete(const std::string& path) {
  ++counters_.deletes;
  std::string full = FullPath(path);
  if (::unlink(full.c_str()) != 0) return ErrnoStatus("delete", full, errno);
  return Status::OK();
}

Status LocalStore::DeleteDurable(const std::string& path) {
  OG_RETURN_IF_ERROR(Delete(path));
  // The unlink is durable once the directory that held the name is.
  return SyncDirectory(DirectoryOf(FullPath(path)));
}

Status LocalStore::DeletePrefix(const std::string& prefix) {
  ++counters_.deletes;
  std::error_code ec;
  std::filesystem::remove_all(FullPath(prefix), ec);
  if (ec) return IoError(fmt::format("delete '{}': {}", FullPath(prefix), ec.message()));
  return Status::OK();
}

Result<std::vector<ObjectMeta>> LocalStore::List(const std::string& prefix, bool recursive) {
  ++counters_.lists;
  std::vector<ObjectMeta> out;
  std::string base = FullPath(prefix);
  std::vector<std::string> pending = {""};
  while (!pending.empty()) {
    std::string rel = std::move(pending.back());
    pending.pop_back();
    std::string dir = rel.empty() ? base : JoinPath(base, rel);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return ErrnoStatus("list", dir, errno);
    }
    while (dirent* entry = ::readdir(d)) {
      std::string_view name = entry->d_name;
      if (name == "." || name == ".." || name.substr(0, kTempPrefix.size()) == kTempPrefix) continue;
      std::string child_rel = rel.empty() ? std::string(name) : JoinPath(rel, name);
      struct stat st;
      // Relative to the open directory: no walk of the full path per entry.
      if (::fstatat(::dirfd(d), entry->d_name, &st, 0) != 0) continue;  // raced with a delete
      if (S_ISDIR(st.st_mode)) {
        if (recursive) pending.push_back(child_rel);
      } else if (S_ISREG(st.st_mode)) {
        out.push_back(ObjectMeta{JoinPath(prefix, child_rel), static_cast<uint64_t>(st.st_size)});
      }
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end(), [](const ObjectMeta& a, const ObjectMeta& b) { return a.path < b.path; });
  return out;
}

namespace {

// Names of the direct children of directory `base` that are directories
// (`directories`) or regular files (not temporary names), sorted; an absent
// directory lists nothing. The entry's type comes with it on most file
// systems; it is stat'ed only when the file system does not say
// (DT_UNKNOWN) or the entry is a symbolic link (followed).
// The entry names directly under `base`, sorted: the directories (following
// links) when `directories`, else every name in use (objects, and anything
// else holding a name, which its reader reports), temporary names excluded.
Result<std::vector<std::string>> ListChildNames(const std::string& base, bool directories) {
  std::vector<std::string> out;
  DIR* d = ::opendir(base.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return out;
    return ErrnoStatus("list", base, errno);
  }
  while (dirent* entry = ::readdir(d)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (!directories && name.substr(0, kTempPrefix.size()) == kTempPrefix) continue;
    bool wanted = !directories || entry->d_type == DT_DIR;
    if (directories && (entry->d_type == DT_UNKNOWN || entry->d_type == DT_LNK)) {
      struct stat st;
      wanted = ::fstatat(::dirfd(d), entry->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
    }
    if (wanted) out.emplace_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<std::string>> LocalStore::ListNames(const std::string& prefix) {
  ++counters_.lists;
  return ListChildNames(FullPath(prefix), /*directories=*/false);
}

Result<std::vector<std::string>> LocalStore::ListDirectories(const std::string& prefix) {
  ++counters_.lists;
  return ListChildNames(FullPath(prefix), /*directories=*/true);
}

}  // namespace omnigraph
