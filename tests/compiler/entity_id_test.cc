// Entity id derivation (spec/surface.md §1.7, §9 item 2) and the calendar
// helpers behind Date/DateTime values.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "compiler/entity_id.h"
#include "compiler/temporal.h"
#include "compiler_test_util.h"
#include "util/ulid.h"

namespace omnigraph::compiler {
namespace entity_id_test {

using testing::MustCompile;

std::string Canon(ScalarKind kind, const Scalar& v) {
  Result<std::string> r = CanonicalScalarText(PropertyType::Scalar(kind), v);
  return r.ok() ? *r : "ERROR: " + r.status().message();
}

TEST(EntityId, CanonicalIntegers) {
  EXPECT_EQ(Canon(ScalarKind::kI64, Scalar::Int(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(Canon(ScalarKind::kI64, Scalar::Int(9223372036854775807)), "9223372036854775807");
  EXPECT_EQ(Canon(ScalarKind::kU64, Scalar::UInt(18446744073709551615ULL)), "18446744073709551615");
  EXPECT_EQ(Canon(ScalarKind::kI32, Scalar::Int(-7)), "-7");
  EXPECT_EQ(Canon(ScalarKind::kU32, Scalar::UInt(0)), "0");
  EXPECT_EQ(Canon(ScalarKind::kI64, Scalar::Int(1413617112501850121)), "1413617112501850121");
}

TEST(EntityId, CanonicalStringsBoolsAndTemporals) {
  EXPECT_EQ(Canon(ScalarKind::kString, Scalar::String("a,b")), "a,b");
  EXPECT_EQ(Canon(ScalarKind::kBool, Scalar::Bool(true)), "true");
  EXPECT_EQ(Canon(ScalarKind::kBool, Scalar::Bool(false)), "false");
  EXPECT_EQ(Canon(ScalarKind::kDate, Scalar::Int(*ParseDate("2024-01-01"))), "19723");
  EXPECT_EQ(Canon(ScalarKind::kDateTime, Scalar::Int(*ParseDateTime("2024-01-01T00:00:00Z"))), "1704067200000");
  EXPECT_EQ(*CanonicalScalarText(PropertyType::Enum({"x", "y"}), Scalar::String("y")), "y");
}

TEST(EntityId, CanonicalFloatsAreShortestWithoutExponent) {
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(1.25)), "1.25");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(-2.5)), "-2.5");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(1.0)), "1");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(0.0)), "0");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(-0.0)), "0");
  EXPECT_EQ(Canon(ScalarKind::kF32, Scalar::Double(-0.0)), "0");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(0.1)), "0.1");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(1e21)), "1000000000000000000000");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(1e-7)), "0.0000001");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(123456.789)), "123456.789");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(1e300)).size(), 301u);
  // At the stored width: an F32 0.1 is 0.1 (not 0.10000000149011612).
  EXPECT_EQ(Canon(ScalarKind::kF32, Scalar::Double(static_cast<float>(0.1))), "0.1");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(static_cast<float>(0.1))), "0.10000000149011612");
  EXPECT_EQ(Canon(ScalarKind::kF32, Scalar::Double(16777217.0)), "16777216");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Int(3)), "3");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(std::nan(""))), "ERROR: key value NaN is not a valid key");
  EXPECT_EQ(Canon(ScalarKind::kF64, Scalar::Double(INFINITY)), "ERROR: key value inf is not a valid key");
  EXPECT_EQ(Canon(ScalarKind::kF32, Scalar::Double(1e300)), "ERROR: key value 1e+300 is not a valid key");
}

TEST(EntityId, CanonicalRejectsNonKeyValues) {
  EXPECT_EQ(Canon(ScalarKind::kString, Scalar::Null()), "ERROR: a null value is not a valid key");
  EXPECT_EQ(Canon(ScalarKind::kBlob, Scalar::String("x")), "ERROR: Blob values cannot form an entity id");
  EXPECT_EQ(Canon(ScalarKind::kI32, Scalar::String("1")), "ERROR: value \"1\" does not match key type I32");
  EXPECT_FALSE(CanonicalScalarText(PropertyType::List(ScalarKind::kI32), Scalar::Nested({})).ok());
  EXPECT_FALSE(CanonicalScalarText(PropertyType::Vector(2), Scalar::Nested({})).ok());
}

TEST(EntityId, CompositeKeyJson) {
  EXPECT_EQ(CompositeKeyJson({"a,b", "7", "quote\"and\\slash"}), R"(["a,b","7","quote\"and\\slash"])");
  EXPECT_EQ(CompositeKeyJson({"tab\tnl\ncr\r", std::string("\x01\x1f", 2), "é✓"}),
            "[\"tab\\tnl\\ncr\\r\",\"\\u0001\\u001f\",\"é✓\"]");
  EXPECT_EQ(CompositeKeyJson({"\b\f", "/"}), R"(["\b\f","/"])");
}

TEST(EntityId, DeriveKeyIdSingleAndComposite) {
  Catalog c = MustCompile(
      "node Person { name: String @key }\n"
      "node Pair { b: String a: I64 c: Bool @key(b, a) }\n"
      "node Tweet { id_num: I64 @key }\n"
      "node Loose { n: String }");
  EXPECT_EQ(*DeriveKeyId(*c.FindNode("Person"), {Scalar::String("Alice")}), "Alice");
  // Key order is stable-id order: a (I64) before b (String).
  ASSERT_EQ(c.FindNode("Pair")->key, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*DeriveKeyId(*c.FindNode("Pair"), {Scalar::Int(7), Scalar::String("a,b")}), R"(["7","a,b"])");
  EXPECT_EQ(*DeriveKeyId(*c.FindNode("Tweet"), {Scalar::Int(-9223372036854775807 - 1)}), "-9223372036854775808");
  Result<std::string> missing = DeriveKeyId(*c.FindNode("Person"), {Scalar::Null()});
  EXPECT_EQ(missing.status().message(), "node Person is missing a non-null @key value");
  EXPECT_EQ(DeriveKeyId(*c.FindNode("Loose"), {Scalar::String("x")}).status().message(), "node type Loose has no @key");
  EXPECT_EQ(DeriveKeyId(*c.FindNode("Pair"), {Scalar::Int(1)}).status().message(),
            "node Pair key has 2 properties, got 1 values");
}

TEST(EntityId, NewIdsAreUlids) {
  std::string a = NewEntityId();
  std::string b = NewEntityId();
  EXPECT_EQ(a.size(), 26u);
  EXPECT_TRUE(IsCanonicalUlid(a));
  EXPECT_LT(a, b);  // monotonic within the process
}

TEST(EntityIdTemporal, ParseDate) {
  EXPECT_EQ(ParseDate("1970-01-01"), 0);
  EXPECT_EQ(ParseDate("2024-01-01"), 19723);
  EXPECT_EQ(ParseDate("2024-1-1"), 19723);
  EXPECT_EQ(ParseDate("20240101"), 19723);
  EXPECT_EQ(ParseDate("1969-12-31"), -1);
  EXPECT_EQ(ParseDate("2024-02-29"), 19782);
  EXPECT_EQ(ParseDate("2024-01-01T23:59:59Z"), 19723);
  EXPECT_EQ(ParseDate("2024-01-01T23:30:00-02:00"), 19724);
  EXPECT_FALSE(ParseDate("2023-02-29").has_value());
  EXPECT_FALSE(ParseDate("2024-13-01").has_value());
  EXPECT_FALSE(ParseDate("2024-00-10").has_value());
  EXPECT_FALSE(ParseDate("yesterday").has_value());
  EXPECT_FALSE(ParseDate("").has_value());
}

TEST(EntityIdTemporal, ParseDateTime) {
  EXPECT_EQ(ParseDateTime("2024-01-01"), 1704067200000);
  EXPECT_EQ(ParseDateTime("2024-01-01T00:00:00Z"), 1704067200000);
  EXPECT_EQ(ParseDateTime("2024-01-01 00:00:00"), 1704067200000);
  EXPECT_EQ(ParseDateTime("2024-01-01T01:00:00+01:00"), 1704067200000);
  EXPECT_EQ(ParseDateTime("2024-01-01T00:00:00.123456Z"), 1704067200123);
  EXPECT_EQ(ParseDateTime("2024-01-01T00:00:00.5Z"), 1704067200500);
  EXPECT_EQ(ParseDateTime("2024-01-01T00:00Z"), 1704067200000);
  EXPECT_EQ(ParseDateTime("2023-12-31T19:00:00-0500"), 1704067200000);
  EXPECT_EQ(ParseDateTime("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_FALSE(ParseDateTime("2024-01-01T25:00:00Z").has_value());
  EXPECT_FALSE(ParseDateTime("2024-01-01T00:00:00X").has_value());
  EXPECT_FALSE(ParseDateTime("2024-01-01X00:00:00").has_value());
  // An offset with a colon needs its minutes; a timestamp's month and day
  // have two digits (only a bare Date may use one).
  EXPECT_FALSE(ParseDateTime("2024-01-01T00:00:00+05:").has_value());
  EXPECT_FALSE(ParseDateTime("2024-01-01T00:00:00+5").has_value());
  EXPECT_EQ(ParseDateTime("2024-01-01T05:00:00+05"), 1704067200000);
  EXPECT_FALSE(ParseDateTime("2024-1-1T00:00:00Z").has_value());
  EXPECT_FALSE(ParseDateTime("2024-01-1 00:00:00").has_value());
  EXPECT_EQ(ParseDateTime("2024-1-1"), 1704067200000);
  EXPECT_FALSE(ParseDate("2024-1-1T00:00:00Z").has_value());
}

TEST(EntityIdTemporal, Format) {
  EXPECT_EQ(FormatDate(19723), "2024-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDateTime(1704067200123), "2024-01-01T00:00:00.123Z");
  EXPECT_EQ(FormatDateTime(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  for (int64_t d : {-800000, -1, 0, 1, 59, 60, 11016, 2932896}) {
    EXPECT_EQ(ParseDate(FormatDate(d)), d) << d;
  }
}

}  // namespace entity_id_test
}  // namespace omnigraph::compiler
