#include "columnar/array.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "columnar/builder.h"
#include "columnar/scalar.h"

namespace omnigraph {

Array::Array(DataTypePtr type, int64_t length, int64_t null_count, BufferPtr validity, BufferPtr offsets,
             BufferPtr values, std::vector<ArrayPtr> children)
    : type_(std::move(type)),
      length_(length),
      null_count_(null_count),
      validity_(null_count == 0 ? nullptr : std::move(validity)),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      children_(std::move(children)) {}

int64_t CountNulls(const uint8_t* validity, int64_t length) {
  if (validity == nullptr) return 0;
  int64_t valid = 0;
  int64_t full_bytes = length / 8;
  for (int64_t i = 0; i < full_bytes; ++i) valid += __builtin_popcount(validity[i]);
  for (int64_t i = full_bytes * 8; i < length; ++i) valid += GetBit(validity, i);
  return length - valid;
}

namespace {

bool FloatEq(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

bool RangeEquals(const Array& a, int64_t a_start, const Array& b, int64_t b_start, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    if (!ElementsEqual(a, a_start + k, b, b_start + k)) return false;
  }
  return true;
}

}  // namespace

bool ElementsEqual(const Array& a, int64_t i, const Array& b, int64_t j) {
  if (a.IsNull(i) != b.IsNull(j)) return false;
  if (a.IsNull(i)) return true;
  switch (a.type_id()) {
    case TypeId::kBool: return a.BoolValue(i) == b.BoolValue(j);
    case TypeId::kInt32:
    case TypeId::kDate32: return a.Value<int32_t>(i) == b.Value<int32_t>(j);
    case TypeId::kUInt32: return a.Value<uint32_t>(i) == b.Value<uint32_t>(j);
    case TypeId::kInt64:
    case TypeId::kDate64: return a.Value<int64_t>(i) == b.Value<int64_t>(j);
    case TypeId::kUInt64: return a.Value<uint64_t>(i) == b.Value<uint64_t>(j);
    case TypeId::kFloat32: return FloatEq(a.Value<float>(i), b.Value<float>(j));
    case TypeId::kFloat64: return FloatEq(a.Value<double>(i), b.Value<double>(j));
    case TypeId::kUtf8:
    case TypeId::kLargeBinary: return a.GetView(i) == b.GetView(j);
    case TypeId::kList: {
      int64_t len = a.ValueLength(i);
      return len == b.ValueLength(j) && RangeEquals(*a.child(0), a.ValueOffset(i), *b.child(0), b.ValueOffset(j), len);
    }
    case TypeId::kFixedSizeList: {
      int64_t n = a.type()->list_size();
      return RangeEquals(*a.child(0), i * n, *b.child(0), j * n, n);
    }
    case TypeId::kStruct:
      for (size_t c = 0; c < a.children().size(); ++c) {
        if (!ElementsEqual(*a.child(static_cast<int>(c)), i, *b.child(static_cast<int>(c)), j)) return false;
      }
      return true;
  }
  return false;
}

bool Array::Equals(const Array& other) const {
  if (!type_->Equals(*other.type_) || length_ != other.length_ || null_count_ != other.null_count_) return false;
  return RangeEquals(*this, 0, other, 0, length_);
}

std::string Array::ToString() const {
  std::string out = "[";
  int64_t shown = std::min<int64_t>(length_, 100);
  for (int64_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += GetScalar(*this, i).ToString();
  }
  if (shown < length_) out += fmt::format(", ... ({} more)", length_ - shown);
  return out + "]";
}

int64_t Array::MemoryBytes() const {
  int64_t total = 0;
  for (const BufferPtr& b : {validity_, offsets_, values_}) {
    if (b) total += static_cast<int64_t>(b->size());
  }
  for (const ArrayPtr& c : children_) total += c->MemoryBytes();
  return total;
}

ArrayPtr SliceArray(const Array& array, int64_t start, int64_t length) {
  auto builder = ArrayBuilder::Make(array.type());
  builder->AppendFrom(array, start, length);
  return builder->Finish();
}

ArrayPtr TakeArray(const Array& array, const std::vector<int64_t>& indices) {
  auto builder = ArrayBuilder::Make(array.type());
  builder->Reserve(static_cast<int64_t>(indices.size()));
  // Coalesce consecutive indices into range copies.
  size_t k = 0;
  while (k < indices.size()) {
    size_t run = 1;
    while (k + run < indices.size() && indices[k + run] == indices[k] + static_cast<int64_t>(run)) ++run;
    builder->AppendFrom(array, indices[k], static_cast<int64_t>(run));
    k += run;
  }
  return builder->Finish();
}

namespace {

// The validity of `arrays` laid end to end, or nullptr when all are valid.
BufferPtr ConcatValidity(const std::vector<ArrayPtr>& arrays, int64_t total, int64_t* nulls) {
  *nulls = 0;
  for (const ArrayPtr& a : arrays) *nulls += a->null_count();
  if (*nulls == 0) return nullptr;
  std::shared_ptr<Buffer> bits = Buffer::Zeroed(static_cast<size_t>(BitmapBytes(total)));
  uint8_t* out = bits->mutable_data();
  int64_t at = 0;
  for (const ArrayPtr& a : arrays) {
    for (int64_t i = 0; i < a->length(); ++i) {
      if (a->IsValid(i)) SetBit(out, at + i);
    }
    at += a->length();
  }
  return bits;
}

// Utf8 / LargeBinary: one exact allocation per buffer, bytes copied once and
// offsets rebased in place. A builder would hold 64-bit offsets, grow them,
// and convert them again in Finish; a table scan concatenates every
// fragment's strings this way, so the copies dominate a cold read.
template <typename Offset>
ArrayPtr ConcatBinary(const DataTypePtr& type, const std::vector<ArrayPtr>& arrays, int64_t total) {
  int64_t bytes = 0;
  for (const ArrayPtr& a : arrays) bytes += a->length() > 0 ? a->ValueOffset(a->length()) - a->ValueOffset(0) : 0;
  std::shared_ptr<Buffer> offsets = Buffer::Uninitialized(static_cast<size_t>(total + 1) * sizeof(Offset));
  std::shared_ptr<Buffer> values = Buffer::Uninitialized(static_cast<size_t>(bytes));
  uint8_t* out_offsets = offsets->mutable_data();
  uint8_t* out_values = values->mutable_data();
  int64_t row = 0;
  int64_t written = 0;
  StoreLE<Offset>(out_offsets, 0);
  for (const ArrayPtr& a : arrays) {
    if (a->length() == 0) continue;
    const int64_t first = a->ValueOffset(0);
    const int64_t last = a->ValueOffset(a->length());
    if (last > first) std::memcpy(out_values + written, a->values()->data() + first, static_cast<size_t>(last - first));
    const int64_t shift = written - first;
    for (int64_t i = 1; i <= a->length(); ++i) {
      StoreLE<Offset>(out_offsets + (row + i) * static_cast<int64_t>(sizeof(Offset)),
                      static_cast<Offset>(a->ValueOffset(i) + shift));
    }
    row += a->length();
    written += last - first;
  }
  int64_t nulls = 0;
  BufferPtr validity = ConcatValidity(arrays, total, &nulls);
  return std::make_shared<const Array>(type, total, nulls, std::move(validity), std::move(offsets), std::move(values),
                                       std::vector<ArrayPtr>{});
}

// Fixed-width values: one exact allocation, one memcpy per part.
ArrayPtr ConcatFixed(const DataTypePtr& type, const std::vector<ArrayPtr>& arrays, int64_t total) {
  const size_t width = static_cast<size_t>(type->byte_width());
  std::shared_ptr<Buffer> values = Buffer::Uninitialized(static_cast<size_t>(total) * width);
  size_t at = 0;
  for (const ArrayPtr& a : arrays) {
    const size_t size = static_cast<size_t>(a->length()) * width;
    if (size > 0) std::memcpy(values->mutable_data() + at, a->values()->data(), size);
    at += size;
  }
  int64_t nulls = 0;
  BufferPtr validity = ConcatValidity(arrays, total, &nulls);
  return std::make_shared<const Array>(type, total, nulls, std::move(validity), nullptr, std::move(values),
                                       std::vector<ArrayPtr>{});
}

}  // namespace

ArrayPtr ConcatArrays(const DataTypePtr& type, const std::vector<ArrayPtr>& arrays) {
  if (arrays.size() == 1) return arrays.front();
  {
    int64_t total = 0;
    for (const ArrayPtr& a : arrays) total += a->length();
    switch (type->id()) {
      case TypeId::kUtf8:
        if (total < std::numeric_limits<int32_t>::max()) {
          int64_t bytes = 0;
          for (const ArrayPtr& a : arrays) bytes += a->length() > 0 ? a->ValueOffset(a->length()) - a->ValueOffset(0) : 0;
          if (bytes <= std::numeric_limits<int32_t>::max()) return ConcatBinary<int32_t>(type, arrays, total);
        }
        break;
      case TypeId::kLargeBinary: return ConcatBinary<int64_t>(type, arrays, total);
      default:
        if (type->byte_width() > 0) return ConcatFixed(type, arrays, total);
        break;
    }
  }
  auto builder = ArrayBuilder::Make(type);
  int64_t total = 0;
  for (const ArrayPtr& a : arrays) total += a->length();
  builder->Reserve(total);
  if (auto* binary = dynamic_cast<BinaryBuilder*>(builder.get())) {
    int64_t bytes = 0;
    for (const ArrayPtr& a : arrays) {
      if (a->length() > 0) bytes += a->ValueOffset(a->length()) - a->ValueOffset(0);
    }
    binary->ReserveBytes(bytes);
  }
  for (const ArrayPtr& a : arrays) builder->AppendFrom(*a, 0, a->length());
  return builder->Finish();
}

ArrayPtr MakeNullArray(const DataTypePtr& type, int64_t length) {
  auto builder = ArrayBuilder::Make(type);
  builder->AppendNulls(length);
  return builder->Finish();
}

}  // namespace omnigraph
