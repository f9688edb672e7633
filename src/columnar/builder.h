// Builders that assemble Arrays element by element or by copying ranges of
// other arrays. A builder is reusable: Finish() returns the array and resets.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "columnar/scalar.h"
#include "util/status.h"

namespace omnigraph {

// Growable validity bitmap that stays unallocated until the first null.
class ValidityBuilder {
 public:
  void Append(bool valid);
  void AppendN(bool valid, int64_t count);
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  // Null when every element is valid. Resets the builder.
  BufferPtr Finish();

 private:
  void Materialize();
  std::vector<uint8_t> bits_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  bool materialized_ = false;
};

class ArrayBuilder {
 public:
  // A builder for any supported type, nested builders included.
  static std::unique_ptr<ArrayBuilder> Make(const DataTypePtr& type);
  virtual ~ArrayBuilder() = default;

  const DataTypePtr& type() const { return type_; }
  int64_t length() const { return validity_.length(); }

  virtual void AppendNull() = 0;
  void AppendNulls(int64_t count) {
    for (int64_t i = 0; i < count; ++i) AppendNull();
  }
  // Appends elements [start, start + count) of `array`, which must have this
  // builder's type.
  virtual void AppendFrom(const Array& array, int64_t start, int64_t count) = 0;
  // Appends one value converted from `value`; InvalidArgument when the value
  // does not fit the type (wrong kind, out of range, wrong list size).
  virtual Status AppendScalar(const Scalar& value) = 0;
  virtual void Reserve(int64_t additional) {}
  virtual ArrayPtr Finish() = 0;

 protected:
  explicit ArrayBuilder(DataTypePtr type) : type_(std::move(type)) {}
  DataTypePtr type_;
  ValidityBuilder validity_;
};

// Int32, Int64, UInt32, UInt64, Float32, Float64, Date32 (int32), Date64 (int64).
template <typename T>
class NumericBuilder final : public ArrayBuilder {
 public:
  explicit NumericBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {}
  void Append(T value) {
    values_.push_back(value);
    validity_.Append(true);
  }
  void AppendValues(const T* values, int64_t count) {
    values_.insert(values_.end(), values, values + count);
    validity_.AppendN(true, count);
  }
  void AppendNull() override {
    values_.push_back(T{});
    validity_.Append(false);
  }
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  void Reserve(int64_t additional) override { values_.reserve(values_.size() + additional); }
  ArrayPtr Finish() override;

 private:
  std::vector<T> values_;
};

using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using Float32Builder = NumericBuilder<float>;
using Float64Builder = NumericBuilder<double>;

class BoolBuilder final : public ArrayBuilder {
 public:
  BoolBuilder() : ArrayBuilder(DataType::Bool()) {}
  void Append(bool value);
  void AppendNull() override;
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  ArrayPtr Finish() override;

 private:
  std::vector<uint8_t> bits_;
  int64_t count_ = 0;
};

// Utf8 (int32 offsets) and LargeBinary (int64 offsets).
class BinaryBuilder final : public ArrayBuilder {
 public:
  explicit BinaryBuilder(DataTypePtr type);
  void Append(std::string_view value);
  void AppendNull() override;
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  void Reserve(int64_t additional) override { offsets_.reserve(offsets_.size() + additional); }
  void ReserveBytes(int64_t bytes) { bytes_.reserve(bytes_.size() + bytes); }
  int64_t value_bytes() const { return static_cast<int64_t>(bytes_.size()); }
  ArrayPtr Finish() override;

 private:
  bool large_;
  std::vector<int64_t> offsets_{0};
  std::vector<uint8_t> bytes_;
};

// List<T>: call Append() to open a list, then append its elements to child().
class ListBuilder final : public ArrayBuilder {
 public:
  explicit ListBuilder(DataTypePtr type);
  void Append();
  void AppendNull() override;
  ArrayBuilder* child() { return child_.get(); }
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  ArrayPtr Finish() override;

 private:
  void CloseOpenList();
  std::unique_ptr<ArrayBuilder> child_;
  std::vector<int32_t> offsets_{0};
  bool open_ = false;
};

// FixedSizeList<T, n>: call Append() then append exactly n values to child().
class FixedSizeListBuilder final : public ArrayBuilder {
 public:
  explicit FixedSizeListBuilder(DataTypePtr type);
  void Append() { validity_.Append(true); }
  // Appends a whole valid slot of float values (vectors).
  void AppendFloats(const float* values);
  void AppendNull() override;
  ArrayBuilder* child() { return child_.get(); }
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  ArrayPtr Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> child_;
};

// Struct: call Append(valid) then append one value to every child (a null
// struct still appends a value, usually null, to each child).
class StructBuilder final : public ArrayBuilder {
 public:
  explicit StructBuilder(DataTypePtr type);
  void Append(bool valid = true) { validity_.Append(valid); }
  void AppendNull() override;
  ArrayBuilder* child(int i) { return children_[i].get(); }
  int num_children() const { return static_cast<int>(children_.size()); }
  void AppendFrom(const Array& array, int64_t start, int64_t count) override;
  Status AppendScalar(const Scalar& value) override;
  ArrayPtr Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

// Builds an array from scalars (tests and small literals).
Result<ArrayPtr> ArrayFromScalars(const DataTypePtr& type, const std::vector<Scalar>& values);

}  // namespace omnigraph
