// Commit history outside the manifest (spec/engine.md §1.5) and the commit
// graph (spec/branches.md BR-5, BR-6.1, BR-9.3): segment files round-trip
// and refuse damage, the buffer stays bounded while segments stay few, and
// the commit graph answers membership, order and merge bases.
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "graph/history/commit_graph.h"
#include "graph/history/commit_id.h"
#include "graph/history/history_segments.h"
#include "graph/layout.h"
#include "io/local_store.h"
#include "support/temp_dir.h"

namespace omnigraph::graph {
namespace history_test {

CommitRecord Record(std::string id, std::optional<std::string> parent, uint64_t generation, int64_t created_at,
                    std::optional<std::string> merged = std::nullopt) {
  CommitRecord c;
  c.id = std::move(id);
  c.parent_id = std::move(parent);
  c.merged_parent_id = std::move(merged);
  c.generation = generation;
  c.created_at_us = created_at;
  c.manifest_version = generation + 1;
  return c;
}

TEST(HistorySegment, RoundTripsEveryFieldAndRefusesDamage) {
  HistorySegment segment;
  segment.id = "01M8P32R4823KF3ZAP402S0NFX";
  segment.level = 2;
  segment.parents = {"01M8P32R6KP6CVM46PDNMW590S"};
  CommitRecord a = Record("01M8P32R7T44J25MSSGH86Z74X", std::nullopt, 0, 10);
  CommitRecord b = Record("hb1.01M8P32R4823KF3ZAP402S0NFX.1.01M8P32R4823KF3ZAP402S0NFX", a.id, 1, 20, a.id);
  b.actor_id = "ann \"quoted\"\n";
  b.graph_branch = "feature/x";
  b.native_branch = "feature/x.01M8P32R4823KF3ZAP402S0NFX";
  b.block = "01M8P32R4823KF3ZAP402S0NFX";
  b.slot = 1;
  segment.records = {a, b};
  std::string bytes = EncodeHistorySegment(segment);
  auto decoded = DecodeHistorySegment(bytes, "s.hist");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->id, segment.id);
  EXPECT_EQ(decoded->level, 2u);
  EXPECT_EQ(decoded->parents, segment.parents);
  ASSERT_EQ(decoded->records.size(), 2u);
  EXPECT_EQ(decoded->records[0], a);
  EXPECT_EQ(decoded->records[1], b);

  // One flipped byte anywhere, or a cut, is damage, never other records.
  for (size_t at : {size_t{5}, bytes.size() / 2, bytes.size() - 3}) {
    std::string damaged = bytes;
    damaged[at] ^= 0x01;
    auto refused = DecodeHistorySegment(damaged, "s.hist");
    EXPECT_EQ(refused.status().code(), ErrorCode::kCorruptData) << at;
  }
  EXPECT_EQ(DecodeHistorySegment(bytes.substr(0, bytes.size() - 10), "s.hist").status().code(),
            ErrorCode::kCorruptData);
}

class HistoryGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto graph = api::Omnigraph::Init(dir_.path() + "/g", "node Item { name: String @key }");
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = std::move(*graph);
  }
  void Insert(const std::string& name, const std::string& branch = "main") {
    auto r = graph_->Mutate("query add($n: String) { insert Item { name: $n } }", "m.gq", "add",
                            R"({"n":")" + name + R"("})", branch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  Snapshot Latest(const std::string& branch = "main") { return *graph_->store().Latest(branch); }
  size_t SegmentFiles() {
    auto listed = graph_->store().store()->List(std::string(layout::kHistorySegmentsDir));
    return listed.ok() ? listed->size() : 0;
  }
  testing::TempDir dir_;
  std::unique_ptr<api::Omnigraph> graph_;
};

// 200 commits: the manifest's buffer never holds more than its bound, the
// segments a manifest names stay few (level merging), and every commit is
// listed once, newest first.
TEST_F(HistoryGraphTest, TheBufferStaysBoundedAndSegmentsStayFew) {
  for (int i = 0; i < 200; ++i) {
    Insert("i" + std::to_string(i));
    Snapshot s = Latest();
    ASSERT_LE(s.state().settled.size(), kHistoryBufferCommits) << i;
    ASSERT_LE(s.state().history_segments.size(), 1u) << i;
  }
  // 201 commits archived 32 or 33 at a time with binary-counter merging:
  // the newest segment chains to a handful of older ones.
  auto commits = graph_->ListCommits();
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  ASSERT_EQ(commits->size(), 201u);
  for (size_t i = 1; i < commits->size(); ++i) {
    EXPECT_EQ((*commits)[i - 1].parent_id, (*commits)[i].id) << i;
    EXPECT_EQ((*commits)[i - 1].generation, (*commits)[i].generation + 1) << i;
  }
  EXPECT_FALSE(commits->back().parent_id.has_value());
  EXPECT_GE(SegmentFiles(), 2u);
  // A fresh process reads the same history from the files alone.
  auto reopened = api::Omnigraph::Open(dir_.path() + "/g");
  ASSERT_TRUE(reopened.ok());
  auto again = (*reopened)->ListCommits();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->size(), 201u);
  EXPECT_EQ(again->front().id, commits->front().id);
  EXPECT_EQ(again->back().id, commits->back().id);
  // Any of them reads back as a snapshot (time travel), here one archived long ago.
  auto old = (*reopened)->Query("query n() { match { $i: Item } return { count($i) as n } }", "q.gq", "n", "{}",
                                api::ReadTarget{"main", (*commits)[190].id});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->rows->column(0)->Value<int64_t>(0), 10);
}

// A missing segment is a typed history gap, never a shorter history; the
// head and the manifest's buffer of recent ancestors are still found
// (a lookup of a recent commit loads no archived history).
TEST_F(HistoryGraphTest, AMissingSegmentIsAHistoryGap) {
  for (int i = 0; i < 40; ++i) Insert("i" + std::to_string(i));
  Snapshot s = Latest();
  ASSERT_EQ(s.state().history_segments.size(), 1u);
  ASSERT_FALSE(s.state().settled.empty());
  const std::string genesis = graph_->ListCommits()->back().id;
  const CommitRecord buffered = s.state().settled.front();
  ASSERT_TRUE(graph_->store().store()->Delete(std::string(layout::HistorySegment(s.state().history_segments[0]))).ok());
  auto reopened = api::Omnigraph::Open(dir_.path() + "/g");
  ASSERT_TRUE(reopened.ok());
  auto commits = (*reopened)->ListCommits();
  EXPECT_EQ(commits.status().code(), ErrorCode::kVersionReclaimed) << commits.status().ToString();
  EXPECT_EQ(commits.status().details().at("kind"), "history_gap");

  auto head = (*reopened)->ShowCommit(s.head().id);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->manifest_version, s.head().manifest_version);
  auto recent = (*reopened)->ShowCommit(buffered.id);
  ASSERT_TRUE(recent.ok()) << recent.status().ToString();
  EXPECT_EQ(recent->generation, buffered.generation);
  auto by_nonce = (*reopened)->ShowCommit(std::string(NonceOf(buffered.id)));
  ASSERT_TRUE(by_nonce.ok()) << by_nonce.status().ToString();
  EXPECT_EQ(by_nonce->id, buffered.id);
  EXPECT_EQ((*reopened)->ShowCommit("").status().code(), ErrorCode::kNotFound);
  auto archived = (*reopened)->ShowCommit(genesis);
  EXPECT_EQ(archived.status().code(), ErrorCode::kVersionReclaimed) << archived.status().ToString();
}

// The merge base is the common ancestor nearest to both heads (BR-9.3),
// here after branches that merged back and forth.
TEST_F(HistoryGraphTest, MergeBaseIsTheNearestCommonAncestor) {
  Insert("a");
  ASSERT_TRUE(graph_->BranchCreate("f").ok());
  const std::string fork = Latest().head().id;
  Insert("b", "f");
  Insert("c");
  auto base = [&] {
    auto source = graph_->store().Commits(Latest("f"));
    auto target = graph_->store().Commits(Latest("main"));
    EXPECT_TRUE(source.ok() && target.ok());
    const CommitRecord* b = MergeBase(**source, **target);
    return b ? b->id : std::string("<none>");
  };
  EXPECT_EQ(base(), fork);
  auto merged = graph_->BranchMerge("f", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "merged");
  // f's head is now an ancestor of main: it is the base, so merging again
  // is up to date and merging main back into f is a fast forward.
  EXPECT_EQ(base(), Latest("f").head().id);
  EXPECT_EQ(graph_->BranchMerge("f", "main")->outcome, "already_up_to_date");
  EXPECT_EQ(graph_->BranchMerge("main", "f")->outcome, "fast_forward");
  // The fast forward is a new commit on f whose parents are f's old head and
  // main's head; both branches now share main's head as their base.
  const CommitRecord& f_head = Latest("f").head();
  EXPECT_EQ(f_head.merged_parent_id, merged->commit->id);
  EXPECT_EQ(base(), merged->commit->id);
}

TEST(CommitAddress, ContinuesTheParentsBlockOnlyOnTheSameIncarnation) {
  CommitRecord parent;
  parent.id = "hb1.01M8P32R4823KF3ZAP402S0NFX.4.01M8P32R7T44J25MSSGH86Z74X";
  parent.block = "01M8P32R4823KF3ZAP402S0NFX";
  parent.slot = 4;
  const std::string nonce = "01M8P32R6KP6CVM46PDNMW590S";
  CommitAddress same = NextCommitAddress(parent, "main", nonce);
  EXPECT_EQ(same.block, parent.block);
  EXPECT_EQ(same.slot, 5u);
  CommitAddress other = NextCommitAddress(parent, "feature.01M8P32R4823KF3ZAP402S0NFX", nonce);
  EXPECT_EQ(other.block, nonce);
  EXPECT_EQ(other.slot, 0u);
  parent.slot = kHistoryBlockSlots - 1;
  EXPECT_EQ(NextCommitAddress(parent, "main", nonce).block, nonce);
  CommitRecord genesis;
  genesis.id = "01M8P32R7T44J25MSSGH86Z74X";
  EXPECT_EQ(NextCommitAddress(genesis, "main", nonce).slot, 0u);
  EXPECT_TRUE(ValidateCommitId(MakeCommitId(same.block, same.slot, nonce)).ok());
}

}  // namespace history_test
}  // namespace omnigraph::graph
