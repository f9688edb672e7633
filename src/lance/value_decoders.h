// Decoders of Lance 2.1 CompressiveEncodings (docs/lance-file-encoding.md
// §4.5, §10): what one mini-block chunk, one level buffer, one dictionary or
// one full-zip value holds, decoded into levels or LeafValues.
//
// Implemented: flat, variable{flat 32|64}, fixed_size_list{flat, validity},
// inline_bitpacking, out_of_line_bitpacking, rle{flat, flat{8}}, fsst,
// dictionary items, general{zstd|lz4} (full-zip values). Anything else is
// refused with Unsupported naming the encoding. Every decoder checks that
// its input holds what the counts claim before it allocates, and reports
// CorruptData prefixed with `where` otherwise.
//
// Internal to src/lance (exposes generated protobuf types).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "encodings21.pb.h"
#include "lance/leaf_values.h"
#include "util/status.h"

namespace omnigraph::lance {

struct ByteSpan {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Short name of the encoding in use ("flat", "rle", ...), for messages.
std::string_view EncodingName(const ::lance::encodings21::CompressiveEncoding& enc);

// Bit width of the integers an integer encoding produces: flat{b},
// inline_bitpacking{T}, out_of_line_bitpacking{T, ...}, rle{flat{b}, ...}.
// Unsupported for other encodings or widths other than 8/16/32/64.
Result<int> IntegerBits(const ::lance::encodings21::CompressiveEncoding& enc, std::string_view where);

// Decodes `n` integers of IntegerBits(enc) bits from `buffers` (one buffer;
// two for rle: values and u8 run lengths) into `out`, which has room for
// n * bits / 8 bytes.
Status DecodeIntegers(const ::lance::encodings21::CompressiveEncoding& enc, const ByteSpan* buffers, size_t num_buffers,
                      uint64_t n, uint8_t* out, std::string_view where);

// Decodes `n` rep or def levels (an 8- or 16-bit integer encoding in one
// buffer) into `out`.
Status DecodeLevels(const ::lance::encodings21::CompressiveEncoding& enc, ByteSpan buffer, uint64_t n, uint16_t* out,
                    std::string_view where);

// Decodes the `n` values of one mini-block chunk from its value buffers and
// appends them to `out`. With a `dictionary`, `enc` describes the indices
// and the values are looked up in it.
Status DecodeChunkValues(const ::lance::encodings21::CompressiveEncoding& enc, const ByteSpan* buffers,
                         size_t num_buffers, uint64_t n, const LeafValues* dictionary, LeafValues* out,
                         std::string_view where);

// Decodes `n` dictionary items (§10.6 block form for variable width, raw
// values for fixed width) into `out`.
Status DecodeDictionaryItems(const ::lance::encodings21::CompressiveEncoding& enc, ByteSpan buffer, uint64_t n,
                             LeafValues* out, std::string_view where);

// Decompresses one `general` value: [u64 uncompressed length][zstd frame or
// lz4 block] (§10.7). Replaces `out`.
Status DecompressGeneral(const ::lance::encodings21::BufferCompression& compression, ByteSpan in,
                         std::vector<uint8_t>* out, std::string_view where);

}  // namespace omnigraph::lance
