// `policy validate FILE`, `policy test FILE --tests TESTS` and
// `policy explain FILE --actor A --action X [--branch B] [--target-branch T]`
// (surface §5.2; server.md §2.2–§2.4): offline tooling over one policy
// bundle file. The bundle's binding (graph or cluster) is inferred from its
// actions (policy::InferBinding), since a file alone says nothing of
// cluster.yaml's `applies_to`.
//
// Exit codes: 0 when the bundle is valid, every test passed, or a decision
// was explained (allow or deny alike); 1 for an invalid or unreadable file
// and for failed tests; 2 for usage errors (an unknown --action).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/verbs/verbs.h"
#include "compiler/source.h"
#include "policy/bundle.h"
#include "policy/evaluate.h"
#include "policy/policy_tests.h"

namespace omnigraph::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

struct PolicyValidateOptions {
  std::string file;  // the bundle
};

struct PolicyTestOptions {
  std::string file;   // the bundle
  std::string tests;  // --tests: the policy tests file
};

struct PolicyExplainOptions {
  std::string file;  // the bundle
  std::string actor;
  std::string action;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
};

// JSON never fails on input bytes that are not UTF-8 (ids come from files).
std::string DumpJson(const OrderedJson& value) {
  return value.dump(2, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string_view BindingName(policy::Binding binding) {
  return binding == policy::Binding::kCluster ? "cluster" : "graph";
}

// The bundle at `file`, checked to fit a graph or the cluster.
Result<policy::Bundle> LoadAlignedBundle(const std::string& file, policy::Binding* binding) {
  auto bundle = policy::LoadBundle(file);
  if (!bundle.ok()) return bundle.status();
  auto inferred = policy::InferBinding(*bundle);
  if (!inferred.ok()) return inferred.status();
  *binding = *inferred;
  return bundle;
}

int RunPolicyValidate(Context& context, const PolicyValidateOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "policy validate", {.store = false}); !st.ok()) {
    return context.Fail(st);
  }
  policy::Binding binding = policy::Binding::kGraph;
  auto bundle = LoadAlignedBundle(options.file, &binding);
  if (!bundle.ok()) return context.Fail(bundle.status());
  if (context.flags.json) {
    OrderedJson protected_branches = OrderedJson::array();
    for (const policy::ProtectedBranch& branch : bundle->protected_branches) protected_branches.push_back(branch.name);
    OrderedJson out = {{"file", options.file},
                       {"valid", true},
                       {"binding", BindingName(binding)},
                       {"groups", bundle->groups.size()},
                       {"actors", bundle->ActorCount()},
                       {"rules", bundle->rules.size()},
                       {"protected_branches", std::move(protected_branches)}};
    std::cout << DumpJson(out) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("policy valid: {} [{} bundle, {} actors, {} rules]\n",
                           compiler::EscapeForDisplay(options.file), BindingName(binding), bundle->ActorCount(),
                           bundle->rules.size());
  return kExitOk;
}

int RunPolicyTest(Context& context, const PolicyTestOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "policy test", {.store = false}); !st.ok()) return context.Fail(st);
  policy::Binding binding = policy::Binding::kGraph;
  auto bundle = LoadAlignedBundle(options.file, &binding);
  if (!bundle.ok()) return context.Fail(bundle.status());
  auto tests = policy::LoadPolicyTests(options.tests);
  if (!tests.ok()) return context.Fail(tests.status());
  const policy::Evaluator evaluator(std::move(*bundle));
  const policy::PolicyTestReport report = policy::RunPolicyTests(evaluator, *tests);
  if (context.flags.json) {
    OrderedJson results = OrderedJson::array();
    for (const policy::PolicyTestOutcome& outcome : report.outcomes) {
      results.push_back({{"id", outcome.test_case->id},
                         {"expect", policy::DecisionName(outcome.test_case->expect_allow)},
                         {"decision", policy::DecisionName(outcome.decision.allowed)},
                         {"matched_rule_id", outcome.decision.matched_rule_id
                                                 ? OrderedJson(*outcome.decision.matched_rule_id)
                                                 : OrderedJson(nullptr)},
                         {"message", outcome.decision.message},
                         {"passed", outcome.passed}});
    }
    OrderedJson out = {{"file", options.file},    {"tests", options.tests},         {"passed", report.passed()},
                       {"cases", results.size()}, {"failed", report.failed}, {"results", std::move(results)}};
    std::cout << DumpJson(out) << "\n";
  } else if (report.passed()) {
    std::cout << fmt::format("policy tests passed: {} cases\n", report.outcomes.size());
  }
  if (report.passed()) return kExitOk;
  const int exit_code =
      context.Fail(InvalidArgument(fmt::format("policy tests failed: {} of {} cases", report.failed,
                                               report.outcomes.size())));
  // One line per failed case under the error, each escaped like the error
  // itself (ids, actors and branches come from the files).
  const std::string lines = report.FailureLines();
  size_t start = 0;
  while (start < lines.size()) {
    const size_t end = lines.find('\n', start);
    std::cerr << "  " << compiler::EscapeForDisplay(std::string_view(lines).substr(start, end - start)) << "\n";
    start = end + 1;
  }
  return exit_code;
}

int RunPolicyExplain(Context& context, const PolicyExplainOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "policy explain", {.store = false}); !st.ok()) {
    return context.Fail(st);
  }
  std::optional<policy::Action> action = policy::ParseAction(options.action);
  if (!action) {
    return context.Fail(UsageError(
        fmt::format("unknown policy action '{}', expected one of {}", options.action, policy::ActionNameList())));
  }
  policy::Binding binding = policy::Binding::kGraph;
  auto bundle = LoadAlignedBundle(options.file, &binding);
  if (!bundle.ok()) return context.Fail(bundle.status());
  const policy::Evaluator evaluator(std::move(*bundle));
  const policy::Request request{options.actor, *action, options.branch, options.target_branch};
  const policy::Decision decision = evaluator.Decide(request);
  if (context.flags.json) {
    OrderedJson out = {{"decision", policy::DecisionName(decision.allowed)},
                       {"actor", request.actor},
                       {"action", policy::ActionName(request.action)},
                       {"branch", request.branch ? OrderedJson(*request.branch) : OrderedJson(nullptr)},
                       {"target_branch",
                        request.target_branch ? OrderedJson(*request.target_branch) : OrderedJson(nullptr)},
                       {"matched_rule_id",
                        decision.matched_rule_id ? OrderedJson(*decision.matched_rule_id) : OrderedJson(nullptr)},
                       {"message", decision.message}};
    std::cout << DumpJson(out) << "\n";
    return kExitOk;
  }
  std::string text = fmt::format("decision: {}\nactor: {}\naction: {}\n", policy::DecisionName(decision.allowed),
                                 compiler::EscapeForDisplay(request.actor), policy::ActionName(request.action));
  if (request.branch) text += fmt::format("branch: {}\n", compiler::EscapeForDisplay(*request.branch));
  if (request.target_branch) {
    text += fmt::format("target_branch: {}\n", compiler::EscapeForDisplay(*request.target_branch));
  }
  if (decision.matched_rule_id) {
    text += fmt::format("matched_rule: {}\n", compiler::EscapeForDisplay(*decision.matched_rule_id));
  }
  text += fmt::format("message: {}\n", compiler::EscapeForDisplay(decision.message));
  std::cout << text;
  return kExitOk;
}

}  // namespace

void RegisterPolicy(CLI::App& app, Context& context) {
  CLI::App* policy = app.add_subcommand("policy", "validate, test and explain a policy bundle");

  auto validate_options = std::make_shared<PolicyValidateOptions>();
  CLI::App* validate = policy->add_subcommand("validate", "check a policy bundle file (server.md §2.2)");
  validate->add_option("file", validate_options->file, "policy bundle (.yaml)")->required();
  validate->callback(
      [&context, validate_options] { context.exit_code = RunPolicyValidate(context, *validate_options); });

  auto test_options = std::make_shared<PolicyTestOptions>();
  CLI::App* test = policy->add_subcommand("test", "run a policy tests file against a bundle");
  test->add_option("file", test_options->file, "policy bundle (.yaml)")->required();
  test->add_option("--tests", test_options->tests, "policy tests file (.yaml)")->required();
  test->callback([&context, test_options] { context.exit_code = RunPolicyTest(context, *test_options); });

  auto explain_options = std::make_shared<PolicyExplainOptions>();
  CLI::App* explain = policy->add_subcommand("explain", "decide one request and say why");
  explain->add_option("file", explain_options->file, "policy bundle (.yaml)")->required();
  explain->add_option("--actor", explain_options->actor, "actor id")->required();
  explain->add_option("--action", explain_options->action, "action, e.g. read or branch_merge")->required();
  explain->add_option("--branch", explain_options->branch, "the request's branch");
  explain->add_option("--target-branch", explain_options->target_branch, "the request's target branch");
  explain->callback([&context, explain_options] { context.exit_code = RunPolicyExplain(context, *explain_options); });

  policy->require_subcommand(1);
}

}  // namespace omnigraph::cli
