#include "compiler/types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace omnigraph::compiler {

namespace {

struct KindName {
  ScalarKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {ScalarKind::kString, "String"}, {ScalarKind::kBool, "Bool"},         {ScalarKind::kI32, "I32"},
    {ScalarKind::kI64, "I64"},       {ScalarKind::kU32, "U32"},           {ScalarKind::kU64, "U64"},
    {ScalarKind::kF32, "F32"},       {ScalarKind::kF64, "F64"},           {ScalarKind::kDate, "Date"},
    {ScalarKind::kDateTime, "DateTime"}, {ScalarKind::kBlob, "Blob"},
};

}  // namespace

std::string_view ScalarKindName(ScalarKind kind) {
  for (const KindName& entry : kKindNames) {
    if (entry.kind == kind) return entry.name;
  }
  return "?";
}

std::optional<ScalarKind> ScalarKindFromName(std::string_view name) {
  for (const KindName& entry : kKindNames) {
    if (entry.name == name) return entry.kind;
  }
  return std::nullopt;
}

bool IsNumeric(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64:
    case ScalarKind::kF32:
    case ScalarKind::kF64: return true;
    default: return false;
  }
}

bool IsInteger(ScalarKind kind) {
  return kind == ScalarKind::kI32 || kind == ScalarKind::kI64 || kind == ScalarKind::kU32 || kind == ScalarKind::kU64;
}

DataTypePtr ScalarPhysicalType(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kString: return DataType::Utf8();
    case ScalarKind::kBool: return DataType::Bool();
    case ScalarKind::kI32: return DataType::Int32();
    case ScalarKind::kI64: return DataType::Int64();
    case ScalarKind::kU32: return DataType::UInt32();
    case ScalarKind::kU64: return DataType::UInt64();
    case ScalarKind::kF32: return DataType::Float32();
    case ScalarKind::kF64: return DataType::Float64();
    case ScalarKind::kDate: return DataType::Date32();
    case ScalarKind::kDateTime: return DataType::Date64();
    case ScalarKind::kBlob: return DataType::LargeBinary();
  }
  return DataType::Utf8();
}

std::optional<Scalar> ExactNumericValue(const Scalar& value, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kI32:
    case ScalarKind::kI64: {
      std::optional<int64_t> v = value.ExactInt64();
      if (!v || (kind == ScalarKind::kI32 && (*v < INT32_MIN || *v > INT32_MAX))) return std::nullopt;
      return Scalar::Int(*v);
    }
    case ScalarKind::kU32:
    case ScalarKind::kU64: {
      std::optional<uint64_t> v = value.ExactUInt64();
      if (!v || (kind == ScalarKind::kU32 && *v > UINT32_MAX)) return std::nullopt;
      return Scalar::UInt(*v);
    }
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      std::optional<double> v = value.ExactDouble();
      if (!v) return std::nullopt;
      // NaN and the infinities are values of both float kinds; a finite
      // number must be in the float range and survive narrowing unchanged.
      if (kind == ScalarKind::kF32 && std::isfinite(*v) &&
          (std::fabs(*v) > std::numeric_limits<float>::max() || static_cast<double>(static_cast<float>(*v)) != *v)) {
        return std::nullopt;
      }
      return Scalar::Double(*v);
    }
    default: return std::nullopt;
  }
}

PropertyType PropertyType::Scalar(ScalarKind kind, bool nullable) {
  PropertyType t;
  t.shape = Shape::kScalar;
  t.scalar = kind;
  t.nullable = nullable;
  return t;
}

PropertyType PropertyType::List(ScalarKind element, bool nullable) {
  PropertyType t;
  t.shape = Shape::kList;
  t.scalar = element;
  t.nullable = nullable;
  return t;
}

PropertyType PropertyType::Enum(std::vector<std::string> values, bool nullable) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  PropertyType t;
  t.shape = Shape::kEnum;
  t.scalar = ScalarKind::kString;
  t.enum_values = std::move(values);
  t.nullable = nullable;
  return t;
}

PropertyType PropertyType::Vector(int32_t dim, bool nullable) {
  PropertyType t;
  t.shape = Shape::kVector;
  t.scalar = ScalarKind::kF32;
  t.vector_dim = dim;
  t.nullable = nullable;
  return t;
}

PropertyType PropertyType::WithNullable(bool value) const {
  PropertyType t = *this;
  t.nullable = value;
  return t;
}

PropertyType PropertyType::Element() const {
  if (shape == Shape::kList) return Scalar(scalar, false);
  return *this;
}

std::string PropertyType::ToString() const {
  std::string out;
  switch (shape) {
    case Shape::kScalar: out = std::string(ScalarKindName(scalar)); break;
    case Shape::kList: out = "[" + std::string(ScalarKindName(scalar)) + "]"; break;
    case Shape::kVector: out = "Vector(" + std::to_string(vector_dim) + ")"; break;
    case Shape::kEnum: {
      out = "enum(";
      for (size_t i = 0; i < enum_values.size(); ++i) {
        if (i) out += ", ";
        out += enum_values[i];
      }
      out += ")";
      break;
    }
  }
  if (nullable) out += "?";
  return out;
}

DataTypePtr PropertyType::PhysicalType() const {
  switch (shape) {
    case Shape::kScalar: return ScalarPhysicalType(scalar);
    case Shape::kEnum: return DataType::Utf8();
    case Shape::kList: return DataType::List(ScalarPhysicalType(scalar), /*item_nullable=*/true);
    case Shape::kVector: return DataType::FixedSizeList(DataType::Float32(), vector_dim, /*item_nullable=*/true);
  }
  return DataType::Utf8();
}

}  // namespace omnigraph::compiler
