// Blob v2 columns in Lance data files and manifests (lance/blob_v2.h;
// engine.md §1.2, surface.md §1.3): cells survive a write/read round trip
// (bytes, empty, NULL, external URIs, escaped look-alikes, payloads above
// 64 KiB) across pages and read windows; the file, page and manifest bytes
// have the shape Lance 8 reads (format 2.2, Lance's descriptor schema, one
// column per blob field, the {data, uri} struct with its extension name);
// damaged payloads and impossible descriptors are typed errors.

#include <gtest/gtest.h>

#include <optional>

#include "columnar/blob_cell.h"
#include "encodings21.pb.h"
#include "file.pb.h"
#include "file2.pb.h"
#include "lance/blob_v2.h"
#include "lance/data_file.h"
#include "lance/data_file_format.h"
#include "lance/data_file_test_util.h"
#include "lance/manifest.h"
#include "table.pb.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace blob_v2_test {

namespace pb = ::lance::encodings21;
using testing::MakeSchema;
using testing::MemoryObject;
using testing::WriteBytes;

using Cell = std::optional<std::string>;  // nullopt = NULL

SchemaPtr BlobSchema(bool nullable = true) {
  return MakeSchema({Field("id", DataType::Utf8(), false), MakeBlobV2Field("payload", nullable),
                     Field("n", DataType::Int32())});
}

ArrayPtr Cells(const std::vector<Cell>& cells) {
  BinaryBuilder builder(DataType::LargeBinary());
  for (const Cell& c : cells) {
    if (c) builder.Append(*c); else builder.AppendNull();
  }
  return builder.Finish();
}

RecordBatchPtr Batch(const SchemaPtr& schema, const std::vector<Cell>& cells, int first_id = 0) {
  BinaryBuilder ids(DataType::Utf8());
  Int32Builder n(DataType::Int32());
  for (size_t i = 0; i < cells.size(); ++i) {
    ids.Append("r" + std::to_string(first_id + static_cast<int>(i)));
    n.Append(static_cast<int32_t>(first_id + static_cast<int>(i)));
  }
  return std::make_shared<const RecordBatch>(schema, static_cast<int64_t>(cells.size()),
                                             std::vector<ArrayPtr>{ids.Finish(), Cells(cells), n.Finish()});
}

std::string Pattern(size_t size, int seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed) * 7) & 0xFF);
  return s;
}

// The first rows of every test file: one of each kind of cell.
std::vector<Cell> KindsOfCells() {
  return {std::string("abc"),
          std::string(),
          std::nullopt,
          EncodeExternalBlobCell("s3://bucket/dir/x.bin"),
          Pattern(200 * 1024, 1),
          // Managed bytes that begin with the external marker are escaped.
          EncodeManagedBlobCell(EncodeExternalBlobCell("file:///not/a/reference"))};
}

DataFileWriterOptions V22(uint64_t max_rows_per_page = 1 << 20) {
  DataFileWriterOptions options;
  options.version = FileVersion::kV2_2;
  options.max_rows_per_page = max_rows_per_page;
  return options;
}

// Footer, FileDescriptor and column metadata of a data file.
struct FileParts {
  uint16_t major = 0, minor = 0;
  ::lance::file::FileDescriptor descriptor;
  std::vector<::lance::file::v2::ColumnMetadata> columns;
};

FileParts Parse(const std::string& bytes) {
  FileParts parts;
  const char* footer = bytes.data() + bytes.size() - kFooterBytes;
  const uint64_t cmo = LoadLE<uint64_t>(footer + 8), gbo = LoadLE<uint64_t>(footer + 16);
  const uint32_t columns = LoadLE<uint32_t>(footer + 28);
  parts.major = LoadLE<uint16_t>(footer + 32);
  parts.minor = LoadLE<uint16_t>(footer + 34);
  auto region = [&](uint64_t entry) {
    return std::string_view(bytes).substr(LoadLE<uint64_t>(bytes.data() + entry),
                                          LoadLE<uint64_t>(bytes.data() + entry + 8));
  };
  EXPECT_TRUE(parts.descriptor.ParseFromString(std::string(region(gbo))));
  for (uint32_t c = 0; c < columns; ++c) {
    parts.columns.emplace_back();
    EXPECT_TRUE(parts.columns.back().ParseFromString(std::string(region(cmo + 16 * c))));
  }
  return parts;
}

pb::PageLayout LayoutOf(const ::lance::file::v2::ColumnMetadata::Page& page) {
  ::lance::file::v2::DirectEncoding direct = page.encoding().direct();
  std::string any = direct.encoding();
  // Any{1: type_url, 2: value}, decoded by hand (short lengths only).
  size_t pos = 0;
  std::string value;
  while (pos < any.size()) {
    uint8_t key = static_cast<uint8_t>(any[pos++]);
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = static_cast<uint8_t>(any[pos++]);
      length |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) break;
    }
    if (key >> 3 == 2) value = any.substr(pos, length);
    pos += length;
  }
  pb::PageLayout layout;
  EXPECT_TRUE(layout.ParseFromString(value));
  return layout;
}

// The descriptor rows of page `page` of column `column`.
std::vector<BlobDescriptor> Descriptors(const std::string& bytes, const ::lance::file::v2::ColumnMetadata& column,
                                        int page) {
  const auto& p = column.pages(page);
  auto read = [&](size_t b) -> Result<BufferPtr> {
    return BufferPtr(Buffer::FromString(std::string_view(bytes).substr(p.buffer_offsets(static_cast<int>(b)),
                                                                      p.buffer_sizes(static_cast<int>(b)))));
  };
  std::vector<uint64_t> sizes(p.buffer_sizes().begin(), p.buffer_sizes().end());
  std::vector<BlobDescriptor> out;
  Status st = DecodeBlobPage(LayoutOf(p), p.length(), sizes, read, &out, "test");
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(BlobV2Test, ABlobFieldOwnsThreeFieldIds) {
  SchemaPtr schema = BlobSchema();
  EXPECT_EQ(schema->field(0).id, 0);
  EXPECT_EQ(schema->field(1).id, 1);  // data = 2, uri = 3 in Lance's schema
  EXPECT_EQ(schema->field(2).id, 4);
  EXPECT_EQ(schema->MaxFieldId(), 4);
  Schema last({Field("id", DataType::Utf8(), false), MakeBlobV2Field("b", true)});
  last.AssignMissingFieldIds(7);
  EXPECT_EQ(last.field(1).id, 8);
  EXPECT_EQ(last.MaxFieldId(), 10);
  // A LargeBinary without the extension name is an ordinary field.
  Schema plain({Field("bin", DataType::LargeBinary()), Field("x", DataType::Int32())});
  plain.AssignMissingFieldIds();
  EXPECT_EQ(plain.field(1).id, 1);
  EXPECT_FALSE(IsBlobV2Field(plain.field(0)));
  EXPECT_TRUE(IsBlobV2Field(schema->field(1)));
}

TEST(BlobV2Test, CellsRoundTripAcrossPagesAndWindows) {
  SchemaPtr schema = BlobSchema();
  std::vector<Cell> first = KindsOfCells();
  std::vector<Cell> second;
  for (int i = 0; i < 120; ++i) {
    switch (i % 6) {
      case 0: second.push_back(std::nullopt); break;
      case 1: second.push_back(std::string()); break;
      case 2: second.push_back(Pattern(static_cast<size_t>(1 + i), i)); break;
      case 3: second.push_back(EncodeExternalBlobCell("file:///data/f" + std::to_string(i))); break;
      case 4: second.push_back(Pattern(70 * 1024 + static_cast<size_t>(i), i)); break;
      default: second.push_back(Pattern(5, i)); break;
    }
  }
  WrittenDataFile written;
  std::string bytes = WriteBytes(schema, {Batch(schema, first), Batch(schema, second, 6)}, V22(7), &written);
  EXPECT_EQ(written.fields, (std::vector<int32_t>{0, 1, 4}));
  EXPECT_EQ(written.column_indices, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(written.file_major_version, 2u);
  EXPECT_EQ(written.file_minor_version, 2u);

  std::vector<Cell> all = first;
  all.insert(all.end(), second.begin(), second.end());
  ArrayPtr expected = Cells(all);
  auto reader = testing::OpenBytes(bytes);
  ASSERT_NE(reader, nullptr);
  ASSERT_EQ(reader->num_rows(), all.size());
  const Field& payload = reader->schema()->field(1);
  EXPECT_TRUE(IsBlobV2Field(payload));
  EXPECT_EQ(payload.id, 1);
  EXPECT_TRUE(payload.nullable);
  auto whole = reader->ReadField(1, 0, all.size());
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  testing::ExpectArraysEqual(expected, *whole, "all rows");
  EXPECT_EQ((*whole)->null_count(), 21);
  // Windows inside one page, across page boundaries, backwards.
  for (auto [start, count] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 3}, {5, 9}, {20, 1}, {13, 40}, {100, 26}, {2, 1}, {125, 1}, {0, 126}}) {
    auto window = reader->ReadField(1, start, count);
    ASSERT_TRUE(window.ok()) << window.status().ToString();
    testing::ExpectArraysEqual(SliceArray(*expected, static_cast<int64_t>(start), static_cast<int64_t>(count)), *window,
                               "rows " + std::to_string(start) + "+" + std::to_string(count));
  }
  // The other columns are unaffected by the payloads between their pages.
  auto n = reader->ReadField(4, 0, all.size());
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ((*n)->Value<int32_t>(125), 125);
}

TEST(BlobV2Test, TheFileHasLancesBlobShape) {
  SchemaPtr schema = BlobSchema();
  std::string bytes = WriteBytes(schema, {Batch(schema, KindsOfCells())}, V22());
  FileParts parts = Parse(bytes);
  EXPECT_EQ(parts.major, 2);
  EXPECT_EQ(parts.minor, 2);
  // FileDescriptor: Lance's descriptor form.
  const auto& fields = parts.descriptor.schema().fields();
  ASSERT_EQ(fields.size(), 8);
  EXPECT_EQ(fields.Get(1).name(), "payload");
  EXPECT_EQ(fields.Get(1).id(), 1);
  EXPECT_EQ(fields.Get(1).logical_type(), "struct");
  EXPECT_TRUE(fields.Get(1).nullable());
  EXPECT_EQ(fields.Get(1).metadata().at("lance-encoding:blob"), "true");
  EXPECT_EQ(fields.Get(1).metadata().at("lance-encoding:packed"), "true");
  const char* members[5][2] = {{"kind", "uint8"}, {"position", "uint64"}, {"size", "uint64"},
                               {"blob_id", "uint32"}, {"blob_uri", "string"}};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(fields.Get(2 + i).name(), members[i][0]);
    EXPECT_EQ(fields.Get(2 + i).logical_type(), members[i][1]);
    EXPECT_EQ(fields.Get(2 + i).id(), -1);
    EXPECT_EQ(fields.Get(2 + i).parent_id(), -1);
  }
  EXPECT_EQ(fields.Get(7).name(), "n");
  EXPECT_EQ(fields.Get(7).id(), 4);
  // One column per field; the blob column is one full-zip page.
  ASSERT_EQ(parts.columns.size(), 3u);
  const auto& blob = parts.columns[1];
  ASSERT_EQ(blob.pages_size(), 1);
  EXPECT_EQ(blob.pages(0).buffer_offsets_size(), 2);
  EXPECT_EQ(blob.pages(0).blob_payload_checksums_size(), 6);
  pb::PageLayout layout = LayoutOf(blob.pages(0));
  ASSERT_TRUE(layout.has_full_zip_layout());
  const pb::FullZipLayout& fz = layout.full_zip_layout();
  EXPECT_EQ(fz.bits_def(), 1u);
  EXPECT_EQ(fz.bits_per_offset(), 32u);
  EXPECT_EQ(fz.num_items(), 6u);
  EXPECT_EQ(fz.num_visible_items(), 6u);
  EXPECT_EQ(fz.layers_size(), 2);
  EXPECT_EQ(fz.layers(0), pb::REPDEF_ALL_VALID_ITEM);
  EXPECT_EQ(fz.layers(1), pb::REPDEF_NULLABLE_ITEM);
  const auto& vps = fz.value_compression().variable_packed_struct();
  ASSERT_EQ(vps.fields_size(), 5);
  EXPECT_EQ(vps.fields(0).bits_per_value(), 8u);
  EXPECT_EQ(vps.fields(1).bits_per_value(), 64u);
  EXPECT_EQ(vps.fields(2).bits_per_value(), 64u);
  EXPECT_EQ(vps.fields(3).bits_per_value(), 32u);
  EXPECT_EQ(vps.fields(4).bits_per_length(), 32u);
  // Rows: [def][u32 25 + uri][kind][position][size][blob_id][uri length][uri].
  const uint64_t zipped = blob.pages(0).buffer_sizes(0);
  EXPECT_EQ(zipped, 6u * 1 + 5u * (4 + 25) + std::string("s3://bucket/dir/x.bin").size());

  std::vector<BlobDescriptor> rows = Descriptors(bytes, blob, 0);
  ASSERT_EQ(rows.size(), 6u);
  auto at = [&](const BlobDescriptor& d) { return bytes.substr(d.position, d.size); };
  EXPECT_TRUE(rows[0].valid);
  EXPECT_EQ(rows[0].kind, BlobKind::kInline);
  EXPECT_EQ(rows[0].size, 3u);
  EXPECT_EQ(at(rows[0]), "abc");
  EXPECT_EQ(rows[1].kind, BlobKind::kInline);
  EXPECT_EQ(rows[1].size, 0u);
  EXPECT_NE(rows[1].position, 0u);  // an empty blob never reads as Lance's NULL
  EXPECT_FALSE(rows[2].valid);
  EXPECT_EQ(rows[3].kind, BlobKind::kExternal);
  EXPECT_EQ(rows[3].uri, "s3://bucket/dir/x.bin");
  EXPECT_EQ(rows[3].position, 0u);
  EXPECT_EQ(rows[3].size, 0u);
  EXPECT_EQ(rows[4].kind, BlobKind::kInline);  // inline whatever the size
  EXPECT_EQ(rows[4].size, 200u * 1024);
  EXPECT_EQ(at(rows[4]), Pattern(200 * 1024, 1));
  EXPECT_EQ(at(rows[5]), EncodeExternalBlobCell("file:///not/a/reference"));
  for (const BlobDescriptor& d : rows) EXPECT_EQ(d.blob_id, 0u);
  EXPECT_EQ(blob.pages(0).blob_payload_checksums(4), Checksum64(Pattern(200 * 1024, 1)));
}

TEST(BlobV2Test, APageWithoutNullsHasNoDefinitionLevels) {
  SchemaPtr schema = BlobSchema(/*nullable=*/false);
  std::string bytes = WriteBytes(schema, {Batch(schema, {std::string("xy"), std::string()})}, V22());
  FileParts parts = Parse(bytes);
  EXPECT_FALSE(parts.descriptor.schema().fields(1).nullable());
  const auto& page = parts.columns[1].pages(0);
  pb::PageLayout layout = LayoutOf(page);
  EXPECT_EQ(layout.full_zip_layout().bits_def(), 0u);
  EXPECT_EQ(layout.full_zip_layout().layers(1), pb::REPDEF_ALL_VALID_ITEM);
  EXPECT_EQ(page.buffer_sizes(0), 2u * (4 + 25));
  auto reader = testing::OpenBytes(bytes);
  ASSERT_NE(reader, nullptr);
  auto cells = reader->ReadField(1, 0, 2);
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  testing::ExpectArraysEqual(Cells({std::string("xy"), std::string()}), *cells, "cells");
  // A null in a non-nullable blob column is refused.
  omnigraph::testing::TempDir dir;
  LocalStore store(dir.path());
  auto writer = DataFileWriter::Open(&store, "x.lance", schema, V22());
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ((*writer)->Write(*Batch(schema, {std::nullopt})).code(), ErrorCode::kInvalidArgument);
}

TEST(BlobV2Test, BlobFieldsNeedFormat22) {
  omnigraph::testing::TempDir dir;
  LocalStore store(dir.path());
  auto writer = DataFileWriter::Open(&store, "x.lance", BlobSchema());
  ASSERT_EQ(writer.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(writer.status().message().find("needs Lance file format 2.2"), std::string::npos);
  // A file without blob fields in format 2.2 has a 2.2 footer.
  SchemaPtr plain = MakeSchema({Field("a", DataType::Int32())});
  auto batch = std::make_shared<const RecordBatch>(
      plain, 1, std::vector<ArrayPtr>{testing::FromScalars(DataType::Int32(), {Scalar::Int(5)})});
  EXPECT_EQ(Parse(WriteBytes(plain, {batch}, V22())).minor, 2);
  EXPECT_EQ(Parse(WriteBytes(plain, {batch})).minor, 1);
}

TEST(BlobV2Test, ADamagedPayloadIsCorruptData) {
  SchemaPtr schema = BlobSchema();
  std::string marker = "PAYLOAD-0123456789";
  std::string bytes = WriteBytes(schema, {Batch(schema, {marker, std::string("ok")})}, V22());
  size_t at = bytes.find(marker);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] ^= 0x20;
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto cells = (*reader)->ReadField(1, 0, 2);
  ASSERT_EQ(cells.status().code(), ErrorCode::kCorruptData);
  EXPECT_NE(cells.status().message().find("checksum"), std::string::npos) << cells.status().message();
  // Rows whose payload is intact still read.
  auto second = (*reader)->ReadField(1, 1, 1);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*second)->GetView(0), "ok");
}

TEST(BlobV2Test, DescriptorsBecomeCells) {
  auto descriptor = [](BlobKind kind, uint64_t position, uint64_t size, uint32_t blob_id = 0, std::string uri = {}) {
    BlobDescriptor d;
    d.valid = true;
    d.kind = kind;
    d.position = position;
    d.size = size;
    d.blob_id = blob_id;
    d.uri = std::move(uri);
    return d;
  };
  const std::string file = "0123456789abcdefghij";
  std::vector<BlobDescriptor> rows = {
      descriptor(BlobKind::kInline, 0, 0),        // Lance's NULL (and what its compaction makes of one)
      descriptor(BlobKind::kInline, 7, 0),        // empty
      descriptor(BlobKind::kInline, 2, 3),        // "234"
      BlobDescriptor{},                           // def-level NULL
      descriptor(BlobKind::kInline, 10, 4),       // "abcd", read with "234" in one span
      descriptor(BlobKind::kExternal, 0, 0, 0, "s3://b/k"),
      descriptor(BlobKind::kPacked, 5, 3, 1),     // sidecar 1, bytes 5..8
      descriptor(BlobKind::kDedicated, 0, 2, 2),  // sidecar 2, bytes 0..2
  };
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> sidecar_reads;
  int file_reads = 0;
  BlobPayloadSource source;
  source.data_end = file.size();
  source.read_file = [&](uint64_t offset, uint64_t length) -> Result<BufferPtr> {
    ++file_reads;
    return BufferPtr(Buffer::FromString(std::string_view(file).substr(offset, length)));
  };
  source.read_sidecar = [&](uint32_t blob_id, uint64_t offset, uint64_t length) -> Result<BufferPtr> {
    sidecar_reads.emplace_back(blob_id, offset, length);
    return Buffer::FromString(std::string("SIDECAR-") + std::to_string(blob_id))->Slice(offset, length);
  };
  BinaryBuilder out(DataType::LargeBinary());
  ASSERT_TRUE(AppendBlobCells(rows, 0, rows.size(), {}, source, &out, "t").ok());
  ArrayPtr cells = out.Finish();
  testing::ExpectArraysEqual(Cells({std::nullopt, std::string(), std::string("234"), std::nullopt,
                                    std::string("abcd"), EncodeExternalBlobCell("s3://b/k"), std::string("AR-"),
                                    std::string("SI")}),
                             cells, "cells");
  EXPECT_EQ(file_reads, 1);
  EXPECT_EQ(sidecar_reads, (std::vector<std::tuple<uint32_t, uint64_t, uint64_t>>{{1, 5, 3}, {2, 0, 2}}));

  // Without a sidecar reader, a packed row is Unsupported (never misread).
  source.read_sidecar = nullptr;
  BinaryBuilder none(DataType::LargeBinary());
  Status st = AppendBlobCells(rows, 6, 7, {}, source, &none, "t");
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("packed"), std::string::npos) << st.message();
  // An inline payload past the data region is CorruptData.
  std::vector<BlobDescriptor> outside = {descriptor(BlobKind::kInline, 18, 5)};
  BinaryBuilder bad(DataType::LargeBinary());
  EXPECT_EQ(AppendBlobCells(outside, 0, 1, {}, source, &bad, "t").code(), ErrorCode::kCorruptData);
}

TEST(BlobV2Test, SidecarFilesAreNamedByBlobIdLeastSignificantBitFirst) {
  EXPECT_EQ(BlobSidecarPath("t/data/abc.lance", 1), "t/data/abc/10000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarPath("t/data/abc.lance", 3), "t/data/abc/11000000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarPath("t/data/abc.lance", 6), "t/data/abc/01100000000000000000000000000000.blob");
  EXPECT_EQ(BlobSidecarPath("abc.lance", 0x80000000u), "abc/00000000000000000000000000000001.blob");
  // A collector maps a sidecar back to its data file.
  EXPECT_EQ(BlobSidecarOwner("t/data/abc/11000000000000000000000000000000.blob"), "t/data/abc.lance");
  EXPECT_EQ(BlobSidecarOwner("t/data/abc.lance"), "");
  EXPECT_EQ(BlobSidecarOwner("t/data/abc/12000000000000000000000000000000.blob"), "");
  EXPECT_EQ(BlobSidecarOwner("t/data/abc/1100.blob"), "");
}

TEST(BlobV2Test, DescriptorPagesOutsideTheFormAreRefused) {
  std::string zipped = std::string("\0", 1);  // one null row
  auto read = [&](size_t) -> Result<BufferPtr> { return BufferPtr(Buffer::FromString(zipped)); };
  BlobPageBuilder builder;
  builder.AppendInline(9, 1, 0);
  EncodedPage page;
  std::vector<uint64_t> checksums;
  builder.Finish(&page, &checksums);
  pb::PageLayout good;
  ASSERT_TRUE(good.ParseFromString(page.layout));
  std::vector<BlobDescriptor> rows;
  // Mini-block descriptors, a compressed descriptor field, list layers.
  pb::PageLayout mini;
  mini.mutable_mini_block_layout();
  EXPECT_EQ(DecodeBlobPage(mini, 1, {1}, read, &rows, "t").code(), ErrorCode::kUnsupported);
  pb::PageLayout zstd = good;
  zstd.mutable_full_zip_layout()->mutable_value_compression()->mutable_variable_packed_struct()->mutable_fields(1)->
      mutable_value()->mutable_flat()->mutable_data()->set_scheme(pb::COMPRESSION_ALGORITHM_ZSTD);
  EXPECT_EQ(DecodeBlobPage(zstd, 1, {1}, read, &rows, "t").code(), ErrorCode::kUnsupported);
  // A row whose length disagrees with its URI length.
  std::string bad(page.buffers[0].begin(), page.buffers[0].end());
  StoreLE<uint32_t>(bad.data() + 21 + 4, 3);
  auto read_bad = [&](size_t b) -> Result<BufferPtr> {
    if (b == 0) return BufferPtr(Buffer::FromString(bad));
    return BufferPtr(Buffer::FromVector(page.buffers[1]));
  };
  EXPECT_EQ(DecodeBlobPage(good, 1, {bad.size(), page.buffers[1].size()}, read_bad, &rows, "t").code(),
            ErrorCode::kCorruptData);
  // An unknown kind.
  std::string unknown(page.buffers[0].begin(), page.buffers[0].end());
  unknown[4] = 9;
  auto read_unknown = [&](size_t b) -> Result<BufferPtr> {
    if (b == 0) return BufferPtr(Buffer::FromString(unknown));
    return BufferPtr(Buffer::FromVector(page.buffers[1]));
  };
  EXPECT_EQ(DecodeBlobPage(good, 1, {unknown.size(), page.buffers[1].size()}, read_unknown, &rows, "t").code(),
            ErrorCode::kCorruptData);
}

// The manifest's field list for `schema`.
::lance::table::Manifest ManifestProto(const Manifest& manifest) {
  auto bytes = EncodeManifestFile(manifest, "");
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  const std::string& file = *bytes;
  int64_t position = LoadLE<int64_t>(file.data() + file.size() - 16);
  uint32_t length = LoadLE<uint32_t>(file.data() + position);
  ::lance::table::Manifest proto;
  EXPECT_TRUE(proto.ParseFromString(file.substr(static_cast<size_t>(position) + 4, length)));
  return proto;
}

Manifest BlobManifest() {
  Manifest m;
  Schema schema({Field("id", DataType::Utf8(), false),
                 MakeBlobV2Field("payload", true, {{"omnigraph.stable_property_id", "7"}}),
                 Field("n", DataType::Int32())});
  schema.AssignMissingFieldIds();
  m.schema = schema;
  m.version = 3;
  m.data_format_version = "2.2";
  Fragment fragment;
  DataFile file;
  file.path = "f.lance";
  file.fields = {0, 1, 4};
  file.column_indices = {0, 1, 2};
  file.file_minor_version = 2;
  fragment.files.push_back(file);
  fragment.physical_rows = 3;
  m.fragments.push_back(fragment);
  m.max_fragment_id = 0;
  return m;
}

TEST(BlobV2Test, TheManifestHoldsTheBlobStruct) {
  Manifest m = BlobManifest();
  ::lance::table::Manifest proto = ManifestProto(m);
  ASSERT_EQ(proto.fields_size(), 5);
  const auto& blob = proto.fields(1);
  EXPECT_EQ(blob.name(), "payload");
  EXPECT_EQ(blob.id(), 1);
  EXPECT_EQ(blob.parent_id(), -1);
  EXPECT_EQ(blob.logical_type(), "struct");
  EXPECT_TRUE(blob.nullable());
  EXPECT_EQ(blob.encoding(), 0);
  EXPECT_EQ(blob.extension_name(), "lance.blob.v2");
  EXPECT_EQ(blob.metadata().at("ARROW:extension:name"), "lance.blob.v2");
  EXPECT_EQ(blob.metadata().at("omnigraph.stable_property_id"), "7");
  EXPECT_EQ(proto.fields(2).name(), "data");
  EXPECT_EQ(proto.fields(2).id(), 2);
  EXPECT_EQ(proto.fields(2).parent_id(), 1);
  EXPECT_EQ(proto.fields(2).logical_type(), "large_binary");
  EXPECT_EQ(proto.fields(3).name(), "uri");
  EXPECT_EQ(proto.fields(3).id(), 3);
  EXPECT_EQ(proto.fields(3).logical_type(), "string");
  EXPECT_EQ(proto.fields(4).id(), 4);
  EXPECT_EQ(proto.data_format().version(), "2.2");
  EXPECT_EQ(proto.fragments(0).files(0).file_minor_version(), 2u);
  EXPECT_EQ(proto.fragments(0).files(0).fields_size(), 3);

  // Decoded again: the same in-memory schema, ids included.
  auto bytes = EncodeManifestFile(m, "");
  ASSERT_TRUE(bytes.ok());
  auto decoded = DecodeManifestFile(*bytes, "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->manifest.schema.Equals(m.schema, /*compare_ids=*/true)) << decoded->manifest.schema.ToString();
  EXPECT_EQ(decoded->manifest.data_format_version, "2.2");
}

TEST(BlobV2Test, EitherMarkerMakesABlobFieldAndOddChildrenAreRefused) {
  // Build manifest files by hand: [u32 len][message][i64 pos][i16 0][i16 2]["LANC"].
  auto frame = [](const ::lance::table::Manifest& proto) {
    std::string message = proto.SerializeAsString();
    // The parsed message kept our trailing checksum field: checksum afresh.
    if (CheckTrailingChecksum(message) != ChecksumState::kAbsent) message.resize(message.size() - 10);
    AppendChecksumField(&message);
    std::string file(4, '\0');
    StoreLE<uint32_t>(file.data(), static_cast<uint32_t>(message.size()));
    file += message;
    std::string trailer(12, '\0');
    StoreLE<int64_t>(trailer.data(), 0);
    StoreLE<int16_t>(trailer.data() + 8, 0);
    StoreLE<int16_t>(trailer.data() + 10, 2);
    return file + trailer + "LANC";
  };
  ::lance::table::Manifest base = ManifestProto(BlobManifest());
  // Only the extension_name field (no metadata).
  ::lance::table::Manifest only_field = base;
  only_field.mutable_fields(1)->mutable_metadata()->erase("ARROW:extension:name");
  auto decoded = DecodeManifestFile(frame(only_field), "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(IsBlobV2Field(decoded->manifest.schema.field(1)));
  // Only the metadata.
  ::lance::table::Manifest only_metadata = base;
  only_metadata.mutable_fields(1)->clear_extension_name();
  decoded = DecodeManifestFile(frame(only_metadata), "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(IsBlobV2Field(decoded->manifest.schema.field(1)));
  // Children with other ids than the struct's next two.
  ::lance::table::Manifest odd = base;
  odd.mutable_fields(3)->set_id(9);
  decoded = DecodeManifestFile(frame(odd), "m");
  EXPECT_EQ(decoded.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(decoded.status().message().find("children"), std::string::npos) << decoded.status().message();
}

}  // namespace blob_v2_test
}  // namespace omnigraph::lance
