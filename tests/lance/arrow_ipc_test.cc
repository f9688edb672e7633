#include "lance/arrow_ipc.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>
#include <lz4frame.h>
#include <zstd.h>

#include "arrow_ipc_generated.h"
#include "lance/deletion_fixtures.h"
#include "util/endian.h"

namespace omnigraph::lance::arrow_ipc {
namespace arrow_ipc_test {

namespace fb = ::omnigraph::lance::arrow_fb;

std::string Bytes(const std::vector<uint32_t>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
}

// Positions of the pieces of a file with one batch, found by walking the
// encapsulation framing only (no flatbuffers), so the writer's layout can be
// checked byte for byte.
struct Layout {
  size_t schema_message = 0;     // continuation marker of the schema message
  size_t batch_message = 0;      // continuation marker of the batch message
  size_t body = 0;               // first body byte
  size_t eos = 0;                // end-of-stream marker
  size_t footer = 0;             // footer flatbuffer
  int32_t footer_length = 0;
};

Layout WalkSingleBatchFile(const std::string& file) {
  Layout l;
  l.schema_message = 8;
  int32_t schema_meta = LoadLE<int32_t>(file.data() + 12);
  l.batch_message = 16 + static_cast<size_t>(schema_meta);
  int32_t batch_meta = LoadLE<int32_t>(file.data() + l.batch_message + 4);
  l.body = l.batch_message + 8 + static_cast<size_t>(batch_meta);
  l.footer_length = LoadLE<int32_t>(file.data() + file.size() - 10);
  l.footer = file.size() - 10 - static_cast<size_t>(l.footer_length);
  l.eos = l.footer - 8;
  return l;
}

// ---------------------------------------------------------------------------
// An independent file builder for tests: writes files our writer never
// produces (other types, compressed bodies compressed here, broken counts).

struct Crafted {
  std::string name = "row_id";
  bool nullable = false;
  fb::Type type = fb::Type_Int;
  int32_t bit_width = 32;
  bool is_signed = false;
  bool dictionary = false;
  int num_fields = 1;
  fb::MetadataVersion footer_version = fb::MetadataVersion_V5;
  fb::MetadataVersion message_version = fb::MetadataVersion_V5;
  int num_batches = 1;
  std::vector<uint32_t> values;
  std::optional<int64_t> batch_length;    // default: values.size()
  std::optional<int64_t> node_length;     // default: values.size()
  int64_t null_count = 0;
  std::string validity;                   // raw validity bitmap, "" = absent
  std::optional<int8_t> codec;            // nullopt = no BodyCompression table
  int8_t method = 0;
  bool store_values_raw = false;          // with a codec: prefix -1, raw bytes
  size_t alignment = 8;
  std::optional<int64_t> values_offset;   // overrides the values buffer offset
  std::optional<int64_t> declared_length; // overrides the int64 length prefix
};

std::string Compress(int8_t codec, std::string_view raw) {
  std::string out;
  if (codec == fb::CompressionType_ZSTD) {
    out.resize(ZSTD_compressBound(raw.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 1);
    EXPECT_FALSE(ZSTD_isError(n));
    out.resize(n);
  } else {
    out.resize(LZ4F_compressFrameBound(raw.size(), nullptr));
    size_t n = LZ4F_compressFrame(out.data(), out.size(), raw.data(), raw.size(), nullptr);
    EXPECT_FALSE(LZ4F_isError(n));
    out.resize(n);
  }
  return out;
}

void Pad(std::string* s, size_t alignment) {
  while (s->size() % alignment != 0) s->push_back('\0');
}

void AppendMessage(const flatbuffers::FlatBufferBuilder& b, size_t alignment, std::string* out) {
  std::string fbuf(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  Pad(&fbuf, 1);
  size_t padded = fbuf.size();
  while ((8 + padded) % alignment != 0) ++padded;
  fbuf.resize(padded, '\0');
  uint32_t marker = 0xFFFFFFFF;
  int32_t len = static_cast<int32_t>(padded);
  out->append(reinterpret_cast<const char*>(&marker), 4);
  out->append(reinterpret_cast<const char*>(&len), 4);
  out->append(fbuf);
}

flatbuffers::Offset<fb::Schema> CraftSchema(flatbuffers::FlatBufferBuilder& b, const Crafted& c) {
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  for (int i = 0; i < c.num_fields; ++i) {
    auto name = b.CreateString(i == 0 ? c.name : c.name + std::to_string(i));
    flatbuffers::Offset<void> type;
    switch (c.type) {
      case fb::Type_Int: type = fb::CreateInt(b, c.bit_width, c.is_signed).Union(); break;
      case fb::Type_FloatingPoint: type = fb::CreateFloatingPoint(b, fb::Precision_DOUBLE).Union(); break;
      case fb::Type_Utf8: type = fb::CreateUtf8(b).Union(); break;
      default: type = fb::CreateNull(b).Union(); break;  // an empty table verifies for any member
    }
    flatbuffers::Offset<fb::DictionaryEncoding> dict = 0;
    if (c.dictionary) dict = fb::CreateDictionaryEncoding(b);
    fb::FieldBuilder f(b);
    f.add_name(name);
    f.add_nullable(c.nullable);
    f.add_type_type(c.type);
    f.add_type(type);
    if (c.dictionary) f.add_dictionary(dict);
    fields.push_back(f.Finish());
  }
  return fb::CreateSchema(b, fb::Endianness_Little, b.CreateVector(fields));
}

std::string Build(const Crafted& c) {
  std::string out = "ARROW1";
  Pad(&out, c.alignment);
  {
    flatbuffers::FlatBufferBuilder b;
    auto schema = CraftSchema(b, c);
    b.Finish(fb::CreateMessage(b, c.message_version, fb::MessageHeader_Schema, schema.Union(), 0));
    AppendMessage(b, c.alignment, &out);
  }
  auto frame = [&](std::string_view raw, bool store_raw) {
    if (!c.codec || raw.empty()) return std::string(raw);
    int64_t prefix = store_raw ? -1 : c.declared_length.value_or(static_cast<int64_t>(raw.size()));
    std::string framed(reinterpret_cast<const char*>(&prefix), 8);
    framed += store_raw ? std::string(raw) : Compress(*c.codec, raw);
    return framed;
  };
  std::string body;
  std::vector<fb::Buffer> buffers;
  std::string validity = frame(c.validity, /*store_raw=*/true);
  buffers.emplace_back(0, static_cast<int64_t>(validity.size()));
  body += validity;
  Pad(&body, c.alignment);
  std::string values = frame(Bytes(c.values), c.store_values_raw);
  buffers.emplace_back(c.values_offset.value_or(static_cast<int64_t>(body.size())),
                       static_cast<int64_t>(values.size()));
  body += values;
  Pad(&body, c.alignment);

  const int64_t n = static_cast<int64_t>(c.values.size());
  std::vector<fb::Block> blocks;
  for (int i = 0; i < c.num_batches; ++i) {
    flatbuffers::FlatBufferBuilder b;
    std::vector<fb::FieldNode> nodes;
    for (int f = 0; f < c.num_fields; ++f) nodes.emplace_back(c.node_length.value_or(n), c.null_count);
    auto nodes_vec = b.CreateVectorOfStructs(nodes);
    auto buffers_vec = b.CreateVectorOfStructs(buffers);
    flatbuffers::Offset<fb::BodyCompression> compression = 0;
    if (c.codec) {
      compression = fb::CreateBodyCompression(b, static_cast<fb::CompressionType>(*c.codec),
                                              static_cast<fb::BodyCompressionMethod>(c.method));
    }
    auto rb = fb::CreateRecordBatch(b, c.batch_length.value_or(n), nodes_vec, buffers_vec, compression);
    b.Finish(fb::CreateMessage(b, c.message_version, fb::MessageHeader_RecordBatch, rb.Union(),
                               static_cast<int64_t>(body.size())));
    size_t offset = out.size();
    AppendMessage(b, c.alignment, &out);
    int32_t meta = static_cast<int32_t>(out.size() - offset);
    out += body;
    blocks.emplace_back(static_cast<int64_t>(offset), meta, static_cast<int64_t>(body.size()));
  }
  out.append("\xff\xff\xff\xff\0\0\0\0", 8);
  flatbuffers::FlatBufferBuilder b;
  auto schema = CraftSchema(b, c);
  b.Finish(fb::CreateFooter(b, c.footer_version, schema, 0, b.CreateVectorOfStructs(blocks)));
  out.append(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
  int32_t footer_len = static_cast<int32_t>(b.GetSize());
  out.append(reinterpret_cast<const char*>(&footer_len), 4);
  out += "ARROW1";
  return out;
}

Result<std::vector<uint32_t>> ReadRowIds(const std::string& file) {
  return ReadSingleUInt32Column(file, "row_id", "t.arrow");
}

// ---------------------------------------------------------------------------
// Writer

TEST(ArrowIpcWriterTest, ExactFramingOfUncompressedFile) {
  auto file = WriteSingleUInt32Column("row_id", std::vector<uint32_t>{1, 2, 3});
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const std::string& f = *file;
  // Leading magic padded to 8 bytes.
  EXPECT_EQ(f.substr(0, 8), std::string("ARROW1\0\0", 8));
  // Schema message: continuation marker, metadata size keeping 8-alignment.
  EXPECT_EQ(LoadLE<uint32_t>(f.data() + 8), 0xFFFFFFFFu);
  Layout l = WalkSingleBatchFile(f);
  EXPECT_EQ((8 + LoadLE<int32_t>(f.data() + 12)) % 8, 0);
  EXPECT_EQ(l.batch_message % 8, 0u);
  EXPECT_EQ(LoadLE<uint32_t>(f.data() + l.batch_message), 0xFFFFFFFFu);
  EXPECT_EQ(l.body % 8, 0u);
  // Body: validity absent, values 1,2,3 at body offset 0, padded to 16.
  EXPECT_EQ(f.substr(l.body, 16), std::string("\x01\0\0\0\x02\0\0\0\x03\0\0\0\0\0\0\0", 16));
  EXPECT_EQ(l.eos, l.body + 16);
  // End-of-stream marker, footer, int32 footer length, trailing magic.
  EXPECT_EQ(f.substr(l.eos, 8), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
  EXPECT_GT(l.footer_length, 0);
  EXPECT_EQ(f.substr(f.size() - 6), "ARROW1");
  EXPECT_EQ(f.size(), l.footer + static_cast<size_t>(l.footer_length) + 10);

  // The footer names one record batch block at the batch message, and the
  // schema: one non-nullable UInt32 "row_id".
  flatbuffers::Verifier v(reinterpret_cast<const uint8_t*>(f.data() + l.footer), l.footer_length);
  ASSERT_TRUE(fb::VerifyFooterBuffer(v));
  const fb::Footer* footer = fb::GetFooter(f.data() + l.footer);
  EXPECT_EQ(footer->version(), fb::MetadataVersion_V5);
  ASSERT_EQ(footer->record_batches()->size(), 1u);
  const fb::Block* block = footer->record_batches()->Get(0);
  EXPECT_EQ(block->offset(), static_cast<int64_t>(l.batch_message));
  EXPECT_EQ(block->meta_data_length(), static_cast<int32_t>(l.body - l.batch_message));
  EXPECT_EQ(block->body_length(), 16);
  ASSERT_EQ(footer->schema()->fields()->size(), 1u);
  const fb::Field* field = footer->schema()->fields()->Get(0);
  EXPECT_EQ(field->name()->str(), "row_id");
  EXPECT_FALSE(field->nullable());
  ASSERT_EQ(field->type_type(), fb::Type_Int);
  EXPECT_EQ(field->type_as_Int()->bit_width(), 32);
  EXPECT_FALSE(field->type_as_Int()->is_signed());
}

TEST(ArrowIpcWriterTest, EmptyColumnHasEmptyBody) {
  auto file = WriteSingleUInt32Column("row_id", {});
  ASSERT_TRUE(file.ok());
  Layout l = WalkSingleBatchFile(*file);
  EXPECT_EQ(l.eos, l.body);
  auto values = ReadRowIds(*file);
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_TRUE(values->empty());
}

TEST(ArrowIpcWriterTest, CompressedBuffersUseLanceLayout) {
  std::vector<uint32_t> values;
  for (uint32_t i = 0; i < 10000; ++i) values.push_back(i % 250);  // repetitive: both codecs shrink it
  for (Compression codec : {Compression::kZstd, Compression::kLz4Frame}) {
    WriteOptions options;
    options.compression = codec;
    auto file = WriteSingleUInt32Column("row_id", values, options);
    ASSERT_TRUE(file.ok());
    Layout l = WalkSingleBatchFile(*file);
    // int64 uncompressed length, then the codec's frame magic.
    EXPECT_EQ(LoadLE<int64_t>(file->data() + l.body), 40000);
    uint32_t magic = LoadLE<uint32_t>(file->data() + l.body + 8);
    EXPECT_EQ(magic, codec == Compression::kZstd ? 0xFD2FB528u : 0x184D2204u);
    EXPECT_LT(file->size(), 40000u);
    auto back = ReadRowIds(*file);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, values);
  }
}

TEST(ArrowIpcWriterTest, IncompressibleBufferIsStoredRawWithMinusOne) {
  WriteOptions options;
  options.compression = Compression::kZstd;
  auto file = WriteSingleUInt32Column("row_id", std::vector<uint32_t>{7, 9}, options);
  ASSERT_TRUE(file.ok());
  Layout l = WalkSingleBatchFile(*file);
  EXPECT_EQ(LoadLE<int64_t>(file->data() + l.body), -1);
  EXPECT_EQ(file->substr(l.body + 8, 8), std::string("\x07\0\0\0\x09\0\0\0", 8));
  auto back = ReadRowIds(*file);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<uint32_t>{7, 9}));

  // Forcing compression of a tiny buffer takes the compressed path.
  options.store_raw_if_not_smaller = false;
  file = WriteSingleUInt32Column("row_id", std::vector<uint32_t>{7, 9}, options);
  ASSERT_TRUE(file.ok());
  l = WalkSingleBatchFile(*file);
  EXPECT_EQ(LoadLE<int64_t>(file->data() + l.body), 8);
  back = ReadRowIds(*file);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, (std::vector<uint32_t>{7, 9}));
}

TEST(ArrowIpcWriterTest, GenericFileWithSeveralFieldsAndBatches) {
  std::vector<Field> fields = {{"a", false, DataType{TypeId::kInt, 64, true, 0}},
                               {"b", true, DataType{TypeId::kInt, 8, false, 0}}};
  std::vector<RecordBatch> batches(2);
  for (int i = 0; i < 2; ++i) {
    RecordBatch& rb = batches[static_cast<size_t>(i)];
    rb.length = 3;
    rb.nodes = {{3, 0}, {3, 1}};
    int64_t a[3] = {-1, i, 1LL << 40};
    rb.buffers = {"", std::string(reinterpret_cast<const char*>(a), 24), std::string("\x05", 1),
                  std::string("\x0a\x0b\x0c", 3)};
  }
  for (Compression codec : {Compression::kNone, Compression::kZstd, Compression::kLz4Frame}) {
    WriteOptions options;
    options.compression = codec;
    options.store_raw_if_not_smaller = false;
    auto file = WriteFile(fields, batches, options);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto reader = FileReader::Open(*file, "multi.arrow");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(reader->fields(), fields);
    ASSERT_EQ(reader->num_record_batches(), 2);
    for (int i = 0; i < 2; ++i) {
      auto rb = reader->ReadRecordBatch(i);
      ASSERT_TRUE(rb.ok()) << rb.status().ToString();
      EXPECT_EQ(rb->length, 3);
      EXPECT_EQ(rb->nodes, (std::vector<FieldNode>{{3, 0}, {3, 1}}));
      EXPECT_EQ(rb->buffers, batches[static_cast<size_t>(i)].buffers);
    }
    auto missing = reader->ReadRecordBatch(2);
    EXPECT_EQ(missing.status().code(), ErrorCode::kInvalidArgument);
  }
}

TEST(ArrowIpcWriterTest, RejectsWhatItCannotWrite) {
  std::vector<Field> utf8 = {{"s", true, DataType{TypeId::kUtf8, 0, false, 0}}};
  auto r = WriteFile(utf8, {});
  EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(r.status().message().find("Utf8"), std::string::npos) << r.status().message();

  std::vector<Field> ints = {{"x", false, DataType::UInt32()}};
  std::vector<RecordBatch> bad(1);
  bad[0].length = 1;
  bad[0].nodes = {{1, 0}};
  bad[0].buffers = {""};  // value buffer missing
  EXPECT_EQ(WriteFile(ints, bad).status().code(), ErrorCode::kInvalidArgument);
  bad[0].buffers = {"", std::string(2, '\0')};  // too short for one UInt32
  EXPECT_EQ(WriteFile(ints, bad).status().code(), ErrorCode::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Reader, on files built independently of our writer

TEST(ArrowIpcReaderTest, ReadsRealLanceDeletionFile) {
  std::string file = testing::HexToBytes(testing::kLanceArrowDeletionHex);
  ASSERT_EQ(file.size(), 698u);
  auto values = ReadSingleUInt32Column(file, "row_id", "0-2-8147722823100402773.arrow");
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(*values, (std::vector<uint32_t>{1, 2, 0}));  // hash-set order

  auto reader = FileReader::Open(file, "lance.arrow");
  ASSERT_TRUE(reader.ok());
  auto rb = reader->ReadRecordBatch(0);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->buffers[0], std::string("\xff", 1));  // Lance writes a validity bitmap
}

TEST(ArrowIpcReaderTest, ZstdBodyCompressedByTest) {
  Crafted c;
  for (uint32_t i = 0; i < 3000; ++i) c.values.push_back(i * 7 % 3001);
  c.codec = fb::CompressionType_ZSTD;
  c.validity = std::string(375, '\xff');
  auto values = ReadRowIds(Build(c));
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(*values, c.values);
}

TEST(ArrowIpcReaderTest, Lz4FrameBodyCompressedByTest) {
  Crafted c;
  for (uint32_t i = 0; i < 3000; ++i) c.values.push_back(4000000000u - i);
  c.codec = fb::CompressionType_LZ4_FRAME;
  c.alignment = 64;
  auto values = ReadRowIds(Build(c));
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(*values, c.values);
}

TEST(ArrowIpcReaderTest, RawBufferInsideCompressedBatch) {
  Crafted c;
  c.values = {5, 3, 9};
  c.codec = fb::CompressionType_ZSTD;
  c.store_values_raw = true;
  c.validity = "\x07";
  c.alignment = 64;
  auto values = ReadRowIds(Build(c));
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(*values, (std::vector<uint32_t>{5, 3, 9}));
}

TEST(ArrowIpcReaderTest, WrongDeclaredLengthIsCorrupt) {
  for (int8_t codec : {int8_t{fb::CompressionType_ZSTD}, int8_t{fb::CompressionType_LZ4_FRAME}}) {
    for (int64_t declared : {int64_t{11}, int64_t{13}, int64_t{1} << 40, int64_t{-2}}) {
      Crafted c;
      c.values = {1, 2, 3};
      c.codec = codec;
      c.declared_length = declared;
      auto values = ReadRowIds(Build(c));
      EXPECT_EQ(values.status().code(), ErrorCode::kCorruptData) << codec << " " << declared;
      EXPECT_NE(values.status().message().find("t.arrow"), std::string::npos);
    }
  }
}

struct RejectCase {
  const char* what;
  void (*mutate)(Crafted*);
  ErrorCode code;
  const char* message_part;
};

TEST(ArrowIpcReaderTest, RejectsFilesOfTheWrongShape) {
  const RejectCase cases[] = {
      {"int64", [](Crafted* c) { c->bit_width = 64; c->is_signed = true; }, ErrorCode::kUnsupported, "Int64"},
      {"int32", [](Crafted* c) { c->is_signed = true; }, ErrorCode::kUnsupported, "Int32"},
      {"utf8", [](Crafted* c) { c->type = fb::Type_Utf8; }, ErrorCode::kUnsupported, "Utf8"},
      {"float", [](Crafted* c) { c->type = fb::Type_FloatingPoint; }, ErrorCode::kUnsupported, "Float64"},
      {"future type", [](Crafted* c) { c->type = static_cast<fb::Type>(40); }, ErrorCode::kUnsupported,
       "type #40"},
      {"codec", [](Crafted* c) { c->codec = 2; }, ErrorCode::kUnsupported, "codec 2"},
      {"method", [](Crafted* c) { c->codec = 1; c->method = 1; }, ErrorCode::kUnsupported, "method 1"},
      {"version", [](Crafted* c) { c->footer_version = fb::MetadataVersion_V3; }, ErrorCode::kUnsupported,
       "version V3"},
      {"message version", [](Crafted* c) { c->message_version = fb::MetadataVersion_V2; }, ErrorCode::kUnsupported,
       "version V2"},
      {"dictionary", [](Crafted* c) { c->dictionary = true; }, ErrorCode::kUnsupported, "dictionary"},
      {"name", [](Crafted* c) { c->name = "offset"; }, ErrorCode::kCorruptData, "'offset'"},
      {"nullable", [](Crafted* c) { c->nullable = true; }, ErrorCode::kCorruptData, "nullable"},
      {"two fields", [](Crafted* c) { c->num_fields = 2; }, ErrorCode::kCorruptData, "2 fields"},
      {"two batches", [](Crafted* c) { c->num_batches = 2; }, ErrorCode::kCorruptData, "2 record batches"},
      {"no batch", [](Crafted* c) { c->num_batches = 0; }, ErrorCode::kCorruptData, "0 record batches"},
      {"node length", [](Crafted* c) { c->node_length = 2; }, ErrorCode::kCorruptData, "holds 2 values"},
      {"batch length", [](Crafted* c) { c->batch_length = 4; c->node_length = 4; }, ErrorCode::kCorruptData,
       "value buffer"},
      {"nulls", [](Crafted* c) { c->null_count = 1; c->validity = "\x06"; }, ErrorCode::kCorruptData, "1 nulls"},
      {"buffer outside", [](Crafted* c) { c->values_offset = 9; }, ErrorCode::kCorruptData, "outside"},
      {"negative offset", [](Crafted* c) { c->values_offset = -8; }, ErrorCode::kCorruptData, "outside"},
  };
  for (const RejectCase& rc : cases) {
    Crafted c;
    c.values = {1, 2, 3};
    rc.mutate(&c);
    auto values = ReadRowIds(Build(c));
    ASSERT_FALSE(values.ok()) << rc.what;
    EXPECT_EQ(values.status().code(), rc.code) << rc.what << ": " << values.status().ToString();
    EXPECT_NE(values.status().message().find(rc.message_part), std::string::npos)
        << rc.what << ": " << values.status().message();
    EXPECT_NE(values.status().message().find("t.arrow"), std::string::npos) << rc.what;
  }
}

TEST(ArrowIpcReaderTest, FramingErrorsAreCorrupt) {
  auto good = WriteSingleUInt32Column("row_id", std::vector<uint32_t>{1, 2, 3});
  ASSERT_TRUE(good.ok());
  Layout l = WalkSingleBatchFile(*good);
  auto expect_corrupt = [](std::string bytes, const char* part) {
    auto r = ReadSingleUInt32Column(bytes, "row_id", "f.arrow");
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruptData) << part;
    EXPECT_NE(r.status().message().find(part), std::string::npos) << r.status().message();
  };
  expect_corrupt("", "too short");
  std::string bad = *good;
  bad[0] = 'X';
  expect_corrupt(bad, "leading ARROW1");
  bad = *good;
  bad[bad.size() - 1] = 'X';
  expect_corrupt(bad, "trailing ARROW1");
  bad = *good;
  StoreLE<int32_t>(bad.data() + bad.size() - 10, 1 << 30);
  expect_corrupt(bad, "footer length");
  bad = *good;
  StoreLE<int32_t>(bad.data() + bad.size() - 10, -4);
  expect_corrupt(bad, "footer length");
  bad = *good;
  StoreLE<int32_t>(bad.data() + l.footer, 1 << 20);  // root offset out of the footer
  expect_corrupt(bad, "footer flatbuffer fails verification");
  bad = *good;
  StoreLE<int32_t>(bad.data() + l.batch_message + 4, 1 << 20);
  expect_corrupt(bad, "metadata length");
  bad = *good;
  StoreLE<int32_t>(bad.data() + l.batch_message + 8, 1 << 20);
  expect_corrupt(bad, "message flatbuffer fails verification");
}

TEST(ArrowIpcReaderTest, DataTypeNames) {
  EXPECT_EQ(DataType::UInt32().ToString(), "UInt32");
  EXPECT_EQ((DataType{TypeId::kInt, 8, true, 0}).ToString(), "Int8");
  EXPECT_EQ((DataType{TypeId::kInt, 12, true, 0}).ToString(), "Int(bit_width=12, signed=true)");
  EXPECT_EQ((DataType{TypeId::kFloatingPoint, 0, false, 1}).ToString(), "Float32");
  EXPECT_EQ((DataType{TypeId::kLargeUtf8, 0, false, 0}).ToString(), "LargeUtf8");
  EXPECT_EQ((DataType{TypeId::kStruct, 0, false, 0}).ToString(), "Struct");
  EXPECT_EQ((DataType{static_cast<TypeId>(99), 0, false, 0}).ToString(), "type #99");
}

}  // namespace arrow_ipc_test
}  // namespace omnigraph::lance::arrow_ipc
