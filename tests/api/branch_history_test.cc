// Commit history, time travel and lineage through the embedded API
// (spec/branches.md BR-5, BR-6, BR-7, BR-8; BR-14 items 4-7; Appendix A
// rows 26, 28 and 34). Rows 29, 30, 32 and 33 are in changes_test.cc and
// change_feed_test.cc.
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "api/branch_fixture.h"
#include "api/omnigraph.h"
#include "exec/result_json.h"

namespace omnigraph::testing {
namespace branch_history_test {

namespace fs = std::filesystem;

class BranchHistoryTest : public BranchFixture {
 protected:
  // BR-6.1 order: generation, then created_at, then id, all descending.
  static void ExpectStrictlyDescending(const std::vector<graph::CommitRecord>& commits) {
    for (size_t i = 1; i < commits.size(); ++i) {
      const auto& a = commits[i - 1];
      const auto& b = commits[i];
      EXPECT_GT(std::tie(a.generation, a.created_at_us, a.id), std::tie(b.generation, b.created_at_us, b.id))
          << "at " << i << ": " << a.id << " then " << b.id;
    }
  }
  // The one-row age cell of `id` in Person as of `version` of `branch`
  // ("<absent>" when the entity did not exist then).
  std::string AgeAt(const std::string& branch, const std::string& id, uint64_t version) {
    auto row = db().EntityAt(branch, "node:Person", id, version);
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    if (!row.ok()) return "<error>";
    if (*row == nullptr) return "<absent>";
    EXPECT_EQ((*row)->num_rows(), 1);
    std::string cell;
    exec::AppendCellJson(&cell, *(*row)->GetColumn("age"), 0);
    return cell;
  }
  std::vector<std::string> PeopleAtVersion(const std::string& branch, uint64_t version) {
    auto result = db().QueryAt(branch, version, kBranchQueries, "q.gq", "people", "{}");
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? RowsOf(*result) : std::vector<std::string>{"<error>"};
  }
};

// Row 26.
TEST_F(BranchHistoryTest, AFourVersionChainInsertUpdateDelete) {
  const uint64_t v1 = load_commit_.manifest_version;
  graph::CommitRecord c2 = InsertPerson("Eve", 22);
  graph::CommitRecord c3 = SetAge("Eve", 50);
  graph::CommitRecord c4 = Mutate("remove_person", R"({"name":"Eve"})");
  const uint64_t v2 = c2.manifest_version, v3 = c3.manifest_version;
  EXPECT_EQ(v2, v1 + 1);
  EXPECT_EQ(v3, v1 + 2);
  EXPECT_EQ(c4.manifest_version, v1 + 3);
  EXPECT_EQ(ManifestVersion(), v1 + 3);

  EXPECT_EQ(PeopleAtVersion("main", v1), kFixturePeople);
  EXPECT_EQ(PeopleAtVersion("main", v2), PeopleWith(kFixturePeople, R"("Eve",22)"));
  EXPECT_EQ(PeopleAtVersion("main", v3), PeopleWith(kFixturePeople, R"("Eve",50)"));
  EXPECT_EQ(People(), kFixturePeople);
  EXPECT_EQ(AgeAt("main", "Eve", v1), "<absent>");
  EXPECT_EQ(AgeAt("main", "Eve", v2), "22");
  EXPECT_EQ(AgeAt("main", "Eve", v3), "50");
  EXPECT_EQ(AgeAt("main", "Eve", c4.manifest_version), "<absent>");
  // The same through the commits' snapshots.
  EXPECT_EQ(PeopleAt(c2.id), PeopleWith(kFixturePeople, R"("Eve",22)"));
  EXPECT_EQ(PeopleAt(c3.id), PeopleWith(kFixturePeople, R"("Eve",50)"));
  EXPECT_EQ(PeopleAt(c4.id), kFixturePeople);

  auto at = db().SnapshotAt("main", v2);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->graph_manifest_version, v2);
  EXPECT_EQ(at->head_commit_id, c2.id);
  EXPECT_EQ(at->graph_branch, "main");

  // A version the branch does not have.
  for (uint64_t missing : {uint64_t{99999}, c4.manifest_version + 1}) {
    const std::string message = "graph manifest version " + std::to_string(missing) + " not found on branch 'main'";
    auto snapshot = db().SnapshotAt("main", missing);
    EXPECT_EQ(snapshot.status().code(), ErrorCode::kNotFound);
    EXPECT_EQ(snapshot.status().http_status(), 404);
    EXPECT_EQ(snapshot.status().message(), message);
    EXPECT_EQ(db().EntityAt("main", "node:Person", "Alice", missing).status().message(), message);
    EXPECT_EQ(db().QueryAt("main", missing, kBranchQueries, "q.gq", "people", "{}").status().message(), message);
  }
  // Versions are relative to the named branch: a branch's own versions.
  Create("feature");
  graph::CommitRecord f = InsertPerson("Fay", 7, "feature");
  EXPECT_EQ(f.graph_branch, "feature");
  EXPECT_EQ(PeopleAtVersion("feature", f.manifest_version), PeopleWith(kFixturePeople, R"("Fay",7)"));
  EXPECT_EQ(AgeAt("feature", "Fay", f.manifest_version), "7");
  EXPECT_EQ(db().SnapshotAt("nope", v1).status().message(), "branch 'nope' not found");
}

// Row 28 with a real cleanup: the versions `--keep 1` reclaims (the load's
// __manifest version and the Person version it pinned) read as a typed
// error, never as other rows; the head still reads.
TEST_F(BranchHistoryTest, AHistoricalReadOfAReclaimedVersionIsTyped) {
  const uint64_t v1 = load_commit_.manifest_version;
  graph::CommitRecord eve = InsertPerson("Eve", 22);
  auto at_v1 = db().store().AtVersion("main", v1);
  ASSERT_TRUE(at_v1.ok()) << at_v1.status().ToString();
  const graph::TablePin pin = at_v1->FindTable("node:Person")->pin;
  graph::CleanupPolicy policy;
  policy.keep_versions = 1;
  policy.confirm = true;
  auto cleaned = db().Cleanup(policy);
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_FALSE(fs::exists(fs::path(uri()) / pin.manifest_path)) << pin.manifest_path;

  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  api::Omnigraph& fresh = **reopened;
  auto reclaimed = fresh.EntityAt("main", "node:Person", "Alice", v1);
  ASSERT_EQ(reclaimed.status().code(), ErrorCode::kVersionReclaimed) << reclaimed.status().ToString();
  EXPECT_EQ(reclaimed.status().details().at("published_dataset_version"), std::to_string(v1));
  EXPECT_EQ(reclaimed.status().message(), "historical published dataset version " + std::to_string(v1) + " was reclaimed");
  EXPECT_EQ(reclaimed.status().http_status(), 500);
  EXPECT_EQ(reclaimed.status().details().at("table_key"), "__manifest");
  EXPECT_EQ(fresh.QueryAt("main", v1, kBranchQueries, "q.gq", "people", "{}").status().code(),
            ErrorCode::kVersionReclaimed);
  EXPECT_EQ(fresh.Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", load_commit_.id})
                .status()
                .code(),
            ErrorCode::kVersionReclaimed);
  // The head (a later Person version) still reads.
  auto head = fresh.Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(RowsOf(*head), PeopleWith(kFixturePeople, R"("Eve",22)"));
  EXPECT_EQ(fresh.Snapshot()->head_commit_id, eve.id);
}

// Row 34, and BR-14 item 5.
TEST_F(BranchHistoryTest, LineageListsFromHeadToOneParentlessGenesis) {
  Create("feature");
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  graph::CommitRecord bob = SetAge("Bob", 26);
  ASSERT_TRUE(db().set_actor("act-merger").ok());
  api::BranchMergeReport merged = Merge("feature");
  ASSERT_EQ(merged.outcome, "merged");
  ASSERT_TRUE(merged.commit.has_value());

  std::vector<graph::CommitRecord> main_commits = Commits("main");
  ASSERT_EQ(main_commits.size(), 5u);
  EXPECT_EQ(main_commits.front(), *merged.commit);
  EXPECT_EQ(main_commits.front().actor_id, "act-merger");
  EXPECT_EQ(main_commits.front().id, Head());
  EXPECT_EQ(main_commits.back(), genesis_);
  ExpectStrictlyDescending(main_commits);
  int parentless = 0;
  for (const auto& c : main_commits) parentless += c.parent_id ? 0 : 1;
  EXPECT_EQ(parentless, 1);
  EXPECT_EQ(genesis_.parent_id, std::nullopt);
  EXPECT_EQ(genesis_.merged_parent_id, std::nullopt);
  EXPECT_EQ(genesis_.actor_id, std::nullopt);
  EXPECT_EQ(genesis_.generation, 0u);
  EXPECT_EQ(genesis_.id.size(), 26u);  // a canonical ULID
  // Every commit is in the reachable set: both sides of the merge.
  std::set<std::string> ids;
  for (const auto& c : main_commits) ids.insert(c.id);
  EXPECT_EQ(ids, (std::set<std::string>{merged.commit->id, bob.id, eve.id, load_commit_.id, genesis_.id}));
  EXPECT_EQ(merged.commit->generation, 3u);

  std::vector<graph::CommitRecord> feature_commits = Commits("feature");
  ASSERT_EQ(feature_commits.size(), 3u);
  EXPECT_EQ(feature_commits.front(), eve);
  EXPECT_EQ(feature_commits.front().id, Head("feature"));
  EXPECT_EQ(feature_commits.back(), genesis_);
  ExpectStrictlyDescending(feature_commits);

  // A fresh branch lists from its inherited head.
  Create("fresh");
  std::vector<graph::CommitRecord> fresh_commits = Commits("fresh");
  EXPECT_EQ(fresh_commits, main_commits);
  EXPECT_EQ(Head("fresh"), merged.commit->id);
}

// BR-14 item 4 (BR-5): every reachable id of every branch resolves from
// that branch alone, also after the merged source is deleted.
TEST_F(BranchHistoryTest, EveryReachableIdResolvesAfterTheSourceIsDeleted) {
  Create("feature");
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  graph::CommitRecord fay = InsertPerson("Fay", 7, "feature");
  SetAge("Bob", 26);
  api::BranchMergeReport merged = Merge("feature");
  ASSERT_EQ(merged.outcome, "merged");
  const std::vector<graph::CommitRecord> before = Commits("main");
  ASSERT_TRUE(db().BranchDelete("feature").ok());

  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  api::Omnigraph& fresh = **reopened;
  auto after = fresh.ListCommits("main");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, before);
  ASSERT_EQ(after->size(), 6u);
  for (const graph::CommitRecord& c : *after) {
    auto shown = fresh.ShowCommit(c.id);
    ASSERT_TRUE(shown.ok()) << c.id << ": " << shown.status().ToString();
    EXPECT_EQ(*shown, c);
  }
  auto shown_fay = fresh.ShowCommit(fay.id);
  ASSERT_TRUE(shown_fay.ok());
  EXPECT_EQ(shown_fay->graph_branch, "feature");
  EXPECT_EQ(shown_fay->parent_id, eve.id);
  // Their snapshots stay readable (the deleted branch's tree stays until
  // cleanup).
  auto at_fay = fresh.Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", fay.id});
  ASSERT_TRUE(at_fay.ok()) << at_fay.status().ToString();
  EXPECT_EQ(RowsOf(*at_fay), (std::vector<std::string>{R"("Alice",30)", R"("Bob",25)", R"("Charlie",35)",
                                                       R"("Diana",28)", R"("Eve",22)", R"("Fay",7)"}));
  EXPECT_EQ(at_fay->graph_commit_id, fay.id);
  EXPECT_EQ(at_fay->snapshot, fay.id);
  // A branch created from main afterwards holds the same records.
  auto created = fresh.BranchCreate("later");
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(fresh.ListCommits("later").value(), before);
}

// BR-14 item 6: a snapshot read of commit C returns the same rows before
// and after later writes, merges and branch deletion.
TEST_F(BranchHistoryTest, ASnapshotReadNeverChanges) {
  Create("feature");
  graph::CommitRecord c = InsertPerson("Eve", 22, "feature");
  const std::vector<std::string> at_c = PeopleAt(c.id);
  ASSERT_EQ(at_c, PeopleWith(kFixturePeople, R"("Eve",22)"));
  const std::string exported = *db().Export(api::ReadTarget{"main", c.id}, {});
  auto c_snapshot = db().store().Latest("feature");
  ASSERT_TRUE(c_snapshot.ok());
  const graph::TablePin pin = c_snapshot->FindTable("node:Person")->pin;

  SetAge("Eve", 23, "feature");
  EXPECT_EQ(PeopleAt(c.id), at_c);
  SetAge("Alice", 31);
  EXPECT_EQ(PeopleAt(c.id), at_c);
  ASSERT_EQ(Merge("feature").outcome, "merged");
  EXPECT_EQ(PeopleAt(c.id), at_c);
  Mutate("remove_person", R"({"name":"Eve"})");
  ASSERT_TRUE(db().BranchDelete("feature").ok());
  EXPECT_EQ(PeopleAt(c.id), at_c);
  EXPECT_EQ(*db().Export(api::ReadTarget{"main", c.id}, {}), exported);
  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok());
  auto again = (*reopened)->Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", c.id});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(RowsOf(*again), at_c);
  // The branch target of a snapshot read is ignored.
  auto other_branch = (*reopened)->Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"nope", c.id});
  ASSERT_TRUE(other_branch.ok()) << other_branch.status().ToString();
  EXPECT_EQ(RowsOf(*other_branch), at_c);

  // Once cleanup reclaims the version C pins: a typed error, never rows.
  ASSERT_TRUE(fs::remove(fs::path(uri()) / pin.manifest_path)) << pin.manifest_path;
  // A new engine, as in a new process: this one's caches hold the version.
  auto cold = api::Omnigraph::Open(uri(), std::make_shared<api::Engine>());
  ASSERT_TRUE(cold.ok());
  auto gone = (*cold)->Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", c.id});
  EXPECT_EQ(gone.status().code(), ErrorCode::kVersionReclaimed) << gone.status().ToString();
}

// BR-14 item 7 (BR-8): a stale id has no effect and fails 412; the id a
// read of the same branch returned passes, also on a fresh branch.
TEST_F(BranchHistoryTest, ConditionalMutationsCompareTheEffectiveHead) {
  auto read = db().Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->graph_commit_id, load_commit_.id);
  auto first = db().Mutate(kFixtureMutations, "m.gq", "set_age", R"({"name":"Bob","age":26})", "main",
                           read->graph_commit_id);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->commit.has_value());

  const BranchState before = StateOf("main");
  auto stale = db().Mutate(kFixtureMutations, "m.gq", "set_age", R"({"name":"Bob","age":27})", "main",
                           load_commit_.id);
  ASSERT_EQ(stale.status().code(), ErrorCode::kPreconditionFailed) << stale.status().ToString();
  EXPECT_EQ(stale.status().http_status(), 412);
  EXPECT_EQ(stale.status().message(), "precondition failed on branch 'main': expected head '" + load_commit_.id +
                                          "' but current is " + first->commit->id);
  EXPECT_EQ(stale.status().details().at("expected"), load_commit_.id);
  EXPECT_EQ(stale.status().details().at("actual"), first->commit->id);
  EXPECT_EQ(StateOf("main"), before);
  // An id that names no commit never matches.
  auto unknown = db().Mutate(kFixtureMutations, "m.gq", "set_age", R"({"name":"Bob","age":27})", "main",
                             std::string("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
  EXPECT_EQ(unknown.status().code(), ErrorCode::kPreconditionFailed);
  // A no-op under a stale id is refused too, before it is acknowledged.
  auto noop = db().Mutate(kFixtureMutations, "m.gq", "set_age", R"({"name":"Nobody","age":1})", "main",
                          load_commit_.id);
  EXPECT_EQ(noop.status().code(), ErrorCode::kPreconditionFailed);
  EXPECT_EQ(StateOf("main"), before);

  // A fresh branch accepts its inherited head, read from the branch.
  Create("feature");
  auto on_feature = db().Query(kBranchQueries, "q.gq", "people", "{}", {"feature"});
  ASSERT_TRUE(on_feature.ok());
  EXPECT_EQ(on_feature->graph_commit_id, first->commit->id);
  auto inherited = db().Mutate(kFixtureMutations, "m.gq", "insert_person", R"({"name":"Eve","age":22})", "feature",
                               on_feature->graph_commit_id);
  ASSERT_TRUE(inherited.ok()) << inherited.status().ToString();
  ASSERT_TRUE(inherited->commit.has_value());
  EXPECT_EQ(inherited->commit->parent_id, first->commit->id);
  EXPECT_EQ(inherited->commit->graph_branch, "feature");
  EXPECT_EQ(StateOf("main"), before);
  // The branch's old head is now stale there.
  auto stale_feature = db().Mutate(kFixtureMutations, "m.gq", "insert_person", R"({"name":"Gil","age":3})", "feature",
                                   on_feature->graph_commit_id);
  EXPECT_EQ(stale_feature.status().code(), ErrorCode::kPreconditionFailed);
  EXPECT_EQ(stale_feature.status().message(), "precondition failed on branch 'feature': expected head '" +
                                                  first->commit->id + "' but current is " + inherited->commit->id);
  EXPECT_EQ(People("feature"), (std::vector<std::string>{R"("Alice",30)", R"("Bob",26)", R"("Charlie",35)",
                                                         R"("Diana",28)", R"("Eve",22)"}));
  // Unknown branch: not found.
  auto missing = db().Mutate(kFixtureMutations, "m.gq", "insert_person", R"({"name":"Gil","age":3})", "nope",
                             first->commit->id);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

// BR-6.2: commit show finds commits of any live branch.
TEST_F(BranchHistoryTest, ShowFindsCommitsOfEveryLiveBranch) {
  Create("feature");
  graph::CommitRecord eve = InsertPerson("Eve", 22, "feature");
  auto shown = db().ShowCommit(eve.id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_EQ(*shown, eve);
  EXPECT_EQ(shown->graph_branch, "feature");
  EXPECT_EQ(shown->parent_id, load_commit_.id);
  auto genesis = db().ShowCommit(genesis_.id);
  ASSERT_TRUE(genesis.ok());
  EXPECT_EQ(*genesis, genesis_);
}

}  // namespace branch_history_test
}  // namespace omnigraph::testing
