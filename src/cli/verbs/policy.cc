// `policy validate FILE`, `policy test FILE --tests TESTS` and
// `policy explain FILE --actor A --action X [--branch B] [--target-branch T]`
// (surface §5.2; server.md §2.2–§2.4): offline tooling over one policy
// bundle file. The bundle's binding (graph or cluster) is inferred from its
// actions (policy::InferBinding), since a file alone says nothing of
// cluster.yaml's `applies_to`.
//
// With the global `--cluster DIR [--graph ID]` (surface §5.1) in place of
// FILE, the bundles come from the cluster config directory DIR
// (policies.<p>.file, bound as policies.<p>.applies_to says): `validate`
// checks every one (with --graph, those bound to graph.<ID>); `test` and
// `explain` use the one bound to graph.<ID>, else the config's only one.
//
// `validate` reports every error of an invalid bundle (policy::CheckBundle,
// each at <file>:<line>:<column>), one `error: <message>` line each on
// stderr. Its JSON (stdout, valid or not) is
// {file, valid, binding, groups, actors, rules, protected_branches,
// errors:[{message, file, line?, column?}]} (binding null when the bundle
// could not be read), and with --cluster {cluster, valid, bundles:[…]}.
//
// Exit codes: 0 when the bundle is valid, every test passed, or a decision
// was explained (allow or deny alike); 1 for an invalid or unreadable file
// and for failed tests; 2 for usage errors (an unknown --action).
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/verbs/verbs.h"
#include "cluster/desired.h"
#include "compiler/source.h"
#include "policy/bundle.h"
#include "policy/yaml_fields.h"
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

// A bundle to check: its file, and the binding its cluster config gives it
// (none for a file given alone: the binding is inferred).
struct BundleSource {
  std::string file;
  std::optional<policy::Binding> binding;
  std::string name;  // policies.<name> of the cluster config; "" for a file given alone
};

// What `policy validate` found in one bundle.
struct BundleReport {
  std::string file;
  std::optional<policy::Binding> binding;  // none when the bundle could not be read
  policy::Bundle bundle;                   // what was read
  std::vector<Status> errors;
  bool valid() const { return errors.empty(); }
};

BundleReport CheckBundleSource(const BundleSource& source) {
  BundleReport report;
  report.file = source.file;
  auto text = policy::ReadTextFile(source.file);
  if (!text.ok()) {
    report.errors.push_back(text.status());
    return report;
  }
  policy::BundleCheck check = policy::CheckBundle(*text, source.file);
  report.bundle = std::move(check.bundle);
  report.errors = std::move(check.errors);
  if (source.binding) {
    // A declared binding is checked against what was read even when the
    // bundle has other errors, so every error shows at once.
    report.binding = source.binding;
    for (Status& error : policy::BindingErrors(report.bundle, *source.binding)) {
      report.errors.push_back(std::move(error));
    }
    return report;
  }
  if (!report.errors.empty()) return report;  // a binding is inferred from a whole bundle only
  policy::Binding binding = policy::Binding::kGraph;
  report.errors = policy::InferredBindingErrors(report.bundle, &binding);
  report.binding = binding;
  return report;
}

OrderedJson ErrorJson(const Status& error) {
  OrderedJson entry = {{"message", error.message()}};
  const Status::Details& details = error.details();
  if (auto file = details.find("file"); file != details.end()) entry["file"] = file->second;
  for (const char* key : {"line", "column"}) {
    if (auto value = details.find(key); value != details.end()) entry[key] = std::stoul(value->second);
  }
  return entry;
}

OrderedJson ReportJson(const BundleReport& report) {
  OrderedJson protected_branches = OrderedJson::array();
  for (const policy::ProtectedBranch& branch : report.bundle.protected_branches) {
    protected_branches.push_back(branch.name);
  }
  OrderedJson errors = OrderedJson::array();
  for (const Status& error : report.errors) errors.push_back(ErrorJson(error));
  return OrderedJson{{"file", report.file},
                     {"valid", report.valid()},
                     {"binding", report.binding ? OrderedJson(BindingName(*report.binding)) : OrderedJson(nullptr)},
                     {"groups", report.bundle.groups.size()},
                     {"actors", report.bundle.ActorCount()},
                     {"rules", report.bundle.rules.size()},
                     {"protected_branches", std::move(protected_branches)},
                     {"errors", std::move(errors)}};
}

// Human output of one report: the valid line on stdout, else one
// `error: <message>` line per error on stderr.
void PrintReport(const BundleReport& report) {
  if (report.valid()) {
    std::cout << fmt::format("policy valid: {} [{} bundle, {} actors, {} rules]\n",
                             compiler::EscapeForDisplay(report.file), BindingName(*report.binding),
                             report.bundle.ActorCount(), report.bundle.rules.size());
    return;
  }
  for (const Status& error : report.errors) std::cerr << "error: " << compiler::EscapeForDisplay(error.message()) << "\n";
}

// The bundles of the cluster config --cluster names: every one, or with
// --graph those bound to graph.<ID>. Errors: as ClusterConfigDir; an
// InvalidArgument listing the config's error diagnostics when it cannot
// be loaded; a bundle whose file cannot be read is an error of its own
// (cluster validate's policy_file_missing).
Result<std::vector<BundleSource>> ClusterBundles(const GlobalFlags& flags) {
  OG_ASSIGN_OR_RETURN(std::string config_dir, ClusterConfigDir(flags, ""));
  const cluster::LoadOutcome outcome = cluster::LoadDesiredCluster(config_dir);
  if (!outcome.desired) {
    // One line: error messages are printed with control characters escaped.
    std::string message = fmt::format("cannot load the cluster config '{}':", config_dir);
    const char* separator = " ";
    for (const cluster::Diagnostic& d : outcome.diagnostics) {
      if (d.severity != cluster::Severity::kError) continue;
      message += separator + cluster::FormatDiagnostic(d);
      separator = "; ";
    }
    return InvalidArgument(std::move(message));
  }
  std::vector<BundleSource> sources;
  for (const auto& [name, declaration] : outcome.desired->config.policies) {
    const std::string address = cluster::PolicyAddress(name);
    const auto bindings = outcome.desired->policy_bindings.find(address);
    const std::vector<std::string> none;
    const std::vector<std::string>& bound = bindings == outcome.desired->policy_bindings.end() ? none : bindings->second;
    if (!flags.graph.empty() &&
        std::find(bound.begin(), bound.end(), cluster::GraphAddress(flags.graph)) == bound.end()) {
      continue;
    }
    BundleSource source;
    source.name = name;
    source.file = declaration.file;
    for (const cluster::ResourceSummary& resource : outcome.desired->resources) {
      if (resource.address == address && resource.path) source.file = *resource.path;
    }
    source.binding = std::find(bound.begin(), bound.end(), "cluster") != bound.end() ? policy::Binding::kCluster
                                                                                      : policy::Binding::kGraph;
    sources.push_back(std::move(source));
  }
  if (sources.empty()) {
    return InvalidArgument(flags.graph.empty()
                               ? fmt::format("the cluster config '{}' declares no policy bundles", config_dir)
                               : fmt::format("the cluster config '{}' binds no policy bundle to graph '{}'",
                                             config_dir, flags.graph));
  }
  return sources;
}

// The one bundle `test` and `explain` use: FILE, or the cluster's
// (ClusterBundles: the one bound to --graph, else the only one).
Result<BundleSource> SelectBundle(const GlobalFlags& flags, const std::string& file) {
  if (!flags.cluster_given) {
    if (file.empty()) return UsageError("pass a policy bundle file, or --cluster <dir> [--graph <id>]");
    return BundleSource{file, std::nullopt, ""};
  }
  if (!file.empty()) return UsageError("pass either a policy bundle file or --cluster, not both");
  OG_ASSIGN_OR_RETURN(std::vector<BundleSource> sources, ClusterBundles(flags));
  if (sources.size() > 1) {
    std::string names;
    for (const BundleSource& source : sources) names += (names.empty() ? "" : ", ") + source.name;
    return UsageError(fmt::format("the cluster config declares {} policy bundles ({}); pass --graph <id> to select "
                                  "the one bound to that graph",
                                  sources.size(), names));
  }
  return sources.front();
}

// The bundle of `source`, checked to fit its binding (as declared, else
// inferred). Errors: the first error `policy validate` would report.
Result<policy::Bundle> LoadAlignedBundle(const BundleSource& source) {
  BundleReport report = CheckBundleSource(source);
  if (!report.valid()) return report.errors.front();
  return std::move(report.bundle);
}

// Checks that --graph comes with --cluster (it selects a cluster's bundle).
Status CheckGraphFlag(const GlobalFlags& flags) {
  if (!flags.graph.empty() && !flags.cluster_given) {
    return UsageError("--graph selects a policy bundle of a cluster: pass --cluster <dir> with it");
  }
  return Status::OK();
}

int RunPolicyValidate(Context& context, const PolicyValidateOptions& options) {
  const VerbFlags accepts{.store = false, .cluster = true};
  if (Status st = PrepareVerb(&context.flags, "policy validate", accepts); !st.ok()) return context.Fail(st);
  if (Status st = CheckGraphFlag(context.flags); !st.ok()) return context.Fail(st);
  if (!context.flags.cluster_given) {
    if (options.file.empty()) {
      return context.Fail(UsageError("pass a policy bundle file, or --cluster <dir> [--graph <id>]"));
    }
    const BundleReport report = CheckBundleSource(BundleSource{options.file, std::nullopt, ""});
    if (context.flags.json) {
      std::cout << DumpJson(ReportJson(report)) << "\n";
    }
    if (!context.flags.json || !report.valid()) PrintReport(report);
    return report.valid() ? kExitOk : kExitError;
  }
  if (!options.file.empty()) {
    return context.Fail(UsageError("pass either a policy bundle file or --cluster, not both"));
  }
  auto sources = ClusterBundles(context.flags);
  if (!sources.ok()) return context.Fail(sources.status());
  std::vector<BundleReport> reports;
  bool valid = true;
  for (const BundleSource& source : *sources) {
    reports.push_back(CheckBundleSource(source));
    valid = valid && reports.back().valid();
  }
  if (context.flags.json) {
    OrderedJson bundles = OrderedJson::array();
    for (const BundleReport& report : reports) bundles.push_back(ReportJson(report));
    std::cout << DumpJson(OrderedJson{{"cluster", context.flags.cluster}, {"valid", valid}, {"bundles", bundles}})
              << "\n";
  }
  for (const BundleReport& report : reports) {
    if (!context.flags.json || !report.valid()) PrintReport(report);
  }
  return valid ? kExitOk : kExitError;
}

int RunPolicyTest(Context& context, const PolicyTestOptions& options) {
  const VerbFlags accepts{.store = false, .cluster = true};
  if (Status st = PrepareVerb(&context.flags, "policy test", accepts); !st.ok()) return context.Fail(st);
  if (Status st = CheckGraphFlag(context.flags); !st.ok()) return context.Fail(st);
  auto source = SelectBundle(context.flags, options.file);
  if (!source.ok()) return context.Fail(source.status());
  auto bundle = LoadAlignedBundle(*source);
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
    OrderedJson out = {{"file", source->file},    {"tests", options.tests},         {"passed", report.passed()},
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
  const VerbFlags accepts{.store = false, .cluster = true};
  if (Status st = PrepareVerb(&context.flags, "policy explain", accepts); !st.ok()) return context.Fail(st);
  if (Status st = CheckGraphFlag(context.flags); !st.ok()) return context.Fail(st);
  std::optional<policy::Action> action = policy::ParseAction(options.action);
  if (!action) {
    return context.Fail(UsageError(
        fmt::format("unknown policy action '{}', expected one of {}", options.action, policy::ActionNameList())));
  }
  auto source = SelectBundle(context.flags, options.file);
  if (!source.ok()) return context.Fail(source.status());
  auto bundle = LoadAlignedBundle(*source);
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
  validate->add_option("file", validate_options->file, "policy bundle (.yaml); or the global --cluster <dir>");
  validate->callback(
      [&context, validate_options] { context.exit_code = RunPolicyValidate(context, *validate_options); });

  auto test_options = std::make_shared<PolicyTestOptions>();
  CLI::App* test = policy->add_subcommand("test", "run a policy tests file against a bundle");
  test->add_option("file", test_options->file, "policy bundle (.yaml); or the global --cluster <dir>");
  test->add_option("--tests", test_options->tests, "policy tests file (.yaml)")->required();
  test->callback([&context, test_options] { context.exit_code = RunPolicyTest(context, *test_options); });

  auto explain_options = std::make_shared<PolicyExplainOptions>();
  CLI::App* explain = policy->add_subcommand("explain", "decide one request and say why");
  explain->add_option("file", explain_options->file, "policy bundle (.yaml); or the global --cluster <dir>");
  explain->add_option("--actor", explain_options->actor, "actor id")->required();
  explain->add_option("--action", explain_options->action, "action, e.g. read or branch_merge")->required();
  explain->add_option("--branch", explain_options->branch, "the request's branch");
  explain->add_option("--target-branch", explain_options->target_branch, "the request's target branch");
  explain->callback([&context, explain_options] { context.exit_code = RunPolicyExplain(context, *explain_options); });

  policy->require_subcommand(1);
}

}  // namespace omnigraph::cli
