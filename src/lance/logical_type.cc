#include "lance/logical_type.h"

#include <charconv>

#include <fmt/format.h>

namespace omnigraph::lance {
namespace {

std::string_view PrimitiveName(TypeId id) {
  switch (id) {
    case TypeId::kBool: return "bool";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat32: return "float";
    case TypeId::kFloat64: return "double";
    case TypeId::kUtf8: return "string";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kDate32: return "date32:day";
    case TypeId::kDate64: return "date64:ms";
    default: return "";
  }
}

}  // namespace

Result<std::string> LogicalTypeName(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList: return std::string("list");
    case TypeId::kStruct: return std::string("struct");
    case TypeId::kFixedSizeList: {
      std::string_view item = PrimitiveName(type.item().type->id());
      if (item.empty() || type.item().type->is_binary_like()) {
        return InvalidArgument(fmt::format("fixed_size_list of {} cannot be stored", type.item().type->ToString()));
      }
      return fmt::format("fixed_size_list:{}:{}", item, type.list_size());
    }
    default: return std::string(PrimitiveName(type.id()));
  }
}

Result<DataTypePtr> ParseLeafLogicalType(std::string_view name) {
  static constexpr TypeId kPrimitives[] = {TypeId::kBool,    TypeId::kInt32,   TypeId::kInt64,      TypeId::kUInt32,
                                           TypeId::kUInt64,  TypeId::kFloat32, TypeId::kFloat64,    TypeId::kUtf8,
                                           TypeId::kLargeBinary, TypeId::kDate32, TypeId::kDate64};
  for (TypeId id : kPrimitives) {
    if (name == PrimitiveName(id)) return DataType::Primitive(id);
  }
  constexpr std::string_view kFsl = "fixed_size_list:";
  if (name.substr(0, kFsl.size()) == kFsl) {
    std::string_view rest = name.substr(kFsl.size());
    size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos) {
      std::string_view item = rest.substr(0, colon);
      std::string_view size_text = rest.substr(colon + 1);
      int32_t size = 0;
      auto [end, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
      if (ec == std::errc() && end == size_text.data() + size_text.size() && size > 0) {
        for (TypeId id : kPrimitives) {
          if (item == PrimitiveName(id) && id != TypeId::kUtf8 && id != TypeId::kLargeBinary) {
            return DataType::FixedSizeList(DataType::Primitive(id), size);
          }
        }
      }
    }
  }
  return Unsupported(fmt::format("logical type '{}' is not supported", name));
}

}  // namespace omnigraph::lance
