// `omnigraph cluster validate` through the CLI (spec/cluster.md §4.0,
// §4.1): human and JSON output, exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::testing {
namespace cluster_cli_test {

constexpr std::string_view kSchema = "node Person {\n    name: String @key\n    age: I32?\n}\n";
constexpr std::string_view kQuery =
    "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name }\n}\n";
constexpr std::string_view kCluster =
    "version: 1\n"
    "graphs:\n"
    "  knowledge:\n"
    "    schema: people.pg\n"
    "    queries: queries/\n"
    "policies:\n"
    "  base:\n"
    "    file: base.policy.yaml\n"
    "    applies_to: [knowledge]\n";

class ClusterCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    // Write does not create directories.
    std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "cfg" / "queries");
    Write("cfg/people.pg", kSchema);
    Write("cfg/base.policy.yaml", "version: 1\nrules: []\n");
    Write("cfg/queries/people.gq", kQuery);
    Write("cfg/cluster.yaml", kCluster);
  }
};

TEST_F(ClusterCliTest, ValidatePrintsSummaryAndWarnings) {
  CliRun run = Run("cluster validate --config cfg");
  EXPECT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out,
            "cluster config valid: 4 resource(s), 4 dependency edge(s)\n"
            "WARN  external_blob_ingress_default_deny graphs.knowledge.external_blobs: graph `knowledge` declares no "
            "external_blobs allow-list, so external blob ingress is denied\n");
}

TEST_F(ClusterCliTest, ValidateDefaultsToTheCurrentDirectory) {
  CliRun run = RunCli(dir_.path() + "/cfg", "cluster validate");
  EXPECT_EQ(run.rc, 0) << run.err;
  EXPECT_EQ(run.out.rfind("cluster config valid: 4 resource(s)", 0), 0u) << run.out;
}

TEST_F(ClusterCliTest, ValidateJsonShape) {
  CliRun run = Run("cluster validate --config cfg --json");
  ASSERT_EQ(run.rc, 0) << run.err;
  const nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["ok"], true);
  EXPECT_EQ(out["config_dir"], "cfg");
  EXPECT_EQ(out["config_file"], "cfg/cluster.yaml");
  EXPECT_EQ(out["resource_digests"].size(), 4u);
  ASSERT_EQ(out["resources"].size(), 4u);
  EXPECT_EQ(out["resources"][0]["address"], "graph.knowledge");
  EXPECT_FALSE(out["resources"][0].contains("path"));
  EXPECT_EQ(out["resources"][2]["address"], "query.knowledge.find_person");
  EXPECT_EQ(out["resources"][2]["path"], "cfg/queries/people.gq");
  EXPECT_EQ(out["dependencies"][0], (nlohmann::json{{"from", "policy.base"}, {"to", "graph.knowledge"}}));
  ASSERT_EQ(out["diagnostics"].size(), 1u);
  EXPECT_EQ(out["diagnostics"][0]["code"], "external_blob_ingress_default_deny");
  EXPECT_EQ(out["diagnostics"][0]["severity"], "warning");
  // §4.1's key order: ok first, diagnostics last.
  EXPECT_EQ(run.out.find("\"ok\""), run.out.find('"'));
  EXPECT_LT(run.out.find("\"dependencies\""), run.out.find("\"diagnostics\""));
}

TEST_F(ClusterCliTest, InvalidConfigExitsOneAndStillPrints) {
  Write("cfg/cluster.yaml", "version: 1\nui: {}\n");
  CliRun run = Run("cluster validate --config cfg");
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.out,
            "cluster config invalid\n"
            "ERROR future_phase_field ui: `ui` is reserved for a later cluster-control phase\n");
  CliRun json = Run("cluster validate --config cfg --json");
  EXPECT_EQ(json.rc, 1);
  const nlohmann::json out = nlohmann::json::parse(json.out);
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["resources"], nlohmann::json::array());
  EXPECT_EQ(out["diagnostics"][0]["severity"], "error");
}

TEST_F(ClusterCliTest, MissingConfigDirIsAnErrorNotAUsageError) {
  CliRun run = Run("cluster validate --config absent");
  EXPECT_EQ(run.rc, 1);
  EXPECT_EQ(run.out,
            "cluster config invalid\n"
            "ERROR config_dir_not_found absent: `--config` must point at a directory containing cluster.yaml\n");
}

TEST_F(ClusterCliTest, UsageErrors) {
  EXPECT_EQ(Run("cluster").rc, 2);
  EXPECT_EQ(Run("cluster validate --config cfg --as someone").rc, 2);
  EXPECT_EQ(Run("cluster validate --config cfg --store g").rc, 2);
}

}  // namespace cluster_cli_test
}  // namespace omnigraph::testing
