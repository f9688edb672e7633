#include "compiler/schema_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace omnigraph::compiler {
namespace {

// Annotations that are not metadata: @rename_from is an evolution hint, and
// constraint sugar is compared as constraints.
bool IsMetadataAnnotation(const Annotation& a) {
  static const std::set<std::string> kNotMetadata = {"rename_from", "key", "unique", "index", "embed"};
  return !kNotMetadata.count(a.name);
}

bool SameMetadata(const std::vector<Annotation>& a, const std::vector<Annotation>& b) {
  std::vector<const Annotation*> x, y;
  for (const Annotation& ann : a) if (IsMetadataAnnotation(ann)) x.push_back(&ann);
  for (const Annotation& ann : b) if (IsMetadataAnnotation(ann)) y.push_back(&ann);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i]->name != y[i]->name || x[i]->value != y[i]->value || x[i]->kwargs != y[i]->kwargs) return false;
  }
  return true;
}

// A constraint tuple spelled by stable ids, so renamed properties compare
// equal ("src"/"dst" keep their names).
template <typename Type>
std::vector<std::string> TupleIds(const Type& type, const std::vector<std::string>& tuple) {
  std::vector<std::string> ids;
  for (const std::string& name : tuple) {
    const Property* p = type.FindProperty(name);
    ids.push_back(p ? std::to_string(p->stable_id) : name);
  }
  return ids;
}

template <typename Type>
std::set<std::vector<std::string>> TupleSet(const Type& type, const std::vector<std::vector<std::string>>& tuples) {
  std::set<std::vector<std::string>> set;
  for (const auto& t : tuples) set.insert(TupleIds(type, t));
  return set;
}

// Whether `type` declares a Blob property: its table then stores Lance file
// format 2.2 (a blob v2 column needs it; engine.md §1.2), otherwise 2.1.
template <typename Type>
bool HasBlobProperty(const Type& type) {
  return std::any_of(type.properties.begin(), type.properties.end(),
                     [](const Property& p) { return p.type.is_blob(); });
}

const Property* FindById(const std::vector<Property>& props, uint32_t id) {
  for (const Property& p : props) if (p.stable_id == id) return &p;
  return nullptr;
}

// Whether `to` only widens the enum `from` (same shape and nullability, a
// superset of its values).
bool ExtendsEnum(const PropertyType& from, const PropertyType& to) {
  if (!from.is_enum() || !to.is_enum() || from.nullable != to.nullable || from.enum_values == to.enum_values) {
    return false;
  }
  return std::includes(to.enum_values.begin(), to.enum_values.end(), from.enum_values.begin(), from.enum_values.end());
}

class Planner {
 public:
  Planner(const PopulatedTable& populated, bool allow_data_loss)
      : populated_(populated), allow_data_loss_(allow_data_loss) {}

  SchemaPlan Finish() {
    for (const SchemaStep& s : plan_.steps) {
      if (s.kind == "unsupported_change") plan_.supported = false;
    }
    return std::move(plan_);
  }

  void Interfaces(const Catalog& accepted, const Catalog& desired) {
    for (const InterfaceType& d : desired.interfaces()) {
      const InterfaceType* a = nullptr;
      for (const InterfaceType& t : accepted.interfaces()) if (t.stable_id == d.stable_id) a = &t;
      if (a == nullptr) {
        Add({.kind = "add_type", .type_kind = "interface", .type_name = d.name});
      }
    }
    for (const InterfaceType& a : accepted.interfaces()) {
      bool kept = std::any_of(desired.interfaces().begin(), desired.interfaces().end(),
                              [&](const InterfaceType& d) { return d.stable_id == a.stable_id; });
      if (!kept) Add({.kind = "drop_type", .type_kind = "interface", .type_name = a.name, .mode = "soft"});
    }
  }

  void Nodes(const Catalog& accepted, const Catalog& desired) {
    for (const NodeType& d : desired.nodes()) {
      const NodeType* a = FindType(accepted.nodes(), d.stable_id);
      if (a == nullptr) {
        Add({.kind = "add_type", .type_kind = "node", .type_name = d.name});
        continue;
      }
      TypeCommon("node", *a, d);
      const std::string entity = d.name;
      if (TupleIds(*a, a->key) != TupleIds(d, d.key)) Unsupported(entity, "changing the @key of an existing type");
      if (a->implements != d.implements) Unsupported(entity, "changing implements");
      if (RangesOf(*a) != RangesOf(d)) Unsupported(entity, "changing @range constraints");
      if (ChecksOf(*a) != ChecksOf(d)) Unsupported(entity, "changing @check constraints");
    }
    for (const NodeType& a : accepted.nodes()) {
      if (FindType(desired.nodes(), a.stable_id) == nullptr) DropType("node", a.name, a.TableKey(), "OG-DS-102");
    }
  }

  void Edges(const Catalog& accepted, const Catalog& desired) {
    for (const EdgeType& d : desired.edges()) {
      const EdgeType* a = FindType(accepted.edges(), d.stable_id);
      if (a == nullptr) {
        Add({.kind = "add_type", .type_kind = "edge", .type_name = d.name});
        continue;
      }
      TypeCommon("edge", *a, d);
      const NodeType* af = accepted.FindNode(a->from_type);
      const NodeType* at = accepted.FindNode(a->to_type);
      const NodeType* df = desired.FindNode(d.from_type);
      const NodeType* dt = desired.FindNode(d.to_type);
      if (!af || !at || !df || !dt || af->stable_id != df->stable_id || at->stable_id != dt->stable_id) {
        Unsupported(d.name, "changing edge endpoints");
      }
      if (a->card_min != d.card_min || a->card_max != d.card_max) Unsupported(d.name, "changing edge cardinality");
    }
    for (const EdgeType& a : accepted.edges()) {
      if (FindType(desired.edges(), a.stable_id) == nullptr) DropType("edge", a.name, a.TableKey(), "OG-DS-103");
    }
  }

 private:
  template <typename Type>
  static const Type* FindType(const std::vector<Type>& types, uint32_t id) {
    for (const Type& t : types) if (t.stable_id == id) return &t;
    return nullptr;
  }

  static std::vector<std::string> RangesOf(const NodeType& t) {
    std::vector<std::string> out;
    for (const RangeConstraint& r : t.ranges) {
      const Property* p = t.FindProperty(r.property);
      out.push_back(fmt::format("{}:{}..{}", p ? p->stable_id : 0, r.min ? r.min->ToString() : "",
                                r.max ? r.max->ToString() : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  static std::vector<std::string> ChecksOf(const NodeType& t) {
    std::vector<std::string> out;
    for (const CheckConstraint& c : t.checks) {
      const Property* p = t.FindProperty(c.property);
      out.push_back(fmt::format("{}:{}", p ? p->stable_id : 0, c.pattern));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void Add(SchemaStep step) { plan_.steps.push_back(std::move(step)); }

  void Unsupported(std::string entity, std::string reason, std::optional<std::string> code = std::nullopt) {
    SchemaStep step{.kind = "unsupported_change"};
    step.entity = std::move(entity);
    step.reason = std::move(reason);
    if (code) {
      step.code = *code;
      step.tier = *code == "OG-MF-103" || *code == "OG-MF-104" ? "validated" : "destructive";
    }
    Add(std::move(step));
  }

  void DropType(const std::string& type_kind, const std::string& name, const std::string& table_key,
                const std::string& code) {
    if (populated_(table_key) && !allow_data_loss_) {
      Unsupported(name, fmt::format("dropping populated {} type '{}' loses data; pass --allow-data-loss", type_kind, name),
                  code);
      return;
    }
    Add({.kind = "drop_type", .type_kind = type_kind, .type_name = name,
         .mode = populated_(table_key) ? "hard" : "soft"});
  }

  template <typename Type>
  void TypeCommon(const std::string& type_kind, const Type& a, const Type& d) {
    if (a.name != d.name) {
      Add({.kind = "rename_type", .type_kind = type_kind, .type_name = d.name, .from = a.name});
    }
    if (a.description != d.description || a.instruction != d.instruction || !SameMetadata(a.annotations, d.annotations)) {
      Add({.kind = "update_type_metadata", .type_kind = type_kind, .type_name = d.name});
    }
    const std::string table_key = type_kind + ":" + a.name;
    for (const Property& dp : d.properties) {
      const Property* ap = FindById(a.properties, dp.stable_id);
      const std::string entity = d.name + "." + dp.name;
      if (ap == nullptr) {
        if (!dp.type.nullable) {
          Unsupported(entity, fmt::format("adding required property '{}' ({}) to an existing type needs a default; "
                                          "declare it nullable",
                                          dp.name, dp.type.ToString()),
                      "OG-MF-103");
        } else if (dp.type.is_blob() && !HasBlobProperty(a)) {
          // The table of a type without a Blob stores Lance file format
          // 2.1; a Blob is a blob v2 column, which needs 2.2, and Lance
          // refuses a table whose data files mix the two versions (verified
          // with Lance 8: "All data files must have the same version").
          // Converting would rewrite every data file of the type, which a
          // metadata-only apply does not do.
          Unsupported(entity, fmt::format("adding Blob property '{}' to existing {} type '{}' is not supported: its "
                                          "table stores Lance file format 2.1, a Blob column needs format 2.2, and "
                                          "Lance refuses a table mixing both; declare Blob properties when the type "
                                          "is created (or add a new type)",
                                          dp.name, type_kind, d.name));
        } else {
          Add({.kind = "add_property", .type_kind = type_kind, .type_name = d.name, .property = dp.name});
        }
        continue;
      }
      if (ap->name != dp.name) {
        Add({.kind = "rename_property", .type_kind = type_kind, .type_name = d.name, .from = ap->name,
             .property = dp.name});
      }
      if (!(ap->type == dp.type)) {
        if (ExtendsEnum(ap->type, dp.type)) {
          Add({.kind = "extend_enum", .type_kind = type_kind, .type_name = d.name, .property = dp.name});
        } else if (ap->type.WithNullable(false) == dp.type.WithNullable(false)) {
          Unsupported(entity, fmt::format("changing the nullability of '{}' ({} -> {})", dp.name, ap->type.ToString(),
                                          dp.type.ToString()),
                      ap->type.nullable ? std::optional<std::string>("OG-MF-104") : std::nullopt);
        } else {
          Unsupported(entity, fmt::format("changing the type of '{}' ({} -> {})", dp.name, ap->type.ToString(),
                                          dp.type.ToString()),
                      "OG-MF-106");
        }
      }
      if (ap->embed_source != dp.embed_source || ap->embed_model != dp.embed_model) {
        Unsupported(entity, "changing @embed source or model");
      }
      if (ap->description != dp.description || !SameMetadata(ap->annotations, dp.annotations)) {
        Add({.kind = "update_property_metadata", .type_kind = type_kind, .type_name = d.name, .property = dp.name});
      }
    }
    for (const Property& ap : a.properties) {
      if (FindById(d.properties, ap.stable_id) != nullptr) continue;
      if (populated_(table_key) && !allow_data_loss_) {
        Unsupported(d.name + "." + ap.name,
                    fmt::format("dropping property '{}' of populated type '{}' loses data; pass --allow-data-loss",
                                ap.name, a.name),
                    "OG-DS-104");
        continue;
      }
      Add({.kind = "drop_property", .type_kind = type_kind, .type_name = d.name, .property = ap.name,
           .mode = populated_(table_key) ? "hard" : "soft"});
    }
    auto uniques_a = TupleSet(a, a.uniques), uniques_d = TupleSet(d, d.uniques);
    for (const auto& u : uniques_d) {
      if (!uniques_a.count(u)) Unsupported(d.name, "adding a @unique constraint to an existing type");
    }
    for (const auto& u : uniques_a) {
      if (!uniques_d.count(u)) Unsupported(d.name, "removing a @unique constraint");
    }
    auto indexes_a = TupleSet(a, a.indexes);
    auto indexes_d = TupleSet(d, d.indexes);
    for (const auto& tuple : d.indexes) {
      if (!indexes_a.count(TupleIds(d, tuple))) {
        SchemaStep step{.kind = "add_constraint", .type_kind = type_kind, .type_name = d.name};
        step.columns = tuple;
        Add(std::move(step));
      }
    }
    for (const auto& i : indexes_a) {
      if (!indexes_d.count(i)) Unsupported(d.name, "removing an @index constraint");
    }
  }

  const PopulatedTable& populated_;
  bool allow_data_loss_;
  SchemaPlan plan_;
};

}  // namespace

std::string SchemaStep::Describe() const {
  const std::string prop = property ? type_name + "." + *property : type_name;
  if (kind == "add_type") return fmt::format("add {} type {}", type_kind, type_name);
  if (kind == "rename_type") return fmt::format("rename {} type {} -> {}", type_kind, from.value_or(""), type_name);
  if (kind == "drop_type") return fmt::format("drop {} type {} ({})", type_kind, type_name, mode.value_or("soft"));
  if (kind == "add_property") return fmt::format("add property {}", prop);
  if (kind == "rename_property") return fmt::format("rename property {}.{} -> {}", type_name, from.value_or(""), *property);
  if (kind == "drop_property") return fmt::format("drop property {} ({})", prop, mode.value_or("soft"));
  if (kind == "add_constraint") {
    return fmt::format("add constraint @index({}) on {}", fmt::join(columns.value_or(std::vector<std::string>{}), ", "),
                       type_name);
  }
  if (kind == "extend_enum") return fmt::format("extend enum {}", prop);
  if (kind == "update_type_metadata") return fmt::format("update metadata of {} type {}", type_kind, type_name);
  if (kind == "update_property_metadata") return fmt::format("update metadata of property {}", prop);
  if (code) {
    return fmt::format("unsupported change on {} [{}, {}]: {}", entity.value_or(""), *code, tier.value_or(""),
                       reason.value_or(""));
  }
  return fmt::format("unsupported change on {}: {}", entity.value_or(""), reason.value_or(""));
}

SchemaPlan PlanSchemaChange(const Catalog& accepted, const Catalog& desired, const PopulatedTable& populated,
                            bool allow_data_loss) {
  Planner planner(populated, allow_data_loss);
  planner.Interfaces(accepted, desired);
  planner.Nodes(accepted, desired);
  planner.Edges(accepted, desired);
  return planner.Finish();
}

}  // namespace omnigraph::compiler
