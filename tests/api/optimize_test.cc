// optimize and repair through the embedded API (spec/engine.md §8.1, §8.3;
// spec/surface.md §5.2): compaction keeps every row, id, value and count,
// publishes at most one main commit, never deletes a version, and repair
// only reports.
#include <atomic>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "api/wire/report_json.h"
#include "support/temp_dir.h"
#include "table/commit.h"
#include "table/staging.h"

namespace omnigraph::api {
namespace optimize_test {

constexpr std::string_view kSchema = R"(
node Person {
    name: String @key
    age: I32?
    nick: String?
    doc: Blob?
}
edge Knows: Person -> Person
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"p0","age":0,"nick":"","doc":"base64:"}}
{"type":"Person","data":{"name":"p1","age":1,"nick":null,"doc":"base64:aGk="}}
{"type":"Person","data":{"name":"p2","age":2}}
{"edge":"Knows","from":"p0","to":"p1"}
{"edge":"Knows","from":"p1","to":"p2"}
)";

constexpr std::string_view kMutations = R"(
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query remove($name: String) { delete Person where name = $name }
query link($from: String, $to: String) { insert Knows { from: $from, to: $to } }
)";

constexpr std::string_view kQueries = R"(
query people() {
    match { $p: Person }
    return { $p.name, $p.age, $p.nick }
}
query total() {
    match { $p: Person }
    return { count($p) as n }
}
query links() {
    match { $a: Person  $a knows $b }
    return { $a.name, $b.name }
}
)";

class OptimizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  void Mutate(const std::string& name, const std::string& params) {
    auto report = graph_->Mutate(kMutations, "m.gq", name, params);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_TRUE(report->commit.has_value());
  }
  // Rows of a read query, one compact JSON text per row.
  std::string Rows(const std::string& query, const ReadTarget& target = {}) {
    auto result = graph_->Query(kQueries, "q.gq", query, "{}", target);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return "";
    std::string out;
    for (int64_t r = 0; r < result->row_count(); ++r) out += exec::RowJson(*result, r) + "\n";
    return out;
  }
  // Fragments of the pinned version of `table_key` on main.
  size_t Fragments(const std::string& table_key) {
    auto latest = graph_->store().Latest();
    const graph::TableEntry* entry = latest->FindTable(table_key);
    auto ds = latest->OpenDataset(*entry);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? ds->manifest().fragments.size() : 0;
  }
  std::map<std::string, uint64_t> Counts() {
    std::map<std::string, uint64_t> counts;
    auto snapshot = graph_->Snapshot();
    for (const auto& d : snapshot->datasets) counts[d.type_name] = d.entity_count;
    return counts;
  }
  size_t Commits() { return graph_->ListCommits()->size(); }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

// Four one-row inserts, two links and a delete leave Person in 5
// fragments and Knows in 3, the loaded ones with deletion vectors;
// optimize compacts each into one, in one commit, and every observable
// stays the same.
TEST_F(OptimizeTest, CompactsEveryTableInOneCommitAndKeepsEverything) {
  for (int i = 3; i < 7; ++i) Mutate("add", fmt::format(R"({{"name":"p{}","age":{}}})", i, i));
  Mutate("link", R"({"from":"p3","to":"p4"})");
  Mutate("link", R"({"from":"p4","to":"p5"})");
  Mutate("remove", R"({"name":"p2"})");  // and its edge p1 -> p2
  ASSERT_EQ(Fragments("node:Person"), 5u);
  ASSERT_EQ(Fragments("edge:Knows"), 3u);
  const std::string people = Rows("people");
  const std::string links = Rows("links");
  const std::string exported = *graph_->Export("main", {});
  const auto counts = Counts();
  EXPECT_EQ(counts, (std::map<std::string, uint64_t>{{"Knows", 3}, {"Person", 6}}));
  const std::string before_optimize = graph_->ListCommits()->front().id;
  const size_t commits = Commits();
  const auto before = graph_->Snapshot();

  auto result = graph_->Optimize();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->commit.has_value());
  EXPECT_EQ(Commits(), commits + 1);
  EXPECT_EQ(graph_->ListCommits()->front().id, result->commit->id);
  ASSERT_EQ(result->tables.size(), 2u);
  const exec::OptimizeTableStats& knows = result->tables[0];
  const exec::OptimizeTableStats& person = result->tables[1];
  EXPECT_EQ(knows.type_key, "edge:Knows");
  EXPECT_EQ(knows.fragments_removed, 3u);
  EXPECT_EQ(knows.fragments_added, 1u);
  EXPECT_TRUE(knows.committed);
  EXPECT_EQ(person.type_key, "node:Person");
  EXPECT_EQ(person.fragments_removed, 5u);
  EXPECT_EQ(person.fragments_added, 1u);
  EXPECT_TRUE(person.committed);
  // One logical version past the pins it planned from.
  EXPECT_EQ(before->datasets[0].published_dataset_version + 1, knows.published_dataset_version);
  EXPECT_EQ(before->datasets[1].published_dataset_version + 1, person.published_dataset_version);
  // Graph writers commit detached versions only: the linear HEAD stays at
  // the creation version.
  EXPECT_EQ(person.lance_head_version, 1u);
  EXPECT_TRUE(person.pending_indexes.empty());
  EXPECT_EQ(Fragments("node:Person"), 1u);
  EXPECT_EQ(Fragments("edge:Knows"), 1u);

  // Rows, their order, values (NULL vs empty), ids and counts are unchanged.
  EXPECT_EQ(Rows("people"), people);
  EXPECT_EQ(Rows("links"), links);
  EXPECT_EQ(*graph_->Export("main", {}), exported);
  EXPECT_EQ(Counts(), counts);
  EXPECT_NE(exported.find(R"("data":{"id":"p0","age":0,"doc":"base64:","name":"p0","nick":""})"), std::string::npos) << exported;
  EXPECT_NE(exported.find(R"("data":{"id":"p1","age":1,"doc":"base64:aGk=","name":"p1","nick":null})"), std::string::npos) << exported;
  EXPECT_NE(exported.find(R"("data":{"id":"p3","age":3,"doc":null,"name":"p3","nick":null})"), std::string::npos) << exported;
  EXPECT_EQ(exported.find("\"p2\""), std::string::npos);  // the deleted row stays deleted
  // A physical-only commit changes no entity.
  auto changes = graph_->CommitChanges(result->commit->id);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_TRUE(changes->changes.empty());

  // Time travel: the commit before still reads its own rows (nothing deleted).
  ReadTarget past{"main", before_optimize};
  EXPECT_EQ(Rows("people", past), people);
  const std::string before_delete = graph_->ListCommits()->at(2).id;
  EXPECT_EQ(Rows("total", ReadTarget{"main", before_delete}), "{\"n\":7}\n");

  // A second run has nothing to do: no commit, every table a no-op.
  auto again = graph_->Optimize();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->commit.has_value());
  EXPECT_EQ(Commits(), commits + 1);
  for (const auto& t : again->tables) {
    EXPECT_FALSE(t.committed) << t.type_key;
    EXPECT_EQ(t.fragments_removed, 0u) << t.type_key;
    EXPECT_EQ(t.fragments_added, 0u) << t.type_key;
  }
  EXPECT_EQ(again->tables[1].published_dataset_version, person.published_dataset_version);

  // Writes after an optimize go on from the compacted pin.
  Mutate("add", R"({"name":"p9","age":9})");
  EXPECT_EQ(Rows("total"), "{\"n\":7}\n");
  EXPECT_EQ(Fragments("node:Person"), 2u);
}

TEST_F(OptimizeTest, WireReportListsEveryTable) {
  Mutate("add", R"({"name":"p3","age":3})");
  auto result = graph_->Optimize();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  auto json = wire::OptimizeJson("g", *result);
  EXPECT_EQ(json.dump(), fmt::format(R"({{"uri":"g","datasets":[)"
                                     R"({{"type_key":"edge:Knows","fragments_removed":0,"fragments_added":0,)"
                                     R"("committed":false,"skipped":false,"published_dataset_version":{},)"
                                     R"("lance_head_version":1,"pending_indexes":[]}},)"
                                     R"({{"type_key":"node:Person","fragments_removed":2,"fragments_added":1,)"
                                     R"("committed":true,"skipped":false,"published_dataset_version":{},)"
                                     R"("lance_head_version":1,"pending_indexes":[]}}]}})",
                                     result->tables[0].published_dataset_version,
                                     result->tables[1].published_dataset_version));
  EXPECT_EQ(result->tables[1].published_dataset_version, 4u);  // init 1, load 2, insert 3, optimize 4
}

TEST_F(OptimizeTest, NothingToCompactPublishesNothing) {
  const size_t commits = Commits();
  const auto before = graph_->Snapshot();
  auto result = graph_->Optimize();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->commit.has_value());
  EXPECT_EQ(Commits(), commits);
  EXPECT_EQ(graph_->Snapshot()->graph_manifest_version, before->graph_manifest_version);
}

// B15 S11: a delete racing optimize, from two handles (two writers queue on
// main's writer lock): the delete is acknowledged, and no compaction before
// or after it brings a deleted row back.
TEST_F(OptimizeTest, ADeleteRacingOptimizeIsNeverUndone) {
  for (int i = 3; i < 23; ++i) Mutate("add", fmt::format(R"({{"name":"p{}","age":{}}})", i, i));
  auto other = Omnigraph::Open(dir_.path() + "/g");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::atomic<bool> stop{false};
  std::atomic<int> optimized{0};
  std::thread optimizer([&] {
    while (!stop.load()) {
      auto r = (*other)->Optimize();
      if (r.ok()) {
        ++optimized;
      } else {
        EXPECT_EQ(r.status().code(), ErrorCode::kReadSetChanged) << r.status().ToString();
      }
    }
  });
  for (int i = 3; i < 23; i += 2) {
    bool acknowledged = false;
    for (int attempt = 0; attempt < 20 && !acknowledged; ++attempt) {
      auto report = graph_->Mutate(kMutations, "m.gq", "remove", fmt::format(R"({{"name":"p{}"}})", i));
      if (report.ok()) {
        acknowledged = true;
        EXPECT_EQ(report->affected_nodes, 1u);
      } else {
        ASSERT_EQ(report.status().code(), ErrorCode::kReadSetChanged) << report.status().ToString();
      }
    }
    ASSERT_TRUE(acknowledged) << i;
  }
  stop = true;
  optimizer.join();
  EXPECT_GT(optimized.load(), 0);
  ASSERT_TRUE(graph_->Optimize().ok());
  EXPECT_EQ(Rows("total"), "{\"n\":13}\n");
  const std::string exported = *graph_->Export("main", {});
  for (int i = 3; i < 23; i += 2) EXPECT_EQ(exported.find(fmt::format("\"p{}\"", i)), std::string::npos) << i;
}

// Repair reports, never adopts: a linear commit written to a table by
// something else is foreign drift; the graph is unchanged and reads keep
// their pins.
TEST_F(OptimizeTest, RepairClassifiesForeignDrift) {
  auto clean = graph_->Repair();
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  ASSERT_EQ(clean->size(), 2u);
  for (const auto& t : *clean) {
    EXPECT_EQ(t.classification, exec::DriftClass::kNoDrift) << t.type_key;
    EXPECT_EQ(t.last_linear_version, 1u);
    EXPECT_EQ(t.lance_head_version, 1u);
  }
  // A foreign linear commit on Person's dataset (not through the door).
  auto latest = graph_->store().Latest();
  const graph::TableEntry* person = latest->FindTable("node:Person");
  auto linear = table::Dataset::Open(graph_->store().store(), JoinPath(graph_->store().root(), person->location));
  ASSERT_TRUE(linear.ok()) << linear.status().ToString();
  ASSERT_EQ(linear->version(), 1u);
  auto staged = table::StageAddColumns(*linear, {Field("foreign", DataType::Utf8())});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  ASSERT_TRUE(table::CommitLinear(*staged).ok());
  const uint64_t manifest_version = graph_->Snapshot()->graph_manifest_version;

  auto drift = graph_->Repair();
  ASSERT_TRUE(drift.ok()) << drift.status().ToString();
  EXPECT_EQ((*drift)[0].classification, exec::DriftClass::kNoDrift);
  EXPECT_EQ((*drift)[1].type_key, "node:Person");
  EXPECT_EQ((*drift)[1].classification, exec::DriftClass::kForeignDrift);
  EXPECT_EQ((*drift)[1].last_linear_version, 1u);
  EXPECT_EQ((*drift)[1].lance_head_version, 2u);
  EXPECT_EQ(wire::RepairJson("g", *drift).dump(),
            R"({"uri":"g","datasets":[{"type_key":"edge:Knows","classification":"no_drift",)"
            R"("last_linear_version":1,"lance_head_version":1},{"type_key":"node:Person",)"
            R"("classification":"foreign_drift","last_linear_version":1,"lance_head_version":2}]})");
  // Nothing adopted: same manifest version, same rows.
  EXPECT_EQ(graph_->Snapshot()->graph_manifest_version, manifest_version);
  EXPECT_EQ(Rows("total"), "{\"n\":3}\n");
  // Optimize plans from the pin, not the foreign HEAD, and keeps reporting it.
  Mutate("add", R"({"name":"p3","age":3})");
  auto optimized = graph_->Optimize();
  ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
  EXPECT_EQ(optimized->tables[1].lance_head_version, 2u);
  EXPECT_EQ(Rows("total"), "{\"n\":4}\n");
  EXPECT_EQ((*graph_->Repair())[1].classification, exec::DriftClass::kForeignDrift);
}

TEST_F(OptimizeTest, OptimizeOfAMissingGraphIsNotFound) {
  auto missing = Omnigraph::Open(dir_.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

}  // namespace optimize_test
}  // namespace omnigraph::api
