#include "lance/leaf_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace omnigraph::lance {

Result<LeafShape> LeafShape::ForType(const DataType& type) {
  LeafShape shape;
  switch (type.id()) {
    case TypeId::kBool: shape.kind = LeafKind::kBool; return shape;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kDate64:
      shape.kind = LeafKind::kFixed;
      shape.value_bytes = type.byte_width();
      return shape;
    case TypeId::kUtf8:
    case TypeId::kLargeBinary:
      shape.kind = LeafKind::kVar;
      shape.large_offsets = type.id() == TypeId::kLargeBinary;
      return shape;
    case TypeId::kFixedSizeList: {
      const DataType& item = *type.item().type;
      int width = item.byte_width();
      if (item.is_nested() || width <= 0) {
        return InvalidArgument(fmt::format("fixed-size list of {} is not supported", item.ToString()));
      }
      if (type.list_size() <= 0 || type.list_size() > (1 << 24)) {
        return InvalidArgument(fmt::format("fixed-size list size {} is out of range", type.list_size()));
      }
      shape.kind = LeafKind::kFsl;
      shape.item_bytes = width;
      shape.list_size = type.list_size();
      shape.value_bytes = width * type.list_size();
      return shape;
    }
    default: return InvalidArgument(fmt::format("{} is not a leaf type", type.ToString()));
  }
}

void LeafValues::AppendFromArray(const Array& array, int64_t start, int64_t n) {
  if (n <= 0) return;
  const bool nulls = array.null_count() > 0;
  switch (shape_.kind) {
    case LeafKind::kFixed: {
      size_t width = static_cast<size_t>(shape_.value_bytes);
      size_t at = data_.size();
      data_.resize(at + static_cast<size_t>(n) * width);
      std::memcpy(data_.data() + at, array.values()->data() + static_cast<size_t>(start) * width,
                  static_cast<size_t>(n) * width);
      if (nulls) {
        // Values under nulls are unspecified in Arrow; Lance stores zeros.
        for (int64_t i = 0; i < n; ++i) {
          if (array.IsNull(start + i)) std::memset(data_.data() + at + static_cast<size_t>(i) * width, 0, width);
        }
      }
      max_value_bytes_ = width;
      break;
    }
    case LeafKind::kBool: {
      size_t at = bits_.size();
      bits_.AppendBits(array.values()->data(), static_cast<uint64_t>(start), static_cast<uint64_t>(n));
      if (nulls) {
        uint8_t* bytes = bits_.mutable_bytes().data();
        for (int64_t i = 0; i < n; ++i) {
          if (array.IsNull(start + i)) {
            uint64_t b = at + static_cast<uint64_t>(i);
            bytes[b >> 3] &= static_cast<uint8_t>(~(1u << (b & 7)));
          }
        }
      }
      max_value_bytes_ = 1;
      break;
    }
    case LeafKind::kVar: {
      const uint8_t* bytes = array.values() ? array.values()->data() : nullptr;
      if (!nulls) {
        int64_t first = array.ValueOffset(start);
        int64_t last = array.ValueOffset(start + n);
        uint64_t base = data_.size();
        if (last > first) data_.insert(data_.end(), bytes + first, bytes + last);
        size_t at = offsets_.size();
        offsets_.resize(at + static_cast<size_t>(n));
        uint64_t longest = max_value_bytes_;
        int64_t prev = first;
        if (shape_.large_offsets || array.type_id() == TypeId::kLargeBinary) {
          const uint8_t* offs = array.offsets()->data() + static_cast<size_t>(start) * 8;
          for (int64_t i = 1; i <= n; ++i) {
            int64_t end = LoadLE<int64_t>(offs + static_cast<size_t>(i) * 8);
            longest = std::max<uint64_t>(longest, static_cast<uint64_t>(end - prev));
            offsets_[at + static_cast<size_t>(i) - 1] = base + static_cast<uint64_t>(end - first);
            prev = end;
          }
        } else {
          const uint8_t* offs = array.offsets()->data() + static_cast<size_t>(start) * 4;
          for (int64_t i = 1; i <= n; ++i) {
            int64_t end = LoadLE<int32_t>(offs + static_cast<size_t>(i) * 4);
            longest = std::max<uint64_t>(longest, static_cast<uint64_t>(end - prev));
            offsets_[at + static_cast<size_t>(i) - 1] = base + static_cast<uint64_t>(end - first);
            prev = end;
          }
        }
        max_value_bytes_ = longest;
      } else {
        for (int64_t i = start; i < start + n; ++i) {
          if (array.IsNull(i)) {
            offsets_.push_back(data_.size());
            continue;
          }
          int64_t s = array.ValueOffset(i), e = array.ValueOffset(i + 1);
          if (e > s) data_.insert(data_.end(), bytes + s, bytes + e);
          offsets_.push_back(data_.size());
          max_value_bytes_ = std::max<uint64_t>(max_value_bytes_, static_cast<uint64_t>(e - s));
        }
      }
      break;
    }
    case LeafKind::kFsl: {
      size_t width = static_cast<size_t>(shape_.value_bytes);
      uint64_t items = static_cast<uint64_t>(shape_.list_size);
      const Array& child = *array.child(0);
      size_t at = data_.size();
      data_.resize(at + static_cast<size_t>(n) * width);
      std::memcpy(data_.data() + at, child.values()->data() + static_cast<size_t>(start) * width,
                  static_cast<size_t>(n) * width);
      uint64_t first_item = static_cast<uint64_t>(start) * items;
      bool item_nulls = child.null_count() > 0;
      if (item_nulls && !has_item_validity_) {
        // Only materialize when a visible (non-null row) item is null.
        for (int64_t i = 0; i < n && !has_item_validity_; ++i) {
          if (nulls && array.IsNull(start + i)) continue;
          for (uint64_t k = 0; k < items; ++k) {
            if (child.IsNull(static_cast<int64_t>(first_item + static_cast<uint64_t>(i) * items + k))) {
              MaterializeItemValidity();
              break;
            }
          }
        }
      }
      if (has_item_validity_) {
        if (item_nulls) {
          item_validity_.AppendBits(child.validity()->data(), first_item, static_cast<uint64_t>(n) * items);
        } else {
          item_validity_.AppendN(true, static_cast<uint64_t>(n) * items);
        }
      }
      if (nulls || item_nulls) {
        uint8_t* vbits = has_item_validity_ ? item_validity_.mutable_bytes().data() : nullptr;
        uint64_t vbase = item_validity_.size() - (has_item_validity_ ? static_cast<uint64_t>(n) * items : 0);
        for (int64_t i = 0; i < n; ++i) {
          uint8_t* slot = data_.data() + at + static_cast<size_t>(i) * width;
          if (nulls && array.IsNull(start + i)) {
            std::memset(slot, 0, width);
            if (vbits != nullptr) {
              for (uint64_t k = 0; k < items; ++k) {
                uint64_t b = vbase + static_cast<uint64_t>(i) * items + k;
                vbits[b >> 3] &= static_cast<uint8_t>(~(1u << (b & 7)));
              }
            }
            continue;
          }
          if (!item_nulls) continue;
          for (uint64_t k = 0; k < items; ++k) {
            if (child.IsNull(static_cast<int64_t>(first_item + static_cast<uint64_t>(i) * items + k))) {
              std::memset(slot + k * static_cast<uint64_t>(shape_.item_bytes), 0,
                          static_cast<size_t>(shape_.item_bytes));
            }
          }
        }
      }
      max_value_bytes_ = width;
      break;
    }
  }
  count_ += static_cast<uint64_t>(n);
}

void LeafValues::AppendNulls(uint64_t n) {
  if (n == 0) return;
  switch (shape_.kind) {
    case LeafKind::kFixed:
    case LeafKind::kFsl:
      data_.resize(data_.size() + n * static_cast<uint64_t>(shape_.value_bytes), 0);
      if (has_item_validity_) item_validity_.AppendN(false, n * static_cast<uint64_t>(shape_.list_size));
      break;
    case LeafKind::kBool: bits_.AppendN(false, n); break;
    case LeafKind::kVar: offsets_.resize(offsets_.size() + n, data_.size()); break;
  }
  count_ += n;
}

void LeafValues::MaterializeItemValidity() {
  if (has_item_validity_) return;
  has_item_validity_ = true;
  item_validity_.AppendN(true, count_ * static_cast<uint64_t>(shape_.list_size));
}

void LeafValues::AppendFixedBytes(const uint8_t* bytes, uint64_t n, const uint8_t* item_valid, uint64_t item_bit) {
  size_t size = static_cast<size_t>(n) * static_cast<size_t>(shape_.value_bytes);
  if (size > 0) data_.insert(data_.end(), bytes, bytes + size);
  uint64_t items = n * static_cast<uint64_t>(shape_.list_size);
  if (item_valid != nullptr) {
    MaterializeItemValidity();
    item_validity_.AppendBits(item_valid, item_bit, items);
  } else if (has_item_validity_) {
    item_validity_.AppendN(true, items);
  }
  count_ += n;
}

void LeafValues::AppendRange(const LeafValues& src, uint64_t start, uint64_t n) {
  if (n == 0) return;
  switch (shape_.kind) {
    case LeafKind::kFixed:
    case LeafKind::kFsl: {
      size_t width = static_cast<size_t>(shape_.value_bytes);
      const uint8_t* from = src.data_.data() + start * width;
      data_.insert(data_.end(), from, from + n * width);
      uint64_t items = static_cast<uint64_t>(shape_.list_size);
      if (src.has_item_validity_) {
        MaterializeItemValidity();
        item_validity_.AppendBits(src.item_validity_.data(), start * items, n * items);
      } else if (has_item_validity_) {
        item_validity_.AppendN(true, n * items);
      }
      break;
    }
    case LeafKind::kBool: bits_.AppendBits(src.bits_.data(), start, n); break;
    case LeafKind::kVar: {
      uint64_t first = src.offsets_[start];
      uint64_t last = src.offsets_[start + n];
      uint64_t base = data_.size();
      data_.insert(data_.end(), src.data_.data() + first, src.data_.data() + last);
      size_t at = offsets_.size();
      offsets_.resize(at + n);
      for (uint64_t i = 0; i < n; ++i) offsets_[at + i] = base + (src.offsets_[start + i + 1] - first);
      break;
    }
  }
  count_ += n;
}

void LeafValues::Reserve(uint64_t values, uint64_t bytes) {
  switch (shape_.kind) {
    case LeafKind::kFixed:
    case LeafKind::kFsl: data_.reserve(data_.size() + values * static_cast<uint64_t>(shape_.value_bytes)); break;
    case LeafKind::kBool: bits_.Reserve(bits_.size() + values); break;
    case LeafKind::kVar:
      offsets_.reserve(offsets_.size() + values);
      data_.reserve(data_.size() + bytes);
      break;
  }
}

void LeafValues::Clear() {
  count_ = 0;
  data_.clear();
  offsets_.clear();
  if (shape_.kind == LeafKind::kVar) offsets_.push_back(0);
  bits_.Clear();
  item_validity_.Clear();
  has_item_validity_ = false;
  max_value_bytes_ = 0;
}

Result<ArrayPtr> LeafValues::Finish(const DataTypePtr& type, BufferPtr validity, int64_t null_count) {
  int64_t length = static_cast<int64_t>(count_);
  ArrayPtr out;
  switch (shape_.kind) {
    case LeafKind::kFixed:
      out = std::make_shared<Array>(type, length, null_count, std::move(validity), nullptr,
                                    Buffer::FromVector(std::move(data_)), std::vector<ArrayPtr>{});
      break;
    case LeafKind::kBool: {
      std::vector<uint8_t> bits = std::move(bits_.mutable_bytes());
      bits.resize(static_cast<size_t>(BitmapBytes(length)), 0);
      out = std::make_shared<Array>(type, length, null_count, std::move(validity), nullptr,
                                    Buffer::FromVector(std::move(bits)), std::vector<ArrayPtr>{});
      break;
    }
    case LeafKind::kVar: {
      std::vector<uint8_t> offsets;
      if (type->id() == TypeId::kLargeBinary) {
        offsets.resize(offsets_.size() * 8);
        std::memcpy(offsets.data(), offsets_.data(), offsets.size());
      } else {
        if (offsets_.back() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          return InvalidArgument(
              fmt::format("{} values hold {} bytes, more than a Utf8 array can address", count_, offsets_.back()));
        }
        offsets.resize(offsets_.size() * 4);
        for (size_t i = 0; i < offsets_.size(); ++i) {
          StoreLE<int32_t>(offsets.data() + i * 4, static_cast<int32_t>(offsets_[i]));
        }
      }
      out =
          std::make_shared<Array>(type, length, null_count, std::move(validity), Buffer::FromVector(std::move(offsets)),
                                  Buffer::FromVector(std::move(data_)), std::vector<ArrayPtr>{});
      break;
    }
    case LeafKind::kFsl: {
      int64_t items = length * shape_.list_size;
      BufferPtr item_validity;
      int64_t item_nulls = 0;
      if (has_item_validity_) {
        item_nulls = items - static_cast<int64_t>(CountSetBits(item_validity_.data(), 0, static_cast<uint64_t>(items)));
        if (item_nulls > 0) {
          std::vector<uint8_t> bits = std::move(item_validity_.mutable_bytes());
          bits.resize(static_cast<size_t>(BitmapBytes(items)), 0);
          item_validity = Buffer::FromVector(std::move(bits));
        }
      }
      auto child = std::make_shared<Array>(type->item().type, items, item_nulls, std::move(item_validity), nullptr,
                                           Buffer::FromVector(std::move(data_)), std::vector<ArrayPtr>{});
      out = std::make_shared<Array>(type, length, null_count, std::move(validity), nullptr, nullptr,
                                    std::vector<ArrayPtr>{std::move(child)});
      break;
    }
  }
  Clear();
  return out;
}

}  // namespace omnigraph::lance
