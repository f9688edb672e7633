// Unpublished commits through the embedded API (spec/branches.md BR-11,
// BR-14 item 8): a mutation declared `as commit` and a merge with
// as_commit write a proposal that never changes the target's reads;
// publishing it yields the same id and exactly the rows its snapshot read
// showed; a moved head refuses publication and expires it; drop, listing
// and idempotence.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "graph/history/commit_id.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace proposal_test {

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
query propose_person($n: String) as commit { insert Person { name: $n } }
query propose_age($n: String, $a: I32) as commit { update Person set { age: $a } where name = $n }
query propose_nothing() as commit { update Person set { age: 1 } where name = "nobody" }
query add_person($n: String) { insert Person { name: $n } }
query names() { match { $p: Person } return { $p.name } order { $p.name } }
)";

constexpr std::string_view kBefore =
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n";
constexpr std::string_view kWithCarol =
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":null,\"name\":\"carol\"}}\n";

class ProposalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = dir_.path() + "/g";
    auto g = Omnigraph::Init(uri_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    ASSERT_TRUE(graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite).ok());
  }

  Result<MutationReport> Run(const std::string& name, std::string_view params, const std::string& branch = "main") {
    return graph_->Mutate(kQueries, "q.gq", name, params, branch);
  }

  std::string Export(const ReadTarget& target) {
    auto text = graph_->Export(target, {});
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "";
  }
  std::string ExportSnapshot(const std::string& id) { return Export(ReadTarget{"main", id}); }
  std::string Head(const std::string& branch = "main") { return graph_->Snapshot(branch)->head_commit_id; }

  // Proposes carol on main; the proposal's commit.
  graph::CommitRecord ProposeCarol() {
    auto report = Run("propose_person", R"({"n":"carol"})");
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok() || !report->commit) {
      ADD_FAILURE() << "no proposal";
      return {};
    }
    EXPECT_FALSE(report->published);
    EXPECT_EQ(report->unattached_root, std::nullopt);
    return *report->commit;
  }

  testing::TempDir dir_;
  std::string uri_;
  std::unique_ptr<Omnigraph> graph_;
};

TEST_F(ProposalTest, AProposalNeverChangesItsTargetsReadsAndIsReadableById) {
  const std::string head = Head();
  const uint64_t version = graph_->Snapshot()->graph_manifest_version;
  graph::CommitRecord c = ProposeCarol();
  EXPECT_TRUE(graph::ValidateCommitId(c.id).ok());
  EXPECT_TRUE(c.id.starts_with("hb1."));
  EXPECT_EQ(c.parent_id, head);
  EXPECT_EQ(c.merged_parent_id, std::nullopt);
  EXPECT_EQ(c.manifest_version, version + 1);  // the version it would occupy (BR-11.1)
  EXPECT_EQ(c.graph_branch, std::nullopt);

  // The branch did not move.
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(graph_->Snapshot()->graph_manifest_version, version);
  EXPECT_EQ(Export(ReadTarget{}), kBefore);
  EXPECT_EQ(graph_->ListCommits()->size(), 2u);

  // But the proposal reads as its own snapshot.
  EXPECT_EQ(ExportSnapshot(c.id), kWithCarol);
  auto read = graph_->Query(kQueries, "q.gq", "names", "{}", ReadTarget{"main", c.id});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->row_count(), 3);
  EXPECT_EQ(read->rows->column(0)->GetView(2), "carol");
  EXPECT_EQ(read->graph_commit_id, c.id);

  auto shown = graph_->DescribeCommit(c.id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_FALSE(shown->published);
  EXPECT_EQ(shown->commit, c);
  EXPECT_EQ(shown->unattached_root, std::nullopt);

  // Its changes against the captured parent: exactly carol's insertion.
  auto changes = graph_->CommitChanges(c.id);
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  ASSERT_EQ(changes->changes.size(), 1u);
  EXPECT_EQ(changes->changes[0].id, "carol");
  EXPECT_EQ(changes->changes[0].op, exec::ChangeOp::kInsert);
  EXPECT_EQ(changes->changes[0].type.name, "Person");

  auto listed = graph_->ListUnpublished();
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].commit.id, c.id);
  EXPECT_FALSE((*listed)[0].published);

  // A fresh handle sees the same.
  auto reopened = Omnigraph::Open(uri_);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(*(*reopened)->Export(ReadTarget{"main", c.id}, {}), kWithCarol);
  EXPECT_EQ(*(*reopened)->Export(ReadTarget{}, {}), kBefore);
}

// BR-14 item 8.
TEST_F(ProposalTest, PublishingYieldsTheSameIdAndExactlyTheRowsTheSnapshotRead) {
  const std::string head = Head();
  const uint64_t version = graph_->Snapshot()->graph_manifest_version;
  graph::CommitRecord c = ProposeCarol();
  const std::string proposed_rows = ExportSnapshot(c.id);

  auto published = graph_->CommitPublish(c.id);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_TRUE(published->published);
  EXPECT_EQ(published->commit.id, c.id);
  EXPECT_EQ(published->commit.parent_id, head);
  EXPECT_EQ(published->commit.created_at_us, c.created_at_us);
  EXPECT_EQ(published->commit.manifest_version, version + 1);

  EXPECT_EQ(Head(), c.id);
  EXPECT_EQ(Export(ReadTarget{}), proposed_rows);
  EXPECT_EQ(proposed_rows, kWithCarol);
  auto commits = graph_->ListCommits();
  ASSERT_EQ(commits->size(), 3u);
  EXPECT_EQ(commits->front().id, c.id);
  EXPECT_EQ(commits->front().parent_id, head);
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);
  auto shown = graph_->DescribeCommit(c.id);
  ASSERT_TRUE(shown.ok());
  EXPECT_TRUE(shown->published);

  // Idempotent: the same commit, no second one, even once the head moved.
  ASSERT_TRUE(Run("add_person", R"({"n":"dan"})").ok());
  auto again = graph_->CommitPublish(c.id);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->published);
  EXPECT_EQ(again->commit.id, c.id);
  EXPECT_EQ(again->commit.manifest_version, version + 1);
  EXPECT_EQ(graph_->ListCommits()->size(), 4u);

  // A published commit cannot be dropped.
  auto dropped = graph_->CommitDrop(c.id);
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(dropped.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(dropped.status().message(), fmt::format("commit '{}' is published and cannot be dropped", c.id));
}

TEST_F(ProposalTest, PublishingAgainstAMovedHeadIsAPreconditionFailureAndTheProposalExpires) {
  const std::string head = Head();
  graph::CommitRecord c = ProposeCarol();
  ASSERT_TRUE(Run("add_person", R"({"n":"dan"})").ok());
  const std::string moved = Head();
  ASSERT_NE(moved, head);

  auto published = graph_->CommitPublish(c.id);
  ASSERT_FALSE(published.ok());
  EXPECT_EQ(published.status().code(), ErrorCode::kPreconditionFailed);
  EXPECT_EQ(published.status().message(),
            fmt::format("precondition failed on branch 'main': expected head '{}' but current is {}", head, moved));
  EXPECT_EQ(published.status().details().at("expected"), head);
  EXPECT_EQ(published.status().details().at("actual"), moved);
  EXPECT_EQ(Head(), moved);
  EXPECT_EQ(graph_->ListCommits()->size(), 3u);

  // Expired: no longer listed or readable.
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);
  auto shown = graph_->DescribeCommit(c.id);
  ASSERT_FALSE(shown.ok());
  EXPECT_EQ(shown.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(shown.status().message(), fmt::format("commit '{}' not found", c.id));
  auto read = graph_->Export(ReadTarget{"main", c.id}, {});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kNotFound);
}

TEST_F(ProposalTest, DroppingRemovesTheProposalAndLeavesTheBranchAlone) {
  graph::CommitRecord c = ProposeCarol();
  const std::string head = Head();
  auto dropped = graph_->CommitDrop(c.id);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(*dropped, std::vector<std::string>{c.id});
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(Export(ReadTarget{}), kBefore);
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);

  for (auto result : {graph_->CommitDrop(c.id).status(), graph_->CommitPublish(c.id).status(),
                      graph_->DescribeCommit(c.id).status(), graph_->Export(ReadTarget{"main", c.id}, {}).status()}) {
    EXPECT_EQ(result.code(), ErrorCode::kNotFound) << result.ToString();
    EXPECT_EQ(result.message(), fmt::format("commit '{}' not found", c.id));
  }
  // Bad ids are typed refusals, never crashes.
  EXPECT_EQ(graph_->CommitPublish("hb1.x").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(graph_->CommitDrop("hb1.x").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(graph_->CommitDrop("../../etc").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(graph_->CommitPublish("").status().code(), ErrorCode::kNotFound);
}

TEST_F(ProposalTest, ANoOpCreatesNoProposal) {
  auto report = Run("propose_nothing", "{}");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->commit, std::nullopt);
  EXPECT_EQ(graph_->ListUnpublished()->size(), 0u);
}

TEST_F(ProposalTest, ListingIsNewestFirstAndPerBranchIncarnation) {
  graph::CommitRecord first = ProposeCarol();
  auto second = Run("propose_age", R"({"n":"bob","a":26})");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  auto on_feature = Run("propose_person", R"({"n":"erin"})", "feature");
  ASSERT_TRUE(on_feature.ok()) << on_feature.status().ToString();
  EXPECT_EQ(on_feature->commit->graph_branch, "feature");

  auto main_list = graph_->ListUnpublished("main");
  ASSERT_TRUE(main_list.ok());
  ASSERT_EQ(main_list->size(), 2u);
  EXPECT_EQ((*main_list)[0].commit.id, second->commit->id);
  EXPECT_EQ((*main_list)[1].commit.id, first.id);
  EXPECT_GE((*main_list)[0].commit.created_at_us, (*main_list)[1].commit.created_at_us);
  auto feature_list = graph_->ListUnpublished("feature");
  ASSERT_TRUE(feature_list.ok());
  ASSERT_EQ(feature_list->size(), 1u);
  EXPECT_EQ((*feature_list)[0].commit.id, on_feature->commit->id);
  EXPECT_EQ(graph_->ListUnpublished("nope").status().code(), ErrorCode::kNotFound);

  // Both main proposals share a parent: publishing one expires the other.
  ASSERT_TRUE(graph_->CommitPublish(second->commit->id).ok());
  EXPECT_EQ(graph_->CommitPublish(first.id).status().code(), ErrorCode::kPreconditionFailed);
  EXPECT_EQ(graph_->ListUnpublished("main")->size(), 0u);
  // The feature proposal publishes on feature; main keeps its own rows.
  auto feature = graph_->CommitPublish(on_feature->commit->id);
  ASSERT_TRUE(feature.ok()) << feature.status().ToString();
  EXPECT_EQ(feature->commit.graph_branch, "feature");
  EXPECT_EQ(Head("feature"), on_feature->commit->id);
  EXPECT_EQ(graph_->Export(ReadTarget{"feature", std::nullopt}, {"Person"})->find("erin") != std::string::npos, true);
  EXPECT_EQ(Export(ReadTarget{}).find("erin"), std::string::npos);

  // A deleted branch's proposals go with it.
  auto late = Run("propose_person", R"({"n":"fay"})", "feature");
  ASSERT_TRUE(late.ok());
  ASSERT_TRUE(graph_->BranchDelete("feature").ok());
  EXPECT_EQ(graph_->CommitPublish(late->commit->id).status().code(), ErrorCode::kNotFound);
}

TEST_F(ProposalTest, AMergeAsCommitHasBothParentsAndPublishesLikeTheMerge) {
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  ASSERT_TRUE(Run("add_person", R"({"n":"carol"})", "feature").ok());
  const std::string main_head = Head();
  const std::string feature_head = Head("feature");

  BranchMergeOptions refused;
  refused.as_commit = true;
  refused.delete_branch = true;
  auto bad = graph_->BranchMerge("feature", "main", refused);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "--as-commit cannot be combined with --delete-branch");

  BranchMergeOptions options;
  options.as_commit = true;
  auto merged = graph_->BranchMerge("feature", "main", options);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "fast_forward");
  EXPECT_FALSE(merged->published);
  ASSERT_TRUE(merged->commit.has_value());
  EXPECT_EQ(merged->commit->parent_id, main_head);
  EXPECT_EQ(merged->commit->merged_parent_id, feature_head);
  EXPECT_EQ(Head(), main_head);
  EXPECT_EQ(Export(ReadTarget{}), kBefore);
  EXPECT_EQ(ExportSnapshot(merged->commit->id), kWithCarol);

  auto published = graph_->CommitPublish(merged->commit->id);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_EQ(published->commit.id, merged->commit->id);
  EXPECT_EQ(published->commit.merged_parent_id, feature_head);
  EXPECT_EQ(Head(), merged->commit->id);
  EXPECT_EQ(Export(ReadTarget{}), kWithCarol);
  // The lineage import came with it (BR-5): the source head resolves from main.
  auto commits = graph_->ListCommits("main");
  ASSERT_TRUE(commits.ok());
  EXPECT_EQ(commits->front().id, merged->commit->id);
  bool has_source = false;
  for (const graph::CommitRecord& r : *commits) has_source |= r.id == feature_head;
  EXPECT_TRUE(has_source);
  // Now up to date: a second merge as commit proposes nothing.
  auto again = graph_->BranchMerge("feature", "main", options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, "already_up_to_date");
  EXPECT_EQ(again->commit, std::nullopt);
}

TEST_F(ProposalTest, AProposalIsNeverAStoredQuerysChoiceOfTheCaller) {
  // The clause belongs to the declaration: the same parameters through a
  // declaration without it publish.
  auto published = Run("add_person", R"({"n":"carol"})");
  ASSERT_TRUE(published.ok());
  EXPECT_TRUE(published->published);
  EXPECT_EQ(Head(), published->commit->id);
  // A read-only declaration with the clause never runs.
  auto bad = graph_->Mutate("query r() as commit { match { $p: Person } return { $p.name } }", "r.gq", "r", "{}");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().substr(0, bad.status().message().find('\n')),
            "parse error: r.gq:1:11: `as commit` applies only to mutations; query r is read-only");
}

}  // namespace proposal_test
}  // namespace omnigraph::api
