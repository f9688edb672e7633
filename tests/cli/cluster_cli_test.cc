// The `omnigraph cluster` verbs through the CLI (spec/cluster.md §4; §7
// scenarios 9, 28, 29 and the cookbook's Quick Start): human and JSON
// output, exit codes, flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/shared_files.h"
#include "util/sha256.h"

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

nlohmann::json Json(const CliRun& run) {
  EXPECT_FALSE(run.out.empty()) << run.err;
  return nlohmann::json::parse(run.out);
}

// The (resource, operation, disposition) of each change of a plan or apply.
std::vector<std::string> Changes(const nlohmann::json& out) {
  std::vector<std::string> rows;
  for (const auto& change : out["changes"]) {
    std::string row = change["resource"].get<std::string>() + " " + change["operation"].get<std::string>();
    if (change.contains("disposition")) row += " " + change["disposition"].get<std::string>();
    rows.push_back(row);
  }
  return rows;
}

std::vector<std::string> DiagnosticCodes(const nlohmann::json& out) {
  std::vector<std::string> codes;
  for (const auto& diagnostic : out["diagnostics"]) codes.push_back(diagnostic["code"]);
  return codes;
}

// The cookbook's Quick Start (README of corpus/industry-intel; §8 Q9).
TEST_F(ClusterCliTest, CookbookImportPlanApplyPublishesEveryQuery) {
  const std::filesystem::path cookbook = std::filesystem::path(OMNIGRAPH_SHARED_DIR) / "corpus" / "industry-intel";
  if (!std::filesystem::exists(cookbook / "cluster.yaml")) GTEST_SKIP() << "no shared corpus";
  const std::filesystem::path copy = std::filesystem::path(dir_.path()) / "intel";
  std::filesystem::copy(cookbook, copy, std::filesystem::copy_options::recursive);
  const std::string cwd = copy.string();

  CliRun imported = RunCli(cwd, "cluster import --config . --json");
  ASSERT_EQ(imported.rc, 0) << imported.out << imported.err;
  nlohmann::json out = Json(imported);
  EXPECT_EQ(out["operation"], "import");
  EXPECT_EQ(out["resource_statuses"]["graph.spike"]["conditions"], nlohmann::json::array({"graph_missing"}));

  CliRun planned = RunCli(cwd, "cluster plan --config . --json");
  ASSERT_EQ(planned.rc, 0) << planned.out;
  const size_t resources = Json(planned)["resource_digests"].size();
  EXPECT_EQ(Json(planned)["changes"].size(), resources);

  CliRun applied = RunCli(cwd, "cluster apply --config . --as me --json");
  ASSERT_EQ(applied.rc, 0) << applied.out;
  out = Json(applied);
  EXPECT_EQ(out["actor"], "me");
  EXPECT_EQ(out["applied_count"], resources);
  EXPECT_EQ(out["converged"], true);
  EXPECT_EQ(out["state_written"], true);
  EXPECT_TRUE(std::filesystem::is_directory(copy / "graphs" / "spike.omni"));
  size_t published = 0;
  for (const auto& [address, digest] : out["resource_statuses"].items()) {
    if (address.rfind("query.spike.", 0) != 0) continue;
    const std::string name = address.substr(12);
    EXPECT_TRUE(std::filesystem::exists(copy / "__cluster" / "resources" / "query" / "spike" / name)) << name;
    ++published;
  }
  EXPECT_GT(published, 50u);

  // §4.8: the cluster's graph changes only through its ledger.
  const std::string root = std::filesystem::canonical(copy).string();
  const std::string refusal = "' is a graph of the cluster at '" + root +
                              "', whose ledger is its only schema authority; change cluster.yaml or its schema and "
                              "run `omnigraph cluster apply` instead\n";
  CliRun init = RunCli(cwd, "init --schema schema.pg graphs/spike.omni");
  EXPECT_EQ(init.rc, 1);
  EXPECT_EQ(init.err, "error: init refused: '" + root + "/graphs/spike.omni" + refusal);
  CliRun schema = RunCli(cwd, "schema apply --schema schema.pg graphs/spike.omni");
  EXPECT_EQ(schema.rc, 1);
  EXPECT_EQ(schema.err, "error: schema apply refused: '" + root + "/graphs/spike.omni" + refusal);
  EXPECT_EQ(RunCli(cwd, "schema plan --schema schema.pg graphs/spike.omni").rc, 0);

  const std::string ledger = ReadFileText(copy / "__cluster" / "state.json");
  CliRun again = RunCli(cwd, "cluster apply --config . --as me --json");
  ASSERT_EQ(again.rc, 0);
  out = Json(again);
  EXPECT_EQ(out["changes"], nlohmann::json::array());
  EXPECT_EQ(out["state_written"], false);
  EXPECT_EQ(ReadFileText(copy / "__cluster" / "state.json"), ledger);

  CliRun human = RunCli(cwd, "cluster apply --config . --as me");
  EXPECT_EQ(human.out,
            "cluster apply: 0 applied, 0 deferred/blocked\n"
            "  state: revision 2, converged: true, written: false\n"
            "  note: cluster-booted servers (--cluster) serve this on their next restart; omnigraph.yaml "
            "deployments are unaffected\n");
}

// §7 scenario 9 (cli_cluster.rs :: cluster_plan_locked_state_exits_nonzero).
TEST_F(ClusterCliTest, PlanLockedStateExitsNonzero) {
  std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "cfg" / "__cluster");
  Write("cfg/__cluster/lock.json",
        "{\"version\":1,\"lock_id\":\"held-lock\",\"operation\":\"apply\",\"created_at\":"
        "\"2026-01-01T00:00:00Z\",\"pid\":123}");
  CliRun run = Run("cluster plan --config cfg --json");
  EXPECT_EQ(run.rc, 1);
  const nlohmann::json out = Json(run);
  EXPECT_EQ(out["ok"], false);
  EXPECT_EQ(out["state_observations"]["locked"], true);
  EXPECT_EQ(out["state_observations"]["lock_pid"], 123);
  EXPECT_EQ(out["state_observations"]["lock_id"], "held-lock");
  EXPECT_NE(out["diagnostics"][0]["message"].get<std::string>().find("force-unlock held-lock"), std::string::npos);

  CliRun status = Run("cluster status --config cfg");
  EXPECT_EQ(status.rc, 0);
  EXPECT_EQ(status.out.rfind("cluster state missing\n  lock: held (id=held-lock, operation=apply, pid=123, "
                             "created_at=2026-01-01T00:00:00Z, age_seconds=",
                             0),
            0u)
      << status.out;
  CliRun mismatch = Run("cluster force-unlock other --config cfg");
  EXPECT_EQ(mismatch.rc, 1);
  EXPECT_EQ(mismatch.out.rfind("cluster force-unlock failed\n  lock: held (id=held-lock, ", 0), 0u) << mismatch.out;
  CliRun removed = Run("cluster force-unlock held-lock --config cfg");
  EXPECT_EQ(removed.rc, 0);
  EXPECT_EQ(removed.out, "cluster force-unlock: removed lock (id=held-lock)\n");
}

// Creates cfg/graphs/knowledge.omni from people.pg with `omnigraph init`.
void InitKnowledge(const std::function<CliRun(const std::string&)>& run) {
  CliRun init = run("init cfg/graphs/knowledge.omni --schema cfg/people.pg");
  ASSERT_EQ(init.rc, 0) << init.out << init.err;
}

// §7 scenario 28 (cli_cluster_e2e.rs :: cluster_e2e_lifecycle_…).
TEST_F(ClusterCliTest, EndToEndLifecycle) {
  InitKnowledge([&](const std::string& args) { return Run(args); });
  CliRun imported = Run("cluster import --config cfg");
  ASSERT_EQ(imported.rc, 0) << imported.out;
  EXPECT_EQ(imported.out.rfind("cluster import: revision 1, 2 resource(s)\n  state_cas: sha256:", 0), 0u)
      << imported.out;
  EXPECT_NE(imported.out.find("\n  lock: not acquired\n"), std::string::npos);

  nlohmann::json plan = Json(Run("cluster plan --config cfg --json"));
  EXPECT_EQ(Changes(plan), (std::vector<std::string>{"graph.knowledge update derived", "policy.base create applied",
                                                     "query.knowledge.find_person create applied"}));
  EXPECT_EQ(plan["approvals_required"], nlohmann::json::array());
  EXPECT_EQ(plan["blast_radius"][0]["resource"], "graph.knowledge");

  CliRun applied = Run("cluster apply --config cfg --as andrew");
  ASSERT_EQ(applied.rc, 0) << applied.out;
  EXPECT_EQ(applied.out.rfind("cluster apply: 2 applied, 0 deferred/blocked\n"
                              "  Update graph.knowledge [Derived]\n"
                              "  Create policy.base [Applied]\n"
                              "  Create query.knowledge.find_person [Applied]\n"
                              "  state: revision 2, converged: true, written: true\n",
                              0),
            0u)
      << applied.out;

  ASSERT_EQ(Run("cluster refresh --config cfg").rc, 0);
  CliRun empty = Run("cluster plan --config cfg");
  EXPECT_EQ(empty.out, "cluster plan: 0 change(s), 0 approval gate(s)\n  no changes\n");

  Write("cfg/queries/people.gq",
        "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name, $p.age }\n}\n");
  nlohmann::json edited = Json(Run("cluster apply --config cfg --as andrew --json"));
  EXPECT_EQ(edited["applied_count"], 1);
  EXPECT_EQ(Changes(edited), (std::vector<std::string>{"graph.knowledge update derived",
                                                       "query.knowledge.find_person update applied"}));

  CliRun status = Run("cluster status --config cfg --json");
  EXPECT_EQ(Json(status)["state_observations"]["state_revision"], 4);
}

// §7 scenario 29: drift, root destruction.
TEST_F(ClusterCliTest, DriftPreviewAndRootDestruction) {
  InitKnowledge([&](const std::string& args) { return Run(args); });
  ASSERT_EQ(Run("cluster import --config cfg").rc, 0);
  ASSERT_EQ(Run("cluster apply --config cfg --as andrew").rc, 0);
  Write("cfg/people.pg", "node Person {\n    name: String @key\n}\n");
  Write("cfg/queries/people.gq",
        "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name }\n}\n");
  nlohmann::json plan = Json(Run("cluster plan --config cfg --json"));
  const nlohmann::json& schema = plan["changes"].back();
  ASSERT_EQ(schema["resource"], "schema.knowledge");
  EXPECT_EQ(schema["migration"]["supported"], true);
  ASSERT_EQ(schema["migration"]["steps"].size(), 1u);
  EXPECT_EQ(schema["migration"]["steps"][0]["kind"], "drop_property");
  EXPECT_EQ(schema["migration"]["steps"][0]["mode"], "soft");
  ASSERT_EQ(Run("cluster apply --config cfg --as andrew").rc, 0);

  std::filesystem::remove_all(std::filesystem::path(dir_.path()) / "cfg" / "graphs");
  ASSERT_EQ(Run("cluster refresh --config cfg").rc, 0);
  nlohmann::json recreate = Json(Run("cluster plan --config cfg --json"));
  EXPECT_EQ(Changes(recreate), (std::vector<std::string>{"graph.knowledge create applied",
                                                         "schema.knowledge create applied"}));
  ASSERT_EQ(Run("cluster apply --config cfg --as andrew").rc, 0);
  EXPECT_EQ(Json(Run("cluster plan --config cfg --json"))["changes"], nlohmann::json::array());
}

// §7 scenario 29: a multi-graph cluster drops a graph and rebinds its policy.
TEST_F(ClusterCliTest, MultiGraphDeleteNeedsOneApproval) {
  Write("cfg/cluster.yaml",
        "version: 1\n"
        "graphs:\n"
        "  knowledge:\n    schema: people.pg\n    queries: queries/\n"
        "  scratch:\n    schema: people.pg\n"
        "policies:\n"
        "  base:\n    file: base.policy.yaml\n    applies_to: [knowledge, scratch]\n");
  ASSERT_EQ(Run("cluster import --config cfg").rc, 0);
  ASSERT_EQ(Run("cluster apply --config cfg --as andrew").rc, 0);
  Write("cfg/cluster.yaml", kCluster);
  nlohmann::json plan = Json(Run("cluster plan --config cfg --json"));
  EXPECT_EQ(Changes(plan), (std::vector<std::string>{"graph.scratch delete blocked", "policy.base update applied",
                                                     "schema.scratch delete blocked"}));
  EXPECT_EQ(plan["changes"][1]["binding_change"], true);
  EXPECT_EQ(plan["changes"][1]["metadata_change"], "policy_bindings");
  ASSERT_EQ(plan["approvals_required"].size(), 1u);
  EXPECT_EQ(plan["approvals_required"][0],
            (nlohmann::json{{"resource", "graph.scratch"},
                            {"reason", "delete may remove deployed graph or schema definition"},
                            {"satisfied", false}}));
  CliRun planned = Run("cluster plan --config cfg");
  EXPECT_EQ(planned.out.rfind("cluster plan: 3 change(s), 1 approval gate(s)\n"
                              "  Delete graph.scratch\n"
                              "  Update policy.base [bindings]\n"
                              "  Delete schema.scratch\n",
                              0),
            0u)
      << planned.out;

  CliRun blocked = Run("cluster apply --config cfg --as andrew");
  EXPECT_EQ(blocked.rc, 0);
  EXPECT_NE(blocked.out.find("  Delete graph.scratch [Blocked: approval_required]\n"), std::string::npos);

  CliRun anonymous = Run("cluster approve graph.scratch --config cfg");
  EXPECT_EQ(anonymous.rc, 1);
  EXPECT_EQ(anonymous.err,
            "`cluster approve` requires an approver: pass the global --as <ACTOR> flag or set `operator.actor` in "
            "~/.omnigraph/config.yaml — an approval without an approver is meaningless\n");
  CliRun approved = Run("cluster approve graph.scratch --config cfg --as andrew");
  ASSERT_EQ(approved.rc, 0) << approved.out;
  EXPECT_EQ(approved.out.rfind("cluster approve: delete graph.scratch approved by andrew (approval ", 0), 0u);

  nlohmann::json applied = Json(Run("cluster apply --config cfg --as andrew --json"));
  EXPECT_EQ(applied["ok"], true);
  EXPECT_EQ(applied["converged"], true);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir_.path()) / "cfg" / "graphs" / "scratch.omni"));
  EXPECT_EQ(Json(Run("cluster plan --config cfg --json"))["changes"], nlohmann::json::array());
}

TEST_F(ClusterCliTest, ActorComesFromOperatorConfigAndAsIsRefusedElsewhere) {
  std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "home");
  Write("home/config.yaml", "operator:\n  actor: ops-bot\n");
  ASSERT_EQ(Run("cluster import --config cfg").rc, 0);
  EXPECT_EQ(Json(Run("cluster apply --config cfg --json"))["actor"], "ops-bot");
  EXPECT_EQ(Run("cluster plan --config cfg --as someone").rc, 2);
  EXPECT_EQ(Run("cluster status --config cfg --as someone").rc, 2);
  EXPECT_EQ(Run("cluster import --config cfg --as someone").rc, 2);
}

}  // namespace cluster_cli_test
}  // namespace omnigraph::testing
