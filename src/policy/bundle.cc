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
// would. Reading goes on past an error wherever the rest still has a
// meaning: each error is recorded, and the value at fault (a group, a
// member, a branch, a rule, an action, a scope) is left out.
class ShapeReader {
 public:
  explicit ShapeReader(std::string_view file) : fields_(file) { bundle_.file = std::string(file); }

  // False when nothing could be read past the errors (no YAML mapping).
  bool Read(std::string_view text) {
    auto root = fields_.Load(text);
    if (!root.ok()) return Check(root.status());
    if (root->IsNull()) return Check(fields_.ErrorAt(SourcePosition{1, 1}, "policy bundle is empty; expected a mapping"));
    auto top = fields_.CollectFields(*root, "policy bundle",
                                     {"version", "kind", "groups", "protected_branches", "rules"}, {"version"},
                                     &errors_);
    if (!top) return false;
    if (const YamlField* kind = FindField(*top, "kind")) ReadKind(*kind);
    if (const YamlField* groups = FindField(*top, "groups")) ReadGroups(*groups);
    if (const YamlField* branches = FindField(*top, "protected_branches")) ReadProtectedBranches(*branches);
    if (const YamlField* rules = FindField(*top, "rules")) ReadRules(*rules);
    // The version is checked first among the §2.2 rules but its shape
    // (scalar) with them: any value other than a plain 1 is the same error.
    if (const YamlField* version = FindField(*top, "version")) Check(fields_.CheckVersionOne(*version, "policy"));
    return true;
  }

  const YamlFields& fields() const { return fields_; }
  Bundle& bundle() { return bundle_; }
  std::vector<Status>& errors() { return errors_; }
  // Whether group `name` was declared but left out for a shape error (a
  // rule naming it does not reference an unknown group).
  bool LeftOutGroup(std::string_view name) const {
    return std::find(left_out_groups_.begin(), left_out_groups_.end(), name) != left_out_groups_.end();
  }

 private:
  // Records `st` when it is an error; returns whether it was OK.
  bool Check(const Status& st) {
    if (st.ok()) return true;
    errors_.push_back(st);
    return false;
  }

  void ReadKind(const YamlField& kind) {
    auto name = fields_.Scalar(kind, "the bundle kind");
    if (!Check(name.status())) return;
    bundle_.kind_position = YamlFields::PositionOf(kind.value);
    if (*name == "server") {
      bundle_.kind = BundleKind::kServer;
    } else if (*name == "graph") {
      bundle_.kind = BundleKind::kGraph;
    } else {
      Check(fields_.ErrorAt(bundle_.kind_position,
                            fmt::format("unknown bundle kind '{}', expected 'server' or 'graph'", *name)));
    }
  }

  void ReadGroups(const YamlField& field) {
    auto groups = fields_.CollectFields(field.value, "groups", {}, {}, &errors_);
    if (!groups) return;
    for (const YamlField& entry : *groups) {
      Group group{entry.key.Scalar(), YamlFields::PositionOf(entry.key), {}, {}};
      group.members_position = YamlFields::PositionOf(entry.value.IsNull() ? entry.key : entry.value);
      const std::string what = fmt::format("members of group '{}'", group.name);
      if (!Check(fields_.CheckSequence(entry, what))) {
        left_out_groups_.push_back(group.name);
        continue;
      }
      bool members_ok = true;
      for (const YAML::Node& member : entry.value) {
        auto actor = fields_.Scalar(member, fmt::format("a member of group '{}'", group.name));
        if (!Check(actor.status())) {
          members_ok = false;
          continue;
        }
        group.members.push_back(Member{*actor, YamlFields::PositionOf(member)});
      }
      // A group whose members could not all be read is kept (rules may
      // name it) unless none could: "must not be empty" would be false.
      if (members_ok || !group.members.empty()) {
        bundle_.groups.push_back(std::move(group));
      } else {
        left_out_groups_.push_back(group.name);
      }
    }
    std::sort(bundle_.groups.begin(), bundle_.groups.end(),
              [](const Group& left, const Group& right) { return left.name < right.name; });
  }

  void ReadProtectedBranches(const YamlField& field) {
    if (!Check(fields_.CheckSequence(field, "protected_branches"))) return;
    for (const YAML::Node& entry : field.value) {
      auto name = fields_.Scalar(entry, "a protected branch");
      if (!Check(name.status())) continue;
      bundle_.protected_branches.push_back(ProtectedBranch{*name, YamlFields::PositionOf(entry)});
    }
  }

  void ReadRules(const YamlField& field) {
    if (!Check(fields_.CheckSequence(field, "rules"))) return;
    for (const YAML::Node& node : field.value) {
      if (std::optional<Rule> rule = ReadRule(node)) bundle_.rules.push_back(std::move(*rule));
    }
  }

  // The rule at `node`; none when a part it cannot do without is at fault
  // (its other parts are still read, for their errors).
  std::optional<Rule> ReadRule(const YAML::Node& node) {
    Rule rule;
    bool complete = true;
    auto fields = fields_.CollectFields(node, "a rule", {"id", "allow"}, {"id", "allow"}, &errors_);
    if (!fields) return std::nullopt;
    if (const YamlField* id = FindField(*fields, "id")) {
      auto id_text = fields_.Scalar(*id, "a rule id");
      if (Check(id_text.status())) {
        rule.id = *id_text;
        rule.id_position = YamlFields::PositionOf(id->value);
      } else {
        complete = false;
      }
    } else {
      complete = false;
    }
    const YamlField* allow_field = FindField(*fields, "allow");
    if (allow_field == nullptr) return std::nullopt;
    auto allow = fields_.CollectFields(allow_field->value, "a rule's allow",
                                       {"actors", "actions", "branch_scope", "target_branch_scope"},
                                       {"actors", "actions"}, &errors_);
    if (!allow) return std::nullopt;

    if (const YamlField* actors_field = FindField(*allow, "actors")) {
      auto actors = fields_.CollectFields(actors_field->value, "allow.actors", {"group"}, {"group"}, &errors_);
      const YamlField* group = actors ? FindField(*actors, "group") : nullptr;
      if (group != nullptr) {
        auto group_name = fields_.Scalar(*group, "allow.actors.group");
        if (Check(group_name.status())) {
          rule.group = *group_name;
          rule.group_position = YamlFields::PositionOf(group->value);
        } else {
          complete = false;
        }
      } else {
        complete = false;
      }
    } else {
      complete = false;
    }

    if (const YamlField* actions = FindField(*allow, "actions")) {
      if (Check(fields_.CheckSequence(*actions, "allow.actions"))) {
        rule.actions_position = YamlFields::PositionOf(actions->value);
        for (const YAML::Node& entry : actions->value) {
          auto name = fields_.Scalar(entry, "an action");
          if (!Check(name.status())) {
            complete = false;
            continue;
          }
          std::optional<Action> action = ParseAction(*name);
          if (!action) {
            Check(fields_.ErrorAt(entry, fmt::format("unknown policy action '{}', expected one of {}", *name,
                                                     ActionNameList())));
            complete = false;
            continue;
          }
          rule.actions.push_back(RuleAction{*action, YamlFields::PositionOf(entry)});
        }
      } else {
        complete = false;
      }
    } else {
      complete = false;
    }

    if (const YamlField* scope = FindField(*allow, "branch_scope")) {
      if (auto parsed = ReadScope(*scope, "branch_scope")) {
        rule.branch_scope = *parsed;
        rule.branch_scope_position = YamlFields::PositionOf(scope->value);
      } else {
        complete = false;
      }
    }
    if (const YamlField* scope = FindField(*allow, "target_branch_scope")) {
      if (auto parsed = ReadScope(*scope, "target_branch_scope")) {
        rule.target_branch_scope = *parsed;
        rule.target_branch_scope_position = YamlFields::PositionOf(scope->value);
      } else {
        complete = false;
      }
    }
    // A rule read only in part would draw errors that are not its own
    // ("must include at least one action" for actions that were misspelt).
    if (!complete) return std::nullopt;
    return rule;
  }

  std::optional<BranchScope> ReadScope(const YamlField& field, std::string_view key) {
    auto text = fields_.Scalar(field, key);
    if (!Check(text.status())) return std::nullopt;
    for (BranchScope scope : {BranchScope::kAny, BranchScope::kProtected, BranchScope::kUnprotected}) {
      if (BranchScopeName(scope) == *text) return scope;
    }
    Check(fields_.ErrorAt(field, fmt::format("{} must be one of any, protected, unprotected, got '{}'", key, *text)));
    return std::nullopt;
  }

  YamlFields fields_;
  Bundle bundle_;
  std::vector<Status> errors_;
  std::vector<std::string> left_out_groups_;  // see LeftOutGroup
};

// Appends the errors of one rule (§2.2) to `errors`, in the documented
// order; `group_left_out` says the group it names was declared but left
// out for a shape error.
void ValidateRule(const YamlFields& fields, const Bundle& bundle, const Rule& rule, bool group_left_out,
                  std::vector<Status>* errors) {
  if (rule.group.empty() || IsBlank(rule.group)) {
    errors->push_back(
        fields.ErrorAt(rule.group_position, fmt::format("policy rule '{}' must reference a non-blank group", rule.id)));
  } else if (bundle.FindGroup(rule.group) == nullptr && !group_left_out) {
    errors->push_back(fields.ErrorAt(rule.group_position,
                                     fmt::format("policy rule '{}' references unknown group '{}'", rule.id, rule.group)));
  }
  if (rule.actions.empty()) {
    errors->push_back(fields.ErrorAt(rule.actions_position,
                                     fmt::format("policy rule '{}' must include at least one action", rule.id)));
  }
  if (rule.branch_scope && rule.target_branch_scope) {
    errors->push_back(fields.ErrorAt(
        rule.target_branch_scope_position,
        fmt::format("policy rule '{}' may specify branch_scope or target_branch_scope, not both", rule.id)));
  }
  // One rule becomes permits on one resource kind: graph_list is decided
  // on the server, every other action on a graph.
  bool server_scoped = false, graph_scoped = false;
  for (const RuleAction& entry : rule.actions) {
    (ResourceKindOf(entry.action) == ResourceKind::kServer ? server_scoped : graph_scoped) = true;
  }
  if (server_scoped && graph_scoped) {
    errors->push_back(fields.ErrorAt(rule.actions_position,
                                     fmt::format("policy rule '{}' mixes the server-scoped action 'graph_list' with "
                                                 "per-graph actions; split it into separate rules",
                                                 rule.id)));
  }
  const bool has_scope = rule.branch_scope || rule.target_branch_scope;
  const ScopeKey key = rule.branch_scope ? ScopeKey::kBranch : ScopeKey::kTargetBranch;
  const SourcePosition scope_position =
      rule.branch_scope ? rule.branch_scope_position : rule.target_branch_scope_position;
  if (server_scoped && has_scope) {
    errors->push_back(fields.ErrorAt(scope_position, fmt::format("policy rule '{}' uses {} with the server-scoped "
                                                                 "action 'graph_list'; it has no branch context",
                                                                 rule.id, ScopeKeyName(key))));
  } else if (has_scope) {
    for (const RuleAction& entry : rule.actions) {
      if (AllowedScopeKey(entry.action) != key) {
        errors->push_back(fields.ErrorAt(entry.position,
                                         fmt::format("policy rule '{}' uses {} with unsupported action '{}'", rule.id,
                                                     ScopeKeyName(key), ActionName(entry.action))));
      }
    }
  }
}

// Appends the errors of the §2.2 rules that relate values to each other
// to `errors`, in the documented order.
void Validate(const ShapeReader& reader, const Bundle& bundle, std::vector<Status>* errors) {
  const YamlFields& fields = reader.fields();
  for (const Group& group : bundle.groups) {
    if (IsBlank(group.name)) {
      errors->push_back(fields.ErrorAt(group.position, "policy group names must not be blank"));
      continue;
    }
    if (group.members.empty()) {
      errors->push_back(
          fields.ErrorAt(group.members_position, fmt::format("policy group '{}' must not be empty", group.name)));
    }
    for (const Member& member : group.members) {
      if (IsBlank(member.actor)) {
        errors->push_back(
            fields.ErrorAt(member.position, fmt::format("policy group '{}' contains a blank actor id", group.name)));
      }
    }
  }
  for (const ProtectedBranch& branch : bundle.protected_branches) {
    if (IsBlank(branch.name)) {
      errors->push_back(fields.ErrorAt(branch.position, "protected branch names must not be blank"));
    }
  }
  std::set<std::string> rule_ids;
  for (const Rule& rule : bundle.rules) {
    if (IsBlank(rule.id)) {
      errors->push_back(fields.ErrorAt(rule.id_position, "policy rule ids must not be blank"));
    } else if (!rule_ids.insert(rule.id).second) {
      errors->push_back(fields.ErrorAt(rule.id_position, fmt::format("duplicate policy rule id '{}'", rule.id)));
    }
    ValidateRule(fields, bundle, rule, reader.LeftOutGroup(rule.group), errors);
  }
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

BundleCheck CheckBundle(std::string_view text, std::string_view file) {
  bundle_parsing::ShapeReader reader(file);
  BundleCheck check;
  if (reader.Read(text)) bundle_parsing::Validate(reader, reader.bundle(), &reader.errors());
  check.bundle = std::move(reader.bundle());
  check.errors = std::move(reader.errors());
  return check;
}

Result<Bundle> ParseBundle(std::string_view text, std::string_view file) {
  BundleCheck check = CheckBundle(text, file);
  if (!check.errors.empty()) return check.errors.front();
  return std::move(check.bundle);
}

Result<Bundle> LoadBundle(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseBundle(*text, path);
}

std::vector<Status> BindingErrors(const Bundle& bundle, Binding binding) {
  YamlFields fields(bundle.file);
  std::vector<Status> errors;
  if (bundle.kind && (*bundle.kind == BundleKind::kServer) != (binding == Binding::kCluster)) {
    errors.push_back(fields.ErrorAt(bundle.kind_position,
                                    fmt::format("`kind: {}` does not match a {}-bound bundle",
                                                *bundle.kind == BundleKind::kServer ? "server" : "graph",
                                                binding == Binding::kCluster ? "cluster" : "graph")));
  }
  for (const Rule& rule : bundle.rules) {
    for (const RuleAction& entry : rule.actions) {
      const bool server_scoped = ResourceKindOf(entry.action) == ResourceKind::kServer;
      if (binding == Binding::kGraph && server_scoped) {
        errors.push_back(fields.ErrorAt(entry.position, fmt::format("policy rule '{}' grants the server-scoped "
                                                                    "action '{}', which a graph-bound bundle cannot "
                                                                    "grant",
                                                                    rule.id, ActionName(entry.action))));
      }
      if (binding == Binding::kCluster && !server_scoped) {
        errors.push_back(fields.ErrorAt(entry.position, fmt::format("policy rule '{}' grants the per-graph action "
                                                                    "'{}', which a cluster-bound bundle cannot grant",
                                                                    rule.id, ActionName(entry.action))));
      }
    }
  }
  return errors;
}

Status CheckBinding(const Bundle& bundle, Binding binding) {
  std::vector<Status> errors = BindingErrors(bundle, binding);
  return errors.empty() ? Status::OK() : errors.front();
}

std::vector<Status> InferredBindingErrors(const Bundle& bundle, Binding* binding) {
  if (bundle.kind) {
    *binding = *bundle.kind == BundleKind::kServer ? Binding::kCluster : Binding::kGraph;
    return BindingErrors(bundle, *binding);
  }
  if (!bundle.rules.empty() && BindingErrors(bundle, Binding::kCluster).empty()) {
    *binding = Binding::kCluster;
    return {};
  }
  *binding = Binding::kGraph;
  return BindingErrors(bundle, Binding::kGraph);
}

Result<Binding> InferBinding(const Bundle& bundle) {
  Binding binding = Binding::kGraph;
  std::vector<Status> errors = InferredBindingErrors(bundle, &binding);
  if (!errors.empty()) return errors.front();
  return binding;
}

}  // namespace omnigraph::policy
