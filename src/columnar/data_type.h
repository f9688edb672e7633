// Logical column types with Arrow's names and physical layouts
// (architecture.md §2 columnar). Every layer above speaks these types; the
// Lance layer maps them to and from `logical_type` strings.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph {

enum class TypeId : uint8_t {
  kBool,           // bit-packed values, LSB first
  kInt32,
  kInt64,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kUtf8,           // int32 offsets + bytes
  kLargeBinary,    // int64 offsets + bytes
  kDate32,         // int32 days since 1970-01-01
  kDate64,         // int64 milliseconds since 1970-01-01T00:00:00Z
  kList,           // int32 offsets + one child array
  kFixedSizeList,  // `list_size` child values per slot, one child array
  kStruct,         // one child array per field
};

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

// String-to-string metadata attached to fields and schemas.
using Metadata = std::map<std::string, std::string>;

// A named, typed column. `id` is the Lance field id (-1 until assigned);
// `unenforced_primary_key` is Lance's primary-key marker (spec/lance-format.md §1.4).
struct Field {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  int32_t id = -1;
  Metadata metadata;
  bool unenforced_primary_key = false;

  Field() = default;
  Field(std::string name, DataTypePtr type, bool nullable = true, Metadata metadata = {})
      : name(std::move(name)), type(std::move(type)), nullable(nullable), metadata(std::move(metadata)) {}

  // Equality of name, type, nullability, metadata and the primary-key marker;
  // field ids are compared only when `compare_ids`.
  bool Equals(const Field& other, bool compare_ids = false) const;
  std::string ToString() const;
};

class DataType {
 public:
  static DataTypePtr Bool();
  static DataTypePtr Int32();
  static DataTypePtr Int64();
  static DataTypePtr UInt32();
  static DataTypePtr UInt64();
  static DataTypePtr Float32();
  static DataTypePtr Float64();
  static DataTypePtr Utf8();
  static DataTypePtr LargeBinary();
  static DataTypePtr Date32();
  static DataTypePtr Date64();
  static DataTypePtr List(Field item);
  static DataTypePtr List(DataTypePtr item_type, bool item_nullable = true);
  static DataTypePtr FixedSizeList(Field item, int32_t list_size);
  static DataTypePtr FixedSizeList(DataTypePtr item_type, int32_t list_size, bool item_nullable = true);
  static DataTypePtr Struct(std::vector<Field> fields);
  // A primitive type from its id; nullptr for nested ids.
  static DataTypePtr Primitive(TypeId id);

  TypeId id() const { return id_; }
  // Number of child values per slot; only for kFixedSizeList.
  int32_t list_size() const { return list_size_; }
  // Item field for list types; member fields for struct.
  const std::vector<Field>& children() const { return children_; }
  const Field& item() const { return children_.front(); }

  bool is_nested() const { return id_ == TypeId::kList || id_ == TypeId::kFixedSizeList || id_ == TypeId::kStruct; }
  bool is_binary_like() const { return id_ == TypeId::kUtf8 || id_ == TypeId::kLargeBinary; }
  // Width in bytes of one value for fixed-width primitives (0 for bool, which
  // is bit-packed, and for variable-width and nested types).
  int byte_width() const;

  bool Equals(const DataType& other) const;
  std::string ToString() const;

 private:
  DataType(TypeId id, int32_t list_size, std::vector<Field> children)
      : id_(id), list_size_(list_size), children_(std::move(children)) {}
  TypeId id_;
  int32_t list_size_ = 0;
  std::vector<Field> children_;
};

inline bool operator==(const DataType& a, const DataType& b) { return a.Equals(b); }

class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

// An ordered list of top-level fields plus schema metadata.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields, Metadata metadata = {})
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  const std::vector<Field>& fields() const { return fields_; }
  std::vector<Field>& mutable_fields() { return fields_; }
  const Metadata& metadata() const { return metadata_; }
  Metadata& mutable_metadata() { return metadata_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const Field& field(int i) const { return fields_[i]; }

  // Index of the top-level field named `name`, or -1.
  int FieldIndex(std::string_view name) const;
  const Field* FindField(std::string_view name) const;
  // Searches all nesting levels for the field with id `id`.
  const Field* FindFieldById(int32_t id) const;

  // Largest field id at any nesting level, or -1 when none is assigned. A
  // blob v2 field (columnar/blob_cell.h) counts with the two ids of its
  // Lance children: id + 2.
  int32_t MaxFieldId() const;
  // Gives every field without an id (at any level) the next unused id,
  // depth-first in pre-order, as Lance does (the item of a fixed-size list
  // is part of its leaf and gets none; a blob v2 field takes three
  // consecutive ids, for itself and its Lance children). Ids start at
  // max(MaxFieldId() + 1, first_id): callers pass the dataset's highest id
  // ever used + 1 so dropped ids are never reused.
  void AssignMissingFieldIds(int32_t first_id = 0);

  bool Equals(const Schema& other, bool compare_ids = false) const;
  std::string ToString() const;

 private:
  std::vector<Field> fields_;
  Metadata metadata_;
};

}  // namespace omnigraph
