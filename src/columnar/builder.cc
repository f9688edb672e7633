#include "columnar/builder.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

namespace omnigraph {

// ---------------------------------------------------------------- validity

void ValidityBuilder::Materialize() {
  bits_.assign(BitmapBytes(length_ + 1), 0);
  for (int64_t i = 0; i < length_; ++i) SetBit(bits_.data(), i);
  materialized_ = true;
}

void ValidityBuilder::Append(bool valid) {
  if (!valid && !materialized_) Materialize();
  if (materialized_) {
    if (static_cast<int64_t>(bits_.size()) * 8 <= length_) bits_.resize(bits_.size() * 2 + 1, 0);
    if (valid) SetBit(bits_.data(), length_);
  }
  if (!valid) ++null_count_;
  ++length_;
}

void ValidityBuilder::AppendN(bool valid, int64_t count) {
  if (count <= 0) return;
  if (!valid && !materialized_) Materialize();
  if (!materialized_) {
    length_ += count;
    return;
  }
  for (int64_t i = 0; i < count; ++i) Append(valid);
}

BufferPtr ValidityBuilder::Finish() {
  BufferPtr result;
  if (materialized_ && null_count_ > 0) {
    bits_.resize(BitmapBytes(length_));
    result = Buffer::FromVector(std::move(bits_));
  }
  bits_ = {};
  length_ = 0;
  null_count_ = 0;
  materialized_ = false;
  return result;
}

// ---------------------------------------------------------------- numeric

template <typename T>
void NumericBuilder<T>::AppendFrom(const Array& array, int64_t start, int64_t count) {
  const T* src = array.raw_values<T>() + start;
  values_.insert(values_.end(), src, src + count);
  if (array.null_count() == 0) {
    validity_.AppendN(true, count);
  } else {
    for (int64_t i = 0; i < count; ++i) validity_.Append(array.IsValid(start + i));
  }
}

namespace {

template <typename T>
bool ScalarTo(const Scalar& value, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_numeric()) return false;
    double d = value.AsDouble();
    if (std::is_same_v<T, float> && std::isfinite(d) &&
        std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
      return false;
    }
    *out = static_cast<T>(d);
    return true;
  } else {
    if (value.is_int()) {
      int64_t v = value.int_value();
      if (v < static_cast<int64_t>(std::numeric_limits<T>::min())) return false;
      if (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      *out = static_cast<T>(v);
      return true;
    }
    if (value.is_uint()) {
      uint64_t v = value.uint_value();
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      *out = static_cast<T>(v);
      return true;
    }
    return false;
  }
}

}  // namespace

template <typename T>
Status NumericBuilder<T>::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  T converted;
  if (!ScalarTo<T>(value, &converted)) {
    return InvalidArgument(fmt::format("value {} does not fit type {}", value.ToString(), type_->ToString()));
  }
  Append(converted);
  return Status::OK();
}

template <typename T>
ArrayPtr NumericBuilder<T>::Finish() {
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  std::vector<uint8_t> bytes(values_.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values_.data(), bytes.size());
  values_.clear();
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), nullptr,
                                 Buffer::FromVector(std::move(bytes)), std::vector<ArrayPtr>{});
}

template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// ---------------------------------------------------------------- bool

void BoolBuilder::Append(bool value) {
  if (static_cast<int64_t>(bits_.size()) * 8 <= count_) bits_.resize(bits_.size() * 2 + 1, 0);
  if (value) SetBit(bits_.data(), count_);
  ++count_;
  validity_.Append(true);
}

void BoolBuilder::AppendNull() {
  if (static_cast<int64_t>(bits_.size()) * 8 <= count_) bits_.resize(bits_.size() * 2 + 1, 0);
  ++count_;
  validity_.Append(false);
}

void BoolBuilder::AppendFrom(const Array& array, int64_t start, int64_t count) {
  for (int64_t i = start; i < start + count; ++i) {
    if (array.IsNull(i)) {
      AppendNull();
    } else {
      Append(array.BoolValue(i));
    }
  }
}

Status BoolBuilder::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  if (!value.is_bool()) return InvalidArgument(fmt::format("value {} is not a bool", value.ToString()));
  Append(value.bool_value());
  return Status::OK();
}

ArrayPtr BoolBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  bits_.resize(BitmapBytes(count_));
  auto values = Buffer::FromVector(std::move(bits_));
  bits_ = {};
  count_ = 0;
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), nullptr, std::move(values),
                                 std::vector<ArrayPtr>{});
}

// ---------------------------------------------------------------- binary

BinaryBuilder::BinaryBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), large_(type_->id() == TypeId::kLargeBinary) {}

void BinaryBuilder::Append(std::string_view value) {
  bytes_.insert(bytes_.end(), value.begin(), value.end());
  offsets_.push_back(static_cast<int64_t>(bytes_.size()));
  validity_.Append(true);
}

void BinaryBuilder::AppendNull() {
  offsets_.push_back(static_cast<int64_t>(bytes_.size()));
  validity_.Append(false);
}

void BinaryBuilder::AppendFrom(const Array& array, int64_t start, int64_t count) {
  if (count <= 0) return;
  int64_t base = array.ValueOffset(start);
  int64_t end = array.ValueOffset(start + count);
  int64_t shift = static_cast<int64_t>(bytes_.size()) - base;
  bytes_.insert(bytes_.end(), array.values()->data() + base, array.values()->data() + end);
  for (int64_t i = start + 1; i <= start + count; ++i) offsets_.push_back(array.ValueOffset(i) + shift);
  if (array.null_count() == 0) {
    validity_.AppendN(true, count);
  } else {
    for (int64_t i = start; i < start + count; ++i) validity_.Append(array.IsValid(i));
  }
}

Status BinaryBuilder::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  if (!value.is_string()) return InvalidArgument(fmt::format("value {} is not a string", value.ToString()));
  Append(value.string_value());
  return Status::OK();
}

ArrayPtr BinaryBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  std::vector<uint8_t> offsets;
  if (large_) {
    offsets.resize(offsets_.size() * 8);
    std::memcpy(offsets.data(), offsets_.data(), offsets.size());
  } else {
    offsets.resize(offsets_.size() * 4);
    for (size_t i = 0; i < offsets_.size(); ++i) StoreLE<int32_t>(offsets.data() + i * 4, static_cast<int32_t>(offsets_[i]));
  }
  auto values = Buffer::FromVector(std::move(bytes_));
  bytes_ = {};
  offsets_.assign(1, 0);
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), Buffer::FromVector(std::move(offsets)),
                                 std::move(values), std::vector<ArrayPtr>{});
}

// ---------------------------------------------------------------- list

ListBuilder::ListBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), child_(ArrayBuilder::Make(type_->item().type)) {}

void ListBuilder::CloseOpenList() {
  if (open_) {
    offsets_.push_back(static_cast<int32_t>(child_->length()));
    open_ = false;
  }
}

void ListBuilder::Append() {
  CloseOpenList();
  validity_.Append(true);
  open_ = true;
}

void ListBuilder::AppendNull() {
  CloseOpenList();
  validity_.Append(false);
  offsets_.push_back(static_cast<int32_t>(child_->length()));
}

void ListBuilder::AppendFrom(const Array& array, int64_t start, int64_t count) {
  CloseOpenList();
  if (count <= 0) return;
  int64_t child_start = array.ValueOffset(start);
  int64_t child_end = array.ValueOffset(start + count);
  int64_t shift = child_->length() - child_start;
  child_->AppendFrom(*array.child(0), child_start, child_end - child_start);
  for (int64_t i = start + 1; i <= start + count; ++i) {
    offsets_.push_back(static_cast<int32_t>(array.ValueOffset(i) + shift));
  }
  for (int64_t i = start; i < start + count; ++i) validity_.Append(array.IsValid(i));
}

Status ListBuilder::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  if (!value.is_nested()) return InvalidArgument(fmt::format("value {} is not a list", value.ToString()));
  Append();
  for (const Scalar& item : value.nested()) OG_RETURN_IF_ERROR(child_->AppendScalar(item));
  CloseOpenList();
  return Status::OK();
}

ArrayPtr ListBuilder::Finish() {
  CloseOpenList();
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  std::vector<uint8_t> offsets(offsets_.size() * 4);
  std::memcpy(offsets.data(), offsets_.data(), offsets.size());
  offsets_.assign(1, 0);
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), Buffer::FromVector(std::move(offsets)),
                                 nullptr, std::vector<ArrayPtr>{child_->Finish()});
}

// ---------------------------------------------------------------- fixed size list

FixedSizeListBuilder::FixedSizeListBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), child_(ArrayBuilder::Make(type_->item().type)) {}

void FixedSizeListBuilder::AppendFloats(const float* values) {
  validity_.Append(true);
  static_cast<Float32Builder*>(child_.get())->AppendValues(values, type_->list_size());
}

void FixedSizeListBuilder::AppendNull() {
  validity_.Append(false);
  // The child keeps list_size slots under a null parent: zeros for numbers
  // (so a non-nullable item column stays null-free), nulls otherwise.
  bool numeric = type_->item().type->byte_width() > 0;
  for (int32_t i = 0; i < type_->list_size(); ++i) {
    if (numeric) {
      (void)child_->AppendScalar(Scalar::Int(0));
    } else {
      child_->AppendNull();
    }
  }
}

void FixedSizeListBuilder::AppendFrom(const Array& array, int64_t start, int64_t count) {
  int64_t n = type_->list_size();
  child_->AppendFrom(*array.child(0), start * n, count * n);
  for (int64_t i = start; i < start + count; ++i) validity_.Append(array.IsValid(i));
}

Status FixedSizeListBuilder::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  if (!value.is_nested() || static_cast<int64_t>(value.nested().size()) != type_->list_size()) {
    return InvalidArgument(fmt::format("value {} is not a list of {} elements", value.ToString(), type_->list_size()));
  }
  for (const Scalar& item : value.nested()) OG_RETURN_IF_ERROR(child_->AppendScalar(item));
  validity_.Append(true);
  return Status::OK();
}

ArrayPtr FixedSizeListBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), nullptr, nullptr,
                                 std::vector<ArrayPtr>{child_->Finish()});
}

// ---------------------------------------------------------------- struct

StructBuilder::StructBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {
  for (const Field& f : type_->children()) children_.push_back(ArrayBuilder::Make(f.type));
}

void StructBuilder::AppendNull() {
  validity_.Append(false);
  for (auto& child : children_) child->AppendNull();
}

void StructBuilder::AppendFrom(const Array& array, int64_t start, int64_t count) {
  for (size_t i = 0; i < children_.size(); ++i) children_[i]->AppendFrom(*array.child(static_cast<int>(i)), start, count);
  for (int64_t i = start; i < start + count; ++i) validity_.Append(array.IsValid(i));
}

Status StructBuilder::AppendScalar(const Scalar& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  if (!value.is_nested() || value.nested().size() != children_.size()) {
    return InvalidArgument(fmt::format("value {} does not have {} struct members", value.ToString(), children_.size()));
  }
  for (size_t i = 0; i < children_.size(); ++i) OG_RETURN_IF_ERROR(children_[i]->AppendScalar(value.nested()[i]));
  validity_.Append(true);
  return Status::OK();
}

ArrayPtr StructBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t nulls = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  std::vector<ArrayPtr> children;
  for (auto& child : children_) children.push_back(child->Finish());
  return std::make_shared<Array>(type_, length, nulls, std::move(validity), nullptr, nullptr, std::move(children));
}

// ---------------------------------------------------------------- factory

std::unique_ptr<ArrayBuilder> ArrayBuilder::Make(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kBool: return std::make_unique<BoolBuilder>();
    case TypeId::kInt32:
    case TypeId::kDate32: return std::make_unique<Int32Builder>(type);
    case TypeId::kInt64:
    case TypeId::kDate64: return std::make_unique<Int64Builder>(type);
    case TypeId::kUInt32: return std::make_unique<UInt32Builder>(type);
    case TypeId::kUInt64: return std::make_unique<UInt64Builder>(type);
    case TypeId::kFloat32: return std::make_unique<Float32Builder>(type);
    case TypeId::kFloat64: return std::make_unique<Float64Builder>(type);
    case TypeId::kUtf8:
    case TypeId::kLargeBinary: return std::make_unique<BinaryBuilder>(type);
    case TypeId::kList: return std::make_unique<ListBuilder>(type);
    case TypeId::kFixedSizeList: return std::make_unique<FixedSizeListBuilder>(type);
    case TypeId::kStruct: return std::make_unique<StructBuilder>(type);
  }
  return nullptr;
}

Result<ArrayPtr> ArrayFromScalars(const DataTypePtr& type, const std::vector<Scalar>& values) {
  auto builder = ArrayBuilder::Make(type);
  for (size_t i = 0; i < values.size(); ++i) {
    Status st = builder->AppendScalar(values[i]);
    if (!st.ok()) return st.WithContext(fmt::format("element {}", i));
  }
  return builder->Finish();
}

}  // namespace omnigraph
