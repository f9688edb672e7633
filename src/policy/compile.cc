#include "policy/compile.h"

#include <fmt/format.h>

namespace omnigraph::policy {
namespace cedar_compiling {
namespace {

std::string ScopeCondition(const Rule& rule) {
  const bool target = !rule.branch_scope.has_value();
  std::optional<BranchScope> scope = target ? rule.target_branch_scope : rule.branch_scope;
  if (!scope) return "";
  if (*scope == BranchScope::kAny) return "true";
  const std::string_view prefix = target ? "target_" : "";
  std::string condition = fmt::format("context.has_{0}branch && context.{0}branch_is_protected", prefix);
  if (*scope == BranchScope::kUnprotected) condition += " == false";
  return condition;
}

}  // namespace
}  // namespace cedar_compiling

std::string CedarStringLiteral(std::string_view text) {
  std::string literal = "\"";
  for (char c : text) {
    switch (c) {
      case '"': literal += "\\\""; break;
      case '\\': literal += "\\\\"; break;
      case '\n': literal += "\\n"; break;
      case '\r': literal += "\\r"; break;
      case '\t': literal += "\\t"; break;
      case '\0': literal += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          literal += fmt::format("\\u{{{:x}}}", static_cast<unsigned char>(c));
        } else {
          literal += c;
        }
    }
  }
  return literal + "\"";
}

std::vector<CedarPolicy> CompileToCedar(const Bundle& bundle, std::string_view graph_id) {
  std::vector<CedarPolicy> policies;
  for (const Rule& rule : bundle.rules) {
    const std::string condition = cedar_compiling::ScopeCondition(rule);
    for (const RuleAction& entry : rule.actions) {
      const bool server = ResourceKindOf(entry.action) == ResourceKind::kServer;
      std::string text = fmt::format(
          "permit (\n    principal in Omnigraph::Group::{},\n    action == Omnigraph::Action::{},\n"
          "    resource == Omnigraph::{}::{}\n)",
          CedarStringLiteral(rule.group), CedarStringLiteral(ActionName(entry.action)), server ? "Server" : "Graph",
          CedarStringLiteral(server ? kServerResourceId : graph_id));
      if (!condition.empty()) text += fmt::format("\nwhen {{ {} }}", condition);
      text += ";";
      policies.push_back(
          CedarPolicy{fmt::format("{}:{}", rule.id, ActionName(entry.action)), rule.id, std::move(text)});
    }
  }
  return policies;
}

}  // namespace omnigraph::policy
