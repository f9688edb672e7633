// Branch create, list and delete through the embedded API
// (spec/branches.md BR-2, BR-3, BR-14 item 1; Appendix A rows 2, 3, 18
// and 20).
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/branch_fixture.h"
#include "api/omnigraph.h"

namespace omnigraph::testing {
namespace branch_lifecycle_test {

namespace fs = std::filesystem;

class BranchLifecycleTest : public BranchFixture {
 protected:
  // Native ref records of `__manifest` (`{logical}.{ULID}.json`), sorted.
  std::vector<std::string> RefFiles() {
    std::vector<std::string> names;
    fs::path dir = fs::path(uri()) / "__manifest" / "_refs" / "branches";
    if (!fs::is_directory(dir)) return names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

// Row 2, and BR-3.1's "a crash that left only physical residue is
// reclaimed by the next create of the same name".
TEST_F(BranchLifecycleTest, CreateListAndLazyBranching) {
  Create("feature");
  EXPECT_EQ(Branches(), (std::vector<std::string>{"feature", "main"}));
  std::vector<std::string> refs = RefFiles();
  ASSERT_EQ(refs.size(), 1u);
  // "feature." + 26-character ULID + ".json"
  EXPECT_EQ(refs[0].rfind("feature.", 0), 0u) << refs[0];
  EXPECT_EQ(refs[0].size(), std::string("feature.").size() + 26 + std::string(".json").size()) << refs[0];

  // Its record removed (the residue of a create that never finished):
  // the name is not live, and creating it again works.
  ASSERT_TRUE(fs::remove(fs::path(uri()) / "__manifest" / "_refs" / "branches" / refs[0]));
  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  graph_ = std::move(reopened).value();
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
  EXPECT_EQ(db().Snapshot("feature").status().code(), ErrorCode::kNotFound);
  Create("feature");
  EXPECT_EQ(Branches(), (std::vector<std::string>{"feature", "main"}));
  ASSERT_EQ(RefFiles().size(), 1u);
  EXPECT_NE(RefFiles()[0], refs[0]);  // a new incarnation

  EXPECT_EQ(People("feature"), kFixturePeople);
  EXPECT_EQ(Read("person_count", "{}", {"feature"}), std::vector<std::string>{"4"});
  InsertPerson("Eve", 22, "feature");
  EXPECT_EQ(Read("person_count", "{}", {"feature"}), std::vector<std::string>{"5"});
  EXPECT_EQ(Read("person_count", "{}", {"main"}), std::vector<std::string>{"4"});
}

// BR-3.2: every live name, main included, sorted bytewise.
TEST_F(BranchLifecycleTest, ListIsSortedBytewiseWithMainInItsPlace) {
  for (const char* name : {"zeta", "Zed", "alpha", "main2", "release.1.2", "a/b", "Ärger"}) Create(name);
  EXPECT_EQ(Branches(),
            (std::vector<std::string>{"Zed", "a/b", "alpha", "main", "main2", "release.1.2", "zeta", "Ärger"}));
  // Surrounding whitespace is trimmed from every name given.
  auto created = db().BranchCreate("  spaced\t", " zeta ");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->name, "spaced");
  EXPECT_EQ(created->from, "zeta");
  EXPECT_EQ(created->actor_id, std::nullopt);
  EXPECT_EQ(Branches().size(), 9u);
  ASSERT_TRUE(db().BranchDelete(" spaced ").ok());
  EXPECT_EQ(Branches().size(), 8u);
}

// Row 3.
TEST_F(BranchLifecycleTest, ExplicitTargetsReadSeveralBranchesFromOneHandle) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  EXPECT_EQ(GetPerson("Eve", "main"), std::vector<std::string>{});
  EXPECT_EQ(GetPerson("Eve", "feature"), std::vector<std::string>{R"("Eve",22)"});
  auto result = db().Query(kBranchQueries, "q.gq", "get_person", R"({"name":"Eve"})", {"feature"});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->branch, "feature");
  EXPECT_EQ(result->snapshot, std::nullopt);
  EXPECT_EQ(result->graph_commit_id, Head("feature"));
}

// BR-14 item 1: create and delete never write a commit; a new branch reads
// exactly as its source did at that moment; delete removes the name from
// every read and listing at once.
TEST_F(BranchLifecycleTest, CreateAndDeleteWriteNoCommit) {
  InsertPerson("Eve", 22);
  const BranchState main_before = StateOf("main");

  auto created = db().BranchCreate("feature");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(StateOf("main"), main_before);
  BranchState feature = StateOf("feature");
  EXPECT_EQ(feature.head, main_before.head);  // the inherited head
  EXPECT_EQ(feature.rows, main_before.rows);
  EXPECT_EQ(feature.commits, main_before.commits);
  EXPECT_EQ(Commits("feature"), Commits("main"));

  // A branch of a branch inherits the same head; still no commit.
  Create("deeper", "feature");
  EXPECT_EQ(StateOf("deeper").commits, main_before.commits);
  EXPECT_EQ(StateOf("feature"), feature);

  // Later writes on the source do not reach the branch.
  InsertPerson("Frank", 50);
  EXPECT_EQ(StateOf("feature"), feature);

  ASSERT_TRUE(db().BranchDelete("deeper").ok());
  EXPECT_EQ(StateOf("feature"), feature);
  EXPECT_EQ(Branches(), (std::vector<std::string>{"feature", "main"}));
  // Every door refuses the deleted name as not found.
  const std::string not_found = "branch 'deeper' not found";
  auto read = db().Query(kBranchQueries, "q.gq", "people", "{}", {"deeper"});
  EXPECT_EQ(read.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(read.status().message(), not_found);
  EXPECT_EQ(db().Snapshot("deeper").status().message(), not_found);
  EXPECT_EQ(db().ListCommits("deeper").status().message(), not_found);
  EXPECT_EQ(db().Export("deeper", {}).status().message(), not_found);
  auto write = db().Mutate(kFixtureMutations, "m.gq", "insert_person", R"({"name":"X","age":1})", "deeper");
  EXPECT_EQ(write.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(write.status().message(), not_found);
  auto load = db().Load(R"({"type":"Person","data":{"name":"X"}})", "x.jsonl", api::LoadMode::kMerge, "deeper");
  EXPECT_EQ(load.status().message(), not_found);
  auto merge = db().BranchMerge("deeper", "main");
  EXPECT_EQ(merge.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(merge.status().message(), not_found);
  EXPECT_EQ(db().BranchDelete("deeper").message(), not_found);
  EXPECT_EQ(db().ChangesPoll("deeper").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(db().ChangesBaseline("deeper").status().code(), ErrorCode::kNotFound);
  // A fresh handle agrees.
  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->BranchList().value(), (std::vector<std::string>{"feature", "main"}));
  EXPECT_EQ((*reopened)->Snapshot("deeper").status().message(), not_found);
}

// BR-3.1: `load --branch B --from BASE` creates B from BASE first; without
// --from a missing branch is not found.
TEST_F(BranchLifecycleTest, LoadCreatesAMissingBranchFromItsBase) {
  auto missing = db().Load(R"({"type":"Person","data":{"name":"Gus","age":5}})", "g.jsonl", api::LoadMode::kMerge,
                           "staging");
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "branch 'staging' not found");
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});

  auto loaded = db().Load(R"({"type":"Person","data":{"name":"Gus","age":5}})", "g.jsonl", api::LoadMode::kMerge,
                          "staging", {}, std::string("main"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->branch_created);
  EXPECT_EQ(loaded->branch, "staging");
  ASSERT_TRUE(loaded->commit.has_value());
  EXPECT_EQ(loaded->commit->graph_branch, "staging");
  EXPECT_EQ(loaded->commit->parent_id, load_commit_.id);
  EXPECT_EQ(People("staging"), PeopleWith(kFixturePeople, R"("Gus",5)"));
  EXPECT_EQ(People("main"), kFixturePeople);
  // An existing branch is simply loaded into.
  auto again = db().Load(R"({"type":"Person","data":{"name":"Hal","age":6}})", "h.jsonl", api::LoadMode::kMerge,
                         "staging", {}, std::string("main"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->branch_created);
  EXPECT_EQ(again->commit->parent_id, loaded->commit->id);
}

// Input the load refuses never leaves the branch it would have forked: the
// load is checked against the base's head before the branch is created.
TEST_F(BranchLifecycleTest, ARefusedLoadLeavesNoNewBranchBehind) {
  auto refused = db().Load(R"({"type":"Person","data":{"name":"Gus","age":"five"}})", "g.jsonl",
                           api::LoadMode::kMerge, "staging", {}, std::string("main"));
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "g.jsonl:1: strict property 'age' expects Int32, got \"five\"");
  auto conflict = db().Load(R"({"type":"Person","data":{"name":"Alice","age":5}})", "a.jsonl",
                            api::LoadMode::kAppend, "staging", {}, std::string("main"));
  EXPECT_EQ(conflict.status().code(), ErrorCode::kKeyConflict);
  // A per-commit ceiling (413) too: 8,193 keyed entities of one type.
  std::string many;
  for (int i = 0; i < 8193; ++i) many += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":1}})" "\n";
  auto ceiling = db().Load(many, "many.jsonl", api::LoadMode::kMerge, "staging", {}, std::string("main"));
  EXPECT_EQ(ceiling.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

// Row 18.
TEST_F(BranchLifecycleTest, DeleteRemovesTheBranchAndAllowsRecreate) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  ASSERT_TRUE(db().BranchDelete("feature").ok());
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
  Create("feature");
  EXPECT_EQ(People("feature"), kFixturePeople);
  graph::CommitRecord frank = InsertPerson("Frank", 41, "feature");
  EXPECT_EQ(frank.parent_id, load_commit_.id);
  EXPECT_EQ(People("feature"), PeopleWith(kFixturePeople, R"("Frank",41)"));
  EXPECT_EQ(Read("person_count", "{}", {"feature"}), std::vector<std::string>{"5"});
  EXPECT_EQ(GetPerson("Eve", "feature"), std::vector<std::string>{});
  EXPECT_EQ(People("main"), kFixturePeople);
}

// Row 20, and BR-3.3's descendant rule: the first descendant in byte order,
// a relation a merge does not end, that ends when the child goes.
TEST_F(BranchLifecycleTest, DeleteRefusesABranchDescendantsDependOn) {
  Create("feature");
  Create("experiment", "feature");
  const BranchState feature_before = StateOf("feature");
  Status refused = db().BranchDelete("feature");
  EXPECT_EQ(refused.code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.http_status(), 409);
  EXPECT_EQ(refused.message(),
            "cannot delete branch 'feature' because descendant branch 'experiment' still depends on it");
  EXPECT_EQ(Branches(), (std::vector<std::string>{"experiment", "feature", "main"}));
  EXPECT_EQ(StateOf("feature"), feature_before);

  // Children are named in byte order.
  Create("beta", "feature");
  EXPECT_EQ(db().BranchDelete("feature").message(),
            "cannot delete branch 'feature' because descendant branch 'beta' still depends on it");
  // Merging the child into its parent does not end the relation.
  InsertPerson("Eve", 22, "beta");
  EXPECT_EQ(Merge("beta", "feature").outcome, "fast_forward");
  EXPECT_EQ(db().BranchDelete("feature").message(),
            "cannot delete branch 'feature' because descendant branch 'beta' still depends on it");
  // Once its children are gone the parent deletes.
  ASSERT_TRUE(db().BranchDelete("beta").ok());
  ASSERT_TRUE(db().BranchDelete("experiment").ok());
  ASSERT_TRUE(db().BranchDelete("feature").ok());
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

}  // namespace branch_lifecycle_test
}  // namespace omnigraph::testing
