#include <cmath>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "columnar/record_batch.h"
#include "columnar/scalar.h"

namespace omnigraph {
namespace array_test {

ArrayPtr Ints(std::vector<Scalar> values) { return *ArrayFromScalars(DataType::Int64(), values); }

TEST(Array, NumericBuilderTracksNulls) {
  Int64Builder b(DataType::Int64());
  b.Append(1);
  b.AppendNull();
  b.Append(-3);
  ArrayPtr a = b.Finish();
  EXPECT_EQ(a->length(), 3);
  EXPECT_EQ(a->null_count(), 1);
  EXPECT_EQ(a->Value<int64_t>(0), 1);
  EXPECT_TRUE(a->IsNull(1));
  EXPECT_EQ(a->Value<int64_t>(2), -3);
  EXPECT_EQ(a->ToString(), "[1, null, -3]");
  // A builder is reusable after Finish.
  b.Append(7);
  ArrayPtr c = b.Finish();
  EXPECT_EQ(c->length(), 1);
  EXPECT_EQ(c->null_count(), 0);
  EXPECT_EQ(c->validity(), nullptr);
}

TEST(Array, StringsListsStructsAndFixedSizeLists) {
  auto strings = *ArrayFromScalars(DataType::Utf8(), {Scalar::String("ab"), Scalar(), Scalar::String("")});
  EXPECT_EQ(strings->GetView(0), "ab");
  EXPECT_TRUE(strings->IsNull(1));
  EXPECT_EQ(strings->GetView(2), "");
  EXPECT_EQ(strings->ValueOffset(3), 2);

  auto list_type = DataType::List(DataType::Int32());
  auto lists = *ArrayFromScalars(list_type, {Scalar::Nested({Scalar::Int(1), Scalar::Int(2)}), Scalar(),
                                             Scalar::Nested({}), Scalar::Nested({Scalar()})});
  EXPECT_EQ(lists->ToString(), "[[1, 2], null, [], [null]]");
  EXPECT_EQ(lists->child(0)->length(), 3);

  auto fsl_type = DataType::FixedSizeList(DataType::Float32(), 2);
  auto fsl = *ArrayFromScalars(fsl_type, {Scalar::Nested({Scalar::Double(0.5), Scalar::Double(1)}), Scalar()});
  EXPECT_EQ(fsl->ToString(), "[[0.5, 1], null]");
  EXPECT_EQ(fsl->child(0)->length(), 4);
  EXPECT_EQ(fsl->child(0)->null_count(), 0);  // zeros under the null slot

  auto struct_type = DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  auto structs = *ArrayFromScalars(struct_type, {Scalar::Nested({Scalar::Int(1), Scalar::String("x")}), Scalar()});
  EXPECT_EQ(structs->ToString(), "[[1, \"x\"], null]");
  EXPECT_EQ(structs->null_count(), 1);
}

TEST(Array, ScalarConversionRejectsOutOfRange) {
  auto r = ArrayFromScalars(DataType::Int32(), {Scalar::Int(int64_t{1} << 40)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "element 0: value 1099511627776 does not fit type int32");
  EXPECT_FALSE(ArrayFromScalars(DataType::UInt64(), {Scalar::Int(-1)}).ok());
  EXPECT_TRUE(ArrayFromScalars(DataType::UInt64(), {Scalar::UInt(~0ULL)}).ok());
  EXPECT_FALSE(ArrayFromScalars(DataType::Float32(), {Scalar::Double(1e300)}).ok());
  EXPECT_FALSE(ArrayFromScalars(DataType::Utf8(), {Scalar::Int(1)}).ok());
  EXPECT_FALSE(ArrayFromScalars(DataType::FixedSizeList(DataType::Float32(), 3), {Scalar::Nested({})}).ok());
}

TEST(Array, SliceTakeConcatPreserveValues) {
  auto list_type = DataType::List(DataType::Utf8());
  auto lists = *ArrayFromScalars(list_type, {Scalar::Nested({Scalar::String("a")}), Scalar(),
                                             Scalar::Nested({Scalar::String("b"), Scalar::String("c")}),
                                             Scalar::Nested({})});
  EXPECT_EQ(SliceArray(*lists, 1, 2)->ToString(), "[null, [\"b\", \"c\"]]");
  EXPECT_EQ(TakeArray(*lists, {3, 0, 2})->ToString(), "[[], [\"a\"], [\"b\", \"c\"]]");
  auto joined = ConcatArrays(list_type, {SliceArray(*lists, 2, 2), SliceArray(*lists, 0, 2)});
  EXPECT_EQ(joined->ToString(), "[[\"b\", \"c\"], [], [\"a\"], null]");
  EXPECT_EQ(joined->null_count(), 1);
}

// Strings, large binaries and fixed-width values take exact-size paths
// (one copy, rebased offsets); parts may be empty, all valid or hold nulls.
TEST(Array, ConcatFlatColumnsRebasesOffsetsAndValidity) {
  auto strings = [](std::vector<Scalar> values) { return *ArrayFromScalars(DataType::Utf8(), values); };
  auto utf8 = ConcatArrays(DataType::Utf8(), {strings({Scalar::String("ab"), Scalar::String("")}), strings({}),
                                              strings({Scalar(), Scalar::String("cde")}),
                                              SliceArray(*strings({Scalar::String("x"), Scalar::String("fg")}), 1, 1)});
  EXPECT_EQ(utf8->ToString(), R"(["ab", "", null, "cde", "fg"])");
  EXPECT_EQ(utf8->null_count(), 1);
  EXPECT_EQ(utf8->ValueOffset(5), 7);
  EXPECT_EQ(utf8->GetView(3), "cde");

  auto large = [](std::vector<Scalar> values) { return *ArrayFromScalars(DataType::LargeBinary(), values); };
  auto blobs = ConcatArrays(DataType::LargeBinary(), {large({Scalar::String("q")}), large({Scalar::String("rs")})});
  EXPECT_EQ(blobs->ValueOffset(2), 3);
  EXPECT_EQ(blobs->GetView(1), "rs");
  EXPECT_EQ(blobs->validity(), nullptr);

  auto ints = ConcatArrays(DataType::Int32(), {*ArrayFromScalars(DataType::Int32(), {Scalar::Int(1), Scalar()}),
                                               *ArrayFromScalars(DataType::Int32(), {}),
                                               *ArrayFromScalars(DataType::Int32(), {Scalar::Int(-3)})});
  EXPECT_EQ(ints->ToString(), "[1, null, -3]");
  EXPECT_EQ(ints->null_count(), 1);
  EXPECT_EQ(ints->Value<int32_t>(2), -3);
}

TEST(Array, EqualityIgnoresValuesUnderNulls) {
  Int64Builder a(DataType::Int64()), b(DataType::Int64());
  a.Append(1);
  a.AppendNull();
  b.Append(1);
  b.AppendNull();
  EXPECT_TRUE(a.Finish()->Equals(*b.Finish()));
  EXPECT_FALSE(Ints({Scalar::Int(1)})->Equals(*Ints({Scalar::Int(2)})));
  EXPECT_FALSE(Ints({Scalar::Int(1)})->Equals(*Ints({Scalar()})));
  auto nan1 = *ArrayFromScalars(DataType::Float64(), {Scalar::Double(std::nan(""))});
  auto nan2 = *ArrayFromScalars(DataType::Float64(), {Scalar::Double(std::nan(""))});
  EXPECT_TRUE(nan1->Equals(*nan2));
}

// The per-cell rule entity diffs use (exec/changes/table_diff.h).
TEST(Array, ElementsEqualComparesOneCellOfEachArray) {
  auto strings = *ArrayFromScalars(DataType::Utf8(), {Scalar::String(""), Scalar(), Scalar::String("a")});
  auto others = *ArrayFromScalars(DataType::Utf8(), {Scalar::String("a"), Scalar(), Scalar::String("")});
  EXPECT_TRUE(ElementsEqual(*strings, 0, *others, 2));   // "" == ""
  EXPECT_TRUE(ElementsEqual(*strings, 1, *others, 1));   // null == null
  EXPECT_FALSE(ElementsEqual(*strings, 0, *others, 1));  // "" != null
  EXPECT_FALSE(ElementsEqual(*strings, 1, *others, 2));
  EXPECT_TRUE(ElementsEqual(*strings, 2, *others, 0));
  auto floats = *ArrayFromScalars(DataType::Float64(), {Scalar::Double(std::nan("")), Scalar::Double(0.0),
                                                         Scalar::Double(-0.0), Scalar::Double(std::nan("1"))});
  EXPECT_TRUE(ElementsEqual(*floats, 0, *floats, 3));   // every NaN is one value
  EXPECT_FALSE(ElementsEqual(*floats, 1, *floats, 2));  // bitwise: 0.0 != -0.0
  auto lists = *ArrayFromScalars(DataType::List(DataType::Int64()),
                                 {Scalar::Nested({Scalar::Int(1), Scalar::Int(2)}), Scalar::Nested({Scalar::Int(1)}),
                                  Scalar::Nested({Scalar::Int(1), Scalar::Int(2)})});
  EXPECT_TRUE(ElementsEqual(*lists, 0, *lists, 2));
  EXPECT_FALSE(ElementsEqual(*lists, 0, *lists, 1));
}

TEST(Scalar, CompareAcrossNumericKinds) {
  EXPECT_EQ(Scalar::Compare(Scalar::Int(-1), Scalar::UInt(~0ULL)), -1);
  EXPECT_EQ(Scalar::Compare(Scalar::UInt(5), Scalar::Int(5)), 0);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(2), Scalar::Double(1.5)), 1);
  // Exact across kinds: no rounding of the integer to a double.
  EXPECT_EQ(Scalar::Compare(Scalar::UInt(~0ULL), Scalar::Double(18446744073709551616.0)), -1);
  EXPECT_EQ(Scalar::Compare(Scalar::Double(18446744073709551616.0), Scalar::UInt(~0ULL)), 1);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(9007199254740993), Scalar::Double(9007199254740992.0)), 1);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(INT64_MIN), Scalar::Double(-9223372036854775808.0)), 0);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(-3), Scalar::Double(-2.5)), -1);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(-2), Scalar::Double(-2.5)), 1);
  EXPECT_EQ(Scalar::Compare(Scalar::UInt(0), Scalar::Double(-0.5)), 1);
  EXPECT_EQ(Scalar::Compare(Scalar::UInt(3), Scalar::Double(3.0)), 0);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(5), Scalar::Double(-INFINITY)), 1);
  EXPECT_EQ(Scalar::Compare(Scalar::Int(5), Scalar::Double(std::nan(""))), -1);
  EXPECT_EQ(Scalar::Compare(Scalar::String("a"), Scalar::String("b")), -1);
  EXPECT_FALSE(Scalar::Compare(Scalar::String("a"), Scalar::Int(1)).has_value());
  EXPECT_FALSE(Scalar::Compare(Scalar(), Scalar::Int(1)).has_value());
  EXPECT_EQ(Scalar::Compare(Scalar::Double(std::nan("")), Scalar::Double(1e308)), 1);
  EXPECT_TRUE(Scalar::Int(3) == Scalar::Double(3.0));
}

// A number as an int64 / uint64 / double only when it equals one exactly.
TEST(Scalar, ExactConversionsNeverRound) {
  EXPECT_EQ(Scalar::Double(2.0).ExactInt64(), 2);
  EXPECT_EQ(Scalar::Double(2.5).ExactInt64(), std::nullopt);
  EXPECT_EQ(Scalar::Double(-9223372036854775808.0).ExactInt64(), INT64_MIN);
  EXPECT_EQ(Scalar::Double(9223372036854775808.0).ExactInt64(), std::nullopt);
  EXPECT_EQ(Scalar::Double(std::nan("")).ExactInt64(), std::nullopt);
  EXPECT_EQ(Scalar::UInt(~0ULL).ExactInt64(), std::nullopt);
  EXPECT_EQ(Scalar::Int(-1).ExactUInt64(), std::nullopt);
  EXPECT_EQ(Scalar::Double(1e19).ExactUInt64(), 10000000000000000000ULL);
  EXPECT_EQ(Scalar::Double(18446744073709551616.0).ExactUInt64(), std::nullopt);
  EXPECT_EQ(Scalar::Double(-0.0).ExactUInt64(), 0u);
  EXPECT_EQ(Scalar::Int(9007199254740992).ExactDouble(), 9007199254740992.0);
  EXPECT_EQ(Scalar::Int(9007199254740993).ExactDouble(), std::nullopt);
  EXPECT_EQ(Scalar::Int(INT64_MAX).ExactDouble(), std::nullopt);  // the nearest double is 2^63
  EXPECT_EQ(Scalar::UInt(~0ULL).ExactDouble(), std::nullopt);
  EXPECT_EQ(Scalar::String("2").ExactInt64(), std::nullopt);
}

TEST(RecordBatch, MakeValidatesShape) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("id", DataType::Int64(), false), Field("name", DataType::Utf8())});
  auto ok = RecordBatch::Make(schema, {Ints({Scalar::Int(1)}), *ArrayFromScalars(DataType::Utf8(), {Scalar()})});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->num_rows(), 1);
  auto nulls = RecordBatch::Make(schema, {Ints({Scalar()}), *ArrayFromScalars(DataType::Utf8(), {Scalar()})});
  EXPECT_EQ(nulls.status().message(), "column 'id' is not nullable but holds 1 nulls");
  auto short_col = RecordBatch::Make(schema, {Ints({Scalar::Int(1)}), *ArrayFromScalars(DataType::Utf8(), {})});
  EXPECT_EQ(short_col.status().message(), "column 'name' has 0 rows, expected 1");
  auto wrong_type = RecordBatch::Make(schema, {Ints({Scalar::Int(1)}), Ints({Scalar::Int(1)})});
  EXPECT_EQ(wrong_type.status().message(), "column 'name' has type int64 but the schema says utf8");
}

TEST(Schema, AssignsIdsPreOrderFromAFloor) {
  Schema s({Field("a", DataType::Int32()), Field("s", DataType::Struct({Field("x", DataType::Int32())}))});
  s.AssignMissingFieldIds(10);
  EXPECT_EQ(s.field(0).id, 10);
  EXPECT_EQ(s.field(1).id, 11);
  EXPECT_EQ(s.field(1).type->children()[0].id, 12);
  EXPECT_EQ(s.FindFieldById(12)->name, "x");
  EXPECT_EQ(s.MaxFieldId(), 12);
}

}  // namespace array_test
}  // namespace omnigraph
