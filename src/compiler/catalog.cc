#include "compiler/catalog.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/blob_cell.h"
#include "compiler/entity_id.h"
#include "compiler/schema_parser.h"
#include "util/checksum.h"

namespace omnigraph::compiler {

namespace {

using schema::AnnotationValue;
using SAnnotation = schema::Annotation;
using SConstraint = schema::Constraint;
using schema::PropertyDecl;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

template <typename T>
const Property* FindIn(const std::vector<Property>& props, std::string_view name) {
  auto it = std::lower_bound(props.begin(), props.end(), name,
                             [](const Property& p, std::string_view n) { return p.name < n; });
  return (it != props.end() && it->name == name) ? &*it : nullptr;
}

// A node's properties while compiling: declared ones plus injected ones,
// with the constraints they imply.
struct WorkingNode {
  const schema::NodeDecl* decl = nullptr;
  std::vector<PropertyDecl> properties;                // declared, then injected
  std::vector<bool> declared;                          // parallel: declared directly
  std::vector<std::vector<std::string>> interfaces;   // parallel: interfaces declaring it
  std::vector<SConstraint> constraints;                // body, own sugar, injected sugar
};

struct WorkingEdge {
  const schema::EdgeDecl* decl = nullptr;
  std::vector<SConstraint> constraints;
};

// Desugars property-level @key / @unique / @index (no value) into
// single-column constraints (§1.4).
void Desugar(const PropertyDecl& prop, std::vector<SConstraint>* out) {
  for (const SAnnotation& ann : prop.annotations) {
    if (ann.value.has_value()) continue;
    SConstraint c;
    if (ann.name == "key") {
      c.kind = SConstraint::Kind::kKey;
    } else if (ann.name == "unique") {
      c.kind = SConstraint::Kind::kUnique;
    } else if (ann.name == "index") {
      c.kind = SConstraint::Kind::kIndex;
    } else {
      continue;
    }
    c.columns = {prop.name};
    c.column_locations = {ann.location};
    c.location = ann.location;
    c.from_property = true;
    out->push_back(std::move(c));
  }
}

}  // namespace

class CatalogBuilder {
 public:
  CatalogBuilder(const schema::SchemaFile& file, std::string_view source, std::string_view file_name)
      : file_(file), source_(source), file_name_(file_name) {}

  Result<Catalog> Build() {
    OG_RETURN_IF_ERROR(CheckDuplicateProperties());
    OG_RETURN_IF_ERROR(ResolveInterfaces());
    OG_RETURN_IF_ERROR(ValidateAnnotations());
    OG_RETURN_IF_ERROR(ValidateConstraints());
    OG_RETURN_IF_ERROR(CheckCatalogRules());
    return Assemble();
  }

 private:
  Status ParseError(SourceLocation loc, std::string_view what) const {
    return ParseErrorAt(file_name_, source_, loc, what);
  }
  Status CatalogError(SourceLocation loc, std::string_view what) const {
    return CatalogErrorAt(file_name_, source_, loc, what);
  }

  // Two declarations of one property name in a type are ambiguous; the
  // physical table could not hold both.
  Status CheckDuplicateProperties() const {
    auto check = [&](std::string_view kind, const std::string& owner,
                     const std::vector<PropertyDecl>& props) -> Status {
      std::set<std::string> seen;
      for (const PropertyDecl& p : props) {
        if (!seen.insert(p.name).second) {
          return ParseError(p.location, fmt::format("{} {} declares property '{}' more than once", kind, owner, p.name));
        }
      }
      return Status::OK();
    };
    for (const schema::Declaration& d : file_.order) {
      switch (d.kind) {
        case schema::Declaration::Kind::kInterface: {
          const auto& decl = file_.interfaces[d.index];
          OG_RETURN_IF_ERROR(check("interface", decl.name, decl.properties));
          break;
        }
        case schema::Declaration::Kind::kNode: {
          const auto& decl = file_.nodes[d.index];
          OG_RETURN_IF_ERROR(check("node", decl.name, decl.properties));
          break;
        }
        case schema::Declaration::Kind::kEdge: {
          const auto& decl = file_.edges[d.index];
          OG_RETURN_IF_ERROR(check("edge", decl.name, decl.properties));
          break;
        }
      }
    }
    return Status::OK();
  }

  const schema::InterfaceDecl* LookupInterface(std::string_view name) const {
    for (const auto& i : file_.interfaces) {
      if (i.name == name) return &i;  // the first declaration wins; duplicates fail later
    }
    return nullptr;
  }

  // §1.5: verify or inject every interface property.
  Status ResolveInterfaces() {
    nodes_.resize(file_.nodes.size());
    for (size_t n = 0; n < file_.nodes.size(); ++n) {
      const schema::NodeDecl& decl = file_.nodes[n];
      WorkingNode& node = nodes_[n];
      node.decl = &decl;
      node.properties = decl.properties;
      node.declared.assign(decl.properties.size(), true);
      node.interfaces.assign(decl.properties.size(), {});
      node.constraints = decl.constraints;
      for (const PropertyDecl& p : decl.properties) Desugar(p, &node.constraints);
      for (const auto& [iface_name, iface_loc] : decl.implements) {
        const schema::InterfaceDecl* iface = LookupInterface(iface_name);
        if (!iface) {
          return ParseError(iface_loc, fmt::format("node {} implements unknown interface '{}'", decl.name, iface_name));
        }
        for (const PropertyDecl& ip : iface->properties) {
          auto it = std::find_if(node.properties.begin(), node.properties.end(),
                                 [&](const PropertyDecl& p) { return p.name == ip.name; });
          if (it != node.properties.end()) {
            if (!(it->type == ip.type)) {
              // Point at the node's own declaration, or at the `implements`
              // entry when the clashing property was injected earlier.
              size_t index = static_cast<size_t>(it - node.properties.begin());
              return ParseError(node.declared[index] ? it->type_location : iface_loc,
                                fmt::format("node {} property '{}' has type {} but interface {} declares it as {}",
                                            decl.name, ip.name, it->type.ToString(), iface_name, ip.type.ToString()));
            }
            auto& list = node.interfaces[static_cast<size_t>(it - node.properties.begin())];
            if (std::find(list.begin(), list.end(), iface_name) == list.end()) list.push_back(iface_name);
            continue;
          }
          node.properties.push_back(ip);
          node.declared.push_back(false);
          node.interfaces.push_back({iface_name});
          Desugar(ip, &node.constraints);
        }
      }
    }
    edges_.resize(file_.edges.size());
    for (size_t e = 0; e < file_.edges.size(); ++e) {
      const schema::EdgeDecl& decl = file_.edges[e];
      edges_[e].decl = &decl;
      edges_[e].constraints = decl.constraints;
      // Later upstream schemas spell the endpoint columns `__src`/`__dst`;
      // both spellings name the physical src/dst columns.
      for (SConstraint& c : edges_[e].constraints) {
        for (std::string& col : c.columns) {
          if (col == "__src") col = "src";
          if (col == "__dst") col = "dst";
        }
      }
      for (const PropertyDecl& p : decl.properties) Desugar(p, &edges_[e].constraints);
    }
    return Status::OK();
  }

  // "<target> declares @x multiple times" / "@x on <target> requires a
  // non-empty value" for @description and @instruction.
  Status ValidateStringAnnotation(const std::vector<SAnnotation>& anns, std::string_view name,
                                  const std::string& target) const {
    bool seen = false;
    for (const SAnnotation& ann : anns) {
      if (ann.name != name) continue;
      if (seen) return ParseError(ann.location, fmt::format("{} declares @{} multiple times", target, name));
      if (!ann.value || IsBlank(ann.value->text)) {
        return ParseError(ann.location, fmt::format("@{} on {} requires a non-empty value", name, target));
      }
      seen = true;
    }
    return Status::OK();
  }

  Status ValidateRenameFrom(const std::vector<SAnnotation>& anns, const std::string& target) const {
    bool seen = false;
    for (const SAnnotation& ann : anns) {
      if (ann.name != "rename_from") continue;
      if (seen) return ParseError(ann.location, fmt::format("{} declares @rename_from multiple times", target));
      seen = true;
      if (!ann.value || IsBlank(ann.value->text)) {
        return ParseError(ann.location,
                          fmt::format("@rename_from on {} requires exactly one non-empty positional value", target));
      }
      if (!ann.kwargs.empty()) {
        return ParseError(ann.location, fmt::format("@rename_from on {} does not accept keyword arguments", target));
      }
    }
    return Status::OK();
  }

  // Keyword arguments of one annotation must be distinct.
  Status ValidateKwargs(const std::vector<SAnnotation>& anns) const {
    for (const SAnnotation& ann : anns) {
      std::set<std::string> keys;
      for (const auto& [key, value] : ann.kwargs) {
        if (!keys.insert(key).second) {
          return ParseError(value.location,
                            fmt::format("annotation @{} repeats keyword argument '{}'", ann.name, key));
        }
      }
    }
    return Status::OK();
  }

  Status ValidatePhysicalName(const PropertyDecl& prop, std::string_view type_name, bool is_edge) const {
    if (prop.name == "id" || (is_edge && (prop.name == "src" || prop.name == "dst"))) {
      return ParseError(prop.location, fmt::format("property {}.{} collides with the physical column '{}'", type_name,
                                                   prop.name, prop.name));
    }
    return Status::OK();
  }

  Status ValidatePropertyAnnotations(const PropertyDecl& prop, const std::string& type_name,
                                     const std::vector<PropertyDecl>& all, bool is_edge) const {
    const std::string target = fmt::format("property {}.{}", type_name, prop.name);
    const std::string dotted = fmt::format("{}.{}", type_name, prop.name);
    OG_RETURN_IF_ERROR(ValidatePhysicalName(prop, type_name, is_edge));
    OG_RETURN_IF_ERROR(ValidateKwargs(prop.annotations));
    OG_RETURN_IF_ERROR(ValidateStringAnnotation(prop.annotations, "description", target));
    OG_RETURN_IF_ERROR(ValidateRenameFrom(prop.annotations, target));
    const bool is_list = prop.type.is_list();
    const bool is_vector = prop.type.is_vector();
    const bool is_blob = prop.type.is_blob();
    bool key_seen = false, unique_seen = false, index_seen = false, embed_seen = false;
    for (const SAnnotation& ann : prop.annotations) {
      const std::string& n = ann.name;
      const bool constraint_like = n == "key" || n == "unique" || n == "index" || n == "embed";
      if (is_list && constraint_like) {
        return ParseError(ann.location, fmt::format("@{} is not supported on list property {}", n, dotted));
      }
      if (is_vector && (n == "key" || n == "unique")) {
        return ParseError(ann.location, fmt::format("@{} is not supported on vector property {}", n, dotted));
      }
      if (is_blob && constraint_like) {
        return ParseError(ann.location, fmt::format("@{} is not supported on blob property {}", n, dotted));
      }
      if (n == "instruction") {
        return ParseError(ann.location,
                          fmt::format("@instruction is only supported on node and edge types (property {})", dotted));
      }
      if (is_edge && (n == "key" || n == "embed")) {
        return ParseError(ann.location, fmt::format("@{} is not supported on edge properties (edge {})", n, dotted));
      }
      auto once = [&](bool* seen) -> Status {
        if (ann.value.has_value()) {
          return ParseError(ann.location, fmt::format("@{} on {} does not accept a value", n, dotted));
        }
        if (*seen) return ParseError(ann.location, fmt::format("property {} declares @{} multiple times", dotted, n));
        *seen = true;
        return Status::OK();
      };
      if (n == "key") {
        OG_RETURN_IF_ERROR(once(&key_seen));
      } else if (n == "unique") {
        OG_RETURN_IF_ERROR(once(&unique_seen));
      } else if (n == "index") {
        OG_RETURN_IF_ERROR(once(&index_seen));
      } else if (n == "embed") {
        if (embed_seen) {
          return ParseError(ann.location, fmt::format("property {} declares @embed multiple times", dotted));
        }
        embed_seen = true;
        if (!is_vector) {
          return ParseError(ann.location, fmt::format("@embed is only supported on vector properties ({})", dotted));
        }
        if (!ann.value) {
          return ParseError(ann.location, fmt::format("@embed on {} requires a source property name", dotted));
        }
        const std::string& source = ann.value->text;
        if (IsBlank(source)) {
          return ParseError(ann.location, fmt::format("@embed on {} requires a non-empty source property name", dotted));
        }
        auto it = std::find_if(all.begin(), all.end(), [&](const PropertyDecl& p) { return p.name == source; });
        if (it == all.end()) {
          return ParseError(ann.value->location,
                            fmt::format("@embed on {} references unknown source property {}", dotted, source));
        }
        if (!it->type.is_text()) {
          return ParseError(ann.value->location,
                            fmt::format("@embed source property {}.{} must be String", type_name, source));
        }
        for (const auto& [key, value] : ann.kwargs) {
          if (key != "model") {
            return ParseError(value.location,
                              fmt::format("@embed on {} has unknown argument '{}=' (only 'model' is supported)",
                                          dotted, key));
          }
        }
      }
    }
    return Status::OK();
  }

  Status ValidateAnnotations() const {
    for (const schema::Declaration& d : file_.order) {
      switch (d.kind) {
        case schema::Declaration::Kind::kInterface: {
          const auto& iface = file_.interfaces[d.index];
          for (const PropertyDecl& p : iface.properties) {
            const std::string target = fmt::format("property {}.{}", iface.name, p.name);
            OG_RETURN_IF_ERROR(ValidatePhysicalName(p, iface.name, false));
            OG_RETURN_IF_ERROR(ValidateKwargs(p.annotations));
            OG_RETURN_IF_ERROR(ValidateRenameFrom(p.annotations, target));
            OG_RETURN_IF_ERROR(ValidateStringAnnotation(p.annotations, "description", target));
          }
          break;
        }
        case schema::Declaration::Kind::kNode: {
          const WorkingNode& node = nodes_[d.index];
          const schema::NodeDecl& decl = *node.decl;
          const std::string target = "node " + decl.name;
          OG_RETURN_IF_ERROR(ValidateKwargs(decl.annotations));
          OG_RETURN_IF_ERROR(ValidateRenameFrom(decl.annotations, target));
          for (const SAnnotation& ann : decl.annotations) {
            if (ann.name == "key" || ann.name == "unique" || ann.name == "index" || ann.name == "embed") {
              return ParseError(ann.location,
                                fmt::format("@{} is only supported on node properties or as body constraint (node {})",
                                            ann.name, decl.name));
            }
          }
          OG_RETURN_IF_ERROR(ValidateStringAnnotation(decl.annotations, "description", target));
          OG_RETURN_IF_ERROR(ValidateStringAnnotation(decl.annotations, "instruction", target));
          for (const PropertyDecl& p : node.properties) {
            OG_RETURN_IF_ERROR(ValidatePropertyAnnotations(p, decl.name, node.properties, false));
          }
          break;
        }
        case schema::Declaration::Kind::kEdge: {
          const schema::EdgeDecl& decl = file_.edges[d.index];
          const std::string target = "edge " + decl.name;
          OG_RETURN_IF_ERROR(ValidateKwargs(decl.annotations));
          OG_RETURN_IF_ERROR(ValidateRenameFrom(decl.annotations, target));
          for (const SAnnotation& ann : decl.annotations) {
            if (ann.name == "key" || ann.name == "unique" || ann.name == "index" || ann.name == "embed") {
              return ParseError(ann.location,
                                fmt::format("@{} is not supported on edges (edge {})", ann.name, decl.name));
            }
          }
          OG_RETURN_IF_ERROR(ValidateStringAnnotation(decl.annotations, "description", target));
          OG_RETURN_IF_ERROR(ValidateStringAnnotation(decl.annotations, "instruction", target));
          for (const PropertyDecl& p : decl.properties) {
            OG_RETURN_IF_ERROR(ValidatePropertyAnnotations(p, decl.name, decl.properties, true));
          }
          break;
        }
      }
    }
    return Status::OK();
  }

  Status ValidateTypeConstraints(const std::vector<SConstraint>& constraints, const std::vector<PropertyDecl>& props,
                                 const std::string& type_name, bool is_edge) const {
    auto find = [&](const std::string& name) -> const PropertyDecl* {
      for (const PropertyDecl& p : props) {
        if (p.name == name) return &p;
      }
      return nullptr;
    };
    auto col_loc = [](const SConstraint& c, size_t i) {
      return i < c.column_locations.size() ? c.column_locations[i] : c.location;
    };
    auto no_repeats = [&](const SConstraint& c, std::string_view what) -> Status {
      std::set<std::string> seen;
      for (size_t i = 0; i < c.columns.size(); ++i) {
        if (!seen.insert(c.columns[i]).second) {
          return ParseError(col_loc(c, i), fmt::format("@{} on {} lists property '{}' more than once", what,
                                                       type_name, c.columns[i]));
        }
      }
      return Status::OK();
    };
    // @unique / @index columns: distinct, declared properties (an edge's
    // src/dst too), never Blob; with scalar_only, never a list or vector.
    auto check_columns = [&](const SConstraint& c, std::string_view what, bool scalar_only) -> Status {
      OG_RETURN_IF_ERROR(no_repeats(c, what));
      for (size_t i = 0; i < c.columns.size(); ++i) {
        const std::string& col = c.columns[i];
        if (is_edge && (col == "src" || col == "dst")) continue;
        const PropertyDecl* p = find(col);
        if (!p) {
          return ParseError(col_loc(c, i), fmt::format("@{} on {} references unknown property '{}'", what, type_name, col));
        }
        std::string_view unsupported = p->type.is_blob()                    ? "blob"
                                       : scalar_only && p->type.is_list()   ? "list"
                                       : scalar_only && p->type.is_vector() ? "vector"
                                                                            : "";
        if (!unsupported.empty()) {
          return ParseError(col_loc(c, i), fmt::format("@{} is not supported on {} property {}.{}", what, unsupported,
                                                       type_name, col));
        }
      }
      return Status::OK();
    };
    // Property-level keys are desugared after the body-level constraints,
    // so the second @key is the second in source order, not in this list.
    std::vector<const SConstraint*> keys;
    for (const SConstraint& c : constraints) {
      if (c.kind == SConstraint::Kind::kKey) keys.push_back(&c);
    }
    if (!is_edge && keys.size() > 1) {
      std::stable_sort(keys.begin(), keys.end(),
                       [](const SConstraint* a, const SConstraint* b) { return a->location.offset < b->location.offset; });
      return ParseError(keys[1]->location,
                        fmt::format("node type {} has multiple @key constraints; only one is supported", type_name));
    }
    for (const SConstraint& c : constraints) {
      switch (c.kind) {
        case SConstraint::Kind::kKey: {
          if (is_edge) {
            return ParseError(c.location,
                              fmt::format("@key constraint is not supported on edges (edge {})", type_name));
          }
          OG_RETURN_IF_ERROR(no_repeats(c, "key"));
          for (size_t i = 0; i < c.columns.size(); ++i) {
            const std::string& col = c.columns[i];
            const PropertyDecl* p = find(col);
            if (!p) {
              return ParseError(col_loc(c, i), fmt::format("@key on {} references unknown property '{}'", type_name, col));
            }
            if (p->type.nullable) {
              return ParseError(col_loc(c, i), fmt::format("@key property {}.{} cannot be nullable", type_name, col));
            }
            if (p->type.is_list()) {
              return ParseError(col_loc(c, i), fmt::format("@key is not supported on list property {}.{}", type_name, col));
            }
            if (p->type.is_vector()) {
              return ParseError(col_loc(c, i),
                                fmt::format("@key is not supported on vector property {}.{}", type_name, col));
            }
            if (p->type.is_blob()) {
              return ParseError(col_loc(c, i), fmt::format("@key is not supported on blob property {}.{}", type_name, col));
            }
          }
          break;
        }
        case SConstraint::Kind::kUnique:
          // Uniqueness needs a scalar value per row; lists, vectors and blobs
          // have none (§1.4: "treat as unsupported").
          OG_RETURN_IF_ERROR(check_columns(c, "unique", /*scalar_only=*/true));
          break;
        case SConstraint::Kind::kIndex:
          OG_RETURN_IF_ERROR(check_columns(c, "index", /*scalar_only=*/false));
          break;
        case SConstraint::Kind::kRange: {
          if (is_edge) {
            return ParseError(c.location,
                              fmt::format("@range constraint is not supported on edges (edge {})", type_name));
          }
          const std::string& col = c.columns.at(0);
          const PropertyDecl* p = find(col);
          if (!p) {
            return ParseError(col_loc(c, 0), fmt::format("@range on {} references unknown property '{}'", type_name, col));
          }
          if (!p->type.is_numeric()) {
            return ParseError(col_loc(c, 0), fmt::format("@range on {}.{} requires a numeric type, got {}", type_name,
                                                         col, p->type.ToString()));
          }
          if (c.min && c.max && c.min->AsDouble() > c.max->AsDouble()) {
            return ParseError(c.location, fmt::format("@range on {}.{} has min {} greater than max {}", type_name, col,
                                                      c.min->text, c.max->text));
          }
          break;
        }
        case SConstraint::Kind::kCheck: {
          if (is_edge) {
            return ParseError(c.location,
                              fmt::format("@check constraint is not supported on edges (edge {})", type_name));
          }
          const std::string& col = c.columns.at(0);
          const PropertyDecl* p = find(col);
          if (!p) {
            return ParseError(col_loc(c, 0), fmt::format("@check on {} references unknown property '{}'", type_name, col));
          }
          if (!p->type.is_text()) {
            return ParseError(col_loc(c, 0), fmt::format("@check on {}.{} requires String type, got {}", type_name, col,
                                                         p->type.ToString()));
          }
          break;
        }
      }
    }
    return Status::OK();
  }

  Status ValidateConstraints() const {
    for (const schema::Declaration& d : file_.order) {
      if (d.kind == schema::Declaration::Kind::kNode) {
        const WorkingNode& node = nodes_[d.index];
        OG_RETURN_IF_ERROR(ValidateTypeConstraints(node.constraints, node.properties, node.decl->name, false));
      } else if (d.kind == schema::Declaration::Kind::kEdge) {
        const WorkingEdge& edge = edges_[d.index];
        OG_RETURN_IF_ERROR(ValidateTypeConstraints(edge.constraints, edge.decl->properties, edge.decl->name, true));
      }
    }
    return Status::OK();
  }

  Status CheckCatalogRules() const {
    std::set<std::string> interfaces;
    for (const schema::Declaration& d : file_.order) {
      if (d.kind != schema::Declaration::Kind::kInterface) continue;
      const auto& decl = file_.interfaces[d.index];
      if (!interfaces.insert(decl.name).second) {
        return CatalogError(decl.location, fmt::format("duplicate interface type: {}", decl.name));
      }
    }
    std::set<std::string> nodes;
    for (const schema::Declaration& d : file_.order) {
      if (d.kind != schema::Declaration::Kind::kNode) continue;
      const auto& decl = file_.nodes[d.index];
      if (!nodes.insert(decl.name).second) {
        return CatalogError(decl.location, fmt::format("duplicate node type: {}", decl.name));
      }
    }
    std::set<std::string> edges;
    std::map<std::string, std::string> folded;
    for (const schema::Declaration& d : file_.order) {
      if (d.kind != schema::Declaration::Kind::kEdge) continue;
      const auto& decl = file_.edges[d.index];
      if (!edges.insert(decl.name).second) {
        return CatalogError(decl.location, fmt::format("duplicate edge type: {}", decl.name));
      }
      if (!nodes.count(decl.from_type)) {
        return CatalogError(decl.from_location,
                            fmt::format("edge {} references unknown source type: {}", decl.name, decl.from_type));
      }
      if (!nodes.count(decl.to_type)) {
        return CatalogError(decl.to_location,
                            fmt::format("edge {} references unknown target type: {}", decl.name, decl.to_type));
      }
      std::string key = Lower(decl.name);
      auto [it, inserted] = folded.emplace(key, decl.name);
      if (!inserted && it->second != decl.name) {
        return CatalogError(decl.location, fmt::format("edge name collision after case folding: '{}' conflicts with '{}'",
                                                       decl.name, it->second));
      }
    }
    return Status::OK();
  }

  static Annotation ConvertAnnotation(const SAnnotation& ann) {
    Annotation out;
    out.name = ann.name;
    if (ann.value) out.value = ann.value->text;
    for (const auto& [k, v] : ann.kwargs) out.kwargs.emplace_back(k, v.text);
    return out;
  }

  static std::optional<std::string> AnnotationText(const std::vector<SAnnotation>& anns, std::string_view name) {
    for (const SAnnotation& ann : anns) {
      if (ann.name == name && ann.value) return ann.value->text;
    }
    return std::nullopt;
  }

  static Property ConvertProperty(const PropertyDecl& decl) {
    Property p;
    p.name = decl.name;
    p.type = decl.type;
    p.location = decl.location;
    for (const SAnnotation& ann : decl.annotations) {
      p.annotations.push_back(ConvertAnnotation(ann));
      if (ann.name == "embed" && ann.value) {
        p.embed_source = ann.value->text;
        for (const auto& [k, v] : ann.kwargs) {
          if (k == "model") p.embed_model = v.text;
        }
      }
    }
    p.description = AnnotationText(decl.annotations, "description");
    p.rename_from = AnnotationText(decl.annotations, "rename_from");
    return p;
  }

  static void SortProperties(std::vector<Property>* props) {
    std::sort(props->begin(), props->end(), [](const Property& a, const Property& b) { return a.name < b.name; });
  }

  static void AddTuple(std::vector<std::vector<std::string>>* out, const std::vector<std::string>& cols) {
    if (std::find(out->begin(), out->end(), cols) == out->end()) out->push_back(cols);
  }

  static RangeBoundValue ConvertBound(const schema::RangeBound& b) {
    RangeBoundValue v;
    v.is_float = b.is_float;
    v.is_unsigned = b.is_unsigned;
    v.int_value = b.int_value;
    v.uint_value = b.uint_value;
    v.float_value = b.float_value;
    return v;
  }

  Result<Catalog> Assemble() {
    Catalog cat;
    cat.source_ = std::string(source_);
    cat.file_name_ = std::string(file_name_);

    for (const auto& decl : file_.interfaces) {
      if (cat.interface_index_.count(decl.name)) continue;
      InterfaceType t;
      t.name = decl.name;
      t.location = decl.location;
      for (const PropertyDecl& p : decl.properties) t.properties.push_back(ConvertProperty(p));
      SortProperties(&t.properties);
      cat.interface_index_[t.name] = 0;
      cat.interfaces_.push_back(std::move(t));
    }
    for (const WorkingNode& wn : nodes_) {
      const schema::NodeDecl& decl = *wn.decl;
      NodeType t;
      t.name = decl.name;
      t.location = decl.location;
      for (const SAnnotation& ann : decl.annotations) t.annotations.push_back(ConvertAnnotation(ann));
      for (const auto& [name, loc] : decl.implements) t.implements.push_back(name);
      t.description = AnnotationText(decl.annotations, "description");
      t.instruction = AnnotationText(decl.annotations, "instruction");
      t.rename_from = AnnotationText(decl.annotations, "rename_from");
      for (size_t i = 0; i < wn.properties.size(); ++i) {
        Property p = ConvertProperty(wn.properties[i]);
        p.declared_directly = wn.declared[i];
        p.interfaces = wn.interfaces[i];
        t.properties.push_back(std::move(p));
      }
      SortProperties(&t.properties);
      for (const SConstraint& c : wn.constraints) {
        switch (c.kind) {
          case SConstraint::Kind::kKey: {
            std::vector<std::string> key = c.columns;
            std::sort(key.begin(), key.end());  // stable property id order (lexical at init)
            t.key = key;
            AddTuple(&t.indexes, key);
            break;
          }
          case SConstraint::Kind::kUnique: AddTuple(&t.uniques, c.columns); break;
          case SConstraint::Kind::kIndex: AddTuple(&t.indexes, c.columns); break;
          case SConstraint::Kind::kRange: {
            RangeConstraint r;
            r.property = c.columns.at(0);
            if (c.min) r.min = ConvertBound(*c.min);
            if (c.max) r.max = ConvertBound(*c.max);
            t.ranges.push_back(std::move(r));
            break;
          }
          case SConstraint::Kind::kCheck: t.checks.push_back({c.columns.at(0), c.pattern}); break;
        }
      }
      cat.nodes_.push_back(std::move(t));
    }
    for (const WorkingEdge& we : edges_) {
      const schema::EdgeDecl& decl = *we.decl;
      EdgeType t;
      t.name = decl.name;
      t.location = decl.location;
      t.from_type = decl.from_type;
      t.to_type = decl.to_type;
      t.card_min = decl.card_min;
      t.card_max = decl.card_max;
      for (const SAnnotation& ann : decl.annotations) t.annotations.push_back(ConvertAnnotation(ann));
      t.description = AnnotationText(decl.annotations, "description");
      t.instruction = AnnotationText(decl.annotations, "instruction");
      t.rename_from = AnnotationText(decl.annotations, "rename_from");
      for (const PropertyDecl& p : decl.properties) t.properties.push_back(ConvertProperty(p));
      SortProperties(&t.properties);
      for (const SConstraint& c : we.constraints) {
        if (c.kind == SConstraint::Kind::kUnique) AddTuple(&t.uniques, c.columns);
        if (c.kind == SConstraint::Kind::kIndex) AddTuple(&t.indexes, c.columns);
      }
      cat.edges_.push_back(std::move(t));
    }

    // Lexical order of names, then identities from one sequence (catalog.h).
    std::sort(cat.interfaces_.begin(), cat.interfaces_.end(),
              [](const InterfaceType& a, const InterfaceType& b) { return a.name < b.name; });
    std::sort(cat.nodes_.begin(), cat.nodes_.end(), [](const NodeType& a, const NodeType& b) { return a.name < b.name; });
    std::sort(cat.edges_.begin(), cat.edges_.end(), [](const EdgeType& a, const EdgeType& b) { return a.name < b.name; });
    uint64_t next = 1;
    for (auto& t : cat.interfaces_) t.stable_id = static_cast<uint32_t>(next++);
    for (auto& t : cat.nodes_) t.stable_id = static_cast<uint32_t>(next++);
    for (auto& t : cat.edges_) t.stable_id = static_cast<uint32_t>(next++);
    for (auto& t : cat.interfaces_) {
      for (auto& p : t.properties) p.stable_id = static_cast<uint32_t>(next++);
    }
    for (auto& t : cat.nodes_) {
      for (auto& p : t.properties) p.stable_id = static_cast<uint32_t>(next++);
    }
    for (auto& t : cat.edges_) {
      for (auto& p : t.properties) p.stable_id = static_cast<uint32_t>(next++);
    }
    cat.next_identity_id_ = next;

    cat.interface_index_.clear();
    for (size_t i = 0; i < cat.interfaces_.size(); ++i) cat.interface_index_[cat.interfaces_[i].name] = i;
    for (size_t i = 0; i < cat.nodes_.size(); ++i) cat.node_index_[cat.nodes_[i].name] = i;
    for (size_t i = 0; i < cat.edges_.size(); ++i) cat.edge_index_[Lower(cat.edges_[i].name)] = i;
    return cat;
  }

  const schema::SchemaFile& file_;
  std::string_view source_;
  std::string_view file_name_;
  std::vector<WorkingNode> nodes_;
  std::vector<WorkingEdge> edges_;
};

// ---------------------------------------------------------------------------

std::string RangeBoundValue::ToString() const {
  if (is_unsigned) return std::to_string(uint_value);
  if (!is_float) return std::to_string(int_value);
  return FormatFloatShortest(float_value, /*is_f32=*/false).value_or("NaN");
}

const Property* InterfaceType::FindProperty(std::string_view name) const { return FindIn<Property>(properties, name); }
const Property* NodeType::FindProperty(std::string_view name) const { return FindIn<Property>(properties, name); }
const Property* EdgeType::FindProperty(std::string_view name) const { return FindIn<Property>(properties, name); }

bool NodeType::IsKeyProperty(std::string_view name) const {
  return std::find(key.begin(), key.end(), name) != key.end();
}

const NodeType* Catalog::FindNode(std::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : &nodes_[it->second];
}

const EdgeType* Catalog::FindEdge(std::string_view name) const {
  auto it = edge_index_.find(Lower(name));
  return it == edge_index_.end() ? nullptr : &edges_[it->second];
}

const InterfaceType* Catalog::FindInterface(std::string_view name) const {
  auto it = interface_index_.find(name);
  return it == interface_index_.end() ? nullptr : &interfaces_[it->second];
}

std::vector<const EdgeType*> Catalog::IncidentEdges(std::string_view node_name) const {
  std::vector<const EdgeType*> out;
  for (const EdgeType& e : edges_) {
    if (e.from_type == node_name || e.to_type == node_name) out.push_back(&e);
  }
  return out;
}

namespace {

using Json = nlohmann::ordered_json;

Json OptionalString(const std::optional<std::string>& s) { return s ? Json(*s) : Json(nullptr); }

Json TypeJson(const PropertyType& t) {
  Json j = Json::object();
  switch (t.shape) {
    case PropertyType::Shape::kScalar:
      j["kind"] = "scalar";
      j["scalar"] = std::string(ScalarKindName(t.scalar));
      break;
    case PropertyType::Shape::kList:
      j["kind"] = "list";
      j["element"] = std::string(ScalarKindName(t.scalar));
      break;
    case PropertyType::Shape::kEnum:
      j["kind"] = "enum";
      j["values"] = t.enum_values;
      break;
    case PropertyType::Shape::kVector:
      j["kind"] = "vector";
      j["dim"] = t.vector_dim;
      break;
  }
  j["nullable"] = t.nullable;
  j["display"] = t.ToString();
  return j;
}

Json AnnotationsJson(const std::vector<Annotation>& anns) {
  Json arr = Json::array();
  for (const Annotation& a : anns) {
    Json j = Json::object();
    j["name"] = a.name;
    j["value"] = OptionalString(a.value);
    Json kw = Json::array();
    for (const auto& [k, v] : a.kwargs) kw.push_back(Json::array({k, v}));
    j["kwargs"] = kw;
    arr.push_back(std::move(j));
  }
  return arr;
}

Json PropertiesJson(const std::vector<Property>& props) {
  Json arr = Json::array();
  for (const Property& p : props) {
    Json j = Json::object();
    j["name"] = p.name;
    j["property_id"] = p.stable_id;
    j["type"] = TypeJson(p.type);
    j["declared_directly"] = p.declared_directly;
    j["interfaces"] = p.interfaces;
    j["description"] = OptionalString(p.description);
    j["rename_from"] = OptionalString(p.rename_from);
    if (p.embed_source) {
      j["embed"] = Json{{"source", *p.embed_source}, {"model", OptionalString(p.embed_model)}};
    } else {
      j["embed"] = nullptr;
    }
    j["annotations"] = AnnotationsJson(p.annotations);
    arr.push_back(std::move(j));
  }
  return arr;
}

Json BoundJson(const std::optional<RangeBoundValue>& b) {
  if (!b) return nullptr;
  if (b->is_unsigned) return Json(b->uint_value);
  return b->is_float ? Json(b->float_value) : Json(b->int_value);
}

Json TuplesJson(const std::vector<std::vector<std::string>>& tuples) {
  Json arr = Json::array();
  for (const auto& t : tuples) arr.push_back(t);
  return arr;
}

}  // namespace

std::string Catalog::ToIrJson() const {
  Json root = Json::object();
  root["ir_version"] = 1;
  root["next_identity_id"] = next_identity_id_;
  Json ifaces = Json::array();
  for (const InterfaceType& t : interfaces_) {
    Json j = Json::object();
    j["name"] = t.name;
    j["type_id"] = t.stable_id;
    j["properties"] = PropertiesJson(t.properties);
    ifaces.push_back(std::move(j));
  }
  root["interfaces"] = std::move(ifaces);
  Json nodes = Json::array();
  for (const NodeType& t : nodes_) {
    Json j = Json::object();
    j["name"] = t.name;
    j["type_id"] = t.stable_id;
    j["implements"] = t.implements;
    j["description"] = OptionalString(t.description);
    j["instruction"] = OptionalString(t.instruction);
    j["rename_from"] = OptionalString(t.rename_from);
    j["annotations"] = AnnotationsJson(t.annotations);
    j["properties"] = PropertiesJson(t.properties);
    j["key"] = t.key;
    j["uniques"] = TuplesJson(t.uniques);
    j["indexes"] = TuplesJson(t.indexes);
    Json ranges = Json::array();
    for (const RangeConstraint& r : t.ranges) {
      ranges.push_back(Json{{"property", r.property}, {"min", BoundJson(r.min)}, {"max", BoundJson(r.max)}});
    }
    j["ranges"] = std::move(ranges);
    Json checks = Json::array();
    for (const CheckConstraint& c : t.checks) checks.push_back(Json{{"property", c.property}, {"pattern", c.pattern}});
    j["checks"] = std::move(checks);
    nodes.push_back(std::move(j));
  }
  root["nodes"] = std::move(nodes);
  Json edges = Json::array();
  for (const EdgeType& t : edges_) {
    Json j = Json::object();
    j["name"] = t.name;
    j["type_id"] = t.stable_id;
    j["from"] = t.from_type;
    j["to"] = t.to_type;
    j["card"] = Json{{"min", t.card_min}, {"max", t.card_max ? Json(*t.card_max) : Json(nullptr)}};
    j["description"] = OptionalString(t.description);
    j["instruction"] = OptionalString(t.instruction);
    j["rename_from"] = OptionalString(t.rename_from);
    j["annotations"] = AnnotationsJson(t.annotations);
    j["properties"] = PropertiesJson(t.properties);
    j["uniques"] = TuplesJson(t.uniques);
    j["indexes"] = TuplesJson(t.indexes);
    edges.push_back(std::move(j));
  }
  root["edges"] = std::move(edges);
  // Source text may hold arbitrary bytes; never throw across the API.
  return root.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string Catalog::IrHash() const { return fmt::format("{:016x}", Checksum64(ToIrJson())); }

namespace {

Field PropertyField(const Property& p) {
  Metadata metadata{{std::string(kStablePropertyIdKey), std::to_string(p.stable_id)}};
  // A Blob is persisted as a Lance blob v2 column (engine.md §1.2): its
  // LargeBinary field carries the extension name the Lance layer maps.
  if (p.type.is_blob()) return MakeBlobV2Field(p.name, p.type.nullable, std::move(metadata));
  return Field(p.name, p.type.PhysicalType(), p.type.nullable, std::move(metadata));
}

Field IdField(std::string name, bool primary_key) {
  Field f(std::move(name), DataType::Utf8(), /*nullable=*/false);
  f.unenforced_primary_key = primary_key;
  return f;
}

}  // namespace

Schema Catalog::NodeTableSchema(const NodeType& node) const {
  std::vector<Field> fields;
  fields.push_back(IdField("id", true));
  for (const Property& p : node.properties) fields.push_back(PropertyField(p));
  return Schema(std::move(fields));
}

Schema Catalog::EdgeTableSchema(const EdgeType& edge) const {
  std::vector<Field> fields;
  fields.push_back(IdField("id", true));
  fields.push_back(IdField("src", false));
  fields.push_back(IdField("dst", false));
  for (const Property& p : edge.properties) fields.push_back(PropertyField(p));
  return Schema(std::move(fields));
}

Result<Catalog> CompileSchemaFile(const schema::SchemaFile& file, std::string_view source,
                                  std::string_view file_name) {
  CatalogBuilder builder(file, source, file_name);
  return builder.Build();
}

Result<Catalog> CompileSchema(std::string_view source, std::string_view file_name) {
  source = WithoutByteOrderMark(source);
  OG_ASSIGN_OR_RETURN(schema::SchemaFile file, ParseSchema(source, file_name));
  return CompileSchemaFile(file, source, file_name);
}

}  // namespace omnigraph::compiler
