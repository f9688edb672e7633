// Branch merge through the embedded API (spec/branches.md BR-9, BR-14
// items 2 and 3; spec/engine.md §4.5): the 7x7 truth table cell by cell,
// and Appendix A rows 5-10, 12, 13, 15, 22, 23 and 38.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "api/wire/error_json.h"
#include "exec/writers/branch_merge.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "api/branch_fixture.h"

namespace omnigraph::testing {
namespace branch_merge_test {

// ---------------------------------------------------------------------------
// The truth table (engine.md §4.5; Appendix A row 1).

constexpr std::string_view kTruthSchema = R"(node Person {
    name: String @key
    age: I32?
}
edge Knows: Person -> Person
)";

constexpr std::string_view kTruthData = R"({"type":"Person","data":{"name":"Alice","age":30}}
{"type":"Person","data":{"name":"Bob","age":25}}
{"type":"Person","data":{"name":"Carol","age":35}}
{"type":"Person","data":{"name":"Dan","age":40}}
{"edge":"Knows","from":"Bob","to":"Carol"}
)";

constexpr std::string_view kTruthMutations = R"(
query add_eve($age: I32) { insert Person { name: "Eve", age: $age } }
query remove_alice() { delete Person where name = "Alice" }
query add_edge() { insert Knows { from: "Alice", to: "Carol" } }
query remove_bob_edges() { delete Knows where from = "Bob" }
query remove_alice_edges() { delete Knows where from = "Alice" }
query set_alice_age($age: I32) { update Person set { age: $age } where name = "Alice" }
)";

enum class Op { kNoop, kAddNode, kRemoveNode, kAddEdge, kRemoveEdge, kSetProperty, kNetZeroEdge };
constexpr Op kOps[] = {Op::kNoop,       Op::kAddNode,     Op::kRemoveNode, Op::kAddEdge,
                       Op::kRemoveEdge, Op::kSetProperty, Op::kNetZeroEdge};

std::string OpName(Op op) {
  switch (op) {
    case Op::kNoop: return "noop";
    case Op::kAddNode: return "addNode";
    case Op::kRemoveNode: return "removeNode";
    case Op::kAddEdge: return "addEdge";
    case Op::kRemoveEdge: return "removeEdge";
    case Op::kSetProperty: return "setProperty";
    case Op::kNetZeroEdge: return "netZeroEdge";
  }
  return "?";
}

// The observable graph: Persons (name -> age) and Knows edges as
// "src->dst", sorted (a multiset: duplicates are separate edges).
struct Model {
  std::map<std::string, int> people{{"Alice", 30}, {"Bob", 25}, {"Carol", 35}, {"Dan", 40}};
  std::vector<std::string> knows{"Bob->Carol"};
  bool operator==(const Model&) const = default;
};

// The source writes Eve 22 / Alice 31, the target Eve 23 / Alice 32, so
// that both-sided inserts and updates diverge (§4.5 "different ages").
void Apply(Op op, bool source, Model* m) {
  switch (op) {
    case Op::kNoop:
    case Op::kNetZeroEdge: break;
    case Op::kAddNode: m->people["Eve"] = source ? 22 : 23; break;
    case Op::kRemoveNode: {
      m->people.erase("Alice");
      std::erase_if(m->knows, [](const std::string& e) { return e.starts_with("Alice->") || e.ends_with("->Alice"); });
      break;
    }
    case Op::kAddEdge: m->knows.push_back("Alice->Carol"); break;
    case Op::kRemoveEdge: std::erase_if(m->knows, [](const std::string& e) { return e.starts_with("Bob->"); }); break;
    case Op::kSetProperty: m->people["Alice"] = source ? 31 : 32; break;
  }
  std::sort(m->knows.begin(), m->knows.end());
}

enum class Outcome { kUpToDate, kFastForward, kMerged, kConflict };

struct Expected {
  Outcome outcome;
  // Conflict cells: the one conflict.
  std::string entity_kind, type_name, kind, message;
  // The conflicting entity: a Person name, or "source edge" / "target
  // edge" for the Alice->Carol edge that side inserted.
  std::string entity;
};

Expected Cell(Op s, Op t) {
  Expected up{Outcome::kUpToDate}, ff{Outcome::kFastForward}, merged{Outcome::kMerged};
  if (s == Op::kNoop) return up;
  if (t == Op::kNoop) return ff;
  if (s == Op::kAddNode && t == Op::kAddNode) {
    return {Outcome::kConflict, "node", "Person", "divergent_insert", "divergent insert for id 'Eve'", "Eve"};
  }
  if ((s == Op::kRemoveNode && t == Op::kSetProperty) || (s == Op::kSetProperty && t == Op::kRemoveNode)) {
    return {Outcome::kConflict, "node", "Person", "delete_vs_update", "delete/update conflict for id 'Alice'", "Alice"};
  }
  if (s == Op::kSetProperty && t == Op::kSetProperty) {
    return {Outcome::kConflict, "node", "Person", "divergent_update", "divergent update for id 'Alice'", "Alice"};
  }
  if (s == Op::kRemoveNode && t == Op::kAddEdge) {
    return {Outcome::kConflict, "edge", "Knows", "orphan_edge", "src 'Alice' not found in Person", "target edge"};
  }
  if (s == Op::kAddEdge && t == Op::kRemoveNode) {
    return {Outcome::kConflict, "edge", "Knows", "orphan_edge", "src 'Alice' not found in Person", "source edge"};
  }
  return merged;
}

class BranchMergeTruthTable : public ::testing::TestWithParam<std::tuple<Op, Op>> {
 protected:
  void SetUp() override {
    auto g = api::Omnigraph::Init(dir_.path() + "/g", kTruthSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(kTruthData, "truth.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  }

  void Run(const std::string& name, const std::string& params, const std::string& branch) {
    auto report = graph_->Mutate(kTruthMutations, "truth.gq", name, params, branch);
    ASSERT_TRUE(report.ok()) << name << ": " << report.status().ToString();
    ASSERT_TRUE(report->commit.has_value()) << name << " on " << branch << " published nothing";
  }
  void Do(Op op, const std::string& branch, bool source) {
    switch (op) {
      case Op::kNoop: break;
      case Op::kAddNode: Run("add_eve", source ? R"({"age":22})" : R"({"age":23})", branch); break;
      case Op::kRemoveNode: Run("remove_alice", "{}", branch); break;
      case Op::kAddEdge: Run("add_edge", "{}", branch); break;
      case Op::kRemoveEdge: Run("remove_bob_edges", "{}", branch); break;
      case Op::kSetProperty: Run("set_alice_age", source ? R"({"age":31})" : R"({"age":32})", branch); break;
      case Op::kNetZeroEdge:
        Run("add_edge", "{}", branch);
        Run("remove_alice_edges", "{}", branch);
        break;
    }
  }

  Model Observe(const std::string& branch) {
    Model m;
    m.people.clear();
    m.knows.clear();
    auto snapshot = graph_->store().Latest(branch);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot.ok()) return m;
    auto people = snapshot->CachedRows(*snapshot->FindTable("node:Person"));
    EXPECT_TRUE(people.ok());
    const Array* age = (*people)->Column("age");
    for (int64_t r = 0; r < (*people)->num_rows(); ++r) {
      std::string cell;
      exec::AppendCellJson(&cell, *age, r);
      m.people[std::string((*people)->ids().GetView(r))] = std::stoi(cell);
    }
    auto knows = snapshot->CachedRows(*snapshot->FindTable("edge:Knows"));
    EXPECT_TRUE(knows.ok());
    const Array* src = (*knows)->Column("src");
    const Array* dst = (*knows)->Column("dst");
    for (int64_t r = 0; r < (*knows)->num_rows(); ++r) {
      m.knows.push_back(std::string(src->GetView(r)) + "->" + std::string(dst->GetView(r)));
    }
    std::sort(m.knows.begin(), m.knows.end());
    return m;
  }
  // The id of the one Alice->Carol edge on `branch`.
  std::string AliceCarolEdge(const std::string& branch) {
    auto snapshot = graph_->store().Latest(branch);
    EXPECT_TRUE(snapshot.ok());
    auto knows = snapshot->CachedRows(*snapshot->FindTable("edge:Knows"));
    EXPECT_TRUE(knows.ok());
    std::vector<std::string> ids;
    for (int64_t r = 0; r < (*knows)->num_rows(); ++r) {
      if ((*knows)->Column("src")->GetView(r) == "Alice") ids.emplace_back((*knows)->ids().GetView(r));
    }
    EXPECT_EQ(ids.size(), 1u);
    return ids.empty() ? "" : ids[0];
  }
  std::string Head(const std::string& branch) { return graph_->Snapshot(branch)->head_commit_id; }
  uint64_t Version(const std::string& branch) { return graph_->Snapshot(branch)->graph_manifest_version; }
  std::vector<std::string> CommitIds(const std::string& branch) { return IdsOf(*graph_->ListCommits(branch)); }
  std::string Exported(const std::string& branch) { return *graph_->Export(branch, {}); }

  TempDir dir_;
  std::unique_ptr<api::Omnigraph> graph_;
};

TEST_P(BranchMergeTruthTable, Cell) {
  const auto [s, t] = GetParam();
  ASSERT_NO_FATAL_FAILURE(Do(s, "feature", /*source=*/true));
  ASSERT_NO_FATAL_FAILURE(Do(t, "main", /*source=*/false));
  const Expected expected = Cell(s, t);

  Model target_only, source_only, result;
  Apply(t, false, &target_only);
  Apply(s, true, &source_only);
  Apply(t, false, &result);
  Apply(s, true, &result);
  ASSERT_EQ(Observe("main"), target_only);
  ASSERT_EQ(Observe("feature"), source_only);

  const std::string main_head = Head("main"), feature_head = Head("feature");
  const uint64_t main_version = Version("main");
  const std::vector<std::string> main_commits = CommitIds("main"), feature_commits = CommitIds("feature");
  const std::string main_rows = Exported("main"), feature_rows = Exported("feature");
  const std::string edge_id = expected.entity == "source edge"   ? AliceCarolEdge("feature")
                              : expected.entity == "target edge" ? AliceCarolEdge("main")
                                                                 : expected.entity;

  auto merged = graph_->BranchMerge("feature", "main");

  // The source never changes.
  EXPECT_EQ(Head("feature"), feature_head);
  EXPECT_EQ(CommitIds("feature"), feature_commits);
  EXPECT_EQ(Exported("feature"), feature_rows);

  if (expected.outcome == Outcome::kConflict) {
    ASSERT_EQ(merged.status().code(), ErrorCode::kMergeConflicts) << merged.status().ToString();
    EXPECT_EQ(merged.status().http_status(), 409);
    auto conflicts = exec::ConflictsOf(merged.status());
    ASSERT_TRUE(conflicts.ok()) << conflicts.status().ToString();
    ASSERT_EQ(conflicts->size(), 1u);
    const exec::MergeConflict& c = (*conflicts)[0];
    EXPECT_EQ(c.entity_kind, expected.entity_kind);
    EXPECT_EQ(c.type_name, expected.type_name);
    EXPECT_EQ(c.entity_id, edge_id);
    EXPECT_EQ(c.kind, expected.kind);
    EXPECT_EQ(c.message, expected.message);
    EXPECT_EQ(merged.status().message(), "merge conflicts: " + expected.entity_kind + " type '" + expected.type_name +
                                             "', entity id '" + edge_id + "' (" + expected.kind + ")");
    // Main is exactly the target-op-only state.
    EXPECT_EQ(Head("main"), main_head);
    EXPECT_EQ(Version("main"), main_version);
    EXPECT_EQ(CommitIds("main"), main_commits);
    EXPECT_EQ(Exported("main"), main_rows);
    EXPECT_EQ(Observe("main"), target_only);
    return;
  }

  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->source, "feature");
  EXPECT_EQ(merged->target, "main");
  if (expected.outcome == Outcome::kUpToDate) {
    EXPECT_EQ(merged->outcome, "already_up_to_date");
    EXPECT_FALSE(merged->commit.has_value());
    EXPECT_EQ(Head("main"), main_head);
    EXPECT_EQ(Version("main"), main_version);
    EXPECT_EQ(CommitIds("main"), main_commits);
    EXPECT_EQ(Exported("main"), main_rows);
    return;
  }
  EXPECT_EQ(merged->outcome, expected.outcome == Outcome::kFastForward ? "fast_forward" : "merged");
  ASSERT_TRUE(merged->commit.has_value());
  EXPECT_EQ(merged->commit->parent_id, main_head);
  EXPECT_EQ(merged->commit->merged_parent_id, feature_head);
  EXPECT_NE(merged->commit->id, feature_head);  // never a ref move
  EXPECT_EQ(Head("main"), merged->commit->id);
  EXPECT_EQ(Version("main"), main_version + 1);
  EXPECT_EQ(merged->commit->manifest_version, main_version + 1);
  EXPECT_EQ(Observe("main"), result);
  // Re-merging the same source is already up to date.
  auto again = graph_->BranchMerge("feature", "main");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, "already_up_to_date");
  EXPECT_EQ(Head("main"), merged->commit->id);
}

INSTANTIATE_TEST_SUITE_P(BranchMerge, BranchMergeTruthTable,
                         ::testing::Combine(::testing::ValuesIn(kOps), ::testing::ValuesIn(kOps)),
                         [](const ::testing::TestParamInfo<std::tuple<Op, Op>>& info) {
                           return OpName(std::get<0>(info.param)) + "_into_" + OpName(std::get<1>(info.param));
                         });

// ---------------------------------------------------------------------------
// Appendix A merge rows on the test.pg fixture.

class BranchMergeTest : public BranchFixture {};

// Row 5.
TEST_F(BranchMergeTest, MergeAppliesANodeInsertToMain) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "fast_forward");
  EXPECT_EQ(report.source, "feature");
  EXPECT_EQ(report.target, "main");
  EXPECT_FALSE(report.branch_deleted.has_value());
  EXPECT_FALSE(report.branch_delete_error.has_value());
  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto eve = (*reopened)->Query(kBranchQueries, "q.gq", "get_person", R"({"name":"Eve"})");
  ASSERT_TRUE(eve.ok()) << eve.status().ToString();
  EXPECT_EQ(RowsOf(*eve), std::vector<std::string>{R"("Eve",22)"});
}

// Row 6.
TEST_F(BranchMergeTest, AFastForwardRecordsOneLatestCommitWithTwoParents) {
  Create("feature");
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  const std::string old_head = Head();
  const uint64_t old_version = ManifestVersion();
  api::BranchMergeReport report = Merge("feature");
  ASSERT_EQ(report.outcome, "fast_forward");
  ASSERT_TRUE(report.commit.has_value());
  const uint64_t top = ManifestVersion();
  EXPECT_EQ(top, old_version + 1);
  std::vector<graph::CommitRecord> commits = Commits();
  ASSERT_FALSE(commits.empty());
  EXPECT_EQ(commits[0], *report.commit);
  EXPECT_EQ(std::count_if(commits.begin(), commits.end(),
                          [&](const graph::CommitRecord& c) { return !c.graph_branch && c.manifest_version == top; }),
            1);
  EXPECT_EQ(commits[0].parent_id, old_head);
  EXPECT_EQ(commits[0].merged_parent_id, eve.id);
  EXPECT_EQ(commits[0].graph_branch, std::nullopt);
  EXPECT_EQ(commits[0].manifest_version, top);
  EXPECT_NE(commits[0].id, eve.id);
  auto shown = db().ShowCommit(report.commit->id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_EQ(*shown, *report.commit);
}

// Row 7.
TEST_F(BranchMergeTest, AFreshBranchIsAlreadyUpToDate) {
  Create("feature");
  const std::string head = Head();
  const uint64_t version = ManifestVersion();
  const std::vector<std::string> commits = IdsOf(Commits());
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "already_up_to_date");
  EXPECT_FALSE(report.commit.has_value());
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(ManifestVersion(), version);
  EXPECT_EQ(IdsOf(Commits()), commits);
  EXPECT_EQ(Head("feature"), head);
  EXPECT_EQ(head, load_commit_.id);
}

// Row 8.
TEST_F(BranchMergeTest, ANonFastForwardAutoMergeIsMerged) {
  Create("feature");
  graph::CommitRecord bob = SetAge("Bob", 26);
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "merged");
  ASSERT_TRUE(report.commit.has_value());
  EXPECT_EQ(report.commit->parent_id, bob.id);
  EXPECT_EQ(report.commit->merged_parent_id, eve.id);
  EXPECT_EQ(People(), (std::vector<std::string>{R"("Alice",30)", R"("Bob",26)", R"("Charlie",35)", R"("Diana",28)",
                                                R"("Eve",22)"}));
  // The source keeps its own state.
  EXPECT_EQ(People("feature"), PeopleWith(kFixturePeople, R"("Eve",22)"));
}

// Row 9.
TEST_F(BranchMergeTest, TheMergeActorIsRecordedOnTheLatestCommit) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  ASSERT_TRUE(db().set_actor("act-ragnor").ok());
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "fast_forward");
  EXPECT_EQ(report.actor_id, "act-ragnor");
  ASSERT_TRUE(report.commit.has_value());
  EXPECT_EQ(report.commit->actor_id, "act-ragnor");
  EXPECT_EQ(Commits()[0].actor_id, "act-ragnor");
  EXPECT_EQ(Commits()[1].actor_id, std::nullopt);  // the feature commit was unauthored
}

// Row 10.
TEST_F(BranchMergeTest, IdenticalUpdatesOnBothSidesMergeWithoutConflict) {
  Create("feature");
  SetAge("Alice", 31);
  SetAge("Alice", 31, "feature");
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "merged");
  EXPECT_EQ(GetPerson("Alice"), std::vector<std::string>{R"("Alice",31)"});
  EXPECT_EQ(People().size(), 4u);
}

// Row 12.
TEST_F(BranchMergeTest, MergeIntoANonMainTarget) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  Create("experiment", "feature");
  graph::CommitRecord bob = SetAge("Bob", 26, "feature");
  const std::string experiment_head = Head("experiment");
  api::BranchMergeReport report = Merge("feature", "experiment");
  EXPECT_EQ(report.outcome, "fast_forward");
  EXPECT_EQ(report.target, "experiment");
  ASSERT_TRUE(report.commit.has_value());
  EXPECT_EQ(report.commit->graph_branch, "experiment");
  EXPECT_EQ(report.commit->parent_id, experiment_head);
  EXPECT_EQ(report.commit->merged_parent_id, bob.id);
  EXPECT_EQ(People("experiment"), (std::vector<std::string>{R"("Alice",30)", R"("Bob",26)", R"("Charlie",35)",
                                                            R"("Diana",28)", R"("Eve",22)"}));
  EXPECT_EQ(People("main"), kFixturePeople);
  EXPECT_EQ(Head("main"), load_commit_.id);
}

// Row 13.
TEST(BranchMergeValidation, AUniqueViolationIsAConflict) {
  TempDir dir;
  auto g = api::Omnigraph::Init(dir.path() + "/g", R"(node User {
    name: String @key
    email: String? @unique
}
)");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  api::Omnigraph& db = **g;
  ASSERT_TRUE(db.Load(R"({"type":"User","data":{"name":"Alice","email":"alice@x"}}
{"type":"User","data":{"name":"Bob","email":"bob@x"}}
{"type":"User","data":{"name":"Carol","email":"carol@x"}}
)",
                      "users.jsonl", api::LoadMode::kMerge)
                  .ok());
  constexpr std::string_view kSetEmail =
      "query set_email($name: String, $email: String) { update User set { email: $email } where name = $name }";
  ASSERT_TRUE(db.BranchCreate("feature").ok());
  ASSERT_TRUE(db.Mutate(kSetEmail, "m.gq", "set_email", R"({"name":"Bob","email":"dup@x"})")->commit.has_value());
  ASSERT_TRUE(db.Mutate(kSetEmail, "m.gq", "set_email", R"({"name":"Carol","email":"dup@x"})", "feature")->commit.has_value());
  const std::string main_export = *db.Export("main", {});
  const std::string main_head = db.Snapshot()->head_commit_id;

  auto merged = db.BranchMerge("feature", "main");
  ASSERT_EQ(merged.status().code(), ErrorCode::kMergeConflicts) << merged.status().ToString();
  auto conflicts = exec::ConflictsOf(merged.status());
  ASSERT_TRUE(conflicts.ok());
  ASSERT_EQ(conflicts->size(), 1u);
  const exec::MergeConflict& c = (*conflicts)[0];
  EXPECT_EQ(c.entity_kind, "node");
  EXPECT_EQ(c.type_name, "User");
  EXPECT_EQ(c.kind, "unique_violation");
  ASSERT_TRUE(c.entity_id.has_value());
  EXPECT_TRUE(*c.entity_id == "Bob" || *c.entity_id == "Carol") << *c.entity_id;
  EXPECT_EQ(c.message, "@unique violation on User.email: value 'dup@x' held by '" +
                           std::string(*c.entity_id == "Bob" ? "Bob" : "Carol") + "' and '" +
                           std::string(*c.entity_id == "Bob" ? "Carol" : "Bob") + "'");
  EXPECT_EQ(merged.status().message(),
            "merge conflicts: node type 'User', entity id '" + *c.entity_id + "' (unique_violation)");
  EXPECT_EQ(*db.Export("main", {}), main_export);
  EXPECT_EQ(db.Snapshot()->head_commit_id, main_head);
}

// Row 15.
TEST(BranchMergeValidation, ACardinalityViolationIsAConflict) {
  TempDir dir;
  auto g = api::Omnigraph::Init(dir.path() + "/g", R"(node Person { name: String @key }
node Company { name: String @key }
edge WorksAt: Person -> Company @card(0..1)
)");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  api::Omnigraph& db = **g;
  ASSERT_TRUE(db.Load(R"({"type":"Person","data":{"name":"Alice"}}
{"type":"Company","data":{"name":"Acme"}}
{"type":"Company","data":{"name":"Beta"}}
)",
                      "data.jsonl", api::LoadMode::kMerge)
                  .ok());
  constexpr std::string_view kHire =
      "query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }";
  ASSERT_TRUE(db.BranchCreate("feature").ok());
  ASSERT_TRUE(db.Mutate(kHire, "m.gq", "hire", R"({"p":"Alice","c":"Acme"})")->commit.has_value());
  ASSERT_TRUE(db.Mutate(kHire, "m.gq", "hire", R"({"p":"Alice","c":"Beta"})", "feature")->commit.has_value());
  const std::string main_export = *db.Export("main", {});
  const std::string feature_export = *db.Export("feature", {});

  auto merged = db.BranchMerge("feature", "main");
  ASSERT_EQ(merged.status().code(), ErrorCode::kMergeConflicts) << merged.status().ToString();
  auto conflicts = exec::ConflictsOf(merged.status());
  ASSERT_TRUE(conflicts.ok());
  ASSERT_EQ(conflicts->size(), 1u);
  const exec::MergeConflict& c = (*conflicts)[0];
  EXPECT_EQ(c.entity_kind, "edge");
  EXPECT_EQ(c.type_name, "WorksAt");
  EXPECT_EQ(c.entity_id, std::nullopt);
  EXPECT_EQ(c.kind, "cardinality_violation");
  EXPECT_EQ(c.message, "@card violation on edge WorksAt: source 'Alice' has 2 edges (max 1)");
  EXPECT_EQ(merged.status().message(), "merge conflicts: edge type 'WorksAt' (cardinality_violation)");
  EXPECT_EQ(*db.Export("main", {}), main_export);
  EXPECT_EQ(*db.Export("feature", {}), feature_export);
}

// Row 22 (and BR-14 item 2: a fast forward publishes one commit even when
// no table changes).
TEST_F(BranchMergeTest, ANetZeroMergeAdvancesTheManifestOnceAndMovesNoTable) {
  Create("feature");
  graph::CommitRecord added = InsertPerson("Zed", 1, "feature");
  graph::CommitRecord removed = Mutate("remove_person", R"({"name":"Zed"})", "feature");
  EXPECT_EQ(removed.parent_id, added.id);
  auto before = db().Snapshot();
  ASSERT_TRUE(before.ok());
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "fast_forward");
  ASSERT_TRUE(report.commit.has_value());
  EXPECT_EQ(report.commit->parent_id, load_commit_.id);
  EXPECT_EQ(report.commit->merged_parent_id, removed.id);
  auto after = db().Snapshot();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->graph_manifest_version, before->graph_manifest_version + 1);
  ASSERT_EQ(after->datasets.size(), 4u);
  ASSERT_EQ(after->datasets.size(), before->datasets.size());
  for (size_t i = 0; i < after->datasets.size(); ++i) {
    SCOPED_TRACE(after->datasets[i].type_name);
    EXPECT_EQ(after->datasets[i].type_name, before->datasets[i].type_name);
    EXPECT_EQ(after->datasets[i].published_dataset_version, before->datasets[i].published_dataset_version);
    EXPECT_EQ(after->datasets[i].entity_count, before->datasets[i].entity_count);
    EXPECT_EQ(after->datasets[i].dataset_path, before->datasets[i].dataset_path);
  }
  EXPECT_EQ(People(), kFixturePeople);
}

// Row 23.
TEST_F(BranchMergeTest, ANetZeroBranchMergesIntoATargetThatMoved) {
  Create("feature");
  InsertPerson("Zed", 1, "feature");
  Mutate("remove_person", R"({"name":"Zed"})", "feature");
  graph::CommitRecord erin = InsertPerson("Erin", 33);
  api::BranchMergeReport first = Merge("feature");
  EXPECT_EQ(first.outcome, "merged");
  ASSERT_TRUE(first.commit.has_value());
  EXPECT_EQ(first.commit->parent_id, erin.id);
  EXPECT_EQ(first.commit->merged_parent_id, Head("feature"));
  api::BranchMergeReport second = Merge("feature");
  EXPECT_EQ(second.outcome, "already_up_to_date");
  EXPECT_FALSE(second.commit.has_value());
  EXPECT_EQ(Head(), first.commit->id);
  EXPECT_EQ(Read("person_count"), std::vector<std::string>{"5"});
  EXPECT_EQ(People(), PeopleWith(kFixturePeople, R"("Erin",33)"));
}

// Row 38 (the structured body the wire sends; the CLI's form is in
// tests/cli/branch_cli_test.cc).
TEST_F(BranchMergeTest, AConflictCarriesStructuredConflicts) {
  Create("feature");
  SetAge("Alice", 31);
  SetAge("Alice", 32, "feature");
  const BranchState main_before = StateOf("main"), feature_before = StateOf("feature");
  auto merged = db().BranchMerge("feature", "main");
  ASSERT_EQ(merged.status().code(), ErrorCode::kMergeConflicts) << merged.status().ToString();
  EXPECT_EQ(merged.status().http_status(), 409);
  nlohmann::ordered_json body = api::wire::ErrorJson(merged.status());
  // Member order as the wire writes it, then the whole body as JSON.
  std::vector<std::string> keys;
  for (const auto& [key, value] : body.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"error", "code", "merge_conflicts"}));
  EXPECT_EQ(nlohmann::json::parse(body.dump()), nlohmann::json::parse(R"j({
    "error": "merge conflicts: node type 'Person', entity id 'Alice' (divergent_update)",
    "code": "conflict",
    "merge_conflicts": [{"entity_kind": "node", "type_name": "Person", "entity_id": "Alice",
                         "kind": "divergent_update", "message": "divergent update for id 'Alice'"}]
  })j"));
  EXPECT_NE(body["error"].get<std::string>().find("merge conflict"), std::string::npos);
  EXPECT_EQ(StateOf("main"), main_before);
  EXPECT_EQ(StateOf("feature"), feature_before);
  EXPECT_EQ(GetPerson("Alice"), std::vector<std::string>{R"("Alice",31)"});
}

// BR-14 item 2 and BR-9.4: a fast forward is a new commit, never a ref
// move; merging the target back is a fast forward that publishes on the
// source; alternating fast forwards never converge to one head id.
TEST_F(BranchMergeTest, FastForwardsAreNewCommitsAndAlternatingOnesNeverConverge) {
  Create("feature");
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  api::BranchMergeReport into_main = Merge("feature");
  ASSERT_EQ(into_main.outcome, "fast_forward");
  ASSERT_TRUE(into_main.commit.has_value());
  EXPECT_NE(Head(), Head("feature"));

  api::BranchMergeReport back = Merge("main", "feature");
  EXPECT_EQ(back.outcome, "fast_forward");
  ASSERT_TRUE(back.commit.has_value());
  EXPECT_EQ(back.commit->graph_branch, "feature");
  EXPECT_EQ(back.commit->parent_id, eve.id);
  EXPECT_EQ(back.commit->merged_parent_id, into_main.commit->id);
  EXPECT_EQ(Head("feature"), back.commit->id);
  EXPECT_NE(Head("feature"), Head("main"));
  EXPECT_EQ(People("feature"), People("main"));

  api::BranchMergeReport again = Merge("feature");
  EXPECT_EQ(again.outcome, "fast_forward");
  ASSERT_TRUE(again.commit.has_value());
  EXPECT_EQ(again.commit->parent_id, into_main.commit->id);
  EXPECT_EQ(again.commit->merged_parent_id, back.commit->id);
  EXPECT_NE(Head(), Head("feature"));
  // Each merge published exactly one commit on its target.
  EXPECT_EQ(Commits("main").size(), 6u);     // genesis, load, eve, ff, back, ff
  EXPECT_EQ(Commits("feature").size(), 5u);  // genesis, load, eve, ff, back
  EXPECT_EQ(Merge("feature").outcome, "already_up_to_date");
  EXPECT_EQ(Merge("main", "feature").outcome, "fast_forward");
}

// BR-9.10: continuing on the source after a merge uses the previous merge
// point as base (no conflict for rows merged before).
TEST_F(BranchMergeTest, ContinuingOnTheSourceMergesOnlyTheNewWork) {
  Create("feature");
  SetAge("Alice", 31, "feature");
  SetAge("Bob", 26);
  EXPECT_EQ(Merge("feature").outcome, "merged");
  graph::CommitRecord frank = InsertPerson("Frank", 40, "feature");
  api::BranchMergeReport second = Merge("feature");
  EXPECT_EQ(second.outcome, "merged");
  ASSERT_TRUE(second.commit.has_value());
  EXPECT_EQ(second.commit->merged_parent_id, frank.id);
  EXPECT_EQ(People(), (std::vector<std::string>{R"("Alice",31)", R"("Bob",26)", R"("Charlie",35)", R"("Diana",28)",
                                                R"("Frank",40)"}));
}

// BR-14 item 3 (BR-9.9): a merge that fails before its publication (after
// capture, after staging its three-way chain, right before the CAS)
// leaves target and source exactly as before, and the same merge then
// succeeds.
TEST_F(BranchMergeTest, AMergeFailingBeforePublicationChangesNothing) {
  Create("feature");
  SetAge("Alice", 31, "feature");
  InsertPerson("Eve", 22, "feature");
  SetAge("Bob", 26);
  const BranchState main_before = StateOf("main"), feature_before = StateOf("feature");
  for (std::string_view point :
       {failpoint::kMergeAfterCapture, failpoint::kGraphAfterDetachedCommit, failpoint::kGraphBeforeCas}) {
    SCOPED_TRACE(std::string(point));
    failpoint::Set(point, failpoint::Action::kError);
    auto failed = db().BranchMerge("feature", "main");
    failpoint::ClearAll();
    EXPECT_EQ(failed.status().code(), ErrorCode::kIoError) << failed.status().ToString();
    EXPECT_EQ(StateOf("main"), main_before);
    EXPECT_EQ(StateOf("feature"), feature_before);
  }
  api::BranchMergeReport report = Merge("feature");
  EXPECT_EQ(report.outcome, "merged");
  ASSERT_TRUE(report.commit.has_value());
  EXPECT_EQ(report.commit->parent_id, main_before.head);
  EXPECT_EQ(report.commit->merged_parent_id, feature_before.head);
  EXPECT_EQ(People(), (std::vector<std::string>{R"("Alice",31)", R"("Bob",26)", R"("Charlie",35)", R"("Diana",28)",
                                                R"("Eve",22)"}));
}

// BR-9.10 --delete-branch through the API: deleted after a merge of any
// outcome; a refusal is reported, never fails the merge.
TEST_F(BranchMergeTest, DeleteBranchAfterMerge) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  api::BranchMergeOptions delete_it{.delete_branch = true};
  api::BranchMergeReport report = Merge("feature", "main", delete_it);
  EXPECT_EQ(report.outcome, "fast_forward");
  EXPECT_EQ(report.branch_deleted, true);
  EXPECT_EQ(report.branch_delete_error, std::nullopt);
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});

  Create("feature");
  Create("feature-child", "feature");
  api::BranchMergeReport refused = Merge("feature", "main", delete_it);
  EXPECT_EQ(refused.outcome, "already_up_to_date");
  EXPECT_EQ(refused.branch_deleted, false);
  EXPECT_EQ(refused.branch_delete_error,
            "cannot delete branch 'feature' because descendant branch 'feature-child' still depends on it");
  EXPECT_EQ(Branches(), (std::vector<std::string>{"feature", "feature-child", "main"}));
}

}  // namespace branch_merge_test
}  // namespace omnigraph::testing
