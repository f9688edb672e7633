// Lance file format 2.2 pages (docs/lance-file-encoding.md §15): what our
// writer puts in 2.2 files for all-null pages (PageLayout slot 2 is the
// constant layout there), and the 2.2 pages Lance 8 writes that our reader
// decodes: large mini-block chunks and constant pages. The byte strings
// below are copied from files Lance 8.0.0 wrote.

#include <gtest/gtest.h>

#include <cstring>

#include "encodings21.pb.h"
#include "file2.pb.h"
#include "lance/data_file.h"
#include "lance/data_file_format.h"
#include "lance/data_file_test_util.h"
#include "lance/page_decoder.h"
#include "lance/repdef.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace format22_test {

namespace pb = ::lance::encodings21;
using testing::FromScalars;
using testing::MakeSchema;
using testing::WriteBytes;

std::vector<uint8_t> Hex(std::string_view text) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

LeafPath PathOf(const Field& field) {
  Schema schema({field});
  schema.AssignMissingFieldIds();
  std::vector<LeafPath> paths;
  EXPECT_TRUE(CollectLeafPaths(schema.field(0), &paths).ok());
  return paths.front();
}

// Decodes `layout` over `buffers` for a leaf of `field`.
Status Decode(const pb::PageLayout& layout, const Field& field, uint64_t rows,
              const std::vector<std::vector<uint8_t>>& buffers, DecodedPage* page) {
  static LeafPath path;
  path = PathOf(field);
  std::vector<uint64_t> sizes;
  for (const auto& b : buffers) sizes.push_back(b.size());
  auto read = [&](size_t b) -> Result<BufferPtr> {
    if (b >= buffers.size()) return CorruptData("no such buffer");
    return BufferPtr(Buffer::FromVector(buffers[b]));
  };
  return DecodePage(layout, path, rows, sizes, read, page, "t");
}

// The page layouts of column `column` of a data file.
std::vector<pb::PageLayout> Layouts(const std::string& bytes, int column) {
  const char* footer = bytes.data() + bytes.size() - kFooterBytes;
  const uint64_t cmo = LoadLE<uint64_t>(footer + 8);
  const uint64_t pos = LoadLE<uint64_t>(bytes.data() + cmo + 16 * column);
  const uint64_t size = LoadLE<uint64_t>(bytes.data() + cmo + 16 * column + 8);
  ::lance::file::v2::ColumnMetadata meta;
  EXPECT_TRUE(meta.ParseFromString(bytes.substr(pos, size)));
  std::vector<pb::PageLayout> out;
  for (const auto& page : meta.pages()) {
    // Any{1: type_url, 2: value} with one-byte tags and varint lengths.
    const std::string& any = page.encoding().direct().encoding();
    size_t p = 0;
    while (p < any.size()) {
      const uint8_t key = static_cast<uint8_t>(any[p++]);
      uint64_t length = 0;
      for (int shift = 0;; shift += 7) {
        const uint8_t b = static_cast<uint8_t>(any[p++]);
        length |= static_cast<uint64_t>(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
      }
      if (key >> 3 == 2) {
        out.emplace_back();
        EXPECT_TRUE(out.back().ParseFromString(any.substr(p, length)));
      }
      p += length;
    }
  }
  return out;
}

TEST(Format22Test, AllNullPagesUseLayoutsValidIn22) {
  Field list("l", DataType::List(DataType::Int32()));
  Field strct("st", DataType::Struct({Field("x", DataType::Int32())}));
  SchemaPtr schema = MakeSchema({Field("a", DataType::Int32()), list, strct, Field("k", DataType::Int32(), false)});
  const int rows = 5;
  std::vector<Scalar> nulls(rows, Scalar::Null());
  std::vector<Scalar> keys;
  for (int i = 0; i < rows; ++i) keys.push_back(Scalar::Int(i));
  auto batch = std::make_shared<const RecordBatch>(
      schema, rows,
      std::vector<ArrayPtr>{FromScalars(DataType::Int32(), nulls), FromScalars(list.type, nulls),
                            FromScalars(strct.type, nulls), FromScalars(DataType::Int32(), keys)});
  DataFileWriterOptions v22;
  v22.version = FileVersion::kV2_2;
  const std::string bytes = WriteBytes(schema, {batch}, v22);

  // A scalar: the layout with one NULLABLE_ITEM layer and no buffers, the
  // bytes Lance 8 itself writes for an all-null page of a 2.2 file.
  std::vector<pb::PageLayout> a = Layouts(bytes, 0);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_TRUE(a[0].has_all_null_layout());
  EXPECT_EQ(a[0].SerializeAsString(), std::string("\x12\x03\x2a\x01\x03", 5));
  // A list: the constant layout naming its flat u16 level buffers.
  std::vector<pb::PageLayout> l = Layouts(bytes, 1);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_TRUE(l[0].has_all_null_layout());
  const pb::AllNullLayout& cl = l[0].all_null_layout();
  EXPECT_EQ(cl.rep_compression().flat().bits_per_value(), 16u);
  EXPECT_EQ(cl.def_compression().flat().bits_per_value(), 16u);
  EXPECT_EQ(cl.num_rep_values(), 5u);
  EXPECT_EQ(cl.num_def_values(), 5u);
  EXPECT_TRUE(cl.inline_value().empty());
  // A struct member without lists: a mini-block page of null slots.
  std::vector<pb::PageLayout> st = Layouts(bytes, 2);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_TRUE(st[0].has_mini_block_layout());
  // All read back as NULL.
  auto reader = testing::OpenBytes(bytes);
  ASSERT_NE(reader, nullptr);
  testing::ExpectFileHolds(reader.get(), schema, {batch});

  // The 2.1 file keeps the 2.1 all-null layout with raw level buffers.
  const std::string old = WriteBytes(schema, {batch});
  std::vector<pb::PageLayout> st21 = Layouts(old, 2);
  ASSERT_TRUE(st21[0].has_all_null_layout());
  EXPECT_FALSE(st21[0].all_null_layout().has_def_compression());
  EXPECT_FALSE(Layouts(old, 1)[0].all_null_layout().has_rep_compression());
}

TEST(Format22Test, ReadsLargeMiniBlockChunks) {
  // Lance 8, format 2.2: int32? values null, 1000, 2000, null, 4000, 5000,
  // null, 7000, 8000, null. The chunk metadata word is a u32 and so is the
  // value buffer size in the chunk header.
  pb::PageLayout layout;
  auto* mb = layout.mutable_mini_block_layout();
  mb->mutable_def_compression()->mutable_flat()->set_bits_per_value(16);
  mb->mutable_value_compression()->mutable_flat()->set_bits_per_value(32);
  mb->add_layers(pb::REPDEF_NULLABLE_ITEM);
  mb->set_num_buffers(1);
  mb->set_num_items(10);
  mb->set_has_large_chunk(true);
  std::vector<std::vector<uint8_t>> buffers = {
      Hex("80 00 00 00"),
      Hex("0a 00 14 00 28 00 00 00 01 00 00 00 00 00 01 00 00 00 00 00 01 00 00 00 00 00 01 00 fe fe fe fe"
          "00 00 00 00 e8 03 00 00 d0 07 00 00 00 00 00 00 a0 0f 00 00 88 13 00 00 00 00 00 00 58 1b 00 00"
          "40 1f 00 00 00 00 00 00")};
  DecodedPage page;
  Status st = Decode(layout, Field("i", DataType::Int32()), 10, buffers, &page);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(page.values.count(), 10u);
  EXPECT_EQ(page.def, (std::vector<uint16_t>{1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(LoadLE<int32_t>(page.values.data().data() + 4 * i), i % 3 ? i * 1000 : 0) << i;
  }
  // Read as a 2.1 page (u16 words), the same bytes are refused, not misread.
  mb->set_has_large_chunk(false);
  EXPECT_FALSE(Decode(layout, Field("i", DataType::Int32()), 10, buffers, &page).ok());
}

TEST(Format22Test, ReadsRleLevelBlocksInLargeChunks) {
  // Lance 8, format 2.2: Vector(3)? with only row 1 = [1, 2, 3]. The
  // definition levels are one rle block: u64 value bytes (6), the run
  // values 1, 0, 1 (u16), the run lengths 1, 1, 5 (u8).
  pb::PageLayout layout;
  auto* mb = layout.mutable_mini_block_layout();
  auto* rle = mb->mutable_def_compression()->mutable_rle();
  rle->mutable_values()->mutable_flat()->set_bits_per_value(16);
  rle->mutable_run_lengths()->mutable_flat()->set_bits_per_value(8);
  auto* fsl = mb->mutable_value_compression()->mutable_fixed_size_list();
  fsl->set_items_per_value(3);
  fsl->mutable_values()->mutable_flat()->set_bits_per_value(32);
  fsl->set_has_validity(true);
  mb->add_layers(pb::REPDEF_NULLABLE_ITEM);
  mb->set_num_buffers(2);
  mb->set_num_items(7);
  mb->set_has_large_chunk(true);
  std::string chunk =
      "07 00 11 00 03 00 00 00 54 00 00 00 fe fe fe fe 06 00 00 00 00 00 00 00 01 00 00 00 01 00 01 01 05 fe fe fe "
      "fe fe fe fe ff ff 03 fe fe fe fe fe 00 00 00 00 00 00 00 00 00 00 00 00 00 00 80 3f 00 00 00 40 00 00 40 40";
  for (int i = 0; i < 60; ++i) chunk += " 00";
  chunk += " fe fe fe fe";
  DecodedPage page;
  Status st = Decode(layout, Field("emb", DataType::FixedSizeList(DataType::Float32(), 3)), 7,
                     {Hex("00 01 00 00"), Hex(chunk)}, &page);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(page.def, (std::vector<uint16_t>{1, 0, 1, 1, 1, 1, 1}));
  ASSERT_EQ(page.values.count(), 7u);
  for (int k = 0; k < 3; ++k) {
    float v;
    std::memcpy(&v, page.values.data().data() + 12 + 4 * k, 4);
    EXPECT_EQ(v, static_cast<float>(k + 1));
  }
}

TEST(Format22Test, ReadsConstantPages) {
  DecodedPage page;
  // int64 7 in every row: an inline value, no buffers.
  pb::PageLayout seven;
  seven.mutable_all_null_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  seven.mutable_all_null_layout()->set_inline_value(std::string("\x07\0\0\0\0\0\0\0", 8));
  ASSERT_TRUE(Decode(seven, Field("c", DataType::Int64()), 4, {}, &page).ok());
  ASSERT_EQ(page.values.count(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(LoadLE<int64_t>(page.values.data().data() + 8 * i), 7);
  // bool true: a one-byte inline value.
  pb::PageLayout yes;
  yes.mutable_all_null_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  yes.mutable_all_null_layout()->set_inline_value(std::string("\x01", 1));
  ASSERT_TRUE(Decode(yes, Field("b", DataType::Bool()), 3, {}, &page).ok());
  ASSERT_EQ(page.values.count(), 3u);
  EXPECT_EQ(page.values.bits().bytes()[0] & 7, 7);
  // "same" in every row: the value block in the page's only buffer.
  pb::PageLayout same;
  same.mutable_all_null_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  ASSERT_TRUE(Decode(same, Field("s", DataType::Utf8()), 2,
                     {Hex("02 00 00 00 08 00 00 00 04 00 00 00 00 00 00 00 04 00 00 00 73 61 6d 65")}, &page)
                  .ok());
  ASSERT_EQ(page.values.count(), 2u);
  EXPECT_EQ(std::string(page.values.data().begin(), page.values.data().end()), "samesame");
  // A large_binary block has 64-bit offsets.
  ASSERT_TRUE(Decode(same, Field("lb", DataType::LargeBinary()), 1,
                     {Hex("02 00 00 00 10 00 00 00 03 00 00 00 00 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00"
                          "01 02 03")},
                     &page)
                  .ok());
  EXPECT_EQ(page.values.data(), (std::vector<uint8_t>{1, 2, 3}));
  // int32? 4 or null: inline value plus raw u16 definition levels.
  pb::PageLayout four;
  four.mutable_all_null_layout()->add_layers(pb::REPDEF_NULLABLE_ITEM);
  four.mutable_all_null_layout()->set_inline_value(std::string("\x04\0\0\0", 4));
  ASSERT_TRUE(Decode(four, Field("cn", DataType::Int32()), 4, {{}, Hex("01 00 00 00 00 00 01 00")}, &page).ok());
  EXPECT_EQ(page.def, (std::vector<uint16_t>{1, 0, 0, 1}));
  EXPECT_EQ(LoadLE<int32_t>(page.values.data().data() + 4), 4);
  EXPECT_EQ(LoadLE<int32_t>(page.values.data().data()), 0);
  // list<int32>? all null: rle level blocks [u64 value bytes][values][runs].
  pb::PageLayout lists;
  auto* cl = lists.mutable_all_null_layout();
  cl->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  cl->add_layers(pb::REPDEF_NULLABLE_LIST);
  for (auto* enc : {cl->mutable_rep_compression(), cl->mutable_def_compression()}) {
    enc->mutable_rle()->mutable_values()->mutable_flat()->set_bits_per_value(16);
    enc->mutable_rle()->mutable_run_lengths()->mutable_flat()->set_bits_per_value(8);
  }
  cl->set_num_rep_values(5);
  cl->set_num_def_values(5);
  const std::vector<uint8_t> block = Hex("02 00 00 00 00 00 00 00 01 00 05");
  Status st = Decode(lists, Field("l", DataType::List(DataType::Int32())), 5, {block, block}, &page);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(page.rep, (std::vector<uint16_t>(5, 1)));
  EXPECT_EQ(page.def, (std::vector<uint16_t>(5, 1)));
  EXPECT_EQ(page.values.count(), 0u);
  // A constant of a fixed-size list is not implemented: refused by name.
  pb::PageLayout vec;
  vec.mutable_all_null_layout()->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  vec.mutable_all_null_layout()->set_inline_value(std::string(12, '\0'));
  st = Decode(vec, Field("v", DataType::FixedSizeList(DataType::Float32(), 3)), 1, {}, &page);
  EXPECT_EQ(st.code(), ErrorCode::kUnsupported);
  EXPECT_NE(st.message().find("constant"), std::string::npos) << st.message();
}

}  // namespace format22_test
}  // namespace omnigraph::lance
