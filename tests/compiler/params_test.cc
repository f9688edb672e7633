// Query parameters: JSON → typed values (spec/surface.md §2.3), with exact
// 64-bit integers (case B12).
#include <limits>

#include <gtest/gtest.h>

#include "compiler/params.h"
#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace params_test {

using testing::MustCheck;
using testing::Social;

// A read query declaring `params` and using every one of them in return.
ir::QueryIR QueryWith(std::string_view params, std::string_view ret) {
  return MustCheck(Social(), "query q(" + std::string(params) + ") { match { $p: Person } return { " +
                                 std::string(ret) + " } }");
}

Result<Scalar> One(std::string_view type_params, std::string_view json) {
  ir::QueryIR q = QueryWith("$x: " + std::string(type_params), "$x");
  Result<ParamMap> m = BindParams(q, "{\"x\": " + std::string(json) + "}");
  if (!m.ok()) return m.status();
  return m->at("x").value;
}

std::string OneError(std::string_view type, std::string_view json) {
  Result<Scalar> r = One(type, json);
  return r.ok() ? "" : r.status().message();
}

TEST(Params, MustBeAJsonObject) {
  ir::QueryIR q = QueryWith("$x: I32?", "$x");
  EXPECT_EQ(BindParams(q, "[1]").status().message(), "params must be a JSON object");
  EXPECT_EQ(BindParams(q, "5").status().message(), "params must be a JSON object");
  EXPECT_EQ(BindParams(q, "{\"x\": }").status().message().substr(0, 20), "invalid params JSON:");
  EXPECT_EQ(BindParams(q, "{\"x\": }").status().code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(BindParams(q, "").ok());
  ASSERT_TRUE(BindParams(q, "  \n").ok());
  EXPECT_TRUE(BindParams(q, "")->at("x").value.is_null());
  // Repeated names are refused at any depth, as in graph input (§4.1).
  EXPECT_EQ(BindParams(q, R"({"x": 1, "x": 2})").status().message(), "invalid params JSON: duplicate member 'x'");
  EXPECT_EQ(BindParams(q, R"({"x": 1, "y": [{"a": 1, "a": 2}]})").status().message(),
            "invalid params JSON: duplicate member 'a'");
  EXPECT_TRUE(BindParams(q, R"({"x": 1, "y": [{"a": 1}, {"a": 2}]})").ok());
}

TEST(Params, ExactSixtyFourBitIntegers) {
  EXPECT_EQ(One("I64", "9007199254740993")->int_value(), 9007199254740993);
  EXPECT_EQ(One("I64", "\"9007199254740993\"")->int_value(), 9007199254740993);
  EXPECT_EQ(One("I64", "9007199254740992")->int_value(), 9007199254740992);
  EXPECT_EQ(One("I64", "-9223372036854775808")->int_value(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(One("I64", "\"-9223372036854775808\"")->int_value(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(One("I64", "9223372036854775807")->int_value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(One("I64", "1413617112501850121")->int_value(), 1413617112501850121);
  EXPECT_EQ(One("I64", "-9223372036854775807")->int_value(), -9223372036854775807);
  EXPECT_EQ(OneError("I64", "9223372036854775808"), "parameter 'x': value 9223372036854775808 exceeds I64");
  EXPECT_EQ(OneError("I64", "-9223372036854775809"), "parameter 'x': value -9223372036854775809 exceeds I64");
  EXPECT_EQ(OneError("I64", "\"99999999999999999999\""), "parameter 'x': value 99999999999999999999 exceeds I64");
  EXPECT_EQ(OneError("I64", "99999999999999999999"), "parameter 'x': value 99999999999999999999 exceeds I64");
  // U64 takes the full unsigned range (the upstream i64 limit is not kept).
  EXPECT_EQ(One("U64", "18446744073709551615")->uint_value(), 18446744073709551615ULL);
  EXPECT_EQ(One("U64", "\"18446744073709551615\"")->uint_value(), 18446744073709551615ULL);
  EXPECT_EQ(OneError("U64", "18446744073709551616"), "parameter 'x': value 18446744073709551616 exceeds U64");
  EXPECT_EQ(OneError("U64", "-1"), "parameter 'x': value -1 exceeds U64");
}

TEST(Params, ThirtyTwoBitRangeChecks) {
  EXPECT_EQ(One("I32", "2147483647")->int_value(), 2147483647);
  EXPECT_EQ(One("I32", "-2147483648")->int_value(), -2147483648LL);
  EXPECT_EQ(One("I32", "\"-12\"")->int_value(), -12);
  EXPECT_EQ(One("I32", "\"+12\"")->int_value(), 12);
  EXPECT_EQ(OneError("I32", "3000000000"), "parameter 'x': value 3000000000 exceeds I32");
  EXPECT_EQ(OneError("I32", "-2147483649"), "parameter 'x': value -2147483649 exceeds I32");
  EXPECT_EQ(One("U32", "4294967295")->uint_value(), 4294967295u);
  EXPECT_TRUE(One("U32", "7")->is_uint());
  EXPECT_EQ(OneError("U32", "4294967296"), "parameter 'x': value 4294967296 exceeds U32");
  EXPECT_EQ(OneError("U32", "-1"), "parameter 'x': value -1 exceeds U32");
}

TEST(Params, IntegersRejectOtherJson) {
  EXPECT_EQ(OneError("I32", "1.5"), "parameter 'x': expects an integer for I32, got 1.5");
  EXPECT_EQ(OneError("I32", "1.0"), "parameter 'x': expects an integer for I32, got 1.0");
  EXPECT_EQ(OneError("I64", "1e3"), "parameter 'x': expects an integer for I64, got 1e3");
  EXPECT_EQ(OneError("I32", "\"1.0\""), "parameter 'x': expects an integer for I32, got \"1.0\"");
  EXPECT_EQ(OneError("I32", "\"12a\""), "parameter 'x': expects an integer for I32, got \"12a\"");
  EXPECT_EQ(OneError("I32", "\"\""), "parameter 'x': expects an integer for I32, got \"\"");
  EXPECT_EQ(OneError("I32", "true"), "parameter 'x': expects an integer for I32, got boolean");
  EXPECT_EQ(OneError("I32", "[1]"), "parameter 'x': expects an integer for I32, got array");
}

TEST(Params, FloatsStringsBools) {
  EXPECT_EQ(One("F64", "0.1")->double_value(), 0.1);
  EXPECT_EQ(One("F64", "3")->double_value(), 3.0);
  EXPECT_EQ(One("F64", "1e300")->double_value(), 1e300);
  EXPECT_EQ(One("F32", "0.1")->double_value(), static_cast<double>(0.1f));
  EXPECT_EQ(One("F64", "-9223372036854775808")->double_value(), -9223372036854775808.0);
  EXPECT_EQ(OneError("F32", "1e300"), "parameter 'x': value 1e300 exceeds F32");
  // JSON numbers that overflow a double are malformed input.
  EXPECT_EQ(OneError("F64", "1e400").substr(0, 20), "invalid params JSON:");
  // The overflowing token is echoed shortened.
  std::string long_overflow = OneError("F64", "1e" + std::string(300, '4'));
  EXPECT_NE(long_overflow.find("… (302 bytes)'"), std::string::npos) << long_overflow;
  EXPECT_LT(long_overflow.size(), 250u) << long_overflow;
  EXPECT_EQ(OneError("F64", "\"1.5\""), "parameter 'x': expects a number for F64, got string");
  EXPECT_EQ(One("String", "\"héllo\"")->string_value(), "héllo");
  EXPECT_EQ(OneError("String", "5"), "parameter 'x': expects String, got number");
  EXPECT_TRUE(One("Bool", "true")->bool_value());
  EXPECT_EQ(OneError("Bool", "\"true\""), "parameter 'x': expects Bool, got string");
  // Blob parameters cannot be read values (T24); convert directly.
  const PropertyType blob = PropertyType::Scalar(ScalarKind::kBlob);
  EXPECT_EQ(ConvertParamValue("x", blob, "\"base64:AAAA\"")->string_value(), "base64:AAAA");
  EXPECT_EQ(ConvertParamValue("x", blob, "{}").status().message(), "parameter 'x': expects Blob, got object");
}

TEST(Params, DatesAndDateTimes) {
  EXPECT_EQ(One("Date", "\"2024-01-01\"")->int_value(), 19723);
  EXPECT_EQ(One("Date", "19723")->int_value(), 19723);
  EXPECT_EQ(OneError("Date", "\"2024-13-01\""), "parameter 'x': invalid Date literal '2024-13-01'");
  EXPECT_EQ(OneError("Date", "true"), "parameter 'x': expects a Date string, got boolean");
  EXPECT_EQ(One("DateTime", "\"2024-01-01T00:00:00Z\"")->int_value(), 1704067200000);
  EXPECT_EQ(One("DateTime", "\"2024-01-01T02:00:00+02:00\"")->int_value(), 1704067200000);
  EXPECT_EQ(One("DateTime", "1704067200000")->int_value(), 1704067200000);
  EXPECT_EQ(OneError("DateTime", "\"noon\""), "parameter 'x': invalid DateTime literal 'noon'");
}

TEST(Params, ListsAndVectors) {
  Scalar l = *One("[I32]", "[1, 2, 3]");
  ASSERT_EQ(l.nested().size(), 3u);
  EXPECT_EQ(l.nested()[2].int_value(), 3);
  EXPECT_TRUE(One("[String]", "[]")->nested().empty());
  EXPECT_EQ(One("[Date]", "[\"2024-01-01\"]")->nested()[0].int_value(), 19723);
  EXPECT_EQ(OneError("[I32]", "[1, null]"), "parameter 'x': list elements must not be null");
  EXPECT_EQ(OneError("[I32]", "[1, 3000000000]"), "parameter 'x': value 3000000000 exceeds I32");
  EXPECT_EQ(OneError("[I32]", "1"), "parameter 'x': expects an array, got number");
  Scalar v = *One("Vector(3)", "[0.1, 2, -3.5]");
  ASSERT_EQ(v.nested().size(), 3u);
  EXPECT_EQ(v.nested()[0].double_value(), static_cast<double>(0.1f));
  EXPECT_EQ(v.nested()[1].double_value(), 2.0);
  EXPECT_EQ(OneError("Vector(3)", "[1, 2]"), "parameter 'x': expects 3 dimensions, got 2");
  EXPECT_EQ(OneError("Vector(2)", "[1, \"a\"]"), "parameter 'x': expects a number for F32, got string");
  EXPECT_EQ(OneError("Vector(2)", "[1, 1e300]"), "parameter 'x': value 1e300 exceeds F32");
}

TEST(Params, NullsAndMissingValues) {
  ir::QueryIR q = QueryWith("$a: I32, $b: I32?, $c: String?, $d: String", "$a, $b, $c");
  Result<ParamMap> m = BindParams(q, R"({"a": 1, "b": null})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->at("a").value.int_value(), 1);
  EXPECT_TRUE(m->at("b").value.is_null());
  EXPECT_TRUE(m->at("c").value.is_null());  // omitted nullable → NULL
  EXPECT_EQ(m->count("d"), 0u);             // omitted but unused: not an error
  EXPECT_EQ(m->at("b").type.ToString(), "I32?");
  EXPECT_EQ(BindParams(q, R"({"b": 1})").status().message(), "parameter 'a' not provided");
  EXPECT_EQ(BindParams(q, R"({"a": null})").status().message(),
            "parameter 'a': null is not allowed for non-nullable type I32");
  // Keys the query does not declare are ignored.
  EXPECT_TRUE(BindParams(q, R"({"a": 1, "zzz": [1, {"deep": true}]})").ok());
}

TEST(Params, NowIsInjectedForReadsAndMutations) {
  ir::QueryIR read = MustCheck(Social(), "query q() { match { $p: Person $p.seen <= now() } return { now() } }");
  EXPECT_TRUE(read.uses_now);
  BindOptions fixed;
  fixed.now_ms = 1704067200000;
  Result<ParamMap> m = BindParams(read, "{}", fixed);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->at(std::string(ir::kNowParam)).value.int_value(), 1704067200000);
  EXPECT_EQ(m->at(std::string(ir::kNowParam)).type.ToString(), "DateTime");
  // A reader may pin it explicitly (upstream readers pass it)...
  const std::string pin = R"({"__nanograph_now": "2024-01-02T00:00:00Z"})";
  EXPECT_EQ(BindParams(read, pin)->at(std::string(ir::kNowParam)).value.int_value(), 1704153600000);
  // ... but an injected clock (a mutation's request time) wins: no caller
  // can date a write.
  EXPECT_EQ(BindParams(read, pin, fixed)->at(std::string(ir::kNowParam)).value.int_value(), 1704067200000);
  // Default: the clock.
  EXPECT_GT(BindParams(read, "{}")->at(std::string(ir::kNowParam)).value.int_value(), 1704067200000);
  ir::QueryIR mut = MustCheck(Social(), "query m() { update Person set { seen: now() } where name = \"a\" }");
  EXPECT_EQ(BindParams(mut, "", fixed)->at(std::string(ir::kNowParam)).value.int_value(), 1704067200000);
  EXPECT_EQ(BindParams(mut, pin, fixed)->at(std::string(ir::kNowParam)).value.int_value(), 1704067200000);
  // Queries without now() get no now value.
  EXPECT_EQ(BindParams(QueryWith("", "$p.name"), "{}")->size(), 0u);
}

TEST(Params, JsSafeIntegerMode) {
  ir::QueryIR q = QueryWith("$x: I64", "$x");
  BindOptions web;
  web.js_safe_integers = true;
  EXPECT_EQ(BindParams(q, R"({"x": 9007199254740993})", web).status().message(),
            "parameter 'x': integer 9007199254740993 is beyond the JavaScript safe range; pass it as a decimal string");
  EXPECT_EQ(BindParams(q, R"({"x": "9007199254740993"})", web)->at("x").value.int_value(), 9007199254740993);
  EXPECT_EQ(BindParams(q, R"({"x": 9007199254740991})", web)->at("x").value.int_value(), 9007199254740991);
}

TEST(Params, ConvertSingleValue) {
  EXPECT_EQ(ConvertParamValue("v", PropertyType::Scalar(ScalarKind::kI64), "9007199254740993")->int_value(),
            9007199254740993);
  EXPECT_TRUE(ConvertParamValue("v", PropertyType::Scalar(ScalarKind::kI64, true), "null")->is_null());
  EXPECT_EQ(ConvertParamValue("v", PropertyType::Enum({"a"}), "\"a\"")->string_value(), "a");
}

}  // namespace params_test
}  // namespace omnigraph::compiler
