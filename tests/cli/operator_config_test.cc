// The operator config file (spec/surface.md §5.5).
#include "cli/operator_config.h"
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace omnigraph::cli {
namespace operator_config_test {

TEST(OperatorConfig, PathFollowsOmnigraphHomeThenHome) {
  EXPECT_EQ(OperatorConfigPath("/opt/og", "/home/ann"), "/opt/og/config.yaml");
  EXPECT_EQ(OperatorConfigPath("", "/home/ann"), "/home/ann/.omnigraph/config.yaml");
  EXPECT_EQ(OperatorConfigPath(nullptr, "/home/ann"), "/home/ann/.omnigraph/config.yaml");
  EXPECT_EQ(OperatorConfigPath(nullptr, nullptr), "");
}

TEST(OperatorConfig, ReadsTheKeysThatApplyToLocalGraphs) {
  auto config = ParseOperatorConfig(R"(
operator:
  actor: ann
defaults:
  output: csv
  store: ./graph.omni
  table_max_column_width: 12
  table_cell_layout: wrap
  server: prod
  default_graph: g
servers:
  prod:
    url: https://og.example.com
clusters:
  main:
    root: s3://bucket/root
profiles:
  work:
    store: /srv/g
  remote:
    server: prod
    default_graph: people
aliases:
  people:
    server: prod
    query: people
    format: json
)",
                                    "c.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->path, "c.yaml");
  EXPECT_EQ(config->actor, "ann");
  EXPECT_EQ(config->output, exec::OutputFormat::kCsv);
  EXPECT_EQ(config->store, "./graph.omni");
  EXPECT_EQ(config->table_max_column_width, 12u);
  EXPECT_TRUE(config->table_cell_wrap);
  ASSERT_EQ(config->profiles.size(), 2u);
  EXPECT_EQ(config->profiles.at("work").store, "/srv/g");
  EXPECT_FALSE(config->profiles.at("work").server.has_value());
  EXPECT_EQ(config->profiles.at("remote").server, "prod");
  EXPECT_EQ(config->profiles.at("remote").default_graph, "people");
  EXPECT_FALSE(config->profiles.at("remote").store.has_value());
  EXPECT_EQ(config->clusters.at("main"), "s3://bucket/root");
  EXPECT_TRUE(config->warnings.empty());
}

TEST(OperatorConfig, EmptyFilesAndSectionsAreEmptyConfigs) {
  for (const char* text : {"", "# only a comment\n", "defaults:\n", "operator: ~\n"}) {
    auto config = ParseOperatorConfig(text, "c.yaml");
    ASSERT_TRUE(config.ok()) << text << ": " << config.status().ToString();
    EXPECT_FALSE(config->output.has_value()) << text;
    EXPECT_FALSE(config->store.has_value()) << text;
    EXPECT_FALSE(config->table_cell_wrap) << text;
    EXPECT_TRUE(config->warnings.empty()) << text;
  }
}

TEST(OperatorConfig, UnknownKeysWarnInFileOrder) {
  auto config = ParseOperatorConfig(
      "colour: blue\ndefaults:\n  output: json\n  outptu: csv\nservers:\n  prod:\n    url: x\n    token: y\n",
      "c.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->output, exec::OutputFormat::kJson);
  EXPECT_EQ(config->warnings, (std::vector<std::string>{"c.yaml: unknown key 'colour'",
                                                        "c.yaml: unknown key 'defaults.outptu'",
                                                        "c.yaml: unknown key 'servers.prod.token'"}));
}

TEST(OperatorConfig, BadValuesNameTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"defaults:\n  output: xml\n", "c.yaml:2:11: defaults.output must be table, kv, csv, jsonl or json, got 'xml'"},
      {"defaults:\n  table_max_column_width: 0\n",
       "c.yaml:2:27: defaults.table_max_column_width must be a positive whole number of columns, got '0'"},
      {"defaults:\n  table_max_column_width: wide\n",
       "c.yaml:2:27: defaults.table_max_column_width must be a positive whole number of columns, got 'wide'"},
      {"defaults:\n  table_cell_layout: fold\n",
       "c.yaml:2:22: defaults.table_cell_layout must be truncate or wrap, got 'fold'"},
      {"defaults:\n  output: [csv]\n", "c.yaml:2:11: defaults.output must be a single value"},
      {"defaults: csv\n", "c.yaml:1:11: defaults must be a map"},
      {"- a\n- b\n", "c.yaml:1:1: the file must be a map of sections"},
      {"operator:\n  actor: ''\n", "c.yaml:2:10: operator.actor must be a non-empty actor id"},
      {"profiles:\n  work:\n    store: [a, b]\n", "c.yaml:3:12: profiles.work.store must be a single non-empty value"},
      {"profiles:\n  work:\n    store: ''\n", "c.yaml:3:12: profiles.work.store must be a single non-empty value"},
      {"profiles:\n  work: /srv/g\n", "c.yaml:2:9: profiles.work must be a map"},
      {"profiles:\n  work:\n    store: /a\n    server: prod\n",
       "c.yaml:2:3: profiles.work must be one of store, server or cluster"},
      // Duplicate keys would leave the winner to their order.
      {"profiles:\n  w:\n    store: /a\n  w:\n    store: /b\n", "c.yaml:4:3: duplicate key 'profiles.w'"},
      {"profiles:\n  w:\n    store: /a\n    store: /b\n", "c.yaml:4:5: duplicate key 'profiles.w.store'"},
      {"defaults:\n  store: /a\ndefaults:\n  store: /b\n", "c.yaml:3:1: duplicate key 'defaults'"},
      {"defaults:\n  store: /a\n  store: /b\n", "c.yaml:3:3: duplicate key 'defaults.store'"},
  };
  for (const auto& [text, message] : cases) {
    auto config = ParseOperatorConfig(text, "c.yaml");
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().code(), ErrorCode::kInvalidArgument) << text;
    EXPECT_EQ(config.status().message(), message) << text;
  }
}

TEST(OperatorConfig, ReadsAliases) {
  auto config = ParseOperatorConfig(R"(
aliases:
  older:
    server: prod
    graph: g1
    query: older
    args: [min, name]
    params:
      limit: 10
      ratio: 0.5
      exact: true
      missing: ~
      code: "007"
      label: plain text
      tags: [a, 2]
    format: csv
  bare:
    server: https://og.example.com
    query: people
)",
                                    "c.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->warnings.empty());
  ASSERT_EQ(config->aliases.size(), 2u);
  const OperatorAlias& older = config->aliases.at("older");
  EXPECT_EQ(older.server, "prod");
  EXPECT_EQ(older.graph, "g1");
  EXPECT_EQ(older.query, "older");
  EXPECT_EQ(older.args, (std::vector<std::string>{"min", "name"}));
  // Plain scalars read as YAML's core schema does; quoted ones stay strings.
  EXPECT_EQ(older.params_json,
            R"({"code":"007","exact":true,"label":"plain text","limit":10,"missing":null,"ratio":0.5,"tags":["a",2]})");
  EXPECT_EQ(older.format, exec::OutputFormat::kCsv);
  const OperatorAlias& bare = config->aliases.at("bare");
  EXPECT_EQ(bare.server, "https://og.example.com");
  EXPECT_FALSE(bare.graph.has_value());
  EXPECT_TRUE(bare.args.empty());
  EXPECT_EQ(bare.params_json, "{}");
  EXPECT_FALSE(bare.format.has_value());
}

TEST(OperatorConfig, BadAliasesNameTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"aliases:\n  a:\n    args: min\n", "c.yaml:3:11: aliases.a.args must be a list of parameter names"},
      {"aliases:\n  a:\n    args: [[x]]\n", "c.yaml:3:12: aliases.a.args must be a list of parameter names"},
      {"aliases:\n  a:\n    params: [1]\n", "c.yaml:3:13: aliases.a.params must be a map of parameter values"},
      {"aliases:\n  a:\n    format: xml\n",
       "c.yaml:3:13: aliases.a.format must be table, kv, csv, jsonl or json, got 'xml'"},
      {"aliases:\n  a:\n    query: [q]\n", "c.yaml:3:12: aliases.a.query must be a single non-empty value"},
  };
  for (const auto& [text, message] : cases) {
    auto config = ParseOperatorConfig(text, "c.yaml");
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().message(), message) << text;
  }
  auto unknown = ParseOperatorConfig("aliases:\n  a:\n    query: q\n    branch: b\n", "c.yaml");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->warnings, (std::vector<std::string>{"c.yaml: unknown key 'aliases.a.branch'"}));
}

TEST(OperatorConfig, SyntaxErrorsNameLineAndColumn) {
  auto config = ParseOperatorConfig("defaults:\n  output: csv\n  store: [unclosed\n", "c.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(config.status().message().rfind("c.yaml:4:1: ", 0), 0u) << config.status().message();
}

TEST(OperatorConfig, DeepNestingIsRefusedWithItsReason) {
  // yaml-cpp stops deep nesting with the message "bad file"; the
  // message must say what is wrong with the file.
  std::string flow = "defaults: " + std::string(2100, '[') + std::string(2100, ']') + "\n";
  auto config = ParseOperatorConfig(flow, "c.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(config.status().message(), "c.yaml:1:4211: nested too deeply for the YAML parser");
}

// omnigraph.yaml, the cookbooks' per-project file: aliases of stored reads
// on the served graph of cli.graph (or the alias's own graph).
TEST(ProjectConfig, AliasesRunStoredReadsOnTheServedGraph) {
  auto config = ParseProjectConfig(R"(
project: {name: x}
graphs:
  local: {uri: graphs/g.omni}
  served:
    uri: http://127.0.0.1:8080/graphs/spike/
    bearer_token_env: MY_TOKEN
  single: {uri: https://og.example.com}
cli:
  graph: served
  branch: dev
  output_format: csv
  table_max_column_width: 40
  table_cell_layout: wrap
query: {roots: [queries]}
aliases:
  signal: {command: read, query: signals.gq, name: get_signal, args: [slug], format: kv}
  recent: {query: signals.gq, name: recent_signals, params: {limit: 5}, branch: main}
  add: {command: change, query: m.gq, name: add_signal}
  nameless: {command: read, query: signals.gq}
  local: {name: q, graph: local}
  single: {name: q, graph: single}
  missing: {name: q, graph: nope}
)",
                                   "omnigraph.yaml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->table_max_column_width, 40u);
  EXPECT_TRUE(config->table_cell_wrap);
  const ProjectAlias& signal = config->aliases.at("signal");
  EXPECT_EQ(signal.problem, "");
  EXPECT_EQ(signal.alias.server, "http://127.0.0.1:8080");
  EXPECT_EQ(signal.alias.graph, "spike");
  EXPECT_EQ(signal.alias.query, "get_signal");
  EXPECT_EQ(signal.alias.args, std::vector<std::string>{"slug"});
  EXPECT_EQ(signal.alias.format, exec::OutputFormat::kKv);
  EXPECT_EQ(signal.branch, "dev");
  EXPECT_EQ(signal.token_env, "MY_TOKEN");
  const ProjectAlias& recent = config->aliases.at("recent");
  EXPECT_EQ(recent.problem, "");
  EXPECT_EQ(recent.alias.format, exec::OutputFormat::kCsv);  // cli.output_format
  EXPECT_EQ(recent.alias.params_json, R"({"limit":5})");
  EXPECT_EQ(recent.branch, "main");
  EXPECT_EQ(config->aliases.at("add").problem, "alias 'add' runs `change`; `alias` runs stored read queries only");
  EXPECT_EQ(config->aliases.at("nameless").problem,
            "alias 'nameless' names no stored query (aliases.nameless.name, the query in signals.gq)");
  EXPECT_EQ(config->aliases.at("local").problem,
            "alias 'local' addresses graphs.local ('graphs/g.omni'), which is no served graph; `alias` runs stored "
            "queries on a server: point it at http(s)://<host>/graphs/<id>");
  EXPECT_EQ(config->aliases.at("single").problem,
            "alias 'single' addresses graphs.single ('https://og.example.com'), which is no served graph; `alias` "
            "runs stored queries on a server: point it at http(s)://<host>/graphs/<id>");
  EXPECT_EQ(config->aliases.at("missing").problem,
            "alias 'missing' addresses graph 'nope', which omnigraph.yaml does not declare under graphs");

  auto bad = ParseProjectConfig("aliases:\n  x: {name: q, args: slug}\n", "omnigraph.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "omnigraph.yaml:2:22: aliases.x.args must be a list of parameter names");
  auto empty = ParseProjectConfig("", "omnigraph.yaml");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->aliases.empty());
}

}  // namespace operator_config_test
}  // namespace omnigraph::cli
