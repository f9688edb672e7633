// Bitmap helpers shared by the Lance data-file writer and reader: LSB-first
// bitmaps (Arrow validity, Lance bool values and FSL item validity) that
// grow by appending and copy at arbitrary bit offsets.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace omnigraph::lance {

// memcpy that accepts null pointers when `n` is 0 (empty vectors).
inline void CopyBytes(void* dst, const void* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

// Copies `count` bits from `src` starting at bit `src_bit` to `dst` starting
// at bit `dst_bit`. Bits of `dst` outside the range are left unchanged.
inline void CopyBits(const uint8_t* src, uint64_t src_bit, uint8_t* dst, uint64_t dst_bit, uint64_t count) {
  if (count == 0) return;
  if ((src_bit & 7) == 0 && (dst_bit & 7) == 0) {
    uint64_t bytes = count / 8;
    CopyBytes(dst + dst_bit / 8, src + src_bit / 8, bytes);
    for (uint64_t i = bytes * 8; i < count; ++i) {
      uint64_t s = src_bit + i, d = dst_bit + i;
      if ((src[s >> 3] >> (s & 7)) & 1) {
        dst[d >> 3] |= static_cast<uint8_t>(1u << (d & 7));
      } else {
        dst[d >> 3] &= static_cast<uint8_t>(~(1u << (d & 7)));
      }
    }
    return;
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t s = src_bit + i, d = dst_bit + i;
    if ((src[s >> 3] >> (s & 7)) & 1) {
      dst[d >> 3] |= static_cast<uint8_t>(1u << (d & 7));
    } else {
      dst[d >> 3] &= static_cast<uint8_t>(~(1u << (d & 7)));
    }
  }
}

// A growable LSB-first bitmap. Bytes past `size()` bits are zero.
class BitVector {
 public:
  uint64_t size() const { return size_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t>& mutable_bytes() { return bytes_; }
  const uint8_t* data() const { return bytes_.data(); }

  bool Get(uint64_t i) const { return (bytes_[i >> 3] >> (i & 7)) & 1; }

  void Append(bool bit) {
    if ((size_ & 7) == 0) bytes_.push_back(0);
    if (bit) bytes_[size_ >> 3] |= static_cast<uint8_t>(1u << (size_ & 7));
    ++size_;
  }
  void AppendN(bool bit, uint64_t count) {
    if (count == 0) return;
    uint64_t new_size = size_ + count;
    if (!bit) {
      bytes_.resize((new_size + 7) / 8, 0);
      size_ = new_size;
      return;
    }
    // Finish the partial byte, then whole bytes, then the tail.
    while (count > 0 && (size_ & 7) != 0) {
      Append(true);
      --count;
    }
    bytes_.resize(bytes_.size() + count / 8, 0xFF);
    size_ += count / 8 * 8;
    for (uint64_t i = 0; i < count % 8; ++i) Append(true);
  }
  // Appends bits [src_bit, src_bit + count) of `src`.
  void AppendBits(const uint8_t* src, uint64_t src_bit, uint64_t count) {
    if (count == 0) return;
    uint64_t at = size_;
    bytes_.resize((size_ + count + 7) / 8, 0);
    CopyBits(src, src_bit, bytes_.data(), at, count);
    size_ += count;
    // CopyBits leaves bits past the range untouched; they were zero already.
  }
  void Reserve(uint64_t bits) { bytes_.reserve((bits + 7) / 8); }
  void Clear() {
    bytes_.clear();
    size_ = 0;
  }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t size_ = 0;
};

// Number of set bits among bits [start, start + count) of `bits`.
inline uint64_t CountSetBits(const uint8_t* bits, uint64_t start, uint64_t count) {
  uint64_t n = 0;
  uint64_t i = start, end = start + count;
  while (i < end && (i & 7) != 0) n += (bits[i >> 3] >> (i & 7)) & 1, ++i;
  while (i + 64 <= end) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    n += static_cast<uint64_t>(__builtin_popcountll(word));
    i += 64;
  }
  while (i < end) n += (bits[i >> 3] >> (i & 7)) & 1, ++i;
  return n;
}

}  // namespace omnigraph::lance
