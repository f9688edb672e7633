// The planning core and the read-only commands around it (spec/cluster.md
// §3, §4.3, §4.6, §4.7; §7 scenarios 7–10): deterministic diffs, the lock
// plan takes and releases, and force-unlock's refusals.
#include <gtest/gtest.h>

#include "cluster/plan.h"
#include "cluster/apply.h"
#include "cluster/approve.h"
#include "cluster/import.h"
#include "cluster/plan_command.h"
#include "cluster/state_lock.h"
#include "cluster/status.h"
#include "cluster/cluster_root.h"

namespace omnigraph::cluster::testing {
namespace plan_test {

using Pair = std::pair<std::string, std::string>;

std::vector<Pair> Operations(const std::vector<PlanChange>& changes) {
  std::vector<Pair> pairs;
  for (const PlanChange& change : changes) pairs.emplace_back(change.resource, OperationName(change.operation));
  return pairs;
}

LoadOutcome LoadRoot(const ClusterRoot& root) { return LoadDesiredCluster(root.path()); }

// §7 scenario 7.
TEST(ClusterPlanTest, ExistingStatePlansUpdateAndDeleteDeterministically) {
  ClusterRoot root;
  const LoadOutcome outcome = LoadRoot(root);
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  ClusterState state;
  state.resources["graph.knowledge"] = {outcome.desired->resource_digests.at("graph.knowledge")};
  state.resources["schema.knowledge"] = {"old-schema"};
  state.resources["policy.old"] = {"old-policy", std::vector<std::string>{"graph.knowledge"}};
  PlanInputs inputs;
  inputs.desired = &*outcome.desired;
  inputs.state = &state;
  const ClusterPlan plan = PlanCluster(inputs);
  EXPECT_EQ(Operations(plan.changes), (std::vector<Pair>{{"policy.base", "create"},
                                                         {"policy.old", "delete"},
                                                         {"query.knowledge.find_person", "create"},
                                                         {"schema.knowledge", "update"}}));
  EXPECT_EQ(plan.changes[3].before_digest, "old-schema");
  EXPECT_EQ(plan.changes[3].after_digest, root.DigestOf("people.pg"));
  EXPECT_EQ(plan.changes[3].disposition, Disposition::kApplied);
  EXPECT_TRUE(plan.gates.empty());
  // Blast radius: the schema's dependants (§3.5).
  bool found = false;
  for (const BlastRadius& radius : plan.blast_radius) {
    if (radius.resource != "schema.knowledge") continue;
    found = true;
    EXPECT_EQ(radius.affected, std::vector<std::string>{"query.knowledge.find_person"});
  }
  EXPECT_TRUE(found);
}

TEST(ClusterPlanTest, MissingStatePlansEveryResourceAsCreate) {
  ClusterRoot root;
  const LoadOutcome outcome = LoadRoot(root);
  PlanInputs inputs;
  inputs.desired = &*outcome.desired;
  const ClusterPlan plan = PlanCluster(inputs);
  EXPECT_EQ(Operations(plan.changes), (std::vector<Pair>{{"graph.knowledge", "create"},
                                                         {"policy.base", "create"},
                                                         {"query.knowledge.find_person", "create"},
                                                         {"schema.knowledge", "create"}}));
  for (const PlanChange& change : plan.changes) EXPECT_EQ(change.disposition, Disposition::kApplied);
}

// §3.2: a policy whose stored bindings differ is a metadata-only update.
TEST(ClusterPlanTest, ChangedPolicyBindingsAreABindingChange) {
  ClusterRoot root;
  const LoadOutcome outcome = LoadRoot(root);
  ClusterState state;
  for (const auto& [address, digest] : outcome.desired->resource_digests) state.resources[address] = {digest};
  state.resources["policy.base"].applies_to = std::vector<std::string>{"graph.other"};
  PlanInputs inputs;
  inputs.desired = &*outcome.desired;
  inputs.state = &state;
  const ClusterPlan plan = PlanCluster(inputs);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].resource, "policy.base");
  EXPECT_EQ(plan.changes[0].operation, ChangeOperation::kUpdate);
  EXPECT_EQ(plan.changes[0].before_digest, plan.changes[0].after_digest);
  EXPECT_TRUE(plan.changes[0].binding_change);
  EXPECT_EQ(plan.changes[0].metadata_change, "policy_bindings");
  inputs.metadata_updates = false;
  EXPECT_TRUE(PlanCluster(inputs).changes.empty());
}

// §8 Q2 and the recovery-pending rows of §3.4.
TEST(ClusterPlanTest, SchemaCreateWithoutGraphCreateIsBlockedAndPendingGraphsBlockEverything) {
  ClusterRoot root;
  const LoadOutcome outcome = LoadRoot(root);
  ClusterState state;
  state.resources["graph.knowledge"] = {outcome.desired->resource_digests.at("graph.knowledge")};
  PlanInputs inputs;
  inputs.desired = &*outcome.desired;
  inputs.state = &state;
  ClusterPlan plan = PlanCluster(inputs);
  ASSERT_EQ(plan.changes.back().resource, "schema.knowledge");
  EXPECT_EQ(plan.changes.back().disposition, Disposition::kBlocked);
  EXPECT_EQ(plan.changes.back().reason, "cluster_recovery_pending");
  // The query's graph has a schema create pending: dependency_not_applied.
  EXPECT_EQ(plan.changes[1].resource, "query.knowledge.find_person");
  EXPECT_EQ(plan.changes[1].reason, "dependency_not_applied");

  inputs.state = nullptr;
  inputs.pending_recovery = {"knowledge"};
  plan = PlanCluster(inputs);
  for (const PlanChange& change : plan.changes) {
    EXPECT_EQ(change.disposition, Disposition::kBlocked) << change.resource;
    EXPECT_EQ(change.reason, "cluster_recovery_pending") << change.resource;
  }
}

// §7 scenario 8.
TEST(ClusterPlanTest, PlanReportsStateCasRevisionAndRemovesLock) {
  ClusterRoot root;
  ClusterState state = root.Seed();
  state.state_revision = 7;
  root.WriteLedger(state);
  const PlanReport report = RunPlan(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(report.state_observations.state_revision, 7u);
  EXPECT_TRUE(report.state_observations.state_found);
  EXPECT_EQ(report.state_observations.state_cas, "sha256:" + Sha256Hex(root.LedgerBytes()));
  EXPECT_TRUE(report.state_observations.lock_acquired);
  EXPECT_TRUE(report.state_observations.acquired_lock_id.has_value());
  EXPECT_FALSE(report.state_observations.locked);
  EXPECT_EQ(report.state_observations.resource_count, 2u);
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));
  EXPECT_EQ(report.state_observations.state_path, root.At("__cluster/state.json"));
  // The seeded graph lacks its query: its composite changes (Derived), and
  // the query and policy are created.
  EXPECT_EQ(Operations(report.plan.changes), (std::vector<Pair>{{"graph.knowledge", "update"},
                                                                {"policy.base", "create"},
                                                                {"query.knowledge.find_person", "create"}}));
  EXPECT_EQ(report.plan.changes[0].disposition, Disposition::kDerived);
}

void WriteLock(const ClusterRoot& root, std::string_view body) { root.Write("__cluster/lock.json", body); }

constexpr std::string_view kHeldLock =
    "{\n  \"version\": 1,\n  \"lock_id\": \"held-lock\",\n  \"operation\": \"apply\",\n"
    "  \"created_at\": \"2026-01-01T00:00:00Z\",\n  \"pid\": 123\n}\n";

// §7 scenario 9.
TEST(ClusterPlanTest, ExistingLockMakesPlanFail) {
  ClusterRoot root;
  root.Seed();
  WriteLock(root, kHeldLock);
  const PlanReport report = RunPlan(root.Options());
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(Codes(report.diagnostics), std::vector<std::string>{"state_lock_held"});
  EXPECT_EQ(report.diagnostics[0].message,
            "cluster state lock already exists (lock id held-lock); run `omnigraph cluster force-unlock held-lock` "
            "only after confirming no cluster operation is active");
  EXPECT_TRUE(report.state_observations.locked);
  EXPECT_FALSE(report.state_observations.lock_acquired);
  EXPECT_EQ(report.state_observations.lock_id, "held-lock");
  EXPECT_EQ(report.state_observations.lock_pid, 123u);
  EXPECT_EQ(report.state_observations.lock_operation, "apply");
  EXPECT_TRUE(report.plan.changes.empty());
  EXPECT_EQ(root.Read("__cluster/lock.json"), kHeldLock);
}

// §7 scenario 10.
TEST(ClusterForceUnlockTest, MatchingIdRemovesTheLockAndEveryRefusalKeepsIt) {
  ClusterRoot root;
  WriteLock(root, kHeldLock);
  ForceUnlockReport mismatch = RunForceUnlock(root.Options(), "other");
  EXPECT_FALSE(mismatch.ok);
  ASSERT_EQ(Codes(mismatch.diagnostics), std::vector<std::string>{"state_lock_id_mismatch"});
  EXPECT_EQ(mismatch.diagnostics[0].message,
            "lock id mismatch: held lock is held-lock, refusing to remove (pass the exact id from `cluster status`)");
  EXPECT_FALSE(mismatch.lock_removed);
  EXPECT_TRUE(root.Exists("__cluster/lock.json"));

  ForceUnlockReport removed = RunForceUnlock(root.Options(), "held-lock");
  EXPECT_TRUE(removed.ok) << Describe(removed.diagnostics);
  EXPECT_TRUE(removed.lock_removed);
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));

  ForceUnlockReport missing = RunForceUnlock(root.Options(), "held-lock");
  EXPECT_EQ(Codes(missing.diagnostics), std::vector<std::string>{"state_lock_missing"});

  WriteLock(root, "{\"version\":1,\"lock_id\":\"x\",\"operation\":\"apply\",\"created_at\":\"2026-01-01T00:00:00Z\","
                  "\"pid\":1,\"extra\":true}");
  EXPECT_EQ(Codes(RunForceUnlock(root.Options(), "x").diagnostics), std::vector<std::string>{"invalid_state_lock"});
  EXPECT_TRUE(root.Exists("__cluster/lock.json"));

  WriteLock(root, "{\"version\":2,\"lock_id\":\"x\",\"operation\":\"apply\",\"created_at\":\"2026-01-01T00:00:00Z\","
                  "\"pid\":1}");
  EXPECT_EQ(Codes(RunForceUnlock(root.Options(), "x").diagnostics),
            std::vector<std::string>{"unsupported_state_lock_version"});
  EXPECT_TRUE(root.Exists("__cluster/lock.json"));
}

TEST(ClusterForceUnlockTest, HeaderIsCheckedFirst) {
  ClusterRoot root;
  root.Write("cluster.yaml", "version: 1\nstate:\n  backend: s3://bucket/state\n");
  WriteLock(root, kHeldLock);
  ForceUnlockReport report = RunForceUnlock(root.Options(), "held-lock");
  EXPECT_EQ(Codes(report.diagnostics), std::vector<std::string>{"unsupported_state_backend"});
  EXPECT_TRUE(root.Exists("__cluster/lock.json"));
}

TEST(ClusterStatusTest, ReportsMissingStateAsAWarningAndAHeldLock) {
  ClusterRoot root;
  StatusReport missing = RunStatus(root.Options());
  EXPECT_TRUE(missing.ok);
  EXPECT_EQ(Codes(missing.diagnostics), std::vector<std::string>{"state_missing"});
  EXPECT_FALSE(missing.state_observations.state_found);

  root.Seed();
  WriteLock(root, kHeldLock);
  StatusReport held = RunStatus(root.Options());
  EXPECT_TRUE(held.ok) << Describe(held.diagnostics);
  EXPECT_TRUE(held.state_observations.locked);
  EXPECT_EQ(held.state_observations.lock_id, "held-lock");
  EXPECT_EQ(held.state_observations.state_revision, 1u);
  EXPECT_EQ(held.resource_digests.size(), 2u);
  EXPECT_TRUE(root.Exists("__cluster/lock.json"));  // status never takes or breaks it
}

// §6.3: a second locking command is refused and touches nothing.
TEST(ClusterPlanTest, HeldLockRefusesEveryLockingCommand) {
  ClusterRoot root;
  root.Seed();
  WriteLock(root, kHeldLock);
  const std::string ledger = root.LedgerBytes();
  EXPECT_EQ(Codes(RunApply(root.Options()).diagnostics), std::vector<std::string>{"state_lock_held"});
  EXPECT_EQ(Codes(RunRefresh(root.Options()).diagnostics), std::vector<std::string>{"state_lock_held"});
  EXPECT_EQ(Codes(RunApprove(root.Options(), "graph.knowledge").diagnostics),
            std::vector<std::string>{"state_lock_held"});
  EXPECT_EQ(root.LedgerBytes(), ledger);
  EXPECT_EQ(root.Read("__cluster/lock.json"), kHeldLock);
  EXPECT_FALSE(root.Exists("__cluster/resources"));
}

// §4.6: status verifies the payload catalog as diagnostics only.
TEST(ClusterStatusTest, ReportsMissingAndAlteredPayloads) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  const std::string ledger = root.LedgerBytes();
  std::filesystem::remove(root.At("__cluster/resources/query/knowledge/find_person/" + root.DigestOf("people.gq") +
                                  ".gq"));
  root.Write("__cluster/resources/policy/base/" + root.DigestOf("base.policy.yaml") + ".yaml", "tampered");
  const StatusReport report = RunStatus(root.Options());
  EXPECT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(Codes(report.diagnostics),
            (std::vector<std::string>{"catalog_payload_mismatch", "catalog_payload_missing"}));
  EXPECT_EQ(report.diagnostics[0].path, "policy.base");
  EXPECT_EQ(report.diagnostics[1].path, "query.knowledge.find_person");
  EXPECT_EQ(root.LedgerBytes(), ledger);
}

// §2.4: `state.lock: false` runs unlocked, with a warning naming the verb.
TEST(ClusterPlanTest, DisabledLockWarnsAndTakesNoLock) {
  ClusterRoot root;
  root.Write("cluster.yaml", std::string(kMinimalCluster) + "state:\n  lock: false\n");
  root.Seed();
  WriteLock(root, kHeldLock);  // ignored: nothing takes or checks the lock
  const PlanReport report = RunPlan(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  ASSERT_EQ(Codes(report.diagnostics), std::vector<std::string>{"state_lock_disabled"});
  EXPECT_EQ(report.diagnostics[0].message, "state.lock is false; plan runs without acquiring the cluster state lock");
  EXPECT_FALSE(report.state_observations.lock_acquired);
  EXPECT_EQ(root.Read("__cluster/lock.json"), kHeldLock);
}

}  // namespace plan_test
}  // namespace omnigraph::cluster::testing
