// The server's parts that need no served graph: the runtime-state matrix
// (server.md §1.4), the token table, per-actor admission, the router and
// the event log's filters and lines.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "server/admission.h"
#include "server/auth.h"
#include "server/event_log.h"
#include "server/router.h"
#include "server/server.h"

namespace omnigraph::testing {
namespace server_parts_test {

TEST(ServerRuntime, TheRuntimeStateMatrix) {
  EXPECT_FALSE(server::ClassifyRuntime(false, false, false).ok());
  EXPECT_EQ(*server::ClassifyRuntime(false, false, true), server::RuntimeState::kOpen);
  EXPECT_EQ(*server::ClassifyRuntime(true, false, false), server::RuntimeState::kDefaultDeny);
  EXPECT_EQ(*server::ClassifyRuntime(true, false, true), server::RuntimeState::kDefaultDeny);
  EXPECT_FALSE(server::ClassifyRuntime(false, true, true).ok());
  EXPECT_EQ(*server::ClassifyRuntime(true, true, false), server::RuntimeState::kPolicyEnabled);
}

TEST(ServerTokens, TokenTablesRefuseBlanksAndDuplicates) {
  EXPECT_EQ(server::TokenTable::FromPairs({{"a", "x"}, {"b", "x"}}).status().message(),
            "bearer token configuration gives actor 'b' a token another actor already has; every actor needs its own "
            "token");
  EXPECT_FALSE(server::TokenTable::FromPairs({{" a ", "x"}, {"a", "y"}}).ok());
  EXPECT_FALSE(server::TokenTable::FromPairs({{"", "x"}}).ok());
  EXPECT_FALSE(server::TokenTable::FromPairs({{"a", "  "}}).ok());
  auto table = server::TokenTable::FromPairs({{" a ", " x "}});
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(*table->Authenticate(std::string("Bearer x")), "a");
  EXPECT_FALSE(table->Authenticate(std::string("Bearer  x")).ok());
  std::map<std::string, std::string> env{{"OMNIGRAPH_SERVER_BEARER_TOKEN", "one"},
                                         {"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"b":"two"})"}};
  auto lookup = [&env](const std::string& name) -> std::optional<std::string> {
    auto found = env.find(name);
    return found == env.end() ? std::nullopt : std::optional<std::string>(found->second);
  };
  auto from_env = server::TokenTable::FromEnvironment(lookup);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(*from_env->Authenticate(std::string("Bearer one")), "default");
  EXPECT_EQ(*from_env->Authenticate(std::string("Bearer two")), "b");
  env["OMNIGRAPH_SERVER_BEARER_TOKENS_JSON"] = R"({"b":"two","c":"three"," b ":"four"})";
  EXPECT_EQ(server::TokenTable::FromEnvironment(lookup).status().message(),
            "bearer token configuration names actor 'b' twice");
  env["OMNIGRAPH_SERVER_BEARER_TOKENS_JSON"] = R"({"b":"two"})";
  env["OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET"] = "arn";
  EXPECT_FALSE(server::TokenTable::FromEnvironment(lookup).ok());
  EXPECT_TRUE(server::IsTruthy(std::string(" yes ")));
  EXPECT_FALSE(server::IsTruthy(std::string(" FALSE ")));
  EXPECT_FALSE(server::IsTruthy(std::string("0")));
  EXPECT_FALSE(server::IsTruthy(std::string("  ")));
}

TEST(ServerAdmission, EachActorHasItsOwnSlotsAndBytes) {
  server::Admission admission(2, 100);
  auto a1 = admission.TryAdmit("a", 10);
  auto a2 = admission.TryAdmit("a", 10);
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(admission.TryAdmit("a", 1));
  EXPECT_TRUE(admission.TryAdmit("b", 100));
  EXPECT_FALSE(admission.TryAdmit("c", 101));
  a1.reset();
  auto a3 = admission.TryAdmit("a", 90);
  EXPECT_TRUE(a3);
  a3.reset();
  EXPECT_FALSE(admission.TryAdmit("a", 91));
}

TEST(ServerRouter, SegmentsDecodeAfterSplittingAndLiteralsMatchRawText) {
  server::Router router;
  router.Add(server::Route{"POST", "/graphs/{graph_id}/branches/merge", nullptr});
  router.Add(server::Route{"DELETE", "/graphs/{graph_id}/branches/{branch}", nullptr});
  auto merge = router.Find("POST", "/graphs/g/branches/merge");
  EXPECT_EQ(merge.outcome, server::RouteMatch::Outcome::kMatched);
  auto slash = router.Find("DELETE", "/graphs/g/branches/feature%2Fx");
  ASSERT_EQ(slash.outcome, server::RouteMatch::Outcome::kMatched);
  EXPECT_EQ(slash.params.at("branch"), "feature/x");
  auto wrong = router.Find("GET", "/graphs/g/branches/merge");
  EXPECT_EQ(wrong.outcome, server::RouteMatch::Outcome::kWrongMethod);
  EXPECT_EQ(wrong.allowed_methods, (std::vector<std::string>{"POST", "DELETE"}));
  EXPECT_EQ(router.Find("GET", "/graphs/g/branches/%zz").outcome, server::RouteMatch::Outcome::kBadPath);
  EXPECT_EQ(router.Find("DELETE", "/graphs/g/branches/").outcome, server::RouteMatch::Outcome::kNoRoute);
}

TEST(ServerEventLog, FiltersAndLinesAreExact) {
  auto log = server::EventLog::FromFilter("debug,routing=off,policy=TRACE");
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_TRUE(log->Enabled(server::LogTarget::kRequest, server::LogLevel::kDebug));
  EXPECT_FALSE(log->Enabled(server::LogTarget::kRequest, server::LogLevel::kTrace));
  EXPECT_FALSE(log->Enabled(server::LogTarget::kRouting, server::LogLevel::kError));
  EXPECT_TRUE(log->Enabled(server::LogTarget::kPolicy, server::LogLevel::kTrace));
  EXPECT_FALSE(log->Enabled(server::LogTarget::kPolicy, server::LogLevel::kOff));
  EXPECT_TRUE(server::EventLog::FromFilter("").ok());
  EXPECT_EQ(server::EventLog::FromFilter("info,request=loud").status().message(),
            "OMNIGRAPH_LOG: 'request=loud' is not a level or TARGET=LEVEL (levels: off, error, warn, info, debug, "
            "trace; targets: policy, routing, request)");
  std::string written;
  log->set_sink([&written](std::string_view line) { written = line; });
  log->Write(server::LogTarget::kPolicy, server::LogLevel::kWarn, "odd values",
             {{"plain", "a-b"}, {"empty", ""}, {"spaced", "a b"}, {"quoted", "say \"x\"=1\\"}, {"lines", "a\nb"}});
  EXPECT_EQ(written.substr(written.find(' ') + 1),
            "WARN policy: odd values plain=a-b empty= spaced=\"a b\" quoted=\"say \\\"x\\\"=1\\\\\" lines=\"a\\nb\"\n");
  written.clear();
  log->Write(server::LogTarget::kRouting, server::LogLevel::kError, "dropped", {});
  EXPECT_EQ(written, "");
}

}  // namespace server_parts_test
}  // namespace omnigraph::testing
