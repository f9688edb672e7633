// FastLanes bit-packing as Lance 8 writes it (docs/lance-file-encoding.md
// §10.1–§10.3): blocks of 1024 values of T bits (T = 8, 16, 32, 64) packed to
// `bw` bits each, in FastLanes' transposed lane order.
//
// Used by the data-file reader for `inline_bitpacking` and
// `out_of_line_bitpacking` (levels, values, dictionary indices). The packer
// exists for tests and keeps the layout defined in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/status.h"

namespace omnigraph::lance {

inline constexpr uint64_t kFastLanesBlock = 1024;

// Bytes of one packed block of 1024 values at `bw` bits: bw * 128.
inline constexpr uint64_t FastLanesBlockBytes(unsigned bw) {
  return uint64_t{bw} * 128;
}

// Unpacks one block: `packed` holds FastLanesBlockBytes(bw) bytes (T-bit
// little-endian words); writes 1024 values to `out`. Requires bw <= 8*sizeof(T).
template <typename T>
void FastLanesUnpack(const uint8_t* packed, unsigned bw, T* out);

// Packs 1024 values (their low `bw` bits) into FastLanesBlockBytes(bw) bytes.
template <typename T>
void FastLanesPack(const T* values, unsigned bw, uint8_t* packed);

// `inline_bitpacking{uncompressed_bits_per_value = 8*sizeof(T)}` (§10.2):
// groups of [T-bit word bw][bw*128 bytes], each holding up to 1024 values.
// Decodes `n` values from `data[0, size)` into `out`. CorruptData (prefixed
// with `where`) when the buffer is too short or a width exceeds T.
template <typename T>
Status DecodeInlineBitpacked(const uint8_t* data, size_t size, uint64_t n, T* out, std::string_view where);

// `out_of_line_bitpacking{T, values: flat{bw}}` (§10.3): floor(n/1024) full
// blocks, then the tail either as one more (padded) block or as raw T-bit
// words; raw iff the bytes left equal the tail's raw size.
template <typename T>
Status DecodeOutOfLineBitpacked(const uint8_t* data, size_t size, unsigned bw, uint64_t n, T* out,
                                std::string_view where);

}  // namespace omnigraph::lance
