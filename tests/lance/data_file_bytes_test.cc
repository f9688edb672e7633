// Byte-exact checks of what the writer produces against the worked examples
// of docs/lance-file-encoding.md (§1 container, §4.8 mini-block, §5.4
// full-zip, §6 all-null).

#include <gtest/gtest.h>

#include <cstring>

#include "encodings21.pb.h"
#include "file.pb.h"
#include "file2.pb.h"
#include "lance/data_file_format.h"
#include "lance/data_file_test_util.h"
#include "lance/page_encoder.h"
#include "lance/repdef.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace data_file_bytes_test {

using testing::FromScalars;
using testing::MakeSchema;
using testing::WriteBytes;

Scalar I(int64_t v) {
  return Scalar::Int(v);
}
Scalar F(double v) {
  return Scalar::Double(v);
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

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Strips spaces and '|' so expectations can be written as in the spec.
std::string H(std::string_view spaced) {
  std::string out;
  for (char c : spaced) {
    if (c != ' ' && c != '|') out += c;
  }
  return out;
}

enum class Layout { kMiniBlock, kFullZip, kAllNull };

// Shreds `values` (one column of `field`) and encodes the page with the
// requested layout.
struct Encoded {
  EncodedPage page;
  ::lance::encodings21::PageLayout layout;
};

Encoded Encode(const Field& field, const std::vector<Scalar>& values, Layout layout) {
  Encoded result;
  Field with_id = field;
  std::vector<LeafPath> paths;
  Schema schema({with_id});
  schema.AssignMissingFieldIds();
  EXPECT_TRUE(CollectLeafPaths(schema.field(0), &paths).ok());
  EXPECT_EQ(paths.size(), 1u);
  ArrayPtr array = FromScalars(field.type, values);
  ShreddedPage page(&paths[0]);
  EXPECT_TRUE(page.Append(*array, 0, array->length(), "col").ok());
  page.Finalize();
  PageInput in;
  in.path = &paths[0];
  in.layers = &page.layers();
  in.rep = page.rep().empty() ? nullptr : page.rep().data();
  in.def = page.def().empty() ? nullptr : page.def().data();
  in.level_end = page.num_levels();
  in.values = &page.values();
  in.value_end = page.values().count();
  in.num_rows = page.num_rows();
  in.non_null_values = page.non_null_values();
  switch (layout) {
    case Layout::kMiniBlock: EXPECT_TRUE(EncodeMiniBlock(in, &result.page)); break;
    case Layout::kFullZip: EncodeFullZip(in, &result.page); break;
    case Layout::kAllNull: EncodeAllNull(in, &result.page); break;
  }
  EXPECT_TRUE(result.layout.ParseFromString(result.page.layout));
  return result;
}

std::vector<int> Layers(const google::protobuf::RepeatedField<int>& layers) {
  return std::vector<int>(layers.begin(), layers.end());
}

TEST(DataFileBytesTest, MiniBlockNullableInt32) {  // §4.8 A
  Encoded e = Encode(Field("a", DataType::Int32()), {I(1), N(), I(3), N(), I(5)}, Layout::kMiniBlock);
  ASSERT_EQ(e.page.buffers.size(), 2u);
  EXPECT_EQ(Hex(e.page.buffers[0]), "5000");
  EXPECT_EQ(Hex(e.page.buffers[1]), H("05 00 0a 00 14 00 00 00 | 00 00 01 00 00 00 01 00 00 00 00 00 00 00 00 00 |"
                                      "01 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00"));
  const auto& mb = e.layout.mini_block_layout();
  EXPECT_EQ(Layers(mb.layers()), std::vector<int>{3});
  EXPECT_FALSE(mb.has_rep_compression());
  EXPECT_EQ(mb.def_compression().flat().bits_per_value(), 16u);
  EXPECT_EQ(mb.value_compression().flat().bits_per_value(), 32u);
  EXPECT_EQ(mb.num_items(), 5u);
  EXPECT_EQ(mb.num_buffers(), 1u);
  EXPECT_EQ(mb.repetition_index_depth(), 0u);
}

TEST(DataFileBytesTest, MiniBlockBoolWithoutNulls) {  // §4.8 B
  Encoded e =
      Encode(Field("b", DataType::Bool(), false),
             {Scalar::Bool(true), Scalar::Bool(false), Scalar::Bool(true), Scalar::Bool(true), Scalar::Bool(false)},
             Layout::kMiniBlock);
  EXPECT_EQ(Hex(e.page.buffers[1]), H("00 00 01 00 00 00 00 00 | 0d 00 00 00 00 00 00 00"));
  EXPECT_FALSE(e.layout.mini_block_layout().has_def_compression());
  EXPECT_EQ(e.layout.mini_block_layout().value_compression().flat().bits_per_value(), 1u);
}

TEST(DataFileBytesTest, MiniBlockNullableUtf8) {  // §4.8 C
  Encoded e = Encode(Field("s", DataType::Utf8()), {S("ab"), N(), S(""), S("xyz"), N()}, Layout::kMiniBlock);
  EXPECT_EQ(Hex(e.page.buffers[1]),
            H("05 00 0a 00 20 00 00 00 | 00 00 01 00 00 00 00 00 01 00 00 00 00 00 00 00 |"
              "18 00 00 00 1a 00 00 00 1a 00 00 00 1a 00 00 00 1d 00 00 00 1d 00 00 00 61 62 78 79 7a 00 00 00"));
  EXPECT_EQ(e.layout.mini_block_layout().value_compression().variable().offsets().flat().bits_per_value(), 32u);
}

TEST(DataFileBytesTest, MiniBlockListWithNullAndEmptyLists) {  // §4.8 D
  Encoded e = Encode(Field("l", DataType::List(DataType::Int32())), {L({I(1), I(2)}), N(), L({}), L({I(3)}), L({N()})},
                     Layout::kMiniBlock);
  ASSERT_EQ(e.page.buffers.size(), 3u);
  EXPECT_EQ(Hex(e.page.buffers[1]), H("06 00 0c 00 0c 00 10 00 | 01 00 00 00 01 00 01 00 01 00 01 00 00 00 00 00 |"
                                      "00 00 00 00 02 00 03 00 00 00 01 00 00 00 00 00 |"
                                      "01 00 00 00 02 00 00 00 03 00 00 00 00 00 00 00"));
  EXPECT_EQ(Hex(e.page.buffers[2]), H("05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"));
  const auto& mb = e.layout.mini_block_layout();
  EXPECT_EQ(Layers(mb.layers()), (std::vector<int>{3, 6}));
  EXPECT_EQ(mb.repetition_index_depth(), 1u);
  EXPECT_EQ(mb.num_items(), 4u);
  EXPECT_EQ(mb.rep_compression().flat().bits_per_value(), 16u);
}

TEST(DataFileBytesTest, MiniBlockNullableStructColumns) {  // §4.8 E
  Field st("st", DataType::Struct({Field("a", DataType::Int32()), Field("t", DataType::Utf8())}));
  Schema schema({st});
  schema.AssignMissingFieldIds();
  std::vector<LeafPath> paths;
  ASSERT_TRUE(CollectLeafPaths(schema.field(0), &paths).ok());
  ASSERT_EQ(paths.size(), 2u);
  ArrayPtr array = FromScalars(st.type, {L({I(7), S("x")}), N(), L({N(), S("yz")}), L({I(9), N()}), N()});
  std::vector<std::string> expected = {
      H("05 00 0a 00 14 00 00 00 | 00 00 02 00 01 00 00 00 02 00 00 00 00 00 00 00 |"
        "07 00 00 00 00 00 00 00 00 00 00 00 09 00 00 00 00 00 00 00 00 00 00 00"),
      H("05 00 0a 00 1c 00 00 00 | 00 00 02 00 00 00 01 00 02 00 00 00 00 00 00 00 |"
        "18 00 00 00 19 00 00 00 19 00 00 00 1b 00 00 00 1b 00 00 00 1b 00 00 00 78 79 7a 00 00 00 00 00")};
  for (size_t c = 0; c < 2; ++c) {
    ShreddedPage page(&paths[c]);
    ASSERT_TRUE(page.Append(*array, 0, 5, "st").ok());
    page.Finalize();
    EXPECT_EQ(page.layers(), (std::vector<Layer>{Layer::kNullableItem, Layer::kNullableItem}));
    PageInput in{
        &paths[c], &page.layers(),        nullptr,         page.def().data(),     0, page.num_levels(), &page.values(),
        0,         page.values().count(), page.num_rows(), page.non_null_values()};
    EncodedPage out;
    ASSERT_TRUE(EncodeMiniBlock(in, &out));
    EXPECT_EQ(Hex(out.buffers[1]), expected[c]) << "column " << c;
  }
}

TEST(DataFileBytesTest, MiniBlockFixedSizeListWithItemValidity) {  // §4.8 F
  Field f("f", DataType::FixedSizeList(DataType::Float32(), 2));
  Encoded e =
      Encode(f, {L({F(1), F(2)}), N(), L({N(), F(4)}), L({F(5), N()}), L({F(0.5), F(0.25)})}, Layout::kMiniBlock);
  EXPECT_EQ(Hex(e.page.buffers[1]),
            H("05 00 0a 00 02 00 28 00 | 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 | 63 03 00 00 00 00 00 00 |"
              "0000803f 00000040 00000000 00000000 00000000 00008040 0000a040 00000000 0000003f 0000803e"));
  const auto& fsl = e.layout.mini_block_layout().value_compression().fixed_size_list();
  EXPECT_EQ(fsl.items_per_value(), 2u);
  EXPECT_TRUE(fsl.has_validity());
  EXPECT_EQ(fsl.values().flat().bits_per_value(), 32u);
  EXPECT_EQ(e.layout.mini_block_layout().num_buffers(), 2u);
}

TEST(DataFileBytesTest, FullZipNullableUtf8) {  // §5.4
  Encoded e = Encode(Field("s", DataType::Utf8()), {S("hello"), N(), S(""), S("wor")}, Layout::kFullZip);
  ASSERT_EQ(e.page.buffers.size(), 2u);
  EXPECT_EQ(Hex(e.page.buffers[0]), H("00 05000000 68656c6c6f | 01 | 00 00000000 | 00 03000000 776f72"));
  EXPECT_EQ(Hex(e.page.buffers[1]), "000a0b1018");
  const auto& fz = e.layout.full_zip_layout();
  EXPECT_EQ(fz.bits_rep(), 0u);
  EXPECT_EQ(fz.bits_def(), 1u);
  EXPECT_EQ(fz.bits_per_offset(), 32u);
  EXPECT_EQ(fz.num_items(), 4u);
  EXPECT_EQ(fz.num_visible_items(), 4u);
}

TEST(DataFileBytesTest, FullZipListOfUtf8) {  // §5.4
  Encoded e = Encode(Field("l", DataType::List(DataType::Utf8())), {L({S("ab"), N()}), N(), L({}), L({S("c")})},
                     Layout::kFullZip);
  EXPECT_EQ(Hex(e.page.buffers[0]), H("04 02000000 6162 | 01 | 06 | 07 | 04 01000000 63"));
  EXPECT_EQ(Hex(e.page.buffers[1]), "0008090a10");
  const auto& fz = e.layout.full_zip_layout();
  EXPECT_EQ(fz.bits_rep(), 1u);
  EXPECT_EQ(fz.bits_def(), 2u);
  EXPECT_EQ(Layers(fz.layers()), (std::vector<int>{3, 6}));
  EXPECT_EQ(fz.num_items(), 5u);
  EXPECT_EQ(fz.num_visible_items(), 3u);
}

TEST(DataFileBytesTest, FullZipFixedWidth) {  // §5.4
  Encoded e = Encode(Field("i", DataType::Int32()), {I(1), N(), I(3), I(4)}, Layout::kFullZip);
  ASSERT_EQ(e.page.buffers.size(), 1u);
  EXPECT_EQ(Hex(e.page.buffers[0]), H("00 01000000 | 01 00000000 | 00 03000000 | 00 04000000"));
  EXPECT_EQ(e.layout.full_zip_layout().bits_per_value(), 32u);
}

TEST(DataFileBytesTest, AllNullLayouts) {  // §6
  Encoded lists =
      Encode(Field("l", DataType::List(DataType::Int32())),
             {L({N()}), L({N(), N()}), N(), L({N(), N()}), L({N()}), L({}), L({N()}), L({N(), N()})}, Layout::kAllNull);
  EXPECT_EQ(Layers(lists.layout.all_null_layout().layers()), (std::vector<int>{3, 6}));
  ASSERT_EQ(lists.page.buffers.size(), 2u);
  EXPECT_EQ(Hex(lists.page.buffers[0]), H("0100 0100 0000 0100 0100 0000 0100 0100 0100 0100 0000"));
  EXPECT_EQ(Hex(lists.page.buffers[1]), H("0100 0100 0100 0200 0100 0100 0100 0300 0100 0100 0100"));

  Encoded empties =
      Encode(Field("l", DataType::List(DataType::Int32(), false), false), {L({}), L({}), L({})}, Layout::kAllNull);
  EXPECT_EQ(Layers(empties.layout.all_null_layout().layers()), (std::vector<int>{1, 5}));
  EXPECT_EQ(Hex(empties.page.buffers[0]), "010001000100");
  EXPECT_EQ(Hex(empties.page.buffers[1]), "010001000100");

  Encoded simple = Encode(Field("v", DataType::FixedSizeList(DataType::Float32(), 4)), {N(), N()}, Layout::kAllNull);
  EXPECT_EQ(Layers(simple.layout.all_null_layout().layers()), std::vector<int>{3});
  EXPECT_TRUE(simple.page.buffers.empty());
}

TEST(DataFileBytesTest, ContainerLayout) {  // §1
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32()), Field("l", DataType::List(DataType::Utf8()))});
  auto batch = std::make_shared<const RecordBatch>(
      schema, 3,
      std::vector<ArrayPtr>{FromScalars(DataType::Int32(), {I(1), N(), I(3)}),
                            FromScalars(schema->field(1).type, {L({S("x")}), N(), L({})})});
  std::string bytes = WriteBytes(schema, {batch});
  ASSERT_GE(bytes.size(), kFooterBytes);
  const uint8_t* end = reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size();
  const uint8_t* footer = end - kFooterBytes;
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(footer + 36), 4), "LANC");
  EXPECT_EQ(LoadLE<uint16_t>(footer + 32), 2);
  EXPECT_EQ(LoadLE<uint16_t>(footer + 34), 1);
  EXPECT_EQ(LoadLE<uint32_t>(footer + 24), 1u);  // global buffers
  EXPECT_EQ(LoadLE<uint32_t>(footer + 28), 2u);  // columns: a, l.item
  uint64_t cm_start = LoadLE<uint64_t>(footer), cmo = LoadLE<uint64_t>(footer + 8), gbo = LoadLE<uint64_t>(footer + 16);
  EXPECT_EQ(gbo, cmo + 2 * 16);
  EXPECT_EQ(gbo + 16, bytes.size() - kFooterBytes);
  const uint8_t* base = reinterpret_cast<const uint8_t*>(bytes.data());
  uint64_t gb_pos = LoadLE<uint64_t>(base + gbo), gb_size = LoadLE<uint64_t>(base + gbo + 8);
  EXPECT_EQ(gb_pos % 64, 0u);
  EXPECT_EQ(gb_pos + gb_size, cm_start);
  ::lance::file::FileDescriptor descriptor;
  ASSERT_TRUE(descriptor.ParseFromArray(base + gb_pos, static_cast<int>(gb_size)));
  EXPECT_EQ(descriptor.length(), 3u);
  ASSERT_EQ(descriptor.schema().fields_size(), 3);  // a, l, item
  EXPECT_EQ(descriptor.schema().fields(0).logical_type(), "int32");
  EXPECT_EQ(descriptor.schema().fields(1).logical_type(), "list");
  EXPECT_EQ(descriptor.schema().fields(2).parent_id(), descriptor.schema().fields(1).id());
  for (int c = 0; c < 2; ++c) {
    uint64_t pos = LoadLE<uint64_t>(base + cmo + 16 * c), size = LoadLE<uint64_t>(base + cmo + 16 * c + 8);
    ::lance::file::v2::ColumnMetadata meta;
    ASSERT_TRUE(meta.ParseFromArray(base + pos, static_cast<int>(size)));
    // The 43-byte column encoding of §1.2, field tag included.
    std::string encoding;
    meta.encoding().SerializeToString(&encoding);
    EXPECT_EQ(Hex(std::vector<uint8_t>(encoding.begin(), encoding.end())),
              "12270a250a1f2f6c616e63652e656e636f64696e67732e436f6c756d6e456e636f64696e6712020a00");
    ASSERT_EQ(meta.pages_size(), 1);
    EXPECT_EQ(meta.pages(0).length(), 3u);
    for (uint64_t offset : meta.pages(0).buffer_offsets()) EXPECT_EQ(offset % 64, 0u);
  }
}

}  // namespace data_file_bytes_test
}  // namespace omnigraph::lance
