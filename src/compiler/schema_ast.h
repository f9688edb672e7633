// Syntax tree of a `.pg` schema file (spec/surface.md §1.2), as written:
// declaration order, annotations as spelled, property-level constraint sugar
// not yet desugared, interfaces not yet injected. Produced by ParseSchema,
// consumed by CompileSchema (catalog.h), which applies every semantic rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/source.h"
#include "compiler/types.h"

namespace omnigraph::compiler::schema {

// An annotation argument: `ann_arg = literal | ident` or a kwarg value.
struct AnnotationValue {
  enum class Kind { kString, kInteger, kFloat, kBool, kIdent };
  Kind kind = Kind::kString;
  // Decoded text for strings; the token as written otherwise (`42`, `1.5`,
  // `true`, `body`).
  std::string text;
  SourceLocation location;
};

// `@name` or `@name(arg, key = literal, ...)`.
struct Annotation {
  std::string name;
  std::optional<AnnotationValue> value;                          // the positional argument
  std::vector<std::pair<std::string, AnnotationValue>> kwargs;  // in source order
  SourceLocation location;                                       // of the `@`
};

// `name: Type @ann ...`.
struct PropertyDecl {
  std::string name;
  PropertyType type;
  std::vector<Annotation> annotations;
  SourceLocation location;       // of the name
  SourceLocation type_location;  // of the type
};

// One bound of `@range`: an integer or a float as written (may be negative).
struct RangeBound {
  bool is_float = false;
  // An integer above the I64 range held exactly (U64 properties).
  bool is_unsigned = false;
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double float_value = 0;
  std::string text;

  double AsDouble() const {
    return is_float ? float_value : is_unsigned ? static_cast<double>(uint_value) : static_cast<double>(int_value);
  }
};

// A body-level constraint `@key(a, b)`, `@unique(...)`, `@index(...)`,
// `@range(p, lo..hi)`, `@check(p, "re")`, or one desugared from the
// property-level spellings `@key`/`@unique`/`@index`.
struct Constraint {
  enum class Kind { kKey, kUnique, kIndex, kRange, kCheck };
  Kind kind = Kind::kKey;
  // Property names for key/unique/index; the single property for range/check.
  std::vector<std::string> columns;
  std::vector<SourceLocation> column_locations;
  std::optional<RangeBound> min;  // range only
  std::optional<RangeBound> max;  // range only
  std::string pattern;            // check only (decoded)
  SourceLocation location;        // of the `@`
  bool from_property = false;     // desugared from a property-level annotation
};

struct InterfaceDecl {
  std::string name;
  std::vector<PropertyDecl> properties;
  SourceLocation location;  // of the name
};

struct NodeDecl {
  std::string name;
  std::vector<Annotation> annotations;  // type-level, after the name
  std::vector<std::pair<std::string, SourceLocation>> implements;
  std::vector<PropertyDecl> properties;
  std::vector<Constraint> constraints;  // body constraints in source order
  SourceLocation location;              // of the name
};

struct EdgeDecl {
  std::string name;
  std::string from_type;
  std::string to_type;
  SourceLocation from_location;
  SourceLocation to_location;
  uint32_t card_min = 0;
  std::optional<uint32_t> card_max;
  bool has_cardinality = false;
  SourceLocation card_location;
  std::vector<Annotation> annotations;
  std::vector<PropertyDecl> properties;
  std::vector<Constraint> constraints;
  SourceLocation location;  // of the name
};

struct Declaration {
  enum class Kind { kInterface, kNode, kEdge };
  Kind kind;
  size_t index;  // into SchemaFile::interfaces / nodes / edges
};

struct SchemaFile {
  std::vector<InterfaceDecl> interfaces;
  std::vector<NodeDecl> nodes;
  std::vector<EdgeDecl> edges;
  std::vector<Declaration> order;  // every declaration in source order
};

}  // namespace omnigraph::compiler::schema
