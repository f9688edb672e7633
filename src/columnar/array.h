// Immutable columns with Arrow's buffer layouts (architecture.md §2 columnar).
//
// Layout per type (no slice offset: an Array always starts at element 0):
//   validity  bit i set = element i valid, LSB first; null pointer = all valid
//   Bool      values: bit-packed, LSB first
//   fixed     values: `length * byte_width` little-endian bytes
//   Utf8      offsets: length+1 int32; values: bytes
//   LargeBinary offsets: length+1 int64; values: bytes
//   List      offsets: length+1 int32 into children[0]
//   FixedSizeList children[0] holds length * list_size elements
//   Struct    children[i] has `length` elements for field i
// Values under a null slot are unspecified (builders write zeros/empty).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/data_type.h"
#include "util/buffer.h"
#include "util/endian.h"

namespace omnigraph {

class Array;
using ArrayPtr = std::shared_ptr<const Array>;

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) { bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7))); }
inline int64_t BitmapBytes(int64_t bits) { return (bits + 7) / 8; }

class Array {
 public:
  Array(DataTypePtr type, int64_t length, int64_t null_count, BufferPtr validity, BufferPtr offsets,
        BufferPtr values, std::vector<ArrayPtr> children);

  const DataTypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }
  const BufferPtr& validity() const { return validity_; }
  const BufferPtr& offsets() const { return offsets_; }
  const BufferPtr& values() const { return values_; }
  const std::vector<ArrayPtr>& children() const { return children_; }
  const ArrayPtr& child(int i) const { return children_[i]; }

  bool IsNull(int64_t i) const { return validity_ && !GetBit(validity_->data(), i); }
  bool IsValid(int64_t i) const { return !IsNull(i); }

  // Fixed-width value i (T must match byte_width()).
  template <typename T>
  T Value(int64_t i) const { return LoadLE<T>(values_->data() + i * sizeof(T)); }
  bool BoolValue(int64_t i) const { return GetBit(values_->data(), i); }
  // Typed pointer to fixed-width values (the buffer is at least 8-byte aligned
  // when produced by builders and readers).
  template <typename T>
  const T* raw_values() const { return reinterpret_cast<const T*>(values_->data()); }

  // Start/end of element i in the child (List) or bytes (Utf8, LargeBinary).
  int64_t ValueOffset(int64_t i) const {
    return type_->id() == TypeId::kLargeBinary ? LoadLE<int64_t>(offsets_->data() + i * 8)
                                               : LoadLE<int32_t>(offsets_->data() + i * 4);
  }
  int64_t ValueLength(int64_t i) const { return ValueOffset(i + 1) - ValueOffset(i); }
  // Bytes of element i of a Utf8 or LargeBinary array.
  std::string_view GetView(int64_t i) const {
    int64_t start = ValueOffset(i);
    return {reinterpret_cast<const char*>(values_->data()) + start, static_cast<size_t>(ValueOffset(i + 1) - start)};
  }

  // Structural and value equality (types, lengths, validity, valid values;
  // values under nulls are ignored). Floats compare bitwise except that all
  // NaNs are equal.
  bool Equals(const Array& other) const;
  // Compact rendering for test failures, e.g. `[1, null, 3]`.
  std::string ToString() const;

  // Bytes held by this array's buffers and children (for memory accounting).
  int64_t MemoryBytes() const;

 private:
  DataTypePtr type_;
  int64_t length_;
  int64_t null_count_;
  BufferPtr validity_;
  BufferPtr offsets_;
  BufferPtr values_;
  std::vector<ArrayPtr> children_;
};

// Whether a[i] and b[j] hold the same value, with Array::Equals's rules:
// both null, or both valid with equal values (nested values compared
// element by element; floats bitwise, except that all NaNs are equal, so
// 0.0 and -0.0 differ). A null never equals a valid value, whatever it is
// (an empty string included).
// REQUIRES: a and b have the same type.
bool ElementsEqual(const Array& a, int64_t i, const Array& b, int64_t j);

// Counts unset bits among the first `length` bits.
int64_t CountNulls(const uint8_t* validity, int64_t length);

// A new array holding elements [start, start + length) of `array` (copies).
ArrayPtr SliceArray(const Array& array, int64_t start, int64_t length);

// A new array holding array[indices[0]], array[indices[1]], ... (copies).
ArrayPtr TakeArray(const Array& array, const std::vector<int64_t>& indices);
// Concatenates arrays of one type (copies). `type` is used for an empty list.
ArrayPtr ConcatArrays(const DataTypePtr& type, const std::vector<ArrayPtr>& arrays);

// A column that holds only nulls (nested children sized accordingly).
ArrayPtr MakeNullArray(const DataTypePtr& type, int64_t length);

}  // namespace omnigraph
