// Property types of the schema language (spec/surface.md §1.3): the scalar
// kinds, lists of base scalars, enums, fixed-length float vectors, and the
// nullable flag, with their display spellings (used verbatim in error
// messages) and their physical Arrow/Lance column types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/data_type.h"
#include "columnar/scalar.h"

namespace omnigraph::compiler {

enum class ScalarKind { kString, kBool, kI32, kI64, kU32, kU64, kF32, kF64, kDate, kDateTime, kBlob };

// Schema spelling of a scalar kind: "String", "I32", "DateTime", ...
std::string_view ScalarKindName(ScalarKind kind);
// Inverse of ScalarKindName; nullopt for anything else (exact, case-sensitive).
std::optional<ScalarKind> ScalarKindFromName(std::string_view name);
// I32/I64/U32/U64/F32/F64.
bool IsNumeric(ScalarKind kind);
// I32/I64/U32/U64.
bool IsInteger(ScalarKind kind);
// Physical column type of one scalar value (§1.3): Utf8, Bool, Int32, Int64,
// UInt32, UInt64, Float32, Float64, Date32, Date64, LargeBinary (Blob).
DataTypePtr ScalarPhysicalType(ScalarKind kind);

// `value` (an Int, UInt or Double) in the value representation of numeric
// kind `kind` (query_ir.h: Int for I32/I64, UInt for U32/U64, Double for
// F32/F64) when a value of that kind equals it exactly; nullopt when none
// does: a fraction or an out-of-range number for an integer kind, an
// integer no double holds for F64, a value no float holds for F32. For
// comparisons by value (§2.4), where such a number equals no stored value.
std::optional<Scalar> ExactNumericValue(const Scalar& value, ScalarKind kind);

// The type of a property, parameter or expression. Value semantics.
struct PropertyType {
  enum class Shape { kScalar, kList, kEnum, kVector };

  Shape shape = Shape::kScalar;
  // The scalar kind; for lists the element kind; kString for enums; kF32 for
  // vectors (their element type).
  ScalarKind scalar = ScalarKind::kString;
  // Enum values, sorted and unique (only for kEnum).
  std::vector<std::string> enum_values;
  // Vector dimension (only for kVector, 1 ≤ N ≤ 2^31-1).
  int32_t vector_dim = 0;
  bool nullable = false;

  static PropertyType Scalar(ScalarKind kind, bool nullable = false);
  static PropertyType List(ScalarKind element, bool nullable = false);
  // `values` are sorted and de-duplicated here.
  static PropertyType Enum(std::vector<std::string> values, bool nullable = false);
  static PropertyType Vector(int32_t dim, bool nullable = false);

  bool is_scalar() const { return shape == Shape::kScalar; }
  bool is_list() const { return shape == Shape::kList; }
  bool is_enum() const { return shape == Shape::kEnum; }
  bool is_vector() const { return shape == Shape::kVector; }
  // A non-list Blob.
  bool is_blob() const { return shape == Shape::kScalar && scalar == ScalarKind::kBlob; }
  // A non-list numeric scalar.
  bool is_numeric() const { return shape == Shape::kScalar && IsNumeric(scalar); }
  // A non-list String (enums excluded).
  bool is_string() const { return shape == Shape::kScalar && scalar == ScalarKind::kString; }
  // String or enum, not a list: the text-valued types.
  bool is_text() const { return is_string() || is_enum(); }

  // Same type with the given nullability.
  PropertyType WithNullable(bool value) const;
  // The element type of a list (non-nullable scalar); the type itself otherwise.
  PropertyType Element() const;

  // Display spelling (§1.3): `String`, `[Date]`, `enum(a, b)`, `Vector(4)`,
  // with a `?` suffix when nullable.
  std::string ToString() const;
  // Physical column type (§1.3): the scalar types above, List<T> (child field
  // `item`, nullable) for lists, FixedSizeList<Float32, N> (child `item`,
  // nullable) for vectors, Utf8 for enums.
  DataTypePtr PhysicalType() const;

  // Exact equality, including nullability and the enum set (interface
  // conformance, §1.5).
  bool operator==(const PropertyType& other) const = default;
};

}  // namespace omnigraph::compiler
