#include "graph/graph_store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/writers/table_adapter.h"
#include "graph/history/commit_id.h"
#include "graph/init.h"
#include "graph/read_target.h"
#include "graph/write/door.h"
#include "io/local_store.h"
#include "support/batches.h"
#include "support/temp_dir.h"
#include "table/scanner.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::graph {
namespace graph_store_test {

using exec::TableChange;
using testing::I;
using testing::S;

// The mutation/load writer's path without its planning: stage each change
// on `txn`'s pins and publish through the door.
Result<DoorOutcome> CommitTableChanges(GraphStore& graph, const WriteTxn& txn, const std::vector<TableChange>& changes) {
  OG_ASSIGN_OR_RETURN(std::vector<Effect> effects, exec::StageChanges(txn, changes));
  return CommitThroughDoor(graph, txn, std::move(effects));
}

Result<WriteTxn> Capture(GraphStore& graph) { return WriteTxn::Capture(graph, NativeRef::Main(), std::nullopt); }

Schema PersonSchema() {
  Field id("id", DataType::Utf8(), false);
  id.unenforced_primary_key = true;
  return Schema({id, Field("age", DataType::Int32())});
}

Schema KnowsSchema() {
  Field id("id", DataType::Utf8(), false);
  id.unenforced_primary_key = true;
  return Schema({id, Field("src", DataType::Utf8(), false), Field("dst", DataType::Utf8(), false)});
}

class GraphStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = LocalStore::Make(dir_.path());
    SchemaContract contract{"node Person { name: String @key }", "{\"ir\":1}", "abc"};
    auto graph = InitGraph(store_, "", contract,
                                  {{"node:Person", 1, PersonSchema()}, {"edge:Knows", 2, KnowsSchema()}});
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = *graph;
  }
  RecordBatchPtr People(std::vector<testing::Row> rows) {
    Schema s = PersonSchema();
    s.AssignMissingFieldIds();
    return testing::MakeBatch(std::make_shared<const Schema>(s), rows);
  }
  std::vector<std::string> PersonIds(const Snapshot& snapshot) {
    auto ds = graph_->tables().OpenDataset(*snapshot.FindTable("node:Person"));
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    table::ScanOptions options;
    options.columns = {"id"};
    std::vector<std::string> ids;
    for (const auto& row : testing::Rows(**ds->ToBatch(options))) ids.push_back(row[0].string_value());
    return ids;
  }
  // Every object under the root but the writers' lock files.
  std::set<std::string> Objects() {
    std::set<std::string> keys;
    auto listed = store_->List("", /*recursive=*/true);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    for (const ObjectMeta& o : *listed) {
      if (o.path.rfind("_locks/", 0) != 0) keys.insert(o.path);
    }
    return keys;
  }
  std::vector<TableChange> PersonAndKnows(const std::string& name) {
    Schema knows = KnowsSchema();
    knows.AssignMissingFieldIds();
    return {{"node:Person", TableChange::Kind::kUpsert, {People({{S(name), I(1)}})}, {}},
            {"edge:Knows", TableChange::Kind::kUpsert,
             {testing::MakeBatch(std::make_shared<const Schema>(knows), {{S("k-" + name), S(name), S(name)}})},
             {}}};
  }
  testing::TempDir dir_;
  std::shared_ptr<LocalStore> store_;
  std::shared_ptr<GraphStore> graph_;
};

TEST_F(GraphStoreTest, InitPublishesGenesisWithEveryTablePinnedAtVersionOne) {
  auto state = graph_->Latest();
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->state().manifest_version, 1u);
  EXPECT_EQ(state->state().head.id.size(), 26u);  // genesis commit id is a ULID
  EXPECT_FALSE(state->state().head.parent_id.has_value());
  ASSERT_EQ(state->state().tables.size(), 2u);
  const TableEntry* person = state->FindTable("node:Person");
  ASSERT_NE(person, nullptr);
  EXPECT_EQ(person->location, TableLocation("node:Person", person->identity));
  EXPECT_EQ(person->location.substr(0, 23), "nodes/0000000000000001-");
  EXPECT_EQ(person->pin.published_version, 1u);
  EXPECT_FALSE(person->pin.staged_version.has_value());
  EXPECT_EQ(state->state().schema.source, "node Person { name: String @key }");
  EXPECT_EQ(state->state().schema.ir_hash, "abc");
  EXPECT_TRUE(PersonIds(*state).empty());
  // A second init is refused.
  auto again = InitGraph(store_, "", state->state().schema, {});
  EXPECT_EQ(again.status().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(again.status().details().at("kind"), "already_initialized");
}

TEST_F(GraphStoreTest, WritesCommitDetachedAndPublishOnce) {
  auto txn = Capture(*graph_);
  ASSERT_TRUE(txn.ok());
  TableChange change{"node:Person", TableChange::Kind::kUpsert, {People({{S("alice"), I(30)}, {S("bob"), I(25)}})}, {}};
  auto result = CommitTableChanges(*graph_, *txn, {change});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->published.manifest_version(), 2u);
  EXPECT_EQ(result->commit.parent_id, txn->state().head.id);
  EXPECT_EQ(result->commit.id.substr(0, 4), "hb1.");
  EXPECT_NE(result->commit.id.find("." + txn->intent_nonce()), std::string::npos);
  const TableEntry* person = result->published.FindTable("node:Person");
  EXPECT_EQ(person->pin.published_version, 2u);
  ASSERT_TRUE(person->pin.staged_version.has_value());
  EXPECT_EQ(person->pin.row_count, 2u);
  // The table's linear HEAD never moves: only version 1 exists linearly.
  EXPECT_EQ(*table::Dataset::LatestVersion(store_.get(), person->location), 1u);
  // A fresh reader sees the published pin and the staged properties.
  auto state = graph_->Latest();
  EXPECT_EQ(PersonIds(*state), (std::vector<std::string>{"alice", "bob"}));
  auto ds = graph_->tables().OpenDataset(*state->FindTable("node:Person"));
  auto recorded = ds->ReadTransaction();
  EXPECT_EQ(recorded->properties.at(std::string(kStagedAgainstGraphHead)), txn->state().head.id);
  EXPECT_EQ(recorded->properties.at(std::string(kStagedAgainstBranchIncarnation)), "main");
  auto commits = graph_->Commits(*graph_->Latest());
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  auto newest_first = (*commits)->NewestFirst();
  ASSERT_EQ(newest_first.size(), 2u);
  EXPECT_EQ(newest_first[0]->id, result->commit.id);
  EXPECT_EQ(newest_first[1]->id, txn->state().head.id);
  EXPECT_EQ(FindCommit(*graph_, txn->intent_nonce())->id, result->commit.id);
  // Older commits are found too (the search walks back from the head), and
  // an id nowhere in the history is NotFound.
  auto genesis = FindCommit(*graph_, txn->state().head.id);
  ASSERT_TRUE(genesis.ok()) << genesis.status().ToString();
  EXPECT_EQ(genesis->manifest_version, 1u);
  EXPECT_EQ(FindCommit(*graph_, "01J0000000000000000000000Z").status().message(),
            "commit '01J0000000000000000000000Z' not found");
}

TEST_F(GraphStoreTest, StaleCaptureLosesWithReadSetChangedAndPublishesNothing) {
  auto first = Capture(*graph_);
  auto second = Capture(*graph_);
  ASSERT_TRUE(CommitTableChanges(*graph_, *first,
                                 {{"node:Person", TableChange::Kind::kUpsert, {People({{S("a"), I(1)}})}, {}}})
                  .ok());
  auto lost = CommitTableChanges(*graph_, *second,
                                 {{"node:Person", TableChange::Kind::kUpsert, {People({{S("b"), I(2)}})}, {}}});
  ASSERT_EQ(lost.status().code(), ErrorCode::kReadSetChanged);
  EXPECT_EQ(lost.status().http_status(), 409);
  EXPECT_EQ(lost.status().details().at("member"), "graph_head:main");
  auto state = graph_->Latest();
  EXPECT_EQ(state->state().manifest_version, 2u);
  EXPECT_EQ(PersonIds(*state), (std::vector<std::string>{"a"}));
}

// A write that fails where its publication cannot have landed deletes what
// it staged (data files, detached manifests, the staged __manifest data
// file), so retries on a full disk do not fill it with garbage; one whose
// publication may have landed keeps everything, since readers may see it.
TEST_F(GraphStoreTest, AWriteThatCannotHaveLandedLeavesNoObjectsBehind) {
  ASSERT_TRUE(CommitTableChanges(*graph_, *Capture(*graph_), PersonAndKnows("warm")).ok());
  const std::set<std::string> before = Objects();
  struct Case {
    std::string_view failpoint;
    uint32_t skip;
  };
  // In order along the write: the second table's staging, the first
  // table's detached manifest, after both detached commits, just before the
  // CAS, and the sync round before it.
  for (const Case& c : {Case{failpoint::kStageAfterDataFiles, 1}, Case{failpoint::kCommitAfterManifest, 0},
                        Case{failpoint::kGraphAfterDetachedCommit, 1}, Case{failpoint::kGraphBeforeCas, 0},
                        Case{failpoint::kStoreBeforeDirSync, 0}}) {
    failpoint::Set(c.failpoint, failpoint::Action::kError, c.skip);
    auto r = CommitTableChanges(*graph_, *Capture(*graph_), PersonAndKnows("lost"));
    failpoint::ClearAll();
    ASSERT_FALSE(r.ok()) << c.failpoint;
    EXPECT_FALSE(PublicationMayHaveLanded(r.status())) << r.status().ToString();
    EXPECT_EQ(Objects(), before) << c.failpoint;
  }
  // A lost CAS: the loser's staging is gone, the winner's stays.
  auto stale = Capture(*graph_);
  ASSERT_TRUE(CommitTableChanges(*graph_, *Capture(*graph_), PersonAndKnows("winner")).ok());
  const std::set<std::string> after_winner = Objects();
  EXPECT_GT(after_winner.size(), before.size());
  auto lost = CommitTableChanges(*graph_, *stale, PersonAndKnows("loser"));
  ASSERT_EQ(lost.status().code(), ErrorCode::kReadSetChanged);
  EXPECT_EQ(Objects(), after_winner);
  // The publication's directory sync fails: version M+1 is visible, so
  // every object it names stays and a fresh reader opens it.
  failpoint::Set(failpoint::kStoreBeforeDirSync, failpoint::Action::kError, /*skip=*/1);
  auto unconfirmed = CommitTableChanges(*graph_, *Capture(*graph_), PersonAndKnows("maybe"));
  failpoint::ClearAll();
  ASSERT_FALSE(unconfirmed.ok());
  EXPECT_TRUE(PublicationMayHaveLanded(unconfirmed.status())) << unconfirmed.status().ToString();
  auto reopened = GraphStore::Open(store_, "");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto state = (*reopened)->Latest();
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  graph_ = *reopened;
  EXPECT_EQ(PersonIds(*state), (std::vector<std::string>{"warm", "winner", "maybe"}));
}

TEST_F(GraphStoreTest, StrictInsertAndDeletesRecordTheirEffects) {
  auto t1 = Capture(*graph_);
  ASSERT_TRUE(CommitTableChanges(*graph_, *t1,
                                 {{"node:Person", TableChange::Kind::kStrictInsert, {People({{S("a"), I(1)}})}, {}}})
                  .ok());
  auto t2 = Capture(*graph_);
  auto conflict = CommitTableChanges(*graph_, *t2,
                                     {{"node:Person", TableChange::Kind::kStrictInsert, {People({{S("a"), I(9)}})}, {}}});
  ASSERT_EQ(conflict.status().code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(conflict.status().message(), "node type 'Person' already has this id: 'a'");
  EXPECT_EQ(conflict.status().details().at("entity_id"), "a");
  auto deleted = CommitTableChanges(*graph_, *t2, {{"node:Person", TableChange::Kind::kDeleteIds, {}, {"a"}}});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto ds = graph_->tables().OpenDataset(*deleted->published.FindTable("node:Person"));
  EXPECT_EQ(ds->ReadTransaction()->properties.at(std::string(kDeletedIds)), "[\"a\"]");
  EXPECT_TRUE(PersonIds(deleted->published).empty());
  EXPECT_EQ(deleted->published.FindTable("node:Person")->pin.published_version, 3u);
}

// A writer's every commit adds a version of each table it touches; the
// caches keep only the recent ones of each table, so a long-running process
// does not fill memory with versions nobody reads (5,000 one-row inserts
// used to hold 460 MB).
TEST_F(GraphStoreTest, CachesKeepOnlyRecentVersionsOfEachTable) {
  Snapshot first = *graph_->Latest();
  for (int i = 0; i < 3 * static_cast<int>(TableCacheLimits{}.versions_per_table); ++i) {
    auto txn = Capture(*graph_);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    auto written = CommitTableChanges(*graph_, *txn, PersonAndKnows("p" + std::to_string(i)));
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_TRUE(graph_->tables().CachedRows(*written->published.FindTable("node:Person")).ok());
    TableCache::Counts counts = graph_->cache_counts();
    EXPECT_LE(counts.datasets, 2 * TableCacheLimits{}.versions_per_table) << i;
    EXPECT_LE(counts.table_data, 2 * TableCacheLimits{}.versions_per_table) << i;
  }
  EXPECT_EQ(graph_->cache_counts().datasets, 2 * TableCacheLimits{}.versions_per_table);
  // The newest version is still served from memory...
  Snapshot latest = *graph_->Latest();
  uint64_t reads_before = store_->counters().reads;
  auto data = graph_->tables().CachedRows(*latest.FindTable("node:Person"));
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ((*data)->num_rows(), 3 * static_cast<int64_t>(TableCacheLimits{}.versions_per_table));
  EXPECT_EQ(store_->counters().reads, reads_before);
  // ...and an evicted one is read again, exactly as it was.
  EXPECT_TRUE(PersonIds(first).empty());
  auto old = graph_->tables().CachedRows(*first.FindTable("node:Person"));
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ((*old)->num_rows(), 0);
}

TEST_F(GraphStoreTest, ConcurrentProcessesPublishExactlyOnceEach) {
  constexpr int kWriters = 4;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = LocalStore::Make(dir_.path());
      auto graph = GraphStore::Open(store, "");
      int acknowledged = 0;
      for (int attempt = 0; attempt < 20 && acknowledged < 3; ++attempt) {
        auto txn = Capture(**graph);
        if (!txn.ok()) _exit(3);
        Schema s = PersonSchema();
        s.AssignMissingFieldIds();
        auto batch = testing::MakeBatch(std::make_shared<const Schema>(s),
                                        {{S("w" + std::to_string(w) + "-" + std::to_string(acknowledged)), I(w)}});
        auto r = CommitTableChanges(**graph, *txn, {{"node:Person", TableChange::Kind::kStrictInsert, {batch}, {}}});
        if (r.ok()) ++acknowledged;
        else if (r.status().code() != ErrorCode::kReadSetChanged) _exit(4);
      }
      _exit(acknowledged == 3 ? 0 : 5);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  auto state = graph_->Latest();
  EXPECT_EQ(state->state().manifest_version, 1u + kWriters * 3);
  auto ids = PersonIds(*state);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids.size(), static_cast<size_t>(kWriters * 3));
  EXPECT_EQ(ids.front(), "w0-0");
  EXPECT_EQ(ids.back(), "w3-2");
  EXPECT_EQ((*graph_->Commits(*graph_->Latest()))->size(), 1u + kWriters * 3);
}

}  // namespace graph_store_test
}  // namespace omnigraph::graph

namespace omnigraph::graph {
namespace graph_store_test {

// engine.md §1.8: init claims the root first. A claim whose owner died on
// this machine (same boot, pid gone) must not block the next init forever;
// any other claim still refuses with InitializationClaimed.
class InitClaimTest : public ::testing::Test {
 protected:
  Result<std::shared_ptr<GraphStore>> Init() {
    SchemaContract contract{"node Person { name: String @key }", "{\"ir\":1}", "abc"};
    return InitGraph(store_, "", contract, {{"node:Person", 1, PersonSchema()}});
  }
  void WriteClaim(const std::string& text) { ASSERT_TRUE(store_->Put("__init_claim.json", text).ok()); }
  static std::string BootId() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
  }
  static pid_t DeadPid() {
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
  }
  testing::TempDir dir_;
  std::shared_ptr<LocalStore> store_ = LocalStore::Make(dir_.path());
};

TEST_F(InitClaimTest, AClaimOfADeadProcessOnThisBootIsTakenOver) {
  WriteClaim(fmt::format(R"({{"claimed_at_us":1,"claim":"x","pid":{},"boot_id":"{}"}})", DeadPid(), BootId()));
  auto graph = Init();
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_EQ(store_->Head("__init_claim.json").status().code(), ErrorCode::kNotFound);
  auto again = Init();
  EXPECT_EQ(again.status().details().at("kind"), "already_initialized");
}

// An init that fails before __manifest v1 (here: staging it) removes the
// tables it created and its claim: the root holds no objects afterwards,
// says there is no graph, and the next init succeeds.
TEST_F(InitClaimTest, AFailedInitRemovesWhatItCreated) {
  SchemaContract contract{"node Person { name: String @key }", "{\"ir\":1}", "abc"};
  std::vector<TableSpec> tables = {{"node:Person", 1, PersonSchema()}, {"edge:Knows", 2, KnowsSchema()}};
  // Hits: the Person table, the Knows table, then __manifest.
  failpoint::Set(failpoint::kStageAfterDataFiles, failpoint::Action::kError, /*skip=*/2);
  auto failed = InitGraph(store_, "", contract, tables);
  failpoint::ClearAll();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kIoError) << failed.status().ToString();
  auto left = store_->List("", /*recursive=*/true);
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << left->front().path;
  EXPECT_EQ(GraphStore::Open(store_, "").status().message(), fmt::format("no graph at '{}'", store_->Uri("")));
  auto graph = InitGraph(store_, "", contract, tables);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
}

TEST_F(InitClaimTest, LiveOtherMachineAndOldClaimsStillRefuse) {
  const std::string claims[] = {
      fmt::format(R"({{"pid":{},"boot_id":"{}"}})", ::getppid(), BootId()),  // alive
      fmt::format(R"({{"pid":{},"boot_id":"another-boot"}})", DeadPid()),   // not ours to judge
      R"({"claimed_at_us":1,"claim":"x"})",                                 // written before pids
      "not json"};
  for (const std::string& claim : claims) {
    WriteClaim(claim);
    auto graph = Init();
    ASSERT_FALSE(graph.ok()) << claim;
    EXPECT_EQ(graph.status().details().at("kind"), "initialization_claimed") << claim;
  }
}

}  // namespace graph_store_test
}  // namespace omnigraph::graph
