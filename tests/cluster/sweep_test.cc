// The recovery sweep (spec/cluster.md §6.2, first subset of §0.1; §7
// scenario 24): each row of the table, driven by a sidecar written as an
// interrupted apply would have left it.
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "cluster/apply.h"
#include "cluster/import.h"
#include "cluster/plan.h"
#include "cluster/cluster_root.h"

namespace omnigraph::cluster::testing {
namespace sweep_test {

constexpr std::string_view kOtherSchema = "node Person {\n    name: String @key\n}\n";

RecoverySidecar Sidecar(const ClusterRoot& root, std::string kind, std::string desired_schema_digest) {
  RecoverySidecar sidecar;
  sidecar.operation_id = "01J00000000000000000000001";
  sidecar.started_at = "2026-12-01T00:00:00Z";
  sidecar.actor = "crashed";
  sidecar.kind = std::move(kind);
  sidecar.graph_id = "knowledge";
  sidecar.graph_uri = root.At("graphs/knowledge.omni");
  sidecar.desired_schema_digest = std::move(desired_schema_digest);
  EXPECT_TRUE(WriteRecoverySidecar(root.store(), "", sidecar).ok());
  return sidecar;
}

void InitRoot(const ClusterRoot& root, std::string_view schema) {
  ASSERT_TRUE(api::Omnigraph::Init(root.At("graphs/knowledge.omni"), schema, "people.pg").ok());
}

// create | root absent → retire.
TEST(ClusterSweepTest, CreateWithoutRootIsRetired) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  Sidecar(root, "graph_create", root.DigestOf("people.pg"));
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(report.converged);
  EXPECT_TRUE(root.Sidecars().empty());
  EXPECT_TRUE(root.Ledger().recovery_records.empty());
}

// create | opens, live = desired → roll forward (record, warning); retire.
TEST(ClusterSweepTest, CreateWhoseLiveSchemaIsTheIntendedOneRollsForward) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  InitRoot(root, kPeopleSchema);
  Sidecar(root, "graph_create", root.DigestOf("people.pg"));
  // refresh takes no --as: the record names the interrupted run's actor.
  const ObserveReport report = RunRefresh(root.Options(std::nullopt));
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(HasCode(report.diagnostics, "cluster_recovery_rolled_forward"));
  EXPECT_TRUE(root.Sidecars().empty());
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.recovery_records.at("01J00000000000000000000001"),
            (RecoveryRecord{"graph_create", "knowledge", "rolled_forward",
                            state.recovery_records.at("01J00000000000000000000001").recovered_at,
                            std::string("crashed")}));
  EXPECT_EQ(state.resources.at("schema.knowledge").digest, root.DigestOf("people.pg"));
}

// create | opens, other schema → drifted / actual_applied_state_pending,
// kept; apply blocks the graph's create while it is pending.
TEST(ClusterSweepTest, ApplyBlocksCreateWhileRecoveryPending) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  std::filesystem::remove_all(root.At("graphs"));
  InitRoot(root, kOtherSchema);
  // Import saw no root; the sidecar says a create of the desired schema
  // was under way, yet the root holds a third schema.
  ClusterState state = root.Ledger();
  state.resources.clear();
  root.WriteLedger(state);
  Sidecar(root, "graph_create", root.DigestOf("people.pg"));
  const ApplyReport report = RunApply(root.Options());
  EXPECT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(HasCode(report.diagnostics, "cluster_recovery_pending"));
  ASSERT_EQ(report.changes.front().resource, "graph.knowledge");
  EXPECT_EQ(report.changes.front().disposition, Disposition::kBlocked);
  EXPECT_EQ(report.changes.front().reason, "cluster_recovery_pending");
  EXPECT_EQ(root.Sidecars().size(), 1u);
  EXPECT_EQ(root.Ledger().resource_statuses.at("graph.knowledge"),
            (ResourceStatus{"drifted", {"actual_applied_state_pending"}, {}}));
  EXPECT_FALSE(report.converged);
}

// create | exists, won't open → error graph_create_incomplete; kept.
TEST(ClusterSweepTest, CreateWhoseRootDoesNotOpenIsAnError) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  root.Write("graphs/knowledge.omni/junk", "x");
  Sidecar(root, "graph_create", root.DigestOf("people.pg"));
  const ApplyReport report = RunApply(root.Options());
  EXPECT_FALSE(report.ok);
  const Diagnostic* incomplete = FindCode(report.diagnostics, "graph_create_incomplete");
  ASSERT_NE(incomplete, nullptr) << Describe(report.diagnostics);
  EXPECT_EQ(incomplete->message.rfind("graph root '" + root.At("graphs/knowledge.omni") + "' exists but cannot be "
                                      "opened (", 0),
            0u);
  EXPECT_NE(incomplete->message.find("); remove the graph root and re-run `cluster apply`"), std::string::npos);
  EXPECT_EQ(root.Sidecars().size(), 1u);
  EXPECT_EQ(root.Ledger().resource_statuses.at("graph.knowledge").status, "error");
}

// schema | live = ledger → retire; | won't open → pending, kept.
TEST(ClusterSweepTest, SchemaSidecarRows) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  Sidecar(root, "schema_apply", "some-other-digest");
  ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(root.Sidecars().empty());

  std::filesystem::rename(root.At("graphs/knowledge.omni"), root.At("moved.omni"));
  root.Write("graphs/knowledge.omni/junk", "x");
  Sidecar(root, "schema_apply", "some-other-digest");
  report = RunApply(root.Options());
  EXPECT_TRUE(HasCode(report.diagnostics, "cluster_recovery_pending")) << Describe(report.diagnostics);
  EXPECT_EQ(root.Sidecars().size(), 1u);
}

// delete | root present → graph_delete_incomplete; retire.
// delete | root absent, graph not in ledger → retire.
TEST(ClusterSweepTest, DeleteSidecarRows) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  RecoverySidecar sidecar = Sidecar(root, "graph_delete", "");
  ObserveReport report = RunRefresh(root.Options());
  EXPECT_TRUE(HasCode(report.diagnostics, "graph_delete_incomplete")) << Describe(report.diagnostics);
  EXPECT_TRUE(root.Sidecars().empty());

  sidecar.graph_id = "gone";
  sidecar.graph_uri = root.At("graphs/gone.omni");
  ASSERT_TRUE(WriteRecoverySidecar(root.store(), "", sidecar).ok());
  report = RunRefresh(root.Options());
  EXPECT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(root.Sidecars().empty());
  EXPECT_TRUE(root.Ledger().recovery_records.empty());
}

TEST(ClusterSweepTest, InvalidSidecarIsAWarningAndStays) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  root.Write("__cluster/recoveries/bad.json", "{");
  const ApplyReport report = RunApply(root.Options());
  EXPECT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(HasCode(report.diagnostics, "invalid_recovery_sidecar"));
  EXPECT_TRUE(root.Exists("__cluster/recoveries/bad.json"));
}

}  // namespace sweep_test
}  // namespace omnigraph::cluster::testing
