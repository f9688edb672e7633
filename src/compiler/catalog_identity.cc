// Stable identities across schema evolution (catalog.h InheritIdentity,
// AdoptIrIdentity; surface.md §1.9, engine.md §1.2).
//
// Type ids name table identities and property ids name physical columns
// (field metadata omnigraph.stable_property_id), so they must survive every
// later compile of an evolved schema: a rename keeps its id, an addition
// continues the accepted sequence, a drop retires its id for good.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compiler/catalog.h"

namespace omnigraph::compiler {

enum class IdentityKind { kInterface, kNode, kEdge };

// The ids of one accepted schema, by kind and name.
struct AcceptedIdentity {
  using Kind = IdentityKind;
  std::map<std::pair<Kind, std::string>, uint32_t> types;
  // (kind, type id) -> property name -> id
  std::map<std::pair<Kind, uint32_t>, std::map<std::string, uint32_t>> properties;
  uint64_t next = 1;
};

namespace {

using Kind = IdentityKind;
using AcceptedIds = AcceptedIdentity;

template <typename Type>
void Collect(Kind kind, const std::vector<Type>& types, AcceptedIds* ids) {
  for (const Type& t : types) {
    ids->types[{kind, t.name}] = t.stable_id;
    auto& props = ids->properties[{kind, t.stable_id}];
    for (const Property& p : t.properties) props[p.name] = p.stable_id;
  }
}

// Assigns ids to `types` (one kind) and their properties; `follow_renames`
// lets an unknown name inherit the id its @rename_from names.
class Assigner {
 public:
  Assigner(const AcceptedIds& accepted, bool follow_renames)
      : accepted_(accepted), follow_renames_(follow_renames), next_(accepted.next) {}

  template <typename Type>
  Status AssignTypes(Kind kind, std::vector<Type>* types) {
    std::set<std::string> names;
    for (const Type& t : *types) names.insert(t.name);
    for (Type& t : *types) {
      OG_ASSIGN_OR_RETURN(t.stable_id, Resolve(accepted_.types, kind, t.name, RenameOf(t), names));
    }
    return Status::OK();
  }

  template <typename Type>
  Status AssignProperties(Kind kind, std::vector<Type>* types) {
    static const std::map<std::string, uint32_t> kNone;
    for (Type& t : *types) {
      auto found = accepted_.properties.find({kind, t.stable_id});
      const auto& accepted = found == accepted_.properties.end() ? kNone : found->second;
      std::set<std::string> names;
      for (const Property& p : t.properties) names.insert(p.name);
      for (Property& p : t.properties) {
        auto id = ResolveIn(accepted, p.name, p.rename_from, names);
        if (!id.ok()) return CorruptData(fmt::format("accepted schema IR has no property '{}.{}'", t.name, p.name));
        p.stable_id = *id;
      }
    }
    return Status::OK();
  }

  uint64_t next() const { return next_; }

 private:
  template <typename Type>
  static std::optional<std::string> RenameOf(const Type& t) {
    if constexpr (std::is_same_v<Type, InterfaceType>) {
      return std::nullopt;  // interfaces cannot be renamed (§1.9)
    } else {
      return t.rename_from;
    }
  }

  Result<uint32_t> Resolve(const std::map<std::pair<Kind, std::string>, uint32_t>& accepted, Kind kind,
                           const std::string& name, const std::optional<std::string>& rename_from,
                           const std::set<std::string>& names) {
    if (auto it = accepted.find({kind, name}); it != accepted.end()) return it->second;
    if (follow_renames_ && rename_from && !names.count(*rename_from)) {
      if (auto it = accepted.find({kind, *rename_from}); it != accepted.end()) return it->second;
    }
    if (!follow_renames_) return CorruptData(fmt::format("accepted schema IR has no type '{}'", name));
    return static_cast<uint32_t>(next_++);
  }

  Result<uint32_t> ResolveIn(const std::map<std::string, uint32_t>& accepted, const std::string& name,
                             const std::optional<std::string>& rename_from, const std::set<std::string>& names) {
    if (auto it = accepted.find(name); it != accepted.end()) return it->second;
    if (follow_renames_ && rename_from && !names.count(*rename_from)) {
      if (auto it = accepted.find(*rename_from); it != accepted.end()) return it->second;
    }
    if (!follow_renames_) return NotFound(name);
    return static_cast<uint32_t>(next_++);
  }

  const AcceptedIds& accepted_;
  bool follow_renames_;
  uint64_t next_;
};

// Key properties are ordered by stable id (§1.7); ids changed, so reorder.
void SortKey(NodeType* node) {
  auto id_of = [&](const std::string& name) {
    const Property* p = node->FindProperty(name);
    return p ? p->stable_id : 0u;
  };
  std::stable_sort(node->key.begin(), node->key.end(),
                   [&](const std::string& a, const std::string& b) { return id_of(a) < id_of(b); });
}

Result<AcceptedIds> IdsFromIr(std::string_view ir_json) {
  auto ir = nlohmann::json::parse(ir_json, nullptr, /*allow_exceptions=*/false);
  if (!ir.is_object() || !ir.contains("next_identity_id")) return CorruptData("accepted schema IR does not parse");
  AcceptedIds ids;
  try {
    ids.next = ir.at("next_identity_id").get<uint64_t>();
    for (auto [member, kind] : {std::pair{"interfaces", Kind::kInterface}, std::pair{"nodes", Kind::kNode},
                                std::pair{"edges", Kind::kEdge}}) {
      for (const auto& t : ir.at(member)) {
        auto type_id = t.at("type_id").get<uint32_t>();
        ids.types[{kind, t.at("name").get<std::string>()}] = type_id;
        auto& props = ids.properties[{kind, type_id}];
        for (const auto& p : t.at("properties")) props[p.at("name").get<std::string>()] = p.at("property_id").get<uint32_t>();
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return CorruptData(fmt::format("accepted schema IR is malformed: {}", e.what()));
  }
  return ids;
}

}  // namespace

Status Catalog::AssignIdentity(const AcceptedIdentity& accepted, bool follow_renames) {
  Assigner assigner(accepted, follow_renames);
  OG_RETURN_IF_ERROR(assigner.AssignTypes(Kind::kInterface, &interfaces_));
  OG_RETURN_IF_ERROR(assigner.AssignTypes(Kind::kNode, &nodes_));
  OG_RETURN_IF_ERROR(assigner.AssignTypes(Kind::kEdge, &edges_));
  OG_RETURN_IF_ERROR(assigner.AssignProperties(Kind::kInterface, &interfaces_));
  OG_RETURN_IF_ERROR(assigner.AssignProperties(Kind::kNode, &nodes_));
  OG_RETURN_IF_ERROR(assigner.AssignProperties(Kind::kEdge, &edges_));
  for (NodeType& node : nodes_) SortKey(&node);
  next_identity_id_ = std::max(assigner.next(), accepted.next);
  return Status::OK();
}

void Catalog::InheritIdentity(const Catalog& accepted) {
  AcceptedIds ids;
  Collect(Kind::kInterface, accepted.interfaces_, &ids);
  Collect(Kind::kNode, accepted.nodes_, &ids);
  Collect(Kind::kEdge, accepted.edges_, &ids);
  ids.next = accepted.next_identity_id_;
  (void)AssignIdentity(ids, /*follow_renames=*/true);  // cannot fail when following renames
}

Status Catalog::AdoptIrIdentity(std::string_view ir_json) {
  OG_ASSIGN_OR_RETURN(AcceptedIds ids, IdsFromIr(ir_json));
  return AssignIdentity(ids, /*follow_renames=*/false);
}

}  // namespace omnigraph::compiler
