// The server's request pipeline (spec/server.md §1.3-§1.5, cluster.md §5),
// driven through Server::Handle without sockets: routing, bearer auth,
// graph resolution, policy at the HTTP boundary and again in the engine,
// admission, the conditional-write header, stored queries and the
// ErrorOutput body of every refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "cluster/catalog.h"
#include "cluster/state.h"
#include "io/local_store.h"
#include "server/admission.h"
#include "server/auth.h"
#include "server/router.h"
#include "server/server.h"
#include "support/temp_dir.h"
#include "util/sha256.h"

namespace omnigraph::testing {
namespace server_test {

using nlohmann::json;
using server::HttpRequest;
using server::HttpResponse;

constexpr const char* kSchema = "node Doc {\n  slug: String @key\n  body: String\n  file: Blob?\n}\n";
constexpr const char* kQueries =
    "query docs() {\n  match { $d: Doc }\n  return { $d.slug }\n  order { $d.slug }\n}\n"
    "query add($slug: String) {\n  insert Doc { slug: $slug, body: \"x\" }\n}\n";
constexpr const char* kPolicy = R"(version: 1
groups:
  readers: [reader]
  writers: [writer]
  admins: [admin]
protected_branches: [main]
rules:
  - id: readers-read-unprotected
    allow:
      actors: { group: readers }
      actions: [read]
      branch_scope: unprotected
  - id: readers-invoke
    allow:
      actors: { group: readers }
      actions: [invoke_query]
  - id: writers-change-unprotected
    allow:
      actors: { group: writers }
      actions: [read, change]
      branch_scope: unprotected
  - id: admins-data
    allow:
      actors: { group: admins }
      actions: [read, export, change]
      branch_scope: any
  - id: admins-invoke
    allow:
      actors: { group: admins }
      actions: [invoke_query]
  - id: admins-branches
    allow:
      actors: { group: admins }
      actions: [branch_create, branch_delete, branch_merge, schema_apply]
      target_branch_scope: any
)";

// A storage root with one applied graph `g1` (Doc d1 on main and dev), its
// stored queries `docs` and `add`, and `kPolicy` bound to it, as `cluster
// apply` leaves it (cluster.md §2.1).
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string graph_root = dir_.path() + "/graphs/g1.omni";
    auto graph = api::Omnigraph::Init(graph_root, kSchema);
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    ASSERT_TRUE((*graph)->Load(R"({"type":"Doc","data":{"slug":"d1","body":"seed","file":"base64:aGVsbG8gd29ybGQ="}})" "\n", "seed.jsonl",
                               api::LoadMode::kOverwrite)
                    .ok());
    ASSERT_TRUE((*graph)->BranchCreate("dev", "main").ok());

    auto store = LocalStore::Make(dir_.path());
    cluster::ClusterState state;
    state.state_revision = 1;
    state.resources["graph.g1"] = cluster::StateResource{"graph-digest"};
    for (const std::string name : {"docs", "add"}) {
      std::string digest = Sha256Hex(kQueries);
      ASSERT_TRUE(cluster::StorePayload(*store, cluster::QueryPayloadKey("", "g1", name, digest), digest, kQueries).ok());
      state.resources["query.g1." + name] = cluster::StateResource{digest};
    }
    std::string policy_digest = Sha256Hex(kPolicy);
    ASSERT_TRUE(cluster::StorePayload(*store, cluster::PolicyPayloadKey("", "g1-policy", policy_digest),
                                      policy_digest, kPolicy)
                    .ok());
    cluster::StateResource policy{policy_digest};
    policy.applies_to = std::vector<std::string>{"graph.g1"};
    state.resources["policy.g1-policy"] = policy;
    ASSERT_TRUE(cluster::WriteState(*store, "", state, std::nullopt).ok());
  }

  // Boots with the tokens reader/writer/admin/stranger.
  void Boot(std::map<std::string, std::string> environment = {}) {
    environment.emplace("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON",
                        R"({"reader":"tok-r","writer":"tok-w","admin":"tok-a","stranger":"tok-s"})");
    environment.emplace("OMNIGRAPH_LOG", "off");  // tests that read the log set their own filter
    server::ServerOptions options;
    options.cluster = dir_.path();
    options.handles_per_graph = 2;
    std::string log;
    auto booted = server::Server::Boot(options, MapEnvironment(environment), &log);
    ASSERT_TRUE(booted.ok()) << booted.status().message() << "\n" << log;
    server_ = std::move(*booted);
  }

  // Rewrites the ledger through `change` (as an apply would, by CAS).
  void ChangeLedger(const std::function<void(cluster::ClusterState&)>& change) {
    auto store = LocalStore::Make(dir_.path());
    auto read = cluster::ReadState(*store, "");
    ASSERT_TRUE(read.ok() && read->state);
    cluster::ClusterState state = *read->state;
    change(state);
    ASSERT_TRUE(cluster::WriteState(*store, "", state, read->cas).ok());
  }

  static server::Environment MapEnvironment(std::map<std::string, std::string> values) {
    return [values](const std::string& name) -> std::optional<std::string> {
      auto found = values.find(name);
      if (found == values.end()) return std::nullopt;
      return found->second;
    };
  }

  HttpResponse Call(const std::string& method, const std::string& target, const std::string& token,
                    const std::optional<json>& body = std::nullopt,
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    HttpRequest request;
    request.method = method;
    EXPECT_TRUE(server::SplitTarget(target, &request));
    if (!token.empty()) request.headers.Add("Authorization", "Bearer " + token);
    if (body) {
      request.headers.Add("Content-Type", "application/json");
      request.body = body->dump();
    }
    for (auto& [name, value] : headers) request.headers.Add(name, value);
    return server_->Handle(request);
  }

  static json Body(const HttpResponse& response) { return json::parse(response.body); }

  static json Query(const std::string& branch) {
    return json{{"query", "query docs() { match { $d: Doc } return { $d.slug } order { $d.slug } }"},
                {"branch", branch}};
  }
  static json Insert(const std::string& branch, const std::string& slug) {
    return json{{"query", "query add() { insert Doc { slug: \"" + slug + "\", body: \"x\" } }"}, {"branch", branch}};
  }

  // The slugs on `branch`, read through the engine directly.
  std::vector<std::string> Slugs(const std::string& branch) {
    auto graph = api::Omnigraph::Open(dir_.path() + "/graphs/g1.omni");
    auto result = (*graph)->Query("query q() { match { $d: Doc } return { $d.slug } order { $d.slug } }", "q.gq",
                                  "", "{}", api::ReadTarget{branch, std::nullopt});
    std::vector<std::string> slugs;
    json rows = json::parse(exec::ReadOutputJson(*result, false))["rows"];
    for (const auto& row : rows) slugs.push_back(row["d.slug"]);
    return slugs;
  }

  TempDir dir_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(ServerTest, HealthNeedsNoTokenAndUnknownPathsAndMethodsAnswerJson) {
  Boot();
  HttpResponse health = Call("GET", "/healthz", "");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(Body(health), (json{{"status", "ok"}, {"version", "0.1.0"}, {"internal_schema_version", 14}}));

  HttpResponse unknown = Call("GET", "/nope", "");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown), (json{{"error", "no route for GET /nope"}, {"code", "not_found"}}));

  HttpResponse wrong = Call("PUT", "/graphs/g1/query", "tok-r");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(Body(wrong)["code"], "method_not_allowed");
  ASSERT_EQ(wrong.headers.size(), 1u);
  EXPECT_EQ(wrong.headers[0], (std::pair<std::string, std::string>{"Allow", "POST"}));
}

TEST_F(ServerTest, HeadAnswersEveryGetRouteWithoutABody) {
  Boot();
  HttpResponse health = Call("HEAD", "/healthz", "");
  EXPECT_EQ(health.status, 200);
  EXPECT_TRUE(health.head_only);
  EXPECT_EQ(health.body, Call("GET", "/healthz", "").body);  // its length is the Content-Length sent
  HttpResponse snapshot = Call("HEAD", "/graphs/g1/snapshot", "tok-a");
  EXPECT_EQ(snapshot.status, 200);
  EXPECT_TRUE(snapshot.head_only);
  HttpResponse anonymous = Call("HEAD", "/graphs/g1/snapshot", "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_TRUE(anonymous.head_only);
  HttpResponse put = Call("PUT", "/graphs/g1/snapshot", "tok-r");
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.headers, (std::vector<std::pair<std::string, std::string>>{{"Allow", "GET, HEAD"}}));
  HttpResponse head_of_post = Call("HEAD", "/graphs/g1/query", "tok-r");
  EXPECT_EQ(head_of_post.status, 405);
  EXPECT_TRUE(head_of_post.head_only);
  EXPECT_EQ(head_of_post.headers, (std::vector<std::pair<std::string, std::string>>{{"Allow", "POST"}}));
  // Refusals before any route ran have no body either.
  HttpResponse unknown = Call("HEAD", "/nope", "");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_TRUE(unknown.head_only);
  HttpResponse bad_path = Call("HEAD", "/graphs/%zz/snapshot", "tok-a");
  EXPECT_EQ(bad_path.status, 400);
  EXPECT_TRUE(bad_path.head_only);
}

TEST_F(ServerTest, ABodyNamingAFieldTwiceIsRefused) {
  Boot();
  HttpRequest request;
  request.method = "POST";
  ASSERT_TRUE(server::SplitTarget("/graphs/g1/load", &request));
  request.headers.Add("Authorization", "Bearer tok-a");
  request.headers.Add("Content-Type", "application/json");
  request.body = R"({"branch":"dev","data":"","data":"{\"type\":\"Doc\",\"data\":{\"slug\":\"twice\",\"body\":\"x\"}}"})";
  HttpResponse refused = server_->Handle(request);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(Body(refused), (json{{"error", "the request body names field 'data' twice"}, {"code", "bad_request"}}));
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"d1"}));
  // Nested objects may repeat a field name of the body's own object.
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", json{{"query", "query docs() { match { $d: Doc } return { $d.slug } }"},
                                                        {"params", {{"query", 1}}}})
                .status,
            200);
}

TEST_F(ServerTest, BodiesNestedDeeperThanTheLoaderAdmitsAreRefusedWhileParsed) {
  Boot();
  auto nested = [](size_t levels) {
    return R"({"query":"query docs() { match { $d: Doc } return { $d.slug } }","params":{"p":)" +
           std::string(levels, '[') + std::string(levels, ']') + "}}";
  };
  for (const std::string route : {"/graphs/g1/query", "/graphs/g1/mutate", "/graphs/g1/read"}) {
    HttpRequest request;
    request.method = "POST";
    ASSERT_TRUE(server::SplitTarget(route, &request));
    request.headers.Add("Authorization", "Bearer tok-a");
    request.headers.Add("Content-Type", "application/json");
    request.body = nested(150000);
    HttpResponse deep = server_->Handle(request);
    EXPECT_EQ(deep.status, 400) << route;
    EXPECT_EQ(Body(deep), (json{{"error", "the request body nests arrays and objects deeper than 4096 levels"},
                                {"code", "bad_request"}}))
        << route;
    // 4,094 array levels inside the body's two objects reach depth 4,096:
    // the parse admits them (the route then ignores or refuses the value).
    request.body = nested(4094);
    HttpResponse admitted = server_->Handle(request);
    EXPECT_EQ(admitted.body.find("nests arrays and objects"), std::string::npos) << route << admitted.body;
    request.body = nested(4095);
    EXPECT_EQ(Body(server_->Handle(request))["error"],
              "the request body nests arrays and objects deeper than 4096 levels")
        << route;
  }
}

TEST_F(ServerTest, PolicyDecisionsAndRequestsAreLoggedAsTheFilterSays) {
  Boot({{"OMNIGRAPH_LOG", "warn, policy=info ,request=debug"}});
  std::vector<std::string> lines;
  server_->log().set_sink([&lines](std::string_view line) { lines.emplace_back(line); });
  ASSERT_EQ(Call("POST", "/graphs/g1/query", "tok-r", Query("dev")).status, 200);
  ASSERT_EQ(Call("POST", "/graphs/g1/query", "tok-r", Query("main")).status, 403);
  ASSERT_EQ(Call("GET", "/nope", "").status, 404);
  ASSERT_EQ(Call("DELETE", "/healthz", "").status, 405);
  ASSERT_EQ(lines.size(), 6u);
  // "<time> LEVEL target: message fields", the time RFC 3339 UTC in ms.
  const std::regex time(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )");
  for (const std::string& line : lines) EXPECT_TRUE(std::regex_search(line, time)) << line;
  auto rest = [](const std::string& line) { return line.substr(line.find(' ') + 1); };
  EXPECT_EQ(rest(lines[0]),
            "INFO policy: policy decision actor_id=reader action=read branch=dev target_branch= allowed=true "
            "matched_rule_id=readers-read-unprotected\n");
  std::string request = rest(lines[1]);
  EXPECT_EQ(request.substr(0, request.find(" latency_ms=")),
            "DEBUG request: request method=POST path=/graphs/g1/query status=200 actor_id=reader");
  EXPECT_EQ(rest(lines[2]),
            "INFO policy: policy decision actor_id=reader action=read branch=main target_branch= allowed=false "
            "matched_rule_id=\n");
  EXPECT_TRUE(rest(lines[3]).starts_with("DEBUG request: request method=POST path=/graphs/g1/query status=403"));
  // Requests no route answers are logged as well.
  EXPECT_TRUE(rest(lines[4]).starts_with("DEBUG request: request method=GET path=/nope status=404 actor_id= "));
  EXPECT_TRUE(rest(lines[5]).starts_with("DEBUG request: request method=DELETE path=/healthz status=405 actor_id= "));
}

TEST_F(ServerTest, ALogFilterItCannotReadIsAWarningAndTheLogStaysAtInfo) {
  server::ServerOptions options;
  options.cluster = dir_.path();
  std::string log;
  auto booted = server::Server::Boot(
      options,
      MapEnvironment({{"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"reader":"tok-r"})"}, {"OMNIGRAPH_LOG", "polcy=debug"}}),
      &log);
  ASSERT_TRUE(booted.ok()) << booted.status().message();
  EXPECT_EQ(log,
            "warning: OMNIGRAPH_LOG: 'polcy=debug' is not a level or TARGET=LEVEL (levels: off, error, warn, info, "
            "debug, trace; targets: policy, routing, request); logging at info\n");
  EXPECT_TRUE((*booted)->log().Enabled(server::LogTarget::kRouting, server::LogLevel::kInfo));
  EXPECT_FALSE((*booted)->log().Enabled(server::LogTarget::kRequest, server::LogLevel::kDebug));
}

TEST_F(ServerTest, BearerTokensAreExactAndTheTokenAloneNamesTheActor) {
  Boot();
  EXPECT_EQ(Body(Call("POST", "/graphs/g1/query", "", Query("dev"))),
            (json{{"error", "missing bearer token"}, {"code", "unauthorized"}}));
  EXPECT_EQ(Body(Call("POST", "/graphs/g1/query", "tok-nope", Query("dev"))),
            (json{{"error", "invalid bearer token"}, {"code", "unauthorized"}}));
  for (const std::string header : {"bearer tok-r", "Bearer  tok-r", "Bearer tok-r ", "Basic tok-r", "Bearer"}) {
    HttpResponse response = Call("POST", "/graphs/g1/query", "", Query("dev"), {{"Authorization", header}});
    EXPECT_EQ(response.status, 401) << header;
  }
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-r", Query("dev")).status, 200);
  // X-Actor-Id is ignored: the reader stays the reader.
  HttpResponse spoofed = Call("POST", "/graphs/g1/mutate", "tok-r", Insert("dev", "r1"), {{"X-Actor-Id", "admin"}});
  EXPECT_EQ(spoofed.status, 403);
  EXPECT_EQ(Body(spoofed)["error"], "policy denied action 'change' on branch 'dev' for actor 'reader'");
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"d1"}));
}

TEST_F(ServerTest, GraphIdsAreCheckedBeforeTheyAreLookedUp) {
  Boot();
  HttpResponse bad = Call("GET", "/graphs/a_b/snapshot", "tok-a");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Body(bad)["code"], "bad_request");
  EXPECT_EQ(Call("GET", "/graphs/..%2Fg1/snapshot", "tok-a").status, 400);
  HttpResponse unknown = Call("GET", "/graphs/g2/snapshot", "tok-a");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown), (json{{"error", "graph 'g2' not found"}, {"code", "not_found"}}));
  // Auth runs first: an unknown graph is not revealed to an anonymous caller.
  EXPECT_EQ(Call("GET", "/graphs/g2/snapshot", "").status, 401);
}

TEST_F(ServerTest, PolicyDecidesOnTheBranchTheWriterWillUse) {
  Boot();
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-r", Query("main")).status, 403);
  EXPECT_EQ(Call("POST", "/graphs/g1/mutate", "tok-w", Insert("dev", "w1")).status, 200);
  // Padding does not turn the protected main into an unprotected branch.
  HttpResponse padded = Call("POST", "/graphs/g1/mutate", "tok-w", Insert(" main", "w2"));
  EXPECT_EQ(padded.status, 403);
  EXPECT_EQ(Body(padded)["error"], "policy denied action 'change' on branch 'main' for actor 'writer'");
  EXPECT_EQ(Slugs("main"), (std::vector<std::string>{"d1"}));
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"d1", "w1"}));
  // A snapshot read is checked against the branch its commit was written on.
  auto commits = Body(Call("GET", "/graphs/g1/commits?branch=main", "tok-a"));
  std::string main_head = commits["commits"][0]["graph_commit_id"];
  json snapshot_read = {{"query", "query docs() { match { $d: Doc } return { $d.slug } }"}, {"snapshot", main_head}};
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-r", snapshot_read).status, 403);
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", snapshot_read).status, 200);
}

TEST_F(ServerTest, TheActorIsRecordedOnTheCommitItWrites) {
  Boot();
  HttpResponse written = Call("POST", "/graphs/g1/mutate", "tok-a", Insert("main", "a1"));
  ASSERT_EQ(written.status, 200) << written.body;
  json receipt = Body(written);
  EXPECT_EQ(receipt["actor_id"], "admin");
  EXPECT_EQ(receipt["commit"]["actor_id"], "admin");
  EXPECT_EQ(receipt["affected_nodes"], 1);
}

TEST_F(ServerTest, ConditionalMutationsTakeExactlyOneRawCommitId) {
  Boot();
  std::string head = Body(Call("GET", "/graphs/g1/commits?branch=dev", "tok-a"))["commits"][0]["graph_commit_id"];
  // The plain route refuses the header instead of ignoring it.
  EXPECT_EQ(Call("POST", "/graphs/g1/mutate", "tok-a", Insert("dev", "x"), {{"Omnigraph-If-Graph-Commit", head}}).status,
            400);
  const std::string route = "/graphs/g1/mutate/if-graph-commit";
  EXPECT_EQ(Call("POST", route, "tok-a", Insert("dev", "x")).status, 400);
  for (const std::string& bad : std::vector<std::string>{"*", "W/\"" + head + "\"", "\"" + head + "\"", head + ", " + head}) {
    EXPECT_EQ(Call("POST", route, "tok-a", Insert("dev", "x"), {{"Omnigraph-If-Graph-Commit", bad}}).status, 400)
        << bad;
  }
  EXPECT_EQ(Call("POST", route, "tok-a", Insert("dev", "x"),
                 {{"Omnigraph-If-Graph-Commit", head}, {"Omnigraph-If-Graph-Commit", head}})
                .status,
            400);
  HttpResponse first = Call("POST", route, "tok-a", Insert("dev", "c1"), {{"Omnigraph-If-Graph-Commit", head}});
  ASSERT_EQ(first.status, 200) << first.body;
  HttpResponse stale = Call("POST", route, "tok-a", Insert("dev", "c2"), {{"Omnigraph-If-Graph-Commit", head}});
  EXPECT_EQ(stale.status, 412);
  json detail = Body(stale);
  EXPECT_FALSE(detail.contains("code"));
  EXPECT_EQ(detail["precondition_failure"]["expected"], head);
  EXPECT_EQ(detail["precondition_failure"]["actual"], Body(first)["commit"]["graph_commit_id"]);
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"c1", "d1"}));
}

TEST_F(ServerTest, StoredQueriesHideWhatTheCallerMayNotInvoke) {
  Boot();
  HttpResponse catalog = Call("GET", "/graphs/g1/queries", "tok-a");
  ASSERT_EQ(catalog.status, 200);
  EXPECT_EQ(Body(catalog)["queries"][0],
            (json{{"name", "add"}, {"tool_name", "add"}, {"description", nullptr}, {"instruction", nullptr},
                  {"mutation", true}, {"params", json::array({{{"name", "slug"}, {"kind", "string"}, {"nullable", false}}})}}));
  HttpResponse read = Call("POST", "/graphs/g1/queries/docs", "tok-r", json{{"branch", "dev"}});
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(Body(read)["rows"], json::array({{{"d.slug", "d1"}}}));
  // The writer has no invoke_query grant: the answer is the unknown name's.
  HttpResponse denied = Call("POST", "/graphs/g1/queries/docs", "tok-w", json{{"branch", "dev"}});
  HttpResponse unknown = Call("POST", "/graphs/g1/queries/nope", "tok-w", json{{"branch", "dev"}});
  EXPECT_EQ(denied.status, 404);
  EXPECT_EQ(denied.body, unknown.body);
  EXPECT_EQ(Body(denied), (json{{"error", "stored query not found"}, {"code", "not_found"}}));
  // The reader may invoke, but the stored mutation still needs change.
  EXPECT_EQ(Call("POST", "/graphs/g1/queries/add", "tok-r", json{{"branch", "dev"}, {"params", {{"slug", "r"}}}}).status,
            403);
  EXPECT_EQ(Call("POST", "/graphs/g1/queries/add", "tok-a", json{{"snapshot", "x"}}).status, 400);
  EXPECT_EQ(Call("POST", "/graphs/g1/queries/docs", "tok-a", json{{"expect_mutation", true}}).status, 400);
  HttpResponse added =
      Call("POST", "/graphs/g1/queries/add", "tok-a", json{{"branch", "dev"}, {"params", {{"slug", "s1"}}}});
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_EQ(Body(added)["query_name"], "add");
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"d1", "s1"}));
}

TEST_F(ServerTest, ClusterServedSchemaApplyIsAConflictAfterAuthAndPolicy) {
  Boot();
  json body{{"schema_source", kSchema}};
  EXPECT_EQ(Call("POST", "/graphs/g1/schema/apply", "", body).status, 401);
  EXPECT_EQ(Call("POST", "/graphs/g1/schema/apply", "tok-r", body).status, 403);
  HttpResponse refused = Call("POST", "/graphs/g1/schema/apply", "tok-a", body);
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(Body(refused)["error"],
            "server-side schema apply is disabled for cluster-backed serving; update the cluster config, run "
            "`omnigraph cluster apply`, and restart the server.");
  // The body is read before policy, as on every route.
  EXPECT_EQ(Body(Call("POST", "/graphs/g1/schema/apply", "tok-r", json{{"allow_data_loss", true}})),
            (json{{"error", "request field 'schema_source' is required"}, {"code", "bad_request"}}));
  EXPECT_EQ(Call("POST", "/graphs/g1/schema/apply", "tok-a", json{{"schema_source", 7}}).status, 400);
  EXPECT_EQ(Call("POST", "/graphs/g1/schema/apply", "tok-a", json{{"schema_source", kSchema}, {"allow_data_loss", "yes"}})
                .status,
            400);
}

TEST_F(ServerTest, DeprecatedRoutesAnswerTheLegacyShapesWithDeprecationHeaders) {
  Boot();
  HttpResponse legacy = Call("POST", "/graphs/g1/read", "tok-a",
                             json{{"query_source", "query docs() { match { $d: Doc } return { $d.slug } }"}});
  ASSERT_EQ(legacy.status, 200) << legacy.body;
  EXPECT_FALSE(Body(legacy).contains("graph_commit_id"));
  EXPECT_EQ(legacy.headers, (std::vector<std::pair<std::string, std::string>>{
                                {"Deprecation", "true"}, {"Link", "</graphs/g1/query>; rel=\"successor-version\""}}));
  // A mutation sent through /read goes to the engine's read path, which
  // refuses it after the read check: it never writes, whoever sends it.
  for (const std::string token : {"tok-r", "tok-a"}) {
    HttpResponse refused = Call("POST", "/graphs/g1/read", token,
                                json{{"query_source", "query add() { insert Doc { slug: \"r\", body: \"x\" } }"},
                                     {"branch", "dev"}});
    EXPECT_EQ(refused.status, 400) << token;
    EXPECT_EQ(Body(refused), (json{{"error", "query 'add' is a mutation; run it with `mutate`"}, {"code", "bad_request"}}))
        << token;
  }
  EXPECT_EQ(Slugs("dev"), (std::vector<std::string>{"d1"}));
  // POST /query refuses mutations outright.
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", Insert("dev", "q")).status, 400);
}

TEST_F(ServerTest, MalformedBodiesAreJsonErrors) {
  Boot();
  HttpRequest request;
  request.method = "POST";
  request.path = "/graphs/g1/query";
  request.headers.Add("Authorization", "Bearer tok-a");
  request.headers.Add("Content-Type", "application/json");
  request.body = "{not json";
  HttpResponse malformed = server_->Handle(request);
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(Body(malformed)["code"], "bad_request");
  // The message names where the body stops being JSON.
  EXPECT_EQ(Body(malformed)["error"],
            "the request body is not valid JSON: [json.exception.parse_error.101] parse error at line 1, column 3: "
            "syntax error while parsing object key - invalid literal; last read: '{no'; expected string literal");
  request.body = "[1]";
  EXPECT_EQ(server_->Handle(request).status, 400);
  request.body = Query("dev").dump();
  request.headers = {};
  request.headers.Add("Authorization", "Bearer tok-a");
  request.headers.Add("Content-Type", "text/plain");
  HttpResponse media = server_->Handle(request);
  EXPECT_EQ(media.status, 415);
  EXPECT_EQ(Body(media)["error"], "expected a request body with Content-Type: application/json");
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", json{{"query", 3}}).status, 400);
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", json{{"branch", "dev"}}).status, 400);
}

TEST_F(ServerTest, BranchMergeReportsARefusedSourceDeleteInItsBody) {
  Boot();
  ASSERT_EQ(Call("POST", "/graphs/g1/mutate", "tok-w", Insert("dev", "m1")).status, 200);
  HttpResponse merged =
      Call("POST", "/graphs/g1/branches/merge", "tok-a", json{{"source", "dev"}, {"delete_branch", true}});
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(Body(merged)["branch_deleted"], true);
  EXPECT_EQ(Slugs("main"), (std::vector<std::string>{"d1", "m1"}));
  EXPECT_EQ(Body(Call("GET", "/graphs/g1/branches", "tok-a"))["branches"], json::array({"main"}));
  // The writer may not merge into protected main.
  EXPECT_EQ(Call("POST", "/graphs/g1/branches/merge", "tok-w", json{{"source", "dev"}, {"target", "main "}}).status,
            403);
}

TEST_F(ServerTest, GraphListNeedsAServerScopedGrant) {
  Boot();
  HttpResponse denied = Call("GET", "/graphs", "tok-a");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(Body(denied)["error"], "policy denied action 'graph_list': no server-scoped policy bundle is bound");
  EXPECT_EQ(Call("GET", "/graphs", "").status, 401);
}

TEST_F(ServerTest, LoadCreatesAMissingBranchOnlyFromAGivenBase) {
  Boot();
  json rows = {{"data", "{\"type\":\"Doc\",\"data\":{\"slug\":\"l1\",\"body\":\"b\"}}\n"}, {"branch", "feature"}};
  HttpResponse missing = Call("POST", "/graphs/g1/load", "tok-a", rows);
  EXPECT_EQ(missing.status, 404) << missing.body;
  rows["from"] = "main";
  // The admin has no change grant on... every branch: branch_create and change both hold.
  HttpResponse created = Call("POST", "/graphs/g1/load", "tok-a", rows);
  ASSERT_EQ(created.status, 200) << created.body;
  json receipt = Body(created);
  EXPECT_EQ(receipt["branch_created"], true);
  EXPECT_EQ(receipt["base_branch"], "main");
  EXPECT_EQ(receipt["actor_id"], "admin");
  EXPECT_EQ(Slugs("feature"), (std::vector<std::string>{"d1", "l1"}));
}

// The body a streamed response produces.
std::string Drain(const HttpResponse& response) {
  if (!response.stream) return response.body;
  std::string body, chunk;
  bool failed = false;
  while (response.stream->next(&chunk, &failed)) body += chunk;
  EXPECT_FALSE(failed);
  return body;
}

std::optional<std::string> Header(const HttpResponse& response, const std::string& name) {
  for (const auto& [field, value] : response.headers) {
    if (field == name) return value;
  }
  return std::nullopt;
}

// surface.md §4: the JSON envelope of /load and /ingest carries
// loader-compatible records (§4.6: any whitespace between values, extras
// ignored, errors citing "record N"); /load/ndjson stays strict.
TEST_F(ServerTest, LoadAndIngestEnvelopesTakeLegacyRecords) {
  Boot();
  auto pretty = [](const std::string& first, const std::string& second) {
    return "{\n  \"type\": \"Doc\",\n  \"data\": {\"slug\": \"" + first +
           "\", \"body\": \"b\", \"extra\": 1},\n  \"note\": \"by hand\"\n} {\"type\":\"Doc\",\"data\":{\"slug\":\"" +
           second + "\",\"body\":\"b\",\"file\":7}}\n";
  };
  HttpResponse loaded = Call("POST", "/graphs/g1/load", "tok-a", json{{"data", pretty("l1", "l2")}});
  ASSERT_EQ(loaded.status, 200) << loaded.body;
  EXPECT_EQ(Body(loaded)["total_entities"], 2);
  EXPECT_EQ(Body(loaded)["mode"], "merge");
  EXPECT_EQ(Body(loaded)["base_branch"], nullptr);
  HttpResponse ingested =
      Call("POST", "/graphs/g1/ingest", "tok-a", json{{"data", pretty("l3", "l4")}, {"branch", "main"}, {"from", "main"}});
  ASSERT_EQ(ingested.status, 200) << ingested.body;
  EXPECT_EQ(Header(ingested, "Deprecation"), "true");
  EXPECT_EQ(Body(ingested)["total_entities"], 2);
  EXPECT_EQ(Body(ingested)["branch_created"], false);
  // The request's `from` is echoed even though the branch existed.
  EXPECT_EQ(Body(ingested)["base_branch"], "main");
  EXPECT_EQ(Slugs("main"), (std::vector<std::string>{"d1", "l1", "l2", "l3", "l4"}));

  // Refusals are 400 ErrorOutput bodies naming the record.
  for (const std::string route : {"/graphs/g1/load", "/graphs/g1/ingest"}) {
    HttpResponse refused = Call("POST", route, "tok-a",
                                json{{"data", "{\"type\":\"Doc\",\"data\":{\"slug\":\"x\",\"body\":\"b\"}}\n"
                                              "{\"type\":\"Ghost\",\"data\":{}}\n"}});
    EXPECT_EQ(refused.status, 400) << route;
    EXPECT_EQ(Body(refused)["error"], "record 2: unknown node type 'Ghost'") << route;
    HttpResponse missing = Call("POST", route, "tok-a", json{{"data", "{\"type\":\"Doc\",\"data\":{\"slug\":\"x\"}}"}});
    EXPECT_EQ(missing.status, 400) << route;
    EXPECT_EQ(Body(missing)["error"], "record 1: non-nullable property 'body' has null or invalid values") << route;
  }

  // The same records are refused by the strict raw NDJSON route.
  HttpRequest raw;
  raw.method = "POST";
  ASSERT_TRUE(server::SplitTarget("/graphs/g1/load/ndjson?branch=main", &raw));
  raw.headers.Add("Authorization", "Bearer tok-a");
  raw.headers.Add("Content-Type", "application/x-ndjson");
  raw.body = pretty("n1", "n2");
  HttpResponse strict = server_->Handle(raw);
  EXPECT_EQ(strict.status, 400) << strict.body;
  EXPECT_EQ(Body(strict)["error"].get<std::string>().rfind("<request body>:1: invalid JSON at column ", 0), 0u)
      << strict.body;
  raw.body = "{\"type\":\"Doc\",\"data\":{\"slug\":\"n1\",\"body\":\"b\",\"extra\":1}}\n";
  HttpResponse unknown = server_->Handle(raw);
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  EXPECT_EQ(Body(unknown)["error"], "<request body>:1: unknown input field 'extra' for 'node:Doc'");
  EXPECT_EQ(Slugs("main"), (std::vector<std::string>{"d1", "l1", "l2", "l3", "l4"}));
}

TEST_F(ServerTest, BlobsStreamWithTheirTagRangesAndConditions) {
  Boot();
  const std::string blob = "/graphs/g1/blob?entity=node&type=Doc&id=d1&property=file";
  HttpResponse whole = Call("GET", blob, "tok-a");
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(Drain(whole), "hello world");
  EXPECT_EQ(whole.stream_length, 11u);
  EXPECT_EQ(whole.content_type, "application/octet-stream");
  std::string etag = *Header(whole, "ETag");
  EXPECT_EQ(Header(whole, "Accept-Ranges"), "bytes");
  EXPECT_TRUE(Header(whole, "Omnigraph-Snapshot-Id").has_value());

  HttpResponse part = Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=6-"}});
  EXPECT_EQ(part.status, 206);
  EXPECT_EQ(Drain(part), "world");
  EXPECT_EQ(Header(part, "Content-Range"), "bytes 6-10/11");
  EXPECT_EQ(Drain(Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=-5"}})), "world");
  EXPECT_EQ(Drain(Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=0-4"}})), "hello");
  // Several ranges, or another unit: the whole value.
  HttpResponse multi = Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=0-1,3-4"}});
  EXPECT_EQ(multi.status, 200);
  EXPECT_EQ(Drain(multi), "hello world");
  HttpResponse past = Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=11-"}});
  EXPECT_EQ(past.status, 416);
  EXPECT_EQ(Header(past, "Content-Range"), "bytes */11");
  EXPECT_EQ(Body(past)["blob_range"], (json{{"start", 11}, {"end", 11}, {"length", 11}}));
  // If-Range with another validator: the whole value.
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=6-"}, {"If-Range", "\"other\""}}).status, 200);
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"Range", "bytes=6-"}, {"If-Range", etag}}).status, 206);

  HttpResponse stale = Call("GET", blob, "tok-a", std::nullopt, {{"If-Match", "\"nope\""}});
  EXPECT_EQ(stale.status, 412);
  EXPECT_EQ(Body(stale)["precondition_failure"], (json{{"expected", "\"nope\""}, {"actual", etag}}));
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"If-Match", "\"x\", " + etag}}).status, 200);
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"If-Match", "W/" + etag}}).status, 412);
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"If-None-Match", "W/" + etag}}).status, 304);
  EXPECT_EQ(Call("GET", blob, "tok-a", std::nullopt, {{"If-None-Match", "*"}}).status, 304);

  HttpResponse head = Call("HEAD", blob, "tok-a", std::nullopt, {{"Range", "bytes=6-"}});
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.head_only);
  EXPECT_EQ(head.stream_length, 11u);

  EXPECT_EQ(Call("GET", "/graphs/g1/blob?entity=node&type=Doc&id=d1", "tok-a").status, 400);
  EXPECT_EQ(Call("GET", "/graphs/g1/blob?entity=node&type=Doc&id=zz&property=file", "tok-a").status, 404);
  EXPECT_EQ(Call("GET", blob + "&branch=main", "tok-r").status, 403);
}

TEST_F(ServerTest, AGraphThatCannotOpenIsQuarantinedUnlessEveryGraphIsRequired) {
  auto store = LocalStore::Make(dir_.path());
  auto state = cluster::ReadState(*store, "");
  ASSERT_TRUE(state.ok() && state->state);
  cluster::ClusterState ledger = *state->state;
  ledger.resources["graph.g2"] = cluster::StateResource{"no-root"};
  ASSERT_TRUE(cluster::WriteState(*store, "", ledger, state->cas).ok());
  Boot();
  EXPECT_EQ(server_->graphs().size(), 1u);
  EXPECT_EQ(Body(Call("GET", "/graphs/g2/snapshot", "tok-a")),
            (json{{"error", "graph 'g2' not found"}, {"code", "not_found"}}));
  EXPECT_EQ(Call("GET", "/graphs/g1/snapshot", "tok-a").status, 200);

  server::ServerOptions strict;
  strict.cluster = dir_.path();
  strict.require_all_graphs = true;
  std::string log;
  auto refused = server::Server::Boot(strict, MapEnvironment({{"OMNIGRAPH_SERVER_BEARER_TOKEN", "t"}}), &log);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "strict multi-graph startup requires every graph to open (2 configured, 1 failed)");
  EXPECT_NE(log.find("warning: quarantined graph 'g2'"), std::string::npos) << log;
}

TEST_F(ServerTest, AServerWithAPolicyButNoTokensRefusesToStart) {
  server::ServerOptions options;
  options.cluster = dir_.path();
  options.unauthenticated = true;
  std::string log;
  auto refused = server::Server::Boot(options, MapEnvironment({}), &log);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("a policy bundle is bound but no bearer tokens are configured", 0), 0u);
}

// Every handle of every served graph reads through the server's one engine
// context: a table version is decoded once, whichever handle reads it, and
// the process's default engine is not used.
TEST_F(ServerTest, ServedHandlesShareTheServersEngine) {
  Boot();
  const api::Engine::Usage process_before = api::Engine::Process()->usage();
  EXPECT_EQ(server_->engine().usage().table_versions, 0u);
  for (const std::string branch : {"main", "main", "dev", "main"}) {
    ASSERT_EQ(Call("POST", "/graphs/g1/query", "tok-a", Query(branch)).status, 200) << branch;
  }
  // One Doc version: dev was branched from main and pins the same one.
  EXPECT_EQ(server_->engine().usage().table_versions, 1u);
  EXPECT_EQ(api::Engine::Process()->usage().table_versions, process_before.table_versions);
  EXPECT_EQ(api::Engine::Process()->usage().table_bytes, process_before.table_bytes);
}

// cluster.md §1.4, §5: a provider's secret is read at boot; a missing one
// quarantines the graph, naming the graph and the variable.
TEST_F(ServerTest, AMissingProviderSecretQuarantinesItsGraph) {
  ChangeLedger([](cluster::ClusterState& state) {
    state.resources.at("graph.g1").embedding_provider = "provider.embedding.main";
    cluster::StateResource provider{"provider-digest"};
    provider.embedding_profile = R"({"kind":"openai","api_key":"${G1_EMBED_KEY}"})";
    state.resources["provider.embedding.main"] = provider;
  });
  server::ServerOptions options;
  options.cluster = dir_.path();
  std::string log;
  auto refused = server::Server::Boot(options, MapEnvironment({{"OMNIGRAPH_UNAUTHENTICATED", "1"}}), &log);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(log,
            "warning: [embedding_api_key_missing] graph.g1: embedding provider for graph 'g1': embedding api_key "
            "env var 'G1_EMBED_KEY' is not set\n");
  EXPECT_EQ(refused.status().message(),
            "the cluster at '" + dir_.path() + "' has no healthy graphs to serve (quarantined: g1)");
  Boot({{"G1_EMBED_KEY", "secret"}});
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", Query("main")).status, 200);
}

// cluster.md §5: a served graph admits the external Blob URIs of its
// server_safe bases, and none without a policy (Deny).
TEST_F(ServerTest, ServedWritesAdmitExternalBlobsUnderTheGraphsServerSafeBases) {
  auto insert = [&](const std::string& slug, const std::string& uri) {
    json body{{"query", "query add($s: String, $f: Blob) { insert Doc { slug: $s, body: \"x\", file: $f } }"},
              {"params", {{"s", slug}, {"f", uri}}}};
    return Call("POST", "/graphs/g1/mutate", "tok-a", body);
  };
  Boot();
  HttpResponse denied = insert("d2", "s3://assets/docs/a.pdf");
  EXPECT_EQ(denied.status, 400) << denied.body;
  server_.reset();

  ChangeLedger([](cluster::ClusterState& state) {
    state.resources.at("graph.g1").external_blob_policy =
        R"({"mode":"allow","bases":[{"uri":"s3://assets/docs/","scope":"server_safe"},)"
        R"({"uri":"s3://assets/private/","scope":"embedded_only"}]})";
  });
  Boot();
  HttpResponse admitted = insert("d2", "s3://assets/docs/a.pdf");
  EXPECT_EQ(admitted.status, 200) << admitted.body;
  EXPECT_EQ(insert("d3", "s3://assets/private/b.pdf").status, 400);  // embedded_only: not for a server
  EXPECT_EQ(insert("d4", "s3://elsewhere/c.pdf").status, 400);
  EXPECT_EQ(Slugs("main"), (std::vector<std::string>{"d1", "d2"}));
}

TEST_F(ServerTest, StalledExportsHoldNoHandleReadsNeed) {
  // Enough rows for more pieces than an export queues (2 × 64 KiB).
  std::string rows;
  for (int i = 0; i < 3000; ++i) {
    rows += "{\"type\":\"Doc\",\"data\":{\"slug\":\"bulk" + std::to_string(i) + "\",\"body\":\"" +
            std::string(100, 'x') + "\"}}\n";
  }
  Boot();
  ASSERT_EQ(Call("POST", "/graphs/g1/load", "tok-a", json{{"data", rows}}).status, 200);
  // Two exports (as many as the graph has reader handles) whose clients
  // never read.
  HttpResponse first = Call("POST", "/graphs/g1/export", "tok-a", json::object());
  HttpResponse second = Call("POST", "/graphs/g1/export", "tok-a", json::object());
  ASSERT_EQ(first.status, 200);
  ASSERT_EQ(second.status, 200);
  ASSERT_TRUE(first.stream && second.stream);
  EXPECT_EQ(Call("POST", "/graphs/g1/query", "tok-a", Query("main")).status, 200);
  // Read to the end, the stream holds every row, in whole lines.
  std::string body = Drain(first);
  EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), 3001);
}

TEST(ServerEngineGate, TheEngineChecksEveryWriteAgain) {
  TempDir dir;
  auto graph = api::Omnigraph::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(graph.ok());
  auto bundle = policy::ParseBundle(kPolicy, "p.yaml");
  ASSERT_TRUE(bundle.ok()) << bundle.status().message();
  (*graph)->set_policy(std::make_shared<policy::Evaluator>(std::move(*bundle)));
  const std::string insert = "query add() { insert Doc { slug: \"e\", body: \"x\" } }";
  auto anonymous = (*graph)->Mutate(insert, "q.gq", "", "{}", "main");
  EXPECT_EQ(anonymous.status().code(), ErrorCode::kPolicyDenied);
  EXPECT_EQ(anonymous.status().http_status(), 403);
  ASSERT_TRUE((*graph)->set_actor("writer").ok());
  auto writer = (*graph)->Mutate(insert, "q.gq", "", "{}", " main ");
  EXPECT_EQ(writer.status().message(), "policy denied action 'change' on branch 'main' for actor 'writer'");
  EXPECT_EQ((*graph)->BranchCreate("dev", "main").status().code(), ErrorCode::kPolicyDenied);
  ASSERT_TRUE((*graph)->set_actor("admin").ok());
  EXPECT_TRUE((*graph)->BranchCreate("dev", "main").ok());
  EXPECT_TRUE((*graph)->Mutate(insert, "q.gq", "", "{}", "main").ok());
  ASSERT_TRUE((*graph)->set_actor("reader").ok());
  EXPECT_EQ((*graph)->BranchDelete("dev").code(), ErrorCode::kPolicyDenied);
  EXPECT_EQ((*graph)->BranchMerge("dev", "main").status().code(), ErrorCode::kPolicyDenied);
  EXPECT_EQ((*graph)->ApplySchema(kSchema, "s.pg", false).status().code(), ErrorCode::kPolicyDenied);
}

}  // namespace server_test
}  // namespace omnigraph::testing
