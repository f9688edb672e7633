// Type checking (spec/surface.md §2.3–§2.9, §3.1, §6.2, §9 items 4–10): every
// T-code with a minimal failing query and its exact message, the uncoded
// errors, precedence (first error wins), and the QUIRK decisions.
#include <gtest/gtest.h>

#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace typecheck_test {

using testing::MustCheck;
using testing::QueryError;
using testing::ReadQuery;
using testing::Social;

std::string Err(std::string_view match, std::string_view ret = "$p.name", std::string_view tail = "",
                std::string_view params = "") {
  return QueryError(Social(), ReadQuery(match, ret, tail, params));
}

std::string MutErr(std::string_view body, std::string_view params = "") {
  return QueryError(Social(), "query m(" + std::string(params) + ") {\n" + std::string(body) + "\n}");
}

// ---- T1–T3: bindings --------------------------------------------------------

TEST(TypecheckT1, UnknownNodeType) {
  EXPECT_EQ(Err("$p: Foo"), "type error: T1: unknown node type `Foo`");
  Catalog c = testing::MustCompile("interface Named { name: String }\nnode P implements Named { x: I32 }");
  EXPECT_EQ(QueryError(c, ReadQuery("$p: Named")), "type error: T1: unknown node type `Named`");
  EXPECT_EQ(Err("$p: Knows"), "type error: T1: unknown node type `Knows`");
}

TEST(TypecheckT2, UnknownInlineProperty) {
  EXPECT_EQ(Err("$p: Person { salary: 100 }"), "type error: T2: type `Person` has no property `salary`");
  EXPECT_EQ(Err("$p: Person { id: \"x\" }"), "type error: T2: type `Person` has no property `id`");
}

TEST(TypecheckT3, InlineLiteralTypes) {
  EXPECT_EQ(Err("$p: Person { age: \"old\" }"), "type error: T3: property `age` has type I32? but got String");
  EXPECT_EQ(Err("$p: Person { name: 5 }"), "type error: T3: property `name` has type String but got I64");
  EXPECT_EQ(Err("$p: Person { born: \"2024-01-01\" }"),
            "type error: T3: property `born` has type Date? but got String (write a Date as date(\"YYYY-MM-DD\"))");
  EXPECT_EQ(Err("$p: Person { seen: \"2024-01-01T00:00:00Z\" }"),
            "type error: T3: property `seen` has type DateTime? but got String (write a DateTime as "
            "datetime(\"...\"))");
  EXPECT_EQ(Err("$p: Person { born: datetime(\"2024-01-01T00:00:00Z\") }"),
            "type error: T3: property `born` has type Date? but got DateTime");
  EXPECT_EQ(Err("$p: Person { status: \"gone\" }"),
            "type error: T3: property `status` expects one of [active, retired], got 'gone'");
  EXPECT_EQ(Err("$p: Person { embedding: [1, 2] }"),
            "type error: T3: property `embedding` has type Vector(3) but got vector literal with 2 elements");
  EXPECT_EQ(Err("$p: Person { tags: [\"rust\"] }"),
            "type error: T3: list equality is not supported for property `tags`; use a scalar value to match list "
            "membership");
  EXPECT_EQ(Err("$p: Person { tags: 5 }"), "type error: T3: property `tags` has type [String]? but membership match got I64");
  EXPECT_EQ(Err("$p: Person { photo: \"base64:AA==\" }"),
            "type error: T3: blob property `Person.photo` cannot be used in match patterns");
  EXPECT_EQ(Err("$p: Person { name: $who }"), "type error: T3: match variable `$who` must be a declared query parameter");
  EXPECT_EQ(Err("$p: Person { name: \"a\", name: \"b\" }"), "");  // two equality filters, not an error
}

TEST(TypecheckT3, InlineValuesThatPass) {
  EXPECT_EQ(Err("$p: Person { tags: \"rust\", status: \"active\", age: 30, score: 1, born: date(\"2024-01-01\"),"
                " embedding: [1, 0.5, 2] }"),
            "");
  EXPECT_EQ(Err("$p: Person { tags: $t, age: $a, seen: now() }", "$p.name", "", "$t: String, $a: I64?"), "");
}

// §2.4: any two numeric kinds compare, by value. A number of another kind
// or width than the property is a filter that may match no row, never a
// type error: inline matches (scans, traversal destinations, negations,
// list membership), `where` comparisons and mutation predicates alike.
TEST(TypecheckNumeric, ComparisonsAcceptNumbersOfAnyKindAndWidth) {
  EXPECT_EQ(Err("$p: Person { age: 2.7 }"), "");
  EXPECT_EQ(Err("$p: Person { age: 2.0 }"), "");
  EXPECT_EQ(Err("$p: Person { age: 3000000000 }"), "");
  EXPECT_EQ(Err("$p: Person { age: 18446744073709551615 }"), "");
  EXPECT_EQ(Err("$p: Person { score: 9007199254740993, ratio: 16777217 }"), "");
  EXPECT_EQ(Err("$p: Person $p knows $f $f: Person { age: 2.7 }"), "");
  EXPECT_EQ(Err("$p: Person not { $p knows $f  $f: Person { age: 2.7 } }"), "");
  EXPECT_EQ(Err("$p: Person not { $p.age = 2.7 }"), "");
  EXPECT_EQ(Err("$p: Person $p.age < 3000000000 $p.age != 2.7 2.7 <= $p.age $p.ratio = 16777217"), "");
  EXPECT_EQ(Err("$p: Person $p $k:knows $f $f.age >= 2.5"), "");
  Catalog c = testing::MustCompile("node D { k: U32 @key nums: [I32]? }");
  EXPECT_EQ(QueryError(c, ReadQuery("$d: D { k: 2.5, nums: 2.5 }", "$d.k")), "");
  EXPECT_EQ(QueryError(c, ReadQuery("$d: D $d.nums contains 3000000000", "$d.k")), "");
  EXPECT_EQ(MutErr("delete Person where age = 2.7"), "");
  EXPECT_EQ(MutErr("update Person set { nick: \"x\" } where age > 3000000000"), "");
  EXPECT_EQ(MutErr("update Person set { nick: \"x\" } where score = 9007199254740993"), "");
  // Other kinds stay errors.
  EXPECT_EQ(Err("$p: Person { age: true }"), "type error: T3: property `age` has type I32? but got Bool");
  EXPECT_EQ(Err("$p: Person { name: 2.5 }"), "type error: T3: property `name` has type String but got F64");
  EXPECT_EQ(MutErr("delete Person where name = 2.5"), "type error: T3: property `name` has type String but got F64");
}

// §3.1: an assignment stores the value, so a literal must fit the property:
// an integral number converts, a fraction for an integer property is a T3
// (never truncated or rounded), and so is an integer out of range.
TEST(TypecheckT3, AssignedNumbersMustFitTheProperty) {
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: 2.5 }"),
            "type error: T3: property `age` has type I32? but got F64 literal 2.5, which is not a whole number; "
            "integer properties are never rounded");
  EXPECT_EQ(MutErr("update Person set { age: 0.5 } where name = \"a\""),
            "type error: T3: property `age` has type I32? but got F64 literal 0.5, which is not a whole number; "
            "integer properties are never rounded");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: 3000000000 }"),
            "type error: T3: property `age` has type I32? but literal 3000000000 is out of range");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: 3000000000.0 }"),
            "type error: T3: property `age` has type I32? but literal 3000000000.0 is out of range");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: 2.0, score: 2, ratio: 3 }"), "");
}

TEST(TypecheckT7, InlineParameterTypes) {
  EXPECT_EQ(Err("$p: Person { age: $n }", "$p.name", "", "$n: String"),
            "type error: T7: cannot assign/compare String with I32? for property `age`");
  EXPECT_EQ(Err("$p: Person { tags: $t }", "$p.name", "", "$t: [String]"),
            "type error: T7: list equality is not supported for property `tags`; use a scalar parameter for "
            "membership matching");
  EXPECT_EQ(Err("$p: Person { tags: $t }", "$p.name", "", "$t: I32"),
            "type error: T7: cannot compare I32 membership against [String]? for property `tags`");
  EXPECT_EQ(Err("$p: Person { born: now() }"), "type error: T7: cannot assign/compare DateTime with Date? for property `born`");
}

TEST(TypecheckBinding, RebindingRules) {
  EXPECT_EQ(Err("$p: Person $p: Person { age: 3 }"), "");
  EXPECT_EQ(Err("$p: Person $p: Company"),
            "type error: variable `$p` already bound to type `Person`, cannot rebind to `Company`");
  EXPECT_EQ(Err("$p: Person", "$p.name", "", "$p: String"),
            "type error: variable `$p` shadows the query parameter `$p`");
  // §2.4: `$_` is the anonymous endpoint, never bound; a binding cannot
  // declare it (traversals would ignore the binding's filters).
  EXPECT_EQ(Err("$_: Person { name: \"h\" } $_ knows $_", "$_.name"),
            "type error: `$_` is the anonymous endpoint and cannot be bound; give the binding a name");
}

// ---- T4, T5, T15, T22, T23: traversals ----------------------------------------

TEST(TypecheckT4, UnknownEdge) {
  EXPECT_EQ(Err("$p: Person $p likes $f"), "type error: T4: unknown edge type `likes`");
  EXPECT_EQ(Err("$p: Person $p kNOWS $f"), "");  // case-insensitive
  EXPECT_EQ(Err("$p: Person $p worksat $c"), "");
}

TEST(TypecheckT5, EndpointTypes) {
  EXPECT_EQ(Err("$c: Company $c knows $f", "$c.name"),
            "type error: T5: variable `$c` has type `Company`, which is not an endpoint of edge `Knows: Person -> "
            "Person`");
  EXPECT_EQ(Err("$f: Company $p knows $f", "$f.name"),
            "type error: T5: variable `$f` has type `Company`, which is not an endpoint of edge `Knows: Person -> "
            "Person`");
  EXPECT_EQ(Err("$p: Person $c: Person $p worksAt $c"),
            "type error: T5: variable `$c` has type `Person` but edge `WorksAt` expects `Company`");
  EXPECT_EQ(Err("$x worksAt $x", "$x.name"), "type error: T5: variable `$x` has type `Person` but edge `WorksAt` expects `Company`");
  // Direction from the bound destination: $c is a Company, so $p is a Person.
  EXPECT_EQ(Err("$c: Company $p worksAt $c $p.age > 3"), "");
  // Reverse: the source variable is bound to the edge's to-type.
  EXPECT_EQ(Err("$c: Company $c worksAt $p $p.age > 3"), "");
}

TEST(TypecheckT15, HopBounds) {
  EXPECT_EQ(Err("$p: Person $p knows{0,2} $f"), "type error: T15: traversal min hop bound must be >= 1");
  EXPECT_EQ(Err("$p: Person $p knows{3,1} $f"), "type error: T15: invalid traversal bounds {3,1}; max must be >= min");
  EXPECT_EQ(Err("$p: Person $p knows{1,} $f"),
            "type error: T15: unbounded traversal is disabled; use bounded traversal {min,max}");
  EXPECT_EQ(Err("$p: Person $p knows{0,} $f"), "type error: T15: traversal min hop bound must be >= 1");
  EXPECT_EQ(Err("$p: Person $p knows{2,5} $f"), "");
}

TEST(TypecheckT22, UndirectedNeedsSameEndpointTypes) {
  EXPECT_EQ(Err("$p: Person $p <worksAt> $c"),
            "type error: T22: undirected traversal `<WorksAt>` requires a same-endpoint-type edge, but `WorksAt: "
            "Person -> Company` is asymmetric; use the directional form");
  EXPECT_EQ(Err("$p: Person $p <knows>{1,2} $f not { $f <knows> $p }"), "");
}

TEST(TypecheckT23, EdgeBindingMisuse) {
  EXPECT_EQ(Err("$p: Person $p $w:knows{1,3} $f"),
            "type error: T23: edge binding `$w` cannot be combined with traversal bounds; a multi-hop traversal "
            "matches a path of edges, not one edge");
  EXPECT_EQ(Err("$p: Person $p $p:knows $f"),
            "type error: T23: edge binding `$p` cannot reuse a traversal endpoint name; edge bindings and node "
            "endpoints need distinct names");
  EXPECT_EQ(Err("$p: Person $g: Person $p $g:knows $f"),
            "type error: T23: variable `$g` is already a node binding; an edge binding needs a fresh name");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f $f $w:knows $g"),
            "type error: T23: variable `$w` is already an edge binding; an edge binding needs a fresh name");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f", "$w"),
            "type error: T23: edge binding `$w` cannot be used bare; access its properties as `$w.<property>`");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f $w knows $g"),
            "type error: T23: edge binding `$w` cannot be used as a traversal endpoint; traversal endpoints must be "
            "node bindings");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f $w: Person"),
            "type error: T23: variable `$w` is already an edge binding; it cannot be rebound as a node");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f search($w.note, \"x\")"),
            "type error: T23: search cannot target edge binding `$w`; search functions only target node properties");
  EXPECT_EQ(Err("$p: Person $p $w:worksAt $c", "$c.name", "order { nearest($w.title, \"x\") } limit 5"),
            "type error: T23: nearest cannot target edge binding `$w`; search functions only target node properties");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f", "$f.name", "order { bm25($w.note, \"x\") }"),
            "type error: T23: bm25 cannot target edge binding `$w`; search functions only target node properties");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f", "$p.name", "", "$w: String"),
            "type error: T23: variable `$w` is already a query parameter; an edge binding needs a fresh name");
  // Edge properties are usable in filters, projections, order and aggregates.
  EXPECT_EQ(Err("$p: Person $p $w:knows $f $w.since >= date(\"2026-01-01\")", "$f.name, $w.since, count($w.note)"),
            "");
  EXPECT_EQ(Err("$p: Person $p $w:<knows>{1,1} $f", "$w.note"), "");
  EXPECT_EQ(Err("$p: Person $p $w:knows $f", "$w.nonsense"), "type error: T6: type `Knows` has no property `nonsense`");
}

// ---- T6, T7, T19, T20, T24: filters -------------------------------------------

TEST(TypecheckT6, PropertyAccess) {
  EXPECT_EQ(Err("$p: Person $p.salary > 100"), "type error: T6: type `Person` has no property `salary`");
  EXPECT_EQ(Err("$p: Person $x.name = \"a\""), "type error: T6: variable `$x` is not bound");
  EXPECT_EQ(Err("$p: Person", "$q.name"), "type error: T6: variable `$q` is not bound");
  EXPECT_EQ(Err("$p: Person $p.id = \"a\""), "type error: T6: type `Person` has no property `id`");
  // A name as long as the source is quoted shortened.
  const std::string huge(5000, 'z');
  EXPECT_EQ(Err("$p: Person", "$p." + huge),
            "type error: T6: type `Person` has no property `" + huge.substr(0, 120) + "… (5000 bytes)`");
}

TEST(TypecheckT7, FilterComparisons) {
  EXPECT_EQ(Err("$p: Person $p.age > \"old\""), "type error: T7: cannot compare I32? with String");
  EXPECT_EQ(Err("$p: Person $p.born > \"2024-01-01\""), "type error: T7: cannot compare Date? with String");
  EXPECT_EQ(Err("$p: Person $p.seen > date(\"2024-01-01\")"), "type error: T7: cannot compare DateTime? with Date");
  EXPECT_EQ(Err("$p: Person $p.tags = \"a\""),
            "type error: T7: list comparisons in filters are not supported; use `contains` for list membership");
  EXPECT_EQ(Err("$p: Person $p.embedding = $v", "$p.name", "", "$v: Vector(3)"),
            "type error: T7: vector comparisons in filters are not supported");
  EXPECT_EQ(Err("$p: Person $p.embedding = [1.0, 0.0, 0.0]"),
            "type error: T7: vector comparisons in filters are not supported");
  EXPECT_EQ(Err("$p: Person $a = $b", "$p.name", "", "$a: Blob, $b: Blob"),
            "type error: T7: blob comparisons in filters are not supported");
  EXPECT_EQ(Err("$p: Person $p != 5"), "type error: T7: filter comparisons require scalar operands, got node `Person`");
  EXPECT_EQ(Err("$p: Person $p.name = $p.status"), "");  // String and enum compare
  EXPECT_EQ(Err("$p: Person $p.age < $p.score $p.ratio >= 1 $p.score != 2.5"), "");  // numerics mix
  EXPECT_EQ(Err("$p: Person $p.seen <= now() $p.born = date(\"2024-01-01\")"), "");
  EXPECT_EQ(Err("$p: Person $p.name = $n", "$p.name", "", "$n: I32"), "type error: T7: cannot compare String with I32");
  EXPECT_EQ(Err("$p: Person count($p) > 1"), "type error: T7: aggregate `count($p)` can only be used in return");
  EXPECT_EQ(Err("$p: Person bm25($p.name, \"x\") > 1"), "type error: T7: `bm25($p.name, \"x\")` cannot be used in a match filter");
}

TEST(TypecheckT7, ContainsAndStartsWith) {
  EXPECT_EQ(Err("$p: Person $p.tags contains \"x\" $p.name contains \"Al\" \"a haystack\" contains $p.name"), "");
  EXPECT_EQ(Err("$p: Person $p.tags contains $t", "$p.name", "", "$t: String"), "");
  EXPECT_EQ(Err("$p: Person $p.age contains 3"),
            "type error: T7: contains requires a list property (membership) or a String property (substring) on the "
            "left, got I32?");
  EXPECT_EQ(Err("$p: Person $p.name contains 42"), "type error: T7: string contains requires a String right operand, got I64");
  EXPECT_EQ(Err("$p: Person $p.tags contains [\"a\"]"), "type error: T7: contains requires a scalar right operand");
  EXPECT_EQ(Err("$p: Person $p.tags contains 5"), "type error: T7: cannot test membership of I64 in [String]?");
  EXPECT_EQ(Err("$p: Person $p.name starts_with \"A\" $p.status starts_with $q", "$p.name", "", "$q: String"), "");
  EXPECT_EQ(Err("$p: Person $p.age starts_with \"4\""),
            "type error: T7: starts_with requires a String property on the left, got I32?");
  EXPECT_EQ(Err("$p: Person $p.name starts_with 4"), "type error: T7: starts_with requires a String right operand, got I64");
}

TEST(TypecheckT19T20, TextSearchArguments) {
  EXPECT_EQ(Err("$p: Person search($p.name, $q) fuzzy($p.nick, \"x\") fuzzy($p.name, $q, 1) match_text($p.name, $q)",
                "$p.name", "", "$q: String"),
            "");
  EXPECT_EQ(Err("$p: Person search($p.age, \"x\")"), "type error: T19: search field must be String, got I32?");
  EXPECT_EQ(Err("$p: Person search($p.name, 5)"), "type error: T19: search query must be String, got I64");
  EXPECT_EQ(Err("$p: Person search(\"text\", \"x\")"),
            "type error: T19: search field must be a String property of a node binding");
  EXPECT_EQ(Err("$p: Person fuzzy($p.tags, \"x\")"), "type error: T19: fuzzy field must be String, got [String]?");
  EXPECT_EQ(Err("$p: Person fuzzy($p.name, \"x\", $m)", "$p.name", "", "$m: F64"),
            "type error: T19: fuzzy max_edits must be an integer scalar, got F64");
  EXPECT_EQ(Err("$p: Person fuzzy($p.name, \"x\", 1.5)"), "type error: T19: fuzzy max_edits must be an integer scalar, got F64");
  EXPECT_EQ(Err("$p: Person match_text($p.age, \"x\")"), "type error: T20: match_text field must be String, got I32?");
  EXPECT_EQ(Err("$p: Person match_text($p.name, $p)"),
            "type error: T20: match_text query must be a scalar String expression");
  EXPECT_EQ(Err("$p: Person", "bm25($p.name, $q) as s", "", "$q: I64"), "type error: T20: bm25 query must be String, got I64");
  EXPECT_EQ(Err("$p: Person", "bm25($p.born, \"x\") as s"), "type error: T20: bm25 field must be String, got Date?");
}

TEST(TypecheckT24, BlobReadValues) {
  const std::string msg = "type error: T24: Blob property `$p.photo` is not available as a .gq read value; Blob values "
                          "require a dedicated API";
  EXPECT_EQ(Err("$p: Person", "$p.photo"), msg);
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { $p.photo }"), msg);
  EXPECT_EQ(Err("$p: Person", "count($p.photo)"), msg);
  EXPECT_EQ(Err("$p: Person", "max($p.photo)"), msg);
  EXPECT_EQ(Err("$p: Person $p.photo = $b", "$p.name", "", "$b: Blob"), msg);
  EXPECT_EQ(Err("$p: Person $p $w:knows $f", "$w.payload"),
            "type error: T24: Blob property `$w.payload` is not available as a .gq read value; Blob values require a "
            "dedicated API");
  const std::string param = "type error: T24: Blob parameter `$b` is not available as a .gq read value; Blob values "
                            "require a dedicated API";
  EXPECT_EQ(Err("$p: Person", "$b", "", "$b: Blob"), param);
  EXPECT_EQ(Err("$p: Person", "$b as copy", "", "$b: Blob"), param);
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { $b }", "$b: Blob"), param);
  EXPECT_EQ(Err("$p: Person", "count($b)", "", "$b: Blob"), param);
}

// ---- T8, T9: aggregates and negation ------------------------------------------

TEST(TypecheckT8, AggregateArguments) {
  EXPECT_EQ(Err("$p: Person", "sum($p.name) as s"), "type error: T8: sum requires numeric type, got String");
  EXPECT_EQ(Err("$p: Person", "avg($p.tags) as s"), "type error: T8: avg requires numeric type, got [String]?");
  EXPECT_EQ(Err("$p: Person", "avg($p) as s"), "type error: T8: avg requires numeric type, got node `Person`");
  EXPECT_EQ(Err("$p: Person", "min($p.born) as s"), "type error: T8: min requires a numeric or String type, got Date?");
  EXPECT_EQ(Err("$p: Person", "max($p) as s"), "type error: T8: max requires a numeric or String type, got node `Person`");
  EXPECT_EQ(Err("$p: Person", "count(count($p)) as s"), "type error: T8: aggregate functions cannot be nested: `count(count($p))`");
  EXPECT_EQ(Err("$p: Person", "min($p.name) as a, max($p.status) as b, sum($p.ratio) as c, count($p.tags) as d"), "");
}

TEST(TypecheckT9, NegationNeedsAnOuterVariable) {
  EXPECT_EQ(Err("$p: Person not { $c: Company }"),
            "type error: T9: negation block must reference at least one outer-bound variable");
  EXPECT_EQ(Err("$p: Person not { $x worksAt $c }"),
            "type error: T9: negation block must reference at least one outer-bound variable");
  EXPECT_EQ(Err("$p: Person not { $p worksAt $_ }"), "");
  EXPECT_EQ(Err("$p: Person not { $c: Company { name: \"Acme\" } $p worksAt $c }"), "");
  EXPECT_EQ(Err("$p: Person not { $f: Person $f.age > $p.age }"), "");
  EXPECT_EQ(Err("$p: Person not { $x: Person not { $x knows $p } }"), "");  // nested reference counts
  // Inner variables are local to the block.
  EXPECT_EQ(Err("$p: Person not { $p knows $f }", "$f.name"), "type error: T6: variable `$f` is not bound");
  // Inner errors come before T9.
  EXPECT_EQ(Err("$p: Person not { $c: Nope }"), "type error: T1: unknown node type `Nope`");
}

TEST(TypecheckT9, AggregateGrouping) {
  EXPECT_EQ(Err("$p: Person", "$p.name, count($p) as n"), "");
  EXPECT_EQ(Err("$p: Person", "$p, $p.age, $x, count($p) as n", "", "$x: String"), "");
  EXPECT_EQ(Err("$p: Person", "\"k\", count($p) as n"),
            "type error: T9: non-aggregate expressions in an aggregate query must be property accesses or variables");
  EXPECT_EQ(Err("$p: Person", "now(), count($p) as n"),
            "type error: T9: non-aggregate expressions in an aggregate query must be property accesses or variables");
}

// ---- T10–T14, T16: mutations --------------------------------------------------

TEST(TypecheckT10, UnknownMutationTarget) {
  EXPECT_EQ(MutErr("insert Foo { name: \"x\" }"), "type error: T10: unknown node/edge type `Foo`");
  EXPECT_EQ(MutErr("update Foo set { name: \"x\" } where name = \"y\""), "type error: T10: unknown node/edge type `Foo`");
  EXPECT_EQ(MutErr("delete Foo where name = \"y\""), "type error: T10: unknown node/edge type `Foo`");
  // The second statement's error is reported.
  EXPECT_EQ(MutErr("insert Person { name: $n }\ninsert Unknown { foo: $n }", "$n: String"),
            "type error: T10: unknown node/edge type `Unknown`");
}

TEST(TypecheckT11, UnknownMutationProperty) {
  EXPECT_EQ(MutErr("insert Person { name: \"a\", salary: 1 }"), "type error: T11: type `Person` has no property `salary`");
  EXPECT_EQ(MutErr("update Person set { salary: 1 } where name = \"a\""),
            "type error: T11: type `Person` has no property `salary`");
  EXPECT_EQ(MutErr("delete Person where salary = 1"), "type error: T11: type `Person` has no property `salary`");
  EXPECT_EQ(MutErr("delete Person where photo = \"x\""),
            "type error: T11: blob property `photo` cannot be used in WHERE predicates");
  EXPECT_EQ(MutErr("delete Knows where payload = $b", "$b: Blob"),
            "type error: T11: blob property `payload` cannot be used in WHERE predicates");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", id: \"x\" }"), "type error: T11: type `Person` has no property `id`");
  EXPECT_EQ(MutErr("delete Person where from = \"a\""), "type error: T11: type `Person` has no property `from`");
}

TEST(TypecheckT12, RequiredProperties) {
  EXPECT_EQ(MutErr("insert Person { age: 3 }"), "type error: T12: insert for `Person` must provide non-nullable property `name`");
  EXPECT_EQ(MutErr("insert Knows { to: \"b\" }"), "type error: T12: insert for `Knows` must provide required endpoint `from`");
  EXPECT_EQ(MutErr("insert Knows { from: \"a\" }"), "type error: T12: insert for `Knows` must provide required endpoint `to`");
  Catalog c = testing::MustCompile(
      "node A { n: String }\nedge E: A -> A { w: I32 }\n"
      "node Doc { slug: String body: String? embedding: Vector(3) @embed(body) }");
  EXPECT_EQ(QueryError(c, "query m() { insert E { from: \"a\", to: \"b\" } }"),
            "type error: T12: insert for `E` must provide non-nullable property `w`");
  EXPECT_EQ(QueryError(c, "query m() { insert Doc { slug: \"s\" } }"),
            "type error: T12: insert for `Doc` must provide non-nullable property `embedding` or @embed source `body`");
  // [QUIRK] the @embed target may be omitted when its source is assigned;
  // the IR lists it so the executor computes it (or fails at run time).
  ir::QueryIR q = MustCheck(c, "query m() { insert Doc { slug: \"s\", body: \"text\" } }");
  EXPECT_EQ(q.statements[0].pending_embeddings, std::vector<std::string>{"embedding"});
}

TEST(TypecheckT13, DuplicateAssignment) {
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: 1, age: 2 }"), "type error: T13: duplicate assignment for property `age`");
  EXPECT_EQ(MutErr("update Person set { age: 1 age: 2 } where name = \"a\""),
            "type error: T13: duplicate assignment for property `age`");
  // T13 is checked before the target type is resolved (as upstream).
  EXPECT_EQ(MutErr("insert Nope { a: 1, a: 2 }"), "type error: T13: duplicate assignment for property `a`");
}

TEST(TypecheckT14, UndeclaredMutationParameter) {
  EXPECT_EQ(MutErr("insert Person { name: $name }"),
            "type error: T14: mutation variable `$name` must be a declared query parameter");
  EXPECT_EQ(MutErr("delete Person where name = $who"),
            "type error: T14: mutation variable `$who` must be a declared query parameter");
}

TEST(TypecheckT3T7, MutationValues) {
  EXPECT_EQ(MutErr("insert Person { name: 5 }"), "type error: T3: property `name` has type String but got I64");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", status: \"x\" }"),
            "type error: T3: property `status` expects one of [active, retired], got 'x'");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", tags: [\"x\", 1] }"),
            "type error: list literal elements must share a compatible scalar type");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", tags: [[\"x\"]] }"), "type error: nested list literals are not supported");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", tags: [1] }"), "type error: T3: property `tags` has type [String]? but got [I64]");
  // A numeric list literal has the type of its widest element.
  EXPECT_EQ(MutErr("insert Person { name: \"a\", tags: [1, 2.5] }"),
            "type error: T3: property `tags` has type [String]? but got [F64]");
  EXPECT_EQ(MutErr("insert Person { name: $n }", "$n: I64"),
            "type error: T7: cannot assign/compare I64 with String for property `name`");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", born: now() }"),
            "type error: T7: cannot assign/compare DateTime with Date? for property `born`");
  EXPECT_EQ(MutErr("insert Knows { from: 1, to: \"b\" }"), "type error: T3: property `from` has type String but got I64");
  EXPECT_EQ(MutErr("insert Knows { from: $a, to: \"b\" }", "$a: I64"),
            "type error: T7: cannot assign/compare I64 with String for property `from`");
  EXPECT_EQ(MutErr("delete Person where age > \"x\""), "type error: T3: property `age` has type I32? but got String");
  // Numeric parameters are inter-compatible; a String parameter may fill a Blob.
  EXPECT_EQ(MutErr("insert Person { name: \"a\", age: $x, score: $y, photo: $s, seen: now() }", "$x: I64, $y: I32, $s: String"), "");
  EXPECT_EQ(MutErr("insert Person { name: \"a\", photo: $b }", "$b: Blob"), "");
  EXPECT_EQ(MutErr("update Person set { name: $s } where name = \"x\"", "$s: Blob"),
            "type error: T7: cannot assign/compare Blob with String for property `name`");
}

TEST(TypecheckT16, UpdateOnEdge) {
  EXPECT_EQ(MutErr("update Knows set { note: \"x\" } where from = \"a\""),
            "type error: T16: update mutation for edge type `Knows` is not supported");
}

TEST(TypecheckMutation, KeyPropertiesCannotBeUpdated) {
  Result<ir::QueryIR> r = CompileQuery(Social(), "query m() { update Person set { name: \"b\" } where name = \"a\" }",
                                       "m.gq", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "cannot update @key property 'name' — delete and re-insert instead");
  EXPECT_EQ(r.status().details().at("code"), "key_update");
  // It points at the assignment, as type errors do.
  EXPECT_EQ(r.status().details().at("line"), "1");
  EXPECT_EQ(r.status().details().at("column"), "33");
}

TEST(TypecheckMutation, ConstructiveOrDestructiveNeverBoth) {
  Result<ir::QueryIR> r = CompileQuery(
      Social(), "query mixed($n: String) { insert Person { name: $n } delete Person where name = $n }", "m.gq", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "mutation 'mixed' on the same query mixes inserts/updates and deletes; split into separate mutations: (1) "
            "inserts and updates, then (2) deletes. A query is deliberately constructive or destructive, not both, so "
            "its read-your-writes stays unambiguous; run the two on a branch and merge if you need them in one atomic "
            "commit.");
  EXPECT_EQ(r.status().details().at("code"), "mutation_mix");
  EXPECT_EQ(MutErr("update Person set { age: 1 } where name = \"a\"\ndelete Knows where from = \"a\""),
            r.status().message().substr(0, 0) + "mutation 'm' on the same query mixes inserts/updates and deletes; split "
            "into separate mutations: (1) inserts and updates, then (2) deletes. A query is deliberately constructive or "
            "destructive, not both, so its read-your-writes stays unambiguous; run the two on a branch and merge if you "
            "need them in one atomic commit.");
  EXPECT_EQ(MutErr("insert Person { name: \"a\" }\nupdate Person set { age: 1 } where name = \"a\""), "");
  EXPECT_EQ(MutErr("delete Person where name = \"a\"\ndelete Knows where from = \"a\""), "");
  // Type errors win over the D2 rule; the rule can be relaxed.
  EXPECT_EQ(MutErr("insert Person { name: 1 }\ndelete Person where name = \"a\""),
            "type error: T3: property `name` has type String but got I64");
  CompileOptions relaxed;
  relaxed.enforce_d2 = false;
  EXPECT_TRUE(CompileQuery(Social(), "query m() { insert Person { name: \"a\" } delete Person where name = \"a\" }",
                           "m.gq", "", relaxed)
                  .ok());
}

// ---- T15, T17, T18, T21: search ordering ---------------------------------------

TEST(TypecheckT15, NearestMisuse) {
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $q) } limit 3", "$q: Vector(3)"), "");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $q) } limit 3", "$q: String"), "");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, [0.1, 0.2, 3]) } limit 3"), "");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, \"text\") } limit 3"), "");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($x.embedding, $q) } limit 3", "$q: Vector(3)"),
            "type error: T15: variable `$x` is not bound");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.nothing, $q) } limit 3", "$q: Vector(3)"),
            "type error: T15: type `Person` has no property `nothing`");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.name, $q) } limit 3", "$q: Vector(3)"),
            "type error: T15: nearest requires a Vector property, got Person.name: String");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $q) } limit 3", "$q: Vector(2)"),
            "type error: T15: nearest vector dimension mismatch: property is Vector(3), query is Vector(2)");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, [1, 2]) } limit 3"),
            "type error: T15: nearest vector dimension mismatch: property is Vector(3), query literal has 2 elements");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $q) } limit 3", "$q: I64"),
            "type error: T15: nearest query must be Vector(3) or String, got I64");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $p) } limit 3"),
            "type error: T15: nearest query must be a scalar expression");
}

TEST(TypecheckT17T18T21, LimitRules) {
  const char* params = "$v: Vector(3), $t: String";
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { nearest($p.embedding, $v) }", params),
            "type error: T17: nearest ordering requires a limit clause");
  EXPECT_EQ(Err("$p: Person", "$p.name as n", "order { nearest($p.embedding, $v), n } limit 3", params),
            "type error: T18: alias-based ordering is not supported together with nearest in phase 1");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { rrf(nearest($p.embedding, $v), bm25($p.name, $t), 60) desc }", params),
            "type error: T21: rrf ordering requires a limit clause");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { rrf(bm25($p.nick, $t), bm25($p.name, $t), 0) } limit 3", params),
            "type error: T21: rrf k must be greater than 0");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { rrf(bm25($p.nick, $t), bm25($p.name, $t), 1.5) } limit 3", params),
            "type error: T21: rrf k must be an integer scalar, got F64");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { rrf(bm25($p.nick, $t), bm25($p.name, $t), $k) } limit 3",
                "$t: String, $k: I32"),
            "");
  // rrf with nearest inside needs only the rrf limit; an alias of an rrf
  // projection counts as rrf ordering.
  EXPECT_EQ(Err("$p: Person", "$p.name, rrf(nearest($p.embedding, $v), bm25($p.name, $t)) as s",
                "order { rrf(nearest($p.embedding, $v), bm25($p.name, $t)) desc, s desc } limit 5", params),
            "");
  EXPECT_EQ(Err("$p: Person", "$p.name, rrf(nearest($p.embedding, $v), bm25($p.name, $t)) as s", "order { s desc }",
                params),
            "type error: T21: rrf ordering requires a limit clause");
  // bm25 needs no limit.
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { bm25($p.name, $t) }", params), "");
}

// ---- uncoded errors -------------------------------------------------------------

TEST(TypecheckUncoded, Parameters) {
  EXPECT_EQ(Err("$p: Person", "$p.name", "", "$__nanograph_now: DateTime"),
            "type error: parameter name `$__nanograph_now` is reserved for runtime timestamp injection");
  EXPECT_EQ(Err("$p: Person", "$p.name", "", "$x: [Blob]"), "type error: unknown parameter type `[Blob]` for `$x`");
  EXPECT_EQ(Err("$p: Person", "$p.name", "", "$x: Vector(0)"), "type error: unknown parameter type `Vector(0)` for `$x`");
  EXPECT_EQ(Err("$p: Person", "$p.name", "", "$x: I32, $x: String"), "type error: duplicate parameter `$x`");
}

TEST(TypecheckUncoded, VariablesLiteralsAndAliases) {
  EXPECT_EQ(Err("$p: Person", "$zz"), "type error: variable `$zz` is not bound");
  EXPECT_EQ(Err("$p: Person $p.name = [[\"a\"]]"), "type error: nested list literals are not supported");
  EXPECT_EQ(Err("$p: Person $p.tags contains [1, \"a\"]"), "type error: list literal elements must share a compatible scalar type");
  EXPECT_EQ(Err("$p: Person $p.age = null"),
            "type error: `null` is not a variable or parameter (variables start with `$`); return aliases can only be "
            "referenced in order");
  // §2.5: a return alias may be referenced by a later projection; a second
  // column of the same name is still refused.
  EXPECT_EQ(Err("$p: Person", "$p.name as n, n as m"), "");
  EXPECT_EQ(Err("$p: Person", "$p.name as n, n"),
            "type error: result column `n` is produced by more than one projection; give each projection its own alias");
  EXPECT_EQ(Err("$p: Person", "m as n, $p.name as m"),
            "type error: `m` is not a variable or parameter (variables start with `$`); return aliases can only be "
            "referenced in order");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { missing }"), "type error: order key `missing` is not a return alias");
  EXPECT_EQ(Err("$p: Person", "$p.name, $p.name"),
            "type error: result column `p.name` is produced by more than one projection; give each projection its own "
            "alias");
  EXPECT_EQ(Err("$p: Person", "$p.name, $p.name as other"), "");
  EXPECT_EQ(Err("$p: Person", "search($p.name, \"x\") as hit"),
            "type error: `search` is a match clause; it cannot be used as a value");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { $p.name, bm25($p.name, \"x\") }"),
            "type error: search ordering `bm25($p.name, \"x\")` must be the first order key");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { 5 }"),
            "type error: unsupported ordering expression `5`; order by a property access or a return alias");
  EXPECT_EQ(Err("$p: Person", "$p.name, count($p) as n", "order { $p.age }"),
            "type error: order key `$p.age` must be a grouped return value in an aggregate query");
}

// ---- precedence (§2.9) -----------------------------------------------------------

TEST(TypecheckPrecedence, FirstErrorWins) {
  // Parameters before match clauses.
  EXPECT_EQ(Err("$p: Foo", "$p.name", "", "$__nanograph_now: DateTime"),
            "type error: parameter name `$__nanograph_now` is reserved for runtime timestamp injection");
  // Match clauses in source order.
  EXPECT_EQ(Err("$p: Foo $p likes $f"), "type error: T1: unknown node type `Foo`");
  EXPECT_EQ(Err("$p: Person $p likes $f $q: Foo"), "type error: T4: unknown edge type `likes`");
  // Within a traversal: T4, T15, T22, T23, T5.
  EXPECT_EQ(Err("$c: Company $c <knowz>{0,1} $f"), "type error: T4: unknown edge type `knowz`");
  EXPECT_EQ(Err("$c: Company $c <worksAt>{0,1} $f"), "type error: T15: traversal min hop bound must be >= 1");
  EXPECT_EQ(Err("$c: Company $c $w:<worksAt>{1,2} $f"),
            "type error: T22: undirected traversal `<WorksAt>` requires a same-endpoint-type edge, but `WorksAt: "
            "Person -> Company` is asymmetric; use the directional form");
  EXPECT_EQ(Err("$c: Company $c $w:knows{1,2} $f", "$c.name"),
            "type error: T23: edge binding `$w` cannot be combined with traversal bounds; a multi-hop traversal "
            "matches a path of edges, not one edge");
  // Match before return; return before order; order before limit rules.
  EXPECT_EQ(Err("$p: Person $p.x = 1", "$p.photo"), "type error: T6: type `Person` has no property `x`");
  EXPECT_EQ(Err("$p: Person", "$p.photo", "order { $p.nothing }"),
            "type error: T24: Blob property `$p.photo` is not available as a .gq read value; Blob values require a "
            "dedicated API");
  EXPECT_EQ(Err("$p: Person", "$p.name", "order { $p.nothing, nearest($p.embedding, $v) }", "$v: Vector(3)"),
            "type error: T6: type `Person` has no property `nothing`");
  // T21 before T17, T17 before T18, limit rules before grouping.
  EXPECT_EQ(Err("$p: Person", "$p.name as n",
                "order { rrf(nearest($p.embedding, $v), bm25($p.name, $t)), nearest($p.embedding, $v), n }",
                "$v: Vector(3), $t: String"),
            "type error: T21: rrf ordering requires a limit clause");
  EXPECT_EQ(Err("$p: Person", "$p.name as n", "order { nearest($p.embedding, $v), n }", "$v: Vector(3)"),
            "type error: T17: nearest ordering requires a limit clause");
  EXPECT_EQ(Err("$p: Person", "1, count($p) as c", "order { nearest($p.embedding, $v) }", "$v: Vector(3)"),
            "type error: T17: nearest ordering requires a limit clause");
  // Grouping (T9) before the later-search-key rule.
  EXPECT_EQ(Err("$p: Person", "1, count($p) as c", "order { c, bm25($p.name, \"x\") }"),
            "type error: T9: non-aggregate expressions in an aggregate query must be property accesses or variables");
}

TEST(TypecheckErrors, DetailsCarryCodeQueryAndLocation) {
  Result<ir::QueryIR> r = CompileQuery(Social(), "query find() {\n  match {\n    $p: Foo\n  }\n  return { 1 }\n}", "f.gq", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().details().at("code"), "T1");
  EXPECT_EQ(r.status().details().at("query"), "find");
  EXPECT_EQ(r.status().details().at("line"), "3");
  EXPECT_EQ(r.status().details().at("column"), "5");
}

TEST(TypecheckCompile, QuerySelection) {
  const char* two = "query a() { match { $p: Person } return { $p.name } }\nquery b() { match { $p: Person } return { $p.age } }";
  EXPECT_EQ(CompileQuery(Social(), two, "t.gq", "").status().message(),
            "query file contains multiple queries; pass --name");
  EXPECT_EQ(CompileQuery(Social(), two, "t.gq", "c").status().message(), "query 'c' not found");
  EXPECT_EQ(CompileQuery(Social(), two, "t.gq", "c").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(CompileQuery(Social(), "", "t.gq", "").status().message(), "query file contains no queries");
  ASSERT_TRUE(CompileQuery(Social(), two, "t.gq", "b").ok());
  EXPECT_EQ(CompileQuery(Social(), two, "t.gq", "b")->name, "b");
  Result<std::vector<ir::QueryIR>> all = CompileQueries(Social(), two, "t.gq");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

}  // namespace typecheck_test
}  // namespace omnigraph::compiler
