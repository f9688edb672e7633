// Unattached branches through the embedded API (spec/branches.md BR-12,
// BR-14 item 9): a tree of snapshots hanging off one branch head that never
// changes the branch, reads by id, can never be published, drops a whole
// subtree children first, and expires with its root's authority.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "support/temp_dir.h"
#include "util/ulid.h"

namespace omnigraph::api {
namespace unattached_test {

constexpr std::string_view kSchema = R"(
node Person {
    name: String @key
    age: I32?
}
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Person","data":{"name":"bob","age":25}}
)";

constexpr std::string_view kQueries = R"(
query try_person($n: String) as unattached branch { insert Person { name: $n } }
query try_nothing() as unattached branch { update Person set { age: 1 } where name = "nobody" }
query add_person($n: String) { insert Person { name: $n } }
)";

// `query on_<P>` adding person $n on top of unattached snapshot P.
std::string ChildQuery(const std::string& parent) {
  return fmt::format("query child($n: String) as unattached branch on \"{}\" {{ insert Person {{ name: $n }} }}\n",
                     parent);
}

std::string PersonLine(std::string_view name, std::optional<int> age) {
  return fmt::format("{{\"type\":\"Person\",\"data\":{{\"id\":\"{}\",\"age\":{},\"name\":\"{}\"}}}}\n", name,
                     age ? std::to_string(*age) : "null", name);
}

class UnattachedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    ASSERT_TRUE(graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite).ok());
    before_ = PersonLine("alice", 30) + PersonLine("bob", 25);
  }

  // A root snapshot adding `name` on `branch`.
  MutationReport Root(const std::string& name, const std::string& branch = "main") {
    auto report = graph_->Mutate(kQueries, "q.gq", "try_person", fmt::format(R"({{"n":"{}"}})", name), branch);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : MutationReport{};
  }
  // `branch` empty: none given (the child lands on its parent's target).
  Result<MutationReport> Child(const std::string& parent, const std::string& name, const std::string& branch = "",
                               const std::optional<std::string>& if_commit = std::nullopt) {
    return graph_->Mutate(ChildQuery(parent), "c.gq", "child", fmt::format(R"({{"n":"{}"}})", name), branch,
                          if_commit);
  }
  std::string Export(const ReadTarget& target) {
    auto text = graph_->Export(target, {});
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "";
  }
  std::string Head(const std::string& branch = "main") { return graph_->Snapshot(branch)->head_commit_id; }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
  std::string before_;
};

TEST_F(UnattachedTest, ARootAndAChildReadAsTheirOwnSnapshotsAndNeverMoveTheBranch) {
  const std::string head = Head();
  const uint64_t version = graph_->Snapshot()->graph_manifest_version;
  MutationReport root = Root("xena");
  ASSERT_TRUE(root.commit.has_value());
  const graph::CommitRecord& r = *root.commit;
  EXPECT_TRUE(IsCanonicalUlid(r.id)) << r.id;  // the intent nonce (BR-12.1)
  EXPECT_FALSE(root.published);
  EXPECT_EQ(root.unattached_root, r.id);
  EXPECT_EQ(r.parent_id, head);
  EXPECT_EQ(r.manifest_version, version + 1);

  auto child = Child(r.id, "yann");
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  ASSERT_TRUE(child->commit.has_value());
  const graph::CommitRecord& c = *child->commit;
  EXPECT_TRUE(IsCanonicalUlid(c.id));
  EXPECT_EQ(child->unattached_root, r.id);
  EXPECT_EQ(c.parent_id, r.id);
  EXPECT_EQ(c.manifest_version, version + 2);
  EXPECT_FALSE(child->published);

  // The branch never moved; each snapshot reads its own rows.
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(Export(ReadTarget{}), before_);
  EXPECT_EQ(graph_->ListCommits()->size(), 2u);
  EXPECT_EQ(Export(ReadTarget{"main", r.id}), before_ + PersonLine("xena", std::nullopt));
  EXPECT_EQ(Export(ReadTarget{"main", c.id}),
            before_ + PersonLine("xena", std::nullopt) + PersonLine("yann", std::nullopt));

  auto shown = graph_->DescribeCommit(c.id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_FALSE(shown->published);
  EXPECT_EQ(shown->unattached_root, r.id);
  EXPECT_EQ(shown->commit, c);

  // A child's changes are against its parent snapshot.
  auto changes = graph_->CommitChanges(c.id);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  ASSERT_EQ(changes->changes.size(), 1u);
  EXPECT_EQ(changes->changes[0].id, "yann");
  auto root_changes = graph_->CommitChanges(r.id);
  ASSERT_TRUE(root_changes.ok()) << root_changes.status().ToString();
  ASSERT_EQ(root_changes->changes.size(), 1u);
  EXPECT_EQ(root_changes->changes[0].id, "xena");

  auto listed = graph_->ListUnpublished();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].commit.id, c.id);  // newest first
  EXPECT_EQ((*listed)[0].unattached_root, r.id);
  EXPECT_EQ((*listed)[1].commit.id, r.id);
}

// BR-14 item 9.
TEST_F(UnattachedTest, ASnapshotCanNeverBePublishedAndDroppingRemovesItsWholeSubtree) {
  MutationReport root = Root("xena");
  const std::string r = root.commit->id;
  auto a = Child(r, "amy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Child(r, "ben");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto a1 = Child(a->commit->id, "ann");
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  // Exports are in id order.
  EXPECT_EQ(Export(ReadTarget{"main", a1->commit->id}),
            PersonLine("alice", 30) + PersonLine("amy", std::nullopt) + PersonLine("ann", std::nullopt) +
                PersonLine("bob", 25) + PersonLine("xena", std::nullopt));

  for (const std::string& id : {r, a->commit->id, a1->commit->id}) {
    auto published = graph_->CommitPublish(id);
    ASSERT_FALSE(published.ok());
    EXPECT_EQ(published.status().code(), ErrorCode::kConflict);
    EXPECT_EQ(published.status().message(),
              fmt::format("commit '{}' is an unattached snapshot and cannot be published", id));
    EXPECT_EQ(published.status().details().at("commit_refusal"), "unattached_cannot_publish");
    EXPECT_EQ(published.status().details().at("graph_commit_id"), id);
  }
  EXPECT_EQ(graph_->ListCommits()->size(), 2u);

  // Dropping a inner node removes it and its child, children first.
  auto dropped = graph_->CommitDrop(a->commit->id);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(*dropped, (std::vector<std::string>{a1->commit->id, a->commit->id}));
  EXPECT_EQ(graph_->DescribeCommit(a1->commit->id).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(graph_->DescribeCommit(a->commit->id).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(graph_->DescribeCommit(b->commit->id).ok());
  EXPECT_EQ(graph_->ListUnpublished()->size(), 2u);

  // Dropping the root removes the rest of the tree.
  auto rest = graph_->CommitDrop(r);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(*rest, (std::vector<std::string>{b->commit->id, r}));
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);
  EXPECT_EQ(graph_->CommitDrop(r).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Export(ReadTarget{}), before_);
}

TEST_F(UnattachedTest, TheTreeExpiresWhenTheTargetHeadMoves) {
  MutationReport root = Root("xena");
  const std::string r = root.commit->id;
  auto child = Child(r, "yann");
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(graph_->Mutate(kQueries, "q.gq", "add_person", R"({"n":"zed"})").ok());
  for (const std::string& id : {r, child->commit->id}) {
    EXPECT_EQ(graph_->DescribeCommit(id).status().code(), ErrorCode::kNotFound);
    EXPECT_EQ(graph_->Export(ReadTarget{"main", id}, {}).status().code(), ErrorCode::kNotFound);
    EXPECT_EQ(graph_->CommitDrop(id).status().code(), ErrorCode::kNotFound);
  }
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);
  auto orphan = Child(r, "late");
  ASSERT_FALSE(orphan.ok());
  EXPECT_EQ(orphan.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(orphan.status().message(), fmt::format("commit '{}' not found", r));
}

TEST_F(UnattachedTest, AChildRefusesAPreconditionAndAnotherBranchAndNeedsALiveParent) {
  MutationReport root = Root("xena");
  const std::string r = root.commit->id;
  auto with_precondition = Child(r, "p", "main", Head());
  ASSERT_FALSE(with_precondition.ok());
  EXPECT_EQ(with_precondition.status().code(), ErrorCode::kInvalidArgument);

  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  auto elsewhere = Child(r, "q", "feature");
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_EQ(elsewhere.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(elsewhere.status().message(),
            fmt::format("unattached snapshot '{}' belongs to branch 'main', not 'feature'", r));

  // A tree rooted on feature: a child with no branch given lands there; a
  // child that names main explicitly is refused like any other branch.
  MutationReport feature_root = Root("yuri", "feature");
  const std::string f = feature_root.commit->id;
  auto unnamed = Child(f, "zed", "");
  ASSERT_TRUE(unnamed.ok()) << unnamed.status().ToString();
  EXPECT_EQ(unnamed->branch, "feature");
  ASSERT_TRUE(unnamed->commit.has_value());
  EXPECT_EQ(unnamed->commit->graph_branch, "feature");
  auto on_main = Child(f, "zoe", "main");
  ASSERT_FALSE(on_main.ok());
  EXPECT_EQ(on_main.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(on_main.status().message(),
            fmt::format("unattached snapshot '{}' belongs to branch 'feature', not 'main'", f));

  auto unknown = Child("01ARZ3NDEKTSV4RRFFQ69G5FAV", "u");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  // An ordinary published commit is no unattached parent either.
  auto published_parent = Child(Head(), "v");
  ASSERT_FALSE(published_parent.ok());
  EXPECT_EQ(published_parent.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(graph_->ListUnpublished()->size(), 1u);
}

TEST_F(UnattachedTest, ARootOnABranchBelongsToThatBranchAndANoOpCreatesNothing) {
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  MutationReport root = Root("fern", "feature");
  ASSERT_TRUE(root.commit.has_value());
  EXPECT_EQ(root.commit->graph_branch, "feature");
  // A child names no branch (it lands on its parent's target) or that one.
  auto child = Child(root.commit->id, "gus");
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_EQ(child->branch, "feature");
  EXPECT_EQ(child->commit->graph_branch, "feature");
  auto named = Child(root.commit->id, "hal", "feature");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->branch, "feature");
  EXPECT_EQ(graph_->ListUnpublished("feature")->size(), 3u);
  EXPECT_EQ(graph_->ListUnpublished("main")->size(), 0u);
  EXPECT_EQ(Export(ReadTarget{"feature", std::nullopt}), before_);

  auto nothing = graph_->Mutate(kQueries, "q.gq", "try_nothing", "{}");
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(nothing->commit, std::nullopt);
  EXPECT_EQ(graph_->ListUnpublished("main")->size(), 0u);
}

}  // namespace unattached_test
}  // namespace omnigraph::api
