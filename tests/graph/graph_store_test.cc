#include "graph/graph_store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "graph/write_txn.h"
#include "io/local_store.h"
#include "support/batches.h"
#include "support/temp_dir.h"
#include "table/scanner.h"

namespace omnigraph::graph {
namespace {

using testing::I;
using testing::S;

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
    auto graph = GraphStore::Init(store_, "", contract,
                                  {{"node:Person", 1, PersonSchema()}, {"edge:Knows", 2, KnowsSchema()}});
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = *graph;
  }
  RecordBatchPtr People(std::vector<testing::Row> rows) {
    Schema s = PersonSchema();
    s.AssignMissingFieldIds();
    return testing::MakeBatch(std::make_shared<const Schema>(s), rows);
  }
  std::vector<std::string> PersonIds(const GraphState& state) {
    auto ds = graph_->OpenTable(*state.FindTable("node:Person"));
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    table::ScanOptions options;
    options.columns = {"id"};
    std::vector<std::string> ids;
    for (const auto& row : testing::Rows(**ds->ToBatch(options))) ids.push_back(row[0].string_value());
    return ids;
  }
  testing::TempDir dir_;
  std::shared_ptr<LocalStore> store_;
  std::shared_ptr<GraphStore> graph_;
};

TEST_F(GraphStoreTest, InitPublishesGenesisWithEveryTablePinnedAtVersionOne) {
  auto state = graph_->ReadState();
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->manifest_version, 1u);
  EXPECT_EQ(state->head.id.size(), 26u);  // genesis commit id is a ULID
  EXPECT_FALSE(state->head.parent_id.has_value());
  ASSERT_EQ(state->tables.size(), 2u);
  const TableEntry* person = state->FindTable("node:Person");
  ASSERT_NE(person, nullptr);
  EXPECT_EQ(person->location, TableLocation("node:Person", person->identity));
  EXPECT_EQ(person->location.substr(0, 23), "nodes/0000000000000001-");
  EXPECT_EQ(person->pin.published_version, 1u);
  EXPECT_FALSE(person->pin.staged_version.has_value());
  EXPECT_EQ(state->schema.source, "node Person { name: String @key }");
  EXPECT_EQ(state->schema.ir_hash, "abc");
  EXPECT_TRUE(PersonIds(*state).empty());
  // A second init is refused.
  auto again = GraphStore::Init(store_, "", state->schema, {});
  EXPECT_EQ(again.status().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(again.status().details().at("kind"), "already_initialized");
}

TEST_F(GraphStoreTest, WritesCommitDetachedAndPublishOnce) {
  auto txn = WriteTxn::Capture(*graph_);
  ASSERT_TRUE(txn.ok());
  TableChange change{"node:Person", TableChange::Kind::kUpsert, {People({{S("alice"), I(30)}, {S("bob"), I(25)}})}, {}};
  auto result = CommitTableChanges(*graph_, *txn, {change});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->state.manifest_version, 2u);
  EXPECT_EQ(result->commit.parent_id, txn->base.head.id);
  EXPECT_EQ(result->commit.id.substr(0, 4), "hb1.");
  EXPECT_NE(result->commit.id.find("." + txn->intent_nonce), std::string::npos);
  const TableEntry* person = result->state.FindTable("node:Person");
  EXPECT_EQ(person->pin.published_version, 2u);
  ASSERT_TRUE(person->pin.staged_version.has_value());
  EXPECT_EQ(person->pin.row_count, 2u);
  // The table's linear HEAD never moves: only version 1 exists linearly.
  EXPECT_EQ(*table::Dataset::LatestVersion(store_.get(), person->location), 1u);
  // A fresh reader sees the published pin and the staged properties.
  auto state = graph_->ReadState();
  EXPECT_EQ(PersonIds(*state), (std::vector<std::string>{"alice", "bob"}));
  auto ds = graph_->OpenTable(*state->FindTable("node:Person"));
  auto recorded = ds->ReadTransaction();
  EXPECT_EQ(recorded->properties.at(std::string(kStagedAgainstGraphHead)), txn->base.head.id);
  EXPECT_EQ(recorded->properties.at(std::string(kStagedAgainstBranchIncarnation)), "main");
  auto commits = graph_->ListCommits();
  ASSERT_TRUE(commits.ok());
  ASSERT_EQ(commits->size(), 2u);
  EXPECT_EQ((*commits)[0].id, result->commit.id);
  EXPECT_EQ((*commits)[1].id, txn->base.head.id);
  EXPECT_EQ(graph_->FindCommit(txn->intent_nonce)->id, result->commit.id);
  // Older commits are found too (the search walks back from the head), and
  // an id nowhere in the history is NotFound.
  auto genesis = graph_->FindCommit(txn->base.head.id);
  ASSERT_TRUE(genesis.ok()) << genesis.status().ToString();
  EXPECT_EQ(genesis->manifest_version, 1u);
  EXPECT_EQ(graph_->FindCommit("01J0000000000000000000000Z").status().message(),
            "commit '01J0000000000000000000000Z' not found");
}

TEST_F(GraphStoreTest, StaleCaptureLosesWithReadSetChangedAndPublishesNothing) {
  auto first = WriteTxn::Capture(*graph_);
  auto second = WriteTxn::Capture(*graph_);
  ASSERT_TRUE(CommitTableChanges(*graph_, *first,
                                 {{"node:Person", TableChange::Kind::kUpsert, {People({{S("a"), I(1)}})}, {}}})
                  .ok());
  auto lost = CommitTableChanges(*graph_, *second,
                                 {{"node:Person", TableChange::Kind::kUpsert, {People({{S("b"), I(2)}})}, {}}});
  ASSERT_EQ(lost.status().code(), ErrorCode::kReadSetChanged);
  EXPECT_EQ(lost.status().http_status(), 409);
  EXPECT_EQ(lost.status().details().at("member"), "graph_head:main");
  auto state = graph_->ReadState();
  EXPECT_EQ(state->manifest_version, 2u);
  EXPECT_EQ(PersonIds(*state), (std::vector<std::string>{"a"}));
}

TEST_F(GraphStoreTest, StrictInsertAndDeletesRecordTheirEffects) {
  auto t1 = WriteTxn::Capture(*graph_);
  ASSERT_TRUE(CommitTableChanges(*graph_, *t1,
                                 {{"node:Person", TableChange::Kind::kStrictInsert, {People({{S("a"), I(1)}})}, {}}})
                  .ok());
  auto t2 = WriteTxn::Capture(*graph_);
  auto conflict = CommitTableChanges(*graph_, *t2,
                                     {{"node:Person", TableChange::Kind::kStrictInsert, {People({{S("a"), I(9)}})}, {}}});
  ASSERT_EQ(conflict.status().code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(conflict.status().message(), "node type 'Person' already has this id: 'a'");
  EXPECT_EQ(conflict.status().details().at("entity_id"), "a");
  auto deleted = CommitTableChanges(*graph_, *t2, {{"node:Person", TableChange::Kind::kDeleteIds, {}, {"a"}}});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto ds = graph_->OpenTable(*deleted->state.FindTable("node:Person"));
  EXPECT_EQ(ds->ReadTransaction()->properties.at(std::string(kDeletedIds)), "[\"a\"]");
  EXPECT_TRUE(PersonIds(deleted->state).empty());
  EXPECT_EQ(deleted->state.FindTable("node:Person")->pin.published_version, 3u);
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
        auto txn = WriteTxn::Capture(**graph);
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
  auto state = graph_->ReadState();
  EXPECT_EQ(state->manifest_version, 1u + kWriters * 3);
  auto ids = PersonIds(*state);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids.size(), static_cast<size_t>(kWriters * 3));
  EXPECT_EQ(ids.front(), "w0-0");
  EXPECT_EQ(ids.back(), "w3-2");
  EXPECT_EQ(graph_->ListCommits()->size(), 1u + kWriters * 3);
}

}  // namespace
}  // namespace omnigraph::graph

namespace omnigraph::graph {
namespace {

// engine.md §1.8: init claims the root first. A claim whose owner died on
// this machine (same boot, pid gone) must not block the next init forever;
// any other claim still refuses with InitializationClaimed.
class InitClaimTest : public ::testing::Test {
 protected:
  Result<std::shared_ptr<GraphStore>> Init() {
    SchemaContract contract{"node Person { name: String @key }", "{\"ir\":1}", "abc"};
    return GraphStore::Init(store_, "", contract, {{"node:Person", 1, PersonSchema()}});
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

}  // namespace
}  // namespace omnigraph::graph
