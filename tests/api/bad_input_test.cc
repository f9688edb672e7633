// Bad input through the embedded API: every malformed `.pg`, `.gq`,
// parameter object and JSONL line is refused with its exact error code and
// message, naming the file, line and column (or the JSONL line number), and
// the graph is left exactly as it was (same export, same commit count).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace bad_input_test {

constexpr std::string_view kSchema = R"(node Person {
    name: String @key
    age: I32?
    email: String?
    status: enum(active, retired)?
    born: Date?
    @range(age, 0..150)
    @check(email, "^[a-z]+@")
}
node Company {
    name: String @key
    code: String? @unique
}
node Note { body: String }
edge WorksAt: Person -> Company { since: Date? }
edge Knows: Person -> Person
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"alice","age":30,"status":"active"}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme","code":"A"}}
{"edge":"WorksAt","from":"alice","to":"acme"}
{"edge":"Knows","from":"alice","to":"bob"}
)";

constexpr std::string_view kQueries = R"(query by_age($min: I32) {
    match { $p: Person $p.age >= $min }
    return { $p.name }
}
query born_after($d: Date) {
    match { $p: Person $p.born > $d }
    return { $p.name }
}
query maybe($n: String?) {
    match { $p: Person { name: $n } }
    return { $p.name }
}
query add($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
query count_all() {
    match { $p: Person }
    return { count($p) as n }
}
)";

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(kData, "seed.jsonl", LoadMode::kOverwrite);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    export_ = *graph_->Export("main", {});
    commits_ = graph_->ListCommits()->size();
  }

  // The graph holds exactly the seed data and no further commit.
  void ExpectUnchanged(const std::string& what) {
    EXPECT_EQ(*graph_->Export("main", {}), export_) << what;
    EXPECT_EQ(graph_->ListCommits()->size(), commits_) << what;
  }

  template <typename T>
  void ExpectError(const Result<T>& r, ErrorCode code, const std::string& message) {
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_EQ(r.status().message(), message);
    ExpectUnchanged(message);
  }

  Result<LoadReport> LoadBad(std::string_view data, LoadMode mode = LoadMode::kMerge) {
    return graph_->Load(data, "bad.jsonl", mode);
  }

  // A good first line, then `line` as line 2.
  std::string SecondLine(std::string_view line) {
    return std::string("{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n") + std::string(line) + "\n";
  }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
  std::string export_;
  size_t commits_ = 0;
};

// ---- .pg ----------------------------------------------------------------

struct SchemaCase {
  const char* source;
  const char* message;
};

TEST_F(BadInputTest, MalformedSchemaIsRefusedAndCreatesNoGraph) {
  const SchemaCase cases[] = {
      // Syntax: a lower-case type name.
      {"node person { name: String }\n",
       "parse error: bad.pg:1:6: expected type name, found `person`\n"
       "1 | node person { name: String }\n"
       "  |      ^"},
      // Unknown property type.
      {"node P {\n  name: Strng\n}\n",
       "parse error: bad.pg:2:9: expected `[`, `enum`, `Vector` or type, found `Strng`\n"
       "2 |   name: Strng\n"
       "  |         ^"},
      // Duplicate property.
      {"node P {\n  a: String\n  a: I32\n}\n",
       "parse error: bad.pg:3:3: node P declares property 'a' more than once\n"
       "3 |   a: I32\n"
       "  |   ^"},
      // Bad annotations: `@key(` is the body-constraint spelling, which
      // needs property names; @description needs a non-empty text.
      {"node P {\n  a: String @key(\"x\")\n}\n",
       "parse error: bad.pg:2:18: expected property name in constraint\n"
       "2 |   a: String @key(\"x\")\n"
       "  |                  ^"},
      {"node P {\n  a: String @description(\"\")\n}\n",
       "parse error: bad.pg:2:13: @description on property P.a requires a non-empty value\n"
       "2 |   a: String @description(\"\")\n"
       "  |             ^"},
      // Reserved storage column name.
      {"node P {\n  _rowid: String\n}\n",
       "parse error: bad.pg:2:3: property name '_rowid' is reserved for a virtual storage system column\n"
       "2 |   _rowid: String\n"
       "  |   ^"},
      // Edge names colliding after case folding.
      {"node P { a: String }\nedge Knows: P -> P\nedge KNOWS: P -> P\n",
       "catalog error: bad.pg:3:6: edge name collision after case folding: 'KNOWS' conflicts with 'Knows'\n"
       "3 | edge KNOWS: P -> P\n"
       "  |      ^"},
      // Unknown edge endpoint.
      {"node P { a: String }\nedge E: P -> Q\n",
       "catalog error: bad.pg:2:14: edge E references unknown target type: Q\n"
       "2 | edge E: P -> Q\n"
       "  |              ^"},
      // Unsupported string escape.
      {"node P @description(\"\\u0041\") { a: String }\n",
       "parse error: bad.pg:1:22: unsupported escape sequence: \\u\n"
       "1 | node P @description(\"\\u0041\") { a: String }\n"
       "  |                      ^"},
      // Sources must be UTF-8: a stray byte would reach storage and break
      // export -> load round trips.
      {"node P @description(\"caf\xe9\") { a: String }\n",
       "parse error: bad.pg:1:25: invalid UTF-8 byte 0xE9\n"
       "1 | node P @description(\"caf\\xE9\") { a: String }\n"
       "  |                         ^"},
  };
  int n = 0;
  for (const SchemaCase& c : cases) {
    std::string dir = dir_.path() + "/bad" + std::to_string(n++);
    auto r = Omnigraph::Init(dir, c.source, "bad.pg");
    ASSERT_FALSE(r.ok()) << c.source;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << c.source;
    EXPECT_EQ(r.status().message(), c.message);
    EXPECT_FALSE(std::filesystem::exists(dir)) << c.source;
  }
}

TEST_F(BadInputTest, InitOnAnExistingGraphWithABadSchemaLeavesItAlone) {
  auto r = Omnigraph::Init(dir_.path() + "/g", "node p {}", "bad.pg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  ExpectUnchanged("bad schema over an existing graph");
  auto again = Omnigraph::Init(dir_.path() + "/g", kSchema, "schema.pg");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kAlreadyExists);
  ExpectUnchanged("init over an existing graph");
}


// ---- .gq ----------------------------------------------------------------

struct QueryCase {
  const char* source;
  const char* message;
  const char* code;    // details["code"]
  const char* line;    // details["line"]
  const char* column;  // details["column"]
};

// The refusal of `c.source` (compiled as "bad.gq"): exact code, message and
// position details.
void ExpectPositionedError(const Status& status, const QueryCase& c) {
  ASSERT_FALSE(status.ok()) << c.source;
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument) << c.source;
  EXPECT_EQ(status.message(), c.message) << c.source;
  const auto& details = status.details();
  EXPECT_EQ(details.count("code") ? details.at("code") : "", c.code) << c.source;
  EXPECT_EQ(details.count("file") ? details.at("file") : "", "bad.gq") << c.source;
  EXPECT_EQ(details.count("line") ? details.at("line") : "", c.line) << c.source;
  EXPECT_EQ(details.count("column") ? details.at("column") : "", c.column) << c.source;
}

TEST_F(BadInputTest, MalformedReadQueriesNameFileLineAndColumn) {
  const QueryCase cases[] = {
      // Parse errors carry the position in the message.
      {"query q( {\n}\n",
       "parse error: bad.gq:1:10: expected variable or `)`, found `{`\n"
       "1 | query q( {\n"
       "  |          ^",
       "parse", "1", "10"},
      // No negative literals in .gq.
      {"query q() {\n  match { $p: Person $p.age > -1 }\n  return { $p.name }\n}\n",
       "parse error: bad.gq:2:31: expected expression, found `-`\n"
       "2 |   match { $p: Person $p.age > -1 }\n"
       "  |                               ^",
       "parse", "2", "31"},
      // Variables start with a lower-case letter or `_`.
      {"query q() {\n  match { $P: Person }\n  return { $P.name }\n}\n",
       "parse error: bad.gq:2:11: expected match clause, found `$P`\n"
       "2 |   match { $P: Person }\n"
       "  |           ^",
       "parse", "2", "11"},
      // A read query needs `return`.
      {"query q() {\n  match { $p: Person }\n}\n",
       "parse error: bad.gq:3:1: expected `return`, found `}`\n"
       "3 | }\n"
       "  | ^",
       "parse", "3", "1"},
      {"query q() {\n  match { $p: Person { name: \"\xff\" } }\n  return { $p.name }\n}\n",
       "parse error: bad.gq:2:31: invalid UTF-8 byte 0xFF\n"
       "2 |   match { $p: Person { name: \"\\xFF\" } }\n"
       "  |                               ^",
       "parse", "2", "31"},
      // Type errors keep their contractual text; the position is in the details.
      {"query q() {\n  match { $p: Persn }\n  return { $p.name }\n}\n",
       "type error: T1: unknown node type `Persn`", "T1", "2", "11"},
      {"query q() {\n  match { $p: Person { nme: \"a\" } }\n  return { $p.name }\n}\n",
       "type error: T2: type `Person` has no property `nme`", "T2", "2", "24"},
      {"query q() {\n  match { $p: Person { age: \"a\" } }\n  return { $p.name }\n}\n",
       "type error: T3: property `age` has type I32? but got String", "T3", "2", "29"},
      {"query q() {\n  match { $p: Person $p knws $f }\n  return { $p.name }\n}\n",
       "type error: T4: unknown edge type `knws`", "T4", "2", "25"},
      {"query q() {\n  match { $p: Person }\n  return { $p.agee }\n}\n",
       "type error: T6: type `Person` has no property `agee`", "T6", "3", "12"},
      {"query q() {\n  match { $p: Person $p.born > \"2020-01-01\" }\n  return { $p.name }\n}\n",
       "type error: T7: cannot compare Date? with String", "T7", "2", "22"},
  };
  for (const QueryCase& c : cases) ExpectPositionedError(graph_->Query(c.source, "bad.gq", "", "{}").status(), c);
  ExpectUnchanged("read queries");
}

TEST_F(BadInputTest, MalformedMutationsNameFileLineAndColumnAndChangeNothing) {
  const QueryCase cases[] = {
      {"query m($n: String) { insert Person { name: $n\n",
       "parse error: bad.gq:2:1: expected `,`, property name or `}`, found end of input\n"
       "2 | \n"
       "  | ^",
       "parse", "2", "1"},
      // Update of a property the type does not have.
      {"query m($n: String) {\n  update Person set { nickname: $n } where name = $n\n}\n",
       "type error: T11: type `Person` has no property `nickname`", "T11", "2", "23"},
      // Insert with a parameter of the wrong declared type.
      {"query m($n: String, $a: String) {\n  insert Person { name: $n, age: $a }\n}\n",
       "type error: T7: cannot assign/compare String with I32? for property `age`", "T7", "2", "34"},
      // Insert without the key.
      {"query m($a: I32) {\n  insert Person { age: $a }\n}\n",
       "type error: T12: insert for `Person` must provide non-nullable property `name`", "T12", "2", "3"},
      // An undeclared parameter.
      {"query m($n: String) {\n  insert Person { name: $n, age: $b }\n}\n",
       "type error: T14: mutation variable `$b` must be a declared query parameter", "T14", "2", "34"},
      // update on an edge type.
      {"query m($n: String) {\n  update Knows set { since: $n } where from = $n\n}\n",
       "type error: T16: update mutation for edge type `Knows` is not supported", "T16", "2", "10"},
      // A literal of the wrong type.
      {"query m() {\n  insert Person { name: 5 }\n}\n", "type error: T3: property `name` has type String but got I64", "T3",
       "2", "25"},
      // Constructive and destructive in one query (the D2 rule).
      {"query m($n: String) {\n  insert Note { body: $n }\n  delete Person where name = $n\n}\n",
       "mutation 'm' on the same query mixes inserts/updates and deletes; split into separate mutations: (1) inserts "
       "and updates, then (2) deletes. A query is deliberately constructive or destructive, not both, so its "
       "read-your-writes stays unambiguous; run the two on a branch and merge if you need them in one atomic commit.",
       "mutation_mix", "1", "7"},
  };
  for (const QueryCase& c : cases) {
    ExpectPositionedError(graph_->Mutate(c.source, "bad.gq", "", R"({"n":"zed","a":"x"})").status(), c);
  }
  ExpectUnchanged("mutations");
}

TEST_F(BadInputTest, ReadAndWriteEntryPointsRefuseTheOtherKind) {
  ExpectError(graph_->Query(kQueries, "q.gq", "add", R"({"name":"x"})"), ErrorCode::kInvalidArgument,
              "query 'add' is a mutation; run it with `mutate`");
  ExpectError(graph_->Mutate(kQueries, "q.gq", "by_age", R"({"min":1})"), ErrorCode::kInvalidArgument,
              "query 'by_age' is a read query; run it with `query`");
  ExpectError(graph_->Query(kQueries, "q.gq", "nope", "{}"), ErrorCode::kNotFound, "query 'nope' not found");
  ExpectError(graph_->Query(kQueries, "q.gq", "", "{}"), ErrorCode::kInvalidArgument,
              "query file contains multiple queries; pass --name");
}

// ---- parameters ---------------------------------------------------------

TEST_F(BadInputTest, MalformedParametersAreRefused) {
  struct Case {
    const char* query;
    const char* params;
    const char* message;
  };
  const Case cases[] = {
      {"by_age", R"({"min":true})", "parameter 'min': expects an integer for I32, got boolean"},
      {"by_age", R"({"min":"ten"})", "parameter 'min': expects an integer for I32, got \"ten\""},
      {"by_age", R"({"min":1.5})", "parameter 'min': expects an integer for I32, got 1.5"},
      {"by_age", R"({"min":2147483648})", "parameter 'min': value 2147483648 exceeds I32"},
      {"by_age", R"({"min":-2147483649})", "parameter 'min': value -2147483649 exceeds I32"},
      {"by_age", R"({"min":99999999999999999999999})", "parameter 'min': value 99999999999999999999999 exceeds I32"},
      {"by_age", R"({"min":null})", "parameter 'min': null is not allowed for non-nullable type I32"},
      {"by_age", R"({})", "parameter 'min' not provided"},
      {"by_age", R"({"mn":1})", "parameter 'min' not provided"},
      {"by_age", R"([1])", "params must be a JSON object"},
      {"by_age", "{\"min\":1", "invalid params JSON: line 1, column 9: syntax error while parsing object - "
                                 "unexpected end of input; expected '}'"},
      {"by_age", R"({"min":1}})", "invalid params JSON: line 1, column 10: syntax error while parsing value - "
                                  "unexpected '}'; expected end of input"},
      {"by_age", R"({min:1})", "invalid params JSON: line 1, column 2: syntax error while parsing object key - "
                               "invalid literal; last read: '{m'; expected string literal"},
      {"by_age", "{\n  \"min\": 1,\n  \"x\": tru\n}", "invalid params JSON: line 3, column 11: syntax error while "
                                                     "parsing value - invalid literal; last read: '\"x\": tru<U+000A>'"},
      {"maybe", "{\"n\":\"\xff\"}", "invalid params JSON: line 1, column 7: syntax error while parsing value - "
                                 "invalid string: ill-formed UTF-8 byte; last read: '\"\\xFF'"},
      {"born_after", R"({"d":"2024-13-01"})", "parameter 'd': invalid Date literal '2024-13-01'"},
      {"born_after", R"({"d":"yesterday"})", "parameter 'd': invalid Date literal 'yesterday'"},
      {"born_after", R"({"d":true})", "parameter 'd': expects a Date string, got boolean"},
  };
  for (const Case& c : cases) {
    auto r = graph_->Query(kQueries, "q.gq", c.query, c.params);
    ASSERT_FALSE(r.ok()) << c.params;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << c.params;
    EXPECT_EQ(r.status().message(), c.message) << c.params;
  }
  ExpectUnchanged("query params");
  ExpectError(graph_->Mutate(kQueries, "q.gq", "add", R"({"name":"zed","age":"old"})"), ErrorCode::kInvalidArgument,
              "parameter 'age': expects an integer for I32, got \"old\"");
  ExpectError(graph_->Mutate(kQueries, "q.gq", "add", R"({"name":7})"), ErrorCode::kInvalidArgument,
              "parameter 'name': expects String, got number");
  ExpectError(graph_->Mutate(kQueries, "q.gq", "add", R"({"age":3})"), ErrorCode::kInvalidArgument,
              "parameter 'name' not provided");
  ExpectError(graph_->Mutate(kQueries, "q.gq", "add", R"({"name":"zed","age":1e400})"), ErrorCode::kInvalidArgument,
              "invalid params JSON: line 1, column 21: number overflow parsing '1e400'");
}

TEST_F(BadInputTest, UndeclaredAndOmittedNullableParametersAreAccepted) {
  // Keys the query does not declare are ignored (§2.3); an omitted nullable
  // parameter is NULL, which never matches.
  auto r = graph_->Query(kQueries, "q.gq", "by_age", R"({"min":26,"unused":{"deep":[1,2]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->row_count(), 1);
  auto none = graph_->Query(kQueries, "q.gq", "maybe", "{}");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->row_count(), 0);
  ExpectUnchanged("accepted params");
}

// ---- JSONL --------------------------------------------------------------

struct LoadCase {
  const char* line;  // becomes line 2 of the file
  ErrorCode code;
  const char* message;
};

TEST_F(BadInputTest, MalformedJsonlLinesNameTheLineAndChangeNothing) {
  const LoadCase cases[] = {
      // Broken JSON.
      {R"({"type":"Person","data":{"name":"x"})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid JSON at column 37: syntax error while parsing object - unexpected end of input; "
       "expected '}'"},
      {R"({"type":"Person","data":{"name":"x",}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid JSON at column 37: syntax error while parsing object key - unexpected '}'; expected "
       "string literal"},
      {R"(["type","Person"])", ErrorCode::kInvalidArgument, "bad.jsonl:2: a graph batch line must be a JSON object"},
      {R"({"type":"Person","data":{"name":"x","age":1e400}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid JSON at column 43: number overflow parsing '1e400'"},
      {"null", ErrorCode::kInvalidArgument, "bad.jsonl:2: a graph batch line must be a JSON object"},
      // Invalid UTF-8 is named, not echoed raw.
      {"{\"type\":\"Person\",\"data\":{\"name\":\"\xff\"}}", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid JSON at column 34: syntax error while parsing value - invalid string: ill-formed UTF-8 "
       "byte; last read: '\"\\xFF'"},
      {R"({"type":"Person","data":{"name":"x","age":NaN}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid JSON at column 43: syntax error while parsing value - invalid literal; last read: "
       "'\"age\":N'"},
      {R"({"type":"Person","data":{"name":"x","id":7}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: 'data.id' must be a string"},
      // Wrong value types.
      {R"({"type":"Person","data":{"name":"x","age":"30"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: strict property 'age' expects Int32, got \"30\""},
      {R"({"type":"Person","data":{"name":5}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: strict property 'name' expects Utf8, got 5"},
      {R"({"type":"Person","data":{"name":"x","age":2147483648}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: property 'age' value 2147483648 exceeds Int32 range"},
      {R"({"type":"Person","data":{"name":"x","age":3.5}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: strict property 'age' expects Int32, got 3.5"},
      {R"({"type":"Person","data":{"name":"x","born":"2024-02-30"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: property 'born': invalid Date literal \"2024-02-30\""},
      {R"({"type":"Person","data":"name"})", ErrorCode::kInvalidArgument, "bad.jsonl:2: 'data' must be a JSON object"},
      {R"({"type":7,"data":{}})", ErrorCode::kInvalidArgument, "bad.jsonl:2: 'type' must be a string"},
      // Unknown field / type.
      {R"({"type":"Person","data":{"name":"x","nick":"y"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: unknown input field 'nick' for 'node:Person'"},
      {R"({"type":"Person","data":{"name":"x"},"edge":"Knows"})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: a graph batch record needs exactly one of 'type' (node) or 'edge'"},
      {R"({"type":"Persons","data":{"name":"x"}})", ErrorCode::kInvalidArgument, "bad.jsonl:2: unknown node type 'Persons'"},
      {R"({"edge":"Likes","from":"alice","to":"bob"})", ErrorCode::kInvalidArgument, "bad.jsonl:2: unknown edge type 'Likes'"},
      // Missing key (§4.2 wording) / null in a non-nullable property.
      {R"({"type":"Person","data":{"age":3}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: node Person is missing a non-null @key value"},
      {R"({"type":"Person","data":{"name":null}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: node Person is missing a non-null @key value"},
      {R"({"type":"Note","data":{"body":null}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: non-nullable property 'body' has null or invalid values"},
      {R"({"edge":"Knows","to":"bob"})", ErrorCode::kInvalidArgument, "bad.jsonl:2: edge record needs a string 'from'"},
      // Dangling edge endpoints.
      {R"({"edge":"Knows","from":"alice","to":"zoe"})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: dst 'zoe' not found in Person"},
      {R"({"edge":"WorksAt","from":"zoe","to":"acme"})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: src 'zoe' not found in Person"},
      // Value constraints.
      {R"({"type":"Person","data":{"name":"x","status":"asleep"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: invalid enum value 'asleep' for Person.status (expected: active, retired)"},
      {R"({"type":"Person","data":{"name":"x","age":151}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: @range violation on Person.age: value 151 > max 150"},
      {R"({"type":"Person","data":{"name":"x","age":-1}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: @range violation on Person.age: value -1 < min 0"},
      {R"({"type":"Person","data":{"name":"x","email":"X@y"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: @check violation on Person.email: value 'X@y' does not match pattern '^[a-z]+@'"},
      // @unique against a committed row.
      {R"({"type":"Company","data":{"name":"globex","code":"A"}})", ErrorCode::kInvalidArgument,
       "bad.jsonl:2: @unique violation on Company.code: value 'A' held by 'globex' and 'acme'"},
  };
  for (const LoadCase& c : cases) {
    for (LoadMode mode : {LoadMode::kMerge, LoadMode::kAppend}) {
      auto r = LoadBad(SecondLine(c.line), mode);
      ASSERT_FALSE(r.ok()) << c.line;
      EXPECT_EQ(r.status().code(), c.code) << c.line;
      EXPECT_EQ(r.status().message(), c.message) << c.line << " " << LoadModeName(mode);
    }
  }
  ExpectUnchanged("jsonl");
}

TEST_F(BadInputTest, DuplicateKeysInOneFileAreRefusedInEveryMode) {
  std::string dup = "{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n"
                    "{\"type\":\"Company\",\"data\":{\"name\":\"initech\"}}\n"
                    "{\"type\":\"Person\",\"data\":{\"name\":\"carol\",\"age\":3}}\n";
  for (LoadMode mode : {LoadMode::kOverwrite, LoadMode::kAppend, LoadMode::kMerge}) {
    ExpectError(LoadBad(dup, mode), ErrorCode::kInvalidArgument,
                "bad.jsonl:3: @unique violation on Person.name: value 'carol' held by 'carol' and 'carol' "
                "(lines 1 and 3)");
  }
  std::string dup_code = "{\"type\":\"Company\",\"data\":{\"name\":\"x\",\"code\":\"C\"}}\n"
                         "{\"type\":\"Company\",\"data\":{\"name\":\"y\",\"code\":\"C\"}}\n";
  ExpectError(LoadBad(dup_code), ErrorCode::kInvalidArgument,
              "bad.jsonl:2: @unique violation on Company.code: value 'C' held by 'x' and 'y'");
  // Append of an id that is already committed.
  ExpectError(LoadBad("\n{\"type\":\"Person\",\"data\":{\"name\":\"bob\"}}\n", LoadMode::kAppend),
              ErrorCode::kKeyConflict, "bad.jsonl:2: node type 'Person' already has this id: 'bob'");
}

TEST_F(BadInputTest, AnOverlongLineIsAResourceLimitBeforeAnyEffect) {
  // 32 MiB + 1 byte of JSON on line 3, after two valid lines.
  std::string big = "{\"type\":\"Note\",\"data\":{\"body\":\"" + std::string((32u << 20) - 33, 'x') + "\"}}";
  ASSERT_EQ(big.size(), (32u << 20) + 1);
  std::string data = "{\"type\":\"Note\",\"data\":{\"body\":\"a\"}}\n\n" + big + "\n";
  auto r = LoadBad(data, LoadMode::kOverwrite);
  ExpectError(r, ErrorCode::kResourceLimitExceeded,
              "bad.jsonl:3: graph_batch_line_bytes exceeds the limit: 33554433 > 33554432");
  EXPECT_EQ(r.status().details().at("resource"), "graph_batch_line_bytes");
  EXPECT_EQ(r.status().details().at("limit"), "33554432");
  EXPECT_EQ(r.status().details().at("actual"), "33554433");
  // Too many structural tokens on one line.
  std::string tokens = "{\"type\":\"Person\",\"data\":{\"name\":\"x\"},\"pad\":[" + std::string(140000, ',') + "]}";
  auto t = LoadBad(SecondLine(tokens));
  ExpectError(t, ErrorCode::kResourceLimitExceeded,
              "bad.jsonl:2: graph_batch_json_structural_slots exceeds the limit: 140012 > 131072");
}

// §4.3: append and merge write at most 8,192 entities and 32 MiB of staged
// Arrow data per type, and 32 MiB summed over types; overwrite has neither
// budget (a bulk load is one
// overwrite). Refused before any effect.
TEST_F(BadInputTest, KeyedWritesHaveRowAndByteBudgetsPerType) {
  std::string many;
  for (int i = 0; i < 8193; ++i) many += "{\"type\":\"Note\",\"data\":{\"body\":\"n" + std::to_string(i) + "\"}}\n";
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge}) {
    auto r = LoadBad(many, mode);
    ExpectError(r, ErrorCode::kResourceLimitExceeded, "keyed entities for node:Note exceeds the limit: 8193 > 8192");
    EXPECT_EQ(r.status().details().at("resource"), "keyed entities for node:Note");
  }
  std::string body(12u << 20, 'b');
  std::string big;
  for (int i = 0; i < 3; ++i) big += "{\"type\":\"Note\",\"data\":{\"body\":\"" + body + "\"}}\n";
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge}) {
    auto r = LoadBad(big, mode);
    ASSERT_EQ(r.status().code(), ErrorCode::kResourceLimitExceeded) << r.status().ToString();
    EXPECT_EQ(r.status().details().at("resource"), "keyed parsed entity bytes for node:Note");
    EXPECT_EQ(r.status().details().at("limit"), "33554432");
    EXPECT_GT(std::stoll(r.status().details().at("actual")), 3ll * (12 << 20));
    ExpectUnchanged("bytes");
  }
  // Under each type's budget but over it summed across types (engine.md
  // §5.3): 2 x 20 MiB of Note and Company rows.
  std::string wide(20u << 20, 'w');
  auto two_types = [&](const std::string& company) {
    return "{\"type\":\"Note\",\"data\":{\"body\":\"" + wide + "\"}}\n" + "{\"type\":\"Company\",\"data\":{\"name\":\"" +
           company + "\",\"code\":\"" + wide + "\"}}\n";
  };
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge}) {
    auto r = LoadBad(two_types("globex"), mode);
    ASSERT_EQ(r.status().code(), ErrorCode::kResourceLimitExceeded) << r.status().ToString();
    EXPECT_EQ(r.status().details().at("resource"), "keyed parsed entity bytes across tables");
    EXPECT_EQ(r.status().details().at("limit"), "33554432");
    EXPECT_GT(std::stoll(r.status().details().at("actual")), 2ll * (20 << 20));
    ExpectUnchanged("bytes across tables");
  }
  // Overwrite takes all three.
  // (acme stays: a committed WorksAt edge needs it)
  auto overwrite = LoadBad(two_types("acme"), LoadMode::kOverwrite);
  ASSERT_TRUE(overwrite.ok()) << overwrite.status().ToString();
  auto many_overwrite = LoadBad(many, LoadMode::kOverwrite);
  ASSERT_TRUE(many_overwrite.ok()) << many_overwrite.status().ToString();
  ASSERT_TRUE(LoadBad(big, LoadMode::kOverwrite).ok());
}

TEST_F(BadInputTest, CrlfAndBlankLinesAreStillAccepted) {
  auto r = graph_->Load("\r\n{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\r\n   \r\n\t\n"
                        "{\"edge\":\"Knows\",\"from\":\"carol\",\"to\":\"alice\"}\r\n\r\n",
                        "crlf.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_entities, 2u);
  EXPECT_EQ(graph_->ListCommits()->size(), commits_ + 1);
  // Errors after CRLF lines still count lines from 1.
  auto bad = graph_->Load("\r\n\r\n{\"type\":\"Person\"}\r\n", "crlf.jsonl", LoadMode::kMerge);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "crlf.jsonl:3: node Person is missing a non-null @key value");
}


TEST_F(BadInputTest, AByteOrderMarkMayOnlyStartTheFile) {
  const std::string bom = "\xEF\xBB\xBF";
  // Two files joined with `cat`: the second one's mark is stray bytes.
  ExpectError(LoadBad(bom + SecondLine(bom + "{\"type\":\"Person\",\"data\":{\"name\":\"dave\"}}")),
              ErrorCode::kInvalidArgument,
              "bad.jsonl:2: invalid JSON at column 1: a byte-order mark (U+FEFF) may only start the file");
  // At the start of the file it marks the encoding and is skipped.
  auto marked = graph_->Load(bom + "{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n", "bom.jsonl",
                             LoadMode::kMerge);
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  EXPECT_EQ(marked->total_entities, 1u);
}

// ---- CLI exit codes (§5.4) and located errors on stderr --------------------

struct CliRun {
  int rc = -1;
  std::string out, err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, std::string_view text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The `omnigraph` binary of this build.
using testing::CliBinary;

class CliBadInputTest : public ::testing::Test {
 protected:
  // Runs `omnigraph <args>` in the temp dir (args are shell words).
  // `stdout_path` replaces the captured stdout (then `out` stays empty).
  // `environment` is prepended to the command (VAR=value words).
  CliRun Run(const std::string& args, const std::string& stdout_path = "", const std::string& environment = "") {
    std::string out = stdout_path.empty() ? dir_.path() + "/stdout" : stdout_path, err = dir_.path() + "/stderr";
    // The operator config comes from the test's own home (none unless a
    // test writes one), never from the user running the tests.
    std::string command = "cd '" + dir_.path() + "' && " + environment + " OMNIGRAPH_HOME='" +
                          dir_.path() + "/home' '" + CliBinary() + "' " + args + " >'" + out + "' 2>'" + err + "'";
    int status = std::system(command.c_str());
    CliRun r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = stdout_path.empty() ? ReadAll(out) : "";
    r.err = ReadAll(err);
    return r;
  }
  std::string Path(const std::string& name) { return dir_.path() + "/" + name; }
  // Runs `args` and expects exit code `rc` with exactly `err` on stderr.
  void ExpectFailure(const std::string& args, int rc, const std::string& err) {
    CliRun run = Run(args);
    EXPECT_EQ(run.rc, rc) << args;
    EXPECT_EQ(run.err, err) << args;
  }
  // Writes schema.pg, seed.jsonl and q.gq, and creates graph `g` from them,
  // loaded with the seed when `load`.
  void MakeGraph(bool load) {
    WriteFile(Path("schema.pg"), kSchema);
    WriteFile(Path("seed.jsonl"), kData);
    WriteFile(Path("q.gq"), kQueries);
    ASSERT_EQ(Run("init --schema schema.pg g").rc, 0);
    if (load) {
      ASSERT_EQ(Run("load g --data seed.jsonl --mode overwrite --quiet").rc, 0);
    }
  }
  testing::TempDir dir_;
};

TEST_F(CliBadInputTest, ExitCodesAndLocatedErrors) {
  ASSERT_TRUE(std::filesystem::exists(CliBinary())) << CliBinary();
  WriteFile(Path("schema.pg"), kSchema);
  WriteFile(Path("bad.pg"), "node person { name: String }\n");
  WriteFile(Path("seed.jsonl"), kData);
  WriteFile(Path("bad.jsonl"), "{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n{\"edge\":\"Knows\",\"from\":\"carol\",\"to\":\"zoe\"}\n");
  WriteFile(Path("q.gq"), kQueries);
  WriteFile(Path("bad.gq"), "query q() {\n  match { $p: Persn }\n  return { $p.name }\n}\n");

  CliRun bad_init = Run("init --schema bad.pg g");
  EXPECT_EQ(bad_init.rc, 1);
  EXPECT_EQ(bad_init.err, "error: parse error: bad.pg:1:6: expected type name, found `person`\n"
                          "1 | node person { name: String }\n"
                          "  |      ^\n");
  EXPECT_FALSE(std::filesystem::exists(Path("g")));
  CliRun init = Run("init --schema schema.pg g");
  ASSERT_EQ(init.rc, 0) << init.err;
  EXPECT_EQ(init.out, "initialized g\n");
  ASSERT_EQ(Run("load g --data seed.jsonl --mode overwrite --quiet").rc, 0);
  std::string exported = Run("export g").out;

  ExpectFailure("load g --data bad.jsonl --mode merge --quiet", 1,
                "error: bad.jsonl:2: dst 'zoe' not found in Person\n");
  // A directory reads as an empty stream: refused, not an empty commit.
  std::filesystem::create_directory(Path("data_dir"));
  ExpectFailure("load g --data data_dir --mode overwrite --quiet", 1,
                "error: cannot read 'data_dir': it is a directory\n");
  EXPECT_EQ(Run("export g").out, exported);
  ExpectFailure("query --store g --query bad.gq", 1,
                "error: type error: T1: unknown node type `Persn`\n  --> bad.gq:2:11\n");
  ExpectFailure("query by_age --store g --query q.gq --params '{\"min\":\"ten\"}'", 1,
                "error: parameter 'min': expects an integer for I32, got \"ten\"\n");
  ExpectFailure("mutate add --store g --query q.gq --params '{\"name\":\"x\",\"age\":\"old\"}'", 1,
                "error: parameter 'age': expects an integer for I32, got \"old\"\n");

  // Usage errors: unknown flag, missing required option, conflicting options.
  EXPECT_EQ(Run("load g --data seed.jsonl --mode overwrite --bogus").rc, 2);
  EXPECT_EQ(Run("load g --data seed.jsonl").rc, 2);
  EXPECT_EQ(Run("load g --data seed.jsonl --mode upsert").rc, 2);
  ExpectFailure("query --store g --query q.gq -e 'query q() { match { $p: Person } return { $p } }'", 2,
                "error: pass exactly one of --query FILE or -e/--query-string SOURCE\n");
  EXPECT_EQ(Run("query count_all --store g").rc, 2);
  EXPECT_EQ(Run("query count_all --store g --query q.gq --params '{}' --params-file q.gq").rc, 2);
  EXPECT_EQ(Run("query count_all --store g --query q.gq --branch dev --snapshot x").rc, 2);
  ExpectFailure("query count_all --store g --query q.gq --branch main --snapshot x", 2,
                "error: --branch excludes --snapshot\nRun with --help or --help-all for more information.\n");
  EXPECT_EQ(Run("query count_all --query q.gq").rc, 2);
  ExpectFailure("query count_all --store g --query q.gq --as bob", 2,
                "error: --as applies to writes; `query` makes no commit\n");
  // Every verb refuses the global flags it cannot use (§5.1), before any
  // effect; --quiet is harmless everywhere.
  const std::vector<std::pair<std::string, std::string>> unusable = {
      {"--as bob export g", "error: --as applies to writes; `export` makes no commit\n"},
      {"--as bob snapshot g", "error: --as applies to writes; `snapshot` makes no commit\n"},
      {"--as bob commit list g", "error: --as applies to writes; `commit list` makes no commit\n"},
      {"schema show g --as bob", "error: --as applies to writes; `schema show` makes no commit\n"},
      {"--as bob init --schema schema.pg fresh", "error: --as applies to writes; `init` makes no commit\n"},
      {"export g --json", "error: `export` has no JSON output; drop --json\n"},
      {"version --store g", "error: `version` addresses no graph; drop --store\n"},
      {"version --json", "error: `version` has no JSON output; drop --json\n"},
      {"--yes mutate add --store g --query q.gq --params '{\"name\":\"y\",\"age\":1}'",
       "error: --yes applies to destructive writes; `mutate` is not one\n"},
      {"--yes query count_all --store g --query q.gq", "error: --yes applies to destructive writes; `query` is not one\n"},
  };
  for (const auto& [command, error] : unusable) {
    CliRun run = Run(command);
    EXPECT_EQ(run.rc, 2) << command;
    EXPECT_EQ(run.err, error) << command;
    EXPECT_EQ(run.out, "") << command;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/fresh"));
  // A missing graph is named by its absolute path, whether or not its
  // directory exists.
  std::filesystem::create_directories(Path("empty"));
  for (const char* name : {"empty", "missing"}) {
    CliRun none = Run(std::string("snapshot ") + name);
    EXPECT_EQ(none.rc, 1) << name;
    EXPECT_EQ(none.err, "error: no graph at '" + Path(name) + "'\n") << name;
  }
  // An object-store URI is refused by name, not reported as a missing graph.
  CliRun s3 = Run("query count_all --store s3://bucket/g --query q.gq");
  EXPECT_EQ(s3.rc, 1);
  EXPECT_EQ(s3.err,
            "error: 's3://bucket/g': this build stores graphs on local paths only (a path or file:// URI), not on "
            "'s3://'\n");
  // init echoes the URI as given.
  CliRun file_uri = Run("init --schema schema.pg file://" + dir_.path() + "/viafile");
  EXPECT_EQ(file_uri.rc, 0) << file_uri.err;
  EXPECT_EQ(file_uri.out, "initialized file://" + dir_.path() + "/viafile\n");
  EXPECT_EQ(Run("--quiet snapshot g").rc, 0);
  EXPECT_EQ(Run("export g --store other").rc, 2);
  EXPECT_EQ(Run("").rc, 2);
  // A word that names no command says which; extras keep their order.
  const std::string more = "Run with --help or --help-all for more information.\n";
  EXPECT_EQ(Run("--store g frobnicate x").err, "error: unknown command 'frobnicate'\n" + more);
  ExpectFailure("schema diff g --schema schema.pg", 2, "error: unknown command 'schema diff'\n" + more);
  EXPECT_EQ(Run("branch rename --uri g X").err, "error: unknown command 'branch rename'\n" + more);
  EXPECT_EQ(Run("commit changes --uri g X").err, "error: commit 'X' not found\n");
  ExpectFailure("query count_all --store g --query q.gq one two", 2, "error: unexpected arguments: one two\n" + more);

  // Output that cannot be written is an error, not a silent exit 0.
  CliRun full = Run("export g", "/dev/full");
  EXPECT_EQ(full.rc, 1);
  EXPECT_EQ(full.err, "error: writing standard output failed: No space left on device\n");
  EXPECT_EQ(Run("query count_all --store g --query q.gq", "/dev/full").rc, 1);

  // Nothing above changed the graph.
  EXPECT_EQ(Run("export g").out, exported);
  CliRun ok = Run("query count_all --store g --query q.gq --format jsonl");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(ok.out, "{\"kind\":\"metadata\",\"query_name\":\"count_all\",\"target\":{\"branch\":\"main\",\"snapshot\":null},"
                    "\"row_count\":1}\n{\"n\":2}\n");

  // --as names the actor of the commits a write makes.
  CliRun as_bob = Run("--as bob mutate add --store g --query q.gq --params '{\"name\":\"xavier\",\"age\":3}'");
  ASSERT_EQ(as_bob.rc, 0) << as_bob.err;
  EXPECT_EQ(as_bob.out, "changed main via add: 1 nodes, 0 edges\nactor_id: bob\n");
  CliRun as_carol = Run("load g --data seed.jsonl --mode merge --quiet --as carol");
  ASSERT_EQ(as_carol.rc, 0) << as_carol.err;
  std::string history = Run("commit list g").out;
  EXPECT_EQ(std::count(history.begin(), history.end(), '\n'), 4);  // genesis, seed, bob, carol
  EXPECT_NE(history.find("graph_manifest_version=4 actor=carol\n"), std::string::npos) << history;
  EXPECT_NE(history.find("graph_manifest_version=3 actor=bob\n"), std::string::npos) << history;
  // An empty commit id (an unset shell variable) is a usage error, never
  // "no condition": the write must not happen.
  CliRun empty_condition = Run("mutate add --store g --query q.gq --if-commit '' --params '{\"name\":\"yan\",\"age\":4}'");
  EXPECT_EQ(empty_condition.rc, 2);
  EXPECT_NE(empty_condition.err.find("a commit id must not be empty"), std::string::npos) << empty_condition.err;
  EXPECT_EQ(Run("commit list g").out, history);
  // A publication whose directory sync fails after it became visible: not
  // acknowledged, and the error says the commit may have landed.
  ::setenv("OMNIGRAPH_FAILPOINTS", "store.put.before_dir_sync=error@1", 1);
  CliRun unconfirmed = Run("mutate add --store g --query q.gq --params '{\"name\":\"zed\",\"age\":5}'");
  ::unsetenv("OMNIGRAPH_FAILPOINTS");
  EXPECT_EQ(unconfirmed.rc, 1);
  std::string head = Run("commit list g").out;
  head = head.substr(0, head.find(' '));
  EXPECT_EQ(unconfirmed.err, "error: failpoint 'store.put.before_dir_sync' triggered\n  outcome: indeterminate: commit '" +
                                 head + "' may have been published; check `omnigraph commit list` before retrying\n");
  history = Run("commit list g").out;
  CliRun empty_snapshot = Run("query count_all --store g --query q.gq --snapshot ''");
  EXPECT_EQ(empty_snapshot.rc, 2);
  EXPECT_NE(empty_snapshot.err.find("a commit id must not be empty"), std::string::npos) << empty_snapshot.err;

  // lint: exit 1 exactly when the status is error.
  CliRun lint_ok = Run("lint --query q.gq --schema schema.pg");
  EXPECT_EQ(lint_ok.rc, 0) << lint_ok.out;
  CliRun lint_bad = Run("lint --query bad.gq --schema schema.pg --json");
  EXPECT_EQ(lint_bad.rc, 1);
  EXPECT_EQ(lint_bad.out.substr(0, 25), "{\n  \"status\": \"error\",\n  ");
  EXPECT_NE(lint_bad.out.find("\n      \"error\": \"type error: T1: unknown node type `Persn`\",\n"
                              "      \"location\": \"bad.gq:2:11\"\n"),
            std::string::npos)
      << lint_bad.out;
  EXPECT_EQ(Run("lint --query bad.gq --schema bad.pg").rc, 1);
  EXPECT_EQ(Run("lint --schema schema.pg").rc, 2);
  // Deprecated spellings (surface §5.2) still work, with a warning.
  for (const char* verb : {"check", "query lint", "query check", "--quiet check"}) {
    CliRun old_spelling = Run(std::string(verb) + " --query q.gq --schema schema.pg");
    EXPECT_EQ(old_spelling.rc, 0) << verb << ": " << old_spelling.err;
    EXPECT_EQ(old_spelling.out, lint_ok.out) << verb;
    std::string used = std::string(verb).substr(std::string(verb).rfind("--quiet ", 0) == 0 ? 8 : 0);
    EXPECT_EQ(old_spelling.err, "warning: `" + used + "` is deprecated; use `lint`\n") << verb;
  }
  CliRun read = Run("read count_all --store g --query q.gq --format csv");
  EXPECT_EQ(read.rc, 0) << read.err;
  EXPECT_EQ(read.out, "n\n4\n");
  EXPECT_EQ(read.err, "warning: `read` is deprecated; use `query`\n");
  CliRun change = Run("change add --store g --query q.gq --params '{\"name\":\"walt\",\"age\":7}'");
  EXPECT_EQ(change.rc, 0) << change.err;
  EXPECT_EQ(change.err, "warning: `change` is deprecated; use `mutate`\n");
  // The compiler's "pass --name" advice works: --name is NAME's flag form.
  ExpectFailure("query --store g --query q.gq", 1, "error: query file contains multiple queries; pass --name\n");
  // An empty inline source is a source with no query, not a missing one.
  ExpectFailure("query --store g -e ''", 1, "error: query file contains no queries\n");
  CliRun by_flag = Run("query --name count_all --store g --query q.gq --format csv");
  EXPECT_EQ(by_flag.rc, 0) << by_flag.err;
  EXPECT_EQ(by_flag.out, "n\n5\n");  // walt added
  EXPECT_EQ(Run("query count_all --name by_age --store g --query q.gq").rc, 2);
}

// `commit show` takes its graph only by flag (§5.2): without one, the
// message names the flag instead of a positional URI it would refuse. A
// mutation mixing inserts and deletes passes lint with a warning (§6.4:
// errors are parse and type errors) and is refused by `mutate` (§3.2).
TEST_F(CliBadInputTest, CommitShowNamesItsFlagAndLintWarnsOnMixedMutations) {
  CliRun show = Run("commit show 01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(show.rc, 2);
  EXPECT_EQ(show.err,
            "error: no graph given: pass --uri <graph> or --store <path> (or set defaults.store in the operator "
            "config)\n");
  WriteFile(Path("schema.pg"), kSchema);
  WriteFile(Path("mixed.gq"),
            "query swap($n: String) {\n  insert Company { name: $n }\n  delete Company where name = $n\n}\n");
  CliRun lint = Run("lint --query mixed.gq --schema schema.pg");
  EXPECT_EQ(lint.rc, 0) << lint.err;
  EXPECT_EQ(lint.out,
            "OK    query `swap` (mutation)\n"
            "WARN  query `swap`: mixes inserts/updates and deletes, so `mutate` refuses it; split it into (1) inserts "
            "and updates, then (2) deletes\n"
            "INFO  Lint complete: 1 queries processed (0 error(s), 1 warning(s), 0 info item(s))\n");
  ASSERT_EQ(Run("init --schema schema.pg g").rc, 0);
  CliRun mutate = Run("mutate swap --store g --query mixed.gq --params '{\"n\":\"x\"}'");
  EXPECT_EQ(mutate.rc, 1);
  EXPECT_EQ(mutate.err.substr(0, 84),
            "error: mutation 'swap' on the same query mixes inserts/updates and deletes; split in");
}

TEST_F(CliBadInputTest, HelpNamesTheProgram) {
  CliRun help = Run("--help");
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out.substr(0, help.out.find('\n', help.out.find('\n') + 1)),
            "omnigraph: a typed property-graph database on Lance\nUsage: omnigraph [OPTIONS] [SUBCOMMAND]");
  // `help [COMMAND…]` is the spelling of `[COMMAND…] --help` users of other
  // command-line tools expect.
  CliRun help_verb = Run("help");
  EXPECT_EQ(help_verb.rc, 0);
  EXPECT_EQ(help_verb.out, help.out);
  CliRun query_help = Run("help query");
  EXPECT_EQ(query_help.rc, 0);
  EXPECT_EQ(query_help.out, Run("query --help").out);
  EXPECT_EQ(Run("help commit show").out, Run("commit show --help").out);
  EXPECT_EQ(Run("--quiet help query").out, query_help.out);
  EXPECT_EQ(Run("--quiet --profile p help query").out, query_help.out);
  EXPECT_EQ(Run("--json --as x help query").out, query_help.out);
  EXPECT_EQ(Run("help help").out, help.out);
  CliRun deprecated = Run("help read");
  EXPECT_EQ(deprecated.rc, 0);
  EXPECT_EQ(deprecated.out, query_help.out);
  EXPECT_EQ(deprecated.err, "warning: `read` is deprecated; use `query`\n");
  ExpectFailure("help frobnicate", 2,
                "error: unknown command 'frobnicate'\nRun with --help or --help-all for more information.\n");
}

// `export --type` takes one type per use (§5.2), so a graph named after it
// is the graph, not another type.
TEST_F(CliBadInputTest, ExportTypeTakesOneValuePerUse) {
  MakeGraph(/*load=*/true);
  std::string companies = Run("export g --type Company").out;
  ASSERT_EQ(companies.substr(0, companies.find(',')), "{\"type\":\"Company\"");
  EXPECT_EQ(std::count(companies.begin(), companies.end(), '\n'), 1);
  CliRun before_graph = Run("export --type Company g");
  EXPECT_EQ(before_graph.rc, 0) << before_graph.err;
  EXPECT_EQ(before_graph.out, companies);
  EXPECT_EQ(Run("export --type=Company g").out, companies);
  CliRun two = Run("export --type Company --type Knows g");
  EXPECT_EQ(two.rc, 0) << two.err;
  EXPECT_EQ(std::count(two.out.begin(), two.out.end(), '\n'), 2);
  ExpectFailure("export g --type Company extra", 2,
                "error: unexpected arguments: extra\nRun with --help or --help-all for more information.\n");
}

// Every usage error starts with "error:", whether the command line parser
// or a verb found it.
TEST_F(CliBadInputTest, UsageErrorsAreMarkedAsErrors) {
  MakeGraph(/*load=*/false);
  // The §5.1 flags that address servers and clusters are named, not taken
  // for commands: a server name the operator config lacks, --graph without
  // a server, and --cluster on a data command are usage errors.
  ExpectFailure("--server x query count_all --query q.gq", 2,
                "error: server 'x' is not in the operator config (it defines no servers)\n");
  ExpectFailure("--graph=x query count_all --query q.gq", 2,
                "error: --graph selects a graph on a server: pass --server <name|url> (or set defaults.server in the "
                "operator config)\n");
  ExpectFailure("--cluster x query count_all --query q.gq", 2,
                "error: --cluster addresses a cluster, which this command does not reach; address a graph with a "
                "path, --store <path> or --server <url> --graph <id>\n");
  ExpectFailure("load g --data seed.jsonl", 2,
                "error: --mode is required\nRun with --help or --help-all for more information.\n");
  CliRun excluded = Run("query count_all --query q.gq --store g --branch main --snapshot abc");
  EXPECT_EQ(excluded.rc, 2);
  EXPECT_EQ(excluded.err.substr(0, 7), "error: ") << excluded.err;
}

// Paths that cannot even be examined are I/O errors naming why (exit 1),
// never an uncaught exception.
TEST_F(CliBadInputTest, UnexaminableGraphPathsAreErrorsNotCrashes) {
  std::filesystem::create_symlink("loopy", Path("loopy"));
  ExpectFailure("snapshot loopy", 1, "error: cannot open graph 'loopy': Too many levels of symbolic links\n");
  const std::string long_name(300, 'y');
  ExpectFailure("export " + long_name, 1, "error: cannot open graph '" + long_name + "': File name too long\n");
  ExpectFailure("load g --data missing.jsonl --mode merge", 1,
                "error: cannot read 'missing.jsonl': No such file or directory\n");
}

// A write whose commit is durable reports success even when its
// confirmation cannot be written (a retry would write twice); the lost
// confirmation is a warning naming the commit. A read that cannot write its
// output fails. `-` reads standard input.
TEST_F(CliBadInputTest, APublishedWriteSucceedsWhenItsConfirmationIsLost) {
  MakeGraph(/*load=*/false);
  CliRun load = Run("load g --data - --mode overwrite --quiet < seed.jsonl");
  ASSERT_EQ(load.rc, 0) << load.err;
  CliRun full = Run("mutate add --store g --query q.gq --params '{\"name\":\"zed\"}'", "/dev/full");
  EXPECT_EQ(full.rc, 0);
  const std::string head = Run("commit list g --json").out;
  const std::string newest = head.substr(head.find("\"graph_commit_id\": \"") + 20, 200);
  EXPECT_EQ(full.err, "warning: commit '" + newest.substr(0, newest.find('"')) +
                          "' was published, but writing its confirmation to standard output failed: No space left "
                          "on device\n");
  // A reader that went away: the write outlives it (no SIGPIPE death) and
  // exits 0, warning on stderr.
  WriteFile(Path("closed.sh"), "OMNIGRAPH_HOME=home '" + CliBinary() +
                                   "' mutate add --store g --query q.gq --params '{\"name\":\"yan\"}' "
                                   "2>closed.err | (exec 0<&-; sleep 1)\nexit ${PIPESTATUS[0]}\n");
  Run("version", "", "bash closed.sh; echo $? > closed.rc;");
  EXPECT_EQ(ReadAll(Path("closed.rc")), "0\n");
  EXPECT_EQ(ReadAll(Path("closed.err")).substr(0, 18), "warning: commit 'h");
  EXPECT_EQ(Run("query maybe --store g --query q.gq --params '{\"n\":\"yan\"}' --format csv").out, "p.name\nyan\n");
  CliRun read = Run("export g", "/dev/full");
  EXPECT_EQ(read.rc, 1);
  EXPECT_EQ(read.err, "error: writing standard output failed: No space left on device\n");
}

// `-` is standard input, read once: unreadable input is an error, never an
// empty load, and two inputs cannot both take it.
TEST_F(CliBadInputTest, StandardInputIsReadOnceAndNeverTakenAsEmpty) {
  MakeGraph(/*load=*/true);
  const std::string before = Run("commit list g").out;
  ExpectFailure("load g --data - --mode append --quiet <&-", 1,
                "error: cannot read standard input: Bad file descriptor\n");
  ExpectFailure("load g --data - --mode overwrite --quiet < .", 1,
                "error: cannot read standard input: it is a directory\n");
  EXPECT_EQ(Run("commit list g").out, before);
  ExpectFailure("query by_age --store g --query - --params-file - < q.gq", 2,
                "error: standard input can feed only one of --query and --params-file\n");
  CliRun piped = Run("query by_age --store g --query - --params '{\"min\":26}' --format csv < q.gq");
  EXPECT_EQ(piped.rc, 0) << piped.err;
  EXPECT_EQ(piped.out, "p.name\nalice\n");
}

// An init killed before it published leaves no graph; opening names the
// unfinished init, and init again completes it. A published graph missing
// its current __manifest data file names that file, not "no graph".
TEST_F(CliBadInputTest, AnUnfinishedInitIsNamedAndCanBeRedone) {
  WriteFile(Path("schema.pg"), kSchema);
  WriteFile(Path("seed.jsonl"), kData);
  CliRun killed = Run("init --schema schema.pg g", "", "OMNIGRAPH_FAILPOINTS=table.commit.before_manifest=crash@4");
  EXPECT_NE(killed.rc, 0);
  ASSERT_TRUE(std::filesystem::exists(Path("g/__init_claim.json")));
  ExpectFailure("snapshot g", 1,
                "error: no graph at '" + Path("g") +
                    "': an init there has not finished (__init_claim.json remains); unless one is running, run "
                    "`omnigraph init` on it again\n");
  CliRun again = Run("init --schema schema.pg g");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_FALSE(std::filesystem::exists(Path("g/__init_claim.json")));
  ASSERT_EQ(Run("load g --data seed.jsonl --mode overwrite --quiet").rc, 0);
  EXPECT_EQ(Run("snapshot g").rc, 0);

  std::string newest_data;
  std::filesystem::file_time_type newest_time;
  for (const auto& entry : std::filesystem::directory_iterator(Path("g/__manifest/data"))) {
    if (newest_data.empty() || entry.last_write_time() > newest_time) {
      newest_data = entry.path().string();
      newest_time = entry.last_write_time();
    }
  }
  ASSERT_TRUE(std::filesystem::remove(newest_data));
  CliRun damaged = Run("snapshot g");
  EXPECT_EQ(damaged.rc, 1);
  const std::string file_name = std::filesystem::path(newest_data).filename().string();
  EXPECT_EQ(damaged.err, "error: open 'g/__manifest/data/" + file_name + "': no such file\n");
  // A __manifest whose versions cannot be listed is damaged, not free: init
  // refuses before touching anything.
  WriteFile(Path("g/__manifest/_versions/5.manifest"), "");
  const auto tables = std::distance(std::filesystem::directory_iterator(Path("g/nodes")), {});
  ExpectFailure("init --schema schema.pg g", 1, "error: __manifest/_versions: mixes V1 and V2 manifest names\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(Path("g/nodes")), {}), tables);
  EXPECT_EQ(damaged.err.find("no graph at"), std::string::npos) << damaged.err;
}

// An init whose __manifest v1 became visible but whose directory sync then
// failed may or may not exist after a power cut: it says so (outcome
// indeterminate, naming the genesis commit) instead of a plain failure.
TEST_F(CliBadInputTest, AnInitWhosePublicationIsUnconfirmedSaysSo) {
  WriteFile(Path("schema.pg"), kSchema);
  int indeterminate = 0;
  // Fail the k-th directory sync for every k until init gets through.
  for (int k = 0; k < 64; ++k) {
    std::filesystem::remove_all(Path("g"));
    CliRun init = Run("init --schema schema.pg g", "",
                      "OMNIGRAPH_FAILPOINTS=store.put.before_dir_sync=error@" + std::to_string(k));
    if (init.rc == 0) break;
    EXPECT_EQ(init.rc, 1);
    if (init.err.find("outcome: indeterminate") == std::string::npos) continue;
    ++indeterminate;
    EXPECT_EQ(init.err.rfind("error: failpoint 'store.put.before_dir_sync' triggered\n  outcome: indeterminate: "
                             "commit '", 0), 0u) << init.err;
    // Visible now, so it opens; its claim stays until that is settled.
    EXPECT_EQ(Run("snapshot g").rc, 0);
    EXPECT_TRUE(std::filesystem::exists(Path("g/__init_claim.json")));
  }
  EXPECT_EQ(indeterminate, 1);
}

// Quoted input and actor ids never carry raw control characters to the
// terminal: parse-error lines show them escaped (the caret still under the
// error), and an actor id with one is refused.
TEST_F(CliBadInputTest, ControlCharactersAreEscapedOrRefused) {
  WriteFile(Path("ctl.pg"), "node P { x: String @key }\x1b[31m\x01 zz");
  CliRun parse = Run("init --schema ctl.pg g");
  EXPECT_EQ(parse.rc, 1);
  EXPECT_EQ(parse.err,
            "error: parse error: ctl.pg:1:26: expected `interface`, `node`, `edge` or end of input, found `\\x1B`\n"
            "1 | node P { x: String @key }\\x1B[31m\\x01 zz\n"
            "  |                          ^\n");
  MakeGraph(/*load=*/false);
  CliRun actor = Run("--as \"$(printf 'ann\\nforged')\" mutate add --store g --query q.gq --params '{\"name\":\"x\"}'");
  EXPECT_EQ(actor.rc, 2);
  EXPECT_EQ(actor.err, "error: the actor id ann\\x0Aforged contains control characters\n");
  // Any message quoting input escapes its control characters (C0 with
  // newlines, DEL, C1), so it stays one line and cannot drive the terminal.
  ExpectFailure("query by_age --store g --query q.gq --params '{\"min\":1}' "
                "--branch \"$(printf 'b\\033[31m\\nx\\302\\233')\"",
                1, "error: branch 'b\\x1B[31m\\x0Ax\\xC2\\x9B' not found\n");
  // Not UTF-8: stored, it would make the commit's metadata unreadable JSON.
  ExpectFailure("--as \"$(printf 'bob\\377')\" mutate add --store g --query q.gq --params '{\"name\":\"x\"}'", 2,
                "error: the actor id bob\\xFF is not valid UTF-8\n");
  // A bad operator.actor refuses writes only; reads record no actor.
  std::filesystem::create_directories(Path("home"));
  WriteFile(Path("home/config.yaml"), "operator:\n  actor: \"a\\tb\"\n");
  EXPECT_EQ(Run("export g").rc, 0);
  ExpectFailure("mutate add --store g --query q.gq --params '{\"name\":\"x\"}'", 2,
                "error: the actor id a\\x09b contains control characters\n");
  EXPECT_EQ(Run("commit list g").out.find("actor="), std::string::npos);
}

// The operator config (§5.5) supplies defaults the command line overrides:
// the read format (--json > --format > defaults.output > table), the table
// layout, the graph (positional/--store > defaults.store) and the actor of
// writes (--as > operator.actor).
TEST_F(CliBadInputTest, OperatorConfigSuppliesDefaults) {
  MakeGraph(/*load=*/true);
  std::filesystem::create_directories(Path("home"));
  WriteFile(Path("home/config.yaml"),
            "operator:\n  actor: ann\ndefaults:\n  output: csv\n  store: g\n  colour: blue\n");
  const std::string warning = "warning: " + Path("home/config.yaml") + ": unknown key 'defaults.colour'\n";

  CliRun csv = Run("query count_all --query q.gq");
  EXPECT_EQ(csv.rc, 0) << csv.err;
  EXPECT_EQ(csv.out, "n\n2\n");
  EXPECT_EQ(csv.err, warning);
  EXPECT_EQ(Run("query count_all --query q.gq --format jsonl").out.substr(0, 8), "{\"kind\":");
  EXPECT_EQ(Run("query count_all --query q.gq --json").out.substr(0, 2), "{\n");
  // An explicit graph wins over defaults.store.
  ASSERT_EQ(Run("init --schema schema.pg other").rc, 0);
  EXPECT_EQ(Run("query count_all --query q.gq --store other").out, "n\n0\n");

  CliRun by_ann = Run("mutate add --query q.gq --params '{\"name\":\"ivy\",\"age\":3}'");
  ASSERT_EQ(by_ann.rc, 0) << by_ann.err;
  EXPECT_EQ(by_ann.out, "changed main via add: 1 nodes, 0 edges\nactor_id: ann\n");
  CliRun by_bob = Run("--as bob mutate add --query q.gq --params '{\"name\":\"jay\",\"age\":4}'");
  ASSERT_EQ(by_bob.rc, 0) << by_bob.err;
  EXPECT_EQ(by_bob.out, "changed main via add: 1 nodes, 0 edges\nactor_id: bob\n");
  std::string history = Run("commit list").out;
  EXPECT_NE(history.find(" actor=ann\n"), std::string::npos) << history;
  EXPECT_NE(history.find(" actor=bob\n"), std::string::npos) << history;

  // init refuses a directory holding a legacy graph's orphan schema files,
  // and --force replaces them.
  std::filesystem::create_directories(Path("legacy"));
  WriteFile(Path("legacy/_schema.pg"), "node Q { x: I32 }\n");
  WriteFile(Path("legacy/__schema_state.json"), "{}");
  CliRun orphans = Run("init --schema schema.pg legacy");
  EXPECT_EQ(orphans.rc, 1);
  EXPECT_EQ(orphans.err,
            warning + "error: 'legacy' holds schema files of another graph (_schema.pg, __schema_state.json); pass --force to "
            "replace them\n");
  EXPECT_FALSE(std::filesystem::exists(Path("legacy/__manifest")));
  CliRun forced = Run("init --schema schema.pg legacy --force");
  EXPECT_EQ(forced.rc, 0) << forced.err;
  EXPECT_FALSE(std::filesystem::exists(Path("legacy/_schema.pg")));
  EXPECT_FALSE(std::filesystem::exists(Path("legacy/__schema_state.json")));
  EXPECT_EQ(Run("schema show legacy").out, std::string(kSchema));
  EXPECT_EQ(Run("init --schema schema.pg legacy --force").rc, 1);  // a graph is never replaced

  // init on defaults.store echoes it.
  WriteFile(Path("home/config.yaml"), "defaults:\n  store: made\n");
  CliRun made = Run("init --schema schema.pg");
  EXPECT_EQ(made.rc, 0) << made.err;
  EXPECT_EQ(made.out, "initialized made\n");

  // Table layout: columns capped at the configured width, cells wrapped.
  WriteFile(Path("home/config.yaml"), "defaults:\n  store: g\n  table_max_column_width: 8\n  table_cell_layout: wrap\n");
  CliRun table = Run("query -e 'query q() { match { $p: Person { name: \"ivy\" } } return { \"abcdefghij\" as s } }'");
  ASSERT_EQ(table.rc, 0) << table.err;
  EXPECT_EQ(table.out, "1 rows from branch main via q\ns       \n--------\nabcdefgh\nij      \n");

  // A broken config fails the command loudly, naming the file and place.
  WriteFile(Path("home/config.yaml"), "defaults:\n  output: xml\n");
  ExpectFailure("query count_all --query q.gq", 1,
                "error: " + Path("home/config.yaml") +
                    ":2:11: defaults.output must be table, kv, csv, jsonl or json, got 'xml'\n");
  // `version` reads no config.
  EXPECT_EQ(Run("version").rc, 0);
}

// A profile (§5.1 --profile, $OMNIGRAPH_PROFILE; §5.5 profiles.<name>)
// addresses its store or server. A profile naming a cluster, a server the
// config lacks, or a profile the config lacks, is refused instead of
// falling back to another graph.
TEST_F(CliBadInputTest, ProfilesAddressTheirStore) {
  MakeGraph(/*load=*/true);
  ASSERT_EQ(Run("init --schema schema.pg other").rc, 0);
  std::filesystem::create_directories(Path("home"));
  const std::string config = Path("home/config.yaml");
  WriteFile(config,
            "defaults:\n  store: g\n  output: csv\nprofiles:\n  spare:\n    store: other\n  remote:\n"
            "    server: prod\n    default_graph: x\n  empty:\n");
  EXPECT_EQ(Run("query count_all --query q.gq").out, "n\n2\n");
  EXPECT_EQ(Run("--profile spare query count_all --query q.gq").out, "n\n0\n");
  EXPECT_EQ(Run("query count_all --query q.gq --profile=spare").out, "n\n0\n");
  EXPECT_EQ(Run("query count_all --query q.gq", "", "OMNIGRAPH_PROFILE=spare").out, "n\n0\n");
  // The flag beats the environment; an explicit graph beats both.
  EXPECT_EQ(Run("--profile spare query count_all --query q.gq", "", "OMNIGRAPH_PROFILE=nope").out, "n\n0\n");
  EXPECT_EQ(Run("--profile spare query count_all --query q.gq --store g").out, "n\n2\n");
  // A write lands on the profile's graph.
  CliRun add = Run("--profile spare mutate add --query q.gq --params '{\"name\":\"kim\",\"age\":5}'");
  ASSERT_EQ(add.rc, 0) << add.err;
  EXPECT_EQ(Run("query count_all --query q.gq --store other").out, "n\n1\n");
  EXPECT_EQ(Run("query count_all --query q.gq").out, "n\n2\n");

  ExpectFailure("--profile nope query count_all --query q.gq", 2,
                "error: profile 'nope' is not in " + config + " (profiles: empty, remote, spare)\n");
  CliRun from_environment = Run("query count_all --query q.gq", "", "OMNIGRAPH_PROFILE=nope");
  EXPECT_EQ(from_environment.rc, 2);
  EXPECT_EQ(from_environment.err, "error: profile 'nope' is not in " + config + " (profiles: empty, remote, spare)\n");
  // A profile's server must be one the config names (servers.<name>).
  ExpectFailure("--profile remote query count_all --query q.gq", 2,
                "error: server 'prod' is not in the operator config (it defines no servers)\n");
  ExpectFailure("--profile empty query count_all --query q.gq", 2,
                "error: profile 'empty' names no store\n");
  // A profile named on the command line must be usable even when an
  // explicit graph wins over it; one from the environment only when used.
  ExpectFailure("--profile nope query count_all --query q.gq --store g", 2,
                "error: profile 'nope' is not in " + config + " (profiles: empty, remote, spare)\n");
  EXPECT_EQ(Run("query count_all --query q.gq --store g", "", "OMNIGRAPH_PROFILE=remote").out, "n\n2\n");
  // An empty --profile names no profile the config has; an empty
  // $OMNIGRAPH_PROFILE is unset.
  ExpectFailure("--profile '' query count_all --query q.gq", 2,
                "error: profile '' is not in " + config + " (profiles: empty, remote, spare)\n");
  EXPECT_EQ(Run("query count_all --query q.gq", "", "OMNIGRAPH_PROFILE=").out, "n\n2\n");
  // A profile addresses a graph; verbs that address none refuse it.
  ExpectFailure("--profile spare version", 2, "error: `version` addresses no graph; drop --profile\n");
}

}  // namespace bad_input_test
}  // namespace omnigraph::api
