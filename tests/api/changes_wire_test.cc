// Wire forms of changes (spec/branches.md BR-10.1 "CLI JSON" / "CLI
// human", BR-10.2, BR-10.3): exact text for hand-built values.
#include <gtest/gtest.h>

#include "api/wire/changes_json.h"
#include "support/changes_fixture.h"

namespace omnigraph::testing {
namespace changes_wire_test {

using exec::ChangeOp;
using exec::EntityChange;
using exec::EntityImage;
using exec::EntityKind;

std::string Json(const EntityChange& change) {
  std::string out;
  api::wire::AppendChangeJson(&out, change);
  return out;
}

// An edge update that moves an endpoint and sets a property.
EntityChange MovedKnows() {
  EntityImage after = KnowsImage("Alice", "Charlie");
  after.properties[0].second = "19000";
  return Change(EntityKind::kEdge, kKnowsId, "Knows", "k1", ChangeOp::kUpdate, KnowsImage("Alice", "Bob"), after);
}

exec::ChangeCause Cause() {
  return exec::ChangeCause{"hb1.C", std::string("hb1.P"), std::nullopt, "main", std::string("act-1"), 1700000000000001};
}

TEST(ChangesWire, ChangeJsonHasTheBr101ShapeAndWireBytesMeasuresIt) {
  EntityChange eve = PersonInserted("Eve", 22);
  EXPECT_EQ(Json(eve), R"({"kind":"node","type":{"id":"0000000000000002","name":"Person"},"id":"Eve","op":"insert",)"
                       R"("after":{"properties":{"age":22,"name":"Eve"}}})");
  EXPECT_EQ(Json(MovedKnows()),
            R"({"kind":"edge","type":{"id":"0000000000000003","name":"Knows"},"id":"k1","op":"update",)"
            R"("before":{"properties":{"since":null},"endpoints":{"from":"Alice","to":"Bob"}},)"
            R"("after":{"properties":{"since":19000},"endpoints":{"from":"Alice","to":"Charlie"}}})");
  EntityChange quoted = Change(EntityKind::kEdge, kWorksAtId, "WorksAt", "w\"1\n", ChangeOp::kDelete,
                               WorksAtImage("a\\b", "c\x01"), std::nullopt);
  EXPECT_EQ(Json(quoted),
            R"({"kind":"edge","type":{"id":"0000000000000004","name":"WorksAt"},"id":"w\"1\n","op":"delete",)"
            R"("before":{"properties":{},"endpoints":{"from":"a\\b","to":"c\u0001"}}})");
  for (const EntityChange& c : {eve, MovedKnows(), quoted}) EXPECT_EQ(exec::WireBytes(c), Json(c).size());
}

TEST(ChangesWire, CommitChangesJsonAndPages) {
  std::vector<EntityChange> changes = {PersonInserted("Eve", 22)};
  const std::string cause =
      R"({"graph_commit_id":"hb1.C","parent_commit_id":"hb1.P","authored_branch":"main","actor_id":"act-1",)"
      R"("authored_at":1700000000000001})";
  const std::string change = Json(changes[0]);
  EXPECT_EQ(api::wire::CommitChangesJson(Cause(), changes), R"({"cause":)" + cause + R"(,"changes":[)" + change + "]}");
  exec::CommitChangesPage page{Cause(), changes, std::nullopt};
  EXPECT_EQ(api::wire::CommitChangesPageJson(page),
            R"({"cause":)" + cause + R"(,"changes":[)" + change + R"(],"next_page_token":null})");
  page.next_page_token = "tok";
  page.changes.clear();
  EXPECT_EQ(api::wire::CommitChangesPageJson(page),
            R"({"cause":)" + cause + R"(,"changes":[],"next_page_token":"tok"})");

  exec::ChangeCause genesis_child{"hb1.X", std::nullopt, std::string("hb1.M"), "feature", std::nullopt, 5};
  std::string out;
  api::wire::AppendCauseJson(&out, genesis_child);
  EXPECT_EQ(out, R"({"graph_commit_id":"hb1.X","merged_parent_commit_id":"hb1.M","authored_branch":"feature",)"
                 R"("authored_at":5})");
}

TEST(ChangesWire, CommitChangesHumanText) {
  EntityChange bob_older = Change(EntityKind::kNode, kPersonId, "Person", "Bob", ChangeOp::kUpdate,
                                  PersonImage("Bob", 25), PersonImage("Bob", 26));
  EntityChange gone =
      Change(EntityKind::kNode, kPersonId, "Person", "Dan", ChangeOp::kDelete, PersonImage("Dan", {}), std::nullopt);
  EntityChange noted = Change(EntityKind::kNode, kPersonId, "Person", "Q\"", ChangeOp::kUpdate,
                              EntityImage{{{"name", R"("Q\"")"}}, std::nullopt},
                              EntityImage{{{"name", R"("Q\"")"}, {"tags", R"(["a","b"])"}}, std::nullopt});
  std::vector<EntityChange> changes = {PersonInserted("Eve", 22),
                                       bob_older,
                                       gone,
                                       MovedKnows(),
                                       noted,
                                       Change(EntityKind::kEdge, kWorksAtId, "WorksAt", "w1", ChangeOp::kInsert,
                                              std::nullopt, WorksAtImage("Eve", "Acme"))};
  EXPECT_EQ(api::wire::CommitChangesText(Cause(), changes),
            "commit: hb1.C\n"
            "branch: main\n"
            "parent: hb1.P\n"
            "actor: act-1\n"
            "authored_at: 1700000000000001\n"
            "insert node Person Eve\n"
            "  + age: 22\n"
            "  + name: Eve\n"
            "update node Person Bob\n"
            "  age: 25 -> 26\n"
            "delete node Person Dan\n"
            "  - age: <null>\n"
            "  - name: Dan\n"
            "update edge Knows k1\n"
            "  Alice -> Bob => Alice -> Charlie\n"
            "  since: <null> -> 19000\n"
            "update node Person Q\"\n"
            "  tags: <absent> -> [\"a\",\"b\"]\n"
            "insert edge WorksAt w1\n"
            "  Eve -> Acme\n");
  EXPECT_EQ(api::wire::CommitChangesText(exec::ChangeCause{"g", std::nullopt, std::nullopt, "main", std::nullopt, 0},
                                         {}, std::string("tok")),
            "commit: g\nbranch: main\nauthored_at: 0\nnext_page_token: tok\n");
}

TEST(ChangesWire, FeedJsonTextAndPages) {
  std::vector<exec::ChangeBlock> none;
  EXPECT_EQ(api::wire::ChangeFeedJson(none, "cur", true), R"({"blocks":[],"cursor":"cur","caught_up":true})");
  EXPECT_EQ(api::wire::ChangeFeedText(none, "cur", false), "(no new commits)\n\ncursor: cur\ncaught_up: false\n");

  exec::ChangeCause second{"hb1.D", std::string("hb1.C"), std::nullopt, "feature", std::nullopt, 7};
  std::vector<exec::ChangeBlock> blocks = {{Cause(), {PersonInserted("Eve", 22)}}, {second, {}}};
  std::string cause_c, cause_d;
  api::wire::AppendCauseJson(&cause_c, Cause());
  api::wire::AppendCauseJson(&cause_d, second);
  const std::string blocks_json = R"({"blocks":[{"cause":)" + cause_c + R"(,"changes":[)" +
                                  Json(PersonInserted("Eve", 22)) + R"(]},{"cause":)" + cause_d + R"(,"changes":[]}])";
  EXPECT_EQ(api::wire::ChangeFeedJson(blocks, "cur", false), blocks_json + R"(,"cursor":"cur","caught_up":false})");
  EXPECT_EQ(api::wire::ChangeFeedText(blocks, "cur", true),
            "commit: hb1.C\nbranch: main\nparent: hb1.P\nactor: act-1\nauthored_at: 1700000000000001\n"
            "insert node Person Eve\n  + age: 22\n  + name: Eve\n"
            "\n"
            "commit: hb1.D\nbranch: feature\nparent: hb1.C\nauthored_at: 7\n"
            "\n"
            "cursor: cur\ncaught_up: true\n");

  exec::ChangeFeedPage inside{blocks, std::string("next"), std::nullopt, false};
  EXPECT_EQ(api::wire::ChangeFeedPageJson(inside), blocks_json + R"(,"next_page_token":"next"})");
  exec::ChangeFeedPage terminal{blocks, std::nullopt, std::string("cur"), true};
  EXPECT_EQ(api::wire::ChangeFeedPageJson(terminal), blocks_json + R"(,"cursor":"cur","caught_up":true})");
}

TEST(ChangesWire, BaselineHandshake) {
  exec::ChangeBaseline baseline{"{\"type\":\"Person\"}\n", "hb1.H", "cur"};
  EXPECT_EQ(api::wire::BaselineHandshakeJson(baseline), R"({"snapshot_commit_id":"hb1.H","resume_cursor":"cur"})");
  EXPECT_EQ(api::wire::BaselineTrailerLine(baseline),
            R"({"baseline":{"snapshot_commit_id":"hb1.H","resume_cursor":"cur"}})"
            "\n");
  EXPECT_EQ(api::wire::BaselineText("/tmp/snap.jsonl", baseline),
            "snapshot: /tmp/snap.jsonl\nsnapshot_commit_id: hb1.H\nresume_cursor: cur\n");
}

}  // namespace changes_wire_test
}  // namespace omnigraph::testing
