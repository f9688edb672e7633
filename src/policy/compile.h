// The Cedar text a bundle stands for (spec/server.md §2.3): one `permit`
// per (rule, action). Decisions never go through it (evaluate.h decides
// natively, §2.5 option (c)); it is kept for debugging output and for a
// differential test against the official Cedar engine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/bundle.h"

namespace omnigraph::policy {

// The id of the server entity graph_list is decided on:
// Omnigraph::Server::"root".
inline constexpr std::string_view kServerResourceId = "root";

struct CedarPolicy {
  std::string policy_id;  // "<rule_id>:<action>"
  std::string rule_id;
  std::string text;       // the permit statement
};

// One permit per rule and listed action, in rule then action order:
//   permit (
//       principal in Omnigraph::Group::"<group>",
//       action == Omnigraph::Action::"<action>",
//       resource == Omnigraph::Graph::"<graph_id>"   (Server::"root" for graph_list)
//   )[
//   when { <condition> }];
// with the condition of the rule's scope: `true` for any,
// `context.has_branch && context.branch_is_protected` for protected,
// `context.has_branch && context.branch_is_protected == false` for
// unprotected (target_branch_scope uses the target_* fields). Never fails.
std::vector<CedarPolicy> CompileToCedar(const Bundle& bundle, std::string_view graph_id);

// `text` as a Cedar string literal: quoted, with `\"`, `\\`, `\n`, `\r`,
// `\t`, `\0` and other control characters as `\u{XX}`.
std::string CedarStringLiteral(std::string_view text);

}  // namespace omnigraph::policy
