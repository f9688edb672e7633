#include "exec/result_format.h"

#include <cmath>

#include <gtest/gtest.h>

#include "exec/result_json.h"
#include "support/batches.h"

namespace omnigraph::exec {
namespace result_format_test {

using testing::D;
using testing::I;
using testing::L;
using testing::N;
using testing::S;

QueryResult Sample() {
  Schema schema({Field("p.name", DataType::Utf8()), Field("p.age", DataType::Int64()),
                 Field("born", DataType::Date32()), Field("seen", DataType::Date64()),
                 Field("tags", DataType::List(DataType::Utf8())), Field("score", DataType::Float64())});
  auto ptr = std::make_shared<const Schema>(schema);
  QueryResult result;
  result.query_name = "people";
  result.graph_commit_id = "01J0000000000000000000000A";
  for (const Field& f : schema.fields()) result.columns.push_back(f.name);
  result.rows = testing::MakeBatch(
      ptr, {{S("Alice"), I(9007199254740993), I(19723), I(1704067200123), L({S("a"), S("b,c")}), D(30)},
            {S("B\"ob\nx"), N(), N(), N(), L({}), D(std::nan(""))}});
  return result;
}

TEST(ResultJson, EncodesEveryTypeExactly) {
  QueryResult r = Sample();
  EXPECT_EQ(RowJson(r, 0),
            "{\"p.name\":\"Alice\",\"p.age\":9007199254740993,\"born\":\"2024-01-01\","
            "\"seen\":\"2024-01-01T00:00:00.123Z\",\"tags\":[\"a\",\"b,c\"],\"score\":30.0}");
  EXPECT_EQ(RowJson(r, 1),
            "{\"p.name\":\"B\\\"ob\\nx\",\"p.age\":null,\"born\":null,\"seen\":null,\"tags\":[],\"score\":\"NaN\"}");
  std::string exported;
  AppendCellJson(&exported, *r.rows->column(2), 0, TemporalEncoding::kInteger);
  EXPECT_EQ(exported, "19723");
}

TEST(ResultFormat, JsonlHasMetadataThenRows) {
  std::string out = FormatResult(Sample(), OutputFormat::kJsonl);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "{\"kind\":\"metadata\",\"query_name\":\"people\",\"target\":{\"branch\":\"main\",\"snapshot\":null},"
            "\"row_count\":2}");
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3);
}

// A read pinned to a snapshot has no branch: its target names only the
// snapshot, in JSON and in the table header.
TEST(ResultFormat, SnapshotReadsNameNoBranch) {
  QueryResult r = Sample();
  r.snapshot = "hb1.0.2.abc";
  std::string out = FormatResult(r, OutputFormat::kJsonl);
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "{\"kind\":\"metadata\",\"query_name\":\"people\",\"target\":{\"branch\":null,"
            "\"snapshot\":\"hb1.0.2.abc\"},\"row_count\":2}");
  std::string table = FormatResult(r, OutputFormat::kTable);
  EXPECT_EQ(table.substr(0, table.find('\n')), "2 rows from snapshot hb1.0.2.abc via people");
}

TEST(ResultFormat, CsvQuotesOnlyWhenNeeded) {
  std::string out = FormatResult(Sample(), OutputFormat::kCsv);
  EXPECT_EQ(out,
            "p.name,p.age,born,seen,tags,score\n"
            "Alice,9007199254740993,2024-01-01,2024-01-01T00:00:00.123Z,\"[\"\"a\"\",\"\"b,c\"\"]\",30.0\n"
            "\"B\"\"ob\nx\",null,null,null,[],NaN\n");
}

// Text formats print a float that JSON spells as a string ("NaN",
// "Infinity") raw, like any other string cell (§5.3), not as quoted JSON.
TEST(ResultFormat, NonFiniteFloatsPrintRawInTextFormats) {
  Schema schema({Field("s", DataType::Float64()), Field("t", DataType::Float32())});
  QueryResult result;
  result.query_name = "q";
  result.columns = {"s", "t"};
  result.rows = testing::MakeBatch(std::make_shared<const Schema>(schema),
                                   {{D(HUGE_VAL), D(-HUGE_VAL)}, {D(std::nan("")), D(1.5)}});
  EXPECT_EQ(FormatResult(result, OutputFormat::kCsv), "s,t\nInfinity,-Infinity\nNaN,1.5\n");
  EXPECT_EQ(FormatResult(result, OutputFormat::kKv),
            "2 rows from branch main via q\nrow 1\ns: Infinity\nt: -Infinity\n\nrow 2\ns: NaN\nt: 1.5\n");
  EXPECT_EQ(RowJson(result, 0), "{\"s\":\"Infinity\",\"t\":\"-Infinity\"}");
}

std::string FloatJson(double value) {
  Schema schema({Field("x", DataType::Float64())});
  QueryResult result;
  result.columns = {"x"};
  result.rows = testing::MakeBatch(std::make_shared<const Schema>(schema), {{D(value)}});
  std::string row = RowJson(result, 0);
  return row.substr(5, row.size() - 6);  // {"x":<value>}
}

// serde_json's spelling (the ryu crate's): shortest round-trip digits,
// positional while the decimal point falls within 16 digits after the first
// one or at most 4 zeros before it, else d.ddde<exponent> with no "+" and
// no leading zeros.
TEST(ResultJson, FloatsUseTheUpstreamSpelling) {
  EXPECT_EQ(FloatJson(0.0), "0.0");
  EXPECT_EQ(FloatJson(-0.0), "-0.0");
  EXPECT_EQ(FloatJson(1.0), "1.0");
  EXPECT_EQ(FloatJson(-2.5), "-2.5");
  EXPECT_EQ(FloatJson(1e15), "1000000000000000.0");
  EXPECT_EQ(FloatJson(1.5e15), "1500000000000000.0");
  EXPECT_EQ(FloatJson(1e16), "1e16");
  EXPECT_EQ(FloatJson(1.25e16), "1.25e16");
  EXPECT_EQ(FloatJson(1e20), "1e20");
  EXPECT_EQ(FloatJson(123456.789), "123456.789");
  EXPECT_EQ(FloatJson(0.001), "0.001");
  EXPECT_EQ(FloatJson(0.0001234), "0.0001234");
  EXPECT_EQ(FloatJson(1e-5), "0.00001");
  EXPECT_EQ(FloatJson(1e-6), "1e-6");
  EXPECT_EQ(FloatJson(1e-7), "1e-7");
  EXPECT_EQ(FloatJson(-1.5e-7), "-1.5e-7");
  EXPECT_EQ(FloatJson(1.7976931348623157e308), "1.7976931348623157e308");
  EXPECT_EQ(FloatJson(5e-324), "5e-324");
  EXPECT_EQ(FloatJson(0.1 + 0.2), "0.30000000000000004");
}

TEST(ResultFormat, TableAlignsAndTruncates) {
  QueryResult r = Sample();
  TableOptions narrow;
  narrow.max_column_width = 8;
  std::string out = FormatResult(r, OutputFormat::kTable, narrow);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "2 rows from branch main via people");
  // Widths: max(header, cell) capped at 8 code points; "…" marks a cut.
  EXPECT_EQ(lines[1], "p.name  | p.age    | born     | seen     | tags     | score");
  EXPECT_EQ(lines[2], "--------+----------+----------+----------+----------+------");
  EXPECT_EQ(lines[3], "Alice   | 9007199\u2026 | 2024-01\u2026 | 2024-01\u2026 | [\"a\",\"b\u2026 | 30.0 ");
  EXPECT_EQ(lines[4], "B\"ob\\nx | null     | null     | null     | []       | NaN  ");
}

// Table columns are measured in terminal columns: CJK characters take two,
// combining marks none, so rows line up in a terminal.
TEST(ResultFormat, TableMeasuresWideAndCombiningCharacters) {
  auto schema = std::make_shared<const Schema>(Schema({Field("name", DataType::Utf8()), Field("n", DataType::Int64())}));
  QueryResult r;
  r.query_name = "q";
  r.columns = {"name", "n"};
  r.rows = testing::MakeBatch(schema, {{S("数据库"), I(1)}, {S("e\u0301te\u0301"), I(2)}, {S("abc"), I(3)}});
  std::string out = FormatResult(r, OutputFormat::kTable, TableOptions{});
  EXPECT_EQ(out,
            "3 rows from branch main via q\n"
            "name   | n\n"
            "-------+--\n"
            "数据库 | 1\n"
            "e\u0301te\u0301    | 2\n"
            "abc    | 3\n");
  // Truncation never splits a wide character across the cap.
  TableOptions narrow;
  narrow.max_column_width = 8;
  r.rows = testing::MakeBatch(schema, {{S("数据库系统管理"), I(1)}});
  std::string cut = FormatResult(r, OutputFormat::kTable, narrow);
  EXPECT_NE(cut.find("数据库\u2026  | 1"), std::string::npos) << cut;
}

// table_cell_layout: wrap puts the rest of an over-wide cell on the next
// lines instead of cutting it.
TEST(ResultFormat, TableWrapsCellsWhenAsked) {
  Schema schema({Field("name", DataType::Utf8()), Field("n", DataType::Int64())});
  QueryResult result;
  result.query_name = "q";
  result.columns = {"name", "n"};
  result.rows = testing::MakeBatch(std::make_shared<const Schema>(schema),
                                   {{S("abcdefghijklmnopqrst"), I(1)}, {S("short"), I(22)}});
  TableOptions wrap;
  wrap.max_column_width = 8;
  wrap.wrap_cells = true;
  EXPECT_EQ(FormatResult(result, OutputFormat::kTable, wrap),
            "2 rows from branch main via q\n"
            "name     | n \n"
            "---------+---\n"
            "abcdefgh | 1 \n"
            "ijklmnop |   \n"
            "qrst     |   \n"
            "short    | 22\n");
}

TEST(ResultFormat, KvAndEmptyResults) {
  QueryResult empty;
  empty.query_name = "q";
  EXPECT_EQ(FormatResult(empty, OutputFormat::kTable), "0 rows from branch main via q\n(no rows)\n");
  EXPECT_EQ(FormatResult(empty, OutputFormat::kKv), "0 rows from branch main via q\n(no rows)\n");
  std::string kv = FormatResult(Sample(), OutputFormat::kKv);
  EXPECT_EQ(kv.substr(0, kv.find("row 2")),
            "2 rows from branch main via people\nrow 1\np.name: Alice\np.age: 9007199254740993\nborn: 2024-01-01\n"
            "seen: 2024-01-01T00:00:00.123Z\ntags: [\"a\",\"b,c\"]\nscore: 30.0\n\n");
}

// §5.3: `json` is pretty JSON, laid out as serde_json's pretty printer does.
TEST(ResultFormat, JsonEnvelope) {
  QueryResult sample = Sample();
  EXPECT_EQ(FormatResult(sample, OutputFormat::kJson),
            "{\n"
            "  \"query_name\": \"people\",\n"
            "  \"target\": {\n    \"branch\": \"main\",\n    \"snapshot\": null\n  },\n"
            "  \"row_count\": 2,\n"
            "  \"columns\": [\n    \"p.name\",\n    \"p.age\",\n    \"born\",\n    \"seen\",\n    \"tags\",\n"
            "    \"score\"\n  ],\n"
            "  \"rows\": [\n"
            "    {\n      \"p.name\": \"Alice\",\n      \"p.age\": 9007199254740993,\n      \"born\": \"2024-01-01\",\n"
            "      \"seen\": \"2024-01-01T00:00:00.123Z\",\n      \"tags\": [\n        \"a\",\n        \"b,c\"\n      ],\n"
            "      \"score\": 30.0\n    },\n"
            "    {\n      \"p.name\": \"B\\\"ob\\nx\",\n      \"p.age\": null,\n      \"born\": null,\n      \"seen\": null,\n"
            "      \"tags\": [],\n      \"score\": \"NaN\"\n    }\n"
            "  ],\n"
            "  \"graph_commit_id\": \"01J0000000000000000000000A\"\n"
            "}\n");
}

TEST(ResultJson, PrettyJsonKeepsTokensAndStrings) {
  EXPECT_EQ(PrettyJson(R"({"a":[],"b":{},"c":"x,{[:]}\"y","d":[1.50,{"e":null}]})"),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": \"x,{[:]}\\\"y\",\n  \"d\": [\n    1.50,\n    {\n      \"e\": null\n    }\n  ]\n}");
  EXPECT_EQ(PrettyJson("[]"), "[]");
  EXPECT_EQ(PrettyJson("7"), "7");
}

}  // namespace result_format_test
}  // namespace omnigraph::exec
