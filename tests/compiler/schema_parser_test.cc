// `.pg` lexical rules and grammar (spec/surface.md §1.1–§1.2, §9 item 1).
#include <gtest/gtest.h>

#include "compiler/schema_parser.h"
#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace schema_parser_test {

using testing::MustCompile;
using testing::SchemaError;
using testing::SchemaErrorLine;

TEST(SchemaParser, EmptyFileIsAnEmptySchema) {
  Catalog c = MustCompile("");
  EXPECT_TRUE(c.nodes().empty());
  EXPECT_TRUE(c.edges().empty());
  EXPECT_TRUE(MustCompile("  // only a comment\n/* and a block */\n").nodes().empty());
}

TEST(SchemaParser, ErrorsNameFileLineColumnWithCaret) {
  EXPECT_EQ(SchemaError("node Person {\n  name: String\n  Age: I32\n}\n"),
            "parse error: test.pg:3:3: expected `?`, `@`, property name or `}`, found `Age`\n"
            "3 |   Age: I32\n"
            "  |   ^");
  Result<Catalog> r = CompileSchema("node person {}", "dir/schema.pg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "parse error: dir/schema.pg:1:6: expected type name, found `person`\n"
            "1 | node person {}\n"
            "  |      ^");
  EXPECT_EQ(r.status().details().at("line"), "1");
  EXPECT_EQ(r.status().details().at("column"), "6");
  EXPECT_EQ(r.status().details().at("code"), "parse");
}

TEST(SchemaParser, ColumnsCountCodePointsAndCaretKeepsTabs) {
  EXPECT_EQ(SchemaError("node Person {\n\tnom: String // é\n\té: I32\n}"),
            "parse error: test.pg:3:2: expected `?`, `@`, property name or `}`, found `é`\n"
            "3 | \té: I32\n"
            "  | \t^");
}

// A leading UTF-8 byte order mark is skipped; positions count from the
// first real character. Elsewhere it is an ordinary (invalid) character.
TEST(SchemaParser, LeadingByteOrderMarkIsSkipped) {
  Catalog c = MustCompile("\xEF\xBB\xBFnode Person { name: String }\n");
  ASSERT_EQ(c.nodes().size(), 1u);
  EXPECT_EQ(c.nodes()[0].name, "Person");
  EXPECT_EQ(SchemaErrorLine("\xEF\xBB\xBFnode person {}"), "parse error: test.pg:1:6: expected type name, found `person`");
  EXPECT_EQ(SchemaErrorLine("node P { name: String }\n\xEF\xBB\xBF"),
            "parse error: test.pg:2:1: expected `interface`, `node`, `edge` or end of input, found `U+FEFF`");
  // Invisible characters are named by code point, not quoted raw.
  EXPECT_EQ(SchemaErrorLine("node P {\xC2\xA0}"),
            "parse error: test.pg:1:9: expected property name, `@` or `}`, found `U+00A0`");
}

TEST(SchemaParser, UnexpectedEndOfInput) {
  EXPECT_EQ(SchemaErrorLine("node Person {\n  name: String\n"),
            "parse error: test.pg:3:1: expected `?`, `@`, property name or `}`, found end of input");
  EXPECT_EQ(SchemaErrorLine("node Person { name: String /* open comment }"),
            "parse error: test.pg:1:28: expected `?`, `@`, property name or `}`, found `/`");
}

TEST(SchemaParser, TypeNamesNeedUpperCaseAndPropertiesLowerCase) {
  EXPECT_EQ(SchemaErrorLine("node person { name: String }"),
            "parse error: test.pg:1:6: expected type name, found `person`");
  EXPECT_EQ(SchemaErrorLine("node Person { Name: String }"),
            "parse error: test.pg:1:15: expected property name, `@` or `}`, found `Name`");
  Catalog c = MustCompile("node P_2x { _private: String x9_Y: I32 }");
  ASSERT_NE(c.FindNode("P_2x"), nullptr);
  EXPECT_NE(c.FindNode("P_2x")->FindProperty("_private"), nullptr);
  EXPECT_NE(c.FindNode("P_2x")->FindProperty("x9_Y"), nullptr);
}

TEST(SchemaParser, KeywordsMayBeGluedToTypeNames) {
  // [QUIRK] kept: keywords are plain string matches as in the PEG grammar.
  Catalog c = MustCompile("nodePerson { name: String }\nnodeCity{name:String}\nedgeLives:Person->City");
  ASSERT_NE(c.FindNode("Person"), nullptr);
  ASSERT_NE(c.FindEdge("Lives"), nullptr);
  EXPECT_EQ(c.FindEdge("Lives")->to_type, "City");
}

TEST(SchemaParser, CommentsAnywhereWhitespaceIs) {
  Catalog c = MustCompile(
      "// header\nnode /* a */ Person /* b */ { // c\n  name /* d */ : /* e */ String /* f */ @key // g\n}\n"
      "edge Knows /*x*/ : Person -> /*y*/ Person // tail without newline");
  ASSERT_NE(c.FindNode("Person"), nullptr);
  EXPECT_EQ(c.FindNode("Person")->key, std::vector<std::string>{"name"});
  EXPECT_NE(c.FindEdge("Knows"), nullptr);
}

TEST(SchemaParser, PropertiesAreSeparatedOnlyByWhitespace) {
  Catalog c = MustCompile("node Person { name: String @key age: I32? }");
  EXPECT_EQ(c.FindNode("Person")->properties.size(), 2u);
  EXPECT_EQ(SchemaErrorLine("node Person { name: String, age: I32 }"),
            "parse error: test.pg:1:27: expected `?`, `@`, property name or `}`, found `,`");
  EXPECT_EQ(SchemaErrorLine("node Person { name: String; }"),
            "parse error: test.pg:1:27: expected `?`, `@`, property name or `}`, found `;`");
}

TEST(SchemaParser, StringEscapes) {
  Catalog c = MustCompile(R"(node P @description("q\" b\\ n\n r\r t\t") { name: String })");
  EXPECT_EQ(*c.FindNode("P")->description, "q\" b\\ n\n r\r t\t");
  EXPECT_EQ(SchemaError(R"(node P @description("\u0041") { name: String })"),
            "parse error: test.pg:1:22: unsupported escape sequence: \\u\n"
            "1 | node P @description(\"\\u0041\") { name: String }\n"
            "  |                      ^");
  EXPECT_EQ(SchemaErrorLine(R"(node P @description("\x") { name: String })"),
            "parse error: test.pg:1:22: unsupported escape sequence: \\x");
  // Messages stay on one line: a line break or control character after the
  // backslash, or at the failure point, is named, not echoed.
  EXPECT_EQ(SchemaErrorLine("node P @description(\"a\\\n\") { name: String }"),
            "parse error: test.pg:1:23: unsupported escape sequence: \\ at the end of a line");
  EXPECT_EQ(SchemaErrorLine("node P @description(\"a\\\x01\") { name: String }"),
            "parse error: test.pg:1:23: unsupported escape sequence: \\\\x01");
  EXPECT_EQ(SchemaErrorLine(std::string("node P {\0 name: String }", 25)),
            "parse error: test.pg:1:9: expected property name, `@` or `}`, found `\\0`");
  EXPECT_EQ(SchemaErrorLine("node P @description(\"never closed) { name: String }"),
            "parse error: test.pg:1:52: expected `\"`, found end of input");
}

TEST(SchemaParser, NumbersHaveNoExponentNoLeadingDotNoSign) {
  Catalog c = MustCompile("node P @weight(1.25) @count(7) @flag(true) @off(false) @word(ident) { name: String }");
  const NodeType* p = c.FindNode("P");
  ASSERT_EQ(p->annotations.size(), 5u);
  EXPECT_EQ(*p->annotations[0].value, "1.25");
  EXPECT_EQ(*p->annotations[1].value, "7");
  EXPECT_EQ(*p->annotations[2].value, "true");
  EXPECT_EQ(*p->annotations[4].value, "ident");
  EXPECT_EQ(SchemaErrorLine("node P @foo(-1) { name: String }"),
            "parse error: test.pg:1:13: expected string, float, integer, `true`, `false` or identifier, found `-`");
  EXPECT_EQ(SchemaErrorLine("node P @foo(1e5) { name: String }"),
            "parse error: test.pg:1:14: expected `,` or `)`, found `e5`");
  EXPECT_EQ(SchemaErrorLine("node P @foo(.5) { name: String }"),
            "parse error: test.pg:1:13: expected string, float, integer, `true`, `false` or identifier, found `.`");
}

TEST(SchemaParser, NegativeNumbersOnlyInRangeBounds) {
  Catalog c = MustCompile("node T { v: F64 i: I32 @range(v, -2.5..-0.5) @range(i, -10..) @range(i, ..-1) }");
  const NodeType* t = c.FindNode("T");
  ASSERT_EQ(t->ranges.size(), 3u);
  EXPECT_TRUE(t->ranges[0].min->is_float);
  EXPECT_EQ(t->ranges[0].min->float_value, -2.5);
  EXPECT_EQ(t->ranges[0].max->float_value, -0.5);
  EXPECT_EQ(t->ranges[1].min->int_value, -10);
  EXPECT_FALSE(t->ranges[1].max.has_value());
  EXPECT_FALSE(t->ranges[2].min.has_value());
  EXPECT_EQ(t->ranges[2].max->int_value, -1);
}

TEST(SchemaParser, ListElementsAreBaseScalarsOnly) {
  EXPECT_EQ(SchemaErrorLine("node P { v: [Vector(3)] }"),
            "parse error: test.pg:1:14: expected type, found `Vector`");
  EXPECT_EQ(SchemaErrorLine("node P { v: [enum(a, b)] }"),
            "parse error: test.pg:1:14: expected type, found `enum`");
  EXPECT_EQ(SchemaErrorLine("node P { v: [Blob] }"), "parse error: test.pg:1:13: list of Blob is not supported");
  Catalog c = MustCompile("node P { a: [String] b: [Date]? c: [I64] }");
  EXPECT_EQ(c.FindNode("P")->FindProperty("b")->type.ToString(), "[Date]?");
}

TEST(SchemaParser, VectorDimensions) {
  EXPECT_EQ(SchemaErrorLine("node P { v: Vector(0) }"),
            "parse error: test.pg:1:20: Vector dimension must be greater than zero");
  EXPECT_EQ(SchemaErrorLine("node P { v: Vector(2147483648) }"),
            "parse error: test.pg:1:20: Vector dimension 2147483648 exceeds maximum supported 2147483647");
  Catalog c = MustCompile("node P { v: Vector(2147483647) w: Vector( 4 )? }");
  EXPECT_EQ(c.FindNode("P")->FindProperty("v")->type.vector_dim, 2147483647);
  EXPECT_EQ(c.FindNode("P")->FindProperty("w")->type.ToString(), "Vector(4)?");
}

TEST(SchemaParser, EnumsAreSortedAndDuplicatesRejected) {
  Catalog c = MustCompile("node P { s: enum(zeta, alpha-1, 9lives, mid_x) }");
  EXPECT_EQ(c.FindNode("P")->FindProperty("s")->type.ToString(), "enum(9lives, alpha-1, mid_x, zeta)");
  EXPECT_EQ(SchemaErrorLine("node P {\n  s: enum(a, b, a)\n}"),
            "parse error: test.pg:2:6: enum type cannot include duplicate values");
}

TEST(SchemaParser, EdgeBodyIsOptionalAndCardinalityComesFirst) {
  Catalog c = MustCompile(
      "node A { n: String }\n"
      "edge E1: A -> A\n"
      "edge E2: A -> A @card(1..)\n"
      "edge E3: A -> A @card ( 0 .. 1 ) @description(\"d\") { w: I32? }\n"
      "edge E4: A -> A {}\n");
  EXPECT_EQ(c.FindEdge("E1")->card_min, 0u);
  EXPECT_FALSE(c.FindEdge("E1")->card_max.has_value());
  EXPECT_EQ(c.FindEdge("E2")->card_min, 1u);
  EXPECT_FALSE(c.FindEdge("E2")->card_max.has_value());
  EXPECT_EQ(c.FindEdge("E3")->card_max, 1u);
  EXPECT_EQ(*c.FindEdge("E3")->description, "d");
  EXPECT_EQ(c.FindEdge("E3")->properties.size(), 1u);
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A @description(\"d\") @card(0..1)"),
            "parse error: test.pg:2:41: expected `,` or `)`, found `.`");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A @card(2..1)"),
            "parse error: test.pg:2:16: cardinality min (2) exceeds max (1)");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A @card(4294967296..)"),
            "parse error: test.pg:2:22: invalid cardinality min: 4294967296");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A @card(-1..)"),
            "parse error: test.pg:2:22: expected integer, string, float, `true`, `false` or identifier, found `-`");
}

TEST(SchemaParser, NegativeAnnotationLiteralsAreRejected) {
  EXPECT_EQ(SchemaErrorLine("node P { name: String @weight(-1) }"),
            "parse error: test.pg:1:31: expected string, float, integer, `true`, `false` or identifier, found `-`");
}

TEST(SchemaParser, BodyConstraintVersusAnnotation) {
  // `@key(` is a body constraint, never an annotation; `@keyx(...)` is a
  // custom annotation.
  Catalog c = MustCompile("node P @keyx(1) { name: String @index @key(name) }");
  EXPECT_EQ(c.FindNode("P")->key, std::vector<std::string>{"name"});
  EXPECT_EQ(c.FindNode("P")->annotations[0].name, "keyx");
  EXPECT_EQ(SchemaErrorLine("node P { name: String @key(name, 5) }"),
            "parse error: test.pg:1:34: expected property name in constraint");
  EXPECT_EQ(SchemaErrorLine("node P { a: I32 @range(a) }"),
            "parse error: test.pg:1:17: @range requires property name and bounds: @range(prop, min..max)");
  EXPECT_EQ(SchemaErrorLine("node P { a: I32 @range(a, 5) }"),
            "parse error: test.pg:1:27: expected range bounds (min..max) in @range constraint");
  EXPECT_EQ(SchemaErrorLine("node P { a: String @check(a, b) }"),
            "parse error: test.pg:1:30: expected string argument in constraint");
}

TEST(SchemaParser, BooleansAreWordBounded) {
  // `@key(true_flag)` names the property `true_flag` (user-expected; the PEG
  // grammar would read `true` and fail on `_flag`).
  Catalog c = MustCompile("node P { true_flag: Bool @key(true_flag) }");
  EXPECT_EQ(c.FindNode("P")->key, std::vector<std::string>{"true_flag"});
}

TEST(SchemaParser, InterfaceSyntax) {
  Catalog c = MustCompile("interface Named { name: String @key }\nnode P implements Named { age: I32? }");
  EXPECT_EQ(c.FindInterface("Named")->properties.size(), 1u);
  EXPECT_EQ(SchemaErrorLine("interface Named @x { name: String }"),
            "parse error: test.pg:1:17: expected `{`, found `@x`");
  EXPECT_EQ(SchemaErrorLine("interface Named { name: String @key(name) }"),
            "parse error: test.pg:1:32: expected `?`, property name or `}`, found `@key`");
}

TEST(SchemaParser, ReservedStorageColumns) {
  for (const char* name : {"_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version",
                           "_row_last_updated_at_version"}) {
    std::string src = "node P {\n  " + std::string(name) + ": I32\n}";
    EXPECT_EQ(SchemaErrorLine(src),
              "parse error: test.pg:2:3: property name '" + std::string(name) +
                  "' is reserved for a virtual storage system column");
  }
  EXPECT_EQ(SchemaErrorLine("interface I { _rowid: I32 }"),
            "parse error: test.pg:1:15: property name '_rowid' is reserved for a virtual storage system column");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A { _rowaddr: I32 }"),
            "parse error: test.pg:2:18: property name '_rowaddr' is reserved for a virtual storage system column");
  MustCompile("node P { _row_id: I32 _rowids: I32 }");
  EXPECT_TRUE(IsReservedStorageColumn("_rowid"));
  EXPECT_FALSE(IsReservedStorageColumn("_row_id"));
}

TEST(SchemaParser, LaterUpstreamEndpointSpellingIsNamed) {
  // Query-language hints have no place in a schema, where these are names.
  EXPECT_EQ(SchemaErrorLine("node A { name: String @key in String? }"),
            "parse error: test.pg:1:31: expected `:`, found `String`");
  EXPECT_EQ(SchemaErrorLine("node A { name: String @key and }"), "parse error: test.pg:1:32: expected `:`, found `}`");
  EXPECT_EQ(SchemaErrorLine("node T { name: String @key }\nedge L: T -> T {\n    @key(@src, @dst)\n}"),
            "parse error: test.pg:3:10: expected number, `..`, string, float, integer, `true`, `false` or property "
            "name, found `@src` (`@src`, `@dst` and `@type` are not part of this language: an edge's endpoints are "
            "`src`/`dst` in schema constraints and `from`/`to` in mutation predicates)");
}

TEST(SchemaParser, SyntaxErrorWinsOverLaterSemanticError) {
  // A grammar-layer check (Vector(0)) is reported only when the whole file
  // parses; the syntax error later in the file wins.
  EXPECT_EQ(SchemaErrorLine("node P { v: Vector(0) }\nnode q {}"),
            "parse error: test.pg:2:6: expected type name, found `q`");
  // The first grammar-layer error in source order wins.
  EXPECT_EQ(SchemaErrorLine("node P { v: Vector(0) w: [Blob] }"),
            "parse error: test.pg:1:20: Vector dimension must be greater than zero");
}

TEST(SchemaParser, AstKeepsDeclarationsInOrder) {
  Result<schema::SchemaFile> f =
      ParseSchema("node B { x: I32 }\ninterface I { y: I32 }\nedge E: B -> B\nnode A { z: I32 }", "f.pg");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->order.size(), 4u);
  EXPECT_EQ(f->order[0].kind, schema::Declaration::Kind::kNode);
  EXPECT_EQ(f->order[1].kind, schema::Declaration::Kind::kInterface);
  EXPECT_EQ(f->order[2].kind, schema::Declaration::Kind::kEdge);
  EXPECT_EQ(f->nodes[1].name, "A");
  EXPECT_EQ(f->nodes[1].location.line, 4u);
  EXPECT_EQ(f->nodes[1].location.column, 6u);
}

}  // namespace schema_parser_test
}  // namespace omnigraph::compiler
