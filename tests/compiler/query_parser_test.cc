// `.gq` lexical rules and grammar (spec/surface.md §2.1–§2.2, §3.1, §9 item 1).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compiler/query_parser.h"
#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace query_parser_test {

using query::Clause;
using query::Expr;
using query::Literal;
using query::QueryFile;

QueryFile MustParse(std::string_view src) {
  Result<QueryFile> r = ParseQueries(src, "test.gq");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return QueryFile();
  return std::move(r).value();
}

std::string ParseError(std::string_view src) {
  Result<QueryFile> r = ParseQueries(src, "test.gq");
  if (r.ok()) return "";
  std::string m = r.status().message();
  return m.substr(0, m.find('\n'));
}

// The single match clause of `query q() { match { <clause> } return { 1 } }`.
Clause OneClause(std::string_view clause) {
  QueryFile f = MustParse("query q() { match { " + std::string(clause) + " } return { 1 } }");
  if (f.queries.empty() || f.queries[0].match.empty()) return Clause();
  EXPECT_EQ(f.queries[0].match.size(), 1u);
  return f.queries[0].match[0];
}

TEST(QueryParser, EmptyFileAndManyQueries) {
  EXPECT_TRUE(MustParse("").queries.empty());
  EXPECT_TRUE(MustParse("// nothing\n/* here */").queries.empty());
  QueryFile f = MustParse(
      "query a() { match { $p: Person } return { $p.name } }\n"
      "query b($n: String) { insert Person { name: $n } }\n");
  ASSERT_EQ(f.queries.size(), 2u);
  EXPECT_FALSE(f.queries[0].is_mutation);
  EXPECT_TRUE(f.queries[1].is_mutation);
  EXPECT_TRUE(f.queries[1].match.empty());
}

TEST(QueryParser, ErrorsNameFileLineColumnWithCaret) {
  Result<QueryFile> r = ParseQueries("query q() {\n  match { $p: Person }\n  return { $p.name }\n  limit -1\n}", "x.gq");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "parse error: x.gq:4:9: expected integer, found `-`\n"
            "4 |   limit -1\n"
            "  |         ^");
}

// A long source line is shown as a window of 120 characters around the
// error, marked with "…" where it was cut, so a 100 KB line does not flood
// the terminal; the caret still points at the error.
TEST(QueryParser, LongLinesAreShownAsAWindowAroundTheError) {
  std::string padding(5000, ' ');
  std::string source = "query q() { match { $p: Person }" + padding + "return { $p.name } limit -1" + padding + "}";
  Result<QueryFile> r = ParseQueries(source, "x.gq");
  ASSERT_FALSE(r.ok());
  const size_t column = source.find("-1") + 1;
  std::string shown = std::string(35, ' ') + "return { $p.name } limit -1" + std::string(58, ' ');
  EXPECT_EQ(r.status().message(), fmt::format("parse error: x.gq:1:{}: expected integer, found `-`\n"
                                              "1 | …{}…\n"
                                              "  | {}^",
                                              column, shown, std::string(61, ' ')));
  // Near the start of the line, nothing is cut before it.
  Result<QueryFile> early = ParseQueries("query q( { }" + padding, "x.gq");
  ASSERT_FALSE(early.ok());
  std::string message = early.status().message();
  EXPECT_EQ(message.substr(message.find('\n') + 1),
            "1 | query q( { }" + std::string(120 - 12, ' ') + "…\n  | " + std::string(9, ' ') + "^");
}

// Hostile nesting gets an error, not a stack overflow; realistic nesting
// parses. (Depth counts every nested construct being parsed, so a negation
// level holding a clause costs more than one.)
TEST(QueryParser, LeadingByteOrderMarkIsSkipped) {
  QueryFile f = MustParse("\xEF\xBB\xBFquery q() { match { $p: Person } return { $p.name } }");
  ASSERT_EQ(f.queries.size(), 1u);
  EXPECT_EQ(f.queries[0].name, "q");
  EXPECT_EQ(ParseError("\xEF\xBB\xBFquery ( {"), "parse error: test.gq:1:7: expected query name, found `(`");
}

TEST(QueryParser, NestingDeeperThanTheLimitIsRefused) {
  auto negations = [](int n) {
    std::string q = "query q() { match { $x: N ";
    for (int i = 0; i < n; ++i) q += "not { $x e $y ";
    return q + std::string(static_cast<size_t>(n), '}') + " } return { $x.name } }";
  };
  EXPECT_EQ(MustParse(negations(20)).queries.size(), 1u);
  EXPECT_EQ(ParseError(negations(2000)), "parse error: test.gq:1:929: nesting deeper than 64 levels");
  auto lists = [](int n) {
    return "query q() { match { $x: N } return { " + std::string(static_cast<size_t>(n), '[') +
           std::string(static_cast<size_t>(n), ']') + " as l } }";
  };
  EXPECT_EQ(MustParse(lists(20)).queries.size(), 1u);
  EXPECT_EQ(ParseError(lists(20000)), "parse error: test.gq:1:101: nesting deeper than 64 levels");
}

TEST(QueryParser, EmptyBindingBracesAreAccepted) {
  // [QUIRK] upstream rejects `$d: Doc { }` although its search docs use it;
  // we accept it as `$d: Doc`.
  Clause c = OneClause("$d: Doc { }");
  EXPECT_EQ(c.kind, Clause::Kind::kBinding);
  EXPECT_TRUE(c.props.empty());
  Clause d = OneClause("$d: Doc {}");
  EXPECT_EQ(d.type_name, "Doc");
}

TEST(QueryParser, BindingsWithInlineMatches) {
  Clause c = OneClause("$p: Person { name: \"Alice\", age: 30, at: now(), who: $w, }");
  ASSERT_EQ(c.props.size(), 4u);
  EXPECT_EQ(c.props[0].property, "name");
  EXPECT_EQ(c.props[0].value.literal.text, "Alice");
  EXPECT_EQ(c.props[1].value.literal.int_value, 30u);
  EXPECT_EQ(c.props[2].value.kind, query::MatchValue::Kind::kNow);
  EXPECT_EQ(c.props[3].value.kind, query::MatchValue::Kind::kVariable);
  EXPECT_EQ(c.props[3].value.variable, "w");
  EXPECT_EQ(ParseError("query q() { match { $p: Person { name: \"A\" age: 3 } } return { 1 } }"),
            "parse error: test.gq:1:44: expected `,` or `}`, found `age`");
}

TEST(QueryParser, ClausesNeedNoSeparators) {
  QueryFile f = MustParse("query q() { match { $p: Person $p knows $f $f.age > 30 not { $f worksAt $_ } } return { $f } }");
  ASSERT_EQ(f.queries[0].match.size(), 4u);
  EXPECT_EQ(f.queries[0].match[1].kind, Clause::Kind::kTraversal);
  EXPECT_EQ(f.queries[0].match[2].kind, Clause::Kind::kFilter);
  EXPECT_EQ(f.queries[0].match[3].kind, Clause::Kind::kNegation);
  EXPECT_EQ(ParseError("query q() { match { $p: Person, $p knows $f } return { 1 } }"),
            "parse error: test.gq:1:31: expected `{`, match clause or `}`, found `,`");
}

TEST(QueryParser, BareVariableContainsIsATraversal) {
  Clause c = OneClause("$q contains $m");
  EXPECT_EQ(c.kind, Clause::Kind::kTraversal);
  EXPECT_EQ(c.edge_name, "contains");
  Clause f = OneClause("$d.tags contains $m");
  EXPECT_EQ(f.kind, Clause::Kind::kFilter);
  EXPECT_EQ(f.op, query::CompareOp::kContains);
  Clause s = OneClause("\"a haystack\" contains $p.name");
  EXPECT_EQ(s.kind, Clause::Kind::kFilter);
  EXPECT_EQ(s.left.kind, Expr::Kind::kLiteral);
  Clause sw = OneClause("$p.name starts_with \"Al\"");
  EXPECT_EQ(sw.op, query::CompareOp::kStartsWith);
}

TEST(QueryParser, TraversalForms) {
  Clause a = OneClause("$a knows $b");
  EXPECT_EQ(a.src, "a");
  EXPECT_EQ(a.dst, "b");
  EXPECT_FALSE(a.has_bounds);
  EXPECT_EQ(a.min_hops, 1u);
  EXPECT_EQ(*a.max_hops, 1u);
  Clause b = OneClause("$a knows{1,3} $b");
  EXPECT_TRUE(b.has_bounds);
  EXPECT_EQ(*b.max_hops, 3u);
  Clause c = OneClause("$a knows {2, 2} $b");
  EXPECT_EQ(c.min_hops, 2u);
  Clause d = OneClause("$a knows{1,} $b");
  EXPECT_FALSE(d.max_hops.has_value());
  Clause e = OneClause("$a <knows> $b");
  EXPECT_TRUE(e.undirected);
  Clause f = OneClause("$a $w:knows $b");
  EXPECT_EQ(*f.edge_variable, "w");
  Clause g = OneClause("$a $w:<knows>{1,1} $b");
  EXPECT_TRUE(g.undirected);
  EXPECT_EQ(*g.edge_variable, "w");
  Clause h = OneClause("$_ worksAt $_");
  EXPECT_EQ(h.src, "_");
  EXPECT_EQ(h.edge_name, "worksAt");
  EXPECT_EQ(OneClause("$a _edge $b").edge_name, "_edge");
  EXPECT_EQ(OneClause("$a nothing $b").edge_name, "nothing");
  // The leading case distinguishes a traversal from a binding.
  EXPECT_EQ(ParseError("query q() { match { $a Knows $b } return { 1 } }"),
            "parse error: test.gq:1:24: expected `:`, variable, `<`, edge name, `.` or comparison operator, found `Knows`");
  // `not` is never an edge name.
  EXPECT_EQ(ParseError("query q() { match { $a not $b } return { 1 } }"),
            "parse error: test.gq:1:24: expected `:`, variable, `<`, edge name, `.` or comparison operator, found `not`");
  EXPECT_EQ(ParseError("query q() { match { $a knows{4294967296,4294967297} $b } return { 1 } }"),
            "parse error: test.gq:1:30: hop bound 4294967296 is out of range");
}

TEST(QueryParser, VariableSpelling) {
  EXPECT_EQ(OneClause("$_x: Person").variable, "_x");
  EXPECT_EQ(ParseError("query q() { match { $Foo: Person } return { 1 } }"),
            "parse error: test.gq:1:21: expected match clause, found `$Foo`");
}

TEST(QueryParser, NoNegativeAndNoNullLiterals) {
  EXPECT_EQ(ParseError("query q() { match { $p: Person { age: -1 } } return { 1 } }"),
            "parse error: test.gq:1:39: expected literal, variable or now(), found `-`");
  EXPECT_EQ(ParseError("query q() { match { $p: Person $p.score > -2.5 } return { 1 } }"),
            "parse error: test.gq:1:43: expected expression, found `-`");
  EXPECT_EQ(ParseError("query q() { match { $p: Person { age: null } } return { 1 } }"),
            "parse error: test.gq:1:39: expected literal, variable or now(), found `null`");
  // `null` in an expression is a bare identifier (an alias reference); the
  // type checker rejects it.
  EXPECT_EQ(OneClause("$p.age = null").right.kind, Expr::Kind::kAliasRef);
}

TEST(QueryParser, Literals) {
  Clause c = OneClause(
      "$p: P { s: \"q\\\"\\\\\\n\", i: 9223372036854775808, f: 2.5, b: true, d: date(\"2024-01-01\"), "
      "t: datetime(\"2024-01-01T00:00:00Z\"), l: [1, 2.5], e: [], n: [[1]] }");
  ASSERT_EQ(c.props.size(), 9u);
  EXPECT_EQ(c.props[0].value.literal.text, "q\"\\\n");
  EXPECT_EQ(c.props[1].value.literal.int_value, 9223372036854775808ULL);
  EXPECT_EQ(c.props[2].value.literal.float_value, 2.5);
  EXPECT_TRUE(c.props[3].value.literal.bool_value);
  EXPECT_EQ(c.props[4].value.literal.kind, Literal::Kind::kDate);
  EXPECT_EQ(c.props[4].value.literal.temporal, 19723);
  EXPECT_EQ(c.props[5].value.literal.temporal, 1704067200000);
  EXPECT_EQ(c.props[6].value.literal.items.size(), 2u);
  EXPECT_TRUE(c.props[7].value.literal.items.empty());
  EXPECT_EQ(c.props[8].value.literal.items[0].kind, Literal::Kind::kList);
  EXPECT_EQ(ParseError("query q() { match { $p: P { i: 18446744073709551616 } } return { 1 } }"),
            "parse error: test.gq:1:32: integer literal 18446744073709551616 is out of range");
  EXPECT_EQ(ParseError("query q() { match { $p: P { d: date(\"2024-02-30\") } } return { 1 } }"),
            "parse error: test.gq:1:37: invalid date literal \"2024-02-30\"");
  EXPECT_EQ(ParseError("query q() { match { $p: P { d: datetime(\"soon\") } } return { 1 } }"),
            "parse error: test.gq:1:41: invalid datetime literal \"soon\"");
  EXPECT_EQ(ParseError("query q() { match { $p: P { s: \"\\u0041\" } } return { 1 } }"),
            "parse error: test.gq:1:33: unsupported escape sequence: \\u");
  EXPECT_EQ(ParseError("query q() { match { $p: P { f: 1e5 } } return { 1 } }"),
            "parse error: test.gq:1:33: expected `,` or `}`, found `e5`");
  // Booleans are word-bounded, so `true_x` is no literal (and values cannot be identifiers).
  EXPECT_EQ(ParseError("query q() { match { $p: P { flag: true_x } } return { 1 } }"),
            "parse error: test.gq:1:35: expected literal, variable or now(), found `true_x`");
}

TEST(QueryParser, ReturnProjectionsWithOptionalCommas) {
  QueryFile f = MustParse(
      "query q() { match { $p: P } return {\n  $p.name as n,\n  $p.age\n  count($p) as c, now() literal_alias\n} }");
  const auto& r = f.queries[0].returns;
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(*r[0].alias, "n");
  EXPECT_FALSE(r[1].alias.has_value());
  EXPECT_EQ(r[2].expr.kind, Expr::Kind::kAggregate);
  EXPECT_EQ(r[3].expr.kind, Expr::Kind::kNow);
  EXPECT_EQ(r[4].expr.kind, Expr::Kind::kAliasRef);
  EXPECT_EQ(ParseError("query q() { match { $p: P } return { } }"),
            "parse error: test.gq:1:38: expected expression, found `}`");
}

TEST(QueryParser, OrderAndLimit) {
  QueryFile f = MustParse(
      "query q() { match { $d: D } return { $d.n as n } order { $d.n desc, n asc, $d.m } limit 10 }");
  const auto& o = f.queries[0].order;
  ASSERT_EQ(o.size(), 3u);
  EXPECT_TRUE(*o[0].descending);
  EXPECT_FALSE(*o[1].descending);
  EXPECT_FALSE(o[2].descending.has_value());
  EXPECT_EQ(*f.queries[0].limit, 10u);
  QueryFile n = MustParse(
      "query q($q: Vector(3)) { match { $d: D } return { $d.n } order { nearest($d.v, $q) } limit 3 }");
  EXPECT_TRUE(n.queries[0].order[0].is_nearest_form);
  EXPECT_EQ(n.queries[0].order[0].expr.kind, Expr::Kind::kNearest);
  EXPECT_EQ(ParseError("query q($q: Vector(3)) { match { $d: D } return { $d.n } order { nearest($d.v, $q) desc } "
                       "limit 3 }"),
            "parse error: test.gq:1:84: expected `,` or `}`, found `desc`");
  // bm25/rrf accept a direction (it has no effect).
  MustParse("query q($q: String) { match { $d: D } return { $d.n } order { bm25($d.t, $q) desc } }");
  EXPECT_EQ(ParseError("query q() { match { $d: D } return { $d.n } order { } }"),
            "parse error: test.gq:1:53: expected order key, found `}`");
}

TEST(QueryParser, SearchAndAggregateCalls) {
  Clause s = OneClause("search($d.title, $q)");
  EXPECT_EQ(s.kind, Clause::Kind::kTextSearch);
  EXPECT_EQ(s.left.kind, Expr::Kind::kSearch);
  Clause fz = OneClause("fuzzy($d.title, \"x\", 1)");
  EXPECT_EQ(fz.left.args.size(), 3u);
  EXPECT_EQ(OneClause("match_text($d.body, \"a b\")").left.kind, Expr::Kind::kMatchText);
  QueryFile f = MustParse(
      "query q($v: Vector(2), $t: String) { match { $d: D } return { sum($d.x), avg($d.x), min($d.x), max($d.x),"
      " rrf(nearest($d.v, $v), bm25($d.t, $t), 60) as s, bm25($d.t, $t) as b } order { rrf(nearest($d.v, $v),"
      " bm25($d.t, $t)) } limit 3 }");
  const auto& r = f.queries[0].returns;
  EXPECT_EQ(r[0].expr.agg, query::AggFunc::kSum);
  EXPECT_EQ(r[3].expr.agg, query::AggFunc::kMax);
  EXPECT_EQ(r[4].expr.kind, Expr::Kind::kRrf);
  EXPECT_EQ(r[4].expr.args.size(), 3u);
  EXPECT_EQ(f.queries[0].order[0].expr.args.size(), 2u);
  // rrf arms are nearest/bm25 only (grammar).
  EXPECT_NE(ParseError("query q($q: String) { match { $d: D } return { $d.n } order { rrf(bm25($d.t, $q), "
                       "search($d.t, $q)) } limit 3 }"),
            "");
}

TEST(QueryParser, Parameters) {
  QueryFile f = MustParse(
      "query q($a: String, $b: I32?, $c: [Date], $d: [String]?, $e: Vector(3), $f: Vector(2)?, $g: Blob, "
      "$h: DateTime, $i: [Blob], $j: Vector(0)) { match { $p: P } return { 1 } }");
  const auto& p = f.queries[0].params;
  ASSERT_EQ(p.size(), 10u);
  EXPECT_EQ(p[0].type.ToString(), "String");
  EXPECT_EQ(p[1].type.ToString(), "I32?");
  EXPECT_EQ(p[2].type.ToString(), "[Date]");
  EXPECT_EQ(p[3].type.ToString(), "[String]?");
  EXPECT_EQ(p[4].type.ToString(), "Vector(3)");
  EXPECT_EQ(p[5].type.ToString(), "Vector(2)?");
  EXPECT_EQ(p[6].type.ToString(), "Blob");
  EXPECT_EQ(p[7].type.ToString(), "DateTime");
  EXPECT_FALSE(p[8].type_supported);
  EXPECT_EQ(p[8].type_text, "[Blob]");
  EXPECT_FALSE(p[9].type_supported);
  EXPECT_EQ(ParseError("query q($a: Person) { match { $p: P } return { 1 } }"),
            "parse error: test.gq:1:13: expected `[`, type or `Vector`, found `Person`");
  EXPECT_EQ(ParseError("query q($a: enum(x)) { match { $p: P } return { 1 } }"),
            "parse error: test.gq:1:13: expected `[`, type or `Vector`, found `enum`");
}

TEST(QueryParser, Annotations) {
  QueryFile f = MustParse(
      "query q() @description(\"finds\") @instruction(\"use it\") { match { $p: P } return { 1 } }");
  EXPECT_EQ(*f.queries[0].description, "finds");
  EXPECT_EQ(*f.queries[0].instruction, "use it");
  EXPECT_EQ(ParseError("query q() @description(\"a\") @description(\"b\") { match { $p: P } return { 1 } }"),
            "parse error: test.gq:1:29: duplicate @description on query q");
  EXPECT_EQ(ParseError("query q() @instruction(\"a\") @instruction(\"b\") { insert P { n: 1 } }"),
            "parse error: test.gq:1:29: duplicate @instruction on query q");
}

TEST(QueryParser, MutationStatements) {
  QueryFile f = MustParse(
      "query m($name: String, $age: I32) {\n"
      "  insert Person { name: $name, age: $age, }\n"
      "  insert WorksAt { from: $name to: \"Acme\" }\n"
      "  update Person set { age: $age } where name = $name\n"
      "  delete Knows where from != $name\n"
      "}");
  const auto& m = f.queries[0].mutations;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].kind, query::MutationStmt::Kind::kInsert);
  EXPECT_EQ(m[0].assignments.size(), 2u);
  EXPECT_EQ(m[1].assignments[0].property, "from");
  EXPECT_EQ(m[2].kind, query::MutationStmt::Kind::kUpdate);
  EXPECT_EQ(m[2].where->property, "name");
  EXPECT_EQ(m[3].kind, query::MutationStmt::Kind::kDelete);
  EXPECT_EQ(m[3].where->op, query::CompareOp::kNe);
  EXPECT_EQ(ParseError("query m() { insert Person { } }"),
            "parse error: test.gq:1:29: expected property name, found `}`");
  EXPECT_EQ(ParseError("query m() { delete Person where name = \"a\" and age = 3 }"),
            "parse error: test.gq:1:44: expected `insert`, `update`, `delete` or `}`, found `and` (`and`/`or` are not "
            "part of this language: the clauses of a match block all hold at once, and a mutation's `where` is one "
            "comparison)");
  EXPECT_EQ(ParseError("query m() { delete Person where name contains \"a\" }"),
            "parse error: test.gq:1:38: expected comparison operator, found `contains`");
  EXPECT_EQ(ParseError("query m() { match { $p: P } return { 1 } insert P { n: 1 } }"),
            "parse error: test.gq:1:42: expected `order`, `limit` or `}`, found `insert`");
}

// Constructs of later upstream versions of the language are named in the
// error, with what this language offers instead.
TEST(QueryParser, LaterUpstreamConstructsAreNamed) {
  const std::string and_or =
      " (`and`/`or` are not part of this language: the clauses of a match block all hold at once, and a mutation's "
      "`where` is one comparison)";
  EXPECT_EQ(ParseError("query q() { match { $t: T $t.a = 1 or $t.b = 2 } return { $t.a } }"),
            "parse error: test.gq:1:39: expected comparison operator, found `$t`" + and_or);
  EXPECT_EQ(ParseError("query q() { match { $t: T $t.note is null } return { $t.a } }"),
            "parse error: test.gq:1:35: expected comparison operator, found `is` (`is null` is not part of this "
            "language)");
  EXPECT_EQ(ParseError("query q($ns: [String]) { match { $t: T $t.name in $ns } return { $t.a } }"),
            "parse error: test.gq:1:48: expected comparison operator, found `in` (`in` is not part of this "
            "language; test a list property with `contains`)");
  const std::string endpoints =
      " (`@src`, `@dst` and `@type` are not part of this language: an edge's endpoints are `src`/`dst` in schema "
      "constraints and `from`/`to` in mutation predicates)";
  EXPECT_EQ(ParseError("query m($n: String) { delete Link where @src = $n }"),
            "parse error: test.gq:1:41: expected property name, found `@src`" + endpoints);
  EXPECT_EQ(ParseError("query q() { match { $a: T $a link $b } return { $a.@type } }"),
            "parse error: test.gq:1:52: expected property name, found `@type`" + endpoints);
  // A word that merely looks like one is not given the hint, nor are these
  // words where they are names.
  EXPECT_EQ(ParseError("query q() { match { $t: T $t.a = 1 order } return { $t.a } }"),
            "parse error: test.gq:1:42: expected comparison operator, found `}`");
  EXPECT_EQ(ParseError("query q() { match { $t: T $t.or } return { $t.a } }"),
            "parse error: test.gq:1:33: expected comparison operator, found `}`");
  EXPECT_EQ(ParseError("query q() { match { $t: T { in 1 } } return { $t.a } }"),
            "parse error: test.gq:1:32: expected `:`, found `1`");
  EXPECT_EQ(ParseError("query m() { update T set { or \"z\" } where a = 1 }"),
            "parse error: test.gq:1:31: expected `:`, found `\"`");
  // Long words are cut.
  EXPECT_EQ(ParseError("query q() { match { $t: T " + std::string(100, 'x') + " } return { $t.a } }"),
            "parse error: test.gq:1:128: expected comparison operator, found `}`");
  EXPECT_EQ(ParseError("query q() { match { $t: T $t.a = 1 } return { $t.a } } " + std::string(100, 'x')),
            "parse error: test.gq:1:56: expected `query` or end of input, found `" + std::string(64, 'x') + "…`");
}

TEST(QueryParser, GluedKeywords) {
  // Keywords are plain string matches, as in the PEG grammar.
  QueryFile f = MustParse("queryq(){match{$p:Person}return{$p.name}limit5}");
  ASSERT_EQ(f.queries.size(), 1u);
  EXPECT_EQ(f.queries[0].name, "q");
  EXPECT_EQ(*f.queries[0].limit, 5u);
}

TEST(QueryParser, ExpressionSourceRendering) {
  QueryFile f = MustParse(
      "query q($v: Vector(2)) { match { $d: D } return { count($d), $d.x, nearest($d.v, $v), "
      "fuzzy_alias, \"s\", [1, 2], date(\"2024-01-01\") } }");
  const auto& r = f.queries[0].returns;
  EXPECT_EQ(r[0].expr.ToString(), "count($d)");
  EXPECT_EQ(r[1].expr.ToString(), "$d.x");
  EXPECT_EQ(r[2].expr.ToString(), "nearest($d.v, $v)");
  EXPECT_EQ(r[3].expr.ToString(), "fuzzy_alias");
  EXPECT_EQ(r[4].expr.ToString(), "\"s\"");
  EXPECT_EQ(r[5].expr.ToString(), "[1, 2]");
  EXPECT_EQ(r[6].expr.ToString(), "date(\"2024-01-01\")");
}

}  // namespace query_parser_test
}  // namespace omnigraph::compiler
