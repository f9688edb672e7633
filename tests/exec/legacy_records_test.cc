// The legacy record reader and its typed key spellings (spec/surface.md
// §4.6; exec/legacy_records.h), without storage.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "exec/legacy_records.h"

namespace omnigraph::exec {
namespace legacy_records_test {

using compiler::PropertyType;
using compiler::ScalarKind;

compiler::Catalog MustCompile(std::string_view source) {
  auto catalog = compiler::CompileSchema(source, "s.pg");
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  return std::move(catalog).value();
}

// What ReadLegacyRecords handed on, one line per record:
// "<number> <node|edge> <Type> [from->to] [id=…] name=value…".
std::string Read(const compiler::Catalog& catalog, std::string_view data) {
  std::string out;
  Status st = ReadLegacyRecords(data, catalog, [&](const LegacyRecord& r, uint64_t bytes_read) {
    out += std::to_string(r.number) + (r.node ? " node " + r.node->name : " edge " + r.edge->name);
    if (r.edge) out += " " + std::string(r.from) + "->" + std::string(r.to);
    if (r.explicit_id) out += " id=" + *r.explicit_id;
    for (const auto& [name, value] : r.fields) out += " " + std::string(name) + "=" + value.Dump();
    out += " @" + std::to_string(bytes_read) + "\n";
    return Status::OK();
  });
  if (!st.ok()) out += "error: " + st.message() + "\n";
  return out;
}

constexpr std::string_view kSchema =
    "node P {\n  name: String @key\n  age: I32?\n  tags: [String]?\n}\nedge Knows: P -> P\n";

TEST(LegacyRecordsTest, SplitsAStreamOfValues) {
  compiler::Catalog catalog = MustCompile(kSchema);
  // Braces and quotes inside strings do not end a record.
  EXPECT_EQ(Read(catalog, "{\"type\":\"P\",\"data\":{\"name\":\"a}{\\\"\",\"age\":\"x\",\"tags\":[\"[\"],\"zz\":1}}"
                          "{\"type\":\"P\",\"data\":{\"id\":\"b\",\"name\":\"b\"}}\r\n\t"
                          "{\"edge\":\"KNOWS\",\"from\":\"a\",\"to\":\"b\",\"data\":null}  "),
            "1 node P name=\"a}{\\\"\" age=null tags=[\"[\"] @66\n"
            "2 node P id=b name=\"b\" @107\n"
            "3 edge Knows a->b @158\n");
  // A stray closing bracket or comma is a record of its own, which the
  // JSON parser refuses.
  EXPECT_EQ(Read(catalog, "{\"type\":\"P\",\"data\":{\"name\":\"a\"}} , {}"),
            "1 node P name=\"a\" @32\nerror: record 2: invalid JSON at column 1: syntax error while parsing value - "
            "unexpected ','; expected '[', '{', or a literal\n");
  EXPECT_EQ(Read(catalog, "\"text\" null"), "error: record 1: expected 'type' or 'edge' field\n");
  EXPECT_EQ(Read(catalog, ""), "");
}

TEST(LegacyRecordsTest, TypedKeySpellings) {
  auto matches = [](std::string_view id, PropertyType type, Scalar value) {
    return LegacySpellingMatches(id, type, value);
  };
  const PropertyType text = PropertyType::Scalar(ScalarKind::kString);
  EXPECT_TRUE(matches("a b", text, Scalar::String("a b")));
  EXPECT_FALSE(matches("a", text, Scalar::String("a b")));
  EXPECT_TRUE(matches("red", PropertyType::Enum({"blue", "red"}), Scalar::String("red")));
  EXPECT_TRUE(matches("true", PropertyType::Scalar(ScalarKind::kBool), Scalar::Bool(true)));
  EXPECT_FALSE(matches("1", PropertyType::Scalar(ScalarKind::kBool), Scalar::Bool(true)));
  EXPECT_TRUE(matches("007", PropertyType::Scalar(ScalarKind::kI64), Scalar::Int(7)));
  EXPECT_TRUE(matches("-3", PropertyType::Scalar(ScalarKind::kI32), Scalar::Int(-3)));
  EXPECT_FALSE(matches("7.0", PropertyType::Scalar(ScalarKind::kI64), Scalar::Int(7)));
  EXPECT_FALSE(matches("7 ", PropertyType::Scalar(ScalarKind::kI64), Scalar::Int(7)));
  EXPECT_TRUE(matches("18446744073709551615", PropertyType::Scalar(ScalarKind::kU64),
                      Scalar::UInt(18446744073709551615ull)));
  EXPECT_FALSE(matches("-1", PropertyType::Scalar(ScalarKind::kU32), Scalar::UInt(4294967295u)));
  // Floats compare at the stored width: 0.1 as F32 is the float nearest 0.1.
  EXPECT_TRUE(matches("0.1", PropertyType::Scalar(ScalarKind::kF32), Scalar::Double(static_cast<float>(0.1))));
  EXPECT_TRUE(matches("1.0", PropertyType::Scalar(ScalarKind::kF64), Scalar::Double(1.0)));
  EXPECT_TRUE(matches("1e0", PropertyType::Scalar(ScalarKind::kF64), Scalar::Double(1.0)));
  EXPECT_FALSE(matches("0.1", PropertyType::Scalar(ScalarKind::kF64), Scalar::Double(static_cast<float>(0.1))));
  EXPECT_FALSE(matches("nan", PropertyType::Scalar(ScalarKind::kF64), Scalar::Double(1.0)));
  const PropertyType date = PropertyType::Scalar(ScalarKind::kDate);
  EXPECT_TRUE(matches("2024-01-01", date, Scalar::Int(19723)));
  EXPECT_TRUE(matches("19723", date, Scalar::Int(19723)));
  // An all-digit id is an epoch-day count, never a YYYYMMDD date.
  EXPECT_FALSE(matches("20240101", date, Scalar::Int(19723)));
  EXPECT_TRUE(matches("20240101", date, Scalar::Int(20240101)));
  EXPECT_FALSE(matches("2024-01-02", date, Scalar::Int(19723)));
  const PropertyType datetime = PropertyType::Scalar(ScalarKind::kDateTime);
  EXPECT_TRUE(matches("2024-01-01T00:00:00Z", datetime, Scalar::Int(1704067200000)));
  EXPECT_TRUE(matches("2024-01-01 01:00:00+01:00", datetime, Scalar::Int(1704067200000)));
  EXPECT_TRUE(matches("1704067200000", datetime, Scalar::Int(1704067200000)));
  EXPECT_FALSE(matches("2024-01-01T00:00:01Z", datetime, Scalar::Int(1704067200000)));
}

}  // namespace legacy_records_test
}  // namespace omnigraph::exec
