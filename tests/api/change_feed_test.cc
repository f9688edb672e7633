// The change feed and baselines through the embedded API
// (spec/branches.md BR-10.2, BR-10.3; Appendix A rows 30 and 32).
#include <filesystem>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "api/wire/changes_json.h"
#include "exec/export.h"
#include "support/changes_fixture.h"

namespace omnigraph::testing {
namespace change_feed_test {

using exec::ChangeOp;
using exec::EntityChange;
using exec::FeedPosition;

FeedPosition Start(std::string start) { return FeedPosition{std::nullopt, std::move(start), std::nullopt}; }
FeedPosition FromCursor(std::string cursor) { return FeedPosition{std::move(cursor), std::nullopt, std::nullopt}; }
FeedPosition FromToken(std::string token) { return FeedPosition{std::nullopt, std::nullopt, std::move(token)}; }

std::vector<std::string> CommitsOf(const std::vector<exec::ChangeBlock>& blocks) {
  std::vector<std::string> ids;
  for (const auto& b : blocks) ids.push_back(b.cause.graph_commit_id);
  return ids;
}

class ChangeFeedTest : public ChangesFixture {
 protected:
  // A poll that must succeed.
  exec::ChangeFeedPage Poll(const std::string& branch, const FeedPosition& position,
                            const exec::ChangeFeedRequest& request = {}) {
    auto page = db().ChangesPoll(branch, position, request);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? *page : exec::ChangeFeedPage{};
  }
  std::string NowCursor(const std::string& branch = "main") {
    exec::ChangeFeedPage page = Poll(branch, Start("now"));
    EXPECT_TRUE(page.blocks.empty());
    EXPECT_TRUE(page.caught_up);
    return page.cursor.value_or("");
  }
  // The message of a poll that must be rejected as a cursor error.
  std::string Rejected(const std::string& branch, const FeedPosition& position,
                       const exec::ChangeFeedRequest& request = {}) {
    auto page = db().ChangesPoll(branch, position, request);
    EXPECT_EQ(page.status().code(), ErrorCode::kChangeCursorRejected) << page.status().ToString();
    EXPECT_EQ(page.status().http_status(), 400);
    return page.status().message();
  }
};

// Appendix A row 30.
TEST_F(ChangeFeedTest, StartModesNowAfterCommitAndBeginning) {
  graph::CommitRecord late = Mutate("insert_person", R"({"name":"Late","age":9})");

  exec::ChangeFeedPage beginning = Poll("main", Start("beginning"));
  EXPECT_EQ(CommitsOf(beginning.blocks), (std::vector<std::string>{load_commit_.id, late.id}));
  EXPECT_EQ(beginning.blocks[0].changes.size(), 11u);
  EXPECT_EQ(beginning.blocks[1].changes, std::vector<EntityChange>{PersonInserted("Late", 9)});
  EXPECT_EQ(beginning.blocks[1].cause, exec::CauseOf(late));
  EXPECT_TRUE(beginning.caught_up);
  ASSERT_TRUE(beginning.cursor.has_value());
  EXPECT_FALSE(beginning.next_page_token.has_value());

  exec::ChangeFeedPage after = Poll("main", Start("after:" + load_commit_.id));
  EXPECT_EQ(CommitsOf(after.blocks), std::vector<std::string>{late.id});
  EXPECT_EQ(after.cursor, beginning.cursor);  // one position, one cursor
  EXPECT_TRUE(after.caught_up);

  exec::ChangeFeedPage now = Poll("main", Start("now"));
  EXPECT_TRUE(now.blocks.empty());
  EXPECT_EQ(now.cursor, beginning.cursor);
  exec::ChangeFeedPage by_default = Poll("main", FeedPosition{});
  EXPECT_EQ(by_default.cursor, beginning.cursor);

  EXPECT_EQ(Rejected("main", Start("after:no-such-commit")),
            "change cursor rejected: start commit is not on this branch's first-parent chain");
  auto bogus = db().ChangesPoll("main", Start("yesterday"));
  EXPECT_EQ(bogus.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bogus.status().message(), "start must be now | beginning | after:<commit_id>");
  auto both = db().ChangesPoll("main", FeedPosition{beginning.cursor, std::string("now"), std::nullopt});
  EXPECT_EQ(both.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(both.status().message(), "cursor, start, and page_token are mutually exclusive");

  // A named branch replays its inherited history with the original
  // authored branch; its own commit names the branch.
  ASSERT_TRUE(db().BranchCreate("feature").ok());
  graph::CommitRecord own = Mutate("insert_person", R"({"name":"FeatureOnly","age":1})", "feature");
  exec::ChangeFeedPage feature = Poll("feature", Start("beginning"));
  EXPECT_EQ(CommitsOf(feature.blocks), (std::vector<std::string>{load_commit_.id, late.id, own.id}));
  EXPECT_EQ(feature.blocks[0].cause.authored_branch, "main");
  EXPECT_EQ(feature.blocks[1].cause.authored_branch, "main");
  EXPECT_EQ(feature.blocks[2].cause.authored_branch, "feature");
  EXPECT_EQ(feature.blocks[2].changes, std::vector<EntityChange>{PersonInserted("FeatureOnly", 1)});
  // main's commit made after the branch is not on feature's chain.
  graph::CommitRecord main_only = Mutate("insert_person", R"({"name":"MainOnly","age":2})");
  EXPECT_EQ(Rejected("feature", Start("after:" + main_only.id)),
            "change cursor rejected: start commit is not on this branch's first-parent chain");
}

// A page ends inside a block with a page token only; the poll keeps its cut.
TEST_F(ChangeFeedTest, CursorsMarkBlockBoundariesAndAPollKeepsItsCut) {
  const std::string c0 = NowCursor();
  graph::CommitRecord a = LoadRows(R"({"type":"Person","data":{"name":"fa-1","age":1}}
{"type":"Person","data":{"name":"fa-2","age":2}}
{"type":"Person","data":{"name":"fa-3","age":3}}
)");
  graph::CommitRecord b = LoadRows(R"({"type":"Person","data":{"name":"fb-1","age":4}}
{"type":"Person","data":{"name":"fb-2","age":5}}
)");
  exec::ChangeFeedRequest small;
  small.page.changes = 2;
  exec::ChangeFeedPage first = Poll("main", FromCursor(c0), small);
  EXPECT_EQ(CommitsOf(first.blocks), std::vector<std::string>{a.id});
  EXPECT_EQ(IdsOf(first.blocks[0].changes), (std::vector<std::string>{"fa-1", "fa-2"}));
  EXPECT_FALSE(first.terminal());
  ASSERT_TRUE(first.next_page_token.has_value());

  // Published after the poll began: outside its cut.
  graph::CommitRecord c = LoadRows(R"({"type":"Person","data":{"name":"fc-1","age":6}})");

  exec::ChangeFeedPage second = Poll("main", FromToken(*first.next_page_token));
  EXPECT_EQ(CommitsOf(second.blocks), (std::vector<std::string>{a.id, b.id}));
  EXPECT_EQ(IdsOf(second.blocks[0].changes), std::vector<std::string>{"fa-3"});
  EXPECT_EQ(IdsOf(second.blocks[1].changes), (std::vector<std::string>{"fb-1", "fb-2"}));
  ASSERT_TRUE(second.terminal());
  EXPECT_FALSE(second.caught_up);  // the cut was reached, but the head moved on

  // The CLI joins the pages of a poll into whole blocks.
  api::wire::ChangeFeedCollector joined;
  joined.Add(first);
  joined.Add(second);
  ASSERT_EQ(CommitsOf(joined.blocks()), (std::vector<std::string>{a.id, b.id}));
  EXPECT_EQ(IdsOf(joined.blocks()[0].changes), (std::vector<std::string>{"fa-1", "fa-2", "fa-3"}));
  EXPECT_EQ(joined.cursor(), second.cursor);
  EXPECT_FALSE(joined.caught_up());

  exec::ChangeFeedPage next = Poll("main", FromCursor(*second.cursor));
  EXPECT_EQ(CommitsOf(next.blocks), std::vector<std::string>{c.id});
  EXPECT_TRUE(next.caught_up);

  // A change larger than the byte budget travels alone.
  exec::ChangeFeedRequest tiny;
  tiny.page.bytes = 1;
  exec::ChangeFeedPage alone = Poll("main", FromCursor(*second.cursor), tiny);
  EXPECT_EQ(CommitsOf(alone.blocks), std::vector<std::string>{c.id});
  EXPECT_EQ(IdsOf(alone.blocks[0].changes), std::vector<std::string>{"fc-1"});
  EXPECT_TRUE(alone.terminal());
}

TEST_F(ChangeFeedTest, APollCoversAtMostMaxCommits) {
  std::vector<std::string> expected = {load_commit_.id};
  for (int i = 0; i < 3; ++i) {
    expected.push_back(Mutate("insert_person", R"({"name":"s-)" + std::to_string(i) + R"(","age":1})").id);
  }
  exec::ChangeFeedRequest bounded;
  bounded.max_commits = 2;
  std::vector<std::string> seen;
  std::vector<bool> caught_up;
  FeedPosition position = Start("beginning");
  for (int polls = 0; polls < 5; ++polls) {
    exec::ChangeFeedPage page = Poll("main", position, bounded);
    ASSERT_TRUE(page.terminal());
    for (const auto& id : CommitsOf(page.blocks)) seen.push_back(id);
    caught_up.push_back(page.caught_up);
    if (page.caught_up) break;
    position = FromCursor(*page.cursor);
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(caught_up, (std::vector<bool>{false, true}));

  bounded.max_commits = 513;
  auto over = db().ChangesPoll("main", Start("beginning"), bounded);
  ASSERT_EQ(over.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(over.status().details().at("resource"), "change_feed_commits");
  EXPECT_EQ(over.status().details().at("limit"), "512");
  bounded.max_commits = 0;
  EXPECT_EQ(db().ChangesPoll("main", Start("beginning"), bounded).status().message(), "max_commits must be at least 1");
  exec::ChangeFeedRequest rows;
  rows.page.changes = 8193;
  EXPECT_EQ(db().ChangesPoll("main", Start("now"), rows).status().details().at("resource"), "change_feed_page_rows");
}

TEST_F(ChangeFeedTest, CursorsAreBoundToGraphBranchIncarnationAndFilter) {
  ASSERT_TRUE(db().BranchCreate("feature").ok());
  const std::string c_main = NowCursor("main");
  Mutate("insert_person", R"({"name":"x-1","age":1})");
  Mutate("insert_person", R"({"name":"x-2","age":2})");

  // A cursor works from any handle: no state is kept between polls.
  auto other_handle = api::Omnigraph::Open(uri());
  ASSERT_TRUE(other_handle.ok());
  auto resumed = (*other_handle)->ChangesPoll("main", FromCursor(c_main));
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->blocks.size(), 2u);

  EXPECT_EQ(Rejected("feature", FromCursor(c_main)),
            "change cursor rejected: it was issued for branch 'main', not 'feature'");
  exec::ChangeFeedRequest inserts;
  inserts.filter.ops = {ChangeOp::kInsert};
  EXPECT_EQ(Rejected("main", FromCursor(c_main), inserts),
            "change cursor rejected: it was issued for a different filter");
  // A filter is a set: spelled differently, it is the same filter.
  exec::ChangeFeedRequest a, b;
  a.filter.types = {"Person", "Knows"};
  b.filter.types = {"Knows", "Person", "Knows"};
  auto bound = db().ChangesPoll("main", Start("now"), a);
  ASSERT_TRUE(bound.ok());
  EXPECT_TRUE(db().ChangesPoll("main", FromCursor(*bound->cursor), b).ok());

  EXPECT_EQ(Rejected("main", FromCursor("garbage")),
            "change cursor rejected: not a change cursor or page token (malformed encoding)");
  exec::ChangeFeedRequest one;
  one.page.changes = 1;
  exec::ChangeFeedPage partial = Poll("main", FromCursor(c_main), one);
  ASSERT_TRUE(partial.next_page_token.has_value());
  EXPECT_EQ(Rejected("main", FromCursor(*partial.next_page_token)),
            "change cursor rejected: a page token cannot be used as a cursor");
  EXPECT_EQ(Rejected("main", FromToken(c_main)), "change cursor rejected: a cursor cannot be used as a page token");
  EXPECT_EQ(Rejected("feature", FromToken(*partial.next_page_token)),
            "change cursor rejected: it was issued for branch 'main', not 'feature'");
  exec::CommitChangesRequest paged;
  paged.page.changes = 1;
  auto commit_page = db().CommitChanges(load_commit_.id, paged);
  ASSERT_TRUE(commit_page.ok() && commit_page->next_page_token);
  EXPECT_EQ(Rejected("main", FromCursor(*commit_page->next_page_token)),
            "change cursor rejected: a commit changes page token cannot be used as a cursor");

  // A re-created branch is another incarnation: its old cursors are refused.
  ASSERT_TRUE(db().BranchCreate("aba").ok());
  const std::string c_aba = NowCursor("aba");
  ASSERT_TRUE(db().BranchDelete("aba").ok());
  ASSERT_TRUE(db().BranchCreate("aba").ok());
  EXPECT_EQ(Rejected("aba", FromCursor(c_aba)),
            "change cursor rejected: it was issued for another incarnation of branch 'aba' (the branch was deleted "
            "and created again)");

  // Another graph has another genesis.
  TempDir elsewhere;
  auto other = api::Omnigraph::Init(elsewhere.path() + "/g", kFixtureSchema);
  ASSERT_TRUE(other.ok());
  auto foreign = (*other)->ChangesPoll("main", FromCursor(c_main));
  EXPECT_EQ(foreign.status().code(), ErrorCode::kChangeCursorRejected);
  EXPECT_EQ(foreign.status().message(), "change cursor rejected: it belongs to another graph");

  auto reserved = db().ChangesPoll("__internal", Start("now"));
  EXPECT_EQ(reserved.status().code(), ErrorCode::kInvalidArgument);
  auto missing = db().ChangesPoll("nope", Start("now"));
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

TEST_F(ChangeFeedTest, FilteredFeedsStillYieldABlockPerCommit) {
  graph::CommitRecord person = Mutate("insert_person", R"({"name":"Eve","age":22})");
  graph::CommitRecord company = LoadRows(R"({"type":"Company","data":{"name":"Initech"}})");
  exec::ChangeFeedRequest companies;
  companies.filter.kinds = {exec::EntityKind::kNode};
  companies.filter.types = {"Company"};
  exec::ChangeFeedPage page = Poll("main", Start("after:" + load_commit_.id), companies);
  EXPECT_EQ(CommitsOf(page.blocks), (std::vector<std::string>{person.id, company.id}));
  EXPECT_TRUE(page.blocks[0].changes.empty());
  EXPECT_EQ(page.blocks[1].changes,
            std::vector<EntityChange>{Change(exec::EntityKind::kNode, kCompanyId, "Company", "Initech",
                                             ChangeOp::kInsert, std::nullopt, CompanyImage("Initech"))});
  EXPECT_TRUE(page.caught_up);
}

// Appendix A row 32. "Reclaim" = the pinned (detached) manifest of the
// Person version commit A published is deleted, as a cleanup would.
TEST_F(ChangeFeedTest, AGapIsTypedAndABaselineResumesExactly) {
  const std::string c0 = NowCursor();
  graph::CommitRecord a = LoadRows(R"({"type":"Person","data":{"name":"gap-a","age":1}})");
  graph::CommitRecord b = LoadRows(R"({"type":"Person","data":{"name":"gap-b","age":2}})");
  auto at_a = db().store().AtVersion("main", a.manifest_version);
  ASSERT_TRUE(at_a.ok()) << at_a.status().ToString();
  const graph::TablePin& pin = at_a->FindTable("node:Person")->pin;
  ASSERT_TRUE(pin.staged_version.has_value());
  ASSERT_TRUE(std::filesystem::remove(uri() + "/" + pin.manifest_path)) << pin.manifest_path;

  // A new engine, as in a new process: this one's caches hold the version.
  auto reopened = api::Omnigraph::Open(uri(), std::make_shared<api::Engine>());
  ASSERT_TRUE(reopened.ok());
  api::Omnigraph& fresh = **reopened;
  auto gap = fresh.ChangesPoll("main", FromCursor(c0));
  ASSERT_EQ(gap.status().code(), ErrorCode::kChangeFeedGap) << gap.status().ToString();
  EXPECT_EQ(gap.status().http_status(), 410);
  EXPECT_EQ(gap.status().details().at("cursor"), c0);
  EXPECT_EQ(gap.status().details().at("first_unreadable_commit_id"), a.id);
  EXPECT_EQ(gap.status().message().rfind("change feed gap at commit '" + a.id + "': ", 0), 0u);
  // `commit changes` of the unreadable commit is the same gap.
  auto commit_gap = fresh.CommitChanges(a.id);
  EXPECT_EQ(commit_gap.status().code(), ErrorCode::kChangeFeedGap);
  EXPECT_EQ(commit_gap.status().details().at("first_unreadable_commit_id"), a.id);

  // The baseline: the export of the head and the cursor right after it.
  auto baseline = fresh.ChangesBaseline("main");
  ASSERT_TRUE(baseline.ok()) << baseline.status().ToString();
  EXPECT_EQ(baseline->snapshot_commit_id, b.id);
  auto exported = fresh.Export("main", {});
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(baseline->snapshot, *exported);
  EXPECT_NE(baseline->snapshot.find("gap-a"), std::string::npos);
  EXPECT_NE(baseline->snapshot.find("gap-b"), std::string::npos);

  auto post =
      fresh.Load(R"({"type":"Person","data":{"name":"post-baseline","age":3}})", "post.jsonl", api::LoadMode::kMerge);
  ASSERT_TRUE(post.ok() && post->commit);
  auto resumed = fresh.ChangesPoll("main", FromCursor(baseline->resume_cursor));
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(CommitsOf(resumed->blocks), std::vector<std::string>{post->commit->id});
  EXPECT_EQ(resumed->blocks[0].changes, std::vector<EntityChange>{PersonInserted("post-baseline", 3)});
  EXPECT_TRUE(resumed->caught_up);

  // A gap after the poll's first commit ends the page before it instead.
  auto from_genesis = fresh.ChangesPoll("main", Start("beginning"));
  ASSERT_TRUE(from_genesis.ok()) << from_genesis.status().ToString();
  EXPECT_EQ(CommitsOf(from_genesis->blocks), std::vector<std::string>{load_commit_.id});
  ASSERT_TRUE(from_genesis->terminal());
  EXPECT_FALSE(from_genesis->caught_up);
  EXPECT_EQ(from_genesis->cursor, c0);
}

TEST_F(ChangeFeedTest, ABaselineHonoursKindAndTypeAndBindsItsCursorToTheWholeFilter) {
  exec::ChangeFilter people;
  people.kinds = {exec::EntityKind::kNode};
  people.types = {"Person", "Knows"};
  people.ops = {ChangeOp::kInsert};
  auto baseline = db().ChangesBaseline("main", people);
  ASSERT_TRUE(baseline.ok()) << baseline.status().ToString();
  auto snapshot = db().store().Latest("main");
  ASSERT_TRUE(snapshot.ok());
  auto expected = exec::ExportGraph(*snapshot, {"Person"});
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(baseline->snapshot, *expected);
  EXPECT_EQ(baseline->snapshot_commit_id, load_commit_.id);

  exec::ChangeFeedRequest same;
  same.filter = people;
  graph::CommitRecord eve = Mutate("insert_person", R"({"name":"Eve","age":22})");
  auto resumed = db().ChangesPoll("main", FromCursor(baseline->resume_cursor), same);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(CommitsOf(resumed->blocks), std::vector<std::string>{eve.id});
  EXPECT_EQ(Rejected("main", FromCursor(baseline->resume_cursor)),
            "change cursor rejected: it was issued for a different filter");

  exec::ChangeFilter nothing;
  nothing.types = {"NoSuchType"};
  auto empty = db().ChangesBaseline("main", nothing);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->snapshot, "");
}

}  // namespace change_feed_test
}  // namespace omnigraph::testing
