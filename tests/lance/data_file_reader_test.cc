// DataFileReader refusals and robustness: versions, logical types, layouts
// and encodings it does not implement are Unsupported (named); truncated,
// spliced and bit-flipped files give typed errors naming the file or exactly
// the original values (our files carry checksums), never a crash, hang or
// huge allocation.

#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include <random>

#include "encodings21.pb.h"
#include "lance/data_file.h"
#include "lance/data_file_format.h"
#include "lance/data_file_test_util.h"
#include "lance/page_decoder.h"
#include "lance/repdef.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace data_file_reader_test {

namespace pb = ::lance::encodings21;
using testing::FromScalars;
using testing::MakeSchema;
using testing::MemoryObject;
using testing::RandomValues;
using testing::WriteBytes;

Scalar I(int64_t v) {
  return Scalar::Int(v);
}
Scalar S(std::string v) {
  return Scalar::String(std::move(v));
}

void Replace(std::string* bytes, std::string_view from, std::string_view to) {
  ASSERT_EQ(from.size(), to.size());
  size_t at = bytes->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  bytes->replace(at, from.size(), to);
}

// Recomputes the trailing checksums of the FileDescriptor and the column
// metadata after a test edited them in place (a "foreign" file otherwise
// fails its checksums before reaching the feature under test).
void RefreshChecksums(std::string* bytes) {
  const char* footer = bytes->data() + bytes->size() - kFooterBytes;
  uint64_t cmo = LoadLE<uint64_t>(footer + 8), gbo = LoadLE<uint64_t>(footer + 16);
  uint32_t columns = LoadLE<uint32_t>(footer + 28);
  auto refresh = [&](uint64_t table_entry) {
    uint64_t pos = LoadLE<uint64_t>(bytes->data() + table_entry);
    uint64_t size = LoadLE<uint64_t>(bytes->data() + table_entry + 8);
    ASSERT_EQ(CheckTrailingChecksum(std::string_view(*bytes).substr(pos, size)) == ChecksumState::kAbsent, false);
    StoreLE<uint64_t>(bytes->data() + pos + size - 8, Checksum64(bytes->data() + pos, size - 10));
  };
  refresh(gbo);
  for (uint32_t c = 0; c < columns; ++c) refresh(cmo + 16 * c);
}

std::string SmallFile() {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32()), Field("b", DataType::Int64()),
                                 Field("s", DataType::Utf8()), Field("bin", DataType::LargeBinary())});
  auto batch = std::make_shared<const RecordBatch>(
      schema, 3,
      std::vector<ArrayPtr>{FromScalars(DataType::Int32(), {I(1), I(2), I(3)}),
                            FromScalars(DataType::Int64(), {I(4), I(5), I(6)}),
                            FromScalars(DataType::Utf8(), {S("x"), S("y"), S("z")}),
                            FromScalars(DataType::LargeBinary(), {S("p"), S("q"), S("r")})});
  return WriteBytes(schema, {batch});
}

TEST(DataFileReaderTest, OtherFileVersionsAreUnsupported) {
  std::string bytes = SmallFile();
  for (auto [major, minor] : std::vector<std::pair<uint16_t, uint16_t>>{{2, 3}, {2, 0}, {0, 3}, {3, 1}}) {
    std::string patched = bytes;
    StoreLE<uint16_t>(patched.data() + patched.size() - 8, major);
    StoreLE<uint16_t>(patched.data() + patched.size() - 6, minor);
    auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(patched));
    ASSERT_EQ(reader.status().code(), ErrorCode::kUnsupported);
    EXPECT_NE(reader.status().message().find(fmt::format("{}.{}", major, minor)), std::string::npos)
        << reader.status().message();
  }
}

TEST(DataFileReaderTest, LogicalTypesOutsideOurTypesAreUnsupportedByField) {
  std::string bytes = SmallFile();
  // Same-length swaps inside the FileDescriptor.
  Replace(&bytes, "int32", "int16");
  Replace(&bytes, "string", "binary");
  Replace(&bytes, "large_binary", "large_string");
  RefreshChecksums(&bytes);
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  // Only `b` is readable; the others are named when read.
  ASSERT_EQ((*reader)->schema()->num_fields(), 1);
  EXPECT_EQ((*reader)->schema()->field(0).name, "b");
  auto b = (*reader)->ReadField((*reader)->schema()->field(0).id, 0, 3);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->Value<int64_t>(2), 6);
  for (auto [id, type] :
       std::vector<std::pair<int32_t, std::string>>{{0, "int16"}, {2, "binary"}, {3, "large_string"}}) {
    auto read = (*reader)->ReadField(id, 0, 3);
    EXPECT_EQ(read.status().code(), ErrorCode::kUnsupported);
    EXPECT_NE(read.status().message().find(type), std::string::npos) << read.status().message();
  }
}

// Files with identical schema bytes share one parsed layout per process;
// files whose schemas differ in one type, or whose row counts differ, must
// still each be read by their own.
TEST(DataFileReaderTest, SharedLayoutsKeepDifferentFilesApart) {
  auto write = [](DataTypePtr a_type, DataTypePtr s_type, std::vector<Scalar> a, std::vector<Scalar> s,
                  const std::string& name) {
    SchemaPtr schema = MakeSchema({Field("a", a_type), Field("s", s_type)});
    auto rows = static_cast<int64_t>(a.size());
    auto batch = std::make_shared<const RecordBatch>(
        schema, rows, std::vector<ArrayPtr>{FromScalars(a_type, a), FromScalars(s_type, s)});
    return WriteBytes(schema, {batch}, {}, nullptr, name);
  };
  const std::string ints_first =
      write(DataType::Int32(), DataType::Utf8(), {I(1), I(2), I(3)}, {S("x"), S("y"), S("z")}, "one.lance");
  const std::string ints_first_longer = write(DataType::Int32(), DataType::Utf8(), {I(7), I(8), I(9), I(10), I(11)},
                                              {S("p"), S("q"), S("r"), S("s"), S("t")}, "two.lance");
  const std::string strings_first =
      write(DataType::Utf8(), DataType::Int32(), {S("u"), S("v")}, {I(5), I(6)}, "three.lance");
  for (int round = 0; round < 2; ++round) {
    auto first = DataFileReader::Open(std::make_unique<MemoryObject>(ints_first, "one.lance"));
    auto longer = DataFileReader::Open(std::make_unique<MemoryObject>(ints_first_longer, "two.lance"));
    auto swapped = DataFileReader::Open(std::make_unique<MemoryObject>(strings_first, "three.lance"));
    ASSERT_TRUE(first.ok() && longer.ok() && swapped.ok());
    EXPECT_EQ((*first)->num_rows(), 3u);
    EXPECT_EQ((*longer)->num_rows(), 5u);
    EXPECT_EQ((*swapped)->num_rows(), 2u);
    EXPECT_EQ((*first)->schema()->field(0).type->id(), TypeId::kInt32);
    EXPECT_EQ((*swapped)->schema()->field(0).type->id(), TypeId::kUtf8);
    auto a = (*longer)->ReadField(0, 0, 5);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ((*a)->Value<int32_t>(4), 11);
    auto s = (*swapped)->ReadField(1, 0, 2);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->Value<int32_t>(1), 6);
    auto u = (*swapped)->ReadField(0, 0, 2);
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    EXPECT_EQ((*u)->GetView(0), "u");
  }
}

// A field we cannot read is reported naming the file read, not another file
// with the same schema read earlier in the process.
TEST(DataFileReaderTest, UnreadableFieldsNameTheFileBeingRead) {
  std::string bytes = SmallFile();
  Replace(&bytes, "int32", "int16");
  RefreshChecksums(&bytes);
  for (const char* path : {"first.lance", "second.lance"}) {
    auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes, path));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto read = (*reader)->ReadField(0, 0, 3);
    ASSERT_EQ(read.status().code(), ErrorCode::kUnsupported);
    EXPECT_NE(read.status().message().find(path), std::string::npos) << read.status().message();
  }
}

TEST(DataFileReaderTest, ForeignColumnAndPageEncodingsAreUnsupported) {
  std::string bytes = SmallFile();
  std::string blob = bytes;
  // ColumnEncoding{values: Empty} -> ColumnEncoding{blob: ""} in every column.
  std::string from = std::string("ColumnEncoding\x12\x02\x0a\x00", 18),
              to = std::string("ColumnEncoding\x12\x02\x1a\x00", 18);
  for (size_t at = blob.find(from); at != std::string::npos; at = blob.find(from, at + 1)) blob.replace(at, 18, to);
  RefreshChecksums(&blob);
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(blob));
  ASSERT_TRUE(reader.ok());
  auto read = (*reader)->ReadField(1, 0, 3);
  EXPECT_EQ(read.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(read.status().message().find("blob"), std::string::npos) << read.status().message();

  std::string url = bytes;
  for (size_t at = url.find("encodings21.PageLayout"); at != std::string::npos;
       at = url.find("encodings21.PageLayout", at + 1)) {
    url.replace(at, 22, "encodings20.PageLayout");
  }
  RefreshChecksums(&url);
  reader = DataFileReader::Open(std::make_unique<MemoryObject>(url));
  ASSERT_TRUE(reader.ok());
  read = (*reader)->ReadField(1, 0, 3);
  EXPECT_EQ(read.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(read.status().message().find("encodings20"), std::string::npos) << read.status().message();
}

// DecodePage on hand-made layouts of an int32 leaf.
Status DecodeLayout(const pb::PageLayout& layout, const DataTypePtr& type = DataType::Int32(),
                    std::vector<uint64_t> sizes = {16, 16}) {
  Schema schema({Field("a", type)});
  schema.AssignMissingFieldIds();
  std::vector<LeafPath> paths;
  EXPECT_TRUE(CollectLeafPaths(schema.field(0), &paths).ok());
  auto read = [](size_t) -> Result<BufferPtr> { return BufferPtr(Buffer::Zeroed(16)); };
  DecodedPage page;
  return DecodePage(layout, paths[0], 1, sizes, read, &page, "t");
}

TEST(DataFileReaderTest, LayoutsOutsideOurSubsetAreUnsupported) {
  // A constant value on a nullable page without level buffers: which rows
  // hold it is unknown.
  pb::PageLayout constant;
  constant.mutable_all_null_layout()->add_layers(pb::REPDEF_NULLABLE_ITEM);
  constant.mutable_all_null_layout()->set_inline_value("abcd");
  Status no_levels = DecodeLayout(constant, DataType::Int32(), {});
  EXPECT_EQ(no_levels.code(), ErrorCode::kUnsupported) << no_levels.ToString();
  EXPECT_NE(no_levels.message().find("constant"), std::string::npos) << no_levels.message();
  // A 3-byte constant for 4-byte values.
  constant.mutable_all_null_layout()->set_layers(0, pb::REPDEF_ALL_VALID_ITEM);
  constant.mutable_all_null_layout()->set_inline_value("abc");
  Status narrow = DecodeLayout(constant, DataType::Int32(), {});
  EXPECT_EQ(narrow.code(), ErrorCode::kUnsupported) << narrow.ToString();
  EXPECT_NE(narrow.message().find("3-byte inline value"), std::string::npos) << narrow.message();
  pb::PageLayout blob;
  blob.mutable_blob_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  pb::PageLayout sparse;
  sparse.set_sparse_layout("x");
  std::vector<std::pair<const pb::PageLayout*, std::string>> cases = {{&blob, "blob"}, {&sparse, "sparse"}};
  for (const auto& [layout, name] : cases) {
    Status st = DecodeLayout(*layout);
    EXPECT_EQ(st.code(), ErrorCode::kUnsupported) << name << ": " << st.ToString();
    EXPECT_NE(st.message().find(name), std::string::npos) << st.message();
  }
  // A full-zip page of booleans and a mini-block page with byte_stream_split.
  pb::PageLayout fz;
  fz.mutable_full_zip_layout()->set_bits_per_value(1);
  fz.mutable_full_zip_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  fz.mutable_full_zip_layout()->mutable_value_compression()->mutable_flat()->set_bits_per_value(1);
  EXPECT_EQ(DecodeLayout(fz, DataType::Bool(), {16}).code(), ErrorCode::kUnsupported);
  pb::PageLayout bss;
  auto* mb = bss.mutable_mini_block_layout();
  mb->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  mb->set_num_buffers(1);
  mb->set_num_items(1);
  mb->mutable_value_compression()->mutable_byte_stream_split()->mutable_values()->mutable_flat()->set_bits_per_value(
      32);
  Schema schema({Field("a", DataType::Float32())});
  schema.AssignMissingFieldIds();
  std::vector<LeafPath> paths;
  ASSERT_TRUE(CollectLeafPaths(schema.field(0), &paths).ok());
  std::vector<uint8_t> chunk = {0, 0, 4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0};
  auto read = [&](size_t b) -> Result<BufferPtr> {
    if (b == 0) return BufferPtr(Buffer::FromVector({0x10, 0x00}));
    return BufferPtr(Buffer::FromVector(chunk));
  };
  DecodedPage page;
  Status st = DecodePage(bss, paths[0], 1, {2, 16}, read, &page, "t");
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("byte_stream_split"), std::string::npos) << st.message();
}

TEST(DataFileReaderTest, ChecksumsCatchFlippedValueBytes) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int64(), false)});
  Int64Builder builder(DataType::Int64());
  for (int64_t i = 0; i < 1000; ++i) builder.Append(i * 3);
  std::string bytes =
      WriteBytes(schema, {std::make_shared<const RecordBatch>(schema, 1000, std::vector<ArrayPtr>{builder.Finish()})});
  // Value 500 (1500) sits in the chunk data; flip one of its bits.
  std::string needle(8, '\0');
  StoreLE<int64_t>(needle.data(), 1500);
  size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 0x10;
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  ASSERT_TRUE(reader.ok());
  auto read = (*reader)->ReadField(schema->field(0).id, 0, 1000);
  EXPECT_EQ(read.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(read.status().message().find("page checksum does not match"), std::string::npos) << read.status().message();
  // Our files must keep their checksums: a column metadata blob whose
  // trailing checksum field is gone (tag damaged) is refused.
  bytes[at] ^= 0x10;
  const char* footer = bytes.data() + bytes.size() - kFooterBytes;
  uint64_t cmo = LoadLE<uint64_t>(footer + 8);
  uint64_t pos = LoadLE<uint64_t>(bytes.data() + cmo), size = LoadLE<uint64_t>(bytes.data() + cmo + 8);
  bytes[pos + size - 10] ^= 0x01;
  reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  ASSERT_TRUE(reader.ok());
  read = (*reader)->ReadField(schema->field(0).id, 0, 1000);
  EXPECT_EQ(read.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(read.status().message().find("lacks its checksum"), std::string::npos) << read.status().message();
}

// ---------------------------------------------------------------- corruption

// A file with many pages of every layout.
std::string RichFile() {
  SchemaPtr schema = MakeSchema({
      Field("i", DataType::Int64()),
      Field("s", DataType::Utf8()),
      Field("l", DataType::List(DataType::Int32())),
      Field("st", DataType::Struct({Field("x", DataType::Float64()), Field("tags", DataType::List(DataType::Utf8()))})),
      Field("v", DataType::FixedSizeList(DataType::Float32(), 4)),
      Field("b", DataType::Bool()),
      Field("big", DataType::LargeBinary()),
  });
  RandomValues random(77);
  std::vector<RecordBatchPtr> batches = {random.Batch(schema, 120, 0.2), random.Batch(schema, 60, 1.0),
                                         random.Batch(schema, 120, 0.1)};
  // A few wide values for full-zip pages.
  std::vector<Scalar> big;
  for (int i = 0; i < 40; ++i) big.push_back(i % 3 ? Scalar::Null() : S(std::string(9000 + i, static_cast<char>(i))));
  RecordBatchPtr wide = random.Batch(schema, 40, 0.1);
  std::vector<ArrayPtr> columns = wide->columns();
  columns[6] = FromScalars(DataType::LargeBinary(), big);
  batches.push_back(std::make_shared<const RecordBatch>(schema, 40, columns));
  DataFileWriterOptions options;
  options.page_bytes = 1500;
  options.max_rows_per_page = 64;
  return WriteBytes(schema, batches, options);
}

// Opens and reads everything; returns the first error (OK if none) and
// renders every value read into `rendered`.
// Reads the top-level fields `ids` (those of the undamaged file), as the
// table layer does with the manifest's field ids.
Status Exercise(const std::string& bytes, const std::vector<int32_t>& ids, std::string* rendered = nullptr) {
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  if (!reader.ok()) return reader.status();
  Status first;
  const uint64_t rows = (*reader)->num_rows();
  std::string out = (*reader)->schema()->ToString() + "\n";
  for (int32_t id : ids) {
    auto all = (*reader)->ReadField(id, 0, rows);
    if (!all.ok() && first.ok()) first = all.status();
    if (all.ok()) out += (*all)->ToString() + "\n";
    // Forward windows over the same reader, reusing cached pages.
    for (uint64_t start = 0; start < rows; start += 97) {
      auto part = (*reader)->ReadField(id, start, std::min<uint64_t>(97, rows - start));
      if (!part.ok()) {
        if (first.ok()) first = part.status();
        break;
      }
      out += (*part)->ToString() + "\n";
    }
  }
  if (rendered != nullptr) *rendered = std::move(out);
  return first;
}

bool TypedError(const Status& st) {
  return st.code() == ErrorCode::kCorruptData || st.code() == ErrorCode::kUnsupported ||
         st.code() == ErrorCode::kInvalidArgument || st.code() == ErrorCode::kNotFound;
}

TEST(DataFileReaderTest, CorruptionNeverCrashes) {
  // Flipped bits in protobuf strings make libprotobuf log UTF-8 complaints
  // before the parse fails; keep the test output readable.
  google::protobuf::LogHandler* previous = google::protobuf::SetLogHandler([](auto, auto, auto, auto) {});
  struct Restore {
    google::protobuf::LogHandler* handler;
    ~Restore() { google::protobuf::SetLogHandler(handler); }
  } restore{previous};
  std::mt19937_64 rng(2024);
  for (const std::string& bytes : {RichFile(), SmallFile()}) {
    std::vector<int32_t> ids;
    {
      auto clean = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
      ASSERT_TRUE(clean.ok());
      for (const Field& f : (*clean)->schema()->fields()) ids.push_back(f.id);
    }
    std::string original;
    ASSERT_TRUE(Exercise(bytes, ids, &original).ok()) << Exercise(bytes, ids).ToString();
    // Our files carry checksums: a mutation gives a typed error or exactly
    // the original values.
    auto check = [&](const std::string& mutated, const std::string& what) {
      std::string rendered;
      Status st = Exercise(mutated, ids, &rendered);
      if (st.ok()) {
        if (rendered != original) {
          size_t d = 0;
          while (d < rendered.size() && d < original.size() && rendered[d] == original[d]) ++d;
          ADD_FAILURE() << what
                        << " changed the values without an error near: " << original.substr(d > 200 ? d - 200 : 0, 400)
                        << "\n---\n"
                        << rendered.substr(d > 200 ? d - 200 : 0, 400);
          return;
        }
      } else {
        ASSERT_TRUE(TypedError(st)) << what << ": " << st.ToString();
        EXPECT_NE(st.message().find(testing::kMemoryFileName), std::string::npos) << st.message();
      }
    };
    const size_t size = bytes.size();
    const uint64_t cm_start = LoadLE<uint64_t>(bytes.data() + size - kFooterBytes);
    int truncations = 0, splices = 0, flips = 0, flip_errors = 0;
    // Truncations: the footer is gone, so Open must fail with CorruptData.
    for (int t = 0; t < 150; ++t) {
      size_t keep = t < 50 ? size - 1 - static_cast<size_t>(t) : rng() % size;
      Status st = Exercise(bytes.substr(0, keep), ids);
      ASSERT_EQ(st.code(), ErrorCode::kCorruptData) << "truncated to " << keep << ": " << st.ToString();
      ++truncations;
    }
    // Splices: a range removed from the middle, footer intact.
    for (int t = 0; t < 100; ++t) {
      size_t at = rng() % (size - kFooterBytes);
      size_t length = 1 + rng() % std::min<size_t>(size - kFooterBytes - at, 4096);
      check(bytes.substr(0, at) + bytes.substr(at + length), fmt::format("splice at {}", at));
      ++splices;
    }
    // Bit flips anywhere, and more densely in the metadata region.
    for (int t = 0; t < 600; ++t) {
      std::string flipped = bytes;
      size_t at = t % 2 ? cm_start + rng() % (size - cm_start) : rng() % size;
      int count = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < count; ++k) {
        size_t pos = k == 0 ? at : std::min(size - 1, at + rng() % 16);
        flipped[pos] = static_cast<char>(flipped[pos] ^ (1 << (rng() % 8)));
      }
      check(flipped, fmt::format("flip at {}", at));
      flip_errors += Exercise(flipped, ids).ok() ? 0 : 1;
      ++flips;
    }
    // Random garbage over the footer fields.
    for (int t = 0; t < 100; ++t) {
      std::string garbage = bytes;
      for (size_t k = size - kFooterBytes; k < size - 4; ++k) {
        if (rng() % 4 == 0) garbage[k] = static_cast<char>(rng());
      }
      check(garbage, "footer garbage");
    }
    RecordProperty("flip_errors", flip_errors);
    EXPECT_GT(flip_errors, 0);
    EXPECT_EQ(truncations + splices + flips, 850);
  }
}

}  // namespace data_file_reader_test
}  // namespace omnigraph::lance
