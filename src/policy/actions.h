// The ten actions a policy bundle can grant, the resource each one is
// decided on, and which branch-scope key a rule granting it may carry
// (spec/server.md §2.1).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace omnigraph::policy {

enum class Action {
  kRead,
  kExport,
  kChange,
  kSchemaApply,
  kBranchCreate,
  kBranchDelete,
  kBranchMerge,
  // Reserved: no entry point asks for it yet, but rules may name it.
  kAdmin,
  kInvokeQuery,
  // The one server-scoped action (`GET /graphs`).
  kGraphList,
};

// Every action, in the order of the §2.1 table.
inline constexpr std::array<Action, 10> kAllActions = {
    Action::kRead,         Action::kExport,       Action::kChange, Action::kSchemaApply, Action::kBranchCreate,
    Action::kBranchDelete, Action::kBranchMerge,  Action::kAdmin,  Action::kInvokeQuery, Action::kGraphList,
};

// The Cedar entity a decision about an action is made on: the graph the
// bundle is bound to (`Omnigraph::Graph::"<graph_id>"`) or the server
// (`Omnigraph::Server::"root"`).
enum class ResourceKind { kGraph, kServer };

// The scope key a rule granting an action may carry (at most one per rule).
enum class ScopeKey {
  kNone,          // no scope key allowed (admin, invoke_query, graph_list)
  kBranch,        // branch_scope: read, export, change
  kTargetBranch,  // target_branch_scope: schema_apply, branch_*
};

// The bundle spelling of `action`, e.g. "branch_create" (§2.1).
std::string_view ActionName(Action action);

// The action spelled `name` exactly (no trimming, case-sensitive), or
// nullopt when `name` is none of the ten.
std::optional<Action> ParseAction(std::string_view name);

// The resource `action` is decided on (§2.1): kServer for graph_list,
// kGraph for the nine others.
ResourceKind ResourceKindOf(Action action);

// The scope key a rule granting `action` may use (§2.1, §2.2).
ScopeKey AllowedScopeKey(Action action);

// The YAML key of `key`: "branch_scope" or "target_branch_scope"; empty
// for kNone.
std::string_view ScopeKeyName(ScopeKey key);

// Every action name joined by ", ", for messages that list the choices.
std::string_view ActionNameList();

}  // namespace omnigraph::policy
