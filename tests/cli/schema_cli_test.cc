// `schema plan` and `schema apply` through the CLI (spec/surface.md §5.2):
// human output, exit codes, and refusals that change nothing.
#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace omnigraph::testing {
namespace schema_cli_test {

constexpr std::string_view kV1 = "node Person {\n    name: String @key\n    age: I32?\n}\n";
constexpr std::string_view kV2 =
    "node Person {\n    name: String @key\n    years: I32? @rename_from(\"age\")\n    email: String?\n}\n";
constexpr std::string_view kRequired = "node Person {\n    name: String @key\n    age: I32?\n    zip: String\n}\n";

class SchemaCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    Write("v1.pg", kV1);
    Write("v2.pg", kV2);
    Write("required.pg", kRequired);
    Write("data.jsonl", R"({"type":"Person","data":{"name":"alice","age":30}})" "\n");
    InitGraph("v1.pg", "data.jsonl", "overwrite");
  }
};

TEST_F(SchemaCliTest, PlanPrintsStepsAndChangesNothing) {
  const std::string head = Head();
  CliRun plan = Run("schema plan g --schema v2.pg");
  EXPECT_EQ(plan.rc, 0) << plan.err;
  EXPECT_EQ(plan.out,
            "schema plan for g\nsupported: yes\n- add property Person.email\n- rename property Person.age -> years\n");
  EXPECT_EQ(Head(), head);
  CliRun same = Run("schema plan g --schema v1.pg");
  EXPECT_EQ(same.out, "schema plan for g\nsupported: yes\nno schema changes\n");
}

TEST_F(SchemaCliTest, ApplyPublishesOneCommitAndReadsUseTheNewNames) {
  const std::string head = Head();
  CliRun applied = Run("schema apply g --schema v2.pg");
  ASSERT_EQ(applied.rc, 0) << applied.err;
  EXPECT_EQ(applied.out,
            "schema apply for g\nsupported: yes\napplied: yes\ngraph_manifest_version: 3\n"
            "- add property Person.email\n- rename property Person.age -> years\n");
  EXPECT_EQ(applied.err, "omnigraph schema apply → g (direct, local)\n");  // §5.1 write target
  EXPECT_NE(Head(), head);
  CliRun rows = Run("query --store g -e 'query q() { match { $p: Person } return { $p.name, $p.years } }' --format jsonl");
  ASSERT_EQ(rows.rc, 0) << rows.err;
  EXPECT_NE(rows.out.find(R"({"p.name":"alice","p.years":30})"), std::string::npos) << rows.out;
  CliRun again = Run("schema apply g --schema v2.pg --json");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_NE(again.out.find(R"("applied": false)"), std::string::npos) << again.out;
}

TEST_F(SchemaCliTest, UnsupportedChangeExitsOneWithItsCode) {
  const std::string head = Head();
  CliRun plan = Run("schema plan g --schema required.pg");
  EXPECT_EQ(plan.rc, 0) << plan.err;
  EXPECT_NE(plan.out.find("supported: no\n- unsupported change on Person.zip [OG-MF-103, validated]: "),
            std::string::npos)
      << plan.out;
  CliRun applied = Run("schema apply g --schema required.pg");
  EXPECT_EQ(applied.rc, 1);
  EXPECT_NE(applied.err.find("schema change is not supported: unsupported change on Person.zip [OG-MF-103"),
            std::string::npos)
      << applied.err;
  EXPECT_EQ(Head(), head);
  CliRun missing = Run("schema apply g --schema nope.pg");
  EXPECT_NE(missing.rc, 0);
  EXPECT_EQ(Head(), head);
}

}  // namespace schema_cli_test
}  // namespace omnigraph::testing
