// The hidden, deprecated `ingest` verb (spec/surface.md §5.2 `ingest`,
// §4.6): the loader-compatible syntax, defaults `--mode merge` and
// `--from main`, a deprecation warning on stderr, and its human and --json
// outputs, exactly.
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace ingest_cli_test {

using nlohmann::json;
using testing::CliRun;

constexpr std::string_view kSchema =
    "node Person {\n  name: String @key\n  age: I32?\n}\n"
    "node Company {\n  name: String @key\n}\n"
    "edge Knows: Person -> Person\n"
    "edge WorksAt: Person -> Company\n";

// Pretty-printed records, an extra member, a wrong-kind age (NULL).
constexpr std::string_view kRecords =
    "{\n  \"type\": \"Person\",\n  \"data\": {\"name\": \"alice\", \"age\": \"30\"}\n}\n"
    "{\"type\":\"Person\",\"data\":{\"name\":\"bob\",\"age\":25},\"note\":\"x\"} "
    "{\"type\":\"Company\",\"data\":{\"name\":\"acme\"}}\n"
    "{\"edge\":\"Knows\",\"from\":\"alice\",\"to\":\"bob\"}\n"
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\"}\n";

constexpr std::string_view kWarning = "warning: `ingest` is deprecated; use `load` (strict NDJSON)\n";

class IngestCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("s.pg", kSchema);
    Write("records.json", kRecords);
    CliRun init = Run("init --schema s.pg g");
    ASSERT_EQ(init.rc, 0) << init.err;
  }
};

TEST_F(IngestCliTest, DefaultsToMergeOnMainAndWarns) {
  CliRun ingested = Run("ingest g --data records.json");
  ASSERT_EQ(ingested.rc, 0) << ingested.err;
  EXPECT_EQ(ingested.err, std::string(kWarning) + "omnigraph ingest → g (direct, local)\n");
  EXPECT_EQ(ingested.out,
            "ingested 5 entities from g into branch main from main with merge (branch exists)\n"
            "  node Company: 1\n"
            "  node Person: 2\n"
            "  edge Knows: 1\n"
            "  edge WorksAt: 1\n");
  // Merge: the same records again replace the keyed nodes.
  CliRun again = Run("ingest g --data records.json --quiet");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(again.err, kWarning);
  CliRun exported = Run("export g --type Person");
  EXPECT_EQ(exported.out,
            "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":null,\"name\":\"alice\"}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n");
}

TEST_F(IngestCliTest, JsonOutputAndBranchCreatedFromMain) {
  CliRun ingested = Run("ingest g --data records.json --branch feature --json --quiet");
  ASSERT_EQ(ingested.rc, 0) << ingested.err;
  EXPECT_EQ(ingested.err, kWarning);
  json out = json::parse(ingested.out);
  EXPECT_EQ(out["uri"], "g");
  EXPECT_EQ(out["branch"], "feature");
  EXPECT_EQ(out["mode"], "merge");
  EXPECT_EQ(out["branch_created"], true);
  EXPECT_EQ(out["base_branch"], "main");
  EXPECT_EQ(out["nodes"], json::parse(R"([{"name":"Company","entities_loaded":1},{"name":"Person","entities_loaded":2}])"));
  EXPECT_EQ(out["edges"], json::parse(R"([{"name":"Knows","entities_loaded":1},{"name":"WorksAt","entities_loaded":1}])"));
  EXPECT_EQ(out["total_entities"], 5);
  EXPECT_EQ(out["commit"]["graph_branch"], "feature");
  EXPECT_EQ(Run("branch list --uri g").out, "feature\nmain\n");
  // --from names another base; --mode another mode.
  CliRun appended = Run("ingest g --data records.json --branch feature --from main --mode append --quiet");
  EXPECT_EQ(appended.rc, 1);
  EXPECT_EQ(appended.err, std::string(kWarning) + "error: record 3: node type 'Company' already has this id: 'acme'\n");
  CliRun overwritten = Run("ingest g --data records.json --branch other --from feature --mode overwrite --quiet");
  ASSERT_EQ(overwritten.rc, 0) << overwritten.err;
  EXPECT_EQ(overwritten.out.substr(0, overwritten.out.find('\n')),
            "ingested 5 entities from g into branch other from feature with overwrite (branch created)");
}

TEST_F(IngestCliTest, ErrorsCiteRecordsAndTheVerbIsHidden) {
  Write("bad.json", "{\"type\":\"Person\",\"data\":{\"name\":\"x\"}}\n{\n  \"edge\": \"Knows\",\n  \"to\": \"x\"\n}\n");
  CliRun bad = Run("ingest g --data bad.json --quiet");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.err, std::string(kWarning) + "error: record 2: edge missing 'from'\n");
  // The strict `load` refuses the pretty-printed records.
  CliRun strict = Run("load g --data records.json --mode merge --quiet");
  EXPECT_NE(strict.rc, 0);
  EXPECT_EQ(strict.err.rfind("error: records.json:1: invalid JSON at column ", 0), 0u) << strict.err;
  CliRun usage = Run("ingest g --data records.json --mode upsert");
  EXPECT_EQ(usage.rc, 2);
  CliRun help = Run("--help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.find("ingest"), std::string::npos) << help.out;
}

}  // namespace ingest_cli_test
}  // namespace omnigraph::cli
