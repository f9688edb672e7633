// Round trips through DataFileWriter and DataFileReader: every supported
// type, nullable and not, nested shapes, page cutting, full-zip and
// all-null pages, and arbitrary read windows.

#include "lance/data_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "lance/data_file_test_util.h"
#include "support/temp_dir.h"

namespace omnigraph::lance {
namespace data_file_test {

using testing::ExpectArraysEqual;
using testing::ExpectFileHolds;
using testing::FromScalars;
using testing::MakeSchema;
using testing::OpenBytes;
using testing::RandomValues;
using testing::WriteBytes;

Scalar I(int64_t v) {
  return Scalar::Int(v);
}
Scalar S(std::string v) {
  return Scalar::String(std::move(v));
}
Scalar N() {
  return Scalar::Null();
}
Scalar L(std::vector<Scalar> items) {
  return Scalar::Nested(std::move(items));
}

std::vector<Field> AllPrimitiveFields(bool nullable) {
  std::string suffix = nullable ? "_n" : "";
  return {
      Field("bool" + suffix, DataType::Bool(), nullable),       Field("i32" + suffix, DataType::Int32(), nullable),
      Field("i64" + suffix, DataType::Int64(), nullable),       Field("u32" + suffix, DataType::UInt32(), nullable),
      Field("u64" + suffix, DataType::UInt64(), nullable),      Field("f32" + suffix, DataType::Float32(), nullable),
      Field("f64" + suffix, DataType::Float64(), nullable),     Field("utf8" + suffix, DataType::Utf8(), nullable),
      Field("bin" + suffix, DataType::LargeBinary(), nullable), Field("d32" + suffix, DataType::Date32(), nullable),
      Field("d64" + suffix, DataType::Date64(), nullable)};
}

// Writes `batches`, checks the manifest view and every value.
void RoundTrip(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
               DataFileWriterOptions options = {}) {
  WrittenDataFile written;
  std::string bytes = WriteBytes(schema, batches, options, &written);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(written.file_size_bytes, bytes.size());
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  // Ids are compared for top-level fields only: Lance stores no field for
  // the item of a fixed-size list, so that item comes back without an id.
  EXPECT_TRUE(reader->schema()->Equals(*schema, /*compare_ids=*/false))
      << reader->schema()->ToString() << " vs " << schema->ToString();
  for (int i = 0; i < schema->num_fields() && i < reader->schema()->num_fields(); ++i) {
    EXPECT_EQ(reader->schema()->field(i).id, schema->field(i).id);
  }
  ExpectFileHolds(reader.get(), schema, batches);
}

TEST(DataFileTest, PrimitivesWithoutNulls) {
  SchemaPtr schema = MakeSchema(AllPrimitiveFields(false));
  RandomValues random(1);
  RoundTrip(schema, {random.Batch(schema, 1000, 0.0), random.Batch(schema, 37, 0.0)});
}

TEST(DataFileTest, PrimitivesWithNulls) {
  SchemaPtr schema = MakeSchema(AllPrimitiveFields(true));
  RandomValues random(2);
  RoundTrip(schema, {random.Batch(schema, 5000, 0.3)});
}

TEST(DataFileTest, NullsAtFirstAndLastPositions) {
  std::vector<Field> fields = AllPrimitiveFields(true);
  SchemaPtr schema = MakeSchema(fields);
  RandomValues random(3);
  // Row 0 and the last row null in every column; a null run in the middle.
  std::vector<ArrayPtr> columns;
  for (const Field& f : schema->fields()) {
    std::vector<Scalar> values;
    for (int i = 0; i < 300; ++i) {
      bool null = i == 0 || i == 299 || (i >= 100 && i < 140) || i % 17 == 3;
      values.push_back(null ? N() : random.Value(f.type, false, 0.0));
    }
    columns.push_back(FromScalars(f.type, values));
  }
  RoundTrip(schema, {std::make_shared<const RecordBatch>(schema, 300, columns)});
}

TEST(DataFileTest, EmptyStringsAreNotNulls) {
  SchemaPtr schema = MakeSchema({Field("s", DataType::Utf8()), Field("b", DataType::LargeBinary())});
  std::vector<Scalar> values = {S(""), N(), S(""), S("x"), N(), S(""), S("yz")};
  auto batch = std::make_shared<const RecordBatch>(
      schema, 7,
      std::vector<ArrayPtr>{FromScalars(DataType::Utf8(), values), FromScalars(DataType::LargeBinary(), values)});
  std::string bytes = WriteBytes(schema, {batch});
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  auto s = reader->ReadField(schema->field(0).id, 0, 7);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->IsValid(0));
  EXPECT_EQ((*s)->GetView(0), "");
  EXPECT_TRUE((*s)->IsNull(1));
  EXPECT_TRUE((*s)->IsValid(2));
  ExpectFileHolds(reader.get(), schema, {batch});
}

TEST(DataFileTest, AllNullAndAllEmptyStrings) {
  SchemaPtr schema = MakeSchema({Field("nulls", DataType::Utf8()), Field("empties", DataType::Utf8())});
  std::vector<Scalar> nulls(50, N()), empties(50, S(""));
  auto batch = std::make_shared<const RecordBatch>(
      schema, 50, std::vector<ArrayPtr>{FromScalars(DataType::Utf8(), nulls), FromScalars(DataType::Utf8(), empties)});
  RoundTrip(schema, {batch});
}

TEST(DataFileTest, EmptyListsNullListsAndListsOfNulls) {
  DataTypePtr list_i32 = DataType::List(DataType::Int32());
  DataTypePtr list_utf8 = DataType::List(DataType::Utf8());
  SchemaPtr schema = MakeSchema({Field("li", list_i32), Field("ls", list_utf8), Field("lnn", list_i32, false)});
  std::vector<Scalar> li = {L({I(1), I(2)}), N(), L({}), L({I(3)}), L({N()}), L({N(), N()}), L({}), N(), L({I(4)})};
  std::vector<Scalar> ls = {L({S("a"), S("")}), N(),   L({}), L({S("bc")}), L({N()}),
                            L({N(), S("")}),    L({}), N(),   L({S("d")})};
  std::vector<Scalar> lnn = {L({I(1)}), L({}), L({}), L({I(2), I(3)}), L({}), L({I(4)}), L({}), L({}), L({I(5)})};
  auto batch = std::make_shared<const RecordBatch>(
      schema, 9,
      std::vector<ArrayPtr>{FromScalars(list_i32, li), FromScalars(list_utf8, ls), FromScalars(list_i32, lnn)});
  RoundTrip(schema, {batch});
}

TEST(DataFileTest, ListKindsSeparately) {
  DataTypePtr list_i32 = DataType::List(DataType::Int32(), /*item_nullable=*/false);
  SchemaPtr schema = MakeSchema({Field("all_valid", list_i32), Field("nullable", list_i32),
                                 Field("emptyable", list_i32), Field("both", list_i32)});
  std::vector<Scalar> all_valid = {L({I(1)}), L({I(2), I(3)}), L({I(4)})};
  std::vector<Scalar> nullable = {L({I(1)}), N(), L({I(4)})};
  std::vector<Scalar> emptyable = {L({}), L({I(2), I(3)}), L({})};
  std::vector<Scalar> both = {N(), L({}), L({I(4), I(5)})};
  auto batch = std::make_shared<const RecordBatch>(
      schema, 3,
      std::vector<ArrayPtr>{FromScalars(list_i32, all_valid), FromScalars(list_i32, nullable),
                            FromScalars(list_i32, emptyable), FromScalars(list_i32, both)});
  RoundTrip(schema, {batch});
}

TEST(DataFileTest, NestedShapes) {
  DataTypePtr point = DataType::Struct({Field("x", DataType::Int32()), Field("name", DataType::Utf8())});
  DataTypePtr tags =
      DataType::Struct({Field("id", DataType::Int64(), false), Field("tags", DataType::List(DataType::Utf8()))});
  DataTypePtr deep = DataType::Struct(
      {Field("inner", DataType::Struct({Field("a", DataType::Float64()), Field("b", DataType::Bool())})),
       Field("c", DataType::Date32())});
  SchemaPtr schema = MakeSchema({
      Field("list_struct", DataType::List(point)),
      Field("struct_list", tags),
      Field("list_list", DataType::List(DataType::List(DataType::Int32()))),
      Field("list_list_utf8", DataType::List(DataType::List(DataType::Utf8()))),
      Field("deep", deep),
      Field("list_fsl", DataType::List(DataType::FixedSizeList(DataType::Float32(), 3))),
      Field("struct_fsl", DataType::Struct({Field("v", DataType::FixedSizeList(DataType::Float64(), 2))})),
  });
  RandomValues random(4);
  RoundTrip(schema, {random.Batch(schema, 2000, 0.2), random.Batch(schema, 3, 0.5), random.Batch(schema, 500, 0.0)});
}

TEST(DataFileTest, NestedWithNonNullableLevels) {
  DataTypePtr member = DataType::Struct({Field("a", DataType::Int32(), false), Field("b", DataType::Utf8(), true)});
  SchemaPtr schema =
      MakeSchema({Field("l", DataType::List(Field("item", member, false)), false),
                  Field("s", DataType::Struct({Field("l", DataType::List(DataType::Int64(), false), false)}), false)});
  RandomValues random(5);
  RoundTrip(schema, {random.Batch(schema, 1000, 0.25)});
}

TEST(DataFileTest, FixedSizeListsWithNullRowsAndNullItems) {
  SchemaPtr schema = MakeSchema({Field("v", DataType::FixedSizeList(DataType::Float32(), 8)),
                                 Field("w", DataType::FixedSizeList(DataType::Int64(), 3, /*item_nullable=*/true)),
                                 Field("u", DataType::FixedSizeList(DataType::UInt32(), 2), false)});
  RandomValues random(6);
  RoundTrip(schema, {random.Batch(schema, 3000, 0.1)});
  // Items null only in some pages: validity appears mid-file.
  DataFileWriterOptions small;
  small.max_rows_per_page = 100;
  RoundTrip(schema, {random.Batch(schema, 150, 0.0), random.Batch(schema, 150, 0.05)}, small);
}

TEST(DataFileTest, ZeroRows) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int64()), Field("l", DataType::List(DataType::Utf8()))});
  std::string bytes = WriteBytes(schema, {});
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->num_rows(), 0u);
  auto a = reader->ReadField(schema->field(0).id, 0, 0);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->length(), 0);
  auto l = reader->ReadField(schema->field(1).id, 0, 0);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ((*l)->length(), 0);
  EXPECT_EQ(reader->ReadField(schema->field(0).id, 0, 1).status().code(), ErrorCode::kInvalidArgument);
}

TEST(DataFileTest, StructWithoutMembersHasNoColumns) {
  SchemaPtr schema = MakeSchema({Field("i", DataType::Int32()), Field("e", DataType::Struct({}))});
  auto batch = std::make_shared<const RecordBatch>(
      schema, 3,
      std::vector<ArrayPtr>{FromScalars(DataType::Int32(), {I(1), I(2), I(3)}),
                            FromScalars(schema->field(1).type, {L({}), L({}), L({})})});
  WrittenDataFile written;
  std::string bytes = WriteBytes(schema, {batch}, {}, &written);
  EXPECT_EQ(written.fields, std::vector<int32_t>{schema->field(0).id});
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  auto e = reader->ReadField(schema->field(1).id, 1, 2);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->length(), 2);
  EXPECT_EQ((*e)->null_count(), 0);
}

TEST(DataFileTest, OneRow) {
  SchemaPtr schema = MakeSchema(AllPrimitiveFields(true));
  RandomValues random(7);
  RoundTrip(schema, {random.Batch(schema, 1, 0.0)});
  RoundTrip(schema, {random.Batch(schema, 1, 1.0)});
}

TEST(DataFileTest, MillionInt64Rows) {
  SchemaPtr schema = MakeSchema({Field("id", DataType::Int64(), false)});
  std::vector<int64_t> values(1'000'000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i * 7919) - 3'000'000;
  Int64Builder builder(DataType::Int64());
  builder.Reserve(static_cast<int64_t>(values.size()));
  for (int64_t v : values) builder.Append(v);
  auto batch = std::make_shared<const RecordBatch>(schema, 1'000'000, std::vector<ArrayPtr>{builder.Finish()});
  WrittenDataFile written;
  std::string bytes = WriteBytes(schema, {batch}, {}, &written);
  EXPECT_EQ(written.num_rows, 1'000'000u);
  EXPECT_EQ(written.fields, std::vector<int32_t>{schema->field(0).id});
  EXPECT_EQ(written.column_indices, std::vector<int32_t>{0});
  // Values plus small chunk headers: no more than 1% overhead.
  EXPECT_LT(bytes.size(), 8'000'000u * 101 / 100);
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  for (uint64_t start = 0; start < 1'000'000; start += 65536) {
    uint64_t count = std::min<uint64_t>(65536, 1'000'000 - start);
    auto read = reader->ReadField(schema->field(0).id, start, count);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ((*read)->length(), static_cast<int64_t>(count));
    ASSERT_EQ((*read)->null_count(), 0);
    for (uint64_t i = 0; i < count; ++i) ASSERT_EQ((*read)->Value<int64_t>(static_cast<int64_t>(i)), values[start + i]);
  }
}

TEST(DataFileTest, ManyPagesAndArbitraryWindows) {
  SchemaPtr schema = MakeSchema({
      Field("i", DataType::Int64()),
      Field("s", DataType::Utf8()),
      Field("b", DataType::Bool()),
      Field("l", DataType::List(DataType::Utf8())),
      Field("st", DataType::Struct({Field("x", DataType::Int32()), Field("y", DataType::List(DataType::Float64()))})),
      Field("v", DataType::FixedSizeList(DataType::Float32(), 4)),
  });
  RandomValues random(8);
  std::vector<RecordBatchPtr> batches = {random.Batch(schema, 3000, 0.2, 6), random.Batch(schema, 1, 0.2),
                                         random.Batch(schema, 2500, 0.1, 3)};
  DataFileWriterOptions options;
  options.page_bytes = 2048;
  options.max_rows_per_page = 700;
  std::string bytes = WriteBytes(schema, batches, options);
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  ExpectFileHolds(reader.get(), schema, batches);
  RecordBatchPtr all = ConcatBatches(schema, batches);
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 60; ++trial) {
    uint64_t start = rng() % all->num_rows();
    uint64_t count = rng() % (all->num_rows() - start + 1);
    if (trial % 10 == 0) count = std::min<uint64_t>(1, all->num_rows() - start);
    int c = static_cast<int>(rng() % schema->num_fields());
    auto read = reader->ReadField(schema->field(c).id, start, count);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectArraysEqual(SliceArray(*all->column(c), static_cast<int64_t>(start), static_cast<int64_t>(count)), *read,
                      fmt::format("field {} window [{}, +{})", schema->field(c).name, start, count));
  }
}

TEST(DataFileTest, SequentialScanAcrossPageBoundaries) {
  SchemaPtr schema = MakeSchema({Field("l", DataType::List(DataType::Int32())), Field("s", DataType::Utf8())});
  RandomValues random(10);
  RecordBatchPtr batch = random.Batch(schema, 10000, 0.1, 5);
  DataFileWriterOptions options;
  options.page_bytes = 4096;
  std::string bytes = WriteBytes(schema, {batch}, options);
  auto object = std::make_unique<testing::MemoryObject>(bytes);
  testing::MemoryObject* raw = object.get();
  auto reader = DataFileReader::Open(std::move(object));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  int reads_after_open = raw->reads();
  for (int c = 0; c < 2; ++c) {
    std::vector<ArrayPtr> parts;
    for (uint64_t start = 0; start < 10000; start += 333) {
      uint64_t count = std::min<uint64_t>(333, 10000 - start);
      auto part = (*reader)->ReadField(schema->field(c).id, start, count);
      ASSERT_TRUE(part.ok()) << part.status().ToString();
      parts.push_back(*part);
    }
    ExpectArraysEqual(batch->column(c), ConcatArrays(schema->field(c).type, parts), schema->field(c).name);
  }
  // Each page is decoded once: a handful of reads per page at most.
  int reads = raw->reads() - reads_after_open;
  EXPECT_LT(reads, 3 * static_cast<int>(bytes.size() / 4096 + 8)) << reads;
}

TEST(DataFileTest, FullZipForWideValues) {
  SchemaPtr schema = MakeSchema({
      Field("big", DataType::Utf8()),
      Field("blob", DataType::LargeBinary()),
      Field("wide", DataType::FixedSizeList(DataType::Float32(), 4096)),
      Field("wide_items", DataType::FixedSizeList(DataType::Float64(), 1025, /*item_nullable=*/true)),
      Field("list_big", DataType::List(DataType::Utf8())),
      Field("struct_big", DataType::Struct({Field("t", DataType::Utf8()), Field("n", DataType::Int64())})),
  });
  RandomValues random(11);
  auto big_string = [&](int i) { return std::string(100 * 1024 + i, static_cast<char>('a' + i % 26)); };
  std::vector<Scalar> big, blob, list_big, struct_big;
  for (int i = 0; i < 12; ++i) {
    big.push_back(i % 4 == 1 ? N() : i % 4 == 2 ? S("") : S(big_string(i)));
    blob.push_back(i % 3 == 0 ? N() : S(std::string(20000 + i, static_cast<char>(i))));
    list_big.push_back(i % 5 == 0 ? N() : i % 5 == 1 ? L({}) : L({S(big_string(i)), N(), S("tiny")}));
    struct_big.push_back(i % 4 == 3 ? N() : L({i % 2 ? S(big_string(i)) : N(), I(i)}));
  }
  auto batch = std::make_shared<const RecordBatch>(
      schema, 12,
      std::vector<ArrayPtr>{FromScalars(schema->field(0).type, big), FromScalars(schema->field(1).type, blob),
                            random.Column(schema->field(2), 12, 0.2), random.Column(schema->field(3), 12, 0.1),
                            FromScalars(schema->field(4).type, list_big),
                            FromScalars(schema->field(5).type, struct_big)});
  RoundTrip(schema, {batch});
  // Small pages: every wide value its own page.
  DataFileWriterOptions options;
  options.page_bytes = 1024;
  RoundTrip(schema, {batch}, options);
}

TEST(DataFileTest, AllNullPagesBetweenDataPages) {
  SchemaPtr schema = MakeSchema(
      {Field("i", DataType::Int32()), Field("s", DataType::Utf8()), Field("l", DataType::List(DataType::Int32())),
       Field("st", DataType::Struct({Field("a", DataType::Int64()), Field("b", DataType::Utf8())})),
       Field("v", DataType::FixedSizeList(DataType::Float32(), 4)), Field("b", DataType::Bool())});
  RandomValues random(12);
  std::vector<RecordBatchPtr> batches;
  batches.push_back(random.Batch(schema, 100, 0.1));
  batches.push_back(random.Batch(schema, 100, 1.0));  // every row null
  batches.push_back(random.Batch(schema, 100, 0.1));
  // Lists that are all empty or null: no visible values.
  std::vector<Scalar> empties;
  for (int i = 0; i < 100; ++i) empties.push_back(i % 3 == 0 ? N() : L({}));
  RecordBatchPtr middle = random.Batch(schema, 100, 0.1);
  std::vector<ArrayPtr> columns = middle->columns();
  columns[2] = FromScalars(schema->field(2).type, empties);
  batches.push_back(std::make_shared<const RecordBatch>(schema, 100, columns));
  batches.push_back(random.Batch(schema, 100, 0.0));
  DataFileWriterOptions options;
  options.max_rows_per_page = 100;
  RoundTrip(schema, batches, options);
}

TEST(DataFileTest, LongRowsSpanChunks) {
  SchemaPtr schema = MakeSchema(
      {Field("l", DataType::List(DataType::Int64())), Field("ll", DataType::List(DataType::List(DataType::Int32())))});
  // Rows of thousands of items, with empty inner lists spread through.
  std::vector<Scalar> l, ll;
  for (int r = 0; r < 6; ++r) {
    std::vector<Scalar> items, outer;
    for (int i = 0; i < 5000 + r * 700; ++i) items.push_back(i % 97 == 5 ? N() : I(i * r));
    for (int i = 0; i < 1500; ++i) {
      std::vector<Scalar> inner;
      for (int j = 0; j < i % 4; ++j) inner.push_back(I(i + j));
      outer.push_back(i % 13 == 0 ? N() : L(inner));
    }
    l.push_back(r == 2 ? L({}) : L(items));
    ll.push_back(r == 4 ? N() : L(outer));
  }
  auto batch = std::make_shared<const RecordBatch>(
      schema, 6, std::vector<ArrayPtr>{FromScalars(schema->field(0).type, l), FromScalars(schema->field(1).type, ll)});
  RoundTrip(schema, {batch});
}

TEST(DataFileTest, ManyInvisibleLevelsBetweenValues) {
  // 20,000 empty lists before a value exceed any mini-block chunk: strings
  // fall back to full-zip pages.
  SchemaPtr schema = MakeSchema({Field("s", DataType::List(DataType::List(DataType::Utf8())))});
  std::vector<Scalar> s;
  for (int r = 0; r < 3; ++r) {
    std::vector<Scalar> outer(20000, L({}));
    outer.push_back(L({S("x" + std::to_string(r))}));
    s.push_back(L(outer));
  }
  s.push_back(L({L({S("end")})}));
  RoundTrip(schema, {std::make_shared<const RecordBatch>(
                        schema, 4, std::vector<ArrayPtr>{FromScalars(schema->field(0).type, s)})});
}

TEST(DataFileTest, ManyInvisibleBooleanRowsSplitPages) {
  // Booleans cannot use full-zip: runs of empty-list rows longer than a
  // chunk go to pages of their own.
  SchemaPtr schema = MakeSchema({Field("b", DataType::List(DataType::Bool()))});
  std::vector<Scalar> b;
  for (int r = 0; r < 30000; ++r) {
    b.push_back(r % 10000 == 9999 ? L({Scalar::Bool(r % 2 == 0), N()}) : r % 3 == 0 ? N() : L({}));
  }
  RoundTrip(schema, {std::make_shared<const RecordBatch>(
                        schema, 30000, std::vector<ArrayPtr>{FromScalars(schema->field(0).type, b)})});
}

TEST(DataFileTest, BooleanRowWithTooManyEmptyListsIsRefused) {
  // One row holding 20,000 empty lists before its only boolean cannot be
  // chunked (flat u16 levels) and booleans have no full-zip form.
  SchemaPtr schema = MakeSchema({Field("b", DataType::List(DataType::List(DataType::Bool())))});
  std::vector<Scalar> outer(20000, L({}));
  outer.push_back(L({Scalar::Bool(true)}));
  omnigraph::testing::TempDir dir;
  LocalStore store(dir.path());
  auto writer = DataFileWriter::Open(&store, "b.lance", schema);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)
                  ->Write(RecordBatch(schema, 1, std::vector<ArrayPtr>{FromScalars(schema->field(0).type, {L(outer)})}))
                  .ok());
  auto done = (*writer)->Finish();
  EXPECT_EQ(done.status().code(), ErrorCode::kInvalidArgument) << done.status().ToString();
}

TEST(DataFileTest, WriterRejectsBadInput) {
  omnigraph::testing::TempDir dir;
  LocalStore store(dir.path());
  SchemaPtr schema = MakeSchema(
      {Field("a", DataType::Int32(), false), Field("l", DataType::List(Field("item", DataType::Int32(), false)))});
  // Schema without ids.
  auto no_ids = std::make_shared<const Schema>(std::vector<Field>{Field("a", DataType::Int32())});
  EXPECT_EQ(DataFileWriter::Open(&store, "x.lance", no_ids).status().code(), ErrorCode::kInvalidArgument);
  // Fixed-size list of booleans is not a storable leaf.
  EXPECT_EQ(
      DataFileWriter::Open(&store, "x.lance", MakeSchema({Field("f", DataType::FixedSizeList(DataType::Bool(), 4))}))
          .status()
          .code(),
      ErrorCode::kInvalidArgument);

  auto writer = DataFileWriter::Open(&store, "x.lance", schema);
  ASSERT_TRUE(writer.ok());
  SchemaPtr other = MakeSchema({Field("b", DataType::Int64())});
  RandomValues random(13);
  EXPECT_EQ((*writer)->Write(*random.Batch(other, 3, 0)).code(), ErrorCode::kInvalidArgument);
  // A null item in the non-nullable list items.
  std::vector<ArrayPtr> columns = {FromScalars(DataType::Int32(), {I(1), I(2)}),
                                   FromScalars(schema->field(1).type, {L({I(1)}), L({N()})})};
  Status st = (*writer)->Write(RecordBatch(schema, 2, columns));
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument) << st.ToString();
  EXPECT_FALSE((*writer)->Finish().ok());
  // Nothing became visible.
  EXPECT_EQ(store.Head("x.lance").status().code(), ErrorCode::kNotFound);
}

TEST(DataFileTest, ReaderErrorsForMissingFieldsAndBadRanges) {
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32())});
  RandomValues random(14);
  std::string bytes = WriteBytes(schema, {random.Batch(schema, 10, 0.1)});
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->ReadField(99, 0, 1).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(reader->ReadField(schema->field(0).id, 5, 6).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(reader->ReadField(schema->field(0).id, 11, 0).status().code(), ErrorCode::kInvalidArgument);
  auto empty = reader->ReadField(schema->field(0).id, 10, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->length(), 0);
}

TEST(DataFileTest, PagesAreCutBySizeAndRows) {
  SchemaPtr schema = MakeSchema({Field("s", DataType::Utf8())});
  RandomValues random(15);
  RecordBatchPtr batch = random.Batch(schema, 20000, 0.0);
  DataFileWriterOptions options;
  options.page_bytes = 16 * 1024;
  std::string bytes = WriteBytes(schema, {batch}, options);
  // ~20000 * 15 bytes in 16 KiB pages: dozens of pages, each bounded.
  auto reader = OpenBytes(bytes);
  ASSERT_TRUE(reader);
  ExpectFileHolds(reader.get(), schema, {batch});
  EXPECT_GT(bytes.size(), 20000u * 10);
}

}  // namespace data_file_test
}  // namespace omnigraph::lance
