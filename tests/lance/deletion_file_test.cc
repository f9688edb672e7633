#include "lance/deletion_file.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lance/arrow_ipc.h"
#include "lance/deletion_fixtures.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace deletion_file_test {

constexpr DeletionFileKind kArrow = DeletionFileKind::kArrowArray;
constexpr DeletionFileKind kBitmap = DeletionFileKind::kBitmap;

std::vector<uint32_t> Range(uint32_t begin, uint32_t end, uint32_t step = 1) {
  std::vector<uint32_t> out;
  for (uint64_t v = begin; v < end; v += step) out.push_back(static_cast<uint32_t>(v));
  return out;
}

std::vector<uint32_t> RandomOffsets(size_t n, uint64_t max_exclusive, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> out;
  while (out.size() < n) {
    for (size_t i = out.size(); i < n; ++i) out.push_back(static_cast<uint32_t>(rng() % max_exclusive));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

bool StrictlyIncreasing(const std::vector<uint32_t>& v) {
  return std::adjacent_find(v.begin(), v.end(), std::greater_equal<uint32_t>()) == v.end();
}

std::string Bytes(std::initializer_list<uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

// ---------------------------------------------------------------------------
// DeletionVector

TEST(DeletionFileVectorTest, FromUnsortedSortsAndDedups) {
  DeletionVector v = DeletionVector::FromUnsorted({9, 3, 3, 0, 4000000000u, 9});
  EXPECT_EQ(v.offsets(), (std::vector<uint32_t>{0, 3, 9, 4000000000u}));
  EXPECT_EQ(v.size(), 4u);
  EXPECT_FALSE(v.empty());
  EXPECT_TRUE(v.Contains(0));
  EXPECT_TRUE(v.Contains(9));
  EXPECT_TRUE(v.Contains(4000000000u));
  EXPECT_FALSE(v.Contains(4));
  EXPECT_FALSE(v.Contains(0xFFFFFFFFu));
  EXPECT_TRUE(DeletionVector().empty());
  EXPECT_EQ(DeletionVector().size(), 0u);
  EXPECT_FALSE(DeletionVector().Contains(0));
}

TEST(DeletionFileVectorTest, UnionHoldsOldAndNewOffsets) {
  DeletionVector old_rows = DeletionVector::FromSorted({0, 1, 2});
  DeletionVector new_rows = DeletionVector::FromSorted({2, 1000, 1001});
  DeletionVector merged = old_rows.Union(new_rows);
  EXPECT_EQ(merged.offsets(), (std::vector<uint32_t>{0, 1, 2, 1000, 1001}));
  EXPECT_EQ(merged, new_rows.Union(old_rows));
  EXPECT_EQ(old_rows.Union(DeletionVector()), old_rows);
  EXPECT_NE(old_rows, new_rows);
}

TEST(DeletionFileKindTest, FollowsLanceThreshold) {
  // Each expectation was observed with Lance 8.0.0 (see deletion_file.h).
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector(), std::nullopt), kArrow);
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted({0, 1, 2}), std::nullopt), kArrow);
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted(Range(0, 4999)), std::nullopt), kArrow);
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted(Range(0, 5000)), std::nullopt), kBitmap);
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted(Range(0, 5001)), std::nullopt), kBitmap);
  // Growing an existing `.arrow` set: promoted only above 5000.
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted(Range(0, 5000)), kArrow), kArrow);
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted(Range(0, 5001)), kArrow), kBitmap);
  // An existing bitmap stays a bitmap, however small the vector gets.
  EXPECT_EQ(ChooseDeletionFileKind(DeletionVector::FromSorted({7}), kBitmap), kBitmap);
}

TEST(DeletionFileNameTest, FormatsLanceNames) {
  EXPECT_EQ(DeletionFileName(0, 2, 8147722823100402773ull, kArrow), "0-2-8147722823100402773.arrow");
  EXPECT_EQ(DeletionFileName(0, 3, 12351476217904616697ull, kBitmap), "0-3-12351476217904616697.bin");
  // Detached read versions have the top bit set: printed unsigned.
  EXPECT_EQ(DeletionFileName(17, 0x8000000000000005ull, 0xFFFFFFFFFFFFFFFFull, kBitmap),
            "17-9223372036854775813-18446744073709551615.bin");
}

// ---------------------------------------------------------------------------
// Round trips

struct NamedSet {
  const char* name;
  std::vector<uint32_t> offsets;
};

std::vector<NamedSet> RoundTripSets() {
  std::vector<uint32_t> lance_like = Range(1000, 8000);
  lance_like.insert(lance_like.begin(), {0, 1, 2});
  return {
      {"empty", {}},
      {"one", {0}},
      {"one_max", {0xFFFFFFFFu}},
      {"5000", Range(0, 5000)},
      {"5001", Range(0, 10002, 2)},
      {"100k_random", RandomOffsets(100000, 10000000, 1)},
      {"100k_range", Range(3, 100003)},
      {"sparse_large", {0, 1, 65535, 65536, 1u << 31, 0xFFFF0000u, 0xFFFFFFFEu, 0xFFFFFFFFu}},
      {"sparse_random_full_range", RandomOffsets(2000, uint64_t{1} << 32, 2)},
      {"bitset_container", RandomOffsets(6000, 65536, 3)},
      {"lance_like", lance_like},
  };
}

TEST(DeletionFileRoundTripTest, BothKindsRoundTripExactly) {
  for (const NamedSet& set : RoundTripSets()) {
    DeletionVector v = DeletionVector::FromSorted(set.offsets);
    for (DeletionFileKind kind : {kArrow, kBitmap}) {
      auto bytes = EncodeDeletionFile(v, kind);
      ASSERT_TRUE(bytes.ok()) << set.name << ": " << bytes.status().ToString();
      auto back = DecodeDeletionFile(*bytes, kind, "rt");
      ASSERT_TRUE(back.ok()) << set.name << ": " << back.status().ToString();
      EXPECT_EQ(back->offsets(), set.offsets) << set.name << " kind " << static_cast<int>(kind);
      EXPECT_EQ(back->size(), set.offsets.size());
    }
  }
}

TEST(DeletionFileRoundTripTest, ArrowFileIsAnUncompressedRowIdColumn) {
  auto bytes = EncodeDeletionFile(DeletionVector::FromSorted({4, 8, 15}), kArrow);
  ASSERT_TRUE(bytes.ok());
  auto reader = arrow_ipc::FileReader::Open(*bytes, "x");
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ(reader->fields().size(), 1u);
  EXPECT_EQ(reader->fields()[0].name, "row_id");
  EXPECT_FALSE(reader->fields()[0].nullable);
  EXPECT_EQ(reader->fields()[0].type, arrow_ipc::DataType::UInt32());
  auto rb = reader->ReadRecordBatch(0);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->length, 3);
  EXPECT_EQ(rb->buffers[1], std::string("\x04\0\0\0\x08\0\0\0\x0f\0\0\0", 12));
}

TEST(DeletionFileRoundTripTest, BitmapBytesAreStandardPortableFormat) {
  // Array container (no runs): cookie 12346, 1 container, key 0, card-1 3,
  // offset 16, values.
  auto array = EncodeDeletionFile(DeletionVector::FromSorted({1, 2, 3, 1000}), kBitmap);
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(*array, Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 16, 0, 0, 0,  //
                           1, 0, 2, 0, 3, 0, 0xe8, 0x03}));
  // Run container: cookie 12347 (1 container), run flags 0x01, key 0,
  // card-1 9, no offset header below 4 containers, 1 run: start 10, length-1 9.
  auto run = EncodeDeletionFile(DeletionVector::FromSorted(Range(10, 20)), kBitmap);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(*run, Bytes({0x3b, 0x30, 0, 0, 0x01, 0, 0, 9, 0, 1, 0, 10, 0, 9, 0}));
  // Empty bitmap: cookie 12346 and zero containers.
  auto empty = EncodeDeletionFile(DeletionVector(), kBitmap);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, Bytes({0x3a, 0x30, 0, 0, 0, 0, 0, 0}));
  // Lance's 7003-row delete ([1000, 8000) plus 0..2) as runs is tiny.
  std::vector<uint32_t> lance_like = Range(1000, 8000);
  lance_like.insert(lance_like.begin(), {0, 1, 2});
  auto small = EncodeDeletionFile(DeletionVector::FromSorted(lance_like), kBitmap);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->size(), 19u);
}

TEST(DeletionFileRoundTripTest, UnknownKindIsInvalidArgument) {
  auto kind = static_cast<DeletionFileKind>(7);
  EXPECT_EQ(EncodeDeletionFile(DeletionVector(), kind).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(DecodeDeletionFile("", kind, "f").status().code(), ErrorCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Decoding what Lance writes, and what it must not

TEST(DeletionFileDecodeTest, ReadsRealLanceArrowFile) {
  std::string file = testing::HexToBytes(testing::kLanceArrowDeletionHex);
  auto v = DecodeDeletionFile(file, kArrow, "0-2-8147722823100402773.arrow");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->offsets(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(DeletionFileDecodeTest, ArrowOffsetsInAnyOrderButUnique) {
  auto unsorted = arrow_ipc::WriteSingleUInt32Column("row_id", std::vector<uint32_t>{9, 1, 5});
  ASSERT_TRUE(unsorted.ok());
  auto v = DecodeDeletionFile(*unsorted, kArrow, "u.arrow");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->offsets(), (std::vector<uint32_t>{1, 5, 9}));

  auto dup = arrow_ipc::WriteSingleUInt32Column("row_id", std::vector<uint32_t>{4, 7, 4});
  ASSERT_TRUE(dup.ok());
  auto bad = DecodeDeletionFile(*dup, kArrow, "d.arrow");
  EXPECT_EQ(bad.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(bad.status().message().find("d.arrow"), std::string::npos);
  EXPECT_NE(bad.status().message().find("row offset 4 appears more than once"), std::string::npos)
      << bad.status().message();
}

TEST(DeletionFileDecodeTest, ArrowWithAnotherTypeIsUnsupported) {
  std::vector<arrow_ipc::Field> fields = {{"row_id", false, arrow_ipc::DataType{arrow_ipc::TypeId::kInt, 64, true, 0}}};
  std::vector<arrow_ipc::RecordBatch> batches(1);
  batches[0].length = 1;
  batches[0].nodes = {{1, 0}};
  batches[0].buffers = {"", std::string(8, '\0')};
  auto file = arrow_ipc::WriteFile(fields, batches);
  ASSERT_TRUE(file.ok());
  auto r = DecodeDeletionFile(*file, kArrow, "i64.arrow");
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(r.status().message().find("Int64"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("i64.arrow"), std::string::npos);
}

struct BadBitmap {
  const char* what;
  std::string bytes;
  const char* message_part;
};

std::string BitsetContainer(uint32_t declared_card, uint32_t set_bits) {
  std::string out = Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0});
  uint16_t card_minus_one = static_cast<uint16_t>(declared_card - 1);
  out.append(reinterpret_cast<const char*>(&card_minus_one), 2);
  out += Bytes({16, 0, 0, 0});
  std::string bits(8192, '\0');
  for (uint32_t i = 0; i < set_bits; ++i) bits[i / 8] = static_cast<char>(bits[i / 8] | (1 << (i % 8)));
  return out + bits;
}

TEST(DeletionFileDecodeTest, MalformedBitmapsAreCorrupt) {
  std::string good = Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 5, 0});
  ASSERT_TRUE(DecodeDeletionFile(good, kBitmap, "g.bin").ok());
  ASSERT_TRUE(DecodeDeletionFile(BitsetContainer(4100, 4100), kBitmap, "g.bin").ok());
  const BadBitmap cases[] = {
      {"empty", "", "too short"},
      {"cookie", Bytes({0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0}), "unknown cookie"},
      {"trailing byte", good + std::string(1, '\0'), "ends after 20 of 21 bytes"},
      {"truncated", good.substr(0, 19), "truncated"},
      {"too many containers", Bytes({0x3a, 0x30, 0, 0, 0x71, 0x11, 1, 0}), "claims"},
      {"unsorted array", Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 5, 0, 3, 0}),
       "not increasing"},
      {"duplicate array", Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 5, 0, 5, 0}),
       "not increasing"},
      {"unsorted keys",
       Bytes({0x3a, 0x30, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 26, 0, 0, 0, 1, 0, 1, 0}),
       "keys are not increasing"},
      {"offset header", Bytes({0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 17, 0, 0, 0, 3, 0, 5, 0}),
       "offset header"},
      {"bitset popcount", BitsetContainer(4100, 4099), "holds 4099 values, its header says 4100"},
      {"no runs", Bytes({0x3b, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 0}), "no runs"},
      {"overlapping runs", Bytes({0x3b, 0x30, 0, 0, 1, 0, 0, 4, 0, 2, 0, 5, 0, 3, 0, 7, 0, 0, 0}), "overlaps"},
      {"run past 16 bits", Bytes({0x3b, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0xff, 0xff, 1, 0}), "16-bit"},
      {"run cardinality", Bytes({0x3b, 0x30, 0, 0, 1, 0, 0, 5, 0, 1, 0, 10, 0, 9, 0}), "holds 10 values"},
  };
  for (const BadBitmap& c : cases) {
    auto r = DecodeDeletionFile(c.bytes, kBitmap, "bad.bin");
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruptData) << c.what;
    EXPECT_NE(r.status().message().find("bad.bin"), std::string::npos) << c.what;
    EXPECT_NE(r.status().message().find(c.message_part), std::string::npos) << c.what << ": " << r.status().message();
  }
}

// ---------------------------------------------------------------------------
// Corruption: truncations and bit flips of valid files must give typed
// errors, never a crash, and never a different vector unless the flipped bit
// lies in bytes that encode values (then any valid, strictly sorted result
// is acceptable).

struct FuzzStats {
  int truncations = 0;
  int flips = 0;
  int flips_still_valid = 0;
};

void Fuzz(const std::string& file, DeletionFileKind kind, const DeletionVector& original,
          const std::function<bool(size_t)>& is_value_byte, size_t stride, FuzzStats* stats) {
  const std::string name = "fuzz-file";
  auto check_error = [&](const Status& s, const std::string& what) {
    EXPECT_TRUE(s.code() == ErrorCode::kCorruptData || s.code() == ErrorCode::kUnsupported)
        << what << ": " << s.ToString();
    EXPECT_NE(s.message().find(name), std::string::npos) << what << ": " << s.message();
  };
  for (size_t len = 0; len < file.size(); len += (len < 64 || file.size() - len < 64) ? 1 : stride) {
    auto r = DecodeDeletionFile(std::string_view(file).substr(0, len), kind, name);
    EXPECT_FALSE(r.ok()) << "truncation to " << len << " of " << file.size() << " bytes decoded";
    if (!r.ok()) check_error(r.status(), "truncation " + std::to_string(len));
    ++stats->truncations;
  }
  std::string mutated = file;
  for (size_t pos = 0; pos < file.size(); pos += (pos < 64 || file.size() - pos < 64) ? 1 : stride) {
    for (int bit = 0; bit < 8; ++bit) {
      mutated[pos] = static_cast<char>(file[pos] ^ (1 << bit));
      auto r = DecodeDeletionFile(mutated, kind, name);
      std::string what = "flip byte " + std::to_string(pos) + " bit " + std::to_string(bit);
      if (!r.ok()) {
        check_error(r.status(), what);
      } else {
        ++stats->flips_still_valid;
        EXPECT_TRUE(StrictlyIncreasing(r->offsets())) << what;
        if (*r != original) {
          EXPECT_TRUE(is_value_byte(pos)) << what << " changed the vector outside the values";
        }
      }
      ++stats->flips;
    }
    mutated[pos] = file[pos];
  }
}

// For our `.arrow` files the only non-empty buffer is the values buffer,
// which fills the body: [body start, end-of-stream marker).
std::function<bool(size_t)> ArrowValueBytes(const std::string& file) {
  size_t batch = 16 + static_cast<size_t>(LoadLE<int32_t>(file.data() + 12));
  size_t body = batch + 8 + static_cast<size_t>(LoadLE<int32_t>(file.data() + batch + 4));
  size_t eos = file.size() - 10 - static_cast<size_t>(LoadLE<int32_t>(file.data() + file.size() - 10)) - 8;
  return [body, eos](size_t pos) { return pos >= body && pos < eos; };
}

// For `.bin` files without run containers: container keys (high 16 bits of
// values) and container payloads encode values; cookie, count, cardinalities
// and offsets do not.
std::function<bool(size_t)> BitmapValueBytes(const std::string& file) {
  uint32_t count = LoadLE<uint32_t>(file.data() + 4);
  size_t headers = 8;
  size_t payload = headers + 8 * size_t{count};
  return [=](size_t pos) {
    if (pos >= payload) return true;
    return pos >= headers && pos < headers + 4 * size_t{count} && (pos - headers) % 4 < 2;
  };
}

TEST(DeletionFileCorruptionTest, ArrowFilesNeverCrashOrLie) {
  FuzzStats stats;
  DeletionVector sparse = DeletionVector::FromSorted(RandomOffsets(40, uint64_t{1} << 32, 7));
  auto plain = EncodeDeletionFile(sparse, kArrow);
  ASSERT_TRUE(plain.ok());
  Fuzz(*plain, kArrow, sparse, ArrowValueBytes(*plain), 1, &stats);

  DeletionVector dense = DeletionVector::FromSorted(Range(100, 700));
  for (auto codec : {arrow_ipc::Compression::kZstd, arrow_ipc::Compression::kLz4Frame}) {
    arrow_ipc::WriteOptions options;
    options.compression = codec;
    auto packed = arrow_ipc::WriteSingleUInt32Column("row_id", dense.offsets(), options);
    ASSERT_TRUE(packed.ok());
    Fuzz(*packed, kArrow, dense, ArrowValueBytes(*packed), 1, &stats);
  }

  // Lance's own file: bytes outside the values buffer (0x1c8..0x1d4) must
  // never change the result.
  std::string lance = testing::HexToBytes(testing::kLanceArrowDeletionHex);
  Fuzz(lance, kArrow, DeletionVector::FromSorted({0, 1, 2}), [](size_t pos) { return pos >= 0x1c8 && pos < 0x1d4; },
       1, &stats);

  EXPECT_GT(stats.truncations, 1500);
  EXPECT_GT(stats.flips, 15000);
  // Most flips hit metadata and must be caught; some land in padding or the
  // leading schema message (which the footer supersedes) and change nothing.
  EXPECT_GT(stats.flips_still_valid, 0);
}

TEST(DeletionFileCorruptionTest, BitmapFilesNeverCrashOrLie) {
  FuzzStats stats;
  DeletionVector sparse = DeletionVector::FromSorted(RandomOffsets(60, uint64_t{1} << 32, 11));
  auto arrays = EncodeDeletionFile(sparse, kBitmap);
  ASSERT_TRUE(arrays.ok());
  ASSERT_EQ(LoadLE<uint32_t>(arrays->data()), 12346u);
  Fuzz(*arrays, kBitmap, sparse, BitmapValueBytes(*arrays), 1, &stats);

  DeletionVector bitset = DeletionVector::FromSorted(RandomOffsets(6000, 65536, 12));
  auto big = EncodeDeletionFile(bitset, kBitmap);
  ASSERT_TRUE(big.ok());
  ASSERT_EQ(LoadLE<uint32_t>(big->data()), 12346u);
  Fuzz(*big, kBitmap, bitset, BitmapValueBytes(*big), 97, &stats);

  // Run containers: any flip in the runs may move a run; the flags byte,
  // cardinalities and run counts must be caught.
  std::vector<uint32_t> runs = Range(1000, 8000);
  runs.insert(runs.begin(), {0, 1, 2});
  for (uint32_t k = 1; k < 6; ++k) {
    for (uint32_t v : Range(k << 16, (k << 16) + 300)) runs.push_back(v);
  }
  DeletionVector run_vector = DeletionVector::FromSorted(runs);
  auto with_runs = EncodeDeletionFile(run_vector, kBitmap);
  ASSERT_TRUE(with_runs.ok());
  ASSERT_EQ(LoadLE<uint16_t>(with_runs->data()), 12347u);
  // 6 containers: cookie 4, flags 1, headers 24, offsets 24, then runs.
  Fuzz(*with_runs, kBitmap, run_vector,
       [](size_t pos) { return pos >= 53 || (pos >= 5 && pos < 29 && (pos - 5) % 4 < 2); }, 1, &stats);

  EXPECT_GT(stats.truncations, 400);
  EXPECT_GT(stats.flips, 3000);
}

}  // namespace deletion_file_test
}  // namespace omnigraph::lance
