// The policy module (spec/server.md §2): strict bundle parsing with every
// §2.2 validation error at its line:column, kind alignment, the native
// decision of §2.4/§2.5 for each scope and action kind, matched rule ids,
// messages, the generated Cedar text (§2.3) and policy tests files.
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "policy/actions.h"
#include "policy/bundle.h"
#include "policy/compile.h"
#include "policy/evaluate.h"
#include "policy/policy_tests.h"

namespace omnigraph::policy {
namespace policy_test {

// The bundle most decision tests use. Line numbers matter to the tests
// that point into it.
constexpr std::string_view kBundle = R"(version: 1
groups:
  admins: [act-andrew]
  writers: [act-a, act-b]
  readers: [act-r, act-a]
  mergers: [act-m]
  listers: [act-l]
protected_branches: [main, release]
rules:
  - id: writers-unprotected
    allow:
      actors: { group: writers }
      actions: [change, export]
      branch_scope: unprotected
  - id: readers-any
    allow:
      actors: { group: readers }
      actions: [read]
      branch_scope: any
  - id: admins-protected
    allow:
      actors: { group: admins }
      actions: [change, read]
      branch_scope: protected
  - id: mergers-protected-target
    allow:
      actors: { group: mergers }
      actions: [branch_merge, schema_apply]
      target_branch_scope: protected
  - id: mergers-unprotected-target
    allow:
      actors: { group: mergers }
      actions: [branch_create, branch_delete]
      target_branch_scope: unprotected
  - id: admins-unscoped
    allow:
      actors: { group: admins }
      actions: [admin, invoke_query, schema_apply]
)";

// The message of the error ParseBundle returns for `text` read as
// "p.yaml"; "OK" when it parses.
std::string BundleError(std::string_view text) {
  auto bundle = ParseBundle(text, "p.yaml");
  return bundle.ok() ? "OK" : bundle.status().message();
}

std::string TestsError(std::string_view text) {
  auto tests = ParsePolicyTests(text, "t.yaml");
  return tests.ok() ? "OK" : tests.status().message();
}

Evaluator MakeEvaluator(std::string_view text) {
  auto bundle = ParseBundle(text, "p.yaml");
  EXPECT_TRUE(bundle.ok()) << bundle.status().ToString();
  return Evaluator(bundle.ok() ? std::move(*bundle) : Bundle{});
}

Request Ask(std::string actor, Action action, std::optional<std::string> branch = std::nullopt,
            std::optional<std::string> target = std::nullopt) {
  return Request{std::move(actor), action, std::move(branch), std::move(target)};
}

// "allow:<rule>" or "deny", the two parts of a decision most tests check.
std::string Outcome(const Evaluator& evaluator, const Request& request) {
  Decision decision = evaluator.Decide(request);
  if (!decision.allowed) {
    EXPECT_FALSE(decision.matched_rule_id.has_value());
    return "deny";
  }
  return "allow:" + decision.matched_rule_id.value_or("<none>");
}

// ---- actions (§2.1) ----

TEST(PolicyActionsTest, NamesKindsAndScopeKeys) {
  std::string names;
  for (Action action : kAllActions) {
    names += std::string(ActionName(action)) + ",";
    EXPECT_EQ(ParseAction(ActionName(action)), action);
  }
  EXPECT_EQ(names,
            "read,export,change,schema_apply,branch_create,branch_delete,branch_merge,admin,invoke_query,graph_list,");
  EXPECT_EQ(ParseAction("Read"), std::nullopt);
  EXPECT_EQ(ParseAction(" read"), std::nullopt);
  EXPECT_EQ(ParseAction("graph_create"), std::nullopt);
  for (Action action : kAllActions) {
    EXPECT_EQ(ResourceKindOf(action), action == Action::kGraphList ? ResourceKind::kServer : ResourceKind::kGraph)
        << ActionName(action);
  }
  EXPECT_EQ(AllowedScopeKey(Action::kRead), ScopeKey::kBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kExport), ScopeKey::kBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kChange), ScopeKey::kBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kSchemaApply), ScopeKey::kTargetBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kBranchCreate), ScopeKey::kTargetBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kBranchDelete), ScopeKey::kTargetBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kBranchMerge), ScopeKey::kTargetBranch);
  EXPECT_EQ(AllowedScopeKey(Action::kAdmin), ScopeKey::kNone);
  EXPECT_EQ(AllowedScopeKey(Action::kInvokeQuery), ScopeKey::kNone);
  EXPECT_EQ(AllowedScopeKey(Action::kGraphList), ScopeKey::kNone);
}

// ---- parsing a valid bundle ----

TEST(PolicyBundleTest, ParsesEveryPartWithPositions) {
  auto bundle = ParseBundle(kBundle, "p.yaml");
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  ASSERT_EQ(bundle->groups.size(), 5u);
  // Sorted by name, whatever the file order.
  EXPECT_EQ(bundle->groups[0].name, "admins");
  EXPECT_EQ(bundle->groups[1].name, "listers");
  EXPECT_EQ(bundle->groups[4].name, "writers");
  EXPECT_EQ(bundle->groups[4].position, (SourcePosition{4, 3}));
  ASSERT_EQ(bundle->groups[4].members.size(), 2u);
  EXPECT_EQ(bundle->groups[4].members[1].actor, "act-b");
  EXPECT_EQ(bundle->groups[4].members[1].position, (SourcePosition{4, 20}));
  EXPECT_EQ(bundle->ActorCount(), 6u);  // act-a is in two groups
  EXPECT_TRUE(bundle->IsProtected("main"));
  EXPECT_TRUE(bundle->IsProtected("release"));
  EXPECT_FALSE(bundle->IsProtected("Main"));
  ASSERT_EQ(bundle->rules.size(), 6u);
  const Rule& first = bundle->rules[0];
  EXPECT_EQ(first.id, "writers-unprotected");
  EXPECT_EQ(first.id_position, (SourcePosition{10, 9}));
  EXPECT_EQ(first.group, "writers");
  EXPECT_EQ(first.group_position, (SourcePosition{12, 24}));
  ASSERT_EQ(first.actions.size(), 2u);
  EXPECT_EQ(first.actions[1].action, Action::kExport);
  EXPECT_EQ(first.actions[1].position, (SourcePosition{13, 25}));
  EXPECT_EQ(first.branch_scope, BranchScope::kUnprotected);
  EXPECT_EQ(first.target_branch_scope, std::nullopt);
  EXPECT_EQ(bundle->rules[3].target_branch_scope, BranchScope::kProtected);
  EXPECT_EQ(bundle->rules[5].branch_scope, std::nullopt);
}

TEST(PolicyBundleTest, OptionalSectionsMayBeOmitted) {
  auto bundle = ParseBundle("version: 1\n", "p.yaml");
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  EXPECT_TRUE(bundle->groups.empty());
  EXPECT_TRUE(bundle->protected_branches.empty());
  EXPECT_TRUE(bundle->rules.empty());
  EXPECT_EQ(BundleError("version: 1\ngroups: {}\nprotected_branches: []\nrules: []\n"), "OK");
}

// cluster.md §8 Q9: an optional `kind: server | graph` that must agree with
// the binding (the corpus cookbook's server bundle writes `kind: server`).
TEST(PolicyBundleTest, AnOptionalKindMustAgreeWithTheBinding) {
  const std::string server =
      "version: 1\nkind: server\ngroups:\n  admins: [a]\nrules:\n  - id: list\n    allow:\n"
      "      actors: { group: admins }\n      actions: [graph_list]\n";
  auto bundle = ParseBundle(server, "p.yaml");
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  EXPECT_EQ(bundle->kind, BundleKind::kServer);
  EXPECT_TRUE(CheckBinding(*bundle, Binding::kCluster).ok());
  EXPECT_EQ(CheckBinding(*bundle, Binding::kGraph).message(),
            "p.yaml:2:7: `kind: server` does not match a graph-bound bundle");
  EXPECT_EQ(*InferBinding(*bundle), Binding::kCluster);
  std::string graph = server;
  graph.replace(graph.find("kind: server"), 12, "kind: graph");
  auto declared_graph = ParseBundle(graph, "p.yaml");
  ASSERT_TRUE(declared_graph.ok());
  EXPECT_EQ(CheckBinding(*declared_graph, Binding::kCluster).message(),
            "p.yaml:2:7: `kind: graph` does not match a cluster-bound bundle");
  EXPECT_EQ(BundleError("version: 1\nkind: tenant\n"),
            "p.yaml:2:7: unknown bundle kind 'tenant', expected 'server' or 'graph'");
}

TEST(PolicyBundleTest, ErrorsCarryFileLineAndColumnDetails) {
  auto bundle = ParseBundle("version: 2\n", "dir/p.yaml");
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bundle.status().message(), "dir/p.yaml:1:10: policy version must be 1");
  EXPECT_EQ(bundle.status().details().at("file"), "dir/p.yaml");
  EXPECT_EQ(bundle.status().details().at("line"), "1");
  EXPECT_EQ(bundle.status().details().at("column"), "10");
}

// ---- the shape: strict keys, types, YAML itself ----

TEST(PolicyBundleTest, UnknownKeysAreRejectedEverywhere) {
  EXPECT_EQ(BundleError("version: 1\ntenant: acme\n"),
            "p.yaml:2:1: unknown field 'tenant' in policy bundle, expected one of 'version', 'kind', 'groups', "
            "'protected_branches', 'rules'");
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    deny: {}\n"),
            "p.yaml:5:5: unknown field 'deny' in a rule, expected one of 'id', 'allow'");
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
                        "      actions: [read]\n      branch_scpoe: any\n"),
            "p.yaml:8:7: unknown field 'branch_scpoe' in a rule's allow, expected one of 'actors', 'actions', "
            "'branch_scope', 'target_branch_scope'");
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g, "
                        "actor: a}\n      actions: [read]\n"),
            "p.yaml:6:26: unknown field 'actor' in allow.actors, expected one of 'group'");
}

TEST(PolicyBundleTest, DuplicateKeysAreRejected) {
  EXPECT_EQ(BundleError("version: 1\nversion: 1\n"), "p.yaml:2:1: duplicate key 'version' in policy bundle");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  g: [a]\n  g: [b]\n"), "p.yaml:4:3: duplicate key 'g' in groups");
}

TEST(PolicyBundleTest, MissingRequiredFields) {
  EXPECT_EQ(BundleError("groups: {}\n"), "p.yaml:1:1: policy bundle is missing the 'version' field");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - allow: {}\n"), "p.yaml:3:5: a rule is missing the 'id' field");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: r\n"), "p.yaml:3:5: a rule is missing the 'allow' field");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: r\n    allow: {actions: [read]}\n"),
            "p.yaml:4:12: a rule's allow is missing the 'actors' field");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: r\n    allow: {actors: {group: g}}\n"),
            "p.yaml:4:12: a rule's allow is missing the 'actions' field");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: r\n    allow: {actors: {}, actions: [read]}\n"),
            "p.yaml:4:21: allow.actors is missing the 'group' field");
}

TEST(PolicyBundleTest, WrongTypes) {
  EXPECT_EQ(BundleError("- version\n"), "p.yaml:1:1: policy bundle must be a mapping");
  EXPECT_EQ(BundleError(""), "p.yaml:1:1: policy bundle is empty; expected a mapping");
  EXPECT_EQ(BundleError("version: 1\ngroups: [a]\n"), "p.yaml:2:9: groups must be a mapping");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  g: a\n"), "p.yaml:3:6: members of group 'g' must be a list");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  g:\n"), "p.yaml:3:3: members of group 'g' must be a list");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  g: [[a]]\n"), "p.yaml:3:7: a member of group 'g' must be a string");
  EXPECT_EQ(BundleError("version: 1\nprotected_branches: main\n"), "p.yaml:2:21: protected_branches must be a list");
  EXPECT_EQ(BundleError("version: 1\nrules: {}\n"), "p.yaml:2:8: rules must be a list");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: [r]\n    allow: {}\n"), "p.yaml:3:9: a rule id must be a string");
  EXPECT_EQ(BundleError("version: 1\nrules:\n  - id: r\n    allow: {actors: {group: g}, actions: read}\n"),
            "p.yaml:4:42: allow.actions must be a list");
}

TEST(PolicyBundleTest, UnknownActionAndScopeValues) {
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
                        "      actions: [read, graph_create]\n"),
            "p.yaml:7:23: unknown policy action 'graph_create', expected one of read, export, change, "
            "schema_apply, branch_create, branch_delete, branch_merge, admin, invoke_query, graph_list");
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
                        "      actions: [read]\n      branch_scope: all\n"),
            "p.yaml:8:21: branch_scope must be one of any, protected, unprotected, got 'all'");
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n"
                        "      actions: [branch_merge]\n      target_branch_scope: Protected\n"),
            "p.yaml:8:28: target_branch_scope must be one of any, protected, unprotected, got 'Protected'");
}

TEST(PolicyBundleTest, YamlSyntaxErrorsAreLocated) {
  EXPECT_EQ(BundleError("version: 1\ngroups: {g: [a}\n"), "p.yaml:2:15: illegal flow end");
}

// ---- the §2.2 validation rules, each at its node ----

TEST(PolicyBundleTest, VersionMustBeExactlyOne) {
  EXPECT_EQ(BundleError("version: 2\n"), "p.yaml:1:10: policy version must be 1");
  EXPECT_EQ(BundleError("version: 0\n"), "p.yaml:1:10: policy version must be 1");
  EXPECT_EQ(BundleError("version: \"1\"\n"), "p.yaml:1:10: policy version must be 1");
  EXPECT_EQ(BundleError("version: 1.0\n"), "p.yaml:1:10: policy version must be 1");
  EXPECT_EQ(BundleError("version:\n"), "p.yaml:1:1: policy version must be 1");
}

TEST(PolicyBundleTest, GroupRules) {
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  \" \": [a]\n"), "p.yaml:3:3: policy group names must not be blank");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  admins: []\n"), "p.yaml:3:11: policy group 'admins' must not be empty");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  admins: [a, \"\"]\n"),
            "p.yaml:3:15: policy group 'admins' contains a blank actor id");
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  admins: [a, \"  \"]\n"),
            "p.yaml:3:15: policy group 'admins' contains a blank actor id");
  // Groups are checked in name order, as the reference's sorted map does.
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  zeta: []\n  alpha: []\n"),
            "p.yaml:4:10: policy group 'alpha' must not be empty");
}

TEST(PolicyBundleTest, ProtectedBranchNamesMustNotBeBlank) {
  EXPECT_EQ(BundleError("version: 1\nprotected_branches: [main, \" \"]\n"),
            "p.yaml:2:28: protected branch names must not be blank");
}

// A bundle with group g = [a] and one rule whose allow body is `allow`.
std::string OneRule(std::string_view id, std::string_view allow) {
  return "version: 1\ngroups:\n  g: [a]\nrules:\n  - id: " + std::string(id) + "\n    allow:\n" + std::string(allow);
}

TEST(PolicyBundleTest, RuleIds) {
  EXPECT_EQ(BundleError(OneRule("\" \"", "      actors: {group: g}\n      actions: [read]\n")),
            "p.yaml:5:9: policy rule ids must not be blank");
  EXPECT_EQ(BundleError(OneRule("\"\"", "      actors: {group: g}\n      actions: [read]\n")),
            "p.yaml:5:9: policy rule ids must not be blank");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [read]\n") +
                        "  - id: r\n    allow:\n      actors: {group: g}\n      actions: [export]\n"),
            "p.yaml:9:9: duplicate policy rule id 'r'");
}

TEST(PolicyBundleTest, GroupReferences) {
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: \" \"}\n      actions: [read]\n")),
            "p.yaml:7:23: policy rule 'r' must reference a non-blank group");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: admins}\n      actions: [read]\n")),
            "p.yaml:7:23: policy rule 'r' references unknown group 'admins'");
}

TEST(PolicyBundleTest, ActionListMustNotBeEmpty) {
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: []\n")),
            "p.yaml:8:16: policy rule 'r' must include at least one action");
}

TEST(PolicyBundleTest, BothScopesOnOneRule) {
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [read]\n      branch_scope: any\n"
                                     "      target_branch_scope: any\n")),
            "p.yaml:10:28: policy rule 'r' may specify branch_scope or target_branch_scope, not both");
}

TEST(PolicyBundleTest, ScopeKeyMustFitEveryAction) {
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [read, schema_apply]\n"
                                     "      branch_scope: protected\n")),
            "p.yaml:8:23: policy rule 'r' uses branch_scope with unsupported action 'schema_apply'");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [admin]\n      branch_scope: any\n")),
            "p.yaml:8:17: policy rule 'r' uses branch_scope with unsupported action 'admin'");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [branch_merge, change]\n"
                                     "      target_branch_scope: protected\n")),
            "p.yaml:8:31: policy rule 'r' uses target_branch_scope with unsupported action 'change'");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [invoke_query]\n"
                                     "      target_branch_scope: any\n")),
            "p.yaml:8:17: policy rule 'r' uses target_branch_scope with unsupported action 'invoke_query'");
  // Each action with the key §2.1 allows it.
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [read, export, change]\n"
                                     "      branch_scope: protected\n")),
            "OK");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [schema_apply, branch_create, "
                                     "branch_delete, branch_merge]\n      target_branch_scope: unprotected\n")),
            "OK");
}

TEST(PolicyBundleTest, GraphListRules) {
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [graph_list, read]\n")),
            "p.yaml:8:16: policy rule 'r' mixes the server-scoped action 'graph_list' with per-graph actions; "
            "split it into separate rules");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [graph_list]\n      branch_scope: any\n")),
            "p.yaml:9:21: policy rule 'r' uses branch_scope with the server-scoped action 'graph_list'; it has no "
            "branch context");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [graph_list]\n"
                                     "      target_branch_scope: protected\n")),
            "p.yaml:9:28: policy rule 'r' uses target_branch_scope with the server-scoped action 'graph_list'; it "
            "has no branch context");
  EXPECT_EQ(BundleError(OneRule("r", "      actors: {group: g}\n      actions: [graph_list]\n")), "OK");
}

TEST(PolicyBundleTest, ShapeErrorsComeBeforeRuleErrorsAndVersionFirstAmongRules) {
  // An unknown key late in the file wins over a bad version at the top.
  EXPECT_EQ(BundleError("version: 2\ngroups:\n  g: []\nextra: 1\n"),
            "p.yaml:4:1: unknown field 'extra' in policy bundle, expected one of 'version', 'kind', 'groups', "
            "'protected_branches', 'rules'");
  EXPECT_EQ(BundleError("version: 2\ngroups:\n  g: []\n"), "p.yaml:1:10: policy version must be 1");
  // Groups before protected branches before rules.
  EXPECT_EQ(BundleError("version: 1\ngroups:\n  g: []\nprotected_branches: [\"\"]\n"),
            "p.yaml:3:6: policy group 'g' must not be empty");
  EXPECT_EQ(BundleError("version: 1\nprotected_branches: [\"\"]\nrules:\n  - id: \"\"\n    allow: {actors: {group: g}, "
                        "actions: [read]}\n"),
            "p.yaml:2:22: protected branch names must not be blank");
}

TEST(PolicyBundleTest, LoadBundleReadsTheFile) {
  auto missing = LoadBundle("/nonexistent/policy.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "cannot read '/nonexistent/policy.yaml': no such file");
}

// ---- kind alignment (§2.2, cluster.md §1.6) ----

TEST(PolicyBindingTest, GraphAndClusterBundles) {
  auto graph = ParseBundle(kBundle, "p.yaml");
  ASSERT_TRUE(graph.ok());
  EXPECT_TRUE(CheckBinding(*graph, Binding::kGraph).ok());
  EXPECT_EQ(CheckBinding(*graph, Binding::kCluster).message(),
            "p.yaml:13:17: policy rule 'writers-unprotected' grants the per-graph action 'change', which a "
            "cluster-bound bundle cannot grant");
  EXPECT_EQ(InferBinding(*graph).value(), Binding::kGraph);

  auto cluster = ParseBundle(OneRule("list", "      actors: {group: g}\n      actions: [graph_list]\n"), "s.yaml");
  ASSERT_TRUE(cluster.ok());
  EXPECT_TRUE(CheckBinding(*cluster, Binding::kCluster).ok());
  EXPECT_EQ(CheckBinding(*cluster, Binding::kGraph).message(),
            "s.yaml:8:17: policy rule 'list' grants the server-scoped action 'graph_list', which a graph-bound "
            "bundle cannot grant");
  EXPECT_EQ(InferBinding(*cluster).value(), Binding::kCluster);

  auto empty = ParseBundle("version: 1\n", "e.yaml");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(CheckBinding(*empty, Binding::kGraph).ok());
  EXPECT_TRUE(CheckBinding(*empty, Binding::kCluster).ok());
  EXPECT_EQ(InferBinding(*empty).value(), Binding::kGraph);

  auto mixed = ParseBundle(OneRule("r", "      actors: {group: g}\n      actions: [read]\n") +
                               "  - id: list\n    allow:\n      actors: {group: g}\n      actions: [graph_list]\n",
                           "m.yaml");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(InferBinding(*mixed).status().message(),
            "m.yaml:12:17: policy rule 'list' grants the server-scoped action 'graph_list', which a graph-bound "
            "bundle cannot grant");
}

// ---- decisions (§2.4, §2.5) ----

TEST(PolicyEvaluateTest, UnknownActorIsDeniedBeforeAnyRule) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_FALSE(evaluator.IsKnownActor("nobody"));
  EXPECT_TRUE(evaluator.IsKnownActor("act-b"));
  Decision decision = evaluator.Decide(Ask("nobody", Action::kRead, "feat", "main"));
  EXPECT_FALSE(decision.allowed);
  EXPECT_EQ(decision.matched_rule_id, std::nullopt);
  EXPECT_EQ(decision.message, "policy denied action 'read' for unknown actor 'nobody'");
  // Actor ids are exact.
  EXPECT_EQ(evaluator.Decide(Ask("ACT-A", Action::kRead)).message,
            "policy denied action 'read' for unknown actor 'ACT-A'");
}

TEST(PolicyEvaluateTest, Messages) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  Decision allowed = evaluator.Decide(Ask("act-a", Action::kChange, "feat"));
  EXPECT_TRUE(allowed.allowed);
  EXPECT_EQ(allowed.matched_rule_id, "writers-unprotected");
  EXPECT_EQ(allowed.message, "policy allowed action 'change' for actor 'act-a'");
  EXPECT_EQ(evaluator.Decide(Ask("act-a", Action::kChange, "main")).message,
            "policy denied action 'change' on branch 'main' for actor 'act-a'");
  EXPECT_EQ(evaluator.Decide(Ask("act-m", Action::kBranchMerge, "feat", "dev")).message,
            "policy denied action 'branch_merge' on branch 'feat' targeting branch 'dev' for actor 'act-m'");
  EXPECT_EQ(evaluator.Decide(Ask("act-m", Action::kBranchDelete, std::nullopt, "main")).message,
            "policy denied action 'branch_delete' targeting branch 'main' for actor 'act-m'");
  EXPECT_EQ(evaluator.Decide(Ask("act-b", Action::kRead)).message, "policy denied action 'read' for actor 'act-b'");
}

TEST(PolicyEvaluateTest, ScopeUnprotected) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange, "feat")), "allow:writers-unprotected");
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kExport, "feat")), "allow:writers-unprotected");
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange, "main")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange, "release")), "deny");
  // No branch in the request: `has_branch` is false.
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange)), "deny");
  // The empty branch is present, and not protected.
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange, "")), "allow:writers-unprotected");
  // branch_scope reads the branch, never the target branch.
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kChange, std::nullopt, "feat")), "deny");
}

TEST(PolicyEvaluateTest, ScopeProtected) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kChange, "main")), "allow:admins-protected");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kChange, "release")), "allow:admins-protected");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kChange, "feat")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kChange)), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kChange, std::nullopt, "main")), "deny");
}

TEST(PolicyEvaluateTest, ScopeAnyHoldsEvenWithoutABranch) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_EQ(Outcome(evaluator, Ask("act-r", Action::kRead, "main")), "allow:readers-any");
  EXPECT_EQ(Outcome(evaluator, Ask("act-r", Action::kRead, "feat")), "allow:readers-any");
  // The generated condition is literally `true` (§2.3).
  EXPECT_EQ(Outcome(evaluator, Ask("act-r", Action::kRead)), "allow:readers-any");
  EXPECT_EQ(Outcome(evaluator, Ask("act-r", Action::kExport, "feat")), "deny");
}

TEST(PolicyEvaluateTest, TargetBranchScopes) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchMerge, "feat", "main")), "allow:mergers-protected-target");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kSchemaApply, std::nullopt, "main")),
            "allow:mergers-protected-target");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchMerge, "main", "feat")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchMerge, "main")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchCreate, "main", "feat")),
            "allow:mergers-unprotected-target");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchDelete, std::nullopt, "feat")),
            "allow:mergers-unprotected-target");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchDelete, std::nullopt, "release")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-m", Action::kBranchCreate, "feat")), "deny");
}

TEST(PolicyEvaluateTest, UnscopedRulesAndActionKinds) {
  Evaluator evaluator = MakeEvaluator(kBundle);
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kAdmin)), "allow:admins-unscoped");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kInvokeQuery, "feat", "x")), "allow:admins-unscoped");
  // Unscoped: any target branch, or none.
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kSchemaApply, std::nullopt, "feat")),
            "allow:admins-unscoped");
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kSchemaApply)), "allow:admins-unscoped");
  // An action no rule grants the actor's groups.
  EXPECT_EQ(Outcome(evaluator, Ask("act-andrew", Action::kExport, "main")), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-r", Action::kAdmin)), "deny");
  // graph_list is never granted by a graph bundle.
  EXPECT_EQ(Outcome(evaluator, Ask("act-l", Action::kGraphList)), "deny");
  // Membership is per group: act-a is a reader and a writer, act-b only a writer.
  EXPECT_EQ(Outcome(evaluator, Ask("act-a", Action::kRead)), "allow:readers-any");
  EXPECT_EQ(Outcome(evaluator, Ask("act-b", Action::kRead)), "deny");
}

TEST(PolicyEvaluateTest, ServerBundleGrantsGraphList) {
  Evaluator evaluator = MakeEvaluator(
      "version: 1\ngroups:\n  listers: [act-l]\n  others: [act-o]\nrules:\n  - id: list\n    allow:\n"
      "      actors: {group: listers}\n      actions: [graph_list]\n");
  EXPECT_EQ(Outcome(evaluator, Ask("act-l", Action::kGraphList)), "allow:list");
  EXPECT_EQ(Outcome(evaluator, Ask("act-o", Action::kGraphList)), "deny");
  EXPECT_EQ(Outcome(evaluator, Ask("act-l", Action::kRead, "main")), "deny");
}

TEST(PolicyEvaluateTest, MatchedRuleIsTheSmallestSatisfiedId) {
  Evaluator evaluator = MakeEvaluator(R"(version: 1
groups:
  g: [a]
  h: [a, b]
protected_branches: [main]
rules:
  - id: zeta
    allow: {actors: {group: g}, actions: [read]}
  - id: beta
    allow: {actors: {group: h}, actions: [read], branch_scope: protected}
  - id: alpha
    allow: {actors: {group: g}, actions: [change]}
  - id: Gamma
    allow: {actors: {group: h}, actions: [read], branch_scope: unprotected}
  - id: alpha2
    allow: {actors: {group: h}, actions: [read], branch_scope: any}
)");
  // zeta, beta and alpha2 hold on main; alpha grants another action.
  EXPECT_EQ(Outcome(evaluator, Ask("a", Action::kRead, "main")), "allow:alpha2");
  // Byte order: an upper-case id sorts first.
  EXPECT_EQ(Outcome(evaluator, Ask("a", Action::kRead, "feat")), "allow:Gamma");
  // Without a branch only the unscoped and `any` rules hold.
  EXPECT_EQ(Outcome(evaluator, Ask("a", Action::kRead)), "allow:alpha2");
  EXPECT_EQ(Outcome(evaluator, Ask("b", Action::kRead, "main")), "allow:alpha2");
  EXPECT_EQ(Outcome(evaluator, Ask("b", Action::kChange, "main")), "deny");
}

// ---- the generated Cedar text (§2.3) ----

TEST(PolicyCompileTest, OnePermitPerRuleAndAction) {
  auto bundle = ParseBundle(kBundle, "p.yaml");
  ASSERT_TRUE(bundle.ok());
  std::vector<CedarPolicy> policies = CompileToCedar(*bundle, "g1");
  ASSERT_EQ(policies.size(), 12u);
  EXPECT_EQ(policies[0].policy_id, "writers-unprotected:change");
  EXPECT_EQ(policies[0].rule_id, "writers-unprotected");
  EXPECT_EQ(policies[0].text,
            "permit (\n    principal in Omnigraph::Group::\"writers\",\n    action == Omnigraph::Action::\"change\",\n"
            "    resource == Omnigraph::Graph::\"g1\"\n)\nwhen { context.has_branch && context.branch_is_protected "
            "== false };");
  EXPECT_EQ(policies[2].policy_id, "readers-any:read");
  EXPECT_EQ(policies[2].text.substr(policies[2].text.find(")\n")), ")\nwhen { true };");
  EXPECT_EQ(policies[3].text.substr(policies[3].text.find(")\n")),
            ")\nwhen { context.has_branch && context.branch_is_protected };");
  EXPECT_EQ(policies[5].policy_id, "mergers-protected-target:branch_merge");
  EXPECT_EQ(policies[5].text.substr(policies[5].text.find(")\n")),
            ")\nwhen { context.has_target_branch && context.target_branch_is_protected };");
  EXPECT_EQ(policies[7].text.substr(policies[7].text.find(")\n")),
            ")\nwhen { context.has_target_branch && context.target_branch_is_protected == false };");
  EXPECT_EQ(policies[9].policy_id, "admins-unscoped:admin");
  EXPECT_EQ(policies[9].text.substr(policies[9].text.find("resource")),
            "resource == Omnigraph::Graph::\"g1\"\n);");

  auto server = ParseBundle(OneRule("list", "      actors: {group: g}\n      actions: [graph_list]\n"), "s.yaml");
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(CompileToCedar(*server, "g1").at(0).text,
            "permit (\n    principal in Omnigraph::Group::\"g\",\n    action == Omnigraph::Action::\"graph_list\",\n"
            "    resource == Omnigraph::Server::\"root\"\n);");
  EXPECT_EQ(CedarStringLiteral("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u{1}\"");
}

// ---- policy tests files ----

constexpr std::string_view kTests = R"(version: 1
cases:
  - id: writer-on-feature
    actor: act-a
    action: change
    branch: feat
    expect: allow
  - id: writer-on-main
    actor: act-a
    action: change
    branch: main
    expect: allow
  - id: stranger
    actor: nobody
    action: read
    expect: deny
  - id: merge-into-main
    actor: act-m
    action: branch_merge
    branch: feat
    target_branch: main
    expect: allow
)";

TEST(PolicyTestsFileTest, ParsesAndRuns) {
  auto tests = ParsePolicyTests(kTests, "t.yaml");
  ASSERT_TRUE(tests.ok()) << tests.status().ToString();
  ASSERT_EQ(tests->cases.size(), 4u);
  EXPECT_EQ(tests->cases[3].request.target_branch, "main");
  EXPECT_EQ(tests->cases[2].request.branch, std::nullopt);
  EXPECT_FALSE(tests->cases[2].expect_allow);

  Evaluator evaluator = MakeEvaluator(kBundle);
  PolicyTestReport report = RunPolicyTests(evaluator, *tests);
  ASSERT_EQ(report.outcomes.size(), 4u);
  EXPECT_EQ(report.failed, 1u);
  EXPECT_FALSE(report.passed());
  EXPECT_TRUE(report.outcomes[0].passed);
  EXPECT_FALSE(report.outcomes[1].passed);
  EXPECT_EQ(report.outcomes[3].decision.matched_rule_id, "mergers-protected-target");
  EXPECT_EQ(report.FailureLines(),
            "writer-on-main: expected allow, got deny (policy denied action 'change' on branch 'main' for actor "
            "'act-a')\n");

  auto empty = ParsePolicyTests("version: 1\n", "t.yaml");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(RunPolicyTests(evaluator, *empty).passed());
}

TEST(PolicyTestsFileTest, ValidationErrors) {
  EXPECT_EQ(TestsError("version: 2\ncases: []\n"), "t.yaml:1:10: policy test version must be 1");
  EXPECT_EQ(TestsError("cases: []\n"), "t.yaml:1:1: policy tests file is missing the 'version' field");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: \" \", actor: a, action: read, expect: allow}\n"),
            "t.yaml:3:10: policy test case ids must not be blank");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: a, action: read, expect: allow}\n"
                       "  - {id: c, actor: b, action: read, expect: deny}\n"),
            "t.yaml:4:10: duplicate policy test case id 'c'");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: \"\", action: read, expect: allow}\n"),
            "t.yaml:3:20: policy test case 'c' must not use a blank actor");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: a, action: read, expect: allowed}\n"),
            "t.yaml:3:45: expect must be allow or deny, got 'allowed'");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: a, action: write, expect: allow}\n"),
            "t.yaml:3:31: unknown policy action 'write', expected one of read, export, change, schema_apply, "
            "branch_create, branch_delete, branch_merge, admin, invoke_query, graph_list");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: a, action: read, expect: allow, graph: g}\n"),
            "t.yaml:3:52: unknown field 'graph' in a test case, expected one of 'id', 'actor', 'action', "
            "'branch', 'target_branch', 'expect'");
  EXPECT_EQ(TestsError("version: 1\ncases:\n  - {id: c, actor: a, action: read}\n"),
            "t.yaml:3:5: a test case is missing the 'expect' field");
  EXPECT_EQ(TestsError("version: 1\ncases: {}\n"), "t.yaml:2:8: cases must be a list");
  EXPECT_EQ(TestsError("version: 1\nkind: x\n"),
            "t.yaml:2:1: unknown field 'kind' in policy tests file, expected one of 'version', 'cases'");
}

}  // namespace policy_test
}  // namespace omnigraph::policy
