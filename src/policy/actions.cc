#include "policy/actions.h"

namespace omnigraph::policy {

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kRead: return "read";
    case Action::kExport: return "export";
    case Action::kChange: return "change";
    case Action::kSchemaApply: return "schema_apply";
    case Action::kBranchCreate: return "branch_create";
    case Action::kBranchDelete: return "branch_delete";
    case Action::kBranchMerge: return "branch_merge";
    case Action::kAdmin: return "admin";
    case Action::kInvokeQuery: return "invoke_query";
    case Action::kGraphList: return "graph_list";
  }
  return "unknown";
}

std::optional<Action> ParseAction(std::string_view name) {
  for (Action action : kAllActions) {
    if (ActionName(action) == name) return action;
  }
  return std::nullopt;
}

ResourceKind ResourceKindOf(Action action) {
  return action == Action::kGraphList ? ResourceKind::kServer : ResourceKind::kGraph;
}

ScopeKey AllowedScopeKey(Action action) {
  switch (action) {
    case Action::kRead:
    case Action::kExport:
    case Action::kChange: return ScopeKey::kBranch;
    case Action::kSchemaApply:
    case Action::kBranchCreate:
    case Action::kBranchDelete:
    case Action::kBranchMerge: return ScopeKey::kTargetBranch;
    case Action::kAdmin:
    case Action::kInvokeQuery:
    case Action::kGraphList: return ScopeKey::kNone;
  }
  return ScopeKey::kNone;
}

std::string_view ScopeKeyName(ScopeKey key) {
  switch (key) {
    case ScopeKey::kBranch: return "branch_scope";
    case ScopeKey::kTargetBranch: return "target_branch_scope";
    case ScopeKey::kNone: return "";
  }
  return "";
}

std::string_view ActionNameList() {
  return "read, export, change, schema_apply, branch_create, branch_delete, branch_merge, admin, invoke_query, "
         "graph_list";
}

}  // namespace omnigraph::policy
