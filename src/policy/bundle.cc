#include "policy/bundle.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "policy/yaml_fields.h"

namespace omnigraph::policy {
namespace bundle_parsing {
namespace {

// Reads the shape of a bundle (§2.2) into a Bundle; the rules that relate
// values to each other are checked afterwards by Validate, so that every
// shape error is reported before any of them, as a typed deserializer
// would.
class ShapeReader {
 public:
  explicit ShapeReader(std::string_view file) : fields_(file) { bundle_.file = std::string(file); }

  Result<Bundle> Read(std::string_view text) {
    auto root = fields_.Load(text);
    if (!root.ok()) return root.status();
    if (root->IsNull()) return fields_.ErrorAt(SourcePosition{1, 1}, "policy bundle is empty; expected a mapping");
    auto top = fields_.Fields(*root, "policy bundle", {"version", "kind", "groups", "protected_branches", "rules"},
                            {"version"});
    if (!top.ok()) return top.status();
    // The version is checked first among the §2.2 rules but its shape
    // (scalar) with them: any value other than a plain 1 is the same error.
    version_ = *FindField(*top, "version");
    if (const YamlField* kind = FindField(*top, "kind")) {
      auto name = fields_.Scalar(*kind, "the bundle kind");
      if (!name.ok()) return name.status();
      bundle_.kind_position = YamlFields::PositionOf(kind->value);
      if (*name == "server") {
        bundle_.kind = BundleKind::kServer;
      } else if (*name == "graph") {
        bundle_.kind = BundleKind::kGraph;
      } else {
        return fields_.ErrorAt(bundle_.kind_position,
                               fmt::format("unknown bundle kind '{}', expected 'server' or 'graph'", *name));
      }
    }
    if (const YamlField* groups = FindField(*top, "groups")) {
      if (Status st = ReadGroups(*groups); !st.ok()) return st;
    }
    if (const YamlField* branches = FindField(*top, "protected_branches")) {
      if (Status st = ReadProtectedBranches(*branches); !st.ok()) return st;
    }
    if (const YamlField* rules = FindField(*top, "rules")) {
      if (Status st = ReadRules(*rules); !st.ok()) return st;
    }
    if (Status st = fields_.CheckVersionOne(version_, "policy"); !st.ok()) return st;
    return std::move(bundle_);
  }

  const YamlFields& fields() const { return fields_; }

 private:
  Status ReadGroups(const YamlField& field) {
    auto groups = fields_.Fields(field.value, "groups", {}, {});
    if (!groups.ok()) return groups.status();
    for (const YamlField& entry : *groups) {
      Group group{entry.key.Scalar(), YamlFields::PositionOf(entry.key), {}, {}};
      group.members_position = YamlFields::PositionOf(entry.value.IsNull() ? entry.key : entry.value);
      const std::string what = fmt::format("members of group '{}'", group.name);
      if (Status st = fields_.CheckSequence(entry, what); !st.ok()) return st;
      for (const YAML::Node& member : entry.value) {
        auto actor = fields_.Scalar(member, fmt::format("a member of group '{}'", group.name));
        if (!actor.ok()) return actor.status();
        group.members.push_back(Member{*actor, YamlFields::PositionOf(member)});
      }
      bundle_.groups.push_back(std::move(group));
    }
    std::sort(bundle_.groups.begin(), bundle_.groups.end(),
              [](const Group& left, const Group& right) { return left.name < right.name; });
    return Status::OK();
  }

  Status ReadProtectedBranches(const YamlField& field) {
    if (Status st = fields_.CheckSequence(field, "protected_branches"); !st.ok()) return st;
    for (const YAML::Node& entry : field.value) {
      auto name = fields_.Scalar(entry, "a protected branch");
      if (!name.ok()) return name.status();
      bundle_.protected_branches.push_back(ProtectedBranch{*name, YamlFields::PositionOf(entry)});
    }
    return Status::OK();
  }

  Status ReadRules(const YamlField& field) {
    if (Status st = fields_.CheckSequence(field, "rules"); !st.ok()) return st;
    for (const YAML::Node& node : field.value) {
      auto rule = ReadRule(node);
      if (!rule.ok()) return rule.status();
      bundle_.rules.push_back(std::move(*rule));
    }
    return Status::OK();
  }

  Result<Rule> ReadRule(const YAML::Node& node) {
    Rule rule;
    auto fields = fields_.Fields(node, "a rule", {"id", "allow"}, {"id", "allow"});
    if (!fields.ok()) return fields.status();
    const YamlField& id = *FindField(*fields, "id");
    auto id_text = fields_.Scalar(id, "a rule id");
    if (!id_text.ok()) return id_text.status();
    rule.id = *id_text;
    rule.id_position = YamlFields::PositionOf(id.value);

    const YamlField& allow_field = *FindField(*fields, "allow");
    auto allow = fields_.Fields(allow_field.value, "a rule's allow",
                                {"actors", "actions", "branch_scope", "target_branch_scope"}, {"actors", "actions"});
    if (!allow.ok()) return allow.status();

    const YamlField& actors_field = *FindField(*allow, "actors");
    auto actors = fields_.Fields(actors_field.value, "allow.actors", {"group"}, {"group"});
    if (!actors.ok()) return actors.status();
    const YamlField& group = *FindField(*actors, "group");
    auto group_name = fields_.Scalar(group, "allow.actors.group");
    if (!group_name.ok()) return group_name.status();
    rule.group = *group_name;
    rule.group_position = YamlFields::PositionOf(group.value);

    const YamlField& actions = *FindField(*allow, "actions");
    if (Status st = fields_.CheckSequence(actions, "allow.actions"); !st.ok()) return st;
    rule.actions_position = YamlFields::PositionOf(actions.value);
    for (const YAML::Node& entry : actions.value) {
      auto name = fields_.Scalar(entry, "an action");
      if (!name.ok()) return name.status();
      std::optional<Action> action = ParseAction(*name);
      if (!action) {
        return fields_.ErrorAt(entry, fmt::format("unknown policy action '{}', expected one of {}", *name,
                                                  ActionNameList()));
      }
      rule.actions.push_back(RuleAction{*action, YamlFields::PositionOf(entry)});
    }

    if (const YamlField* scope = FindField(*allow, "branch_scope")) {
      auto parsed = ReadScope(*scope, "branch_scope");
      if (!parsed.ok()) return parsed.status();
      rule.branch_scope = *parsed;
      rule.branch_scope_position = YamlFields::PositionOf(scope->value);
    }
    if (const YamlField* scope = FindField(*allow, "target_branch_scope")) {
      auto parsed = ReadScope(*scope, "target_branch_scope");
      if (!parsed.ok()) return parsed.status();
      rule.target_branch_scope = *parsed;
      rule.target_branch_scope_position = YamlFields::PositionOf(scope->value);
    }
    return rule;
  }

  Result<BranchScope> ReadScope(const YamlField& field, std::string_view key) {
    auto text = fields_.Scalar(field, key);
    if (!text.ok()) return text.status();
    for (BranchScope scope : {BranchScope::kAny, BranchScope::kProtected, BranchScope::kUnprotected}) {
      if (BranchScopeName(scope) == *text) return scope;
    }
    return fields_.ErrorAt(field, fmt::format("{} must be one of any, protected, unprotected, got '{}'", key, *text));
  }

  YamlFields fields_;
  Bundle bundle_;
  YamlField version_;
};

Status ValidateRule(const YamlFields& fields, const Bundle& bundle, const Rule& rule) {
  if (rule.group.empty() || IsBlank(rule.group)) {
    return fields.ErrorAt(rule.group_position, fmt::format("policy rule '{}' must reference a non-blank group", rule.id));
  }
  if (bundle.FindGroup(rule.group) == nullptr) {
    return fields.ErrorAt(rule.group_position,
                          fmt::format("policy rule '{}' references unknown group '{}'", rule.id, rule.group));
  }
  if (rule.actions.empty()) {
    return fields.ErrorAt(rule.actions_position,
                          fmt::format("policy rule '{}' must include at least one action", rule.id));
  }
  if (rule.branch_scope && rule.target_branch_scope) {
    return fields.ErrorAt(
        rule.target_branch_scope_position,
        fmt::format("policy rule '{}' may specify branch_scope or target_branch_scope, not both", rule.id));
  }
  // One rule becomes permits on one resource kind: graph_list is decided
  // on the server, every other action on a graph.
  bool server_scoped = false, graph_scoped = false;
  for (const RuleAction& entry : rule.actions) {
    (ResourceKindOf(entry.action) == ResourceKind::kServer ? server_scoped : graph_scoped) = true;
  }
  if (server_scoped && graph_scoped) {
    return fields.ErrorAt(rule.actions_position,
                          fmt::format("policy rule '{}' mixes the server-scoped action 'graph_list' with per-graph "
                                      "actions; split it into separate rules",
                                      rule.id));
  }
  const bool has_scope = rule.branch_scope || rule.target_branch_scope;
  const ScopeKey key = rule.branch_scope ? ScopeKey::kBranch : ScopeKey::kTargetBranch;
  const SourcePosition scope_position =
      rule.branch_scope ? rule.branch_scope_position : rule.target_branch_scope_position;
  if (server_scoped && has_scope) {
    return fields.ErrorAt(scope_position, fmt::format("policy rule '{}' uses {} with the server-scoped action "
                                                      "'graph_list'; it has no branch context",
                                                      rule.id, ScopeKeyName(key)));
  }
  if (has_scope) {
    for (const RuleAction& entry : rule.actions) {
      if (AllowedScopeKey(entry.action) != key) {
        return fields.ErrorAt(entry.position, fmt::format("policy rule '{}' uses {} with unsupported action '{}'",
                                                          rule.id, ScopeKeyName(key), ActionName(entry.action)));
      }
    }
  }
  return Status::OK();
}

// The §2.2 rules that relate values to each other, in the documented order.
Status Validate(const YamlFields& fields, const Bundle& bundle) {
  for (const Group& group : bundle.groups) {
    if (IsBlank(group.name)) return fields.ErrorAt(group.position, "policy group names must not be blank");
    if (group.members.empty()) {
      return fields.ErrorAt(group.members_position, fmt::format("policy group '{}' must not be empty", group.name));
    }
    for (const Member& member : group.members) {
      if (IsBlank(member.actor)) {
        return fields.ErrorAt(member.position,
                              fmt::format("policy group '{}' contains a blank actor id", group.name));
      }
    }
  }
  for (const ProtectedBranch& branch : bundle.protected_branches) {
    if (IsBlank(branch.name)) return fields.ErrorAt(branch.position, "protected branch names must not be blank");
  }
  std::set<std::string> rule_ids;
  for (const Rule& rule : bundle.rules) {
    if (IsBlank(rule.id)) return fields.ErrorAt(rule.id_position, "policy rule ids must not be blank");
    if (!rule_ids.insert(rule.id).second) {
      return fields.ErrorAt(rule.id_position, fmt::format("duplicate policy rule id '{}'", rule.id));
    }
    if (Status st = ValidateRule(fields, bundle, rule); !st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace
}  // namespace bundle_parsing

std::string_view BranchScopeName(BranchScope scope) {
  switch (scope) {
    case BranchScope::kAny: return "any";
    case BranchScope::kProtected: return "protected";
    case BranchScope::kUnprotected: return "unprotected";
  }
  return "unknown";
}

bool Rule::Grants(Action action) const {
  return std::any_of(actions.begin(), actions.end(), [action](const RuleAction& entry) { return entry.action == action; });
}

const Group* Bundle::FindGroup(std::string_view name) const {
  for (const Group& group : groups) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

bool Bundle::IsProtected(std::string_view branch) const {
  return std::any_of(protected_branches.begin(), protected_branches.end(),
                     [branch](const ProtectedBranch& entry) { return entry.name == branch; });
}

size_t Bundle::ActorCount() const {
  std::set<std::string_view> actors;
  for (const Group& group : groups) {
    for (const Member& member : group.members) actors.insert(member.actor);
  }
  return actors.size();
}

Result<Bundle> ParseBundle(std::string_view text, std::string_view file) {
  bundle_parsing::ShapeReader reader(file);
  auto bundle = reader.Read(text);
  if (!bundle.ok()) return bundle.status();
  if (Status st = bundle_parsing::Validate(reader.fields(), *bundle); !st.ok()) return st;
  return bundle;
}

Result<Bundle> LoadBundle(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseBundle(*text, path);
}

Status CheckBinding(const Bundle& bundle, Binding binding) {
  YamlFields fields(bundle.file);
  if (bundle.kind && (*bundle.kind == BundleKind::kServer) != (binding == Binding::kCluster)) {
    return fields.ErrorAt(bundle.kind_position,
                          fmt::format("`kind: {}` does not match a {}-bound bundle",
                                      *bundle.kind == BundleKind::kServer ? "server" : "graph",
                                      binding == Binding::kCluster ? "cluster" : "graph"));
  }
  for (const Rule& rule : bundle.rules) {
    for (const RuleAction& entry : rule.actions) {
      const bool server_scoped = ResourceKindOf(entry.action) == ResourceKind::kServer;
      if (binding == Binding::kGraph && server_scoped) {
        return fields.ErrorAt(entry.position, fmt::format("policy rule '{}' grants the server-scoped action '{}', "
                                                          "which a graph-bound bundle cannot grant",
                                                          rule.id, ActionName(entry.action)));
      }
      if (binding == Binding::kCluster && !server_scoped) {
        return fields.ErrorAt(entry.position, fmt::format("policy rule '{}' grants the per-graph action '{}', "
                                                          "which a cluster-bound bundle cannot grant",
                                                          rule.id, ActionName(entry.action)));
      }
    }
  }
  return Status::OK();
}

Result<Binding> InferBinding(const Bundle& bundle) {
  if (bundle.kind) {
    const Binding declared = *bundle.kind == BundleKind::kServer ? Binding::kCluster : Binding::kGraph;
    if (Status st = CheckBinding(bundle, declared); !st.ok()) return st;
    return declared;
  }
  if (!bundle.rules.empty() && CheckBinding(bundle, Binding::kCluster).ok()) return Binding::kCluster;
  if (Status st = CheckBinding(bundle, Binding::kGraph); !st.ok()) return st;
  return Binding::kGraph;
}

}  // namespace omnigraph::policy
