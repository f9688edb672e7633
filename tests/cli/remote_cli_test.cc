// The CLI's served commands (surface.md §5.1 `--server NAME|URL --graph
// ID`, §5.3, §5.4, §5.5) against a real omnigraph-server of this build:
// every read prints byte for byte what the same command prints against
// the store (json, jsonl, table, csv, kv, export, snapshot, branches,
// commits); errors keep the local message and exit code (412 → 4); served
// writes echo their target and refuse --as; the bearer token follows the
// operator chain OMNIGRAPH_TOKEN_<NAME> → credentials → OMNIGRAPH_BEARER_TOKEN.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/wire/report_json.h"
#include "cli/remote/changes_reader.h"
#include "cli/remote/credentials.h"
#include "cli/remote/http_client.h"
#include "cli/remote/read_output.h"
#include "cli/remote/schema_reader.h"
#include "support/cli_runner.h"
#include "support/server_process.h"

namespace omnigraph::cli {
namespace remote_cli_test {

using testing::CliRun;
using testing::ServerProcess;

constexpr std::string_view kSchema =
    "node Person {\n  name: String @key\n  age: I32?\n  score: F64?\n  born: Date?\n  tags: [String]?\n"
    "  photo: Blob?\n}\n"
    "edge Knows: Person -> Person\n";
// Cells a layout must treat with care: commas, quotes, a newline, wide
// characters, NULL, floats, a list, a date.
constexpr std::string_view kData =
    "{\"type\":\"Person\",\"data\":{\"name\":\"ann\",\"age\":30,\"score\":1.5,\"born\":\"1990-01-02\","
    "\"tags\":[\"a\",\"b,c\"],\"photo\":\"base64:aGVsbG8gd29ybGQ=\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"name\":\"bob, \\\"b\\\"\",\"age\":null,\"score\":0.1}}\n"
    "{\"type\":\"Person\",\"data\":{\"name\":\"line\\nbreak 日本\",\"age\":-7,\"score\":1e300}}\n"
    "{\"edge\":\"Knows\",\"from\":\"ann\",\"to\":\"bob, \\\"b\\\"\"}\n";
constexpr std::string_view kQueries =
    "query people() {\n  match { $p: Person }\n  return { $p.name, $p.age, $p.score, $p.born, $p.tags }\n"
    "  order { $p.name asc }\n}\n"
    "query older($min: I32) {\n  match { $p: Person  $p.age > $min }\n  return { $p.name }\n  order { $p.name asc }\n}\n"
    "query nobody() {\n  match { $p: Person  $p.age > 1000 }\n  return { $p.name }\n}\n"
    "query broken() {\n  match { $p: Person }\n  return { $p.nope }\n}\n";
constexpr std::string_view kMutations =
    "query set_age($n: String, $a: I32) {\n  update Person set { age: $a } where name = $n\n}\n";
constexpr const char* kStore = "--store C/graphs/g1.omni";

// Sets an environment variable for the CLI runs of one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A cluster root C with graph g1 (the data above) served on an ephemeral
// port; `tokens` (actor → token JSON) makes the server require a bearer.
class RemoteCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    // A token from whoever runs the tests must not reach these servers.
    ::unsetenv("OMNIGRAPH_BEARER_TOKEN");
    Write("schema.pg", kSchema);
    Write("data.jsonl", kData);
    Write("q.gq", kQueries);
    Write("m.gq", kMutations);
    std::filesystem::create_directories(dir_.path() + "/C/graphs");
    std::filesystem::create_directories(dir_.path() + "/home");
    CliRun init = Run("init --schema schema.pg C/graphs/g1.omni");
    ASSERT_EQ(init.rc, 0) << init.err;
    CliRun load = Run("load C/graphs/g1.omni --data data.jsonl --mode overwrite --quiet");
    ASSERT_EQ(load.rc, 0) << load.err;
    testing::WriteServingLedger(dir_.path() + "/C", {"g1"},
                                {{"people", std::string(kQueries)},
                                 {"older", std::string(kQueries)},
                                 {"set_age", std::string(kMutations)}});
  }

  // Starts the server, open or with `tokens_json`.
  void Serve(const std::string& tokens_json = "") {
    if (tokens_json.empty()) {
      server_ = std::make_unique<ServerProcess>(dir_.path() + "/C", std::vector<std::string>{"--unauthenticated"});
    } else {
      server_ = std::make_unique<ServerProcess>(
          dir_.path() + "/C", std::vector<std::string>{},
          std::vector<std::pair<std::string, std::string>>{{"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", tokens_json}});
    }
    ASSERT_FALSE(server_->url().empty()) << server_->error();
  }

  std::string Served() const { return "--server " + server_->url() + " --graph g1"; }

  // `args` against the store and against the server: the same stdout and
  // exit code (and stderr, unless it names the graph).
  void ExpectSame(const std::string& args, bool same_stderr = true) {
    CliRun local = Run(args + " " + kStore);
    CliRun served = Run(args + " " + Served());
    EXPECT_EQ(served.rc, local.rc) << args << "\n" << served.err;
    EXPECT_EQ(served.out, local.out) << args;
    if (same_stderr) {
      EXPECT_EQ(served.err, local.err) << args;
    }
  }

  std::string Head() {
    CliRun list = Run(std::string("commit list --json ") + kStore);
    return nlohmann::json::parse(list.out)["commits"][0]["graph_commit_id"].get<std::string>();
  }

  std::unique_ptr<ServerProcess> server_;
};

TEST_F(RemoteCliTest, ReadsPrintExactlyWhatTheStorePrints) {
  Serve();
  for (const char* format : {"json", "jsonl", "table", "csv", "kv"}) {
    ExpectSame(std::string("query people --query q.gq --format ") + format);
    ExpectSame(std::string("query nobody --query q.gq --format ") + format);
  }
  ExpectSame("query people --query q.gq --json");
  ExpectSame("query people --query q.gq");
  ExpectSame("query older --query q.gq --params '{\"min\":0}' --format jsonl");
  ExpectSame("query people --query q.gq --snapshot " + Head() + " --format json");
  ExpectSame("export");
  ExpectSame("export --type Knows");
  ExpectSame("snapshot");
  ExpectSame("snapshot --json");
  ExpectSame("branch list");
  ExpectSame("branch list --json");
  ExpectSame("commit list");
  ExpectSame("commit list --json");
  ExpectSame("commit show " + Head());
  ExpectSame("commit show --json " + Head());
}

TEST_F(RemoteCliTest, TheOperatorConfigNamesTheServerAndTheGraph) {
  Serve();
  Write("home/config.yaml", "servers:\n  dev:\n    url: " + server_->url() +
                                "/\ndefaults:\n  server: dev\n  default_graph: g1\nprofiles:\n  served:\n"
                                "    server: dev\n    default_graph: g1\n  local:\n    store: C/graphs/g1.omni\n");
  const std::string expected = Run(std::string("query people --query q.gq --format csv ") + kStore).out;
  EXPECT_EQ(Run("query people --query q.gq --format csv").out, expected);
  EXPECT_EQ(Run("query people --query q.gq --format csv --server dev --graph g1").out, expected);
  EXPECT_EQ(Run("--profile served query people --query q.gq --format csv").out, expected);
  CliRun unknown = Run("query people --query q.gq --server prod --graph g1");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_EQ(unknown.err, "error: server 'prod' is not in the operator config (servers: dev)\n");
}

TEST_F(RemoteCliTest, ErrorsKeepTheLocalMessageAndExitCode) {
  Serve();
  ExpectSame("query people --query q.gq --branch nope");
  ExpectSame("snapshot --branch nope");
  ExpectSame("commit list --branch nope");
  ExpectSame("commit show 01NOSUCHCOMMIT");
  // A type error keeps its message; its location line is the CLI's own
  // (the wire error body carries no position).
  CliRun broken = Run("query broken --query q.gq " + Served());
  EXPECT_EQ(broken.rc, 1);
  EXPECT_EQ(broken.err, "error: type error: T6: type `Person` has no property `nope`\n");
  CliRun no_graph = Run("query people --query q.gq --server " + server_->url());
  EXPECT_EQ(no_graph.rc, 2);
  EXPECT_NE(no_graph.err.find("no graph given: pass --graph <id>"), std::string::npos) << no_graph.err;
  ExpectSame("query --query m.gq --params '{\"n\":\"ann\",\"a\":1}'");
  ExpectSame("mutate --query q.gq --name people");
  // A write's echo line names the server; the error is the same.
  ExpectSame("branch create main", /*same_stderr=*/false);
  CliRun graph = Run("query people --query q.gq --server " + server_->url() + " --graph nope");
  EXPECT_EQ(graph.rc, 1);
  EXPECT_EQ(graph.err.rfind("error: ", 0), 0u) << graph.err;
  CliRun down = Run("query people --query q.gq --server http://127.0.0.1:1 --graph g1");
  EXPECT_EQ(down.rc, 1);
  EXPECT_NE(down.err.find("cannot reach the server at http://127.0.0.1:1"), std::string::npos) << down.err;
  CliRun tls = Run("query people --query q.gq --server https://example.invalid --graph g1");
  EXPECT_EQ(tls.rc, 1);
  EXPECT_NE(tls.err.find("plain http:// only"), std::string::npos) << tls.err;
  // Addressing mistakes are usage errors (§5.1).
  EXPECT_EQ(Run("init --schema schema.pg x " + Served()).rc, 2);
  EXPECT_EQ(Run("export C/graphs/g1.omni " + Served()).rc, 2);
  EXPECT_EQ(Run(std::string("export ") + kStore + " --server " + server_->url()).rc, 2);
  CliRun positional = Run("export " + server_->url());
  EXPECT_EQ(positional.rc, 2);
  EXPECT_NE(positional.err.find("--server <url> --graph <id>"), std::string::npos) << positional.err;
  EXPECT_EQ(Run("query people --query q.gq --graph g1").rc, 2);
}

TEST_F(RemoteCliTest, MutateAndItsConditionalFormGoThroughTheServer) {
  Serve();
  const std::string stale = Head();
  CliRun changed = Run("mutate set_age --query m.gq --params '{\"n\":\"ann\",\"a\":31}' " + Served());
  ASSERT_EQ(changed.rc, 0) << changed.err;
  EXPECT_EQ(changed.out, "changed main via set_age: 1 nodes, 0 edges\n");
  const std::string current = Head();
  ASSERT_NE(current, stale);
  // A lost compare-and-swap: exit 4, the whole error body on stdout with
  // --json, the same message as a local run on stderr.
  const std::string lose = "mutate set_age --query m.gq --params '{\"n\":\"ann\",\"a\":32}' --if-commit " + stale;
  CliRun local = Run(lose + " --json " + kStore);
  CliRun served = Run(lose + " --json " + Served());
  EXPECT_EQ(local.rc, 4);
  EXPECT_EQ(served.rc, 4);
  EXPECT_EQ(served.out, local.out);
  EXPECT_EQ(served.err, local.err);
  EXPECT_EQ(Run(lose + " " + Served()).rc, 4);
  EXPECT_EQ(Head(), current);
  CliRun won = Run("mutate set_age --query m.gq --params '{\"n\":\"ann\",\"a\":33}' --json --if-commit " + current +
                   " " + Served());
  ASSERT_EQ(won.rc, 0) << won.err;
  nlohmann::json report = nlohmann::json::parse(won.out);
  EXPECT_EQ(report["commit"]["parent_commit_id"], current);
  EXPECT_EQ(report["commit"]["graph_commit_id"], Head());
  // The token decides a served write's actor (§5.1).
  CliRun as = Run("mutate set_age --query m.gq --params '{\"n\":\"ann\",\"a\":1}' --as bob " + Served());
  EXPECT_EQ(as.rc, 2);
  EXPECT_NE(as.err.find("--as applies to direct writes"), std::string::npos) << as.err;
}

TEST_F(RemoteCliTest, BranchWritesEchoTheServedTarget) {
  Serve();
  CliRun created = Run("branch create feat " + Served());
  ASSERT_EQ(created.rc, 0) << created.err;
  EXPECT_EQ(created.out, "created branch feat from main\n");
  EXPECT_EQ(created.err, "omnigraph branch create → " + server_->url() + " (served)\n");
  ASSERT_EQ(Run("mutate set_age --query m.gq --branch feat --params '{\"n\":\"ann\",\"a\":50}' " + Served()).rc, 0);
  ExpectSame("branch list");
  CliRun merged = Run("branch merge feat --quiet " + Served());
  ASSERT_EQ(merged.rc, 0) << merged.err;
  EXPECT_EQ(merged.out, "merged feat into main: fast_forward\n");
  EXPECT_EQ(merged.err, "");
  // Deleting through a server is destructive: --yes, or no terminal fails.
  CliRun refused = Run("branch delete feat " + Served() + " </dev/null");
  EXPECT_EQ(refused.rc, 2);
  CliRun deleted = Run("branch delete feat --yes --quiet " + Served());
  ASSERT_EQ(deleted.rc, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deleted branch feat\n");
  EXPECT_EQ(Run("branch list " + Served()).out, "main\n");
  ExpectSame("query people --query q.gq --format csv");
}

TEST_F(RemoteCliTest, StoredQueriesAreInvokedByName) {
  Serve();
  const std::string local = Run(std::string("query people --query q.gq --format table ") + kStore).out;
  EXPECT_EQ(Run("query people --format table " + Served()).out, local);
  const std::string stale = Head();
  CliRun changed = Run("mutate set_age --params '{\"n\":\"ann\",\"a\":41}' " + Served());
  ASSERT_EQ(changed.rc, 0) << changed.err;
  EXPECT_EQ(changed.out, "changed main via set_age: 1 nodes, 0 edges\n");
  CliRun lost = Run("mutate set_age --params '{\"n\":\"ann\",\"a\":42}' --if-commit " + stale + " " + Served());
  EXPECT_EQ(lost.rc, 4);
  // A read is not run as a mutation, nor a mutation as a read.
  EXPECT_EQ(Run("query set_age " + Served()).rc, 1);
  EXPECT_EQ(Run("mutate people " + Served()).rc, 1);
  CliRun unknown = Run("query nope " + Served());
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.err, "error: stored query not found\n");
  // Against a store a query needs its source.
  EXPECT_EQ(Run(std::string("query people ") + kStore).rc, 2);
}

TEST_F(RemoteCliTest, ChangesPrintExactlyWhatTheStorePrints) {
  Serve();
  ASSERT_EQ(Run("mutate set_age --query m.gq --params '{\"n\":\"ann\",\"a\":31}' " + Served()).rc, 0);
  const std::string head = Head();
  ExpectSame("commit changes " + head);
  ExpectSame("commit changes --json " + head);
  ExpectSame("changes poll --start beginning");
  ExpectSame("changes poll --start beginning --json --limit 1");
  ExpectSame("changes poll --start beginning --kind edge");
  // The genesis commit has no parent to diff against (409 on the wire).
  CliRun commits = Run(std::string("commit list --json ") + kStore);
  const std::string genesis = nlohmann::json::parse(commits.out)["commits"].back()["graph_commit_id"];
  ExpectSame("commit changes " + genesis);
  CliRun page = Run("commit changes --json --limit 1 " + head + " " + Served());
  ASSERT_EQ(page.rc, 0) << page.err;
}

TEST_F(RemoteCliTest, GraphsListAsksTheServer) {
  testing::WriteServingLedger(dir_.path() + "/C", {"g1"}, {},
                              "version: 1\ngroups:\n  ops: [alice]\nrules:\n  - id: ops-list\n    allow:\n"
                              "      actors: { group: ops }\n      actions: [graph_list]\n");
  Serve("{\"alice\":\"s3cret\"}");
  CliRun anonymous = Run("graphs list --server " + server_->url());
  EXPECT_EQ(anonymous.rc, 1);
  ScopedEnv token("OMNIGRAPH_BEARER_TOKEN", "s3cret");
  CliRun list = Run("graphs list --server " + server_->url());
  ASSERT_EQ(list.rc, 0) << list.err;
  EXPECT_EQ(list.out.rfind("g1\t", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("g1.omni\n"), std::string::npos) << list.out;
  CliRun json = Run("graphs list --json --server " + server_->url());
  ASSERT_EQ(json.rc, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["graphs"][0]["graph_id"], "g1");
  EXPECT_EQ(Run("graphs list").rc, 2);
  EXPECT_EQ(Run(std::string("graphs list ") + kStore).rc, 2);
}

TEST_F(RemoteCliTest, BlobGetReadsTheSameBytes) {
  Serve();
  ExpectSame("blob get node Person ann photo");
  ExpectSame("blob get node Person ann photo --offset 6");
  ExpectSame("blob get node Person ann photo --offset 2 --length 3");
  EXPECT_EQ(Run("blob get node Person ann photo " + Served()).out, "hello world");
  ExpectSame("blob get node Person ann photo --snapshot " + Head());
  ExpectSame("blob get node Person nobody photo", /*same_stderr=*/false);
  ExpectSame("blob stat node Person ann photo");
  ExpectSame("blob stat node Person ann photo --json");
  ExpectSame("blob stat node Person ann photo --json --snapshot " + Head());
  CliRun past = Run("blob get node Person ann photo --offset 100 " + Served());
  EXPECT_EQ(past.rc, 1);
  CliRun out = Run("blob get node Person ann photo --out got.bin " + Served());
  ASSERT_EQ(out.rc, 0) << out.err;
  std::ifstream got(dir_.path() + "/got.bin", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(got), {}), "hello world");
}

TEST_F(RemoteCliTest, LoadAndSchemaShowGoThroughTheServer) {
  Serve();
  ExpectSame("schema show");
  ExpectSame("schema show --json");
  Write("more.jsonl", "{\"type\":\"Person\",\"data\":{\"name\":\"cy\",\"age\":4}}\n");
  Write("bad.jsonl", "{\"type\":\"Nope\",\"data\":{}}\n");
  // A rejected load: the same message (naming the CLI's file) and code.
  ExpectSame("load --data bad.jsonl --mode append --quiet");
  CliRun loaded = Run("load --data more.jsonl --mode append " + Served());
  ASSERT_EQ(loaded.rc, 0) << loaded.err;
  EXPECT_EQ(loaded.err, "omnigraph load → " + server_->url() + " (served)\n");
  EXPECT_NE(loaded.out.find(" on branch main with append: 1 entities across 1 node types and 0 edge types\n"),
            std::string::npos)
      << loaded.out;
  ExpectSame("export");
  // Overwriting a served graph is destructive (§5.1).
  CliRun overwrite = Run("load --data more.jsonl --mode overwrite " + Served() + " </dev/null");
  EXPECT_EQ(overwrite.rc, 2);
  EXPECT_NE(overwrite.err.find("pass --yes"), std::string::npos) << overwrite.err;
}

// The deprecated `ingest` (surface.md §4.6, §5.2) posts the JSON envelope
// to /ingest: the same loader-compatible records, errors and outputs.
TEST_F(RemoteCliTest, IngestGoesThroughTheServer) {
  Serve();
  Write("more.json", "{\n  \"type\": \"Person\",\n  \"data\": {\"name\": \"cy\", \"age\": \"4\"}\n}\n"
                     "{\"edge\":\"Knows\",\"from\":\"cy\",\"to\":\"ann\",\"extra\":1}\n");
  Write("bad.json", "{\"type\":\"Person\",\"data\":{\"name\":\"dd\"}}\n{\"type\":\"Nope\"}\n");
  ExpectSame("ingest --data bad.json --quiet");
  CliRun ingested = Run("ingest --data more.json --branch feat " + Served());
  ASSERT_EQ(ingested.rc, 0) << ingested.err;
  EXPECT_EQ(ingested.err, "warning: `ingest` is deprecated; use `load` (strict NDJSON)\nomnigraph ingest → " +
                              server_->url() + " (served)\n");
  EXPECT_EQ(ingested.out.rfind("ingested 2 entities from ", 0), 0u) << ingested.out;
  EXPECT_NE(ingested.out.find(" into branch feat from main with merge (branch created)\n  node Person: 1\n"
                              "  edge Knows: 1\n"),
            std::string::npos)
      << ingested.out;
  CliRun json = Run("ingest --data more.json --branch feat --json --quiet " + Served());
  ASSERT_EQ(json.rc, 0) << json.err;
  auto out = nlohmann::json::parse(json.out);
  EXPECT_EQ(out["branch_created"], false);
  EXPECT_EQ(out["base_branch"], "main");
  EXPECT_EQ(out["total_entities"], 2);
  ExpectSame("export --branch feat --type Person");
  CliRun exported = Run("export --branch feat --type Person " + Served());
  EXPECT_NE(exported.out.find("{\"id\":\"cy\",\"age\":null,"), std::string::npos) << exported.out;
}

TEST_F(RemoteCliTest, TheBearerTokenFollowsTheOperatorChain) {
  Serve("{\"alice\":\"s3cret\",\"bob\":\"b0b\"}");
  const std::string read = "query people --query q.gq --format csv ";
  const std::string expected = Run(read + kStore).out;
  CliRun anonymous = Run(read + Served());
  EXPECT_EQ(anonymous.rc, 1);
  EXPECT_EQ(anonymous.out, "");
  {
    ScopedEnv fallback("OMNIGRAPH_BEARER_TOKEN", "s3cret");
    EXPECT_EQ(Run(read + Served()).out, expected);
  }
  Write("home/config.yaml", "servers:\n  dev:\n    url: " + server_->url() + "\n");
  const std::string credentials = dir_.path() + "/home/credentials";
  Write("home/credentials", "# tokens\n[other]\ntoken = nope\n[dev]\ntoken = b0b\n");
  ::chmod(credentials.c_str(), 0644);
  CliRun loose = Run(read + "--server dev --graph g1");
  EXPECT_EQ(loose.rc, 1);
  EXPECT_NE(loose.err.find("must be 0600"), std::string::npos) << loose.err;
  ::chmod(credentials.c_str(), 0600);
  EXPECT_EQ(Run(read + "--server dev --graph g1").out, expected);
    // A literal URL that a server entry names gets that entry's token.
  EXPECT_EQ(Run(read + Served()).out, expected);
  {
    // The keyed variable wins over the file, the file over the fallback.
    ScopedEnv wrong("OMNIGRAPH_TOKEN_DEV", "wrong");
    EXPECT_EQ(Run(read + "--server dev --graph g1").rc, 1);
  }
  {
    ScopedEnv fallback("OMNIGRAPH_BEARER_TOKEN", "wrong");
    EXPECT_EQ(Run(read + "--server dev --graph g1").out, expected);
    // A URL no server entry names never sees a keyed token.
    Write("home/config.yaml", "servers:\n  dev:\n    url: http://127.0.0.1:1\n");
    EXPECT_EQ(Run(read + Served()).rc, 1);
  }
}

TEST_F(RemoteCliTest, LoginSavesTheTokenServedCommandsSend) {
  Serve("{\"alice\":\"s3cret\"}");
  Write("home/config.yaml", "servers:\n  dev:\n    url: " + server_->url() + "\n");
  const std::string read = "query people --query q.gq --format csv --server dev --graph g1";
  EXPECT_EQ(Run(read).rc, 1);
  CliRun login = Run("login dev --token s3cret");
  ASSERT_EQ(login.rc, 0) << login.err;
  EXPECT_EQ(login.err, "");
  EXPECT_EQ(Run(read).out, Run(std::string("query people --query q.gq --format csv ") + kStore).out);
  ASSERT_EQ(Run("logout dev").rc, 0);
  EXPECT_EQ(Run(read).rc, 1);
}

TEST_F(RemoteCliTest, AnAliasRunsItsStoredQueryAsQueryDoes) {
  Serve();
  Write("home/config.yaml",
        "servers:\n  dev:\n    url: " + server_->url() +
            "\n"
            "defaults:\n  default_graph: g1\n  output: kv\n"
            "aliases:\n"
            "  everyone:\n    server: dev\n    graph: g1\n    query: people\n"
            "  older:\n    server: dev\n    query: older\n    args: [min]\n    params:\n      min: 100\n"
            "    format: csv\n");
  const std::string served = " --server dev --graph g1";
  // The default format, --format and --json: exactly what `query NAME` prints.
  for (const char* format : {"", " --format kv", " --format jsonl", " --json"}) {
    CliRun alias = Run(std::string("alias everyone") + format);
    EXPECT_EQ(alias.rc, 0) << format << "\n" << alias.err;
    EXPECT_EQ(alias.out, Run(std::string("query people") + served + format).out) << format;
    EXPECT_EQ(alias.err, "") << format;
  }
  // The alias's format (csv) beats defaults.output; its params bind $min
  // (no one is older than 100), a positional ARG overrides them, and so
  // does --params.
  const std::string none = Run("query older --params '{\"min\":100}' --format csv" + served).out;
  const std::string adults = Run("query older --params '{\"min\":0}' --format csv" + served).out;
  ASSERT_NE(none, adults);
  EXPECT_EQ(Run("alias older").out, none);
  EXPECT_EQ(Run("alias older 0").out, adults);
  EXPECT_EQ(Run("alias older --params '{\"min\":0}'").out, adults);
  EXPECT_EQ(Run("alias older 0 --format table").out,
            Run("query older --params '{\"min\":0}' --format table" + served).out);
  EXPECT_EQ(Run("alias older 0 --json").out, Run("query older --params '{\"min\":0}' --json" + served).out);
  // defaults.output (kv) applies to an alias that names no format.
  EXPECT_EQ(Run("alias everyone").out, Run("query people --format kv" + served).out);
  for (const std::string& command : {std::string("alias everyone"), "query people" + served}) {
    CliRun bad_format = Run(command + " --format xml");
    EXPECT_EQ(bad_format.rc, 2) << command;
    EXPECT_EQ(bad_format.err, "error: --format must be table, kv, csv, jsonl or json\n") << command;
  }
  // Errors: too many ARGS, an unknown alias, a flag `alias` cannot use.
  CliRun extra = Run("alias older 1 2");
  EXPECT_EQ(extra.rc, 2);
  EXPECT_EQ(extra.err, "error: alias 'older' takes 1 argument(s) (min), got 2\n");
  CliRun unknown = Run("alias nope");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_EQ(unknown.err, "error: alias 'nope' is not in " + dir_.path() +
                             "/home/config.yaml (aliases: everyone, older)\n");
  CliRun flag = Run("alias everyone --server dev");
  EXPECT_EQ(flag.rc, 2);
  EXPECT_EQ(flag.err, "error: `alias` takes its server and graph from aliases.everyone; drop --server\n");
  CliRun bad = Run("alias older --params '[1]'");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.err, "error: --params must be a JSON object\n");
}

TEST_F(RemoteCliTest, ABaselineIsTheSameSnapshotAndCursorAsTheStores) {
  Serve();
  for (const std::string filters : {"", " --type Person", " --kind edge --op insert"}) {
    CliRun local = Run("changes baseline --json --out local.jsonl" + filters + " " + kStore);
    CliRun served = Run("changes baseline --json --out served.jsonl" + filters + " " + Served());
    ASSERT_EQ(local.rc, 0) << local.err;
    EXPECT_EQ(served.rc, 0) << served.err;
    EXPECT_EQ(served.out, local.out) << filters;
    EXPECT_EQ(served.err, "");
    std::ifstream local_file(dir_.path() + "/local.jsonl"), served_file(dir_.path() + "/served.jsonl");
    const std::string local_text{std::istreambuf_iterator<char>(local_file), {}};
    const std::string served_text{std::istreambuf_iterator<char>(served_file), {}};
    EXPECT_EQ(served_text, local_text) << filters;
    EXPECT_FALSE(served_text.empty() && filters.empty());
  }
  CliRun human = Run("changes baseline --out local.jsonl " + std::string(kStore));
  CliRun served = Run("changes baseline --out local.jsonl " + Served());
  EXPECT_EQ(served.rc, 0) << served.err;
  EXPECT_EQ(served.out, human.out);
  EXPECT_EQ(served.out.rfind("snapshot: local.jsonl\nsnapshot_commit_id: ", 0), 0u) << served.out;
  // The same errors: a branch that does not exist, a bad filter.
  ExpectSame("changes baseline --out x.jsonl --branch nope");
  ExpectSame("changes baseline --out x.jsonl --kind vertex");
}

TEST_F(RemoteCliTest, SchemaApplyGoesToTheServer) {
  Serve();
  Write("wider.pg", std::string(kSchema) + "node City {\n  name: String @key\n}\n");
  // A cluster-backed server refuses it (cluster.md §5): the ledger is the
  // graph's only schema authority. The request went out, and the reply
  // is reported as a local refusal is.
  CliRun applied = Run("schema apply --schema wider.pg " + Served());
  EXPECT_EQ(applied.rc, 1);
  EXPECT_EQ(applied.out, "");
  EXPECT_EQ(applied.err, "omnigraph schema apply → " + server_->url() +
                             " (served)\nerror: server-side schema apply is disabled for cluster-backed serving; "
                             "update the cluster config, run `omnigraph cluster apply`, and restart the server.\n");
  CliRun actor = Run("schema apply --schema wider.pg --as ann " + Served());
  EXPECT_EQ(actor.rc, 2);
  EXPECT_EQ(actor.err, "error: --as applies to direct writes; a served `schema apply` is recorded as the actor its "
                       "token authenticates\n");
  // `schema plan` works on storage only.
  CliRun plan = Run("schema plan --schema wider.pg " + Served());
  EXPECT_EQ(plan.rc, 2);
  EXPECT_EQ(plan.err, "error: `schema plan` works on storage directly and cannot address a server; drop --server\n");
}

TEST(RemoteClientTest, AServedSchemaApplyReplyReadsBackIntoTheLocalResult) {
  exec::SchemaChangeResult result;
  result.applied = true;
  result.manifest_version = 7;
  compiler::SchemaStep add{.kind = "add_type", .type_kind = "node", .type_name = "City"};
  compiler::SchemaStep rename{.kind = "rename_property", .type_kind = "node", .type_name = "Person",
                              .from = "age", .property = "years"};
  compiler::SchemaStep drop{.kind = "drop_property", .type_kind = "node", .type_name = "Person",
                            .property = "score", .mode = "hard"};
  compiler::SchemaStep index{.kind = "add_constraint", .type_kind = "node", .type_name = "Person",
                             .columns = std::vector<std::string>{"name", "born"}};
  compiler::SchemaStep refused{.kind = "unsupported_change", .entity = "Person.tags", .reason = "type change",
                               .code = "OG-MF-106", .tier = "destructive"};
  result.plan.steps = {add, rename, drop, index, refused};
  result.plan.supported = false;
  auto read = remote::ParseSchemaApplyOutput(api::wire::SchemaApplyJson("/g", result));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_FALSE(read->plan.supported);
  EXPECT_TRUE(read->applied);
  EXPECT_EQ(read->manifest_version, 7u);
  ASSERT_EQ(read->plan.steps.size(), result.plan.steps.size());
  for (size_t i = 0; i < result.plan.steps.size(); ++i) {
    EXPECT_EQ(read->plan.steps[i].Describe(), result.plan.steps[i].Describe()) << i;
  }
  auto malformed = remote::ParseSchemaApplyOutput(nlohmann::ordered_json{{"supported", true}});
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().message(), "the server's schema apply reply is malformed: 'applied' is not a boolean");
}

TEST(RemoteClientTest, ABaselineReplyNeedsItsTrailer) {
  auto read = remote::ParseBaseline(
      "{\"type\":\"P\",\"data\":{}}\n{\"baseline\":{\"snapshot_commit_id\":\"c1\",\"resume_cursor\":\"r1\"}}\n");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->snapshot, "{\"type\":\"P\",\"data\":{}}\n");
  EXPECT_EQ(read->snapshot_commit_id, "c1");
  EXPECT_EQ(read->resume_cursor, "r1");
  auto empty = remote::ParseBaseline("{\"baseline\":{\"snapshot_commit_id\":\"c\",\"resume_cursor\":\"r\"}}\n");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->snapshot, "");
  for (const char* cut : {"", "{\"type\":\"P\",\"data\":{}}\n", "{\"type\":\"P\",\"data\":{}}\n{\"baseline\":{"}) {
    EXPECT_FALSE(remote::ParseBaseline(cut).ok()) << cut;
  }
}

TEST(RemoteClientTest, ServerUrlsArePlainHttp) {
  auto url = remote::ParseServerUrl("http://example.com:8080/base/");
  ASSERT_TRUE(url.ok()) << url.status().message();
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, "8080");
  EXPECT_EQ(url->base_path, "/base");
  EXPECT_EQ(url->text, "http://example.com:8080/base");
  auto bare = remote::ParseServerUrl("http://[::1]");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->host, "::1");
  EXPECT_EQ(bare->port, "80");
  EXPECT_EQ(remote::ParseServerUrl("https://example.com").status().code(), ErrorCode::kUnsupported);
  EXPECT_FALSE(remote::ParseServerUrl("ftp://example.com").ok());
  EXPECT_FALSE(remote::ParseServerUrl("http://example.com:99999").ok());
  EXPECT_FALSE(remote::ParseServerUrl("http://:80").ok());
  EXPECT_EQ(remote::UrlEncode("a b/ü"), "a%20b%2F%C3%BC");
}

TEST(RemoteClientTest, TokensAreKeyedByServerName) {
  EXPECT_EQ(remote::TokenVariable("intel-dev"), "OMNIGRAPH_TOKEN_INTEL_DEV");
  const std::string text = "; c\n[a]\ntoken = one\n[ b ]\n  token=\"two\"\n[c]\nother = x\n";
  EXPECT_EQ(remote::TokenInCredentials(text, "a"), "one");
  EXPECT_EQ(remote::TokenInCredentials(text, "b"), "two");
  EXPECT_EQ(remote::TokenInCredentials(text, "c"), "");
  EXPECT_EQ(remote::TokenInCredentials(text, "d"), "");
}

TEST(RemoteClientTest, AReadOutputBecomesAGridOfItsExactText) {
  auto read = remote::ServedRead::Parse(
      "{\"query_name\":\"q\",\"target\":{\"branch\":null,\"snapshot\":\"s1\"},\"row_count\":2,"
      "\"columns\":[\"a\",\"b\"],\"rows\":[{\"a\":\"x\\\"y\",\"b\":1.50e3},{\"a\":null,\"b\":[1,{\"k\":\"]\"}]}],"
      "\"graph_commit_id\":\"c1\"}");
  ASSERT_TRUE(read.ok()) << read.status().message();
  exec::ResultGrid grid = read->Grid();
  EXPECT_EQ(grid.query_name, "q");
  EXPECT_EQ(grid.snapshot, "s1");
  EXPECT_EQ(grid.graph_commit_id, "c1");
  ASSERT_EQ(grid.row_count, 2);
  EXPECT_EQ(grid.cell_text(0, 0), "x\"y");
  EXPECT_EQ(grid.cell_text(0, 1), "1.50e3");
  EXPECT_EQ(grid.cell_text(1, 0), "null");
  EXPECT_EQ(grid.cell_text(1, 1), "[1,{\"k\":\"]\"}]");
  EXPECT_EQ(grid.row_json(1), "{\"a\":null,\"b\":[1,{\"k\":\"]\"}]}");
  EXPECT_FALSE(remote::ServedRead::Parse("{\"query_name\":\"q\",\"columns\":[\"a\"],\"rows\":[{}]}").ok());
  EXPECT_FALSE(remote::ServedRead::Parse("not json").ok());
}

}  // namespace remote_cli_test
}  // namespace omnigraph::cli
