// `queries list|validate [--config DIR] [--json]` (surface §5.2, §5.4;
// cluster.md §1.3): the stored queries of a cluster config directory,
// discovered and checked against their graphs' schemas, with exact output
// and exit codes.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "util/sha256.h"

namespace omnigraph::testing {
namespace queries_cli_test {

constexpr std::string_view kSchema = "node Person {\n    name: String @key\n    age: I32?\n}\n";
constexpr std::string_view kQueries =
    "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name }\n}\n"
    "query adults() {\n    match { $p: Person  $p.age > 17 }\n    return { $p.name }\n}\n";
constexpr std::string_view kBroken = "query bad() {\n    match { $p: Person }\n    return { $p.nope }\n}\n";
constexpr std::string_view kCluster =
    "version: 1\n"
    "graphs:\n"
    "  knowledge:\n"
    "    schema: people.pg\n"
    "    queries: queries/\n"
    "  empty:\n"
    "    schema: people.pg\n";

class QueriesCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "cfg" / "queries");
    Write("cfg/people.pg", kSchema);
    Write("cfg/queries/people.gq", kQueries);
    Write("cfg/cluster.yaml", kCluster);
  }
};

TEST_F(QueriesCliTest, ListPrintsEveryQueryByGraphThenName) {
  CliRun list = Run("queries list --config cfg");
  EXPECT_EQ(list.rc, 0) << list.err;
  EXPECT_EQ(list.out, "knowledge\tadults\tqueries/people.gq\nknowledge\tfind_person\tqueries/people.gq\n");
  EXPECT_EQ(list.err, "");
  // --config defaults to the current directory.
  EXPECT_EQ(RunCli(dir_.path() + "/cfg", "queries list").out, list.out);
}

TEST_F(QueriesCliTest, ListJsonNamesFilePathAndDigest) {
  CliRun list = Run("queries list --config cfg --json");
  ASSERT_EQ(list.rc, 0) << list.err;
  const std::string digest = Sha256Hex(kQueries);
  const nlohmann::ordered_json expected = {
      {"ok", true},
      {"config_dir", "cfg"},
      {"queries",
       {{{"graph", "knowledge"}, {"name", "adults"}, {"file", "queries/people.gq"}, {"path", "cfg/queries/people.gq"},
         {"digest", digest}},
        {{"graph", "knowledge"}, {"name", "find_person"}, {"file", "queries/people.gq"},
         {"path", "cfg/queries/people.gq"}, {"digest", digest}}}},
      {"diagnostics", nlohmann::ordered_json::array()}};
  EXPECT_EQ(list.out, expected.dump(2) + "\n");
}

TEST_F(QueriesCliTest, ValidateCountsTheQueriesOfAValidConfig) {
  CliRun validate = Run("queries validate --config cfg");
  EXPECT_EQ(validate.rc, 0) << validate.err;
  EXPECT_EQ(validate.out, "queries valid: 2 queries across 2 graph(s)\n");
  Write("cfg/queries/people.gq", kQueries.substr(0, kQueries.find("query adults")));
  EXPECT_EQ(Run("queries validate --config cfg").out, "queries valid: 1 query across 2 graph(s)\n");
}

TEST_F(QueriesCliTest, ValidateReportsAQueryThatDoesNotTypeCheck) {
  Write("cfg/queries/zbad.gq", kBroken);
  const std::string diagnostic =
      "ERROR query_typecheck_error graphs.knowledge.queries.bad: type error: T6: type `Person` has no property "
      "`nope`\n";
  CliRun validate = Run("queries validate --config cfg");
  EXPECT_EQ(validate.rc, 1);
  EXPECT_EQ(validate.out, "queries invalid\n" + diagnostic);
  CliRun json = Run("queries validate --config cfg --json");
  EXPECT_EQ(json.rc, 1);
  const nlohmann::json out = nlohmann::json::parse(json.out);
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["queries"].size(), 3u);
  EXPECT_EQ(out["diagnostics"], nlohmann::json::parse(R"([{"code":"query_typecheck_error","severity":"error",
      "path":"graphs.knowledge.queries.bad","message":"type error: T6: type `Person` has no property `nope`"}])"));
  // `list` still lists it, and reports the diagnostic on stderr.
  CliRun list = Run("queries list --config cfg");
  EXPECT_EQ(list.rc, 0);
  EXPECT_EQ(list.out,
            "knowledge\tadults\tqueries/people.gq\nknowledge\tbad\tqueries/zbad.gq\n"
            "knowledge\tfind_person\tqueries/people.gq\n");
  EXPECT_EQ(list.err, diagnostic);
}

TEST_F(QueriesCliTest, DiagnosticsOutsideTheQueriesDoNotFailValidate) {
  Write("cfg/cluster.yaml", std::string(kCluster) + "policies:\n  base:\n    file: missing.yaml\n"
                                                    "    applies_to: [knowledge]\n");
  CliRun validate = Run("queries validate --config cfg");
  EXPECT_EQ(validate.rc, 0) << validate.out;
  EXPECT_EQ(validate.out, "queries valid: 2 queries across 2 graph(s)\n");
}

TEST_F(QueriesCliTest, AConfigThatCannotBeLoadedFailsBoth) {
  const std::string diagnostic =
      "ERROR config_dir_not_found nowhere: `--config` must point at a directory containing cluster.yaml\n";
  CliRun validate = Run("queries validate --config nowhere");
  EXPECT_EQ(validate.rc, 1);
  EXPECT_EQ(validate.out, "queries invalid\n" + diagnostic);
  CliRun list = Run("queries list --config nowhere");
  EXPECT_EQ(list.rc, 1);
  EXPECT_EQ(list.out, "");
  EXPECT_EQ(list.err, diagnostic);
  CliRun store = Run("queries list --config cfg --store g");
  EXPECT_EQ(store.rc, 2);
  EXPECT_EQ(store.err, "error: `queries list` addresses no graph; drop --store\n");
}

}  // namespace queries_cli_test
}  // namespace omnigraph::testing
