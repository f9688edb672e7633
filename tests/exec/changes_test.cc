// The change engine below the API (spec/branches.md BR-10; spec/engine.md
// §6): identity pairing of table lifetimes, skipped pins, physical-only and
// schema-changing commits written through the door, and the token codec.
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "exec/changes/change_feed.h"
#include "exec/changes/change_tokens.h"
#include "exec/changes/commit_changes.h"
#include "exec/changes/snapshot_diff.h"
#include "graph/write/door.h"
#include "support/batches.h"
#include "support/change_printers.h"
#include "support/temp_dir.h"

namespace omnigraph::exec {
namespace changes_test {

using testing::I;
using testing::S;

// Two node types with the same columns, so one can stand in for the other
// as a re-added lifetime. Stable ids: Person 1, Twin 2, Knows 3.
constexpr std::string_view kSchema = R"(node Person {
    name: String @key
    age: I32?
}
node Twin {
    name: String @key
    age: I32?
}
edge Knows: Person -> Person
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"Alice","age":30}}
{"type":"Person","data":{"name":"Bob","age":25}}
{"type":"Twin","data":{"name":"Alice","age":31}}
{"type":"Twin","data":{"name":"Zed","age":1}}
{"edge":"Knows","from":"Alice","to":"Bob"}
)";

EntityImage Image(const std::string& name, int age) {
  return EntityImage{{{"age", std::to_string(age)}, {"name", "\"" + name + "\""}}, std::nullopt};
}
EntityChange Node(std::string type_id, std::string type, std::string id, ChangeOp op, std::optional<EntityImage> before,
                  std::optional<EntityImage> after) {
  return EntityChange{EntityKind::kNode, EntityType{std::move(type_id), std::move(type)},
                      std::move(id),     op,
                      std::move(before), std::move(after)};
}

class ChangeEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = api::Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    db_ = std::move(g).value();
    auto loaded = db_->Load(kData, "data.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    load_ = *loaded->commit;
  }
  graph::GraphStore& store() { return db_->store(); }
  graph::Snapshot Latest() {
    auto s = store().Latest();
    EXPECT_TRUE(s.ok());
    return *s;
  }
  // A snapshot of `state`, which the test rearranged.
  graph::Snapshot Crafted(graph::GraphState state) {
    return graph::Snapshot(&store(), std::make_shared<const graph::GraphState>(std::move(state)));
  }
  // Publishes on main, as a writer would, the effects `effects_of` makes
  // for the write it captured.
  graph::CommitRecord Publish(const std::function<std::vector<graph::Effect>(const graph::WriteTxn&)>& effects_of,
                              bool replaces_contract = false) {
    auto txn = graph::WriteTxn::Capture(store(), graph::NativeRef::Main(), std::nullopt);
    EXPECT_TRUE(txn.ok());
    graph::DoorOptions options;
    if (replaces_contract) options.schema_access = graph::SchemaAccess::kExclusive;
    auto out = graph::CommitThroughDoor(store(), *txn, effects_of(*txn), options);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? out->commit : graph::CommitRecord{};
  }
  // A transaction `stage` makes on `txn`'s pin of `table_key`.
  template <typename Stage>
  static graph::StagedOnPin StageOn(const graph::WriteTxn& txn, const std::string& table_key, Stage stage) {
    auto base = txn.base().OpenDataset(*txn.state().FindTable(table_key));
    EXPECT_TRUE(base.ok());
    auto staged = stage(*base, graph::DetachedStageOptions(txn));
    EXPECT_TRUE(staged.ok()) << staged.status().ToString();
    return graph::StagedOnPin{table_key, std::move(staged).value(), {}};
  }
  graph::ReplaceContract ChangedContract() {
    graph::SchemaContract contract = Latest().state().schema;
    contract.ir_hash += "-evolved";
    return graph::ReplaceContract{contract};
  }

  testing::TempDir dir_;
  std::unique_ptr<api::Omnigraph> db_;
  graph::CommitRecord load_;
};

TEST_F(ChangeEngineTest, ARenamePairsByIdentityAndChangesNothing) {
  graph::Snapshot now = Latest();
  graph::GraphState renamed = now.state();
  graph::TableEntry person = renamed.tables.at("node:Person");
  renamed.tables.erase("node:Person");
  person.table_key = "node:Human";
  renamed.tables.emplace(person.table_key, person);
  auto diff = DiffSnapshots(now, Crafted(renamed), {});
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_TRUE(diff->changes.empty());

  // Its rows' history keeps the type id and reports the new name.
  auto genesis = store().AtVersion("main", 1);
  ASSERT_TRUE(genesis.ok());
  ChangeFilter humans;
  humans.types = {"Human"};
  auto since_genesis = DiffSnapshots(*genesis, Crafted(renamed), humans);
  ASSERT_TRUE(since_genesis.ok()) << since_genesis.status().ToString();
  EXPECT_EQ(since_genesis->changes,
            (std::vector<EntityChange>{
                Node("0000000000000001", "Human", "Alice", ChangeOp::kInsert, std::nullopt, Image("Alice", 30)),
                Node("0000000000000001", "Human", "Bob", ChangeOp::kInsert, std::nullopt, Image("Bob", 25))}));
}

TEST_F(ChangeEngineTest, ADropAndReAddUnderOneNameIsDeletesThenInserts) {
  graph::Snapshot now = Latest();
  // Before: Person's lifetime only. After: a new lifetime (Twin's rows)
  // registered under the name Person.
  graph::GraphState before = now.state();
  before.tables.erase("node:Twin");
  graph::GraphState after = now.state();
  graph::TableEntry readded = after.tables.at("node:Twin");
  after.tables.erase("node:Twin");
  readded.table_key = "node:Person";
  after.tables["node:Person"] = readded;
  ChangeFilter people;
  people.types = {"Person"};
  auto diff = DiffSnapshots(Crafted(before), Crafted(after), people);
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  EXPECT_EQ(diff->changes,
            (std::vector<EntityChange>{
                Node("0000000000000001", "Person", "Alice", ChangeOp::kDelete, Image("Alice", 30), std::nullopt),
                Node("0000000000000001", "Person", "Bob", ChangeOp::kDelete, Image("Bob", 25), std::nullopt),
                Node("0000000000000002", "Person", "Alice", ChangeOp::kInsert, std::nullopt, Image("Alice", 31)),
                Node("0000000000000002", "Person", "Zed", ChangeOp::kInsert, std::nullopt, Image("Zed", 1))}));
  EXPECT_EQ(diff->stats, (ChangeSet::Stats{2, 0, 2}));

  // When the new lifetime keeps the stable id (same type id), the frozen
  // commit order interleaves both lifetimes by entity id, then op.
  after.tables["node:Person"].identity.stable_id = before.tables.at("node:Person").identity.stable_id;
  auto in_commit_order = SnapshotDiff::Compute(Crafted(before), Crafted(after), people, ChangeOrder::kCommit);
  ASSERT_TRUE(in_commit_order.ok()) << in_commit_order.status().ToString();
  std::vector<std::pair<std::string, ChangeOp>> order;
  for (size_t i = 0; i < in_commit_order->size(); ++i) {
    EntityChange c = in_commit_order->Render(i);
    order.emplace_back(c.id, c.op);
    EXPECT_EQ(KeyOf(c), in_commit_order->KeyAt(i));
  }
  EXPECT_EQ(order, (std::vector<std::pair<std::string, ChangeOp>>{{"Alice", ChangeOp::kInsert},
                                                                  {"Alice", ChangeOp::kDelete},
                                                                  {"Bob", ChangeOp::kDelete},
                                                                  {"Zed", ChangeOp::kInsert}}));
  ChangeKey alice_insert{EntityKind::kNode, "0000000000000001", "Alice", ChangeOp::kInsert};
  EXPECT_EQ(in_commit_order->PositionAfter(alice_insert), 1u);
  EXPECT_EQ(in_commit_order->PositionAfter(ChangeKey{EntityKind::kNode, "0000000000000001", "Zzz", ChangeOp::kInsert}),
            4u);
}

TEST_F(ChangeEngineTest, AnUnchangedPinIsNeverRead) {
  // An engine of its own: the process's caches hold what earlier handles read.
  auto reopened = api::Omnigraph::Open(dir_.path() + "/g", std::make_shared<api::Engine>());
  ASSERT_TRUE(reopened.ok());
  graph::GraphStore& fresh = (*reopened)->store();
  auto head = fresh.Latest();
  ASSERT_TRUE(head.ok());
  auto same = DiffSnapshots(*head, *head, {});
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->changes.empty());
  EXPECT_EQ(fresh.cache_counts().table_data, 0u);
  auto genesis = fresh.AtVersion("main", 1);
  ASSERT_TRUE(genesis.ok());
  auto loaded = DiffSnapshots(*genesis, *head, {});
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->changes.size(), 5u);
  EXPECT_EQ(fresh.cache_counts().table_data, 6u);  // three tables, two versions each
}

TEST_F(ChangeEngineTest, APhysicalOnlyCommitHasNoChangesButIsAFeedBlock) {
  auto now = PollChanges(store(), "main", FeedPosition{}, {});
  ASSERT_TRUE(now.ok());
  graph::CommitRecord rewrite = Publish([](const graph::WriteTxn& txn) {
    std::vector<graph::Effect> effects;
    effects.push_back(StageOn(txn, "node:Person", [](const table::Dataset& base, const table::StageOptions& options) {
      return table::StageRewrite(base, {}, options);
    }));
    return effects;
  });
  auto loaded = store().AtVersion("main", load_.manifest_version);
  ASSERT_TRUE(loaded.ok());
  ASSERT_NE(Latest().FindTable("node:Person")->pin, loaded->FindTable("node:Person")->pin);
  auto page = ListCommitChanges(store(), rewrite, {});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->changes.empty());
  EXPECT_EQ(page->cause.graph_commit_id, rewrite.id);

  auto feed = PollChanges(store(), "main", FeedPosition{now->cursor, std::nullopt, std::nullopt}, {});
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  ASSERT_EQ(feed->blocks.size(), 1u);
  EXPECT_EQ(feed->blocks[0].cause.graph_commit_id, rewrite.id);
  EXPECT_TRUE(feed->blocks[0].changes.empty());
}

TEST_F(ChangeEngineTest, ASchemaChangeOfATypeIsARefusedBoundary) {
  auto before = PollChanges(store(), "main", FeedPosition{}, {});
  ASSERT_TRUE(before.ok());
  // A contract change whose tables keep their columns diffs normally.
  graph::CommitRecord same_columns = Publish(
      [this](const graph::WriteTxn& txn) {
        std::vector<graph::Effect> effects;
        effects.push_back(StageOn(txn, "node:Twin", [](const table::Dataset& base, const table::StageOptions& options) {
          return table::StageAppend(base, {testing::MakeBatch(base.schema(), {{S("Yan"), I(5), S("Yan")}})}, options);
        }));
        effects.push_back(ChangedContract());
        return effects;
      },
      /*replaces_contract=*/true);
  auto normal = ListCommitChanges(store(), same_columns, {});
  ASSERT_TRUE(normal.ok()) << normal.status().ToString();
  EXPECT_EQ(normal->changes, (std::vector<EntityChange>{Node("0000000000000002", "Twin", "Yan", ChangeOp::kInsert,
                                                             std::nullopt, Image("Yan", 5))}));

  // A column added to Person with the contract: refused, naming the type.
  graph::CommitRecord evolved = Publish(
      [this](const graph::WriteTxn& txn) {
        std::vector<graph::Effect> effects;
        effects.push_back(
            StageOn(txn, "node:Person", [](const table::Dataset& base, const table::StageOptions& options) {
              return table::StageAddColumns(base, {Field("note", DataType::Utf8(), true)}, options);
            }));
        effects.push_back(ChangedContract());
        return effects;
      },
      /*replaces_contract=*/true);
  auto refused = ListCommitChanges(store(), evolved, {});
  ASSERT_EQ(refused.status().code(), ErrorCode::kChangeDiffRefused) << refused.status().ToString();
  EXPECT_EQ(refused.status().details(), (Status::Details{{"reason", "schema_boundary"},
                                                         {"kind", "change_schema_boundary"},
                                                         {"graph_commit_id", evolved.id},
                                                         {"type_name", "Person"}}));
  // A filter that leaves Person out is not stopped by it.
  ChangeFilter twins;
  twins.types = {"Twin"};
  auto other_types = ListCommitChanges(store(), evolved, CommitChangesRequest{twins, {}, std::nullopt});
  ASSERT_TRUE(other_types.ok()) << other_types.status().ToString();
  EXPECT_TRUE(other_types->changes.empty());

  // The feed delivers what precedes the boundary, then stops at it.
  auto feed = PollChanges(store(), "main", FeedPosition{before->cursor, std::nullopt, std::nullopt}, {});
  ASSERT_TRUE(feed.ok()) << feed.status().ToString();
  ASSERT_EQ(feed->blocks.size(), 1u);
  EXPECT_EQ(feed->blocks[0].cause.graph_commit_id, same_columns.id);
  EXPECT_FALSE(feed->caught_up);
  auto stopped = PollChanges(store(), "main", FeedPosition{feed->cursor, std::nullopt, std::nullopt}, {});
  ASSERT_EQ(stopped.status().code(), ErrorCode::kChangeDiffRefused);
  EXPECT_EQ(stopped.status().details().at("cursor"), *feed->cursor);
  EXPECT_EQ(stopped.status().details().at("type_name"), "Person");
}

TEST(ChangeTokens, RoundTripDeterministicallyAndRefuseEveryMisuse) {
  FeedScope scope{"01GENESIS", "feature.01HZZZZZZZZZZZZZZZZZZZZZZZ", "0123456789abcdef"};
  std::string cursor = EncodeFeedCursor(FeedCursor{scope, "hb1.X"});
  EXPECT_EQ(cursor, EncodeFeedCursor(FeedCursor{scope, "hb1.X"}));
  EXPECT_EQ(cursor.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  auto decoded = DecodeFeedCursor(cursor, scope);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->after, "hb1.X");

  FeedPageToken token{scope, "hb1.S", "hb1.C", "hb1.A", ChangeKey{EntityKind::kEdge, "03", "e1", ChangeOp::kUpdate}};
  auto page = DecodeFeedPageToken(EncodeFeedPageToken(token), scope);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->poll_start, "hb1.S");
  EXPECT_EQ(page->cut, "hb1.C");
  EXPECT_EQ(page->after, "hb1.A");
  EXPECT_EQ(page->inside, token.inside);
  token.inside.reset();
  EXPECT_FALSE(DecodeFeedPageToken(EncodeFeedPageToken(token), scope)->inside.has_value());

  auto message = [](const Status& s) {
    EXPECT_EQ(s.code(), ErrorCode::kChangeCursorRejected);
    return s.message();
  };
  FeedScope main_scope{scope.graph, "main", scope.filter};
  EXPECT_EQ(message(DecodeFeedCursor(cursor, main_scope).status()),
            "change cursor rejected: it was issued for branch 'feature', not 'main'");
  EXPECT_EQ(message(DecodeFeedCursor(cursor, FeedScope{"01OTHER", scope.incarnation, scope.filter}).status()),
            "change cursor rejected: it belongs to another graph");
  EXPECT_EQ(message(DecodeFeedCursor(cursor, FeedScope{scope.graph, scope.incarnation, "x"}).status()),
            "change cursor rejected: it was issued for a different filter");
  EXPECT_EQ(message(DecodeFeedPageToken(cursor, scope).status()),
            "change cursor rejected: a cursor cannot be used as a page token");
  std::string damaged = cursor;
  damaged[damaged.size() / 2] = damaged[damaged.size() / 2] == 'a' ? 'b' : 'a';
  EXPECT_EQ(message(DecodeFeedCursor(damaged, scope).status()),
            "change cursor rejected: not a change cursor or page token (damaged: checksum mismatch)");
  EXPECT_EQ(message(DecodeFeedCursor(cursor + "=", scope).status()),
            "change cursor rejected: not a change cursor or page token (malformed encoding)");
  EXPECT_EQ(message(DecodeFeedCursor("", scope).status()),
            "change cursor rejected: not a change cursor or page token (malformed encoding)");

  CommitPageToken commit_token{"hb1.C", "f", ChangeKey{EntityKind::kNode, "01", "a", ChangeOp::kInsert}};
  std::string commit_text = EncodeCommitPageToken(commit_token);
  auto back = DecodeCommitPageToken(commit_text, "hb1.C", "f");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->after, commit_token.after);
  EXPECT_EQ(message(DecodeCommitPageToken(commit_text, "hb1.D", "f").status()),
            "change cursor rejected: it was issued for another commit");
  EXPECT_EQ(message(DecodeFeedCursor(commit_text, scope).status()),
            "change cursor rejected: a commit changes page token cannot be used as a cursor");
}

TEST(ChangeFilters, FingerprintIsOfTheSetsAndParsingNamesTheChoices) {
  ChangeFilter a, b, c;
  a.types = {"Person", "Knows"};
  a.ops = {ChangeOp::kDelete, ChangeOp::kInsert};
  b.types = {"Knows", "Person", "Knows"};
  b.ops = {ChangeOp::kInsert, ChangeOp::kDelete};
  c.types = {"Person"};
  c.kinds = {EntityKind::kNode};
  EXPECT_EQ(a.Fingerprint(), b.Fingerprint());
  EXPECT_NE(a.Fingerprint(), c.Fingerprint());
  EXPECT_NE(ChangeFilter{}.Fingerprint(), c.Fingerprint());
  EXPECT_EQ(a.Fingerprint().size(), 16u);
  // A type named "ops=" cannot pose as another set.
  ChangeFilter tricky;
  tricky.types = {";ops=6:delete"};
  ChangeFilter deletes;
  deletes.ops = {ChangeOp::kDelete};
  EXPECT_NE(tricky.Fingerprint(), deletes.Fingerprint());

  EXPECT_TRUE(c.AdmitsTable(EntityKind::kNode, "Person"));
  EXPECT_FALSE(c.AdmitsTable(EntityKind::kEdge, "Person"));
  EXPECT_FALSE(c.AdmitsTable(EntityKind::kNode, "Company"));
  EXPECT_EQ(*ParseChangeOp("update"), ChangeOp::kUpdate);
  EXPECT_EQ(ParseChangeOp("upsert").status().message(),
            "unknown change op 'upsert' (expected insert | update | delete)");
  EXPECT_EQ(*ParseEntityKind("edge"), EntityKind::kEdge);
  EXPECT_EQ(ParseEntityKind("vertex").status().message(), "unknown change kind 'vertex' (expected node | edge)");
}

}  // namespace changes_test
}  // namespace omnigraph::exec
