// Strict NDJSON loads through the embedded API (spec/surface.md §4),
// including the shared cases B10–B12 (duplicate ids, dangling endpoints,
// 64-bit values).
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "lance/versioning.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace load_test {

constexpr std::string_view kPeopleSchema = R"(
node Person {
    name: String @key
}

node Company {
    name: String @key
}

edge WorksAt: Person -> Company
edge Knows: Person -> Person
)";

class LoadTest : public ::testing::Test {
 protected:
  std::unique_ptr<Omnigraph> Init(std::string_view schema) {
    auto graph = Omnigraph::Init(dir_.path() + "/g", schema);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    return std::move(graph).value();
  }
  std::map<std::string, uint64_t> Counts(Omnigraph& g) {
    std::map<std::string, uint64_t> counts;
    auto snapshot = g.Snapshot();  // kept alive across the loop
    for (const auto& d : snapshot->datasets) counts[d.type_name] = d.entity_count;
    return counts;
  }
  testing::TempDir dir_;
};

TEST_F(LoadTest, DanglingEndpointsRefuseTheWholeFile) {
  auto g = Init(kPeopleSchema);
  auto base = g->Load(R"({"type":"Person","data":{"name":"alice"}}
{"type":"Person","data":{"name":"bob"}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"WorksAt","from":"alice","to":"acme"}
{"edge":"Knows","from":"alice","to":"bob"}
)", "data.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ(base->total_entities, 5u);
  ASSERT_EQ(base->nodes.size(), 2u);
  EXPECT_EQ(base->nodes[0].name, "Company");
  size_t commits = g->ListCommits()->size();

  auto dst = g->Load(R"({"edge":"WorksAt","from":"bob","to":"globex"})", "bad_dst.jsonl", LoadMode::kMerge);
  EXPECT_EQ(dst.status().message(), "bad_dst.jsonl:1: dst 'globex' not found in Company");
  auto src = g->Load(R"({"edge":"WorksAt","from":"zoe","to":"acme"})", "bad_src.jsonl", LoadMode::kMerge);
  EXPECT_EQ(src.status().message(), "bad_src.jsonl:1: src 'zoe' not found in Person");
  // Ids are per type: a Person id is not a Company id.
  auto wrong = g->Load(R"({"edge":"WorksAt","from":"alice","to":"bob"})", "wrong_type.jsonl", LoadMode::kMerge);
  EXPECT_EQ(wrong.status().message(), "wrong_type.jsonl:1: dst 'bob' not found in Company");
  auto mixed = g->Load("{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n"
                       "{\"edge\":\"Knows\",\"from\":\"carol\",\"to\":\"dave\"}\n",
                       "mixed.jsonl", LoadMode::kMerge);
  EXPECT_EQ(mixed.status().message(), "mixed.jsonl:2: dst 'dave' not found in Person");
  EXPECT_EQ(g->ListCommits()->size(), commits);
  EXPECT_EQ(Counts(*g), (std::map<std::string, uint64_t>{{"Company", 1}, {"Knows", 1}, {"Person", 2}, {"WorksAt", 1}}));

  // An edge may precede its endpoints in the same file.
  auto forward = g->Load(R"({"edge":"WorksAt","from":"erin","to":"initech"}
{"type":"Company","data":{"name":"initech"}}
{"type":"Person","data":{"name":"erin"}}
)", "forward_ref.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(forward.ok()) << forward.status().ToString();
  EXPECT_EQ(forward->total_entities, 3u);
  // Overwriting Person without alice strands the retained edges from alice.
  auto stranded = g->Load("{\"type\":\"Person\",\"data\":{\"name\":\"bob\"}}\n{\"type\":\"Person\",\"data\":{\"name\":\"erin\"}}\n",
                          "people_without_alice.jsonl", LoadMode::kOverwrite);
  // The stranded edge is committed, so no input line names it: its id does.
  const std::string knows = *g->Export("main", {"Knows"});  // the one edge alice -> bob
  ASSERT_EQ(knows.rfind(R"({"edge":"Knows","from":"alice","to":"bob","data":{"id":")", 0), 0u) << knows;
  const std::string knows_id = knows.substr(knows.find(R"("id":")") + 6, 26);
  EXPECT_EQ(stranded.status().message(),
            "src 'alice' not found in Person (kept by committed Knows edge '" + knows_id + "')");
  EXPECT_EQ(Counts(*g)["Person"], 3u);
}

constexpr std::string_view kThingSchema = R"(
node Thing {
    key: String @key
    required_val: String
    optional_val: String?
}

node Note {
    body: String
}

edge Links: Thing -> Thing {
    weight: I32?
}
)";

TEST_F(LoadTest, DuplicateIdsFollowEachModesRule) {
  auto g = Init(kThingSchema);
  ASSERT_TRUE(g->Load(R"({"type":"Thing","data":{"key":"T1","required_val":"r1","optional_val":"o1"}}
{"type":"Thing","data":{"key":"T2","required_val":"r2","optional_val":"o2"}}
{"type":"Thing","data":{"key":"T3","required_val":"r3","optional_val":"o3"}}
{"edge":"Links","from":"T1","to":"T2","data":{"weight":1}}
)", "data.jsonl", LoadMode::kOverwrite).ok());
  std::string dup_key = "{\"type\":\"Thing\",\"data\":{\"key\":\"DUP\",\"required_val\":\"same\"}}\n"
                        "{\"type\":\"Thing\",\"data\":{\"key\":\"DUP\",\"required_val\":\"same\"}}\n";
  for (LoadMode mode : {LoadMode::kOverwrite, LoadMode::kAppend, LoadMode::kMerge}) {
    auto r = g->Load(dup_key, "dup_key.jsonl", mode);
    ASSERT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << LoadModeName(mode);
    EXPECT_EQ(r.status().message(),
              "dup_key.jsonl:2: @unique violation on Thing.key: value 'DUP' held by 'DUP' and 'DUP' (lines 1 and 2)");
  }
  std::string dup_note = "{\"type\":\"Note\",\"data\":{\"id\":\"N1\",\"body\":\"first\"}}\n"
                         "{\"type\":\"Note\",\"data\":{\"id\":\"N1\",\"body\":\"second\"}}\n";
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kOverwrite}) {
    auto r = g->Load(dup_note, "dup_note_id.jsonl", mode);
    ASSERT_EQ(r.status().code(), ErrorCode::kKeyConflict);
    EXPECT_EQ(r.status().details().at("entity_id"), "N1");
  }
  EXPECT_EQ(Counts(*g)["Note"], 0u);
  auto merged = g->Load(dup_note, "dup_note_id.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->total_entities, 2u);
  EXPECT_EQ(Counts(*g)["Note"], 1u);
  std::string exported = *g->Export("main", {"Note"});
  EXPECT_EQ(exported, "{\"type\":\"Note\",\"data\":{\"id\":\"N1\",\"body\":\"second\"}}\n");
  // A partial merge twice: full-image upsert, absent optional becomes NULL.
  std::string partial = "{\"type\":\"Thing\",\"data\":{\"key\":\"T1\",\"required_val\":\"r1 updated\"}}\n"
                        "{\"type\":\"Thing\",\"data\":{\"key\":\"T4\",\"required_val\":\"r4\"}}\n";
  ASSERT_TRUE(g->Load(partial, "partial.jsonl", LoadMode::kMerge).ok());
  ASSERT_TRUE(g->Load(partial, "partial.jsonl", LoadMode::kMerge).ok());
  EXPECT_EQ(*g->Export("main", {"Thing"}),
            "{\"type\":\"Thing\",\"data\":{\"id\":\"T1\",\"key\":\"T1\",\"optional_val\":null,\"required_val\":\"r1 updated\"}}\n"
            "{\"type\":\"Thing\",\"data\":{\"id\":\"T2\",\"key\":\"T2\",\"optional_val\":\"o2\",\"required_val\":\"r2\"}}\n"
            "{\"type\":\"Thing\",\"data\":{\"id\":\"T3\",\"key\":\"T3\",\"optional_val\":\"o3\",\"required_val\":\"r3\"}}\n"
            "{\"type\":\"Thing\",\"data\":{\"id\":\"T4\",\"key\":\"T4\",\"optional_val\":null,\"required_val\":\"r4\"}}\n");
  // An edge line without id again is a new parallel edge.
  ASSERT_TRUE(g->Load("{\"edge\":\"Links\",\"from\":\"T1\",\"to\":\"T2\",\"data\":{\"weight\":1}}\n", "edge_again.jsonl",
                      LoadMode::kMerge).ok());
  EXPECT_EQ(Counts(*g), (std::map<std::string, uint64_t>{{"Links", 2}, {"Note", 1}, {"Thing", 4}}));
}

// §1.4: an invalid @check regex surfaces when a value needs it, naming the
// record; NULLs are exempt, so a write without values still succeeds.
// §1.7: a @unique tuple compares the canonical spellings of its values, as
// a list: parts that contain the separator of the displayed form cannot
// collide, +0.0 and -0.0 are one value, and an F32 is spelled at its width.
TEST_F(LoadTest, UniqueTuplesCompareCanonicalValues) {
  auto g = Init(R"(node P {
    name: String @key
    first: String?
    last: String?
    f: F64?
    g: F32?
    @unique(first, last)
    @unique(f)
    @unique(g)
}
edge L: P -> P {
    @unique(src, dst)
}
)");
  auto ok = g->Load(R"({"type":"P","data":{"name":"p1","first":"a, b","last":"c"}}
{"type":"P","data":{"name":"p2","first":"a","last":"b, c"}}
{"type":"P","data":{"name":"a, b"}}
{"type":"P","data":{"name":"c"}}
{"type":"P","data":{"name":"a"}}
{"type":"P","data":{"name":"b, c"}}
{"edge":"L","from":"a, b","to":"c"}
{"edge":"L","from":"a","to":"b, c"}
)", "ok.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto zeros = g->Load(R"({"type":"P","data":{"name":"z1","f":0.0}}
{"type":"P","data":{"name":"z2","f":-0.0}}
)", "zeros.jsonl", LoadMode::kMerge);
  ASSERT_FALSE(zeros.ok());
  EXPECT_EQ(zeros.status().message(), "zeros.jsonl:2: @unique violation on P.f: value '0' held by 'z1' and 'z2'");
  auto narrow = g->Load(R"({"type":"P","data":{"name":"n1","g":0.1}}
{"type":"P","data":{"name":"n2","g":0.1}}
)", "narrow.jsonl", LoadMode::kMerge);
  ASSERT_FALSE(narrow.ok());
  EXPECT_EQ(narrow.status().message(), "narrow.jsonl:2: @unique violation on P.g: value '0.1' held by 'n1' and 'n2'");
  auto pair = g->Load(R"({"type":"P","data":{"name":"p3","first":"a, b","last":"c"}}
)", "pair.jsonl", LoadMode::kMerge);
  ASSERT_FALSE(pair.ok());
  EXPECT_EQ(pair.status().message(),
            "pair.jsonl:1: @unique violation on P.(first, last): value '(a, b, c)' held by 'p3' and 'p1'");
}

// @check patterns mean what they mean in Rust's `regex` (§1.4): Unicode
// `\w`, verbose mode; a construct RE2 cannot express is an invalid regex.
TEST_F(LoadTest, CheckPatternsUseRustRegexSyntax) {
  auto g = Init(R"(
node Tag {
    name: String @key
    word: String?
    spaced: String?
    sets: String?
    @check(word, "^\\w+$")
    @check(spaced, "(?x) ^ [a-z]+ \\d $  # a word, then a digit")
    @check(sets, "^[a-z--c]$")
}
)");
  auto ok = g->Load(R"({"type":"Tag","data":{"name":"a","word":"crème","spaced":"abc٣"}})" "\n", "ok.jsonl",
                    LoadMode::kOverwrite);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto bad = g->Load(R"({"type":"Tag","data":{"name":"b","word":"a b"}})" "\n", "bad.jsonl", LoadMode::kMerge);
  EXPECT_EQ(bad.status().message(), "bad.jsonl:1: @check violation on Tag.word: value 'a b' does not match pattern "
                                    "'^\\w+$'");
  auto sets = g->Load(R"({"type":"Tag","data":{"name":"c","sets":"c"}})" "\n", "sets.jsonl", LoadMode::kMerge);
  EXPECT_EQ(sets.status().message(), "sets.jsonl:1: @check on Tag.sets has an invalid regex '^[a-z--c]$': the bracket "
                                     "set operation `--` is not supported");
}

TEST_F(LoadTest, InvalidCheckRegexNamesTheFirstRecordThatNeedsIt) {
  auto g = Init(R"(
node Tag {
    name: String @key
    code: String?
    @check(code, "(")
}
)");
  auto nulls = g->Load("{\"type\":\"Tag\",\"data\":{\"name\":\"a\"}}\n", "nulls.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
  auto bad = g->Load("{\"type\":\"Tag\",\"data\":{\"name\":\"b\"}}\n{\"type\":\"Tag\",\"data\":{\"name\":\"c\",\"code\":\"x\"}}\n",
                     "codes.jsonl", LoadMode::kMerge);
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "codes.jsonl:2: @check on Tag.code has an invalid regex '(': missing ): (");
  EXPECT_EQ(Counts(*g)["Tag"], 1u);
}

TEST_F(LoadTest, SixtyFourBitValuesStayExactAndBadValuesAreRefused) {
  auto g = Init(R"(
node Tweet {
    id_num: I64 @key
    views: U64?
    small: I32?
    ratio: F32?
    score: F64?
}
)");
  auto loaded = g->Load(
      R"({"type":"Tweet","data":{"id_num":1413617112501850121,"views":18446744073709551615,"small":2147483647,"ratio":0.5,"score":0.1}}
{"type":"Tweet","data":{"id_num":-9223372036854775808,"views":0,"small":-2147483648,"ratio":-0.25,"score":1e300}}
{"type":"Tweet","data":{"id_num":9007199254740993,"score":3}}
{"type":"Tweet","data":{"id_num":9223372036854775807}}
)",
      "data.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*g->Export("main", {}),
            "{\"type\":\"Tweet\",\"data\":{\"id\":\"-9223372036854775808\",\"id_num\":-9223372036854775808,\"ratio\":-0.25,"
            "\"score\":1e300,\"small\":-2147483648,\"views\":0}}\n"
            "{\"type\":\"Tweet\",\"data\":{\"id\":\"1413617112501850121\",\"id_num\":1413617112501850121,\"ratio\":0.5,"
            "\"score\":0.1,\"small\":2147483647,\"views\":18446744073709551615}}\n"
            "{\"type\":\"Tweet\",\"data\":{\"id\":\"9007199254740993\",\"id_num\":9007199254740993,\"ratio\":null,"
            "\"score\":3.0,\"small\":null,\"views\":null}}\n"
            "{\"type\":\"Tweet\",\"data\":{\"id\":\"9223372036854775807\",\"id_num\":9223372036854775807,\"ratio\":null,"
            "\"score\":null,\"small\":null,\"views\":null}}\n");
  const std::pair<const char*, const char*> bad[] = {
      {R"({"type":"Tweet","data":{"id_num":6,"small":true}})", "strict property 'small' expects Int32, got true"},
      {R"({"type":"Tweet","data":{"id_num":5,"ratio":3.5e38}})", "property 'ratio' value 3.5e+38 exceeds Float32 range"},
      {R"({"type":"Tweet","data":{"id_num":1.0}})", "strict property 'id_num' expects Int64, got 1.0"},
      {R"({"type":"Tweet","data":{"id_num":1,"small":2147483648}})", "property 'small' value 2147483648 exceeds Int32 range"},
      {R"({"type":"Tweet","data":{"id_num":9223372036854775808}})", "property 'id_num' value 9223372036854775808 exceeds Int64 range"},
      {R"({"type":"Tweet","data":{"id_num":3,"views":-1}})", "property 'views' value -1 exceeds UInt64 range"},
      {R"({"type":"Tweet","data":{"id_num":"2"}})", "strict property 'id_num' expects Int64, got \"2\""},
  };
  for (const auto& [line, message] : bad) {
    auto r = g->Load(line, "bad.jsonl", LoadMode::kMerge);
    ASSERT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << line;
    EXPECT_EQ(r.status().message(), std::string("bad.jsonl:1: ") + message);
  }
  EXPECT_FALSE(g->Load(R"({"type":"Tweet","data":{"id_num":4,"score":1e400}})", "f64.jsonl", LoadMode::kMerge).ok());
  EXPECT_FALSE(g->Load(R"({"type":"Tweet","data":{"id_num":7,"views":18446744073709551616}})", "u64.jsonl",
                       LoadMode::kMerge).ok());
  EXPECT_EQ(g->Snapshot()->datasets[0].entity_count, 4u);
}

TEST_F(LoadTest, EnvelopeErrorsNameTheLine) {
  auto g = Init(kPeopleSchema);
  const std::pair<const char*, const char*> bad[] = {
      {"{\"type\":\"Person\",\"data\":{\"name\":\"a\"},\"extra\":1}", "data.jsonl:2: unknown top-level graph batch field 'extra'"},
      {"{\"type\":\"Nope\",\"data\":{}}", "data.jsonl:2: unknown node type 'Nope'"},
      {"{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":3}}", "data.jsonl:2: unknown input field 'age' for 'node:Person'"},
      {"{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"name\":\"b\"}}", "data.jsonl:2: duplicate JSON member 'name'"},
      {"{\"type\":\"Person\",\"data\":{}}", "data.jsonl:2: node Person is missing a non-null @key value"},
      {"{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"b\",\"data\":{\"src\":\"x\"}}", "data.jsonl:2: edge data field 'src' is reserved structural state"},
      {"{\"type\":\"Person\",\"_rowid\":1}", "data.jsonl:2: top-level field '_rowid' is reserved physical state"},
      {"{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"id\":\"b\"}}", "data.jsonl:2: node Person explicit id 'b' does not match its canonical @key id 'a'"},
      {"{\"type\":\"Person\"", "data.jsonl:2: invalid JSON at column 17: syntax error while parsing object - unexpected end of input; expected '}'"},
  };
  for (const auto& [line, message] : bad) {
    std::string data = std::string("{\"type\":\"Person\",\"data\":{\"name\":\"ok\"}}\r\n") + line + "\n";
    auto r = g->Load(data, "data.jsonl", LoadMode::kMerge);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_EQ(r.status().message(), message);
  }
  // Blank and whitespace-only lines (ASCII whitespace, form feed included)
  // and CRLF are fine.
  auto ok = g->Load("\n  \r\n\f \t\n{\"type\":\"Person\",\"data\":{\"name\":\"z\"}}\r\n\n", "data.jsonl", LoadMode::kAppend);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto again = g->Load("{\"type\":\"Person\",\"data\":{\"name\":\"z\"}}", "data.jsonl", LoadMode::kAppend);
  EXPECT_EQ(again.status().code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(again.status().message(), "data.jsonl:1: node type 'Person' already has this id: 'z'");
}

TEST_F(LoadTest, ProgressReportsBytesEveryBlockOfLinesAndTheEnd) {
  auto g = Init(kPeopleSchema);
  std::string data;
  std::vector<uint64_t> line_ends;  // byte offset just past each line
  for (uint64_t i = 0; i < 2 * exec::kLoadProgressLines + 5; ++i) {
    data += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
    line_ends.push_back(data.size());
  }
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  auto report = g->Load(data, "many.jsonl", LoadMode::kOverwrite, "main",
                        [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); });
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->total_entities, 2 * exec::kLoadProgressLines + 5);
  const uint64_t total = data.size();
  EXPECT_EQ(calls, (std::vector<std::pair<uint64_t, uint64_t>>{{line_ends[exec::kLoadProgressLines - 1], total},
                                                               {line_ends[2 * exec::kLoadProgressLines - 1], total},
                                                               {total, total}}));
}

// A large file with a syntax error deep inside names that line; a value
// error earlier in the file is reported first; neither changes the graph.
TEST_F(LoadTest, TheFirstBadLineInTheFileIsReported) {
  auto g = Init(kPeopleSchema);
  auto person = [](uint64_t i) { return R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"}}\n"; };
  const uint64_t late = exec::kLoadProgressLines + 10;  // past the first progress report
  std::string data;
  for (uint64_t i = 1; i <= late + 5; ++i) data += i == late ? "{broken\n" : person(i);
  auto broken = g->Load(data, "big.jsonl", LoadMode::kOverwrite);
  EXPECT_EQ(broken.status().message(),
            fmt::format("big.jsonl:{}: invalid JSON at column 2: syntax error while parsing object key - invalid "
                        "literal; last read: '{{b'; expected string literal",
                        late));
  // A conversion error earlier in the file wins over the later parse error.
  std::string earlier = data;
  earlier.replace(0, person(1).size(), R"({"type":"Person","data":{"name":5}})" "\n");
  auto first = g->Load(earlier, "big.jsonl", LoadMode::kOverwrite);
  EXPECT_EQ(first.status().message(), "big.jsonl:1: strict property 'name' expects Utf8, got 5");
  EXPECT_EQ(g->ListCommits()->size(), 1u);
}

// A wrong value is echoed in the message, cut short when it is large.
TEST_F(LoadTest, LargeWrongValuesAreEchoedShortened) {
  auto g = Init(kPeopleSchema);
  std::string nested = std::string(2000, '[') + std::string(2000, ']');
  auto r = g->Load(R"({"type":"Person","data":{"name":)" + nested + "}}\n", "deep.jsonl", LoadMode::kMerge);
  EXPECT_EQ(r.status().message(),
            "deep.jsonl:1: strict property 'name' expects Utf8, got " + std::string(120, '[') + "… (4000 bytes)");
  auto small = g->Load(R"({"type":"Person","data":{"name":[1,2]}})", "small.jsonl", LoadMode::kMerge);
  EXPECT_EQ(small.status().message(), "small.jsonl:1: strict property 'name' expects Utf8, got [1,2]");
}

// Every message that echoes an input value shortens it: an enum value, an
// explicit id and the id it should be, a @unique value, a JSON number
// that overflows, a duplicate member name.
TEST_F(LoadTest, HugeValuesInEveryMessageAreShortened) {
  auto g = Init(R"(node E {
    name: String @key
    kind: enum(a, b)?
    code: String? @unique
}
)");
  const std::string huge(100000, 'x');
  const std::string shown = std::string(120, 'x') + "… (100000 bytes)";
  auto enum_value = g->Load(R"({"type":"E","data":{"name":"e","kind":")" + huge + "\"}}\n", "d.jsonl", LoadMode::kMerge);
  EXPECT_EQ(enum_value.status().message(), "d.jsonl:1: invalid enum value '" + shown + "' for E.kind (expected: a, b)");
  auto id = g->Load(R"({"type":"E","data":{"id":")" + huge + R"(","name":")" + huge + "y\"}}\n", "d.jsonl",
                    LoadMode::kMerge);
  EXPECT_EQ(id.status().message(), "d.jsonl:1: node E explicit id '" + shown + "' does not match its canonical @key id '" +
                                       std::string(120, 'x') + "… (100001 bytes)'");
  auto unique = g->Load(R"({"type":"E","data":{"name":"u1","code":")" + huge + "\"}}\n" +
                            R"({"type":"E","data":{"name":"u2","code":")" + huge + "\"}}\n",
                        "d.jsonl", LoadMode::kMerge);
  EXPECT_EQ(unique.status().message(), "d.jsonl:2: @unique violation on E.code: value '" + shown +
                                           "' held by 'u1' and 'u2'");
  auto number = g->Load(R"({"type":"E","data":{"name":)" + std::string(400, '9') + "}}\n", "d.jsonl", LoadMode::kMerge);
  EXPECT_LT(number.status().message().size(), 300u) << number.status().message();
  EXPECT_NE(number.status().message().find("… (400 bytes)"), std::string::npos) << number.status().message();
  auto member = g->Load(R"({"type":"E","data":{")" + huge + R"(":1,")" + huge + "\":2}}\n", "d.jsonl", LoadMode::kMerge);
  EXPECT_EQ(member.status().message(), "d.jsonl:1: duplicate JSON member '" + shown + "'");
}

// Nesting is bounded (exec::kMaxJsonDepth) so that no walk of a parsed line
// can exhaust the stack: 60,000 levels fit the structural-token limit.
TEST_F(LoadTest, DeepNestingIsRefusedWithoutCrashing) {
  auto g = Init(kPeopleSchema);
  std::string nested = std::string(60000, '[') + std::string(60000, ']');
  auto r = g->Load(R"({"type":"Person","data":{"name":)" + nested + "}}\n", "deep.jsonl", LoadMode::kMerge);
  EXPECT_EQ(r.status().message(), "deep.jsonl:1: JSON nesting deeper than 4096 levels");
  EXPECT_EQ(g->ListCommits()->size(), 1u);
}

// Duplicate detection switches from a scan of siblings to a set for large
// objects; both must find the first repeated name.
TEST_F(LoadTest, DuplicatesAreFoundInLargeObjects) {
  auto g = Init(kPeopleSchema);
  for (int repeat_at : {5, 40}) {
    std::string data = R"({"type":"Person","data":{)";
    for (int k = 0; k < 50; ++k) data += fmt::format(R"("f{}":{},)", k, k);
    data += fmt::format(R"("f{}":1}}}})", repeat_at) + "\n";
    auto r = g->Load(data, "wide.jsonl", LoadMode::kMerge);
    EXPECT_EQ(r.status().message(), fmt::format("wide.jsonl:1: duplicate JSON member 'f{}'", repeat_at));
  }
}

// A NUL byte ends the input for both parsers; after a complete value it
// must not silently drop the rest of the line.
TEST_F(LoadTest, NulBytesAreRefusedWherever) {
  auto g = Init(kPeopleSchema);
  const std::string after = std::string(R"({"type":"Person","data":{"name":"a"}})") + '\0' +
                            R"({"type":"Person","data":{"name":"b"}})" + "\n";
  EXPECT_EQ(g->Load(after, "nul.jsonl", LoadMode::kMerge).status().message(),
            "nul.jsonl:1: invalid JSON at column 38: NUL byte after the value");
  const std::string inside = std::string(R"({"type":"Person","data":{"name":"a)") + '\0' + R"("}})" + "\n";
  EXPECT_FALSE(g->Load(inside, "nul.jsonl", LoadMode::kMerge).ok());
  EXPECT_EQ(g->ListCommits()->size(), 1u);
}

// Names and ids echoed in messages are shortened like values are.
TEST_F(LoadTest, LongNamesAreEchoedShortened) {
  auto g = Init(kPeopleSchema);
  const std::string name(5000, 'q');
  EXPECT_EQ(g->Load(R"({"type":")" + name + R"(","data":{}})", "long.jsonl", LoadMode::kMerge).status().message(),
            "long.jsonl:1: unknown node type '" + std::string(120, 'q') + "… (5000 bytes)'");
  EXPECT_EQ(g->Load(R"({"type":"Person","data":{"name":"a",")" + name + R"(":1}})", "long.jsonl", LoadMode::kMerge)
                .status()
                .message(),
            "long.jsonl:1: unknown input field '" + std::string(120, 'q') + "… (5000 bytes)' for 'node:Person'");
}

// A cardinality violation names the input line of the source's last edge.
TEST_F(LoadTest, CardinalityViolationsNameALine) {
  auto g = Init(R"(
node Person { name: String @key }
node Company { name: String @key }
edge WorksAt: Person -> Company @card(0..1)
)");
  const std::string data = R"({"type":"Person","data":{"name":"zed"}}
{"type":"Person","data":{"name":"amy"}}
{"type":"Company","data":{"name":"acme"}}
{"type":"Company","data":{"name":"initech"}}
{"edge":"WorksAt","from":"zed","to":"acme"}
{"edge":"WorksAt","from":"amy","to":"acme"}
{"edge":"WorksAt","from":"zed","to":"initech"}
{"edge":"WorksAt","from":"amy","to":"initech"}
)";
  auto r = g->Load(data, "card.jsonl", LoadMode::kOverwrite);
  EXPECT_EQ(r.status().message(), "card.jsonl:8: @card violation on edge WorksAt: source 'amy' has 2 edges (max 1)");
  EXPECT_EQ(g->ListCommits()->size(), 1u);
}

// A source is touched by every write that changes its edges: one that
// drops them (an overwrite of the edge type) or moves them away (a merge
// that rewrites an edge's endpoints) must keep @card's minimum, as a
// mutation deleting the edge must. A source the write deletes is exempt.
TEST_F(LoadTest, CardinalityMinimumCoversSourcesLosingEdges) {
  const std::string schema = R"(
node P { n: String @key }
node C { n: String @key }
edge W: P -> C @card(1..2)
)";
  const std::string seed = R"({"type":"P","data":{"n":"a"}}
{"type":"P","data":{"n":"b"}}
{"type":"C","data":{"n":"x"}}
{"edge":"W","from":"a","to":"x","data":{"id":"Ea"}}
{"edge":"W","from":"b","to":"x","data":{"id":"Eb"}}
)";
  int graphs = 0;
  auto seeded = [&] {
    auto g = Omnigraph::Init(dir_.path() + "/card" + std::to_string(graphs++), schema);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    auto loaded = (*g)->Load(seed, "seed.jsonl", LoadMode::kOverwrite);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return std::move(*g);
  };
  const std::string too_few = "@card violation on edge W: source 'a' has 0 edges (min 1)";
  auto g = seeded();
  EXPECT_EQ(g->Load(R"({"edge":"W","from":"b","to":"x"})", "w.jsonl", LoadMode::kOverwrite).status().message(),
            too_few);
  EXPECT_EQ(g->Load(R"({"edge":"W","from":"b","to":"x","data":{"id":"Ea"}})", "w.jsonl", LoadMode::kMerge)
                .status()
                .message(),
            "w.jsonl:1: " + too_few);
  EXPECT_EQ(g->Mutate(R"(query m() { delete W where from = "a" })", "m.gq", "m", "{}").status().message(), too_few);
  EXPECT_EQ(g->ListCommits()->size(), 2u);  // init and the seed only

  // Deleting the source itself (its edges cascade) is allowed, and so is an
  // overwrite that drops the source together with its edges.
  auto deleted = g->Mutate(R"(query m() { delete P where n = "a" })", "m.gq", "m", "{}");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto h = seeded();
  auto replaced = h->Load(R"({"type":"P","data":{"n":"b"}}
{"edge":"W","from":"b","to":"x"}
)",
                          "pw.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
}

// @range bounds compare in the property's type: a U64 bound above 2^63 is
// exact, and an F32 bound is narrowed as the F32 value is, so writing the
// bound itself passes; the messages show both as written.
TEST_F(LoadTest, RangeBoundsCompareInThePropertysType) {
  auto g = Init(R"(node R { k: String @key  u: U64?  f: F32?
  @range(u, 18446744073709551000..)  @range(f, 0.0..0.1) })");
  EXPECT_EQ(g->Load(R"({"type":"R","data":{"k":"a","u":18446744073709550999}})", "r.jsonl", LoadMode::kMerge)
                .status()
                .message(),
            "r.jsonl:1: @range violation on R.u: value 18446744073709550999 < min 18446744073709551000");
  auto at_bounds = g->Load(R"({"type":"R","data":{"k":"b","u":18446744073709551000,"f":0.1}}
{"type":"R","data":{"k":"c","u":18446744073709551615,"f":0.0}}
)",
                           "r.jsonl", LoadMode::kMerge);
  EXPECT_TRUE(at_bounds.ok()) << at_bounds.status().ToString();
  EXPECT_EQ(g->Load(R"({"type":"R","data":{"k":"d","f":0.1000001}})", "r.jsonl", LoadMode::kMerge).status().message(),
            "r.jsonl:1: @range violation on R.f: value 0.1000001 > max 0.1");
  auto inserted = g->Mutate(R"(query m() { insert R { k: "e", f: 0.1 } })", "m.gq", "m", "{}");
  EXPECT_TRUE(inserted.ok()) << inserted.status().ToString();
}

// The newest __manifest version's name held by a directory or a dangling
// link is damage: reads and writes report it instead of reading the
// previous version as the latest (stale rows, exit 0) or losing a
// compare-and-swap against it for ever.
TEST_F(LoadTest, ADamagedNewestManifestVersionIsReportedNotSkipped) {
  for (bool as_directory : {true, false}) {
    const std::string root = dir_.path() + (as_directory ? "/dir" : "/link");
    {
      auto g = Omnigraph::Init(root, kPeopleSchema);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      ASSERT_TRUE((*g)->Load(R"({"type":"Person","data":{"name":"alice"}})", "a.jsonl", LoadMode::kMerge).ok());
      const uint64_t newest = (*g)->Snapshot()->graph_manifest_version;
      const std::string path = root + "/__manifest/_versions/" + lance::ManifestFileName(newest);
      std::filesystem::remove(path);
      if (as_directory) {
        std::filesystem::create_directory(path);
      } else {
        std::filesystem::create_symlink(root + "/nowhere", path);
      }
    }
    auto reopened = Omnigraph::Open(root);
    Status status = reopened.ok() ? reopened.value()->Snapshot().status() : reopened.status();
    EXPECT_EQ(status.code(), ErrorCode::kCorruptData) << status.ToString();
    EXPECT_NE(status.message().find("exists but is not a regular file"), std::string::npos) << status.ToString();
    if (reopened.ok()) {
      auto write = (*reopened)->Load(R"({"type":"Person","data":{"name":"bob"}})", "b.jsonl", LoadMode::kMerge);
      EXPECT_EQ(write.status().code(), ErrorCode::kCorruptData) << write.status().ToString();
    }
  }
}

// Lines the fast parser refuses but JSON allows (an integer beyond 64 bits)
// take the slow path, which must apply every rule the fast one does.
TEST_F(LoadTest, SlowPathLinesFollowTheSameRules) {
  auto g = Init(kPeopleSchema);
  auto duplicate = g->Load(R"({"type":"Person","data":{"name":"a","name":"b","x":18446744073709551616}})",
                           "dup.jsonl", LoadMode::kMerge);
  EXPECT_EQ(duplicate.status().message(), "dup.jsonl:1: duplicate JSON member 'name'");
  auto big = g->Load(R"({"type":"Person","data":{"name":18446744073709551616}})", "big.jsonl", LoadMode::kMerge);
  EXPECT_EQ(big.status().message(), "big.jsonl:1: strict property 'name' expects Utf8, got 1.8446744073709552e+19");
  // An integer beyond 64 bits is out of range for an integer property
  // (§4.2), not of the wrong type, and is echoed as written.
  auto created =
      Omnigraph::Init(dir_.path() + "/tally", R"(node Tally { name: String @key  n: I64?  u: U64?  f: F64? })");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto counts = std::move(created).value();
  auto over = counts->Load(R"({"type":"Tally","data":{"name":"a","n":18446744073709551616}})", "i.jsonl",
                           LoadMode::kMerge);
  EXPECT_EQ(over.status().message(), "i.jsonl:1: property 'n' value 18446744073709551616 exceeds Int64 range");
  auto under = counts->Load(R"({"type":"Tally","data":{"name":"a","u":-9223372036854775809}})", "u.jsonl",
                            LoadMode::kMerge);
  EXPECT_EQ(under.status().message(), "u.jsonl:1: property 'u' value -9223372036854775809 exceeds UInt64 range");
  auto as_float = counts->Load(R"({"type":"Tally","data":{"name":"a","f":18446744073709551616}})", "f.jsonl",
                               LoadMode::kMerge);
  EXPECT_TRUE(as_float.ok()) << as_float.status().ToString();
  auto loaded = g->Load("{\"type\":\"Person\",\"data\":{\"name\":\"\u00e9t\u00e9\"}}\n", "ok.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*g->Export("main", {}), "{\"type\":\"Person\",\"data\":{\"id\":\"été\",\"name\":\"été\"}}\n");
}

}  // namespace load_test
}  // namespace omnigraph::api
