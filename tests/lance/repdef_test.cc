// Shredding into repetition/definition levels and rebuilding structure from
// them (docs/lance-file-encoding.md §3), checked against the spec's tables.

#include "lance/repdef.h"

#include <gtest/gtest.h>

#include "lance/data_file_test_util.h"

namespace omnigraph::lance {
namespace repdef_test {

using testing::FromScalars;

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

struct Shredded {
  std::vector<LeafPath> paths;
  std::vector<Layer> layers;
  std::vector<uint16_t> rep, def;
  uint64_t values = 0, non_null = 0;
};

// Shreds leaf `leaf` of a one-field schema.
Shredded Shred(const Field& field, const std::vector<Scalar>& rows, size_t leaf = 0) {
  Shredded out;
  Schema schema({field});
  schema.AssignMissingFieldIds();
  EXPECT_TRUE(CollectLeafPaths(schema.field(0), &out.paths).ok());
  ArrayPtr array = FromScalars(field.type, rows);
  ShreddedPage page(&out.paths[leaf]);
  EXPECT_TRUE(page.Append(*array, 0, array->length(), "c").ok());
  page.Finalize();
  out.layers = page.layers();
  out.rep = page.rep();
  out.def = page.def();
  out.values = page.values().count();
  out.non_null = page.non_null_values();
  return out;
}

using V = std::vector<uint16_t>;
using Ls = std::vector<Layer>;

TEST(RepDefTest, ListWithNullAndEmptyLists) {
  // §3.2 example: list<int32?> with both null and empty lists.
  Shredded s = Shred(Field("l", DataType::List(DataType::Int32())), {L({I(1), I(2)}), N(), L({}), L({I(3)}), L({N()})});
  EXPECT_EQ(s.layers, (Ls{Layer::kNullableItem, Layer::kNullAndEmptyList}));
  EXPECT_EQ(s.rep, (V{1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(s.def, (V{0, 0, 2, 3, 0, 1}));
  EXPECT_EQ(s.values, 4u);  // null and empty lists are invisible
  EXPECT_EQ(s.non_null, 3u);
  EXPECT_EQ(LayerInfo::Of(s.layers).max_visible, 1);
}

TEST(RepDefTest, LayerKindsComeFromTheData) {
  DataTypePtr list = DataType::List(DataType::Int32(), false);
  EXPECT_EQ(Shred(Field("l", list), {L({I(1)}), L({I(2), I(3)})}).layers,
            (Ls{Layer::kAllValidItem, Layer::kAllValidList}));
  Shredded nulls = Shred(Field("l", list), {L({I(1)}), N()});
  EXPECT_EQ(nulls.layers, (Ls{Layer::kAllValidItem, Layer::kNullableList}));
  EXPECT_EQ(nulls.def, (V{0, 1}));
  Shredded empties = Shred(Field("l", list), {L({I(1)}), L({})});
  EXPECT_EQ(empties.layers, (Ls{Layer::kAllValidItem, Layer::kEmptyableList}));
  EXPECT_EQ(empties.def, (V{0, 1}));
  Shredded both = Shred(Field("l", list), {N(), L({}), L({I(1)})});
  EXPECT_EQ(both.layers, (Ls{Layer::kAllValidItem, Layer::kNullAndEmptyList}));
  EXPECT_EQ(both.def, (V{1, 2, 0}));
  // A nullable column without nulls has no definition levels at all.
  Shredded flat = Shred(Field("i", DataType::Int64()), {I(1), I(2)});
  EXPECT_EQ(flat.layers, (Ls{Layer::kAllValidItem}));
  EXPECT_TRUE(flat.def.empty());
  EXPECT_TRUE(flat.rep.empty());
}

TEST(RepDefTest, NullableStructMember) {
  // §3.2: struct?{a: int32?}, column a: 0 valid, 1 a null, 2 struct null.
  Field st("s", DataType::Struct({Field("a", DataType::Int32())}));
  Shredded s = Shred(st, {L({I(1)}), L({N()}), N()});
  EXPECT_EQ(s.layers, (Ls{Layer::kNullableItem, Layer::kNullableItem}));
  EXPECT_EQ(s.def, (V{0, 1, 2}));
  EXPECT_EQ(s.values, 3u);  // a null struct outside any list is visible
}

TEST(RepDefTest, ListOfListsWithEverything) {
  // §3.2: list<list<utf8?>?>? with empties: 1 null item, 2 null inner,
  // 3 empty inner, 4 null outer, 5 empty outer.
  DataTypePtr type = DataType::List(DataType::List(DataType::Utf8()));
  Shredded s = Shred(Field("ll", type), {L({L({S("a"), N()}), N(), L({})}), N(), L({}), L({L({S("b")}), L({S("c")})})});
  EXPECT_EQ(s.layers, (Ls{Layer::kNullableItem, Layer::kNullAndEmptyList, Layer::kNullAndEmptyList}));
  EXPECT_EQ(s.rep, (V{2, 0, 1, 1, 2, 2, 2, 1}));
  EXPECT_EQ(s.def, (V{0, 1, 2, 3, 4, 5, 0, 0}));
  EXPECT_EQ(s.values, 4u);
}

TEST(RepDefTest, StructOfListLayersAreOuterFirst) {
  // §3.2: struct?{tags: list<utf8>?}: item, list, then struct outermost.
  Field st("s", DataType::Struct({Field("tags", DataType::List(DataType::Utf8()))}));
  Shredded s = Shred(st, {L({L({S("x")})}), N(), L({N()}), L({L({})})});
  EXPECT_EQ(s.layers, (Ls{Layer::kAllValidItem, Layer::kNullAndEmptyList, Layer::kNullableItem}));
  EXPECT_EQ(s.def, (V{0, 3, 1, 2}));
  EXPECT_EQ(s.values, 1u);  // a null struct above the list is invisible
}

TEST(RepDefTest, ListOfStructUsesOneLevelPerMember) {
  // list<struct?{a?}>? with empties: 1 a null, 2 struct null, 3 null list, 4 empty list.
  DataTypePtr type = DataType::List(DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())}));
  std::vector<Scalar> rows = {L({L({I(1), S("x")}), N(), L({N(), S("y")})}), N(), L({})};
  Shredded a = Shred(Field("l", type), rows, 0);
  EXPECT_EQ(a.layers, (Ls{Layer::kNullableItem, Layer::kNullableItem, Layer::kNullAndEmptyList}));
  EXPECT_EQ(a.def, (V{0, 2, 1, 3, 4}));
  Shredded b = Shred(Field("l", type), rows, 1);
  EXPECT_EQ(b.layers, (Ls{Layer::kAllValidItem, Layer::kNullableItem, Layer::kNullAndEmptyList}));
  EXPECT_EQ(b.def, (V{0, 1, 0, 2, 3}));
  EXPECT_EQ(b.rep, a.rep);
}

TEST(RepDefTest, AssemblerRebuildsListsAndStructNulls) {
  Field st("s", DataType::Struct({Field("tags", DataType::List(DataType::Utf8()))}));
  std::vector<Scalar> rows = {L({L({S("x"), S("y")})}), N(), L({N()}), L({L({})}), L({L({S("z")})})};
  Shredded s = Shred(st, rows);
  LevelAssembler assembler(&s.paths[0]);
  auto slots = assembler.Consume(s.layers, s.rep.data(), s.def.data(), s.rep.size(), "t");
  ASSERT_TRUE(slots.ok()) << slots.status().ToString();
  EXPECT_EQ(*slots, 3u);
  auto& steps = assembler.Finish();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].length, 5);  // struct
  EXPECT_EQ(steps[0].null_count, 1);
  EXPECT_EQ(steps[1].length, 5);      // list: one slot per struct slot
  EXPECT_EQ(steps[1].null_count, 2);  // under the null struct, and the null list
  EXPECT_EQ(steps[1].offsets, (std::vector<int64_t>{0, 2, 2, 2, 2, 3}));
  EXPECT_EQ(steps[2].length, 3);
}

TEST(RepDefTest, AssemblerRejectsInconsistentLevels) {
  Shredded s = Shred(Field("l", DataType::List(DataType::Int32())), {L({I(1), I(2)}), N(), L({I(3)})});
  // s.rep = 1,0,1,1   s.def = 0,0,2,0 (layers [ALL_VALID_ITEM, NULLABLE_LIST]: null list = 1)
  ASSERT_EQ(s.def, (V{0, 0, 1, 0}));
  auto consume = [&](V rep, V def) {
    LevelAssembler assembler(&s.paths[0]);
    return assembler.Consume(s.layers, rep.data(), def.data(), rep.size(), "t").status().code();
  };
  EXPECT_EQ(consume({1, 0, 1, 1}, {0, 0, 1, 0}), ErrorCode::kOk);
  EXPECT_EQ(consume({0, 0, 1, 1}, {0, 0, 1, 0}), ErrorCode::kCorruptData);  // starts mid-row
  EXPECT_EQ(consume({1, 0, 1, 0}, {0, 0, 1, 0}), ErrorCode::kCorruptData);  // continues a null list
  EXPECT_EQ(consume({1, 0, 2, 1}, {0, 0, 1, 0}), ErrorCode::kCorruptData);  // rep above max
  EXPECT_EQ(consume({1, 0, 1, 1}, {0, 0, 5, 0}), ErrorCode::kCorruptData);  // def above max
  EXPECT_EQ(CheckLayers(s.paths[0], {Layer::kNullableItem}, "t").code(), ErrorCode::kCorruptData);
  EXPECT_EQ(CheckLayers(s.paths[0], {Layer::kNullableList, Layer::kNullableItem}, "t").code(), ErrorCode::kCorruptData);
}

}  // namespace repdef_test
}  // namespace omnigraph::lance
