// Mutations through the embedded API (spec/surface.md §3).
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "graph/history/commit_id.h"
#include "graph/graph_store.h"
#include "graph/manifest/manifest_reader.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace mutation_test {

constexpr std::string_view kSchema = R"(
node Person {
    name: String @key
    age: I32?
    seen: DateTime?
}
node Company { name: String @key }
node Note { body: String }
edge WorksAt: Person -> Company
edge Knows: Person -> Person { since: Date? }
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"WorksAt","from":"alice","to":"acme"}
{"edge":"Knows","from":"alice","to":"bob"}
{"edge":"Knows","from":"bob","to":"alice"}
)";

constexpr std::string_view kMutations = R"(
query hire_at_missing() { insert WorksAt { from: "bob", to: "globex" } }
query found_and_hire() {
    insert Company { name: "globex" }
    insert WorksAt { from: "bob", to: "globex" }
}
query close_acme() { delete Company where name = "acme" }
query set_age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query older($min: I32) { update Person set { seen: now() } where age >= $min }
query add_person($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
query remove($name: String) { delete Person where name = $name }
query note($body: String) { insert Note { body: $body } }
query unlink($from: String) { delete Knows where from = $from }
query mixed() {
    insert Person { name: "x" }
    delete Person where name = "y"
}
query add_aged($name: String, $age: F64) { insert Person { name: $name, age: $age } }
query set_age_float($name: String, $age: F32) { update Person set { age: $age } where name = $name }
query add_maybe($name: String?) { insert Person { name: $name } }
query note_maybe($body: String?) { insert Note { body: $body } }
)";

class MutationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    ASSERT_TRUE(graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite).ok());
  }
  Result<MutationReport> Run(const std::string& name, std::string_view params = "{}") {
    return graph_->Mutate(kMutations, "mutations.gq", name, params);
  }
  std::map<std::string, uint64_t> Counts() {
    std::map<std::string, uint64_t> counts;
    auto snapshot = graph_->Snapshot();  // kept alive across the loop
    for (const auto& d : snapshot->datasets) counts[d.type_name] = d.entity_count;
    return counts;
  }
  size_t Commits() { return graph_->ListCommits()->size(); }
  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

TEST_F(MutationTest, EdgeToAMissingNodeIsRefusedAndSameQueryInsertsSucceed) {
  size_t before = Commits();
  auto missing = Run("hire_at_missing");
  EXPECT_EQ(missing.status().message(), "dst 'globex' not found in Company");
  EXPECT_EQ(Commits(), before);
  auto both = Run("found_and_hire");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->affected_nodes, 1u);
  EXPECT_EQ(both->affected_edges, 1u);
  ASSERT_TRUE(both->commit.has_value());
  EXPECT_EQ(Commits(), before + 1);
  EXPECT_EQ(Counts(), (std::map<std::string, uint64_t>{{"Company", 2}, {"Knows", 2}, {"Note", 0}, {"Person", 2}, {"WorksAt", 2}}));
}

TEST_F(MutationTest, NodeDeleteCascadesToIncidentEdgesCountedOnce) {
  auto closed = Run("close_acme");
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  EXPECT_EQ(closed->affected_nodes, 1u);
  EXPECT_EQ(closed->affected_edges, 1u);
  auto removed = Run("remove", R"({"name":"alice"})");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(removed->affected_nodes, 1u);
  EXPECT_EQ(removed->affected_edges, 2u);  // both Knows edges touch alice
  EXPECT_EQ(Counts(), (std::map<std::string, uint64_t>{{"Company", 0}, {"Knows", 0}, {"Note", 0}, {"Person", 1}, {"WorksAt", 0}}));
}

TEST_F(MutationTest, NothingMatchedPublishesNoCommit) {
  size_t before = Commits();
  auto r = Run("set_age", R"({"name":"nobody","age":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_nodes, 0u);
  EXPECT_FALSE(r->commit.has_value());
  EXPECT_EQ(Commits(), before);
}

TEST_F(MutationTest, UpdateKeepsUnassignedPropertiesAndKeyedInsertUpserts) {
  ASSERT_TRUE(Run("set_age", R"({"name":"bob","age":26})").ok());
  EXPECT_NE(graph_->Export("main", {"Person"})->find("\"age\":26,\"name\":\"bob\""), std::string::npos);
  // A keyed insert of an existing key replaces the whole image.
  auto upsert = Run("add_person", R"({"name":"bob"})");
  ASSERT_TRUE(upsert.ok()) << upsert.status().ToString();
  EXPECT_EQ(*graph_->Export("main", {"Person"}),
            "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\",\"seen\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":null,\"name\":\"bob\",\"seen\":null}}\n");
  // now() is one timestamp per mutation: the request's, whatever the
  // parameters say (a caller cannot date a write).
  auto stamped = Run("older", R"({"min":0,"__nanograph_now":"1999-12-31T23:59:59.999Z"})");
  ASSERT_TRUE(stamped.ok()) << stamped.status().ToString();
  EXPECT_EQ(stamped->affected_nodes, 1u);
  const std::string people = *graph_->Export("main", {"Person"});
  const size_t seen = people.find("\"seen\":");
  ASSERT_NE(seen, std::string::npos) << people;
  // Export writes DateTime as epoch milliseconds: after 2024, not 1999.
  EXPECT_GT(std::stoll(people.substr(seen + 7)), 1704067200000LL) << people;
}

TEST_F(MutationTest, UnkeyedInsertsMintUlidsAndEdgeDeletesByEndpoint) {
  auto n1 = Run("note", R"({"body":"a"})");
  auto n2 = Run("note", R"({"body":"a"})");
  ASSERT_TRUE(n1.ok() && n2.ok());
  EXPECT_EQ(Counts()["Note"], 2u);
  auto unlinked = Run("unlink", R"({"from":"alice"})");
  ASSERT_TRUE(unlinked.ok()) << unlinked.status().ToString();
  EXPECT_EQ(unlinked->affected_edges, 1u);
  EXPECT_EQ(Counts()["Knows"], 1u);
}

TEST_F(MutationTest, MixedMutationIsRejectedBeforeAnyIo) {
  size_t before = Commits();
  auto r = Run("mixed");
  ASSERT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().rfind("mutation 'mixed' on the same query mixes inserts/updates and deletes", 0), 0u)
      << r.status().message();
  EXPECT_EQ(Commits(), before);
}

TEST_F(MutationTest, IfCommitIsACompareAndSwapOnTheHead) {
  std::string head = graph_->ListCommits()->front().id;
  auto stale = graph_->Mutate(kMutations, "mutations.gq", "note", R"({"body":"x"})", "main", "01J0000000000000000000000X");
  ASSERT_EQ(stale.status().code(), ErrorCode::kPreconditionFailed);
  EXPECT_EQ(stale.status().http_status(), 412);
  // branches.md BR-8: the exact message, and the branch with both heads.
  EXPECT_EQ(stale.status().message(), "precondition failed on branch 'main': expected head "
                                      "'01J0000000000000000000000X' but current is " + head);
  EXPECT_EQ(stale.status().details(), (Status::Details{{"branch", "main"},
                                                       {"expected", "01J0000000000000000000000X"},
                                                       {"actual", head}}));
  auto ok = graph_->Mutate(kMutations, "mutations.gq", "note", R"({"body":"x"})", "main", head);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
}

// §3.1: numeric parameter types are inter-compatible. A float parameter
// stored in an integer property converts when it is a whole number in range.
TEST_F(MutationTest, FloatParametersStoreWholeNumbersInIntegerProperties) {
  auto inserted = Run("add_aged", R"({"name":"carol","age":5})");
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  auto updated = Run("set_age_float", R"({"name":"bob","age":3.0})");
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(*graph_->Export("main", {"Person"}),
            "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\",\"seen\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":3,\"name\":\"bob\",\"seen\":null}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":5,\"name\":\"carol\",\"seen\":null}}\n");
  size_t before = Commits();
  auto fraction = Run("add_aged", R"({"name":"dave","age":5.5})");
  EXPECT_EQ(fraction.status().message(),
            "property 'age': value 5.5 is not a whole number, and the property stores integers");
  auto too_big = Run("add_aged", R"({"name":"dave","age":3e9})");
  EXPECT_EQ(too_big.status().message(), "property 'age' of node:Person 'dave': value 3000000000 does not fit type int32");
  EXPECT_EQ(Commits(), before);
}

// §2.4, §3.1: a `where` predicate compares numbers by value, so a literal
// of another kind or width than the property (30.0, 25.5, 2^32 + 30 against
// I32) is a predicate that matches what it equals, never a type error or a
// wrapped value; an assignment must still fit the property exactly.
TEST_F(MutationTest, WherePredicatesCompareNumbersByValue) {
  constexpr std::string_view kNumeric = R"(
query touch_eq() { update Person set { seen: now() } where age = 30.0 }
query touch_frac() { update Person set { seen: now() } where age = 30.5 }
query touch_below() { update Person set { seen: now() } where age < 25.5 }
query touch_wrap() { update Person set { seen: now() } where age = 4294967326 }
query touch_huge() { update Person set { seen: now() } where age < 3000000000 }
query touch_above($x: F64) { update Person set { seen: now() } where age > $x }
query drop_frac() { delete Person where age = 25.5 }
query drop_huge() { delete Person where age >= 3000000000 }
query drop_whole() { delete Person where age <= 25.0 }
query set_frac() { update Person set { age: 2.5 } where name = "bob" }
query add_whole() { insert Person { name: "carol", age: 3.0 } }
)";
  auto run = [&](const std::string& name, std::string_view params = "{}") {
    return graph_->Mutate(kNumeric, "numeric.gq", name, params);
  };
  auto affected = [&](const std::string& name, std::string_view params = "{}") -> std::string {
    auto r = run(name, params);
    if (!r.ok()) return r.status().ToString();
    return fmt::format("{} nodes, {} edges", r->affected_nodes, r->affected_edges);
  };
  const size_t before = Commits();
  EXPECT_EQ(affected("touch_frac"), "0 nodes, 0 edges");
  EXPECT_EQ(affected("touch_wrap"), "0 nodes, 0 edges");  // would be 30 when wrapped to 32 bits
  EXPECT_EQ(affected("drop_frac"), "0 nodes, 0 edges");
  EXPECT_EQ(affected("drop_huge"), "0 nodes, 0 edges");
  EXPECT_EQ(Commits(), before);  // nothing matched: no commit
  EXPECT_EQ(affected("touch_eq"), "1 nodes, 0 edges");
  EXPECT_EQ(affected("touch_below"), "1 nodes, 0 edges");
  EXPECT_EQ(affected("touch_huge"), "2 nodes, 0 edges");
  EXPECT_EQ(affected("touch_above", R"({"x":29.5})"), "1 nodes, 0 edges");
  EXPECT_EQ(affected("touch_above", R"({"x":30.0})"), "0 nodes, 0 edges");
  // Bob (25) goes with both Knows edges.
  EXPECT_EQ(affected("drop_whole"), "1 nodes, 2 edges");
  EXPECT_EQ(Counts()["Person"], 1u);
  // Assignments: a fraction never lands in an integer property.
  auto fraction = run("set_frac");
  EXPECT_EQ(fraction.status().message(),
            "type error: T3: property `age` has type I32? but got F64 literal 2.5, which is not a whole number; "
            "integer properties are never rounded");
  ASSERT_TRUE(run("add_whole").ok());
  EXPECT_NE(graph_->Export("main", {"Person"})->find("\"age\":3,\"name\":\"carol\""), std::string::npos);
}

// With --if-commit, a request that could never run reports why, not a lost
// compare-and-swap (§3.2, exit 1 rather than 4), and a malformed hb1 id is
// an error (engine.md §2.2).
TEST_F(MutationTest, IfCommitChecksTheRequestBeforeTheHead) {
  const std::string stale = "01J0000000000000000000000X";
  auto mixed = graph_->Mutate(kMutations, "mutations.gq", "mixed", "{}", "main", stale);
  EXPECT_EQ(mixed.status().code(), ErrorCode::kInvalidArgument) << mixed.status().ToString();
  auto unknown = graph_->Mutate("query m() { insert Nope { name: \"x\" } }", "m.gq", "m", "{}", "main", stale);
  EXPECT_EQ(unknown.status().message().rfind("type error: T10", 0), 0u) << unknown.status().message();
  auto bad_param = graph_->Mutate(kMutations, "mutations.gq", "note", R"({"body":5})", "main", stale);
  EXPECT_EQ(bad_param.status().code(), ErrorCode::kInvalidArgument) << bad_param.status().ToString();
  EXPECT_NE(bad_param.status().message().find("parameter 'body'"), std::string::npos);
  auto garbage = graph_->Mutate(kMutations, "mutations.gq", "note", R"({"body":"x"})", "main", "hb1.garbage");
  EXPECT_EQ(garbage.status().message(),
            "invalid canonical history-block commit id 'hb1.garbage': it does not have four dot-separated parts "
            "(expected hb1.<block>.<slot>.<nonce>)");
  // The valid request on the stale head still loses the compare-and-swap.
  auto lost = graph_->Mutate(kMutations, "mutations.gq", "note", R"({"body":"x"})", "main", stale);
  EXPECT_EQ(lost.status().code(), ErrorCode::kPreconditionFailed);
}

TEST(CommitIds, Hb1IdsMustParseExactly) {
  const std::string ulid = "01J0000000000000000000000A";
  EXPECT_TRUE(graph::ValidateCommitId(ulid).ok());
  EXPECT_TRUE(graph::ValidateCommitId("anything-else").ok());
  EXPECT_TRUE(graph::ValidateCommitId("hb1." + ulid + ".0." + ulid).ok());
  EXPECT_TRUE(graph::ValidateCommitId("hb1." + ulid + ".16383." + ulid).ok());
  for (const std::string& bad : {"hb1." + ulid + ".16384." + ulid, "hb1." + ulid + ".01." + ulid,
                                 "hb1." + ulid + ".-1." + ulid, "hb1." + ulid + ".." + ulid,
                                 "hb1." + ulid + ".1." + ulid + ".x", "hb1.x.1." + ulid, std::string("hb1.")}) {
    EXPECT_EQ(graph::ValidateCommitId(bad).code(), ErrorCode::kInvalidArgument) << bad;
  }
}

// The write-path budget of a warm one-node insert (issue: graph engine,
// benchmarks): every store call and sync barrier, counted exactly, so a
// change that adds one fails here and not only in the benchmark.
TEST_F(MutationTest, WarmOneNodeInsertMakesABudgetedSetOfStoreCalls) {
  ASSERT_TRUE(Run("add_person", R"({"name":"warm","age":1})").ok());
  StoreCounters& counters = graph_->store().store()->counters();
  counters.Reset();
  auto r = Run("add_person", R"({"name":"carol","age":41})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Writes: the Person data file and detached manifest, the __manifest data
  // file and version M+1. Nothing follows the publication (the version hint
  // only every kVersionHintInterval-th version; M+1 is 4 here).
  EXPECT_EQ(counters.writes.load(), 4u);
  // Reads: when the WriteTxn captures the head, one Head confirming that
  // version M is still the file this handle read (the graph was not
  // re-created) and one probe for M+1; one more probe when the head is
  // rechecked under the gates.
  EXPECT_EQ(counters.reads.load(), 3u);
  EXPECT_EQ(counters.lists.load(), 0u);
  EXPECT_EQ(counters.deletes.load(), 0u);
  // One concurrent round for the four new files and their three
  // directories, then one for the directory entry of the published version:
  // eight sync calls behind two barriers.
  EXPECT_EQ(counters.sync_calls.load(), 8u);
  EXPECT_EQ(counters.sync_barriers.load(), 2u);
}

// Every kVersionHintInterval-th publication leaves __manifest's version
// hint, from which a new handle finds the head without a listing.
TEST_F(MutationTest, EverySixteenthPublicationLeavesTheVersionHint) {
  const std::string hint = dir_.path() + "/g/__manifest/_versions/latest_version_hint.json";
  auto read_hint = [&] {
    std::ifstream in(hint);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  uint64_t version = graph_->store().Latest()->manifest_version();
  ASSERT_LT(version, graph::kVersionHintInterval);
  EXPECT_FALSE(std::filesystem::exists(hint));
  for (int i = 0; version < graph::kVersionHintInterval + 2; ++i) {
    ASSERT_TRUE(Run("add_person", fmt::format(R"({{"name":"p{}","age":{}}})", i, i)).ok());
    version = graph_->store().Latest()->manifest_version();
  }
  EXPECT_EQ(read_hint(), fmt::format(R"({{"version":{}}})", graph::kVersionHintInterval));
  auto fresh = Omnigraph::Open(dir_.path() + "/g");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  StoreCounters& counters = (*fresh)->store().store()->counters();
  counters.Reset();
  auto latest = (*fresh)->store().Latest();
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->manifest_version(), graph::kVersionHintInterval + 2);
  EXPECT_EQ(counters.lists.load(), 0u);
}

// The same insert on a branch costs the same: the branch's native ref is
// resolved once per write, and its record is probed once more just before
// the publication (a branch deleted meanwhile must not take the commit).
TEST_F(MutationTest, WarmOneNodeInsertOnABranchMakesTheSameStoreCallsAndOneLivenessProbe) {
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  auto on_feature = [&](std::string_view params) {
    return graph_->Mutate(kMutations, "mutations.gq", "add_person", params, "feature");
  };
  ASSERT_TRUE(on_feature(R"({"name":"warm","age":1})").ok());
  StoreCounters& counters = graph_->store().store()->counters();
  counters.Reset();
  auto r = on_feature(R"({"name":"carol","age":41})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(counters.writes.load(), 4u);
  EXPECT_EQ(counters.reads.load(), 4u);
  EXPECT_EQ(counters.lists.load(), 0u);
  EXPECT_EQ(counters.deletes.load(), 0u);
  EXPECT_EQ(counters.sync_calls.load(), 8u);
  EXPECT_EQ(counters.sync_barriers.load(), 2u);
}

// A handle outlives its graph: another process deletes the directory and
// creates a new graph there, with fewer versions. The handle must read the
// new graph, list only its history, and write onto it without gaps, never
// extend the old graph's history into it.
TEST_F(MutationTest, AHandleFollowsAGraphCreatedAgainAtItsPath) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Run("add_person", fmt::format(R"({{"name":"old{}","age":1}})", i)).ok());
  }
  const std::string uri = dir_.path() + "/g";
  std::filesystem::remove_all(uri);
  {
    auto again = Omnigraph::Init(uri, kSchema);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_TRUE((*again)->Load(R"({"type":"Person","data":{"name":"fresh","age":2}})", "new.jsonl",
                               LoadMode::kOverwrite)
                    .ok());
  }
  const char* names = "query names() { match { $p: Person } return { $p.name } order { $p.name } }";
  auto read = graph_->Query(names, "names.gq", "names", "{}");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->row_count(), 1);
  EXPECT_EQ(read->rows->column(0)->GetView(0), "fresh");
  EXPECT_EQ(graph_->ListCommits()->size(), 2u);  // genesis and the load
  auto written = Run("add_person", R"({"name":"after","age":3})");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  auto reopened = Omnigraph::Open(uri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto both = (*reopened)->Query(names, "names.gq", "names", "{}");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  ASSERT_EQ(both->row_count(), 2);
  EXPECT_EQ(both->rows->column(0)->GetView(0), "after");
  EXPECT_EQ(both->rows->column(0)->GetView(1), "fresh");
  EXPECT_EQ((*reopened)->ListCommits()->size(), 3u);
}

// A write to a branch that does not exist is refused before the branch's
// writer lock file is made: no file is left behind, and a name too long to
// be a file name is still branch_not_found.
TEST_F(MutationTest, AWriteToAnUnknownBranchIsRefusedBeforeItsLockFile) {
  namespace fs = std::filesystem;
  const fs::path locks = fs::path(dir_.path()) / "g" / "_locks";
  auto lock_files = [&] {
    std::vector<std::string> names;
    if (fs::exists(locks)) {
      for (const auto& entry : fs::directory_iterator(locks)) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::vector<std::string> before = lock_files();
  for (const std::string& branch : {std::string("feature"), std::string(200, 'b')}) {
    auto mutated = graph_->Mutate(kMutations, "mutations.gq", "add_person", R"({"name":"x","age":1})", branch);
    ASSERT_EQ(mutated.status().code(), ErrorCode::kNotFound) << mutated.status().ToString();
    EXPECT_EQ(mutated.status().details().at("kind"), "branch_not_found");
    auto loaded = graph_->Load(kData, "data.jsonl", LoadMode::kMerge, branch);
    ASSERT_EQ(loaded.status().code(), ErrorCode::kNotFound) << loaded.status().ToString();
    EXPECT_EQ(loaded.status().details().at("kind"), "branch_not_found");
  }
  EXPECT_EQ(graph_->Mutate(kMutations, "mutations.gq", "add_person", R"({"name":"x","age":1})", "feature")
                .status()
                .message(),
            "branch 'feature' not found");
  EXPECT_EQ(lock_files(), before);
}

// write-path.md: nothing is acknowledged before it is durable. When the
// directory sync that makes __manifest M+1 durable fails after M+1 became
// visible, the write is reported as failed with an indeterminate outcome,
// never as committed.
TEST_F(MutationTest, AFailedSyncOfThePublishedVersionIsNeverAcknowledged) {
  ASSERT_TRUE(Run("add_person", R"({"name":"warm","age":1})").ok());
  // Hits of the directory-sync failpoint in a warm insert: the first sync
  // round, then the publication's own directory sync.
  failpoint::Set(failpoint::kStoreBeforeDirSync, failpoint::Action::kError, /*skip=*/1);
  auto r = Run("add_person", R"({"name":"carol","age":41})");
  failpoint::ClearAll();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kIoError) << r.status().ToString();
  EXPECT_EQ(r.status().details().at("outcome"), "indeterminate");
  // It names the commit that may have landed: here it did, as the head.
  EXPECT_EQ(r.status().details().at("commit"), graph_->ListCommits()->front().id);
  EXPECT_EQ(r.status().details().at(std::string(kDurabilityDetail)), "unconfirmed");
  // The next write works.
  ASSERT_TRUE(Run("add_person", R"({"name":"dave","age":7})").ok());
}

// Compiled queries are cached per handle; the cache must key on the whole
// source, so a redefined query runs its new text, and never hold errors.
TEST_F(MutationTest, ARedefinedQueryRunsItsNewText) {
  constexpr std::string_view kFirst = R"(query add() { insert Person { name: "first", age: 1 } })";
  constexpr std::string_view kSecond = R"(query add() { insert Person { name: "second", age: 2 } })";
  constexpr std::string_view kBroken = R"(query add() { insert Person { name: 3 } })";
  ASSERT_TRUE(graph_->Mutate(kFirst, "m.gq", "add", "{}").ok());
  ASSERT_TRUE(graph_->Mutate(kSecond, "m.gq", "add", "{}").ok());
  for (int i = 0; i < 2; ++i) {
    auto broken = graph_->Mutate(kBroken, "m.gq", "add", "{}");
    EXPECT_EQ(broken.status().code(), ErrorCode::kInvalidArgument) << broken.status().ToString();
  }
  ASSERT_TRUE(graph_->Mutate(kFirst, "m.gq", "add", "{}").ok());
  std::string people = *graph_->Export("main", {"Person"});
  EXPECT_NE(people.find("\"id\":\"first\",\"age\":1"), std::string::npos) << people;
  EXPECT_NE(people.find("\"id\":\"second\",\"age\":2"), std::string::npos) << people;
  EXPECT_EQ(Counts()["Person"], 4u);
}

// Under concurrent writers an --if-commit refusal is always the lost
// compare-and-swap of §3.2: PreconditionFailed (412, CLI exit 4) with
// {expected, actual}, never a bare read-set conflict (a head moved by a
// writer that does not take the branch lock is converted the same way).
TEST_F(MutationTest, IfCommitLostToAConcurrentWriterIsAPreconditionFailure) {
  auto other = Omnigraph::Open(dir_.path() + "/g");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) (void)(*other)->Mutate(kMutations, "m.gq", "note", fmt::format(R"({{"body":"w{}"}})", i));
  });
  int refused = 0;
  for (int i = 0; i < 60; ++i) {
    std::string head = graph_->ListCommits()->front().id;
    auto r = graph_->Mutate(kMutations, "m.gq", "note", fmt::format(R"({{"body":"c{}"}})", i), "main", head);
    if (r.ok()) continue;
    ++refused;
    EXPECT_EQ(r.status().code(), ErrorCode::kPreconditionFailed) << r.status().ToString();
    EXPECT_EQ(r.status().details().at("expected"), head);
    EXPECT_NE(r.status().details().at("actual"), head);
  }
  stop = true;
  writer.join();
  ::testing::Test::RecordProperty("refused", refused);
}

// Cooperating writers queue on the branch lock instead of racing each
// other's publication, so no insert is refused after its re-prepares run
// out (8 racing writers used to lose about one write in 70).
TEST_F(MutationTest, ManyConcurrentInsertersAllCommit) {
  constexpr int kWriters = 6, kEach = 25;
  std::vector<std::thread> writers;
  std::atomic<int> failed{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto handle = Omnigraph::Open(dir_.path() + "/g");
      if (!handle.ok()) return void(++failed);
      for (int i = 0; i < kEach; ++i) {
        auto r = (*handle)->Mutate(kMutations, "m.gq", "note", fmt::format(R"({{"body":"w{}-{}"}})", w, i));
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          ++failed;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(Counts()["Note"], static_cast<uint64_t>(kWriters * kEach));
}

TEST_F(MutationTest, ParameterErrorsAreTyped) {
  auto missing = Run("set_age", R"({"age":1})");
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("parameter 'name'"), std::string::npos) << missing.status().message();
  auto bad = Run("set_age", R"({"name":"bob","age":"x"})");
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  auto not_object = Run("set_age", "[1]");
  EXPECT_EQ(not_object.status().message(), "params must be a JSON object");
}

TEST_F(MutationTest, NullValuesForRequiredPropertiesAreRefusedByName) {
  // A nullable parameter is the one way to give a key no value at run time;
  // §3.2 words that as a missing key.
  auto key = Run("add_maybe", R"({"name":null})");
  EXPECT_EQ(key.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(key.status().message(), "insert missing @key property 'name'");
  auto body = Run("note_maybe", R"({"body":null})");
  EXPECT_EQ(body.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(body.status().message(), "missing required property 'body'");
  EXPECT_EQ(Commits(), 2u);  // init and load only
}

// Objects a published version needs can vanish under the graph: a Lance
// cleanup run on a table (it does not see detached versions) or on
// __manifest removes them. Reads then say which version is gone, typed
// version_reclaimed (BR-7: HistoricalVersionReclaimed, HTTP 500), instead
// of failing on a raw file error; the versions that remain stay readable.
TEST_F(MutationTest, ObjectsRemovedUnderAPublishedVersionAreReportedAsReclaimed) {
  ASSERT_TRUE(Run("add_person", R"({"name":"carol","age":41})").ok());
  const std::string root = dir_.path() + "/g";
  // Every data file of the Person table (a Lance cleanup's effect on files
  // only detached manifests reference).
  std::string person_dir;
  auto snapshot = graph_->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  for (const auto& d : snapshot->datasets) {
    if (d.type_name == "Person") person_dir = root + "/" + d.dataset_path;
  }
  ASSERT_TRUE(std::filesystem::is_directory(person_dir + "/data")) << person_dir;
  std::filesystem::remove_all(person_dir + "/data");
  constexpr std::string_view kRead = "query people() { match { $p: Person } return { $p.name } }";
  // A new engine, as in a new process: this one's caches hold the rows.
  auto reopened = Omnigraph::Open(root, std::make_shared<Engine>());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto read = (*reopened)->Query(kRead, "q.gq", "people", "{}");
  ASSERT_EQ(read.status().code(), ErrorCode::kVersionReclaimed) << read.status().ToString();
  const std::string published = read.status().details().at("published_dataset_version");
  EXPECT_EQ(read.status().message(), "historical published dataset version " + published + " was reclaimed");
  EXPECT_EQ(read.status().http_status(), 500);
  EXPECT_EQ(read.status().details().at("table_key"), "node:Person");
  EXPECT_NE(read.status().details().at("cause").find("/data/"), std::string::npos) << read.status().ToString();
  auto exported = (*reopened)->Export("main", {});
  EXPECT_EQ(exported.status().code(), ErrorCode::kVersionReclaimed) << exported.status().ToString();

  // An old __manifest version removed: the head still reads, and so does
  // the history, which lives in the head's manifest and history segments
  // (engine.md §1.5), not in older versions; only time travel to the commit
  // that version held fails, typed: main is live and keeps its later
  // versions, so the version was reclaimed (BR-7 HistoricalVersionReclaimed,
  // HTTP 500; a retired branch's lost rows are a HistoryGap instead).
  // V2 naming: version v is the file (2^64 - 1 - v).manifest.
  ASSERT_TRUE(std::filesystem::remove(root + "/__manifest/_versions/18446744073709551614.manifest"));
  auto fresh = Omnigraph::Open(root);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  auto companies = (*fresh)->Query("query c() { match { $c: Company } return { count($c) as n } }", "q.gq", "c", "{}");
  ASSERT_TRUE(companies.ok()) << companies.status().ToString();
  auto history = (*fresh)->ListCommits();
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 3u);
  const std::string genesis = history->back().id;
  auto past = (*fresh)->Query("query c() { match { $c: Company } return { count($c) as n } }", "q.gq", "c", "{}",
                              ReadTarget{"main", genesis});
  ASSERT_EQ(past.status().code(), ErrorCode::kVersionReclaimed) << past.status().ToString();
  EXPECT_EQ(past.status().http_status(), 500);
  EXPECT_EQ(past.status().message(), "historical published dataset version 1 was reclaimed");
  EXPECT_EQ(past.status().details().at("graph_commit_id"), genesis);
  EXPECT_EQ(past.status().details().at("table_key"), "__manifest");
}

// An actor id is stored in commit metadata JSON and printed one per line:
// the embedded API refuses what would break either, keeping the old actor.
TEST_F(MutationTest, ActorIdsMustBeUtf8WithoutControlCharacters) {
  ASSERT_TRUE(graph_->set_actor("ann").ok());
  EXPECT_EQ(graph_->set_actor(std::string("bob\xff")).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(graph_->set_actor(std::string("bob\nforged")).message(),
            "the actor id bob\\x0Aforged contains control characters");
  EXPECT_EQ(graph_->actor(), std::optional<std::string>("ann"));
  auto r = Run("add_person", R"({"name":"carol","age":41})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(graph_->ListCommits()->front().actor_id, std::optional<std::string>("ann"));
}

}  // namespace mutation_test
}  // namespace omnigraph::api
