// The serving snapshot a cluster-booted server reads (spec/cluster.md §5,
// §7 scenario 26): the applied graphs with their stored queries and bound
// bundles, read back from the catalog, and every refusal's code.
#include <gtest/gtest.h>

#include "cluster/apply.h"
#include "cluster/catalog.h"
#include "cluster/cluster_root.h"
#include "cluster/records.h"
#include "cluster/serving.h"

namespace omnigraph::cluster::testing {
namespace serving_test {

// A root where F was applied: graph knowledge, query find_person, bundle
// base bound to knowledge.
class ServingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ApplyReport report = RunApply(root_.Options());
    ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  }
  static std::string Describe(const Diagnostics& diagnostics) {
    std::string text;
    for (const Diagnostic& d : diagnostics) text += FormatDiagnostic(d) + "\n";
    return text;
  }
  std::string Refusal() {
    auto snapshot = ReadServingSnapshot(root_.path());
    EXPECT_FALSE(snapshot.ok());
    return snapshot.status().message();
  }
  ClusterRoot root_;
};

TEST_F(ServingTest, TheAppliedRevisionWithItsQueriesAndBindings) {
  auto snapshot = ReadServingSnapshot(root_.path());
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  ASSERT_EQ(snapshot->graphs.size(), 1u);
  const ServingGraph& graph = snapshot->graphs[0];
  EXPECT_EQ(graph.id, "knowledge");
  EXPECT_EQ(graph.root, root_.At("graphs/knowledge.omni"));
  ASSERT_EQ(graph.queries.size(), 1u);
  EXPECT_EQ(graph.queries.at("find_person"), root_.Read("people.gq"));
  EXPECT_EQ(graph.policy_name, "base");
  EXPECT_EQ(graph.policy_source, root_.Read("base.policy.yaml"));
  EXPECT_FALSE(snapshot->server_policy_name.has_value());
  EXPECT_TRUE(snapshot->quarantined.empty());
  // The same through a file:// root.
  auto by_uri = ReadServingSnapshot("file://" + root_.path());
  ASSERT_TRUE(by_uri.ok());
  EXPECT_EQ(by_uri->graphs[0].queries, graph.queries);
}

TEST_F(ServingTest, APendingRecoveryQuarantinesItsGraph) {
  RecoverySidecar sidecar;
  sidecar.operation_id = "01JRECOVERY0000000000000000";
  sidecar.started_at = "2026-12-03T00:00:00Z";
  sidecar.kind = "schema_apply";
  sidecar.graph_id = "knowledge";
  sidecar.graph_uri = root_.At("graphs/knowledge.omni");
  sidecar.desired_schema_digest = "d";
  ASSERT_TRUE(WriteRecoverySidecar(root_.store(), "", sidecar).ok());
  EXPECT_EQ(Refusal(),
            "the cluster at '" + root_.path() + "' is not ready to serve:\n"
            "  [cluster_no_healthy_graphs] __cluster/state.json: every applied graph is quarantined");
}

TEST_F(ServingTest, ATamperedOrMissingPayloadRefusesTheBoot) {
  const std::string digest = root_.Ledger().resources.at("query.knowledge.find_person").digest;
  const std::string key = QueryPayloadKey("", "knowledge", "find_person", digest);
  root_.Write(key, "query find_person() { match { $p: Person } return { $p.name } }\n");
  EXPECT_NE(Refusal().find("[catalog_payload_digest_mismatch] query.knowledge.find_person: "), std::string::npos);
  std::filesystem::remove(root_.At(key));
  EXPECT_NE(Refusal().find("[catalog_payload_missing] query.knowledge.find_person: the applied payload is missing "
                           "from the catalog; run `cluster refresh` then `cluster apply`, and restart"),
            std::string::npos);
}

// What the server needs to apply at boot (§5): the graph's persisted
// external-blob policy and the variable its provider's api_key names.
TEST_F(ServingTest, ExternalBlobPolicyAndProviderSecretReachTheServer) {
  ClusterState state = root_.Ledger();
  StateResource& graph = state.resources.at("graph.knowledge");
  graph.external_blob_policy =
      R"({"mode":"allow","bases":[{"uri":"s3://assets/knowledge/","scope":"server_safe"}]})";
  graph.embedding_provider = "provider.embedding.main";
  StateResource provider{"provider-digest"};
  provider.embedding_profile = R"({"kind":"openai","api_key":"${OPENAI_KEY}"})";
  state.resources["provider.embedding.main"] = provider;
  root_.WriteLedger(state);
  auto snapshot = ReadServingSnapshot(root_.path());
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  ASSERT_EQ(snapshot->graphs.size(), 1u);
  EXPECT_EQ(snapshot->graphs[0].external_blobs.bases,
            (std::vector<ExternalBlobBase>{{"s3://assets/knowledge/", "server_safe"}}));
  EXPECT_EQ(snapshot->graphs[0].embedding_api_key_env, "OPENAI_KEY");

  // A mock provider without a key names no variable.
  state.resources["provider.embedding.main"].embedding_profile = R"({"kind":"mock"})";
  root_.WriteLedger(state);
  snapshot = ReadServingSnapshot(root_.path());
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(snapshot->graphs[0].embedding_api_key_env, std::nullopt);

  // A policy the server cannot read quarantines the graph (here its only one).
  state.resources.at("graph.knowledge").external_blob_policy = R"({"mode":"deny"})";
  root_.WriteLedger(state);
  EXPECT_EQ(Refusal(),
            "the cluster at '" + root_.path() + "' is not ready to serve:\n"
            "  [cluster_no_healthy_graphs] __cluster/state.json: every applied graph is quarantined");
  auto quarantined = ParsePersistedExternalBlobPolicy(R"({"mode":"deny"})");
  EXPECT_EQ(quarantined.status().message(), "invalid persisted external blob policy: mode is not \"allow\"");
}

TEST(ClusterServingTest, NoLedgerOrNoGraphsIsNothingToServe) {
  ClusterRoot root;
  auto missing = ReadServingSnapshot(root.path());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("[cluster_state_missing]"), std::string::npos);
  ClusterState empty;
  empty.state_revision = 1;
  root.WriteLedger(empty);
  auto nothing = ReadServingSnapshot(root.path());
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.status().message(), "the cluster at '" + root.path() +
                                            "' is not ready to serve:\n  [cluster_empty] __cluster/state.json: the "
                                            "cluster has no applied graphs");
}

}  // namespace serving_test
}  // namespace omnigraph::cluster::testing
