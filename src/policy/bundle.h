// A policy bundle: the YAML file operators write instead of Cedar
// (spec/server.md §2.2). Parsing is strict (unknown keys are rejected in
// every mapping) and validates every load-time rule of §2.2, so a Bundle
// value is always valid; kind alignment, which depends on what the bundle
// is bound to (cluster.md §1.6), is the separate CheckBinding.
//
// Positions are kept on the parsed values so that a later check (kind
// alignment) can still name <file>:<line>:<column>.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/actions.h"
#include "policy/source_position.h"
#include "util/status.h"

namespace omnigraph::policy {

// Which requests a scoped rule covers (§2.3): any request (even one with
// no branch at all), or only requests whose branch is present and is, or
// is not, in the bundle's protected_branches.
enum class BranchScope { kAny, kProtected, kUnprotected };

// "any", "protected" or "unprotected".
std::string_view BranchScopeName(BranchScope scope);

struct Member {
  std::string actor;
  SourcePosition position;
};

struct Group {
  std::string name;
  SourcePosition position;          // the group's key
  SourcePosition members_position;  // its list of members
  std::vector<Member> members;
};

struct ProtectedBranch {
  std::string name;
  SourcePosition position;
};

struct RuleAction {
  Action action;
  SourcePosition position;
};

struct Rule {
  std::string id;
  SourcePosition id_position;
  std::string group;  // allow.actors.group
  SourcePosition group_position;
  std::vector<RuleAction> actions;  // allow.actions, in file order
  SourcePosition actions_position;
  std::optional<BranchScope> branch_scope;
  SourcePosition branch_scope_position;
  std::optional<BranchScope> target_branch_scope;
  SourcePosition target_branch_scope_position;

  // True when the rule lists `action`.
  bool Grants(Action action) const;
};

// The optional top-level `kind:` of a bundle (spec/cluster.md §8 Q9: the
// corpus cookbook writes `kind: server`; this project accepts
// `server | graph`, which must agree with the bundle's binding).
enum class BundleKind { kServer, kGraph };

struct Bundle {
  std::string file;  // as given to ParseBundle; errors name it
  std::optional<BundleKind> kind;
  SourcePosition kind_position;
  // Sorted by name (the order validation reports them in).
  std::vector<Group> groups;
  std::vector<ProtectedBranch> protected_branches;
  std::vector<Rule> rules;  // file order

  // The group named `name`, or nullptr.
  const Group* FindGroup(std::string_view name) const;
  // True when `branch` is one of protected_branches (exact match).
  bool IsProtected(std::string_view branch) const;
  // The number of distinct actor ids across all groups.
  size_t ActorCount() const;
};

// Parses and validates bundle text `text` read from `file` (§2.2).
//
// Top level {version, groups?, protected_branches?, rules?}; a rule is
// {id, allow: {actors: {group}, actions, branch_scope?,
// target_branch_scope?}}. Every error is InvalidArgument with the message
// "<file>:<line>:<column>: <what>" (details file, line, column). The shape
// is checked first, anywhere in the file:
//   YAML syntax errors; "<what> must be a mapping|a list|a string";
//   "unknown field '<k>' in <what>, expected one of …";
//   "duplicate key '<k>' in <what>"; "<what> is missing the '<k>' field";
//   "unknown policy action '<a>', expected one of …";
//   "<key> must be one of any, protected, unprotected, got '<s>'".
// Then the rules of §2.2, first failure wins, in this order:
//   "policy version must be 1"                                  (version value)
//   "policy group names must not be blank"                      (group key)
//   "policy group '<g>' must not be empty"                      (its list)
//   "policy group '<g>' contains a blank actor id"              (the member)
//   "protected branch names must not be blank"                  (the entry)
//   then per rule, in file order:
//   "policy rule ids must not be blank"                         (id)
//   "duplicate policy rule id '<id>'"                           (the later id)
//   "policy rule '<id>' must reference a non-blank group"       (group)
//   "policy rule '<id>' references unknown group '<g>'"         (group)
//   "policy rule '<id>' must include at least one action"       (actions)
//   "policy rule '<id>' may specify branch_scope or target_branch_scope, not both"
//                                                               (target_branch_scope)
//   "policy rule '<id>' mixes the server-scoped action 'graph_list' with per-graph
//    actions; split it into separate rules"                     (actions)
//   "policy rule '<id>' uses <key> with the server-scoped action 'graph_list'; it has
//    no branch context"                                         (the scope)
//   "policy rule '<id>' uses branch_scope with unsupported action '<a>'"   (the action)
//   "policy rule '<id>' uses target_branch_scope with unsupported action '<a>'"
Result<Bundle> ParseBundle(std::string_view text, std::string_view file);

// Every error ParseBundle would report, one by one, as
// `policy validate` lists them: shape errors in file order (reading goes
// on past each, leaving out the value at fault: a group, member, branch,
// rule, action or scope; a YAML syntax error or a top level that is no
// mapping ends the reading), the version, then the rules above in their
// order, with every failure of each. The first is ParseBundle's error.
struct BundleCheck {
  Bundle bundle;               // what was read; valid when `errors` is empty
  std::vector<Status> errors;  // InvalidArgument "<file>:<line>:<column>: <what>"
};
BundleCheck CheckBundle(std::string_view text, std::string_view file);

// Reads file `path` and parses it (ParseBundle). Errors: as ReadTextFile
// and ParseBundle.
Result<Bundle> LoadBundle(const std::string& path);

// What a bundle is bound to (cluster.md §1.6 `applies_to`): one or more
// graphs, or the cluster (the server's own bundle, for graph_list).
enum class Binding { kGraph, kCluster };

// Kind alignment (§2.2): a graph-bound bundle may not grant graph_list; a
// cluster-bound bundle may grant only graph_list. Errors (InvalidArgument,
// at the first offending action in rule order):
//   "policy rule '<id>' grants the server-scoped action 'graph_list', which a
//    graph-bound bundle cannot grant"
//   "policy rule '<id>' grants the per-graph action '<a>', which a
//    cluster-bound bundle cannot grant"
Status CheckBinding(const Bundle& bundle, Binding binding);
// Every error of CheckBinding, in the same order (the kind, then each
// offending action in rule order).
std::vector<Status> BindingErrors(const Bundle& bundle, Binding binding);

// The binding a bundle fits when nothing says what it is bound to (the
// `policy` verbs given a file): kCluster when every rule grants only
// graph_list (and there is at least one rule), else kGraph; a bundle with a
// `kind:` is bound as it says. Errors: a
// bundle with both kinds of rule fits neither, reported as CheckBinding
// does for kGraph.
Result<Binding> InferBinding(const Bundle& bundle);
// As InferBinding, with every error: sets *binding to the binding the
// bundle fits (kGraph when it fits neither) and returns the errors of
// BindingErrors for it (empty when it fits).
std::vector<Status> InferredBindingErrors(const Bundle& bundle, Binding* binding);

}  // namespace omnigraph::policy
