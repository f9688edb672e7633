// The global `--cluster DIR|URI` flag (spec/surface.md §5.1) on the verbs
// that take it: the maintenance verbs (optimize, repair, cleanup, lint)
// reach the graph `--graph ID` selects (else the cluster's only graph) at
// the root the cluster's applied state records, and print exactly what
// the same verb prints given that root; `queries` and `policy` read the
// cluster config directory. Every other verb still refuses the flag.
#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::testing {
namespace cluster_addressing_cli_test {

constexpr std::string_view kSchema = "node Person {\n    name: String @key\n    age: I32?\n}\n";
constexpr std::string_view kQuery =
    "query find_person($name: String) {\n    match { $p: Person { name: $name } }\n    return { $p.name }\n}\n";
constexpr std::string_view kData = "{\"type\":\"Person\",\"data\":{\"name\":\"ann\",\"age\":30}}\n";
constexpr std::string_view kCluster =
    "version: 1\n"
    "graphs:\n"
    "  knowledge:\n"
    "    schema: people.pg\n"
    "    queries: queries/\n"
    "policies:\n"
    "  base:\n"
    "    file: base.policy.yaml\n"
    "    applies_to: [knowledge]\n"
    "  server:\n"
    "    file: server.policy.yaml\n"
    "    applies_to: [cluster]\n";
constexpr std::string_view kGraphPolicy =
    "version: 1\ngroups:\n  readers: [act-r]\nrules:\n  - id: read\n    allow: {actors: {group: readers}, "
    "actions: [read]}\n";
constexpr std::string_view kServerPolicy =
    "version: 1\ngroups:\n  admins: [act-a]\nrules:\n  - id: list\n    allow: {actors: {group: admins}, "
    "actions: [graph_list]}\n";

// A cluster config directory `cfg`, imported and applied (its graph
// `knowledge` at cfg/graphs/knowledge.omni holds one person).
class ClusterAddressingCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "cfg" / "queries");
    Write("cfg/people.pg", kSchema);
    Write("cfg/base.policy.yaml", kGraphPolicy);
    Write("cfg/server.policy.yaml", kServerPolicy);
    Write("cfg/queries/people.gq", kQuery);
    Write("cfg/cluster.yaml", kCluster);
    Write("cfg/data.jsonl", kData);
    for (const char* step : {"cluster import --config .", "cluster apply --config . --as tester",
                             "load --data data.jsonl --mode overwrite graphs/knowledge.omni --quiet"}) {
      CliRun run = InCluster(step);
      ASSERT_EQ(run.rc, 0) << step << "\n" << run.out << run.err;
    }
    root_ = (std::filesystem::canonical(dir_.path()) / "cfg" / "graphs" / "knowledge.omni").string();
  }

  CliRun InCluster(const std::string& args) { return RunCli(dir_.path() + "/cfg", args); }

  // `args` with `--cluster . --graph knowledge` and with the graph's root
  // as the positional URI: the same exit code, stdout and stderr.
  void ExpectSameAsRoot(const std::string& verb, const std::string& rest) {
    CliRun by_root = InCluster(verb + " " + root_ + rest);
    CliRun by_cluster = InCluster(verb + " --cluster . --graph knowledge" + rest);
    EXPECT_EQ(by_cluster.rc, by_root.rc) << verb << "\n" << by_cluster.err;
    EXPECT_EQ(by_cluster.out, by_root.out) << verb;
    EXPECT_EQ(by_cluster.err, by_root.err) << verb;
    EXPECT_EQ(by_cluster.rc, 0) << verb << "\n" << by_cluster.err;
  }

  std::string root_;
};

TEST_F(ClusterAddressingCliTest, MaintenanceVerbsReachTheAppliedGraph) {
  CliRun optimized = InCluster("optimize --cluster . --graph knowledge");
  EXPECT_EQ(optimized.rc, 0) << optimized.err;
  EXPECT_EQ(optimized.err, "omnigraph optimize → " + root_ + " (direct, local)\n");
  EXPECT_EQ(optimized.out.rfind("optimize " + root_ + " — 1 datasets\n", 0), 0u) << optimized.out;

  ExpectSameAsRoot("optimize", "");
  ExpectSameAsRoot("optimize", " --json");
  ExpectSameAsRoot("repair", "");
  ExpectSameAsRoot("repair", " --json");
  ExpectSameAsRoot("cleanup", " --keep 1");
  ExpectSameAsRoot("cleanup", " --keep 1 --json");  // a preview: nothing deleted
  ExpectSameAsRoot("lint", " --query queries/people.gq");
  ExpectSameAsRoot("lint", " --query queries/people.gq --json");

  CliRun cleaned = InCluster("cleanup --cluster . --graph knowledge --keep 1 --confirm");
  EXPECT_EQ(cleaned.rc, 0) << cleaned.err;
  EXPECT_EQ(cleaned.err, "omnigraph cleanup → " + root_ + " (direct, local)\n");
  EXPECT_EQ(cleaned.out.rfind("cleanup " + root_ + " (keep 1) — removed ", 0), 0u) << cleaned.out;

  // The cluster's only graph needs no --graph; --quiet drops the echo.
  CliRun sole = InCluster("optimize --cluster . --quiet");
  EXPECT_EQ(sole.rc, 0) << sole.err;
  EXPECT_EQ(sole.err, "");
  EXPECT_EQ(sole.out.rfind("optimize " + root_ + " — 1 datasets\n", 0), 0u) << sole.out;
  // From elsewhere, the directory is named as any path is.
  CliRun from_outside = Run("repair --cluster cfg --graph knowledge --json");
  EXPECT_EQ(from_outside.rc, 0) << from_outside.err;
  EXPECT_EQ(nlohmann::json::parse(from_outside.out)["uri"], root_);
}

TEST_F(ClusterAddressingCliTest, ClusterAddressingErrors) {
  CliRun unknown = InCluster("repair --cluster . --graph nope");
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "error: the cluster at '.' has no applied graph 'nope' (graphs: knowledge)\n");

  CliRun both = InCluster("optimize --cluster . --graph knowledge graphs/knowledge.omni");
  EXPECT_EQ(both.rc, 2);
  EXPECT_EQ(both.err, "error: pass the graph either as 'graphs/knowledge.omni' or with --cluster, not both\n");

  CliRun store = InCluster("cleanup --cluster . --store graphs/knowledge.omni --keep 1");
  EXPECT_EQ(store.rc, 2);
  EXPECT_EQ(store.err, "error: pass the graph either with --store or with --cluster, not both\n");

  CliRun schema = InCluster("lint --cluster . --query queries/people.gq --schema people.pg");
  EXPECT_EQ(schema.rc, 2);
  EXPECT_EQ(schema.err, "error: pass the schema either with --schema or as a graph of --cluster, not both\n");

  // A config that does not load is one line, its diagnostics joined.
  CliRun no_config = InCluster("policy validate --cluster nowhere");
  EXPECT_EQ(no_config.rc, 1);
  EXPECT_TRUE(no_config.err.starts_with("error: cannot load the cluster config '")) << no_config.err;
  EXPECT_NE(no_config.err.find("': ERROR config_dir_not_found "), std::string::npos) << no_config.err;
  EXPECT_EQ(std::count(no_config.err.begin(), no_config.err.end(), '\n'), 1) << no_config.err;
  EXPECT_EQ(no_config.err.find("\\x0A"), std::string::npos) << no_config.err;

  std::filesystem::create_directories(std::filesystem::path(dir_.path()) / "empty");
  CliRun no_ledger = Run("optimize --cluster empty");
  EXPECT_EQ(no_ledger.rc, 1);
  EXPECT_EQ(no_ledger.err, "error: no cluster state ledger at '" +
                               (std::filesystem::canonical(dir_.path()) / "empty").string() +
                               "'; run `cluster import` and `cluster apply` first\n");

  // Verbs §5.1 does not list keep refusing it.
  CliRun query = InCluster("query --cluster . -e 'query q() { match { $p: Person } return { $p.name } }'");
  EXPECT_EQ(query.rc, 2);
  EXPECT_EQ(query.err,
            "error: --cluster addresses a cluster, which this command does not reach; address a graph with a path, "
            "--store <path> or --server <url> --graph <id>\n");
  CliRun validate = InCluster("cluster validate --cluster .");
  EXPECT_EQ(validate.rc, 2);
  EXPECT_EQ(validate.err, "error: `cluster validate` does not take --cluster\n");
  CliRun branch = InCluster("branch list --cluster . --graph knowledge");
  EXPECT_EQ(branch.rc, 2);
  EXPECT_EQ(branch.err.rfind("error: --cluster addresses a cluster", 0), 0u) << branch.err;
}

TEST_F(ClusterAddressingCliTest, QueriesReadTheClusterConfig) {
  CliRun by_config = InCluster("queries list --config .");
  CliRun by_cluster = InCluster("queries list --cluster .");
  EXPECT_EQ(by_cluster.rc, 0) << by_cluster.err;
  EXPECT_EQ(by_cluster.out, "knowledge\tfind_person\tqueries/people.gq\n");
  EXPECT_EQ(by_cluster.out, by_config.out);
  EXPECT_EQ(Run("queries list --cluster cfg").out, by_cluster.out);

  CliRun validate = InCluster("queries validate --cluster . --graph knowledge");
  EXPECT_EQ(validate.rc, 0) << validate.err;
  EXPECT_EQ(validate.out, "queries valid: 1 query across 1 graph(s)\n");

  CliRun unknown = InCluster("queries list --cluster . --graph nope");
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.err, "error: the cluster config '.' declares no graph 'nope' (graphs: knowledge)\n");
  CliRun graph_alone = InCluster("queries list --graph knowledge");
  EXPECT_EQ(graph_alone.rc, 2);
  CliRun uri = InCluster("queries list --cluster file:///tmp");
  EXPECT_EQ(uri.rc, 2);
  EXPECT_EQ(uri.err,
            "error: --cluster 'file:///tmp' is a storage root; this command reads a cluster config directory (the "
            "one holding cluster.yaml)\n");
  CliRun conflict = InCluster("queries list --cluster . --config ..");
  EXPECT_EQ(conflict.rc, 2);
  EXPECT_EQ(conflict.err, "error: pass the cluster either with --cluster or with --config, not both\n");
}

TEST_F(ClusterAddressingCliTest, PolicyReadsTheClusterBundles) {
  CliRun validate = InCluster("policy validate --cluster .");
  EXPECT_EQ(validate.rc, 0) << validate.err;
  EXPECT_EQ(validate.out,
            "policy valid: ./base.policy.yaml [graph bundle, 1 actors, 1 rules]\n"
            "policy valid: ./server.policy.yaml [cluster bundle, 1 actors, 1 rules]\n");
  EXPECT_EQ(validate.err, "");

  CliRun one = InCluster("policy validate --cluster . --graph knowledge --json");
  EXPECT_EQ(one.rc, 0) << one.err;
  EXPECT_EQ(nlohmann::ordered_json::parse(one.out).dump(),
            R"({"cluster":".","valid":true,"bundles":[{"file":"./base.policy.yaml","valid":true,"binding":"graph",)"
            R"("groups":1,"actors":1,"rules":1,"protected_branches":[],"errors":[]}]})");

  CliRun explain = InCluster("policy explain --cluster . --graph knowledge --actor act-r --action read");
  EXPECT_EQ(explain.rc, 0) << explain.err;
  EXPECT_EQ(explain.out,
            "decision: allow\nactor: act-r\naction: read\nmatched_rule: read\n"
            "message: policy allowed action 'read' for actor 'act-r'\n");

  CliRun ambiguous = InCluster("policy explain --cluster . --actor act-r --action read");
  EXPECT_EQ(ambiguous.rc, 2);
  EXPECT_EQ(ambiguous.err,
            "error: the cluster config declares 2 policy bundles (base, server); pass --graph <id> to select the "
            "one bound to that graph\n");
  CliRun both = InCluster("policy validate base.policy.yaml --cluster .");
  EXPECT_EQ(both.rc, 2);
  EXPECT_EQ(both.err, "error: pass either a policy bundle file or --cluster, not both\n");
  CliRun neither = InCluster("policy validate");
  EXPECT_EQ(neither.rc, 2);
  EXPECT_EQ(neither.err, "error: pass a policy bundle file, or --cluster <dir> [--graph <id>]\n");

  // A bundle the config binds to the cluster is checked as cluster-bound.
  Write("cfg/server.policy.yaml", kGraphPolicy);
  CliRun misbound = InCluster("policy validate --cluster .");
  EXPECT_EQ(misbound.rc, 1);
  EXPECT_EQ(misbound.out, "policy valid: ./base.policy.yaml [graph bundle, 1 actors, 1 rules]\n");
  EXPECT_EQ(misbound.err,
            "error: ./server.policy.yaml:6:49: policy rule 'read' grants the per-graph action 'read', which a "
            "cluster-bound bundle cannot grant\n");
  // Its binding is checked even when the bundle has other errors: all show at once.
  std::string version_two(kGraphPolicy);
  version_two.replace(version_two.find("version: 1"), 10, "version: 2");
  Write("cfg/server.policy.yaml", version_two);
  CliRun every = InCluster("policy validate --cluster . --json");
  EXPECT_EQ(every.rc, 1);
  nlohmann::ordered_json report = nlohmann::ordered_json::parse(every.out)["bundles"][1];
  EXPECT_EQ(report["binding"], "cluster");
  ASSERT_EQ(report["errors"].size(), 2u) << report.dump();
  EXPECT_EQ(report["errors"][1]["message"],
            "./server.policy.yaml:6:49: policy rule 'read' grants the per-graph action 'read', which a "
            "cluster-bound bundle cannot grant");
}

}  // namespace cluster_addressing_cli_test
}  // namespace omnigraph::testing
