// `cluster apply` stopped at each of its failpoints (spec/cluster.md §6.1;
// §7 scenario 23), as an injected error and as a SIGKILL: what the run
// leaves (ledger bytes, sidecars, lock), and that a clean re-run converges.
#include <gtest/gtest.h>

#include <functional>

#include "api/omnigraph.h"
#include "cluster/apply.h"
#include "cluster/approve.h"
#include "cluster/import.h"
#include "cluster/plan.h"
#include "cluster/state_lock.h"
#include "cluster/cluster_root.h"
#include "crash/crash_matrix.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::cluster::testing {
namespace failpoint_test {

namespace fp = omnigraph::failpoint;

constexpr std::string_view kPeopleWithEmail =
    "node Person {\n    name: String @key\n    age: I32?\n    email: String?\n}\n";

// Imported, nothing applied: the next apply creates graph knowledge.
void SetUpCreate(const ClusterRoot& root) { ASSERT_TRUE(RunImport(root.Options()).ok); }

// Applied; then the schema gains a property: the next apply updates it.
void SetUpSchemaUpdate(const ClusterRoot& root) {
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  root.Write("people.pg", kPeopleWithEmail);
}

// Applied, plus an undeclared graph `old` with a root and an approval for
// its delete: the next apply deletes it.
void SetUpApprovedDelete(const ClusterRoot& root) {
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  ClusterState state = root.Ledger();
  state.resources["schema.old"] = {root.DigestOf("people.pg")};
  state.resources["graph.old"] = {LedgerGraphDigest(state, "old", std::nullopt, std::nullopt)};
  root.WriteLedger(state);
  ASSERT_TRUE(api::Omnigraph::Init(root.At("graphs/old.omni"), kPeopleSchema, "people.pg").ok());
  ASSERT_TRUE(RunApprove(root.Options(), "graph.old").ok);
}

// The scenario that reaches each cluster_apply failpoint.
std::function<void(const ClusterRoot&)> SetUpFor(std::string_view failpoint) {
  if (failpoint == fp::kClusterApplyBeforeSchemaApply || failpoint == fp::kClusterApplyAfterSchemaApply) {
    return SetUpSchemaUpdate;
  }
  if (failpoint == fp::kClusterApplyBeforeGraphDelete || failpoint == fp::kClusterApplyAfterGraphDelete) {
    return SetUpApprovedDelete;
  }
  return SetUpCreate;
}

// A clean apply converges and leaves no sidecar; a second one writes nothing.
void ExpectCleanApplyConverges(const ClusterRoot& root) {
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(report.converged);
  EXPECT_TRUE(root.Sidecars().empty());
  EXPECT_FALSE(root.Exists("graphs/old.omni"));
  auto graph = api::Omnigraph::Open(root.At("graphs/knowledge.omni"));
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_EQ(root.Ledger().resources.at("schema.knowledge").digest, Sha256Hex(*(*graph)->SchemaSource()));
  EXPECT_EQ(root.Ledger().resources.at("schema.knowledge").digest, root.DigestOf("people.pg"));
  const ApplyReport again = RunApply(root.Options());
  EXPECT_TRUE(again.changes.empty());
  EXPECT_FALSE(again.state_written);
}

class ClusterApplyFailpointTest : public ::testing::TestWithParam<std::string_view> {
 protected:
  void TearDown() override { fp::ClearAll(); }
};

std::vector<std::string_view> ClusterFailpoints() {
  std::vector<std::string_view> names;
  for (std::string_view name : fp::AllNames()) {
    if (name.rfind("cluster_apply.", 0) == 0) names.push_back(name);
  }
  return names;
}

std::string ParamName(const ::testing::TestParamInfo<std::string_view>& info) {
  return std::string(info.param.substr(std::string_view("cluster_apply.").size()));
}

// §6.1 in error mode.
TEST_P(ClusterApplyFailpointTest, InjectedErrorStopsTheRunAndACleanRunConverges) {
  const std::string_view name = GetParam();
  const bool after = name.find(".after_") != std::string_view::npos || name == fp::kClusterApplyBeforeStateWrite;
  ClusterRoot root;
  SetUpFor(name)(root);
  const std::string before = root.LedgerBytes();
  fp::Set(name, fp::Action::kError);
  const ApplyReport report = RunApply(root.Options());
  fp::ClearAll();
  EXPECT_FALSE(report.ok);
  const Diagnostic* injected = FindCode(report.diagnostics, "injected_failpoint");
  ASSERT_NE(injected, nullptr) << Describe(report.diagnostics);
  EXPECT_EQ(injected->message, "injected failpoint triggered: " + std::string(name));
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));
  if (after) {
    // Immediate return: the ledger is byte-identical and nothing counts.
    EXPECT_EQ(root.LedgerBytes(), before);
    EXPECT_FALSE(report.state_written);
    if (name != fp::kClusterApplyBeforeStateWrite) {
      EXPECT_EQ(report.applied_count, 0u);
    }
  } else {
    // before_<op>: graph work stops, the sidecar stays, statuses persist.
    EXPECT_TRUE(report.state_written);
    EXPECT_EQ(root.Sidecars().size(), 1u);
    EXPECT_NE(root.LedgerBytes(), before);
  }
  if (name != fp::kClusterApplyBeforeStateWrite) {
    EXPECT_FALSE(root.Sidecars().empty());
  }
  ExpectCleanApplyConverges(root);
}

INSTANTIATE_TEST_SUITE_P(EveryClusterFailpoint, ClusterApplyFailpointTest, ::testing::ValuesIn(ClusterFailpoints()),
                         ParamName);

TEST(ClusterApplyFailpointCoverage, EverySpecFailpointIsDeclared) {
  EXPECT_EQ(ClusterFailpoints(),
            (std::vector<std::string_view>{"cluster_apply.before_graph_create", "cluster_apply.after_graph_create",
                                           "cluster_apply.before_schema_apply", "cluster_apply.after_schema_apply",
                                           "cluster_apply.after_payload_phase", "cluster_apply.before_graph_delete",
                                           "cluster_apply.after_graph_delete", "cluster_apply.before_state_write"}));
}

// after_graph_create: the next run rolls the create forward (§6.2).
TEST(ClusterApplyFailpointCoverage, InterruptedCreateRollsForwardWithARecoveryRecord) {
  ClusterRoot root;
  SetUpCreate(root);
  fp::Set(fp::kClusterApplyAfterGraphCreate, fp::Action::kError);
  (void)RunApply(root.Options());
  fp::ClearAll();
  ASSERT_EQ(root.Sidecars().size(), 1u);
  const std::string operation = root.Sidecars()[0].operation_id;
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(HasCode(report.diagnostics, "cluster_recovery_rolled_forward"));
  const RecoveryRecord record = root.Ledger().recovery_records.at(operation);
  EXPECT_EQ(record.kind, "graph_create");
  EXPECT_EQ(record.graph_id, "knowledge");
  EXPECT_EQ(record.outcome, "rolled_forward");
  EXPECT_EQ(record.actor, "tester");
  EXPECT_TRUE(report.converged);
}

// after_graph_delete: the next run tombstones the graph and consumes the
// approval with the sidecar's operation id.
TEST(ClusterApplyFailpointCoverage, InterruptedDeleteIsTombstonedAndConsumesTheApproval) {
  ClusterRoot root;
  SetUpApprovedDelete(root);
  const std::string approval = root.Approvals()[0].approval_id;
  fp::Set(fp::kClusterApplyAfterGraphDelete, fp::Action::kError);
  (void)RunApply(root.Options());
  fp::ClearAll();
  ASSERT_EQ(root.Sidecars().size(), 1u);
  const std::string operation = root.Sidecars()[0].operation_id;
  EXPECT_EQ(root.Sidecars()[0].approval_id, approval);
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.observations.at("graph.old").kind, "tombstone");
  EXPECT_EQ(state.approval_records.at(approval).consumed_by_operation, operation);
  EXPECT_EQ(root.Approvals()[0].consumed_by_operation, operation);
  EXPECT_EQ(state.resources.count("graph.old"), 0u);
  EXPECT_TRUE(report.converged);
}

// §6.1 before_state_write with a racing writer: state_cas_mismatch, and the
// other writer's ledger (revision 99) stays on disk.
TEST(ClusterApplyFailpointCoverage, CasRaceKeepsTheOtherWritersLedger) {
  ClusterRoot root;
  SetUpCreate(root);
  ApplyHooks hooks;
  hooks.before_state_write = [&] {
    ClusterState raced = root.Ledger();
    raced.state_revision = 99;
    root.WriteLedger(raced);
  };
  const ApplyReport report = RunApply(root.Options(), hooks);
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(Codes(report.diagnostics), std::vector<std::string>{"state_cas_mismatch"});
  EXPECT_EQ(report.diagnostics[0].message,
            "state.json changed while the command was running; re-run the command against the latest state");
  EXPECT_FALSE(report.state_written);
  EXPECT_EQ(root.Ledger().state_revision, 99u);
  EXPECT_FALSE(root.Sidecars().empty());  // a failed write retires nothing
  ExpectCleanApplyConverges(root);
  EXPECT_EQ(root.Ledger().state_revision, 100u);
}

// §6.1 as a SIGKILL: the crash matrix's cluster_apply cells. The ledger is
// as it was, the lock stays (no TTL, §2.4) until force-unlock, and a clean
// apply then converges.
class ClusterApplyCrashTest : public ::testing::TestWithParam<crash::CrashCase> {};

TEST_P(ClusterApplyCrashTest, KilledApplyLeavesTheLedgerAndACleanRunConverges) {
  const crash::CrashCase& c = GetParam();
  ClusterRoot root;
  SetUpFor(c.cell.failpoint)(root);
  const std::string before = root.LedgerBytes();
  ASSERT_TRUE(crash::KilledAt(c.cell, [&] { (void)RunApply(root.Options()); }));
  EXPECT_EQ(root.LedgerBytes(), before);
  auto lock = ReadLock(root.store(), "");
  ASSERT_TRUE(lock.ok() && lock->has_value());
  EXPECT_EQ(Codes(RunApply(root.Options()).diagnostics), std::vector<std::string>{"state_lock_held"});
  ASSERT_TRUE(ForceUnlock(root.store(), "", (*lock)->lock_id).ok());
  ExpectCleanApplyConverges(root);
}

INSTANTIATE_TEST_SUITE_P(CrashMatrix, ClusterApplyCrashTest,
                         ::testing::ValuesIn(crash::CrashMatrix(fp::AllNames(), crash::kClusterApplyWrites)),
                         [](const ::testing::TestParamInfo<crash::CrashCase>& info) {
                           return crash::CaseName(info.param);
                         });

}  // namespace failpoint_test
}  // namespace omnigraph::cluster::testing
