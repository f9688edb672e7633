// The native decision (spec/server.md §2.4, §2.5 option (c)): the same
// answer Cedar gives for the policies a bundle compiles to (§2.3), without
// Cedar. Only permits exist, so a request is allowed iff at least one
// generated permit for (a group the actor is in, the action, the bundle's
// resource) has a true condition; everything else is denied.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "policy/actions.h"
#include "policy/bundle.h"

namespace omnigraph::policy {

// One request to decide (§2.4's table says which branch and target branch
// each entry point passes). An absent branch is not the empty branch: a
// rule scoped `protected` or `unprotected` needs the branch present.
struct Request {
  std::string actor;
  Action action = Action::kRead;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
};

struct Decision {
  bool allowed = false;
  // The lexicographically smallest id of the rules whose permits were
  // satisfied; set only on allow.
  std::optional<std::string> matched_rule_id;
  // "policy allowed action '<a>' for actor '<x>'",
  // "policy denied action '<a>'[ on branch '<b>'][ targeting branch '<t>'] for actor '<x>'",
  // or, for an actor in no group,
  // "policy denied action '<a>' for unknown actor '<x>'".
  std::string message;
};

// Decides requests against one validated bundle. Built once per bundle
// (the server keeps one per bound scope), then read-only: Decide may be
// called from many threads.
class Evaluator {
 public:
  explicit Evaluator(Bundle bundle);

  const Bundle& bundle() const { return bundle_; }

  // The decision for `request` (§2.4, §2.5):
  //   1. an actor in no group of the bundle is denied, no rule matched;
  //   2. a rule is satisfied when it grants the action, the actor is in its
  //      group, and its scope holds: no scope or `any` always (even with no
  //      branch in the request, as the generated `when { true }` does);
  //      `protected` when the scoped branch (branch for branch_scope,
  //      target branch for target_branch_scope) is present and protected;
  //      `unprotected` when it is present and not protected;
  //   3. allow iff some rule is satisfied; matched_rule_id is the smallest
  //      satisfied rule id (byte order).
  // The resource is implicit: a graph-bound bundle has no graph_list rule
  // and a cluster-bound one only graph_list rules (CheckBinding), so a
  // request for an action of the other kind is denied by default.
  // Never fails: the generated policies cannot raise evaluation errors.
  Decision Decide(const Request& request) const;

  // True when `actor` is a member of some group.
  bool IsKnownActor(const std::string& actor) const { return groups_of_actor_.count(actor) > 0; }

 private:
  bool ScopeHolds(const Rule& rule, const Request& request) const;

  Bundle bundle_;
  // actor id → the groups listing it (one level: groups do not nest).
  std::map<std::string, std::set<std::string>> groups_of_actor_;
};

// "allow" or "deny".
std::string_view DecisionName(bool allowed);

}  // namespace omnigraph::policy
