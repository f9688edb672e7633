// Decoders of what Lance 8 writes (docs/lance-file-encoding.md §10), fed
// with hand-made bytes that follow the spec's examples: FastLanes
// bit-packing, inline and out-of-line bit-packed levels, rle, dictionary,
// fsst and general zstd/lz4.

#include "lance/value_decoders.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <random>

#include "lance/bitpacking.h"
#include "lance/fsst_decode.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace value_decoders_test {

namespace pb = ::lance::encodings21;

pb::CompressiveEncoding Flat(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}
pb::CompressiveEncoding Inline(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(bits);
  return e;
}
pb::CompressiveEncoding OutOfLine(uint64_t bits, uint64_t bw) {
  pb::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(bits);
  *e.mutable_out_of_line_bitpacking()->mutable_values() = Flat(bw);
  return e;
}
pb::CompressiveEncoding Rle(uint64_t bits) {
  pb::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = Flat(bits);
  *e.mutable_rle()->mutable_run_lengths() = Flat(8);
  return e;
}
pb::CompressiveEncoding Variable(uint64_t bits) {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(bits);
  return e;
}

LeafShape Shape(const DataTypePtr& type) {
  return *LeafShape::ForType(*type);
}

template <typename T>
void PutLE(std::vector<uint8_t>* out, T v) {
  AppendLE<T>(out, v);
}

// ---------------------------------------------------------------- FastLanes

TEST(BitpackingTest, SixteenBitOneBitLayoutMatchesSpec) {
  // §10.1: with T = 16 and bw = 1, value i is bit 8*((i/64)%2) + i/128 of
  // word i % 64.
  for (int i : {0, 1, 63, 64, 65, 127, 128, 200, 511, 512, 1000, 1023}) {
    uint16_t values[1024] = {};
    values[i] = 1;
    uint8_t packed[128];
    FastLanesPack<uint16_t>(values, 1, packed);
    for (int w = 0; w < 64; ++w) {
      uint16_t word = LoadLE<uint16_t>(packed + 2 * w);
      uint16_t expected = w == i % 64 ? static_cast<uint16_t>(1u << (8 * ((i / 64) % 2) + i / 128)) : 0;
      ASSERT_EQ(word, expected) << "value " << i << " word " << w;
    }
  }
}

template <typename T>
void RoundTripAllWidths() {
  constexpr unsigned kT = sizeof(T) * 8;
  std::mt19937_64 rng(kT);
  for (unsigned bw = 0; bw <= kT; ++bw) {
    T values[1024], back[1024];
    uint64_t mask = bw == 64 ? ~uint64_t{0} : (uint64_t{1} << bw) - 1;
    for (T& v : values) v = static_cast<T>(rng() & mask);
    std::vector<uint8_t> packed(FastLanesBlockBytes(bw) + 1);
    FastLanesPack<T>(values, bw, packed.data());
    FastLanesUnpack<T>(packed.data(), bw, back);
    ASSERT_EQ(std::memcmp(values, back, sizeof(values)), 0) << "T=" << kT << " bw=" << bw;
  }
}

TEST(BitpackingTest, RoundTripEveryWidth) {
  RoundTripAllWidths<uint8_t>();
  RoundTripAllWidths<uint16_t>();
  RoundTripAllWidths<uint32_t>();
  RoundTripAllWidths<uint64_t>();
}

TEST(BitpackingTest, InlineLevelsFromSpecExample) {
  // §10.2: 87 rep levels, bw = 1; rep[0] = rep[64] = 1 (word 0 = 0x0101),
  // rep[1] = 1 and rep[65] = 0 (word 1 = 0x0001).
  uint16_t levels[1024] = {};
  std::mt19937 rng(3);
  for (int i = 0; i < 87; ++i) levels[i] = rng() & 1;
  levels[0] = 1;
  levels[64] = 1;
  levels[1] = 1;
  levels[65] = 0;
  std::vector<uint8_t> bytes = {0x01, 0x00};
  bytes.resize(2 + 128);
  FastLanesPack<uint16_t>(levels, 1, bytes.data() + 2);
  EXPECT_EQ(bytes[2], 0x01);
  EXPECT_EQ(bytes[3], 0x01);
  EXPECT_EQ(bytes[4], 0x01);
  EXPECT_EQ(bytes[5], 0x00);
  uint16_t out[87];
  ASSERT_TRUE(DecodeLevels(Inline(16), ByteSpan{bytes.data(), bytes.size()}, 87, out, "t").ok());
  for (int i = 0; i < 87; ++i) EXPECT_EQ(out[i], levels[i]) << i;
  // One byte short.
  EXPECT_EQ(DecodeLevels(Inline(16), ByteSpan{bytes.data(), bytes.size() - 1}, 87, out, "t").code(),
            ErrorCode::kCorruptData);
  // A width larger than T.
  bytes[0] = 17;
  EXPECT_EQ(DecodeLevels(Inline(16), ByteSpan{bytes.data(), bytes.size()}, 87, out, "t").code(),
            ErrorCode::kCorruptData);
}

TEST(BitpackingTest, InlineValuesAcrossGroups) {
  // int64 values with bw = 50 (§10.2 header example `32 00 00 00 00 00 00 00`).
  std::vector<uint64_t> values(1500);
  std::mt19937_64 rng(4);
  for (uint64_t& v : values) v = rng() & ((uint64_t{1} << 50) - 1);
  std::vector<uint8_t> bytes;
  for (size_t start = 0; start < values.size(); start += 1024) {
    uint64_t block[1024] = {};
    std::copy(values.begin() + start, values.begin() + std::min(values.size(), start + 1024), block);
    PutLE<uint64_t>(&bytes, 50);
    size_t at = bytes.size();
    bytes.resize(at + FastLanesBlockBytes(50));
    FastLanesPack<uint64_t>(block, 50, bytes.data() + at);
  }
  EXPECT_EQ(bytes[0], 0x32);
  LeafValues out(Shape(DataType::Int64()));
  ByteSpan span{bytes.data(), bytes.size()};
  ASSERT_TRUE(DecodeChunkValues(Inline(64), &span, 1, values.size(), nullptr, &out, "t").ok());
  ASSERT_EQ(out.count(), values.size());
  EXPECT_EQ(std::memcmp(out.data().data(), values.data(), values.size() * 8), 0);
}

TEST(BitpackingTest, OutOfLinePaddedAndRawTails) {
  // §10.3: 2500 levels at bw = 3: two full blocks, then 452 values either
  // as a padded third block or as raw u16 words.
  std::vector<uint16_t> levels(2500);
  std::mt19937 rng(5);
  for (uint16_t& l : levels) l = rng() % 8;
  std::vector<uint8_t> blocks;
  for (size_t start = 0; start < 2048; start += 1024) {
    size_t at = blocks.size();
    blocks.resize(at + FastLanesBlockBytes(3));
    FastLanesPack<uint16_t>(levels.data() + start, 3, blocks.data() + at);
  }
  std::vector<uint8_t> padded = blocks;
  uint16_t tail[1024] = {};
  std::copy(levels.begin() + 2048, levels.end(), tail);
  padded.resize(padded.size() + FastLanesBlockBytes(3));
  FastLanesPack<uint16_t>(tail, 3, padded.data() + 2 * FastLanesBlockBytes(3));
  std::vector<uint8_t> raw = blocks;
  for (size_t i = 2048; i < 2500; ++i) PutLE<uint16_t>(&raw, levels[i]);
  for (const auto* bytes : {&padded, &raw}) {
    std::vector<uint16_t> out(2500);
    ASSERT_TRUE(DecodeLevels(OutOfLine(16, 3), ByteSpan{bytes->data(), bytes->size()}, 2500, out.data(), "t").ok());
    EXPECT_EQ(out, levels);
  }
  std::vector<uint16_t> out(2500);
  // A tail that is neither raw words nor a whole block.
  EXPECT_EQ(DecodeLevels(OutOfLine(16, 3), ByteSpan{raw.data(), blocks.size() + 100}, 2500, out.data(), "t").code(),
            ErrorCode::kCorruptData);
  EXPECT_EQ(DecodeLevels(OutOfLine(16, 3), ByteSpan{raw.data(), 500}, 2500, out.data(), "t").code(),
            ErrorCode::kCorruptData);
}

// ---------------------------------------------------------------- rle

TEST(ValueDecodersTest, RleFromSpecExample) {
  // §10.4: i / 1000 over 4096 int64 values; runs longer than 255 split.
  std::vector<uint8_t> values, lengths;
  for (int64_t v = 0; v <= 4; ++v) {
    int count = v < 4 ? 1000 : 96;
    while (count > 0) {
      int run = std::min(count, 255);
      PutLE<int64_t>(&values, v);
      lengths.push_back(static_cast<uint8_t>(run));
      count -= run;
    }
  }
  EXPECT_EQ(lengths[0], 0xff);
  EXPECT_EQ(lengths[3], 0xeb);
  ByteSpan buffers[2] = {{values.data(), values.size()}, {lengths.data(), lengths.size()}};
  LeafValues out(Shape(DataType::Int64()));
  ASSERT_TRUE(DecodeChunkValues(Rle(64), buffers, 2, 4096, nullptr, &out, "t").ok());
  ASSERT_EQ(out.count(), 4096u);
  for (int64_t i = 0; i < 4096; ++i) ASSERT_EQ(LoadLE<int64_t>(out.data().data() + 8 * i), i / 1000) << i;

  // Lance 8 may let the last run overshoot the chunk by a value: ignored.
  LeafValues shorter(Shape(DataType::Int64()));
  ASSERT_TRUE(DecodeChunkValues(Rle(64), buffers, 2, 4095, nullptr, &shorter, "t").ok());
  EXPECT_EQ(shorter.count(), 4095u);
  // Too few values in the runs.
  LeafValues more(Shape(DataType::Int64()));
  EXPECT_EQ(DecodeChunkValues(Rle(64), buffers, 2, 5000, nullptr, &more, "t").code(), ErrorCode::kCorruptData);
  // Run values missing.
  ByteSpan cut[2] = {{values.data(), 16}, {lengths.data(), lengths.size()}};
  EXPECT_EQ(DecodeChunkValues(Rle(64), cut, 2, 4096, nullptr, &more, "t").code(), ErrorCode::kCorruptData);
  // Width mismatch with the column.
  LeafValues ints(Shape(DataType::Int32()));
  EXPECT_EQ(DecodeChunkValues(Rle(64), buffers, 2, 4096, nullptr, &ints, "t").code(), ErrorCode::kCorruptData);
}

// ---------------------------------------------------------------- dictionary

std::vector<uint8_t> DictionaryBlock(const std::vector<std::string>& items, int bits) {
  // §10.6: [W bits][W data start][(n+1) offsets from 0][bytes].
  std::vector<uint8_t> out;
  size_t width = bits / 8;
  auto put = [&](uint64_t v) {
    size_t at = out.size();
    out.resize(at + width);
    std::memcpy(out.data() + at, &v, width);
  };
  put(bits);
  put(2 * width + (items.size() + 1) * width);
  uint64_t offset = 0;
  put(0);
  for (const auto& item : items) put(offset += item.size());
  for (const auto& item : items) out.insert(out.end(), item.begin(), item.end());
  return out;
}

TEST(ValueDecodersTest, DictionaryItemsAndIndices) {
  std::vector<std::string> items = {"alpha", "b", "", "delta"};
  for (int bits : {32, 64}) {
    std::vector<uint8_t> block = DictionaryBlock(items, bits);
    if (bits == 64) {
      // The spec's header shape: 64-bit offsets, data after 16 + 5 * 8 bytes.
      EXPECT_EQ(block[0], 0x40);
      EXPECT_EQ(LoadLE<uint64_t>(block.data() + 8), 16u + 5 * 8);
    }
    LeafValues dictionary(Shape(DataType::Utf8()));
    ASSERT_TRUE(
        DecodeDictionaryItems(Variable(bits), ByteSpan{block.data(), block.size()}, items.size(), &dictionary, "t")
            .ok());
    ASSERT_EQ(dictionary.count(), items.size());
    // Indices as flat u32 and as rle.
    std::vector<uint8_t> flat;
    for (uint32_t i : {3u, 0u, 0u, 2u, 1u}) PutLE<uint32_t>(&flat, i);
    ByteSpan span{flat.data(), flat.size()};
    LeafValues out(Shape(DataType::Utf8()));
    ASSERT_TRUE(DecodeChunkValues(Flat(32), &span, 1, 5, &dictionary, &out, "t").ok());
    std::vector<std::string> got;
    for (uint64_t i = 0; i < out.count(); ++i) {
      got.emplace_back(reinterpret_cast<const char*>(out.data().data()) + out.offsets()[i],
                       out.offsets()[i + 1] - out.offsets()[i]);
    }
    EXPECT_EQ(got, (std::vector<std::string>{"delta", "alpha", "alpha", "", "b"}));
    std::vector<uint8_t> run_values, run_lengths = {2, 3};
    PutLE<uint32_t>(&run_values, 1);
    PutLE<uint32_t>(&run_values, 3);
    ByteSpan rle[2] = {{run_values.data(), run_values.size()}, {run_lengths.data(), run_lengths.size()}};
    LeafValues runs(Shape(DataType::Utf8()));
    ASSERT_TRUE(DecodeChunkValues(Rle(32), rle, 2, 5, &dictionary, &runs, "t").ok());
    EXPECT_EQ(runs.offsets().back(), 1u + 1u + 5u + 5u + 5u);
    // An index past the dictionary.
    std::vector<uint8_t> bad;
    PutLE<uint32_t>(&bad, 4);
    ByteSpan bad_span{bad.data(), bad.size()};
    EXPECT_EQ(DecodeChunkValues(Flat(32), &bad_span, 1, 1, &dictionary, &out, "t").code(), ErrorCode::kCorruptData);
  }
  // Offsets past the block.
  std::vector<uint8_t> block = DictionaryBlock(items, 32);
  StoreLE<uint32_t>(block.data() + 8 + 4 * 4, 1000);
  LeafValues dictionary(Shape(DataType::Utf8()));
  EXPECT_EQ(
      DecodeDictionaryItems(Variable(32), ByteSpan{block.data(), block.size()}, items.size(), &dictionary, "t").code(),
      ErrorCode::kCorruptData);
}

// ---------------------------------------------------------------- fsst

std::string SymbolTable(const std::vector<std::string>& symbols, bool enabled) {
  // §10.5: u64 header ("FSST" << 32 | enabled << 24 | n), n 8-byte symbols,
  // n lengths, zero padding to 2312 bytes.
  std::string table(2312, '\0');
  uint64_t header = (uint64_t{0x46535354} << 32) | (uint64_t{enabled} << 24) | symbols.size();
  std::memcpy(table.data(), &header, 8);
  for (size_t i = 0; i < symbols.size(); ++i) {
    std::memcpy(table.data() + 8 + 8 * i, symbols[i].data(), symbols[i].size());
    table[8 + 8 * symbols.size() + i] = static_cast<char>(symbols[i].size());
  }
  return table;
}

TEST(ValueDecodersTest, FsstStrings) {
  pb::CompressiveEncoding enc;
  enc.mutable_fsst()->set_symbol_table(SymbolTable({"ab", "xyz", "q", "longword"}, true));
  *enc.mutable_fsst()->mutable_values() = Variable(32);
  // Two compressed strings: [0, esc 'Z', 1, 2] and [3, 3].
  std::vector<uint8_t> compressed = {0, 255, 'Z', 1, 2, 3, 3};
  std::vector<uint8_t> buffer;
  PutLE<uint32_t>(&buffer, 12);
  PutLE<uint32_t>(&buffer, 17);
  PutLE<uint32_t>(&buffer, 19);
  buffer.insert(buffer.end(), compressed.begin(), compressed.end());
  ByteSpan span{buffer.data(), buffer.size()};
  LeafValues out(Shape(DataType::Utf8()));
  ASSERT_TRUE(DecodeChunkValues(enc, &span, 1, 2, nullptr, &out, "t").ok());
  std::string all(reinterpret_cast<const char*>(out.data().data()), out.data().size());
  EXPECT_EQ(all, "abZxyzqlongwordlongword");
  EXPECT_EQ(out.offsets(), (std::vector<uint64_t>{0, 7, 23}));

  // A code without a symbol, and a dangling escape.
  auto table = FsstSymbolTable::Parse(enc.fsst().symbol_table(), "t");
  ASSERT_TRUE(table.ok());
  std::vector<uint8_t> sink;
  uint8_t unknown[] = {7};
  EXPECT_EQ(table->Decode(unknown, 1, &sink, "t").code(), ErrorCode::kCorruptData);
  uint8_t dangling[] = {0, 255};
  EXPECT_EQ(table->Decode(dangling, 2, &sink, "t").code(), ErrorCode::kCorruptData);
  // Compression disabled: bytes pass through.
  auto off = FsstSymbolTable::Parse(SymbolTable({"ab"}, false), "t");
  ASSERT_TRUE(off.ok());
  sink.clear();
  uint8_t raw[] = {'h', 'i'};
  ASSERT_TRUE(off->Decode(raw, 2, &sink, "t").ok());
  EXPECT_EQ(std::string(sink.begin(), sink.end()), "hi");
  // Bad magic and short tables.
  std::string bad = SymbolTable({"ab"}, true);
  bad[7] = 'X';
  EXPECT_EQ(FsstSymbolTable::Parse(bad, "t").status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(FsstSymbolTable::Parse(SymbolTable({"ab", "cd"}, true).substr(0, 20), "t").status().code(),
            ErrorCode::kCorruptData);
}

// ---------------------------------------------------------------- general

TEST(ValueDecodersTest, GeneralZstdAndLz4) {
  std::string value;
  for (int i = 0; i < 5000; ++i) value += "value " + std::to_string(i % 97) + ";";
  pb::BufferCompression zstd;
  zstd.set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
  std::vector<uint8_t> framed(8 + ZSTD_compressBound(value.size()));
  uint64_t length = value.size();
  std::memcpy(framed.data(), &length, 8);
  size_t n = ZSTD_compress(framed.data() + 8, framed.size() - 8, value.data(), value.size(), 3);
  ASSERT_FALSE(ZSTD_isError(n));
  framed.resize(8 + n);
  std::vector<uint8_t> out;
  ASSERT_TRUE(DecompressGeneral(zstd, ByteSpan{framed.data(), framed.size()}, &out, "t").ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), value);
  // Wrong declared length, truncated frame, garbage.
  std::vector<uint8_t> wrong = framed;
  StoreLE<uint64_t>(wrong.data(), length + 1);
  EXPECT_EQ(DecompressGeneral(zstd, ByteSpan{wrong.data(), wrong.size()}, &out, "t").code(), ErrorCode::kCorruptData);
  StoreLE<uint64_t>(wrong.data(), length - 1);
  EXPECT_EQ(DecompressGeneral(zstd, ByteSpan{wrong.data(), wrong.size()}, &out, "t").code(), ErrorCode::kCorruptData);
  EXPECT_EQ(DecompressGeneral(zstd, ByteSpan{framed.data(), framed.size() - 5}, &out, "t").code(),
            ErrorCode::kCorruptData);
  StoreLE<uint64_t>(wrong.data(), uint64_t{1} << 60);  // absurd length: no huge allocation
  EXPECT_EQ(DecompressGeneral(zstd, ByteSpan{wrong.data(), wrong.size()}, &out, "t").code(), ErrorCode::kCorruptData);

  pb::BufferCompression lz4;
  lz4.set_scheme(pb::COMPRESSION_ALGORITHM_LZ4);
  std::vector<uint8_t> block(8 + LZ4_compressBound(static_cast<int>(value.size())));
  std::memcpy(block.data(), &length, 8);
  int m = LZ4_compress_default(value.data(), reinterpret_cast<char*>(block.data() + 8), static_cast<int>(value.size()),
                               static_cast<int>(block.size() - 8));
  ASSERT_GT(m, 0);
  block.resize(8 + static_cast<size_t>(m));
  ASSERT_TRUE(DecompressGeneral(lz4, ByteSpan{block.data(), block.size()}, &out, "t").ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), value);
  StoreLE<uint64_t>(block.data(), uint64_t{1} << 40);
  EXPECT_EQ(DecompressGeneral(lz4, ByteSpan{block.data(), block.size()}, &out, "t").code(), ErrorCode::kCorruptData);
}

// ---------------------------------------------------------------- refusals

TEST(ValueDecodersTest, UnimplementedEncodingsAreUnsupported) {
  std::vector<uint8_t> bytes(64, 0);
  ByteSpan span{bytes.data(), bytes.size()};
  pb::CompressiveEncoding bss;
  *bss.mutable_byte_stream_split()->mutable_values() = Flat(32);
  pb::CompressiveEncoding packed;
  packed.set_packed_struct("x");
  pb::CompressiveEncoding constant;
  constant.mutable_constant()->set_value("abcd");
  pb::CompressiveEncoding general;
  general.mutable_general()->mutable_compression()->set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
  *general.mutable_general()->mutable_values() = Flat(32);
  pb::CompressiveEncoding compressed_flat = Flat(32);
  compressed_flat.mutable_flat()->mutable_data()->set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
  for (const auto* enc : {&bss, &packed, &constant, &general, &compressed_flat}) {
    LeafValues out(Shape(DataType::Float32()));
    Status st = DecodeChunkValues(*enc, &span, 1, 4, nullptr, &out, "t");
    EXPECT_EQ(st.code(), ErrorCode::kUnsupported) << EncodingName(*enc) << ": " << st.ToString();
    std::string name(EncodingName(*enc));
    std::string needle = name == "flat" ? "compression" : name;
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  }
  uint16_t levels[4];
  EXPECT_EQ(DecodeLevels(bss, span, 4, levels, "t").code(), ErrorCode::kUnsupported);
}

}  // namespace value_decoders_test
}  // namespace omnigraph::lance
