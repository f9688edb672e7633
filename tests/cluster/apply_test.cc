// `cluster apply` and `cluster approve` (spec/cluster.md §4.4, §4.5; §7
// scenarios 14–22): payloads, statuses, graph creation, schema updates,
// dependency blocking, approval gates and approved deletes.
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "cluster/apply.h"
#include "cluster/approve.h"
#include "cluster/import.h"
#include "cluster/plan.h"
#include "cluster/plan_command.h"
#include "cluster/cluster_root.h"

namespace omnigraph::cluster::testing {
namespace apply_test {

using Row = std::tuple<std::string, std::string, std::string>;  // resource, disposition, reason

std::vector<Row> Dispositions(const std::vector<PlanChange>& changes) {
  std::vector<Row> rows;
  for (const PlanChange& change : changes) {
    rows.emplace_back(change.resource, change.disposition ? std::string(DispositionName(*change.disposition)) : "",
                      change.reason.value_or(""));
  }
  return rows;
}

std::string DesiredDigest(const ClusterRoot& root) { return LoadDesiredCluster(root.path()).desired->config_digest; }

// §7 scenario 14.
TEST(ClusterApplyTest, WritesPayloadsStateAndStatuses) {
  ClusterRoot root;
  root.Seed();
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(report.applied_count, 2u);
  EXPECT_EQ(report.deferred_count, 0u);
  EXPECT_TRUE(report.converged);
  EXPECT_TRUE(report.state_written);
  EXPECT_EQ(report.actor, "tester");
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.knowledge", "derived", ""},
                                                            {"policy.base", "applied", ""},
                                                            {"query.knowledge.find_person", "applied", ""}}));
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.state_revision, 2u);
  EXPECT_EQ(report.state_observations.state_revision, 2u);
  EXPECT_EQ(state.config_digest, DesiredDigest(root));
  const std::string query = root.DigestOf("people.gq");
  const std::string policy = root.DigestOf("base.policy.yaml");
  EXPECT_EQ(root.Read("__cluster/resources/query/knowledge/find_person/" + query + ".gq"), kFindPerson);
  EXPECT_EQ(root.Read("__cluster/resources/policy/base/" + policy + ".yaml"), kEmptyPolicy);
  EXPECT_EQ(state.resources.at("policy.base").applies_to, std::vector<std::string>{"graph.knowledge"});
  EXPECT_EQ(state.resources.at("graph.knowledge").external_blob_policy, std::nullopt);
  EXPECT_EQ(state.resources.at("graph.knowledge").digest,
            LoadDesiredCluster(root.path()).desired->resource_digests.at("graph.knowledge"));
  for (const char* address : {"graph.knowledge", "policy.base", "query.knowledge.find_person"}) {
    EXPECT_EQ(state.resource_statuses.at(address), (ResourceStatus{"applied", {}, {}})) << address;
  }
  EXPECT_EQ(report.resource_statuses, state.resource_statuses);
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));
}

// §7 scenario 15.
TEST(ClusterApplyTest, IsIdempotent) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  const std::string bytes = root.LedgerBytes();
  const ApplyReport again = RunApply(root.Options());
  ASSERT_TRUE(again.ok) << Describe(again.diagnostics);
  EXPECT_TRUE(again.changes.empty());
  EXPECT_FALSE(again.state_written);
  EXPECT_TRUE(again.converged);
  EXPECT_EQ(again.applied_count, 0u);
  EXPECT_EQ(root.LedgerBytes(), bytes);
}

// A divergence from §4.4 (README): without a ledger, apply starts from the
// one import would write and converges in one run, as cases/server/B29
// expects; an import first gives the same ledger contents.
TEST(ClusterApplyTest, WithoutALedgerApplyBootstrapsItAsImportWouldAndLoadErrorsTouchNothing) {
  ClusterRoot root;
  const ApplyReport bootstrapped = RunApply(root.Options());
  ASSERT_TRUE(bootstrapped.ok) << Describe(bootstrapped.diagnostics);
  EXPECT_EQ(Codes(bootstrapped.diagnostics), std::vector<std::string>{"state_bootstrapped"});
  EXPECT_EQ(bootstrapped.diagnostics[0].severity, Severity::kWarning);
  EXPECT_TRUE(bootstrapped.converged);
  EXPECT_TRUE(bootstrapped.state_written);
  EXPECT_EQ(bootstrapped.applied_count, 4u);
  EXPECT_FALSE(root.Exists("__cluster/lock.json"));
  EXPECT_TRUE(root.Exists("graphs/knowledge.omni"));

  ClusterRoot imported;
  ASSERT_TRUE(RunImport(imported.Options()).ok);
  const ApplyReport after_import = RunApply(imported.Options());
  ASSERT_TRUE(after_import.ok) << Describe(after_import.diagnostics);
  EXPECT_EQ(after_import.applied_count, bootstrapped.applied_count);
  EXPECT_EQ(after_import.resource_statuses, bootstrapped.resource_statuses);

  ClusterRoot broken;
  std::filesystem::remove(broken.At("people.pg"));
  const ApplyReport invalid = RunApply(broken.Options());
  EXPECT_FALSE(invalid.ok);
  EXPECT_FALSE(broken.Exists("__cluster"));
}

// §7 scenario 16.
TEST(ClusterApplyTest, CreatesGraphAndUnblocksDependents) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.knowledge", "applied", ""},
                                                            {"policy.base", "applied", ""},
                                                            {"query.knowledge.find_person", "applied", ""},
                                                            {"schema.knowledge", "applied", ""}}));
  EXPECT_EQ(report.applied_count, 4u);
  EXPECT_TRUE(report.converged);
  auto graph = api::Omnigraph::Open(root.At("graphs/knowledge.omni"));
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_EQ(*(*graph)->SchemaSource(), kPeopleSchema);
  EXPECT_TRUE(root.Sidecars().empty());
  EXPECT_EQ(root.Ledger().resources.at("schema.knowledge").digest, root.DigestOf("people.pg"));
}

// §7 scenario 17.
TEST(ClusterApplyTest, CreateFailureBlocksDependentsAndKeepsSidecar) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  root.Write("graphs/knowledge.omni/_schema.pg", "junk");
  const ApplyReport report = RunApply(root.Options());
  EXPECT_FALSE(report.ok);
  const Diagnostic* failed = FindCode(report.diagnostics, "graph_create_failed");
  ASSERT_NE(failed, nullptr) << Describe(report.diagnostics);
  EXPECT_EQ(failed->message.rfind("could not initialize graph at '" + root.At("graphs/knowledge.omni") + "': ", 0), 0u)
      << failed->message;
  EXPECT_EQ(Dispositions(report.changes),
            (std::vector<Row>{{"graph.knowledge", "blocked", "graph_create_failed"},
                              {"policy.base", "blocked", "dependency_not_applied"},
                              {"query.knowledge.find_person", "blocked", "dependency_not_applied"},
                              {"schema.knowledge", "blocked", "dependency_not_applied"}}));
  EXPECT_EQ(report.applied_count, 0u);
  EXPECT_EQ(report.deferred_count, 4u);
  EXPECT_TRUE(report.state_written);
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.resource_statuses.at("graph.knowledge"),
            (ResourceStatus{"blocked", {"graph_create_failed"}, std::string("waiting on an unapplied or missing dependency")}));
  EXPECT_EQ(state.resource_statuses.at("policy.base").conditions, std::vector<std::string>{"dependency_not_applied"});
  ASSERT_EQ(root.Sidecars().size(), 1u);
  EXPECT_EQ(root.Sidecars()[0].kind, "graph_create");
  EXPECT_EQ(root.Sidecars()[0].graph_id, "knowledge");
  EXPECT_EQ(root.Sidecars()[0].desired_schema_digest, root.DigestOf("people.pg"));
  EXPECT_TRUE(HasCode(report.diagnostics, "apply_dependency_blocked"));
}

// §7 scenario 18.
TEST(ClusterApplyTest, UnsupportedSchemaChangePreservesAppliedExternalBlobPolicy) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  root.Write("people.pg", "node Person {\n    name: String @key\n    age: I64?\n}\n");
  const ApplyReport report = RunApply(root.Options());
  EXPECT_FALSE(report.ok);
  const Diagnostic* failed = FindCode(report.diagnostics, "schema_apply_failed");
  ASSERT_NE(failed, nullptr) << Describe(report.diagnostics);
  // Upstream's engine words the step "changing property type"; this
  // engine's compiler names the property and both types.
  EXPECT_NE(failed->message.find("changing the type of 'age' (I32? -> I64?)"), std::string::npos) << failed->message;
  EXPECT_EQ(failed->message.rfind("schema apply is not supported on '" + root.At("graphs/knowledge.omni") + "': ", 0),
            0u);
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.knowledge", "blocked", "dependency_not_applied"},
                                                            {"schema.knowledge", "blocked", "schema_apply_failed"}}));
  EXPECT_TRUE(root.Sidecars().empty());
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.resources.at("graph.knowledge").external_blob_policy, std::nullopt);
  EXPECT_EQ(state.resource_statuses.at("schema.knowledge").conditions, std::vector<std::string>{"schema_apply_failed"});
  EXPECT_FALSE(report.converged);
}

std::string ClusterWithBlobBase(std::string_view base) {
  return std::string(kMinimalCluster).replace(
      std::string(kMinimalCluster).find("policies:"), 0,
      "    external_blobs:\n      allow:\n        - base: " + std::string(base) + "\n          scope: server_safe\n");
}

// §7 scenario 18 with an allow-list: a blocked schema change keeps the
// ledger's external-blob policy (and the ledger stays self-consistent).
TEST(ClusterApplyTest, BlockedSchemaChangeKeepsTheLedgersAllowPolicy) {
  ClusterRoot root;
  root.Write("cluster.yaml", ClusterWithBlobBase("S3://Assets/knowledge"));
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  const std::string applied = R"({"mode":"allow","bases":[{"uri":"s3://assets/knowledge/","scope":"server_safe"}]})";
  ASSERT_EQ(root.Ledger().resources.at("graph.knowledge").external_blob_policy, applied);

  root.Write("cluster.yaml", ClusterWithBlobBase("s3://assets/other"));
  root.Write("people.pg", "node Person {\n    name: String @key\n    age: I64?\n}\n");
  const ApplyReport report = RunApply(root.Options());
  EXPECT_TRUE(HasCode(report.diagnostics, "schema_apply_failed"));
  EXPECT_EQ(root.Ledger().resources.at("graph.knowledge").external_blob_policy, applied);
  EXPECT_TRUE(CheckLedgerAuthority(root.Ledger()).ok());

  // Once the schema change is reverted, the new allow-list applies.
  root.Write("people.pg", kPeopleSchema);
  const ApplyReport converged = RunApply(root.Options());
  ASSERT_TRUE(converged.ok) << Describe(converged.diagnostics);
  EXPECT_TRUE(converged.converged);
  EXPECT_EQ(root.Ledger().resources.at("graph.knowledge").external_blob_policy,
            R"({"mode":"allow","bases":[{"uri":"s3://assets/other/","scope":"server_safe"}]})");
}

// A provider's profile survives the ledger round trip: the second apply
// plans no embedding_profile metadata update (§3.2).
TEST(ClusterApplyTest, EmbeddingProviderProfileConvergesAcrossRuns) {
  ClusterRoot root;
  std::string yaml = std::string(kMinimalCluster);
  yaml.replace(yaml.find("graphs:"), 0,
               "providers:\n  embedding:\n    local:\n      kind: mock\n      model: tiny\n"
               "      base_url: http://localhost:1\n");
  yaml.replace(yaml.find("    queries:"), 0, "    embedding_provider: local\n");
  root.Write("cluster.yaml", yaml);
  ASSERT_TRUE(RunImport(root.Options()).ok);
  const ApplyReport first = RunApply(root.Options());
  ASSERT_TRUE(first.ok) << Describe(first.diagnostics);
  EXPECT_TRUE(first.converged);
  const ClusterState state = root.Ledger();
  EXPECT_EQ(state.resources.at("provider.embedding.local").embedding_profile,
            R"({"kind":"mock","base_url":"http://localhost:1","model":"tiny"})");
  EXPECT_EQ(state.resources.at("graph.knowledge").embedding_provider, "provider.embedding.local");
  const ApplyReport second = RunApply(root.Options());
  EXPECT_TRUE(second.changes.empty());
  EXPECT_FALSE(second.state_written);
}

constexpr std::string_view kPeopleWithEmail =
    "node Person {\n    name: String @key\n    age: I32?\n    email: String?\n}\n";
constexpr std::string_view kFindPersonWithEmail =
    "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name, $p.email }\n}\n";

// §7 scenario 19.
TEST(ClusterApplyTest, SchemaUpdateAndDependentQueryInOneRun) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  root.Write("people.pg", kPeopleWithEmail);
  root.Write("people.gq", kFindPersonWithEmail);
  const PlanReport plan = RunPlan(root.Options());
  ASSERT_TRUE(plan.ok) << Describe(plan.diagnostics);
  const PlanChange& schema = plan.plan.changes.back();
  ASSERT_EQ(schema.resource, "schema.knowledge");
  ASSERT_TRUE(schema.migration.has_value());
  EXPECT_TRUE(schema.migration->supported);
  ASSERT_EQ(schema.migration->steps.size(), 1u);
  EXPECT_NE(schema.migration->steps[0].find("\"kind\":\"add_property\""), std::string::npos)
      << schema.migration->steps[0];

  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.knowledge", "derived", ""},
                                                            {"query.knowledge.find_person", "applied", ""},
                                                            {"schema.knowledge", "applied", ""}}));
  EXPECT_TRUE(report.converged);
  EXPECT_TRUE(root.Sidecars().empty());
  auto graph = api::Omnigraph::Open(root.At("graphs/knowledge.omni"));
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(*(*graph)->SchemaSource(), kPeopleWithEmail);
  EXPECT_TRUE(RunApply(root.Options()).changes.empty());
}

// §4.4 step 4: a live non-main branch refuses the schema apply before any
// sidecar is written.
TEST(ClusterApplyTest, SchemaApplyOnAGraphWithBranchesIsRefused) {
  ClusterRoot root;
  ASSERT_TRUE(RunImport(root.Options()).ok);
  ASSERT_TRUE(RunApply(root.Options()).ok);
  {
    auto graph = api::Omnigraph::Open(root.At("graphs/knowledge.omni"));
    ASSERT_TRUE(graph.ok());
    ASSERT_TRUE((*graph)->BranchCreate("feature").ok());
  }
  root.Write("people.pg", kPeopleWithEmail);
  const ApplyReport report = RunApply(root.Options());
  const Diagnostic* failed = FindCode(report.diagnostics, "schema_apply_failed");
  ASSERT_NE(failed, nullptr) << Describe(report.diagnostics);
  EXPECT_EQ(failed->message, "schema apply is not supported on '" + root.At("graphs/knowledge.omni") +
                                 "': schema apply requires a graph with only main");
  EXPECT_TRUE(root.Sidecars().empty());
  EXPECT_EQ(root.Ledger().resource_statuses.at("schema.knowledge").conditions,
            std::vector<std::string>{"schema_apply_failed"});
}

// A ledger that also holds graph `id` (schema + one query), which the
// config no longer declares; its root exists when `with_root`.
void AddOldGraph(const ClusterRoot& root, bool with_root, const std::string& id = "old") {
  ClusterState state = root.Ledger();
  state.resources["schema." + id] = {root.DigestOf("people.pg")};
  state.resources["query." + id + ".find_person"] = {root.DigestOf("people.gq")};
  state.resources["graph." + id] = {LedgerGraphDigest(state, id, std::nullopt, std::nullopt)};
  root.WriteLedger(state);
  if (with_root) {
    ASSERT_TRUE(api::Omnigraph::Init(root.At("graphs/" + id + ".omni"), kPeopleSchema, "people.pg").ok());
  }
}

// §7 scenario 20.
TEST(ClusterApplyTest, BlocksGraphDeleteWithoutApproval) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  AddOldGraph(root, true);
  const PlanReport plan = RunPlan(root.Options());
  ASSERT_EQ(plan.plan.gates.size(), 1u);
  EXPECT_EQ(plan.plan.gates[0].resource, "graph.old");
  EXPECT_EQ(plan.plan.gates[0].reason, "delete may remove deployed graph or schema definition");
  EXPECT_FALSE(plan.plan.gates[0].satisfied);

  const ApplyReport report = RunApply(root.Options());
  EXPECT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_FALSE(report.converged);
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.old", "blocked", "approval_required"},
                                                            {"query.old.find_person", "blocked", "approval_required"},
                                                            {"schema.old", "blocked", "approval_required"}}));
  EXPECT_EQ(report.deferred_count, 3u);
  EXPECT_TRUE(root.Exists("graphs/old.omni"));
  EXPECT_EQ(root.Ledger().resource_statuses.at("graph.old").conditions, std::vector<std::string>{"approval_required"});
}

// §7 scenario 21.
TEST(ClusterApproveTest, WritesDigestBoundArtifactAndStaleApprovalIsIgnored) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  AddOldGraph(root, false);
  const std::string ledger = root.LedgerBytes();

  const ApproveReport refused = RunApprove(root.Options(), "policy.base");
  ASSERT_EQ(Codes(refused.diagnostics), std::vector<std::string>{"approval_not_required"});
  EXPECT_EQ(refused.diagnostics[0].message,
            "no pending change for this resource requires approval (check `cluster plan`)");

  const ApproveReport report = RunApprove(root.Options("andrew"), "graph.old");
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(report.resource, "graph.old");
  EXPECT_EQ(report.operation, "delete");
  EXPECT_EQ(report.approved_by, "andrew");
  ASSERT_EQ(root.Approvals().size(), 1u);
  const ApprovalArtifact artifact = root.Approvals()[0];
  EXPECT_EQ(artifact.approval_id, report.approval_id);
  EXPECT_EQ(artifact.resource, "graph.old");
  EXPECT_EQ(artifact.operation, "delete");
  EXPECT_EQ(artifact.reason, "delete may remove deployed graph or schema definition");
  EXPECT_EQ(artifact.bound_config_digest, DesiredDigest(root));
  EXPECT_EQ(artifact.bound_before_digest, root.Ledger().resources.at("graph.old").digest);
  EXPECT_EQ(artifact.bound_after_digest, std::nullopt);
  EXPECT_EQ(artifact.approved_by, "andrew");
  EXPECT_EQ(artifact.consumed_at, std::nullopt);
  EXPECT_EQ(artifact.consumed_by_operation, std::nullopt);
  EXPECT_EQ(root.LedgerBytes(), ledger);  // approve leaves the ledger alone
  EXPECT_TRUE(RunPlan(root.Options()).plan.gates[0].satisfied);

  // Any config movement makes the artifact stale: it authorises nothing.
  root.Write("base.policy.yaml", "version: 1\nrules: []\n# edited\n");
  const PlanReport stale = RunPlan(root.Options());
  ASSERT_EQ(stale.plan.gates.size(), 1u);
  EXPECT_FALSE(stale.plan.gates[0].satisfied);
  EXPECT_TRUE(HasCode(stale.diagnostics, "approval_stale"));
}

// An export of `uri` running on its own thread, stopped inside its first
// piece until Release(): it holds the export-root exclusion all along.
class RunningExport {
 public:
  explicit RunningExport(const std::string& uri) {
    auto graph = api::Omnigraph::Open(uri);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    if (!graph.ok()) return;
    thread_ = std::thread([this, graph = std::move(*graph)]() mutable {
      bool first = true;
      result_ = graph->ExportTo({}, {}, [&](std::string_view) {
        if (first) {
          first = false;
          started_.set_value();
          released_.wait();
        }
        return Status::OK();
      });
      if (first) started_.set_value();  // it failed before any piece
    });
    started_.get_future().wait();
  }
  ~RunningExport() { (void)Release(); }
  // Lets the export finish and returns its result.
  Status Release() {
    if (thread_.joinable()) {
      release_.set_value();
      thread_.join();
    }
    return result_;
  }

 private:
  std::promise<void> started_;
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::thread thread_;
  Status result_;
};

// §7 scenario 22: a running export refuses the approved delete
// (graph_delete_export_in_progress), which leaves the graph, its ledger
// entries and the approval alone; the next apply deletes it, tombstones it
// and consumes the approval; a third writes nothing.
TEST(ClusterApplyTest, ExecutesApprovedGraphDelete) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  AddOldGraph(root, true);
  {
    auto old = api::Omnigraph::Open(root.At("graphs/old.omni"));
    ASSERT_TRUE(old.ok());
    ASSERT_TRUE((*old)->Load("{\"type\":\"Person\",\"data\":{\"name\":\"ada\"}}\n", "people.jsonl",
                             api::LoadMode::kAppend).ok());
  }
  const ApproveReport approval = RunApprove(root.Options("andrew"), "graph.old");
  ASSERT_TRUE(approval.ok);

  RunningExport exporting(root.At("graphs/old.omni"));
  const std::string before = root.LedgerBytes();
  const ApplyReport refused = RunApply(root.Options());
  EXPECT_FALSE(refused.ok);
  ASSERT_EQ(Codes(refused.diagnostics),
            (std::vector<std::string>{"graph_delete_export_in_progress", "apply_dependency_blocked",
                                      "apply_dependency_blocked", "apply_dependency_blocked"}))
      << Describe(refused.diagnostics);
  EXPECT_EQ(refused.diagnostics[0].severity, Severity::kError);
  EXPECT_EQ(refused.diagnostics[0].path, "graph.old");
  EXPECT_EQ(refused.diagnostics[0].message,
            "cannot delete graph root '" + root.At("graphs/old.omni") +
                "' while an export of it is running; re-run `cluster apply` when it ends");
  EXPECT_EQ(Dispositions(refused.changes),
            (std::vector<Row>{{"graph.old", "blocked", "graph_delete_failed"},
                              {"query.old.find_person", "blocked", "dependency_not_applied"},
                              {"schema.old", "blocked", "dependency_not_applied"}}));
  EXPECT_EQ(refused.applied_count, 0u);
  EXPECT_EQ(refused.deferred_count, 3u);
  EXPECT_FALSE(refused.converged);
  EXPECT_TRUE(refused.state_written);  // the blocked statuses
  EXPECT_TRUE(root.Exists("graphs/old.omni/__manifest"));
  {
    const ClusterState state = root.Ledger();
    const ClusterState previous = *ParseState(before);
    EXPECT_EQ(state.state_revision, previous.state_revision + 1);
    EXPECT_EQ(state.resources, previous.resources);  // the subtree stays authoritative
    EXPECT_EQ(state.resource_statuses.at("graph.old").conditions, std::vector<std::string>{"graph_delete_failed"});
    EXPECT_EQ(state.resource_statuses.at("schema.old").conditions,
              std::vector<std::string>{"dependency_not_applied"});
    EXPECT_EQ(state.observations.count("graph.old"), 0u);
    EXPECT_TRUE(state.approval_records.empty());
  }
  EXPECT_EQ(root.Approvals()[0].consumed_at, std::nullopt);
  EXPECT_TRUE(root.Sidecars().empty());
  // The export never saw a half-deleted root.
  EXPECT_TRUE(exporting.Release().ok());

  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_EQ(Dispositions(report.changes), (std::vector<Row>{{"graph.old", "applied", ""},
                                                            {"query.old.find_person", "applied", ""},
                                                            {"schema.old", "applied", ""}}));
  EXPECT_TRUE(report.converged);
  EXPECT_FALSE(root.Exists("graphs/old.omni"));
  const ClusterState state = root.Ledger();
  for (const char* address : {"graph.old", "schema.old", "query.old.find_person"}) {
    EXPECT_EQ(state.resources.count(address), 0u) << address;
    EXPECT_EQ(state.resource_statuses.count(address), 0u) << address;
  }
  const Observation& tombstone = state.observations.at("graph.old");
  EXPECT_EQ(tombstone.kind, "tombstone");
  EXPECT_EQ(tombstone.approval_id, approval.approval_id);
  EXPECT_EQ(tombstone.actor, "tester");
  EXPECT_EQ(state.approval_records.at(*approval.approval_id).consumed_by_operation, "apply");
  const ApprovalArtifact consumed = root.Approvals()[0];
  EXPECT_TRUE(consumed.consumed_at.has_value());
  EXPECT_EQ(consumed.consumed_by_operation, "apply");
  EXPECT_TRUE(root.Sidecars().empty());
  const std::string bytes = root.LedgerBytes();
  const ApplyReport again = RunApply(root.Options());
  EXPECT_TRUE(again.ok);
  EXPECT_TRUE(again.converged);
  EXPECT_FALSE(again.state_written);
  EXPECT_EQ(root.LedgerBytes(), bytes);
}

// A refused delete stops the run's later graph deletes (graph_delete_skipped),
// which the next apply carries out with their still-unconsumed approvals.
TEST(ClusterApplyTest, ADeleteRefusedForAnExportSkipsTheLaterDeletes) {
  ClusterRoot root;
  root.Seed();
  ASSERT_TRUE(RunApply(root.Options()).ok);
  AddOldGraph(root, true, "old");
  AddOldGraph(root, true, "older");
  {
    auto old = api::Omnigraph::Open(root.At("graphs/old.omni"));
    ASSERT_TRUE(old.ok());
    ASSERT_TRUE((*old)->Load("{\"type\":\"Person\",\"data\":{\"name\":\"ada\"}}\n", "people.jsonl",
                             api::LoadMode::kAppend).ok());
  }
  ASSERT_TRUE(RunApprove(root.Options("andrew"), "graph.old").ok);
  ASSERT_TRUE(RunApprove(root.Options("andrew"), "graph.older").ok);

  RunningExport exporting(root.At("graphs/old.omni"));
  const ApplyReport refused = RunApply(root.Options());
  EXPECT_FALSE(refused.ok);
  ASSERT_EQ(Codes(refused.diagnostics).size(), 8u) << Describe(refused.diagnostics);
  EXPECT_EQ(Codes(refused.diagnostics)[0], "graph_delete_export_in_progress");
  EXPECT_EQ(Codes(refused.diagnostics)[1], "graph_delete_skipped");
  EXPECT_EQ(refused.diagnostics[1].severity, Severity::kWarning);
  EXPECT_EQ(refused.diagnostics[1].path, "graph.older");
  EXPECT_EQ(refused.diagnostics[1].message,
            "graph 'older' was not deleted: an earlier graph operation of this run failed");
  EXPECT_EQ(Dispositions(refused.changes),
            (std::vector<Row>{{"graph.old", "blocked", "graph_delete_failed"},
                              {"graph.older", "blocked", "graph_delete_failed"},
                              {"query.old.find_person", "blocked", "dependency_not_applied"},
                              {"query.older.find_person", "blocked", "dependency_not_applied"},
                              {"schema.old", "blocked", "dependency_not_applied"},
                              {"schema.older", "blocked", "dependency_not_applied"}}));
  EXPECT_TRUE(root.Exists("graphs/old.omni/__manifest"));
  EXPECT_TRUE(root.Exists("graphs/older.omni/__manifest"));
  EXPECT_TRUE(exporting.Release().ok());

  const ApplyReport report = RunApply(root.Options());
  ASSERT_TRUE(report.ok) << Describe(report.diagnostics);
  EXPECT_TRUE(report.converged);
  EXPECT_EQ(report.applied_count, 6u);
  EXPECT_FALSE(root.Exists("graphs/old.omni"));
  EXPECT_FALSE(root.Exists("graphs/older.omni"));
  for (const ApprovalArtifact& artifact : root.Approvals()) EXPECT_TRUE(artifact.consumed_at.has_value());
}

}  // namespace apply_test
}  // namespace omnigraph::cluster::testing
