#include "lance/bitpacking.h"

#include <fmt/format.h>

#include <cstring>

#include "util/endian.h"

namespace omnigraph::lance {
namespace {

// FastLanes visits rows in this order of 8-row groups; value index of (row,
// lane) is kOrder[row / 8] * 16 + (row % 8) * 128 + lane.
constexpr unsigned kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
constexpr unsigned BitsOf() {
  return static_cast<unsigned>(sizeof(T) * 8);
}

}  // namespace

template <typename T>
void FastLanesUnpack(const uint8_t* packed, unsigned bw, T* out) {
  constexpr unsigned kT = BitsOf<T>();
  constexpr unsigned kLanes = 1024 / kT;
  if (bw == 0) {
    std::memset(out, 0, 1024 * sizeof(T));
    return;
  }
  const uint64_t mask = bw >= 64 ? ~uint64_t{0} : (uint64_t{1} << bw) - 1;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    for (unsigned row = 0; row < kT; ++row) {
      unsigned bit = row * bw;
      unsigned word = bit / kT;
      unsigned shift = bit % kT;
      uint64_t v =
          static_cast<uint64_t>(LoadLE<T>(packed + (static_cast<size_t>(word) * kLanes + lane) * sizeof(T))) >> shift;
      if (shift + bw > kT) {
        uint64_t next = LoadLE<T>(packed + (static_cast<size_t>(word + 1) * kLanes + lane) * sizeof(T));
        v |= next << (kT - shift);
      }
      out[kOrder[row / 8] * 16 + (row % 8) * 128 + lane] = static_cast<T>(v & mask);
    }
  }
}

template <typename T>
void FastLanesPack(const T* values, unsigned bw, uint8_t* packed) {
  constexpr unsigned kT = BitsOf<T>();
  constexpr unsigned kLanes = 1024 / kT;
  std::memset(packed, 0, FastLanesBlockBytes(bw));
  if (bw == 0) return;
  const uint64_t mask = bw >= 64 ? ~uint64_t{0} : (uint64_t{1} << bw) - 1;
  const uint64_t word_mask = kT >= 64 ? ~uint64_t{0} : (uint64_t{1} << kT) - 1;
  auto or_word = [&](size_t index, uint64_t bits) {
    T w = LoadLE<T>(packed + index * sizeof(T));
    StoreLE<T>(packed + index * sizeof(T), static_cast<T>(w | static_cast<T>(bits & word_mask)));
  };
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    for (unsigned row = 0; row < kT; ++row) {
      uint64_t v = static_cast<uint64_t>(values[kOrder[row / 8] * 16 + (row % 8) * 128 + lane]) & mask;
      unsigned bit = row * bw;
      unsigned word = bit / kT;
      unsigned shift = bit % kT;
      or_word(static_cast<size_t>(word) * kLanes + lane, v << shift);
      if (shift + bw > kT) or_word(static_cast<size_t>(word + 1) * kLanes + lane, v >> (kT - shift));
    }
  }
}

template <typename T>
Status DecodeInlineBitpacked(const uint8_t* data, size_t size, uint64_t n, T* out, std::string_view where) {
  constexpr unsigned kT = BitsOf<T>();
  T block[1024];
  size_t pos = 0;
  uint64_t done = 0;
  while (done < n) {
    if (size - pos < sizeof(T)) {
      return CorruptData(fmt::format("{}: inline bit-packed data ends after {} of {} values", where, done, n));
    }
    uint64_t bw = LoadLE<T>(data + pos);
    pos += sizeof(T);
    if (bw > kT) return CorruptData(fmt::format("{}: bit width {} exceeds {} bits", where, bw, kT));
    uint64_t bytes = FastLanesBlockBytes(static_cast<unsigned>(bw));
    if (size - pos < bytes) {
      return CorruptData(fmt::format("{}: inline bit-packed block needs {} bytes, {} left", where, bytes, size - pos));
    }
    uint64_t take = n - done < kFastLanesBlock ? n - done : kFastLanesBlock;
    if (take == kFastLanesBlock) {
      FastLanesUnpack<T>(data + pos, static_cast<unsigned>(bw), out + done);
    } else {
      FastLanesUnpack<T>(data + pos, static_cast<unsigned>(bw), block);
      std::memcpy(out + done, block, take * sizeof(T));
    }
    pos += bytes;
    done += take;
  }
  return Status::OK();
}

template <typename T>
Status DecodeOutOfLineBitpacked(const uint8_t* data, size_t size, unsigned bw, uint64_t n, T* out,
                                std::string_view where) {
  constexpr unsigned kT = BitsOf<T>();
  if (bw > kT) return CorruptData(fmt::format("{}: bit width {} exceeds {} bits", where, bw, kT));
  const uint64_t block_bytes = FastLanesBlockBytes(bw);
  const uint64_t full = n / kFastLanesBlock;
  const uint64_t tail = n % kFastLanesBlock;
  if (full > 0 && block_bytes > 0 && full > size / block_bytes) {
    return CorruptData(fmt::format("{}: {} bit-packed blocks need more than the {} bytes present", where, full, size));
  }
  for (uint64_t b = 0; b < full; ++b) {
    FastLanesUnpack<T>(data + b * block_bytes, bw, out + b * kFastLanesBlock);
  }
  uint64_t rest = size - full * block_bytes;
  if (tail == 0) return Status::OK();
  T* dst = out + full * kFastLanesBlock;
  const uint8_t* src = data + full * block_bytes;
  if (rest == tail * sizeof(T)) {
    std::memcpy(dst, src, tail * sizeof(T));
    return Status::OK();
  }
  if (rest < block_bytes) {
    return CorruptData(fmt::format("{}: bit-packed tail of {} values has {} bytes, expected {} (raw) or {} (packed)",
                                   where, tail, rest, tail * sizeof(T), block_bytes));
  }
  T block[1024];
  FastLanesUnpack<T>(src, bw, block);
  std::memcpy(dst, block, tail * sizeof(T));
  return Status::OK();
}

#define OG_BITPACK_INSTANTIATE(T)                                                                   \
  template void FastLanesUnpack<T>(const uint8_t*, unsigned, T*);                                   \
  template void FastLanesPack<T>(const T*, unsigned, uint8_t*);                                     \
  template Status DecodeInlineBitpacked<T>(const uint8_t*, size_t, uint64_t, T*, std::string_view); \
  template Status DecodeOutOfLineBitpacked<T>(const uint8_t*, size_t, unsigned, uint64_t, T*, std::string_view);

OG_BITPACK_INSTANTIATE(uint8_t)
OG_BITPACK_INSTANTIATE(uint16_t)
OG_BITPACK_INSTANTIATE(uint32_t)
OG_BITPACK_INSTANTIATE(uint64_t)

#undef OG_BITPACK_INSTANTIATE

}  // namespace omnigraph::lance
