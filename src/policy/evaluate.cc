#include "policy/evaluate.h"

#include <fmt/format.h>

namespace omnigraph::policy {

Evaluator::Evaluator(Bundle bundle) : bundle_(std::move(bundle)) {
  for (const Group& group : bundle_.groups) {
    for (const Member& member : group.members) groups_of_actor_[member.actor].insert(group.name);
  }
}

bool Evaluator::ScopeHolds(const Rule& rule, const Request& request) const {
  // The generated `when` clause (§2.3): none without a scope, `true` for
  // any, and `has_x && x_is_protected [== false]` otherwise.
  std::optional<BranchScope> scope = rule.branch_scope ? rule.branch_scope : rule.target_branch_scope;
  if (!scope || *scope == BranchScope::kAny) return true;
  const std::optional<std::string>& branch = rule.branch_scope ? request.branch : request.target_branch;
  if (!branch) return false;
  const bool is_protected = bundle_.IsProtected(*branch);
  return *scope == BranchScope::kProtected ? is_protected : !is_protected;
}

Decision Evaluator::Decide(const Request& request) const {
  const std::string_view action = ActionName(request.action);
  auto groups = groups_of_actor_.find(request.actor);
  if (groups == groups_of_actor_.end()) {
    return Decision{false, std::nullopt,
                    fmt::format("policy denied action '{}' for unknown actor '{}'", action, request.actor)};
  }
  std::optional<std::string> matched;
  for (const Rule& rule : bundle_.rules) {
    if (!rule.Grants(request.action) || groups->second.count(rule.group) == 0) continue;
    if (!ScopeHolds(rule, request)) continue;
    if (!matched || rule.id < *matched) matched = rule.id;
  }
  if (matched) {
    return Decision{true, std::move(matched),
                    fmt::format("policy allowed action '{}' for actor '{}'", action, request.actor)};
  }
  std::string message = fmt::format("policy denied action '{}'", action);
  if (request.branch) message += fmt::format(" on branch '{}'", *request.branch);
  if (request.target_branch) message += fmt::format(" targeting branch '{}'", *request.target_branch);
  message += fmt::format(" for actor '{}'", request.actor);
  return Decision{false, std::nullopt, std::move(message)};
}

std::string_view DecisionName(bool allowed) { return allowed ? "allow" : "deny"; }

}  // namespace omnigraph::policy
