// Schema plan and apply through the embedded API (spec/surface.md §1.9,
// §5.2, §6.5; spec/engine.md §1.2, §3.4, §5.2; design/write-path.md "Schema
// apply changes an existing table's columns by metadata-only Lance commits").
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "api/branch_fixture.h"
#include "api/omnigraph.h"
#include "api/wire/report_json.h"
#include "compiler/catalog.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace schema_apply_test {

using testing::RowsOf;

constexpr std::string_view kSchema = R"(node Person {
    name: String @key
    age: I32?
    city: String?
}
node Company { name: String @key }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"alice","age":30,"city":"paris"}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"WorksAt","from":"alice","to":"acme"}
)";

// age renamed to years, email added.
constexpr std::string_view kRenamed = R"(node Person {
    name: String @key
    years: I32? @rename_from("age")
    city: String?
    email: String?
}
node Company { name: String @key }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kQueries = R"(
query people() {
    match { $p: Person }
    return { $p.name, $p.years, $p.city, $p.email }
    order { $p.name }
}
query older($n: I32) {
    match { $p: Person  $p.years > $n }
    return { $p.name }
    order { $p.name }
}
query employers() {
    match { $p: Person  $p worksAt $c }
    return { $p.name, $p.years, $c.name }
}
query set_years($name: String, $years: I32) { update Person set { years: $years } where name = $name }
query add($name: String, $email: String) { insert Person { name: $name, email: $email } }
)";

class SchemaApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(Uri(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    ASSERT_TRUE(graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite).ok());
  }
  std::string Uri() const { return dir_.path() + "/g"; }
  std::string Head() { return graph_->ListCommits()->front().id; }
  std::vector<std::string> Rows(const std::string& name, std::string_view params = "{}", const ReadTarget& t = {}) {
    auto result = graph_->Query(kQueries, "q.gq", name, params, t);
    if (!result.ok()) return {"<error: " + result.status().ToString() + ">"};
    return RowsOf(*result);
  }
  // Every data file of every table (schema apply writes none).
  std::set<std::string> DataFiles() {
    std::set<std::string> files;
    for (const char* kind : {"nodes", "edges"}) {
      for (auto& e : std::filesystem::recursive_directory_iterator(Uri() + "/" + kind)) {
        if (e.path().extension() == ".lance") files.insert(e.path().string());
      }
    }
    return files;
  }
  std::vector<std::string> StepKinds(const compiler::SchemaPlan& plan) {
    std::vector<std::string> kinds;
    for (const auto& s : plan.steps) kinds.push_back(s.kind + " " + s.Describe());
    return kinds;
  }
  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

TEST_F(SchemaApplyTest, PlanListsRenameAndAddAndChangesNothing) {
  std::string head = Head();
  auto plan = graph_->PlanSchema(kRenamed, "v2.pg", false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->plan.supported);
  EXPECT_FALSE(plan->applied);
  // Steps follow the desired declarations (properties in lexical order).
  EXPECT_EQ(StepKinds(plan->plan), (std::vector<std::string>{"add_property add property Person.email",
                                                              "rename_property rename property Person.age -> years"}));
  EXPECT_EQ(wire::SchemaPlanJson("g", *plan).dump(),
            R"({"uri":"g","supported":true,"step_count":2,"steps":[)"
            R"({"kind":"add_property","type_kind":"node","type_name":"Person","property_name":"email"},)"
            R"({"kind":"rename_property","type_kind":"node","type_name":"Person","from":"age","property_name":"years"}]})");
  EXPECT_EQ(Head(), head);
}

TEST_F(SchemaApplyTest, ApplyIsMetadataOnlyAndReadsCarryOver) {
  // The new name does not exist before the apply.
  EXPECT_FALSE(graph_->Mutate(kQueries, "q.gq", "set_years", R"({"name":"bob","years":26})").ok());
  std::set<std::string> files = DataFiles();
  const std::string before = Head();
  auto applied = graph_->ApplySchema(kRenamed, "v2.pg", false);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_TRUE(applied->applied);
  ASSERT_TRUE(applied->commit.has_value());
  EXPECT_EQ(applied->commit->parent_id, before);
  EXPECT_EQ(DataFiles(), files);  // no data file written
  EXPECT_EQ(Rows("people"), (std::vector<std::string>{R"("alice",30,"paris",null)", R"("bob",25,null,null)"}));
  EXPECT_EQ(Rows("older", R"({"n":26})"), (std::vector<std::string>{R"("alice")"}));
  EXPECT_EQ(Rows("employers"), (std::vector<std::string>{R"("alice",30,"acme")"}));
  // Time travel before the apply reads the old values under the new names.
  EXPECT_EQ(Rows("people", "{}", ReadTarget{"main", before}),
            (std::vector<std::string>{R"("alice",30,"paris",null)", R"("bob",25,null,null)"}));
  // So does an export of it: the renamed column, the added one as null.
  auto past = graph_->Export(ReadTarget{"main", before}, {"Person"});
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(*past,
            R"({"type":"Person","data":{"id":"alice","city":"paris","email":null,"name":"alice","years":30}})" "\n"
            R"({"type":"Person","data":{"id":"bob","city":null,"email":null,"name":"bob","years":25}})" "\n");
  EXPECT_EQ(graph_->SchemaSource().value(), kRenamed);
}

TEST_F(SchemaApplyTest, WritesAfterApplyUseTheNewColumns) {
  ASSERT_TRUE(graph_->ApplySchema(kRenamed, "v2.pg", false).ok());
  const std::string applied = Head();
  ASSERT_TRUE(graph_->Mutate(kQueries, "q.gq", "set_years", R"({"name":"bob","years":27})").ok());
  auto added = graph_->Mutate(kQueries, "q.gq", "add", R"({"name":"carol","email":"c@x"})");
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(Rows("people"), (std::vector<std::string>{R"("alice",30,"paris",null)", R"("bob",27,null,null)",
                                                      R"("carol",null,null,"c@x")"}));
  EXPECT_EQ(Rows("people", "{}", ReadTarget{"main", applied}),
            (std::vector<std::string>{R"("alice",30,"paris",null)", R"("bob",25,null,null)"}));
  // A new handle compiles the evolved contract with its accepted ids.
  graph_.reset();
  auto reopened = Omnigraph::Open(Uri());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  graph_ = std::move(reopened).value();
  EXPECT_EQ(Rows("older", R"({"n":26})"), (std::vector<std::string>{R"("alice")", R"("bob")"}));
}

TEST_F(SchemaApplyTest, SameSchemaIsANoOp) {
  const std::string head = Head();
  auto applied = graph_->ApplySchema(kSchema, "v1.pg", false);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_FALSE(applied->applied);
  EXPECT_TRUE(applied->plan.steps.empty());
  EXPECT_EQ(Head(), head);
}

TEST_F(SchemaApplyTest, UnsupportedChangesAreRefusedWithTheirCodes) {
  const std::string head = Head();
  struct Case {
    std::string schema;
    std::string code;
  };
  std::string required = std::string(kSchema);
  required.replace(required.find("city: String?"), 13, "city: String?\n    zip: String");
  std::string retyped = std::string(kSchema);
  retyped.replace(retyped.find("age: I32?"), 9, "age: I64?");
  std::string dropped = std::string(kSchema);
  dropped.replace(dropped.find("    city: String?\n"), 18, "");
  for (const Case& c : {Case{required, "OG-MF-103"}, Case{retyped, "OG-MF-106"}, Case{dropped, "OG-DS-104"}}) {
    auto plan = graph_->PlanSchema(c.schema, "bad.pg", false);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_FALSE(plan->plan.supported) << c.code;
    ASSERT_EQ(plan->plan.steps.size(), 1u) << c.code;
    EXPECT_EQ(plan->plan.steps[0].code, c.code);
    auto applied = graph_->ApplySchema(c.schema, "bad.pg", false);
    ASSERT_FALSE(applied.ok());
    EXPECT_EQ(applied.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(applied.status().message().find("[" + c.code), std::string::npos) << applied.status().message();
    EXPECT_EQ(Head(), head);
  }
}

TEST_F(SchemaApplyTest, DropWithDataLossThenReAddNeverShowsOldValues) {
  std::string dropped = std::string(kSchema);
  dropped.replace(dropped.find("    city: String?\n"), 18, "");
  auto applied = graph_->ApplySchema(dropped, "v2.pg", /*allow_data_loss=*/true);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_EQ(applied->plan.steps.size(), 1u);
  EXPECT_EQ(applied->plan.steps[0].Describe(), "drop property Person.city (hard)");
  auto readded = graph_->ApplySchema(kSchema, "v3.pg", false);
  ASSERT_TRUE(readded.ok()) << readded.status().ToString();
  auto rows = graph_->Query("query q() { match { $p: Person } return { $p.name, $p.city } order { $p.name } }",
                            "q.gq", "", "{}");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(RowsOf(*rows), (std::vector<std::string>{R"("alice",null)", R"("bob",null)"}));
}

TEST_F(SchemaApplyTest, TypesAreAddedRenamedAndDropped) {
  constexpr std::string_view kEvolved = R"(node Person {
    name: String @key
    age: I32?
    city: String?
}
node Org @rename_from("Company") { name: String @key }
node Tag { label: String @key }
edge WorksAt: Person -> Org
)";
  auto applied = graph_->ApplySchema(kEvolved, "v2.pg", false);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(StepKinds(applied->plan),
            (std::vector<std::string>{"rename_type rename node type Company -> Org", "add_type add node type Tag"}));
  auto orgs = graph_->Query("query q() { match { $p: Person  $p worksAt $o } return { $p.name, $o.name } }", "q.gq",
                            "", "{}");
  ASSERT_TRUE(orgs.ok()) << orgs.status().ToString();
  EXPECT_EQ(RowsOf(*orgs), (std::vector<std::string>{R"("alice","acme")"}));
  auto tagged = graph_->Mutate("query t() { insert Tag { label: \"x\" } }", "t.gq", "", "{}");
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  auto tags = graph_->Query("query q() { match { $t: Tag } return { $t.label } }", "q.gq", "", "{}");
  ASSERT_TRUE(tags.ok());
  EXPECT_EQ(RowsOf(*tags), (std::vector<std::string>{R"("x")"}));
  // Dropping the empty-again type is a soft drop; the populated one needs the flag.
  constexpr std::string_view kWithoutTag = R"(node Person {
    name: String @key
    age: I32?
    city: String?
}
node Org @rename_from("Company") { name: String @key }
edge WorksAt: Person -> Org
)";
  auto refused = graph_->ApplySchema(kWithoutTag, "v3.pg", false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("[OG-DS-102"), std::string::npos) << refused.status().message();
  auto dropped = graph_->ApplySchema(kWithoutTag, "v3.pg", true);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_EQ(StepKinds(dropped->plan), (std::vector<std::string>{"drop_type drop node type Tag (hard)"}));
  auto snapshot = graph_->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  std::vector<std::string> types;
  for (const auto& d : snapshot->datasets) types.push_back(d.type_name);
  EXPECT_EQ(types, (std::vector<std::string>{"WorksAt", "Org", "Person"}));
}

TEST_F(SchemaApplyTest, RefusedWhileAnotherBranchIsLive) {
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  const std::string head = Head();
  auto applied = graph_->ApplySchema(kRenamed, "v2.pg", false);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(applied.status().message(), "schema apply requires a graph with only main; found non-main branches: feature");
  EXPECT_EQ(Head(), head);
}

}  // namespace schema_apply_test
}  // namespace omnigraph::api
