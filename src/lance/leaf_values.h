// The visible values of one leaf column, in the physical form both the
// Lance data-file writer (page accumulation) and reader (decoded pages,
// output windows) use (docs/lance-file-encoding.md §3.3 "visible").
//
// A leaf is a primitive or a fixed-size list of primitives. Every visible
// level owns one value slot; null slots hold zeros (fixed width), an empty
// string (variable width) or zeroed items (FSL), as Lance stores them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "lance/bit_util.h"
#include "util/status.h"

namespace omnigraph::lance {

enum class LeafKind : uint8_t {
  kFixed,  // `value_bytes` little-endian bytes per value
  kBool,   // one bit per value, LSB first
  kVar,    // variable-width bytes (Utf8, LargeBinary)
  kFsl,    // `list_size` items of `item_bytes` each per value
};

// Physical shape of a leaf column's values.
struct LeafShape {
  LeafKind kind = LeafKind::kFixed;
  int value_bytes = 0;         // kFixed: width; kFsl: list_size * item_bytes; kBool/kVar: 0
  int item_bytes = 0;          // kFsl only
  int32_t list_size = 0;       // kFsl only
  bool large_offsets = false;  // kVar: LargeBinary (Lance stores 64-bit offsets)

  // The shape of a leaf type: Bool, 4/8-byte primitives, Utf8, LargeBinary,
  // FixedSizeList of 4/8-byte primitives. InvalidArgument for anything else
  // (nested types, FSL of bool or of variable-width items).
  static Result<LeafShape> ForType(const DataType& type);
};

// Visible values of a leaf: appended from Arrow arrays (writer), decoded
// pages (reader) or other LeafValues (reader windows).
class LeafValues {
 public:
  LeafValues() = default;
  explicit LeafValues(LeafShape shape) : shape_(shape) {
    if (shape_.kind == LeafKind::kVar) offsets_.push_back(0);
  }

  const LeafShape& shape() const { return shape_; }
  uint64_t count() const { return count_; }
  // Total payload bytes (fixed values, variable bytes, bool bits rounded up).
  uint64_t data_bytes() const { return shape_.kind == LeafKind::kBool ? bits_.bytes().size() : data_.size(); }
  // Largest single value in bytes (variable width: longest string).
  uint64_t max_value_bytes() const { return max_value_bytes_; }
  // True once FSL item validity is tracked (some item was null, or the
  // decoded encoding carried item validity).
  bool has_item_validity() const { return has_item_validity_; }

  // Fixed / FSL values, or variable-width bytes.
  const std::vector<uint8_t>& data() const { return data_; }
  std::vector<uint8_t>& mutable_data() { return data_; }
  // Variable width: count()+1 offsets into data(), starting at 0.
  const std::vector<uint64_t>& offsets() const { return offsets_; }
  std::vector<uint64_t>& mutable_offsets() { return offsets_; }
  // Bool values.
  const BitVector& bits() const { return bits_; }
  BitVector& mutable_bits() { return bits_; }
  // FSL item validity (count() * list_size bits) when has_item_validity().
  const BitVector& item_validity() const { return item_validity_; }

  // Byte size of value i (variable width) or the fixed width.
  uint64_t ValueBytes(uint64_t i) const {
    return shape_.kind == LeafKind::kVar ? offsets_[i + 1] - offsets_[i] : static_cast<uint64_t>(shape_.value_bytes);
  }

  // ---- writer side
  // Appends slots [start, start + n) of `array` (whose type has this shape);
  // null slots are stored as zeros / empty.
  void AppendFromArray(const Array& array, int64_t start, int64_t n);
  // Appends `n` null slots.
  void AppendNulls(uint64_t n);

  // ---- reader side
  // Appends values [start, start + n) of `src` (same shape).
  void AppendRange(const LeafValues& src, uint64_t start, uint64_t n);
  // Appends `n` fixed-width (or FSL) values from raw little-endian bytes.
  // For FSL, `item_valid` (optional) holds one validity bit per item starting
  // at bit `item_bit`.
  void AppendFixedBytes(const uint8_t* bytes, uint64_t n, const uint8_t* item_valid = nullptr, uint64_t item_bit = 0);
  // Appends one variable-width value.
  void AppendVar(const uint8_t* bytes, uint64_t size) {
    data_.insert(data_.end(), bytes, bytes + size);
    offsets_.push_back(data_.size());
    if (size > max_value_bytes_) max_value_bytes_ = size;
    ++count_;
  }
  // Appends `n` bool values from bits [bit, bit + n) of `src`.
  void AppendBoolBits(const uint8_t* src, uint64_t bit, uint64_t n) {
    bits_.AppendBits(src, bit, n);
    count_ += n;
  }
  // Marks item validity as present (all items so far valid).
  void MaterializeItemValidity();

  // For decoders of kFixed and kVar values that append directly to
  // mutable_data() / mutable_offsets() (one offset per value): records `n`
  // more values.
  void CommitAppended(uint64_t n) { count_ += n; }

  void Reserve(uint64_t values, uint64_t bytes);
  void Clear();

  // Moves all values into an Arrow array of `type` (this shape) with the
  // given row validity (null `validity` = all valid) and clears this object.
  // InvalidArgument when a Utf8 result would exceed 2 GiB of bytes.
  Result<ArrayPtr> Finish(const DataTypePtr& type, BufferPtr validity, int64_t null_count);

 private:
  LeafShape shape_;
  uint64_t count_ = 0;
  std::vector<uint8_t> data_;
  std::vector<uint64_t> offsets_;
  BitVector bits_;
  BitVector item_validity_;
  bool has_item_validity_ = false;
  uint64_t max_value_bytes_ = 0;
};

}  // namespace omnigraph::lance
