// The cluster configs the shared corpus and cases ship (the industry-intel
// cookbook and the server cases), validated with their expected outcome.
// Configs are found by walking ../shared, so the checks run whenever that
// folder is present, and a new config without an expectation fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cluster/desired.h"
#include "cluster/digest.h"
#include "support/shared_files.h"

namespace omnigraph::cluster {
namespace shared_configs_test {

namespace fs = std::filesystem;

// What validating one shared config must give: ok, and its diagnostics
// (load and validate-only) as "<code> <path>" in order.
struct Expected {
  size_t resources = 0;
  size_t dependencies = 0;
  std::vector<std::string> diagnostics;
};

const std::map<std::string, Expected>& ExpectedOutcomes() {
  static const std::map<std::string, Expected> outcomes = {
      // 73 stored queries + graph + schema + 2 policies; each query depends
      // on graph and schema, plus schema->graph and policy intel->graph.
      {"corpus/industry-intel/cluster.yaml",
       {77, 148, {"external_blob_ingress_default_deny graphs.spike.external_blobs"}}},
      {"cases/server/B29/cluster.yaml", {3, 2, {"external_blob_ingress_default_deny graphs.g1.external_blobs"}}},
  };
  return outcomes;
}

std::vector<fs::path> SharedClusterConfigs(const fs::path& shared) {
  std::vector<fs::path> configs;
  for (const fs::path& root : {shared / "corpus", shared / "cases" / "server"}) {
    for (const fs::path& file : omnigraph::testing::FilesUnder(root, ".yaml")) {
      if (file.filename() == "cluster.yaml") configs.push_back(file);
    }
  }
  return configs;
}

TEST(ClusterSharedConfigs, EveryShippedConfigValidatesAsExpected) {
  const fs::path shared = OMNIGRAPH_SHARED_DIR;
  size_t checked = 0;
  for (const fs::path& file : SharedClusterConfigs(shared)) {
    const std::string key = fs::relative(file, shared).string();
    const auto expected = ExpectedOutcomes().find(key);
    ASSERT_NE(expected, ExpectedOutcomes().end()) << "no expected outcome for " << key;
    const LoadOutcome outcome = LoadDesiredCluster(file.parent_path().string());
    ASSERT_TRUE(outcome.desired) << key;
    Diagnostics diagnostics = outcome.diagnostics;
    if (outcome.ok()) {
      const Diagnostics warnings = ValidateOnlyWarnings(*outcome.desired);
      diagnostics.insert(diagnostics.end(), warnings.begin(), warnings.end());
    }
    std::vector<std::string> found;
    for (const Diagnostic& diagnostic : diagnostics) found.push_back(diagnostic.code + " " + diagnostic.path);
    EXPECT_TRUE(outcome.ok()) << key;
    EXPECT_EQ(found, expected->second.diagnostics) << key;
    EXPECT_EQ(outcome.desired->resources.size(), expected->second.resources) << key;
    EXPECT_EQ(outcome.desired->dependencies.size(), expected->second.dependencies) << key;
    ++checked;
  }
  std::cout << "[cluster configs] checked " << checked << " under " << shared.string() << "\n";
}

TEST(ClusterSharedConfigs, CookbookDigestsAreTheFileHashes) {
  const fs::path cookbook = fs::path(OMNIGRAPH_SHARED_DIR) / "corpus" / "industry-intel";
  if (!fs::exists(cookbook / "cluster.yaml")) return;  // only where the shared folder is present
  const LoadOutcome outcome = LoadDesiredCluster(cookbook.string());
  ASSERT_TRUE(outcome.ok());
  const auto& digests = outcome.desired->resource_digests;
  EXPECT_EQ(digests.at("schema.spike"), Sha256Hex(omnigraph::testing::ReadFileText(cookbook / "schema.pg")));
  EXPECT_EQ(digests.at("policy.server"),
            Sha256Hex(omnigraph::testing::ReadFileText(cookbook / "policies" / "server.policy.yaml")));
  EXPECT_EQ(outcome.desired->policy_bindings.at("policy.server"), std::vector<std::string>{"cluster"});
  EXPECT_EQ(outcome.desired->policy_bindings.at("policy.intel"), std::vector<std::string>{"graph.spike"});
  // Every query of a file shares the whole file's digest.
  const std::string signals = Sha256Hex(omnigraph::testing::ReadFileText(cookbook / "queries" / "signals.gq"));
  EXPECT_EQ(digests.at("query.spike.get_signal"), signals);
  EXPECT_EQ(digests.at("query.spike.recent_signals"), signals);
  EXPECT_EQ(outcome.desired->graphs.at(0).query_files.at("get_signal"), "queries/signals.gq");
}

}  // namespace shared_configs_test
}  // namespace omnigraph::cluster
