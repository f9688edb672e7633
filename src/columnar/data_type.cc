#include "columnar/data_type.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "columnar/blob_cell.h"

namespace omnigraph {
namespace {

DataTypePtr Singleton(TypeId id) {
  // Primitive types are immutable and shared.
  struct Holder {
    DataTypePtr types[11];
  };
  static const Holder* holder = [] {
    auto* h = new Holder();
    for (int i = 0; i <= static_cast<int>(TypeId::kDate64); ++i) {
      h->types[i] = DataType::Primitive(static_cast<TypeId>(i));
    }
    return h;
  }();
  return holder->types[static_cast<int>(id)];
}

std::string_view TypeName(TypeId id) {
  switch (id) {
    case TypeId::kBool: return "bool";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat32: return "float32";
    case TypeId::kFloat64: return "float64";
    case TypeId::kUtf8: return "utf8";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kDate32: return "date32";
    case TypeId::kDate64: return "date64";
    case TypeId::kList: return "list";
    case TypeId::kFixedSizeList: return "fixed_size_list";
    case TypeId::kStruct: return "struct";
  }
  return "?";
}

}  // namespace

bool Field::Equals(const Field& other, bool compare_ids) const {
  if (name != other.name || nullable != other.nullable || metadata != other.metadata ||
      unenforced_primary_key != other.unenforced_primary_key) {
    return false;
  }
  if (compare_ids && id != other.id) return false;
  if (!type || !other.type) return type == other.type;
  if (type->id() != other.type->id() || type->list_size() != other.type->list_size() ||
      type->children().size() != other.type->children().size()) {
    return false;
  }
  for (size_t i = 0; i < type->children().size(); ++i) {
    if (!type->children()[i].Equals(other.type->children()[i], compare_ids)) return false;
  }
  return true;
}

std::string Field::ToString() const {
  return fmt::format("{}: {}{}", name, type ? type->ToString() : "null", nullable ? "" : " not null");
}

DataTypePtr DataType::Primitive(TypeId id) {
  if (id > TypeId::kDate64) return nullptr;
  return DataTypePtr(new DataType(id, 0, {}));
}

DataTypePtr DataType::Bool() { return Singleton(TypeId::kBool); }
DataTypePtr DataType::Int32() { return Singleton(TypeId::kInt32); }
DataTypePtr DataType::Int64() { return Singleton(TypeId::kInt64); }
DataTypePtr DataType::UInt32() { return Singleton(TypeId::kUInt32); }
DataTypePtr DataType::UInt64() { return Singleton(TypeId::kUInt64); }
DataTypePtr DataType::Float32() { return Singleton(TypeId::kFloat32); }
DataTypePtr DataType::Float64() { return Singleton(TypeId::kFloat64); }
DataTypePtr DataType::Utf8() { return Singleton(TypeId::kUtf8); }
DataTypePtr DataType::LargeBinary() { return Singleton(TypeId::kLargeBinary); }
DataTypePtr DataType::Date32() { return Singleton(TypeId::kDate32); }
DataTypePtr DataType::Date64() { return Singleton(TypeId::kDate64); }

DataTypePtr DataType::List(Field item) {
  return DataTypePtr(new DataType(TypeId::kList, 0, {std::move(item)}));
}

DataTypePtr DataType::List(DataTypePtr item_type, bool item_nullable) {
  return List(Field("item", std::move(item_type), item_nullable));
}

DataTypePtr DataType::FixedSizeList(Field item, int32_t list_size) {
  return DataTypePtr(new DataType(TypeId::kFixedSizeList, list_size, {std::move(item)}));
}

DataTypePtr DataType::FixedSizeList(DataTypePtr item_type, int32_t list_size, bool item_nullable) {
  return FixedSizeList(Field("item", std::move(item_type), item_nullable), list_size);
}

DataTypePtr DataType::Struct(std::vector<Field> fields) {
  return DataTypePtr(new DataType(TypeId::kStruct, 0, std::move(fields)));
}

int DataType::byte_width() const {
  switch (id_) {
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32: return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kDate64: return 8;
    default: return 0;
  }
}

bool DataType::Equals(const DataType& other) const {
  if (id_ != other.id_ || list_size_ != other.list_size_ || children_.size() != other.children_.size()) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    // Child names matter for structs; list item names are conventional.
    if (id_ == TypeId::kStruct && children_[i].name != other.children_[i].name) return false;
    if (children_[i].nullable != other.children_[i].nullable) return false;
    if (!children_[i].type->Equals(*other.children_[i].type)) return false;
  }
  return true;
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kList: return fmt::format("list<{}>", item().type->ToString());
    case TypeId::kFixedSizeList: return fmt::format("fixed_size_list<{}, {}>", item().type->ToString(), list_size_);
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i) out += ", ";
        out += children_[i].ToString();
      }
      return out + ">";
    }
    default: return std::string(TypeName(id_));
  }
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const Field* Schema::FindField(std::string_view name) const {
  int i = FieldIndex(name);
  return i < 0 ? nullptr : &fields_[i];
}

namespace {

const Field* FindByIdIn(const std::vector<Field>& fields, int32_t id) {
  for (const Field& f : fields) {
    if (f.id == id) return &f;
    if (f.type) {
      if (const Field* found = FindByIdIn(f.type->children(), id)) return found;
    }
  }
  return nullptr;
}

int32_t MaxIdIn(const std::vector<Field>& fields) {
  int32_t max_id = -1;
  for (const Field& f : fields) {
    max_id = std::max(max_id, f.id);
    // A blob v2 field also owns the ids of its struct's two children.
    if (f.id >= 0 && IsBlobV2Field(f)) max_id = std::max(max_id, f.id + kBlobV2FieldIds - 1);
    if (f.type) max_id = std::max(max_id, MaxIdIn(f.type->children()));
  }
  return max_id;
}

// Rebuilds `type` with ids assigned to children lacking one.
DataTypePtr AssignIdsInType(const DataTypePtr& type, int32_t* next_id);

void AssignIdsInField(Field* field, int32_t* next_id) {
  if (field->id < 0) {
    field->id = *next_id;
    // A blob v2 field is a struct of two children in Lance's schema.
    *next_id += IsBlobV2Field(*field) ? kBlobV2FieldIds : 1;
  }
  // Lance stores a fixed-size list as one leaf field: its item has no id.
  if (field->type && (field->type->id() == TypeId::kList || field->type->id() == TypeId::kStruct)) {
    field->type = AssignIdsInType(field->type, next_id);
  }
}

DataTypePtr AssignIdsInType(const DataTypePtr& type, int32_t* next_id) {
  std::vector<Field> children = type->children();
  for (Field& child : children) AssignIdsInField(&child, next_id);
  switch (type->id()) {
    case TypeId::kList: return DataType::List(std::move(children.front()));
    case TypeId::kFixedSizeList: return DataType::FixedSizeList(std::move(children.front()), type->list_size());
    case TypeId::kStruct: return DataType::Struct(std::move(children));
    default: return type;
  }
}

}  // namespace

const Field* Schema::FindFieldById(int32_t id) const { return FindByIdIn(fields_, id); }

int32_t Schema::MaxFieldId() const { return MaxIdIn(fields_); }

void Schema::AssignMissingFieldIds(int32_t first_id) {
  int32_t next_id = std::max(MaxFieldId() + 1, first_id);
  for (Field& field : fields_) AssignIdsInField(&field, &next_id);
}

bool Schema::Equals(const Schema& other, bool compare_ids) const {
  if (fields_.size() != other.fields_.size() || metadata_ != other.metadata_) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i], compare_ids)) return false;
  }
  return true;
}

std::string Schema::ToString() const {
  std::string out;
  for (const Field& f : fields_) {
    if (!out.empty()) out += "\n";
    out += f.ToString();
  }
  return out;
}

}  // namespace omnigraph
