// `cluster import` and `cluster refresh` (spec/cluster.md §4.2; §7
// scenarios 11–13, 25): observing graph roots into the ledger, payload
// verification, and what each refuses.
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "cluster/apply.h"
#include "cluster/import.h"
#include "cluster/plan_command.h"
#include "cluster/cluster_root.h"

namespace omnigraph::cluster::testing {
namespace import_test {

// Creates the graph root of `knowledge` from `schema` as a cluster apply would.
void CreateRoot(const ClusterRoot& root, std::string_view schema) {
  auto graph = api::Omnigraph::Init(root.At("graphs/knowledge.omni"), schema, "people.pg");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
}

// §7 scenario 11.
TEST(ClusterImportTest, MissingStateCreatesStateWithGraphObservation) {
  ClusterRoot root;
  CreateRoot(root, kPeopleSchema);
  const ObserveReport report = RunImport(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(report.operation, "import");
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.state_revision, 1u);
  EXPECT_EQ(report.state_observations.state_revision, 1u);
  EXPECT_EQ(report.state_observations.state_cas, "sha256:" + Sha256Hex(root.LedgerBytes()));
  const std::string schema = root.DigestOf("people.pg");
  EXPECT_EQ(state.resources.at("schema.knowledge").digest, schema);
  EXPECT_EQ(state.resources.at("graph.knowledge").digest,
            GraphCompositeDigest(GraphDigestInputs{.graph_id = "knowledge", .schema_digest = schema}));
  EXPECT_EQ(state.resources.size(), 2u);  // queries and policies are never invented
  const Observation& observation = state.observations.at("graph.knowledge");
  EXPECT_EQ(observation.kind, "graph");
  EXPECT_EQ(observation.exists, true);
  EXPECT_EQ(observation.schema_digest, schema);
  EXPECT_EQ(observation.desired_schema_digest, schema);
  EXPECT_EQ(observation.schema_matches_desired, true);
  EXPECT_EQ(observation.graph_uri, root.At("graphs/knowledge.omni"));
  EXPECT_EQ(observation.error, std::nullopt);
  EXPECT_EQ(state.resource_statuses.at("graph.knowledge").status, "applied");
  EXPECT_EQ(state.resource_statuses.at("schema.knowledge").status, "applied");
  // §8 Q4: import stores the desired config digest before anything is applied.
  EXPECT_EQ(state.config_digest, LoadDesiredCluster(root.path()).desired->config_digest);
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));

  const ObserveReport again = RunImport(root.Options());
  EXPECT_EQ(Codes(again.diagnostics), std::vector<std::string>{"state_already_exists"});
}

// §7 scenario 12.
TEST(ClusterImportTest, GraphOpenErrorDoesNotCreateState) {
  ClusterRoot root;
  std::filesystem::create_directories(root.At("graphs/knowledge.omni"));
  const ObserveReport report = RunImport(root.Options());
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(Codes(report.diagnostics), std::vector<std::string>{"graph_observation_error"});
  EXPECT_EQ(report.diagnostics[0].message, "1 graph observation(s) failed");
  EXPECT_FALSE(root.Exists("__cluster/state.json"));
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));
  EXPECT_EQ(report.resource_statuses.at("graph.knowledge").status, "error");
  EXPECT_EQ(report.resource_statuses.at("graph.knowledge").conditions,
            std::vector<std::string>{"graph_observation_error"});
}

TEST(ClusterImportTest, MissingRootRecordsGraphMissing) {
  ClusterRoot root;
  const ObserveReport report = RunImport(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  const ClusterState state = root.Ledger();
  EXPECT_TRUE(state.resources.empty());
  EXPECT_EQ(state.observations.at("graph.knowledge").exists, false);
  EXPECT_EQ(state.observations.at("graph.knowledge").error, "derived graph root is missing");
  EXPECT_EQ(state.resource_statuses.at("graph.knowledge"), (ResourceStatus{"drifted", {"graph_missing"}, {}}));
  EXPECT_EQ(state.resource_statuses.at("schema.knowledge"), (ResourceStatus{"drifted", {"graph_missing"}, {}}));
}

TEST(ClusterRefreshTest, RequiresStateAndAlwaysBumpsTheRevision) {
  ClusterRoot root;
  const ObserveReport missing = RunRefresh(root.Options());
  ASSERT_EQ(Codes(missing.diagnostics), std::vector<std::string>{"state_missing"});
  EXPECT_EQ(missing.diagnostics[0].message,
            "refresh requires an existing state.json; run `cluster import` to bootstrap state");
  ASSERT_TRUE(RunImport(root.Options()).ok);
  EXPECT_EQ(RunRefresh(root.Options()).state_observations.state_revision, 2u);
  EXPECT_EQ(RunRefresh(root.Options()).state_observations.state_revision, 3u);
  EXPECT_EQ(root.Ledger().state_revision, 3u);
}

// §7 scenario 13.
TEST(ClusterRefreshTest, MissingDerivedGraphRootMarksDriftedAndPlansCreates) {
  ClusterRoot root;
  root.Seed();
  const ObserveReport refreshed = RunRefresh(root.Options());
  ASSERT_TRUE(refreshed.ok) << Describe(refreshed.diagnostics);
  EXPECT_EQ(refreshed.resource_statuses.at("graph.knowledge").status, "drifted");
  EXPECT_EQ(refreshed.resource_statuses.at("schema.knowledge").conditions, std::vector<std::string>{"graph_missing"});
  EXPECT_EQ(root.Ledger().resources.count("graph.knowledge"), 0u);

  const PlanReport plan = RunPlan(root.Options());
  ASSERT_TRUE(plan.ok) << Describe(plan.diagnostics);
  std::vector<std::string> creates;
  for (const PlanChange& change : plan.plan.changes) {
    EXPECT_EQ(change.operation, ChangeOperation::kCreate);
    creates.push_back(change.resource);
  }
  EXPECT_EQ(creates, (std::vector<std::string>{"graph.knowledge", "policy.base", "query.knowledge.find_person",
                                               "schema.knowledge"}));
  const ApplyReport applied = RunApply(root.Options());
  ASSERT_TRUE(applied.ok) << Describe(applied.diagnostics);
  EXPECT_TRUE(applied.converged);
  EXPECT_TRUE(api::Omnigraph::Open(root.At("graphs/knowledge.omni")).ok());
}

// §7 scenario 25.
TEST(ClusterRefreshTest, PayloadDriftSelfHealsThroughRefreshPlanApply) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  const std::string query_digest = root.DigestOf("people.gq");
  const std::string blob = "__cluster/resources/query/knowledge/find_person/" + query_digest + ".gq";
  ASSERT_EQ(root.Read(blob), kFindPerson);
  std::filesystem::remove(root.At(blob));

  const ObserveReport refreshed = RunRefresh(root.Options());
  EXPECT_TRUE(refreshed.ok) << Describe(refreshed.diagnostics);
  EXPECT_TRUE(HasCode(refreshed.diagnostics, "catalog_payload_missing"));
  EXPECT_EQ(root.Ledger().resources.count("query.knowledge.find_person"), 0u);
  EXPECT_EQ(refreshed.resource_statuses.at("query.knowledge.find_person"),
            (ResourceStatus{"drifted", {"payload_missing"}, {}}));

  const PlanReport plan = RunPlan(root.Options());
  bool create = false;
  for (const PlanChange& change : plan.plan.changes) {
    if (change.resource == "query.knowledge.find_person") create = change.operation == ChangeOperation::kCreate;
  }
  EXPECT_TRUE(create);
  const ApplyReport applied = RunApply(root.Options());
  ASSERT_TRUE(applied.ok) << Describe(applied.diagnostics);
  EXPECT_TRUE(applied.converged);
  EXPECT_EQ(root.Read(blob), kFindPerson);
}

TEST(ClusterRefreshTest, LedgerWhoseGraphDigestIsNotBoundIsRefused) {
  ClusterRoot root;
  ClusterState state = root.Seed();
  state.resources["graph.knowledge"].external_blob_policy =
      R"({"mode":"allow","bases":[{"uri":"s3://b/p/","scope":"server_safe"}]})";
  root.WriteLedger(state);
  const std::string before = root.LedgerBytes();
  const ObserveReport report = RunRefresh(root.Options());
  ASSERT_EQ(Codes(report.diagnostics), std::vector<std::string>{"external_blob_policy_digest_mismatch"});
  EXPECT_EQ(report.diagnostics[0].message,
            "the applied graph resource metadata is not bound by its composite digest; restore the cluster state "
            "ledger from a trusted copy before retrying");
  EXPECT_EQ(root.LedgerBytes(), before);
  EXPECT_EQ(Codes(RunApply(root.Options()).diagnostics),
            std::vector<std::string>{"external_blob_policy_digest_mismatch"});
  EXPECT_EQ(root.LedgerBytes(), before);
}

}  // namespace import_test
}  // namespace omnigraph::cluster::testing
