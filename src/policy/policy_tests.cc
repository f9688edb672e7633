#include "policy/policy_tests.h"

#include <set>

#include <fmt/format.h>

#include "policy/yaml_fields.h"

namespace omnigraph::policy {
namespace policy_tests_parsing {
namespace {

Result<PolicyTestCase> ReadCase(const YamlFields& fields, const YAML::Node& node) {
  auto entries = fields.Fields(node, "a test case", {"id", "actor", "action", "branch", "target_branch", "expect"},
                               {"id", "actor", "action", "expect"});
  if (!entries.ok()) return entries.status();
  PolicyTestCase test_case;
  const YamlField& id = *FindField(*entries, "id");
  auto id_text = fields.Scalar(id, "a test case id");
  if (!id_text.ok()) return id_text.status();
  test_case.id = *id_text;
  test_case.position = YamlFields::PositionOf(id.value);

  const YamlField& actor_field = *FindField(*entries, "actor");
  auto actor = fields.Scalar(actor_field, "a test case actor");
  if (!actor.ok()) return actor.status();
  test_case.request.actor = *actor;
  test_case.actor_position = YamlFields::PositionOf(actor_field.value);

  const YamlField& action_field = *FindField(*entries, "action");
  auto action_name = fields.Scalar(action_field, "a test case action");
  if (!action_name.ok()) return action_name.status();
  std::optional<Action> action = ParseAction(*action_name);
  if (!action) {
    return fields.ErrorAt(action_field,
                          fmt::format("unknown policy action '{}', expected one of {}", *action_name, ActionNameList()));
  }
  test_case.request.action = *action;

  if (const YamlField* branch = FindField(*entries, "branch")) {
    auto text = fields.Scalar(*branch, "a test case branch");
    if (!text.ok()) return text.status();
    test_case.request.branch = *text;
  }
  if (const YamlField* target = FindField(*entries, "target_branch")) {
    auto text = fields.Scalar(*target, "a test case target_branch");
    if (!text.ok()) return text.status();
    test_case.request.target_branch = *text;
  }

  const YamlField& expect = *FindField(*entries, "expect");
  auto expected = fields.Scalar(expect, "expect");
  if (!expected.ok()) return expected.status();
  if (*expected != "allow" && *expected != "deny") {
    return fields.ErrorAt(expect, fmt::format("expect must be allow or deny, got '{}'", *expected));
  }
  test_case.expect_allow = *expected == "allow";
  return test_case;
}

}  // namespace
}  // namespace policy_tests_parsing

Result<PolicyTestFile> ParsePolicyTests(std::string_view text, std::string_view file) {
  YamlFields fields(file);
  auto root = fields.Load(text);
  if (!root.ok()) return root.status();
  if (root->IsNull()) return fields.ErrorAt(SourcePosition{1, 1}, "policy tests file is empty; expected a mapping");
  auto top = fields.Fields(*root, "policy tests file", {"version", "cases"}, {"version"});
  if (!top.ok()) return top.status();
  PolicyTestFile tests{std::string(file), {}};
  if (const YamlField* cases = FindField(*top, "cases")) {
    if (Status st = fields.CheckSequence(*cases, "cases"); !st.ok()) return st;
    for (const YAML::Node& node : cases->value) {
      auto test_case = policy_tests_parsing::ReadCase(fields, node);
      if (!test_case.ok()) return test_case.status();
      tests.cases.push_back(std::move(*test_case));
    }
  }
  if (Status st = fields.CheckVersionOne(*FindField(*top, "version"), "policy test"); !st.ok()) return st;
  std::set<std::string> ids;
  for (const PolicyTestCase& test_case : tests.cases) {
    if (IsBlank(test_case.id)) return fields.ErrorAt(test_case.position, "policy test case ids must not be blank");
    if (!ids.insert(test_case.id).second) {
      return fields.ErrorAt(test_case.position, fmt::format("duplicate policy test case id '{}'", test_case.id));
    }
    if (IsBlank(test_case.request.actor)) {
      return fields.ErrorAt(test_case.actor_position,
                            fmt::format("policy test case '{}' must not use a blank actor", test_case.id));
    }
  }
  return tests;
}

Result<PolicyTestFile> LoadPolicyTests(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParsePolicyTests(*text, path);
}

std::string PolicyTestReport::FailureLines() const {
  std::string lines;
  for (const PolicyTestOutcome& outcome : outcomes) {
    if (outcome.passed) continue;
    lines += fmt::format("{}: expected {}, got {} ({})\n", outcome.test_case->id,
                         DecisionName(outcome.test_case->expect_allow), DecisionName(outcome.decision.allowed),
                         outcome.decision.message);
  }
  return lines;
}

PolicyTestReport RunPolicyTests(const Evaluator& evaluator, const PolicyTestFile& tests) {
  PolicyTestReport report;
  for (const PolicyTestCase& test_case : tests.cases) {
    Decision decision = evaluator.Decide(test_case.request);
    const bool passed = decision.allowed == test_case.expect_allow;
    if (!passed) ++report.failed;
    report.outcomes.push_back(PolicyTestOutcome{&test_case, std::move(decision), passed});
  }
  return report;
}

}  // namespace omnigraph::policy
