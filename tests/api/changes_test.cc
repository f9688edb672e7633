// Commit changes and the diff API through the embedded API
// (spec/branches.md BR-10.1, BR-10.4; Appendix A rows 29 and 33).
#include <algorithm>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "support/changes_fixture.h"

namespace omnigraph::testing {
namespace changes_test {

using exec::ChangeOp;
using exec::EntityChange;
using exec::EntityKind;

class CommitChangesTest : public ChangesFixture {};

// Appendix A row 29.
TEST_F(CommitChangesTest, WriteReceiptsIdentifyExactCommitsAndMutationNoOps) {
  graph::CommitRecord eve = Mutate("insert_person", R"({"name":"Eve","age":22})");
  auto shown = db().ShowCommit(eve.id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_EQ(*shown, eve);
  ASSERT_EQ(eve.parent_id, load_commit_.id);

  auto diff = db().DiffCommits(*eve.parent_id, eve.id);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_EQ(diff->changes, std::vector<EntityChange>{PersonInserted("Eve", 22)});
  EXPECT_EQ(diff->stats, (exec::ChangeSet::Stats{1, 0, 0}));
  EXPECT_EQ(diff->from_commit_id, load_commit_.id);
  EXPECT_EQ(diff->to_commit_id, eve.id);

  auto page = db().CommitChanges(eve.id);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->cause,
            (exec::ChangeCause{eve.id, load_commit_.id, std::nullopt, "main", std::nullopt, eve.created_at_us}));
  EXPECT_EQ(page->changes, std::vector<EntityChange>{PersonInserted("Eve", 22)});
  EXPECT_FALSE(page->next_page_token.has_value());

  // A mutation that matches nothing publishes nothing.
  auto noop = db().Mutate(kFixtureMutations, "mutations.gq", "set_age", R"({"name":"Nobody","age":1})");
  ASSERT_TRUE(noop.ok()) << noop.status().ToString();
  EXPECT_FALSE(noop->commit.has_value());
  EXPECT_EQ(Head(), eve.id);

  // An empty load still publishes one commit on the previous head, and it
  // changes no entity.
  auto empty = db().Load("", "empty.jsonl", api::LoadMode::kMerge);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  ASSERT_TRUE(empty->commit.has_value());
  EXPECT_EQ(empty->commit->parent_id, eve.id);
  EXPECT_EQ(Head(), empty->commit->id);
  auto empty_changes = db().CommitChanges(empty->commit->id);
  ASSERT_TRUE(empty_changes.ok()) << empty_changes.status().ToString();
  EXPECT_TRUE(empty_changes->changes.empty());
}

// Appendix A row 33.
TEST_F(CommitChangesTest, GenesisHasNoParentToDiffAgainst) {
  auto refused = db().CommitChanges(genesis_.id);
  ASSERT_EQ(refused.status().code(), ErrorCode::kChangeDiffRefused) << refused.status().ToString();
  EXPECT_EQ(refused.status().http_status(), 409);
  EXPECT_EQ(ErrorCodeName(refused.status().code()), "change_diff_refusal");
  EXPECT_EQ(refused.status().message(),
            "commit '" + genesis_.id + "' has no parent to diff against; start from a baseline instead");
  EXPECT_EQ(refused.status().details(),
            (Status::Details{
                {"reason", "parentless_commit"}, {"kind", "commit_has_no_parent"}, {"graph_commit_id", genesis_.id}}));
}

TEST_F(CommitChangesTest, TheFixtureLoadIsElevenInsertsInTheFrozenOrder) {
  auto page = db().CommitChanges(load_commit_.id);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  const std::string ab = EdgeId("Knows", "Alice", "Bob"), ac = EdgeId("Knows", "Alice", "Charlie"),
                    bd = EdgeId("Knows", "Bob", "Diana"), a_acme = EdgeId("WorksAt", "Alice", "Acme"),
                    b_globex = EdgeId("WorksAt", "Bob", "Globex");
  // Nodes before edges, then type id, then entity id.
  std::vector<std::pair<std::string, EntityChange>> knows = {
      {ab,
       Change(EntityKind::kEdge, kKnowsId, "Knows", ab, ChangeOp::kInsert, std::nullopt, KnowsImage("Alice", "Bob"))},
      {ac, Change(EntityKind::kEdge, kKnowsId, "Knows", ac, ChangeOp::kInsert, std::nullopt,
                  KnowsImage("Alice", "Charlie"))},
      {bd,
       Change(EntityKind::kEdge, kKnowsId, "Knows", bd, ChangeOp::kInsert, std::nullopt, KnowsImage("Bob", "Diana"))}};
  std::vector<std::pair<std::string, EntityChange>> works = {
      {a_acme, Change(EntityKind::kEdge, kWorksAtId, "WorksAt", a_acme, ChangeOp::kInsert, std::nullopt,
                      WorksAtImage("Alice", "Acme"))},
      {b_globex, Change(EntityKind::kEdge, kWorksAtId, "WorksAt", b_globex, ChangeOp::kInsert, std::nullopt,
                        WorksAtImage("Bob", "Globex"))}};
  std::sort(knows.begin(), knows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::sort(works.begin(), works.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<EntityChange> expected = {
      Change(EntityKind::kNode, kCompanyId, "Company", "Acme", ChangeOp::kInsert, std::nullopt, CompanyImage("Acme")),
      Change(EntityKind::kNode, kCompanyId, "Company", "Globex", ChangeOp::kInsert, std::nullopt,
             CompanyImage("Globex")),
      PersonInserted("Alice", 30),
      PersonInserted("Bob", 25),
      PersonInserted("Charlie", 35),
      PersonInserted("Diana", 28)};
  for (auto& k : knows) expected.push_back(k.second);
  for (auto& w : works) expected.push_back(w.second);
  EXPECT_EQ(page->changes, expected);
  EXPECT_EQ(page->cause, (exec::ChangeCause{load_commit_.id, genesis_.id, std::nullopt, "main", std::nullopt,
                                            load_commit_.created_at_us}));
}

TEST_F(CommitChangesTest, ANodeDeleteShowsItsCascadedEdgeDeletesWithEndpoints) {
  const std::string ab = EdgeId("Knows", "Alice", "Bob"), bd = EdgeId("Knows", "Bob", "Diana"),
                    b_globex = EdgeId("WorksAt", "Bob", "Globex");
  graph::CommitRecord removed = Mutate("remove_person", R"({"name":"Bob"})");
  auto page = db().CommitChanges(removed.id);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  auto knows_delete = [](const std::string& id, const std::string& from, const std::string& to) {
    return Change(EntityKind::kEdge, kKnowsId, "Knows", id, ChangeOp::kDelete, KnowsImage(from, to), std::nullopt);
  };
  std::vector<EntityChange> knows = {knows_delete(ab, "Alice", "Bob"), knows_delete(bd, "Bob", "Diana")};
  if (bd < ab) std::swap(knows[0], knows[1]);
  std::vector<EntityChange> expected = {
      Change(EntityKind::kNode, kPersonId, "Person", "Bob", ChangeOp::kDelete, PersonImage("Bob", 25), std::nullopt),
      knows[0], knows[1],
      Change(EntityKind::kEdge, kWorksAtId, "WorksAt", b_globex, ChangeOp::kDelete, WorksAtImage("Bob", "Globex"),
             std::nullopt)};
  EXPECT_EQ(page->changes, expected);

  // Filters: kind, type and op, each a set (repeatable).
  exec::CommitChangesRequest edges_only;
  edges_only.filter.kinds = {EntityKind::kEdge};
  auto edges = db().CommitChanges(removed.id, edges_only);
  ASSERT_TRUE(edges.ok()) << edges.status().ToString();
  EXPECT_EQ(edges->changes, std::vector<EntityChange>(expected.begin() + 1, expected.end()));

  exec::CommitChangesRequest by_type;
  by_type.filter.types = {"WorksAt", "Person"};
  auto typed = db().CommitChanges(removed.id, by_type);
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(typed->changes, (std::vector<EntityChange>{expected[0], expected[3]}));

  exec::CommitChangesRequest inserts_only;
  inserts_only.filter.ops = {ChangeOp::kInsert};
  auto inserts = db().CommitChanges(removed.id, inserts_only);
  ASSERT_TRUE(inserts.ok()) << inserts.status().ToString();
  EXPECT_TRUE(inserts->changes.empty());
  EXPECT_EQ(inserts->cause.graph_commit_id, removed.id);

  exec::CommitChangesRequest unknown_type;
  unknown_type.filter.types = {"Nope"};
  auto none = db().CommitChanges(removed.id, unknown_type);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->changes.empty());
}

TEST_F(CommitChangesTest, AnUpdateCarriesBothImagesAndAnIdenticalRewriteIsNoChange) {
  graph::CommitRecord older = Mutate("set_age", R"({"name":"Alice","age":31})");
  auto page = db().CommitChanges(older.id);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->changes,
            std::vector<EntityChange>{Change(EntityKind::kNode, kPersonId, "Person", "Alice", ChangeOp::kUpdate,
                                             PersonImage("Alice", 30), PersonImage("Alice", 31))});

  // Writing Alice again with the values she has moves the Person pin but
  // changes no entity.
  graph::CommitRecord same = Mutate("set_age", R"({"name":"Alice","age":31})");
  auto unchanged = db().CommitChanges(same.id);
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().ToString();
  EXPECT_TRUE(unchanged->changes.empty());
}

TEST(CommitChangesValues, NullAndEmptyStringDiffer) {
  TempDir dir;
  auto g = api::Omnigraph::Init(dir.path() + "/g", "node Doc {\n  name: String @key\n  note: String?\n}\n");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto& db = **g;
  ASSERT_TRUE(db.Load(R"({"type":"Doc","data":{"name":"a"}})", "a.jsonl", api::LoadMode::kMerge).ok());
  auto emptied = db.Load(R"({"type":"Doc","data":{"name":"a","note":""}})", "b.jsonl", api::LoadMode::kMerge);
  ASSERT_TRUE(emptied.ok()) << emptied.status().ToString();
  auto page = db.CommitChanges(emptied->commit->id);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  exec::EntityImage was{{{"name", "\"a\""}, {"note", "null"}}, std::nullopt};
  exec::EntityImage now{{{"name", "\"a\""}, {"note", "\"\""}}, std::nullopt};
  EXPECT_EQ(page->changes, std::vector<EntityChange>{
                               Change(EntityKind::kNode, "0000000000000001", "Doc", "a", ChangeOp::kUpdate, was, now)});
}

TEST_F(CommitChangesTest, PagesFollowTheFrozenOrderAndResumeWithTheirToken) {
  graph::CommitRecord five = LoadRows(R"({"type":"Person","data":{"name":"p-1","age":1}}
{"type":"Person","data":{"name":"p-2","age":2}}
{"type":"Person","data":{"name":"p-3","age":3}}
{"type":"Company","data":{"name":"c-1"}}
{"type":"Person","data":{"name":"p-4","age":4}}
)");
  const std::vector<std::string> all = {"c-1", "p-1", "p-2", "p-3", "p-4"};
  exec::CommitChangesRequest request;
  request.page.changes = 2;
  std::vector<std::vector<std::string>> pages;
  for (int i = 0; i < 10; ++i) {
    auto page = db().CommitChanges(five.id, request);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    pages.push_back(IdsOf(page->changes));
    if (!page->next_page_token) break;
    request.page_token = page->next_page_token;
  }
  EXPECT_EQ(pages, (std::vector<std::vector<std::string>>{{"c-1", "p-1"}, {"p-2", "p-3"}, {"p-4"}}));

  // Byte packing: a budget of two changes' bytes packs two; a budget
  // smaller than any change still delivers one per page.
  auto whole = db().CommitChanges(five.id);
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(IdsOf(whole->changes), all);
  exec::CommitChangesRequest packed;
  packed.page.bytes = exec::WireBytes(whole->changes[0]) + exec::WireBytes(whole->changes[1]);
  auto two = db().CommitChanges(five.id, packed);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(IdsOf(two->changes), (std::vector<std::string>{"c-1", "p-1"}));
  packed.page.bytes = 1;
  auto alone = db().CommitChanges(five.id, packed);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(IdsOf(alone->changes), std::vector<std::string>{"c-1"});
  ASSERT_TRUE(alone->next_page_token.has_value());
  packed.page_token = alone->next_page_token;
  auto next = db().CommitChanges(five.id, packed);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(IdsOf(next->changes), std::vector<std::string>{"p-1"});
}

TEST_F(CommitChangesTest, PageTokensAndLimitsAreChecked) {
  graph::CommitRecord two = LoadRows(R"({"type":"Person","data":{"name":"t-A","age":1}}
{"type":"Person","data":{"name":"t-B","age":2}}
)");
  graph::CommitRecord other = LoadRows(R"({"type":"Person","data":{"name":"t-C","age":3}})");
  exec::CommitChangesRequest first;
  first.page.changes = 1;
  auto page = db().CommitChanges(two.id, first);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_TRUE(page->next_page_token.has_value());
  const std::string token = *page->next_page_token;

  auto rejected = [&](const std::string& commit, exec::CommitChangesRequest request) {
    auto r = db().CommitChanges(commit, request);
    EXPECT_EQ(r.status().code(), ErrorCode::kChangeCursorRejected) << r.status().ToString();
    EXPECT_EQ(r.status().http_status(), 400);
    return r.status().message();
  };
  exec::CommitChangesRequest request;
  request.page_token = token;
  EXPECT_EQ(rejected(other.id, request), "change cursor rejected: it was issued for another commit");
  request.filter.ops = {ChangeOp::kInsert};
  EXPECT_EQ(rejected(two.id, request), "change cursor rejected: it was issued for a different filter");
  request.filter = {};
  request.page_token = "not-a-token";
  EXPECT_EQ(rejected(two.id, request),
            "change cursor rejected: not a change cursor or page token (malformed encoding)");
  std::string tampered = token;
  tampered[10] = tampered[10] == 'A' ? 'B' : 'A';
  request.page_token = tampered;
  EXPECT_EQ(rejected(two.id, request).rfind("change cursor rejected: not a change cursor or page token (", 0), 0u);
  auto cursor = db().ChangesPoll("main");
  ASSERT_TRUE(cursor.ok() && cursor->cursor);
  request.page_token = *cursor->cursor;
  EXPECT_EQ(rejected(two.id, request),
            "change cursor rejected: a cursor cannot be used as a commit changes page token");

  exec::CommitChangesRequest zero;
  zero.page.changes = 0;
  EXPECT_EQ(db().CommitChanges(two.id, zero).status().message(), "limit must be at least 1");
  exec::CommitChangesRequest too_many;
  too_many.page.changes = 8193;
  auto big = db().CommitChanges(two.id, too_many);
  ASSERT_EQ(big.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(big.status().http_status(), 413);
  EXPECT_EQ(big.status().details().at("resource"), "commit_changes_page_rows");
  EXPECT_EQ(big.status().details().at("limit"), "8192");
  too_many.page.changes = 8192;
  too_many.page.bytes = (uint64_t{32} << 20) + 1;
  auto bytes = db().CommitChanges(two.id, too_many);
  ASSERT_EQ(bytes.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(bytes.status().details().at("resource"), "commit_changes_page_bytes");

  auto missing = db().CommitChanges("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

// BR-10.4 across branches: table-key order (edges before nodes), the net
// difference only, and either side may be a branch or a commit.
TEST_F(CommitChangesTest, DiffBetweenBranchesIsTheNetDifference) {
  ASSERT_TRUE(db().BranchCreate("feature").ok());
  const std::string bd = EdgeId("Knows", "Bob", "Diana");
  Mutate("remove_person", R"({"name":"Diana"})", "feature");
  Mutate("insert_person", R"({"name":"Eve","age":22})", "feature");
  Mutate("set_age", R"({"name":"Eve","age":23})", "feature");  // net: one insert with age 23
  Mutate("set_age", R"({"name":"Bob","age":26})");             // main moves too

  auto diff = db().DiffBetween(api::ReadTarget{"main", std::nullopt}, api::ReadTarget{"feature", std::nullopt});
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  std::vector<EntityChange> expected = {
      Change(EntityKind::kEdge, kKnowsId, "Knows", bd, ChangeOp::kDelete, KnowsImage("Bob", "Diana"), std::nullopt),
      Change(EntityKind::kNode, kPersonId, "Person", "Bob", ChangeOp::kUpdate, PersonImage("Bob", 26),
             PersonImage("Bob", 25)),
      Change(EntityKind::kNode, kPersonId, "Person", "Diana", ChangeOp::kDelete, PersonImage("Diana", 28),
             std::nullopt),
      PersonInserted("Eve", 23)};
  EXPECT_EQ(diff->changes, expected);
  EXPECT_EQ(diff->stats, (exec::ChangeSet::Stats{1, 1, 2}));
  EXPECT_EQ(diff->from_commit_id, Head("main"));
  EXPECT_EQ(diff->to_commit_id, Head("feature"));

  // The same pair by commit ids, and a commit against a branch.
  auto by_commits = db().DiffCommits(Head("main"), Head("feature"));
  ASSERT_TRUE(by_commits.ok()) << by_commits.status().ToString();
  EXPECT_EQ(by_commits->changes, expected);
  exec::ChangeFilter deletes;
  deletes.ops = {ChangeOp::kDelete};
  auto filtered =
      db().DiffBetween(api::ReadTarget{"main", load_commit_.id}, api::ReadTarget{"feature", std::nullopt}, deletes);
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  EXPECT_EQ(filtered->changes, (std::vector<EntityChange>{
                                   expected[0], Change(EntityKind::kNode, kPersonId, "Person", "Diana",
                                                       ChangeOp::kDelete, PersonImage("Diana", 28), std::nullopt)}));
  auto same = db().DiffBetween(api::ReadTarget{"feature", std::nullopt}, api::ReadTarget{"feature", std::nullopt});
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->changes.empty());
  EXPECT_EQ(db().DiffCommits("no-such-commit", Head()).status().code(), ErrorCode::kNotFound);
}

}  // namespace changes_test
}  // namespace omnigraph::testing
