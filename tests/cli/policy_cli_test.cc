// `policy validate | test | explain` through the binary (spec/surface.md
// §5.2; server.md §2.2–§2.4): stdout, stderr and exit codes exactly.
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace policy_cli_test {

using json = nlohmann::ordered_json;
using testing::CliRun;

constexpr std::string_view kBundle = R"(version: 1
groups:
  admins: [act-andrew]
  writers: [act-a, act-b]
protected_branches: [main]
rules:
  - id: writers-unprotected
    allow:
      actors: { group: writers }
      actions: [change, export]
      branch_scope: unprotected
  - id: admins-merge
    allow:
      actors: { group: admins }
      actions: [branch_merge]
      target_branch_scope: protected
)";

constexpr std::string_view kPassingTests = R"(version: 1
cases:
  - {id: feature, actor: act-a, action: change, branch: feat, expect: allow}
  - {id: stranger, actor: nobody, action: read, expect: deny}
)";

constexpr std::string_view kFailingTests = R"(version: 1
cases:
  - {id: feature, actor: act-a, action: change, branch: feat, expect: allow}
  - {id: main-write, actor: act-b, action: change, branch: main, expect: allow}
  - {id: merge, actor: act-andrew, action: branch_merge, branch: feat, target_branch: dev, expect: allow}
)";

class PolicyCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("policy.yaml", kBundle);
    Write("pass.yaml", kPassingTests);
    Write("fail.yaml", kFailingTests);
  }
};

TEST_F(PolicyCliTest, ValidateHumanAndJson) {
  CliRun human = Run("policy validate policy.yaml");
  EXPECT_EQ(human.rc, 0) << human.err;
  EXPECT_EQ(human.out, "policy valid: policy.yaml [graph bundle, 3 actors, 2 rules]\n");
  EXPECT_EQ(human.err, "");

  CliRun as_json = Run("policy validate policy.yaml --json");
  EXPECT_EQ(as_json.rc, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out).dump(),
            R"({"file":"policy.yaml","valid":true,"binding":"graph","groups":2,"actors":3,"rules":2,)"
            R"("protected_branches":["main"],"errors":[]})");

  Write("server.yaml", "version: 1\ngroups: {ops: [op]}\nrules:\n  - id: list\n    allow: {actors: {group: ops}, "
                       "actions: [graph_list]}\n");
  CliRun server = Run("policy validate server.yaml");
  EXPECT_EQ(server.rc, 0) << server.err;
  EXPECT_EQ(server.out, "policy valid: server.yaml [cluster bundle, 1 actors, 1 rules]\n");
}

TEST_F(PolicyCliTest, ValidateReportsTheErrorAtItsPosition) {
  Write("typo.yaml", "version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
                     "      actions: [read]\n      branch_scpoe: any\n");
  CliRun typo = Run("policy validate typo.yaml");
  EXPECT_EQ(typo.rc, 1);
  EXPECT_EQ(typo.out, "");
  EXPECT_EQ(typo.err,
            "error: typo.yaml:8:7: unknown field 'branch_scpoe' in a rule's allow, expected one of 'actors', "
            "'actions', 'branch_scope', 'target_branch_scope'\n");

  Write("mixed.yaml", "version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow: {actors: {group: g}, actions: "
                      "[read]}\n  - id: list\n    allow: {actors: {group: g}, actions: [graph_list]}\n");
  CliRun mixed = Run("policy validate mixed.yaml --json");
  EXPECT_EQ(mixed.rc, 1);
  EXPECT_EQ(json::parse(mixed.out).dump(),
            R"({"file":"mixed.yaml","valid":false,"binding":"graph","groups":1,"actors":1,"rules":2,)"
            R"("protected_branches":[],"errors":[{"message":"mixed.yaml:7:43: policy rule 'list' grants the )"
            R"(server-scoped action 'graph_list', which a graph-bound bundle cannot grant","file":"mixed.yaml",)"
            R"("line":7,"column":43}]})");
  EXPECT_EQ(mixed.err,
            "error: mixed.yaml:7:43: policy rule 'list' grants the server-scoped action 'graph_list', which a "
            "graph-bound bundle cannot grant\n");

  CliRun missing = Run("policy validate nope.yaml");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.err, "error: cannot read 'nope.yaml': no such file\n");
}

// Every error of an invalid bundle, each at its file:line:column, in the
// order the validator meets them (shape, then the §2.2 rules); with
// --json the report is on stdout too, with the same errors.
TEST_F(PolicyCliTest, ValidateReportsEveryError) {
  Write("bad.yaml",
        "version: 1\n"
        "groups:\n"
        "  writers: [act-a, ' ']\n"
        "  empty: []\n"
        "protected_branches: [main, '']\n"
        "rules:\n"
        "  - id: r1\n"
        "    allow:\n"
        "      actors: {group: writers}\n"
        "      actions: [read, frobnicate]\n"
        "  - id: r2\n"
        "    allow:\n"
        "      actors: {group: nobody}\n"
        "      actions: [read]\n"
        "      branch_scpoe: any\n"
        "  - id: r2\n"
        "    allow:\n"
        "      actors: {group: writers}\n"
        "      actions: [graph_list, read]\n"
        "      target_branch_scope: any\n");
  const std::string errors =
      "error: bad.yaml:10:23: unknown policy action 'frobnicate', expected one of read, export, change, "
      "schema_apply, branch_create, branch_delete, branch_merge, admin, invoke_query, graph_list\n"
      "error: bad.yaml:15:7: unknown field 'branch_scpoe' in a rule's allow, expected one of 'actors', 'actions', "
      "'branch_scope', 'target_branch_scope'\n"
      "error: bad.yaml:4:10: policy group 'empty' must not be empty\n"
      "error: bad.yaml:3:20: policy group 'writers' contains a blank actor id\n"
      "error: bad.yaml:5:28: protected branch names must not be blank\n"
      "error: bad.yaml:13:23: policy rule 'r2' references unknown group 'nobody'\n"
      "error: bad.yaml:16:9: duplicate policy rule id 'r2'\n"
      "error: bad.yaml:19:16: policy rule 'r2' mixes the server-scoped action 'graph_list' with per-graph "
      "actions; split it into separate rules\n"
      "error: bad.yaml:20:28: policy rule 'r2' uses target_branch_scope with the server-scoped action "
      "'graph_list'; it has no branch context\n";
  CliRun human = Run("policy validate bad.yaml");
  EXPECT_EQ(human.rc, 1);
  EXPECT_EQ(human.out, "");
  EXPECT_EQ(human.err, errors);

  CliRun as_json = Run("policy validate bad.yaml --json");
  EXPECT_EQ(as_json.rc, 1);
  EXPECT_EQ(as_json.err, errors);
  const json report = json::parse(as_json.out);
  EXPECT_EQ(report["file"], "bad.yaml");
  EXPECT_EQ(report["valid"], false);
  EXPECT_EQ(report["binding"], nullptr);  // not known while the bundle does not parse
  ASSERT_EQ(report["errors"].size(), 9u);
  EXPECT_EQ(report["errors"][2].dump(),
            R"({"message":"bad.yaml:4:10: policy group 'empty' must not be empty","file":"bad.yaml","line":4,)"
            R"("column":10})");
  std::string messages;
  for (const json& error : report["errors"]) messages += "error: " + error["message"].get<std::string>() + "\n";
  EXPECT_EQ(messages, errors);

  // A YAML syntax error ends the reading: one error.
  Write("syntax.yaml", "version: 1\ngroups: [\n");
  CliRun syntax = Run("policy validate syntax.yaml --json");
  EXPECT_EQ(syntax.rc, 1);
  EXPECT_EQ(json::parse(syntax.out)["errors"].size(), 1u);
  // An unreadable file is reported in the same shape.
  CliRun missing = Run("policy validate nope.yaml --json");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(json::parse(missing.out).dump(),
            R"({"file":"nope.yaml","valid":false,"binding":null,"groups":0,"actors":0,"rules":0,)"
            R"("protected_branches":[],"errors":[{"message":"cannot read 'nope.yaml': no such file"}]})");
}

TEST_F(PolicyCliTest, TestPassesAndFails) {
  CliRun pass = Run("policy test policy.yaml --tests pass.yaml");
  EXPECT_EQ(pass.rc, 0) << pass.err;
  EXPECT_EQ(pass.out, "policy tests passed: 2 cases\n");

  CliRun fail = Run("policy test policy.yaml --tests fail.yaml");
  EXPECT_EQ(fail.rc, 1);
  EXPECT_EQ(fail.out, "");
  EXPECT_EQ(fail.err,
            "error: policy tests failed: 2 of 3 cases\n"
            "  main-write: expected allow, got deny (policy denied action 'change' on branch 'main' for actor "
            "'act-b')\n"
            "  merge: expected allow, got deny (policy denied action 'branch_merge' on branch 'feat' targeting "
            "branch 'dev' for actor 'act-andrew')\n");

  CliRun as_json = Run("policy test policy.yaml --tests fail.yaml --json");
  EXPECT_EQ(as_json.rc, 1);
  json report = json::parse(as_json.out);
  EXPECT_EQ(report["passed"], false);
  EXPECT_EQ(report["cases"], 3);
  EXPECT_EQ(report["failed"], 2);
  EXPECT_EQ(report["results"][0].dump(),
            R"({"id":"feature","expect":"allow","decision":"allow","matched_rule_id":"writers-unprotected",)"
            R"("message":"policy allowed action 'change' for actor 'act-a'","passed":true})");
  EXPECT_EQ(report["results"][1]["matched_rule_id"], nullptr);
  EXPECT_EQ(report["results"][1]["passed"], false);

  Write("bad-tests.yaml", "version: 1\ncases:\n  - {id: c, actor: a, action: read, expect: maybe}\n");
  CliRun bad = Run("policy test policy.yaml --tests bad-tests.yaml");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.err, "error: bad-tests.yaml:3:45: expect must be allow or deny, got 'maybe'\n");

  CliRun no_tests = Run("policy test policy.yaml");
  EXPECT_EQ(no_tests.rc, 2);
}

TEST_F(PolicyCliTest, ExplainHuman) {
  CliRun allowed = Run("policy explain policy.yaml --actor act-andrew --action branch_merge --branch feat "
                       "--target-branch main");
  EXPECT_EQ(allowed.rc, 0) << allowed.err;
  EXPECT_EQ(allowed.out,
            "decision: allow\nactor: act-andrew\naction: branch_merge\nbranch: feat\ntarget_branch: main\n"
            "matched_rule: admins-merge\nmessage: policy allowed action 'branch_merge' for actor 'act-andrew'\n");

  CliRun denied = Run("policy explain policy.yaml --actor act-a --action change --branch main");
  EXPECT_EQ(denied.rc, 0) << denied.err;
  EXPECT_EQ(denied.out,
            "decision: deny\nactor: act-a\naction: change\nbranch: main\n"
            "message: policy denied action 'change' on branch 'main' for actor 'act-a'\n");

  CliRun unknown = Run("policy explain policy.yaml --actor ghost --action read");
  EXPECT_EQ(unknown.rc, 0) << unknown.err;
  EXPECT_EQ(unknown.out,
            "decision: deny\nactor: ghost\naction: read\nmessage: policy denied action 'read' for unknown actor "
            "'ghost'\n");
}

TEST_F(PolicyCliTest, ExplainJson) {
  CliRun allowed = Run("policy explain policy.yaml --actor act-b --action export --branch feat --json");
  EXPECT_EQ(allowed.rc, 0) << allowed.err;
  EXPECT_EQ(json::parse(allowed.out).dump(),
            R"({"decision":"allow","actor":"act-b","action":"export","branch":"feat","target_branch":null,)"
            R"("matched_rule_id":"writers-unprotected","message":"policy allowed action 'export' for actor 'act-b'"})");
}

TEST_F(PolicyCliTest, UsageErrors) {
  CliRun action = Run("policy explain policy.yaml --actor act-a --action write");
  EXPECT_EQ(action.rc, 2);
  EXPECT_EQ(action.out, "");
  EXPECT_EQ(action.err,
            "error: unknown policy action 'write', expected one of read, export, change, schema_apply, "
            "branch_create, branch_delete, branch_merge, admin, invoke_query, graph_list\n");

  CliRun store = Run("policy validate policy.yaml --store g");
  EXPECT_EQ(store.rc, 2);
  EXPECT_EQ(store.err, "error: `policy validate` addresses no graph; drop --store\n");

  CliRun no_verb = Run("policy");
  EXPECT_EQ(no_verb.rc, 2);
  CliRun no_actor = Run("policy explain policy.yaml --action read");
  EXPECT_EQ(no_actor.rc, 2);
}

}  // namespace policy_cli_test
}  // namespace omnigraph::cli
