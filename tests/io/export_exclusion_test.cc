// The export-root exclusion (io/export_exclusion.h; spec/cluster.md §4.4
// step 7): exports share a root, a delete excludes them, neither waits, and
// the exclusion holds across processes; the engine's export takes it.
#include "io/export_exclusion.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "io/local_store.h"
#include "support/temp_dir.h"

namespace omnigraph {
namespace export_exclusion_test {

using testing::TempDir;

constexpr const char* kRoot = "graphs/g.omni";

// A store with the directory kRoot in it.
struct Fixture {
  Fixture() : store(dir.path()) { std::filesystem::create_directories(store.FullPath(kRoot)); }
  TempDir dir;
  LocalStore store;
};

Result<ExportRootExclusion> Reserve(LocalStore& store, ExportRootUse use) {
  return ReserveExportRoot(store, kRoot, use);
}

TEST(ExportRootExclusion, ExportsCoexistAndExcludeADelete) {
  Fixture f;
  auto first = Reserve(f.store, ExportRootUse::kExport);
  auto second = Reserve(f.store, ExportRootUse::kExport);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(first->held());
  EXPECT_TRUE(second->held());

  auto refused = Reserve(f.store, ExportRootUse::kDelete);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.status().message(),
            "an export of graph root '" + f.store.Uri(kRoot) + "' is in progress");
  EXPECT_EQ(refused.status().details(), (Status::Details{{"reason", "export_in_progress"}}));

  // One export ending is not enough: the other still holds the root.
  *first = ExportRootExclusion();
  EXPECT_EQ(Reserve(f.store, ExportRootUse::kDelete).status().code(), ErrorCode::kConflict);
  *second = ExportRootExclusion();
  auto granted = Reserve(f.store, ExportRootUse::kDelete);
  ASSERT_TRUE(granted.ok()) << granted.status().ToString();
  EXPECT_TRUE(granted->held());
}

TEST(ExportRootExclusion, ADeleteExcludesExportsAndOtherDeletes) {
  Fixture f;
  auto held = Reserve(f.store, ExportRootUse::kDelete);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  ASSERT_TRUE(held->held());

  auto refused = Reserve(f.store, ExportRootUse::kExport);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.status().message(),
            "graph root '" + f.store.Uri(kRoot) + "' is being deleted; the export is refused");
  EXPECT_EQ(refused.status().details(), (Status::Details{{"reason", "graph_root_deleting"}}));
  EXPECT_EQ(Reserve(f.store, ExportRootUse::kDelete).status().code(), ErrorCode::kConflict);

  *held = ExportRootExclusion();
  EXPECT_TRUE(Reserve(f.store, ExportRootUse::kExport).ok());
}

// The delete removes the root while it holds it: a later export finds no
// graph, a delete of the absent root has nothing to reserve, and a root
// created again under the name is a graph root like any other.
TEST(ExportRootExclusion, ARemovedRootIsNoGraph) {
  Fixture f;
  {
    auto held = Reserve(f.store, ExportRootUse::kDelete);
    ASSERT_TRUE(held.ok());
    ASSERT_TRUE(f.store.DeletePrefix(kRoot).ok());
  }
  auto gone = Reserve(f.store, ExportRootUse::kExport);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(gone.status().message(), "no graph at '" + f.store.Uri(kRoot) + "'");

  auto nothing = Reserve(f.store, ExportRootUse::kDelete);
  ASSERT_TRUE(nothing.ok()) << nothing.status().ToString();
  EXPECT_FALSE(nothing->held());

  std::filesystem::create_directories(f.store.FullPath(kRoot));
  EXPECT_TRUE(Reserve(f.store, ExportRootUse::kExport).ok());
}

// Another process's export refuses this process's delete, and its death
// releases the root.
TEST(ExportRootExclusion, HoldsAcrossProcesses) {
  Fixture f;
  int to_parent[2], to_child[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  ASSERT_EQ(::pipe(to_child), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LocalStore store(f.dir.path());
    auto held = ReserveExportRoot(store, kRoot, ExportRootUse::kExport);
    const char reserved = held.ok() ? 'y' : 'n';
    (void)!::write(to_parent[1], &reserved, 1);
    char release;
    (void)!::read(to_child[0], &release, 1);
    ::_exit(0);  // the kernel releases the flock with the process
  }
  char reserved = 0;
  ASSERT_EQ(::read(to_parent[0], &reserved, 1), 1);
  ASSERT_EQ(reserved, 'y');
  EXPECT_EQ(Reserve(f.store, ExportRootUse::kDelete).status().code(), ErrorCode::kConflict);
  EXPECT_TRUE(Reserve(f.store, ExportRootUse::kExport).ok());
  ASSERT_EQ(::write(to_child[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_TRUE(Reserve(f.store, ExportRootUse::kDelete).ok());
  for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) ::close(fd);
}

// A store that cannot lock directories reserves nothing.
TEST(ExportRootExclusion, OtherStoresReserveNothing) {
  struct NoLocks : ObjectStore {
    Result<BufferPtr> Get(const std::string&) override { return Internal("unused"); }
    Result<BufferPtr> GetRange(const std::string&, uint64_t, uint64_t) override { return Internal("unused"); }
    Result<ObjectMeta> Head(const std::string&) override { return Internal("unused"); }
    Result<std::unique_ptr<RandomAccessObject>> OpenForRead(const std::string&) override { return Internal("unused"); }
    Status Put(const std::string&, std::string_view, const WriteOptions&) override { return Internal("unused"); }
    Status PutIfAbsent(const std::string&, std::string_view, const WriteOptions&) override {
      return Internal("unused");
    }
    Result<std::unique_ptr<ObjectWriter>> OpenWriter(const std::string&, const WriteOptions&) override {
      return Internal("unused");
    }
    Result<std::string> StageForPublish(const std::string&, std::string_view) override { return Internal("unused"); }
    Status PublishIfAbsent(const std::string&, const std::string&) override { return Internal("unused"); }
    Status Sync(const std::vector<std::string>&) override { return Internal("unused"); }
    Status Delete(const std::string&) override { return Internal("unused"); }
    Status DeletePrefix(const std::string&) override { return Internal("unused"); }
    Result<std::vector<ObjectMeta>> List(const std::string&, bool) override { return Internal("unused"); }
    Result<std::vector<std::string>> ListDirectories(const std::string&) override { return Internal("unused"); }
    std::string Uri(const std::string& path) const override { return "mem://" + path; }
  } store;
  for (ExportRootUse use : {ExportRootUse::kExport, ExportRootUse::kDelete}) {
    auto reserved = ReserveExportRoot(store, kRoot, use);
    ASSERT_TRUE(reserved.ok()) << reserved.status().ToString();
    EXPECT_FALSE(reserved->held());
  }
}

// The engine's export holds the root shared from before it reads until its
// last piece, and refuses to start while a delete holds it.
TEST(ExportRootExclusion, TheEnginesExportTakesIt) {
  TempDir dir;
  const std::string uri = dir.path() + "/g.omni";
  auto graph = api::Omnigraph::Init(uri, "node Person {\n  name: String @key\n}\n", "people.pg");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  ASSERT_TRUE((*graph)
                  ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"ada\"}}\n", "people.jsonl",
                         api::LoadMode::kAppend)
                  .ok());
  LocalStore parent(dir.path());

  {
    auto deleting = ReserveExportRoot(parent, "g.omni", ExportRootUse::kDelete);
    ASSERT_TRUE(deleting.ok());
    auto refused = (*graph)->Export("main", {});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
    EXPECT_EQ(refused.status().details().at("reason"), "graph_root_deleting");
    auto baseline = (*graph)->ChangesBaseline("main");
    ASSERT_FALSE(baseline.ok());
    EXPECT_EQ(baseline.status().code(), ErrorCode::kConflict);
  }

  std::promise<void> started, release;
  std::shared_future<void> released = release.get_future().share();
  std::thread exporter([&] {
    bool first = true;
    Status done = (*graph)->ExportTo({}, {}, [&](std::string_view) {
      if (first) {
        first = false;
        started.set_value();
        released.wait();
      }
      return Status::OK();
    });
    EXPECT_TRUE(done.ok()) << done.ToString();
  });
  started.get_future().wait();
  EXPECT_EQ(ReserveExportRoot(parent, "g.omni", ExportRootUse::kDelete).status().code(), ErrorCode::kConflict);
  release.set_value();
  exporter.join();
  EXPECT_TRUE(ReserveExportRoot(parent, "g.omni", ExportRootUse::kDelete).ok());
}

}  // namespace export_exclusion_test
}  // namespace omnigraph
