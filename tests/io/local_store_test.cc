#include "io/local_store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph {
namespace local_store_test {

using testing::TempDir;

TEST(LocalStore, PutGetHeadRangeList) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("a/b/c.bin", "hello world").ok());
  auto all = store.Get("a/b/c.bin");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)->view(), "hello world");
  auto range = store.GetRange("a/b/c.bin", 6, 5);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ((*range)->view(), "world");
  auto head = store.Head("a/b/c.bin");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size, 11u);
  ASSERT_TRUE(store.Put("a/b/d.bin", "x").ok());
  ASSERT_TRUE(store.Put("a/e.bin", "yy").ok());
  auto flat = store.List("a/b");
  ASSERT_TRUE(flat.ok());
  ASSERT_EQ(flat->size(), 2u);
  EXPECT_EQ((*flat)[0].path, "a/b/c.bin");
  EXPECT_EQ((*flat)[1].path, "a/b/d.bin");
  EXPECT_EQ((*flat)[1].size, 1u);
  auto deep = store.List("a", /*recursive=*/true);
  ASSERT_TRUE(deep.ok());
  ASSERT_EQ(deep->size(), 3u);
  EXPECT_EQ((*deep)[2].path, "a/e.bin");
  auto dirs = store.ListDirectories("a");
  ASSERT_TRUE(dirs.ok());
  EXPECT_EQ(*dirs, std::vector<std::string>{"b"});
  EXPECT_TRUE(store.List("missing")->empty());
}

// Writes create missing parents; a parent that is a file is an IoError
// naming it, for every kind of write.
TEST(LocalStore, ParentsAreCreatedAndAFileParentIsRefused) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.PutIfAbsent("x/y/z.bin", "1", WriteOptions{false, true}).ok());
  ASSERT_TRUE(store.Put("file", "f").ok());
  const std::string expected = "'" + dir.path() + "/file' is not a directory";
  EXPECT_EQ(store.Put("file/a.bin", "x").message(), expected);
  EXPECT_EQ(store.PutIfAbsent("file/b.bin", "x", WriteOptions{false, true}).message(), expected);
  EXPECT_EQ(store.OpenWriter("file/c.bin").status().message(), expected);
  EXPECT_EQ(store.LockExclusive("file/lock").status().message(), expected);
  auto lock = store.LockExclusive("locks/new/l.lock");
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/locks/new/l.lock"));
}

// A bounded wait for a held lock gives up with no lock (the caller proceeds
// unordered), and the abandoned waiter releases the lock once it gets it.
TEST(LocalStore, LockWaitIsBoundedAndAnAbandonedWaiterReleases) {
  TempDir dir;
  LocalStore store(dir.path());
  auto held = store.LockExclusive("locks/a.lock");
  ASSERT_TRUE(held.ok() && *held != nullptr);
  auto start = std::chrono::steady_clock::now();
  auto gave_up = store.LockExclusive("locks/a.lock", std::chrono::milliseconds(50));
  ASSERT_TRUE(gave_up.ok()) << gave_up.status().ToString();
  EXPECT_EQ(*gave_up, nullptr);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  // While that wait is still pending, later bounded calls do not wait again.
  auto again = store.LockExclusive("locks/a.lock", std::chrono::seconds(30));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, nullptr);
  held->reset();  // the abandoned waiter takes the lock and drops it
  Result<std::unique_ptr<ObjectStore::Lock>> next = std::unique_ptr<ObjectStore::Lock>();
  for (int i = 0; i < 500 && next.ok() && *next == nullptr; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    next = store.LockExclusive("locks/a.lock", std::chrono::seconds(30));
  }
  ASSERT_TRUE(next.ok());
  EXPECT_NE(*next, nullptr);
  // A waiter within its bound gets the lock when the holder lets go.
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    next->reset();
  });
  auto waited = store.LockExclusive("locks/a.lock", std::chrono::seconds(30));
  release.join();
  ASSERT_TRUE(waited.ok());
  EXPECT_NE(*waited, nullptr);
}

// Names only, sorted: every name in use (objects, links, and entries that
// are not objects, which hold the name all the same), temporaries excluded.
TEST(LocalStore, ListNamesGivesEveryNameInUse) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("v/3.manifest", "c").ok());
  ASSERT_TRUE(store.Put("v/10.manifest", "a").ok());
  ASSERT_TRUE(store.Put("v/sub/x.bin", "b").ok());
  auto staged = store.StageForPublish("v/11.manifest", "staged");
  ASSERT_TRUE(staged.ok());
  std::filesystem::create_symlink(dir.path() + "/v/3.manifest", dir.path() + "/v/4.manifest");
  std::filesystem::create_symlink(dir.path() + "/v/nowhere", dir.path() + "/v/5.manifest");
  auto names = store.ListNames("v");
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(*names, (std::vector<std::string>{"10.manifest", "3.manifest", "4.manifest", "5.manifest", "sub"}));
  EXPECT_TRUE(store.ListNames("missing")->empty());
  // Objects themselves are what List gives.
  auto objects = store.List("v");
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(objects->size(), 3u);
}

// A name held by something that is not an object is damage, not absence:
// Head and OpenForRead say so instead of NotFound.
TEST(LocalStore, NamesHeldByNonObjectsAreCorrupt) {
  TempDir dir;
  LocalStore store(dir.path());
  std::filesystem::create_directories(dir.path() + "/v/6.manifest");
  std::filesystem::create_symlink(dir.path() + "/v/nowhere", dir.path() + "/v/7.manifest");
  for (const char* path : {"v/6.manifest", "v/7.manifest"}) {
    EXPECT_EQ(store.Head(path).status().code(), ErrorCode::kCorruptData) << path;
    EXPECT_EQ(store.Head(path).status().message(), "'" + dir.path() + "/" + path + "' exists but is not a regular file");
  }
  EXPECT_EQ(store.OpenForRead("v/6.manifest").status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(store.Head("v/8.manifest").status().code(), ErrorCode::kNotFound);
}

// A lookup that failed with ENOENT, after which a writer published the name
// (the next __manifest version appearing under a reader's probe), found the
// object absent: NotFound, not damage. A dangling link stays damage.
TEST(LocalStore, ANamePublishedAfterAFailedLookupWasAbsent) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("v/9.manifest", "published meanwhile").ok());
  std::string published = dir.path() + "/v/9.manifest";
  Status absent = internal::MissingOrDangling("stat", published, ENOENT);
  EXPECT_EQ(absent.code(), ErrorCode::kNotFound) << absent.ToString();
  std::string dangling = dir.path() + "/v/10.manifest";
  std::filesystem::create_symlink(dir.path() + "/v/nowhere", dangling);
  EXPECT_EQ(internal::MissingOrDangling("stat", dangling, ENOENT).code(), ErrorCode::kCorruptData);
}

TEST(LocalStore, MissingObjectsAreNotFound) {
  TempDir dir;
  LocalStore store(dir.path());
  EXPECT_EQ(store.Get("nope").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store.Head("nope").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store.Delete("nope").code(), ErrorCode::kNotFound);
}

TEST(LocalStore, ReadPastEndIsCorruptData) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("f", "12345").ok());
  auto r = store.GetRange("f", 3, 10);
  EXPECT_EQ(r.status().code(), ErrorCode::kCorruptData);
}

// Large objects are read through one mapping of the file: the bytes must
// equal what was written, ranges and bounds must behave as for copied reads,
// and replacing the object by rename must leave buffers already handed out
// intact.
TEST(LocalStore, MappedReadsEqualCopiedReads) {
  TempDir dir;
  LocalStore store(dir.path());
  std::string data(3 << 20, '\0');  // above the 1 MiB mapping threshold
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  ASSERT_TRUE(store.Put("a/big.bin", data).ok());
  ASSERT_TRUE(store.Put("a/empty.bin", "").ok());
  auto object = store.OpenForRead("a/big.bin");
  ASSERT_TRUE(object.ok());
  auto middle = (*object)->ReadAt(1'000'003, 70'000);
  ASSERT_TRUE(middle.ok()) << middle.status().ToString();
  EXPECT_EQ((*middle)->view(), std::string_view(data).substr(1'000'003, 70'000));
  auto tail = (*object)->ReadAt(data.size() - 10, 10);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ((*tail)->view(), std::string_view(data).substr(data.size() - 10));
  EXPECT_EQ((*object)->ReadAt(data.size() - 10, 11).status().code(), ErrorCode::kCorruptData);
  auto whole = store.Get("a/big.bin");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*whole)->view(), data);

  auto empty = store.Get("a/empty.bin");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->size(), 0u);

  object->reset();  // buffers outlive the object that read them
  ASSERT_TRUE(store.Put("a/big.bin", std::string(10, 'x')).ok());
  EXPECT_EQ((*whole)->view(), data);
  EXPECT_EQ((*middle)->view(), std::string_view(data).substr(1'000'003, 70'000));
}

TEST(LocalStore, PutReplacesAtomically) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("f", "old").ok());
  ASSERT_TRUE(store.Put("f", "new contents").ok());
  EXPECT_EQ((*store.Get("f"))->view(), "new contents");
  // No temporary files are left behind.
  size_t entries = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
}

TEST(LocalStore, PutIfAbsentRefusesExistingObjects) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.PutIfAbsent("v/1", "first").ok());
  Status st = store.PutIfAbsent("v/1", "second");
  EXPECT_EQ(st.code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ((*store.Get("v/1"))->view(), "first");
  // The two-phase form: the loser's staged object is removed, the winner's
  // becomes the object; no temporary name is left either way.
  auto staged = store.StageForPublish("v/2", "staged");
  ASSERT_TRUE(staged.ok());
  ASSERT_TRUE(store.PublishIfAbsent(*staged, "v/2").ok());
  auto late = store.StageForPublish("v/2", "late");
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(store.PublishIfAbsent(*late, "v/2").code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ((*store.Get("v/2"))->view(), "staged");
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/v")) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"1", "2"}));
}

TEST(LocalStore, PutIfAbsentHasExactlyOneWinnerAcrossProcesses) {
  TempDir dir;
  constexpr int kProcesses = 8;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      LocalStore store(dir.path());
      Status st = store.PutIfAbsent("_versions/next", "writer " + std::to_string(i));
      _exit(st.ok() ? 0 : (st.code() == ErrorCode::kAlreadyExists ? 1 : 2));
    }
    children.push_back(pid);
  }
  int winners = 0, losers = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 0) ++winners;
    if (WEXITSTATUS(status) == 1) ++losers;
  }
  EXPECT_EQ(winners, 1);
  EXPECT_EQ(losers, kProcesses - 1);
  LocalStore store(dir.path());
  EXPECT_EQ((*store.Get("_versions/next"))->view().substr(0, 7), "writer ");
}

TEST(LocalStore, StreamingWriterIsInvisibleUntilFinish) {
  TempDir dir;
  LocalStore store(dir.path());
  auto writer = store.OpenWriter("data/big.lance");
  ASSERT_TRUE(writer.ok());
  std::string chunk(300'000, 'z');
  for (int i = 0; i < 10; ++i) ASSERT_TRUE((*writer)->Write(chunk).ok());
  EXPECT_EQ(store.Head("data/big.lance").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ((*writer)->bytes_written(), 3'000'000u);
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ(store.Head("data/big.lance")->size, 3'000'000u);
  auto listing = store.List("data");
  ASSERT_EQ(listing->size(), 1u);
}

TEST(LocalStore, AbandonedWriterLeavesNothing) {
  TempDir dir;
  LocalStore store(dir.path());
  {
    auto writer = store.OpenWriter("data/x.lance");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write("partial").ok());
  }
  EXPECT_TRUE(store.List("data")->empty());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path() + "/data"), {}), 0);
}

TEST(LocalStore, CountsRequestsAndSyncBarriers) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("x/y", "1").ok());  // creates x/: file sync + new dir sync + parent dir sync
  store.counters().Reset();
  ASSERT_TRUE(store.Put("x/z", "2").ok());
  EXPECT_EQ(store.counters().writes.load(), 1u);
  EXPECT_EQ(store.counters().sync_calls.load(), 2u);  // the file and its directory
  EXPECT_EQ(store.counters().sync_barriers.load(), 2u);  // one after the other
  store.counters().Reset();
  // A batch: three files in two directories, synced in one concurrent round.
  const WriteOptions deferred{/*durable=*/false};
  ASSERT_TRUE(store.Put("x/a", "1", deferred).ok());
  ASSERT_TRUE(store.Put("x/b", "2", deferred).ok());
  ASSERT_TRUE(store.Put("w/c", "3", deferred).ok());  // creates w/: its entry in the root is synced at once
  EXPECT_EQ(store.counters().sync_calls.load(), 1u);
  EXPECT_EQ(store.counters().sync_barriers.load(), 1u);
  ASSERT_TRUE(store.Sync({"x/a", "x/b", "w/c"}).ok());
  EXPECT_EQ(store.counters().sync_calls.load(), 1u + 3u + 2u);
  EXPECT_EQ(store.counters().sync_barriers.load(), 1u + 1u);
  store.counters().Reset();
  ASSERT_TRUE(store.Get("x/z").ok());
  EXPECT_EQ(store.counters().reads.load(), 1u);
}

// A directory found existing may have been made by a writer that died
// before syncing its parent: the first durable write into it in a process
// also syncs the parents of every directory above it, once.
TEST(LocalStore, AnExistingDirectoryHasItsEntryMadeDurableOnce) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/t/data");
  std::filesystem::create_directories(dir.path() + "/t/versions");
  LocalStore store(dir.path());
  const WriteOptions deferred{/*durable=*/false};
  ASSERT_TRUE(store.Put("t/data/a", "1", deferred).ok());
  store.counters().Reset();
  ASSERT_TRUE(store.Sync({"t/data/a"}).ok());
  // The file, its directory, and the parents of t/data and t (t, the root).
  EXPECT_EQ(store.counters().sync_calls.load(), 1u + 1u + 2u);
  EXPECT_EQ(store.counters().sync_barriers.load(), 1u);
  ASSERT_TRUE(store.Put("t/data/b", "2", deferred).ok());
  store.counters().Reset();
  ASSERT_TRUE(store.Sync({"t/data/b"}).ok());
  EXPECT_EQ(store.counters().sync_calls.load(), 2u);
  // A published name: the temporary file, t/versions and its parent t,
  // which is confirmed already.
  store.counters().Reset();
  ASSERT_TRUE(store.Put("t/versions/1", "v").ok());
  EXPECT_EQ(store.counters().sync_calls.load(), 3u);
  store.counters().Reset();
  ASSERT_TRUE(store.Put("t/versions/2", "v").ok());
  EXPECT_EQ(store.counters().sync_calls.load(), 2u);
  // Another process (a new store) confirms them again, once.
  LocalStore other(dir.path());
  ASSERT_TRUE(other.Put("t/data/c", "3", deferred).ok());
  ASSERT_TRUE(other.Sync({"t/data/c"}).ok());
  EXPECT_EQ(other.counters().sync_calls.load(), 4u);
}

TEST(LocalStore, CreateRootMakesTheRootsEntryDurable) {
  TempDir dir;
  LocalStore fresh(dir.path() + "/x/y/g");
  ASSERT_TRUE(fresh.CreateRoot().ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() + "/x/y/g"));
  EXPECT_EQ(fresh.counters().sync_calls.load(), 3u);  // the parents of x, y and g
  // A root someone else made may not have a durable entry: its parent is
  // synced anyway.
  LocalStore existing(dir.path() + "/x");
  ASSERT_TRUE(existing.CreateRoot().ok());
  EXPECT_EQ(existing.counters().sync_calls.load(), 1u);
  ASSERT_TRUE(existing.Put("f", "file").ok());
  LocalStore blocked(dir.path() + "/x/f/g");
  EXPECT_EQ(blocked.CreateRoot().code(), ErrorCode::kIoError);
}

TEST(LocalStore, FailpointErrorLeavesTargetUntouched) {
  TempDir dir;
  LocalStore store(dir.path());
  ASSERT_TRUE(store.Put("f", "before").ok());
  failpoint::Set(failpoint::kStoreBeforePublish, failpoint::Action::kError);
  Status st = store.Put("f", "after");
  failpoint::ClearAll();
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_EQ((*store.Get("f"))->view(), "before");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
  failpoint::Set(failpoint::kStoreBeforePublish, failpoint::Action::kError);
  EXPECT_EQ(store.PutIfAbsent("g", "x").code(), ErrorCode::kIoError);
  failpoint::ClearAll();
  EXPECT_EQ(store.Head("g").status().code(), ErrorCode::kNotFound);
}

TEST(LocalStore, CrashBeforePublishLeavesOnlyATemporaryFile) {
  TempDir dir;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    LocalStore store(dir.path());
    failpoint::Set(failpoint::kStoreBeforePublish, failpoint::Action::kCrash);
    (void)store.PutIfAbsent("v/m", "content");
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  LocalStore store(dir.path());
  EXPECT_EQ(store.Head("v/m").status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(store.List("v")->empty());  // the temporary file is skipped by listings
  Status retry = store.PutIfAbsent("v/m", "retry");
  ASSERT_TRUE(retry.ok()) << retry.ToString();
}

TEST(LocalStore, UriIsAbsolute) {
  TempDir dir;
  LocalStore store(dir.path());
  EXPECT_EQ(store.Uri("t.lance"), std::filesystem::path(dir.path()).lexically_normal().string() + "/t.lance");
}

}  // namespace local_store_test
}  // namespace omnigraph
