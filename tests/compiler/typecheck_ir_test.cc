// The typed IR an executor runs (query_ir.h): planned match steps, resolved
// traversals, converted literals, projections with runtime column names,
// order keys, mutations, access sets — and the QUIRK decisions of
// architecture.md §3.7.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace typecheck_ir_test {

using testing::MustCheck;
using testing::Plan;
using testing::ReadQuery;
using testing::Social;

std::string ReadPlan(std::string_view match, std::string_view ret = "$p.name", std::string_view tail = "",
                     std::string_view params = "") {
  return Plan(Social(), ReadQuery(match, ret, tail, params));
}

const ir::MatchStep& Step(const ir::QueryIR& q, size_t i) { return q.read.steps.at(i); }

TEST(TypecheckIr, ScanWithInlineFiltersConvertedToPropertyTypes) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person { name: \"Alice\", age: 30, score: 2, ratio: 0.1, "
                                                "tags: \"x\", status: \"active\", born: date(\"2024-01-01\") }"));
  ASSERT_EQ(q.read.steps.size(), 1u);
  const ir::NodeScan& s = Step(q, 0).scan;
  EXPECT_EQ(Step(q, 0).kind, ir::MatchStep::Kind::kScan);
  EXPECT_EQ(s.variable, "p");
  EXPECT_EQ(s.type_name, "Person");
  EXPECT_FALSE(s.implicit);
  ASSERT_EQ(s.filters.size(), 7u);
  EXPECT_EQ(s.filters[0].value.literal, Scalar::String("Alice"));
  EXPECT_TRUE(s.filters[1].value.literal.is_int());
  EXPECT_EQ(s.filters[1].value.literal.int_value(), 30);
  EXPECT_EQ(s.filters[1].value.type.ToString(), "I32");
  // [QUIRK] an integer literal for a float property converts (upstream fails at run time).
  EXPECT_TRUE(s.filters[2].value.literal.is_double());
  EXPECT_EQ(s.filters[2].value.literal.double_value(), 2.0);
  EXPECT_EQ(s.filters[3].value.literal.double_value(), static_cast<double>(0.1f));  // F32 width
  EXPECT_TRUE(s.filters[4].membership);
  EXPECT_EQ(s.filters[4].value.type.ToString(), "String");
  EXPECT_EQ(s.filters[5].value.literal, Scalar::String("active"));
  EXPECT_EQ(s.filters[6].value.literal.int_value(), 19723);
  EXPECT_FALSE(s.filters[0].membership);
}

TEST(TypecheckIr, ParametersAndNowInBindings) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person { name: $n, seen: now() }", "$p.name", "",
                                                "$n: String, $unused: I32"));
  const ir::NodeScan& s = Step(q, 0).scan;
  EXPECT_EQ(s.filters[0].value.kind, ir::Value::Kind::kParam);
  EXPECT_EQ(s.filters[0].value.param, "n");
  EXPECT_TRUE(s.filters[1].value.is_now);
  EXPECT_EQ(s.filters[1].value.param, "__nanograph_now");
  EXPECT_TRUE(q.uses_now);
  ASSERT_EQ(q.params.size(), 2u);
  EXPECT_TRUE(q.params[0].used);
  EXPECT_FALSE(q.params[1].used);
}

TEST(TypecheckIr, TraversalDirectionFromTheBoundEndpoint) {
  EXPECT_EQ(ReadPlan("$p: Person { name: \"A\" } $p knows $f", "$f.name"),
            "scan $p: Person {name = \"A\"}\n"
            "traverse $p -> $f via Knows (forward, from $p src->dst, new, hops 1..1)\n"
            "return f.name: String = $f.name\n");
  // Reverse hop driven from the bound destination (`worksAt` → WorksAt).
  EXPECT_EQ(ReadPlan("$c: Company { name: \"Acme\" } $p worksAt $c", "$p.name"),
            "scan $c: Company {name = \"Acme\"}\n"
            "traverse $c -> $p via WorksAt (forward, from $c dst->src, new, hops 1..1)\n"
            "return p.name: String = $p.name\n");
  // The written source bound to the edge's to-type: backward.
  EXPECT_EQ(ReadPlan("$c: Company $c worksAt $p", "$p.name"),
            "scan $c: Company\n"
            "traverse $c -> $p via WorksAt (backward, from $c dst->src, new, hops 1..1)\n"
            "return p.name: String = $p.name\n");
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$c: Company $c worksAt $p", "$p.name"));
  const ir::Traverse& t = Step(q, 1).traverse;
  EXPECT_EQ(t.edge_type, "WorksAt");
  EXPECT_EQ(t.written_src, "c");
  EXPECT_EQ(t.written_dst, "p");
  EXPECT_EQ(t.from_type, "Company");
  EXPECT_EQ(t.to_type, "Person");
  EXPECT_TRUE(t.to_is_new);
  EXPECT_TRUE(t.edge_variable.empty());
}

TEST(TypecheckIr, ConnectedBindingsScanOncePerComponent) {
  // The second binding becomes the traversal's destination with its inline
  // filters checked after the hop (§2.4).
  EXPECT_EQ(ReadPlan("$p: Person { name: \"A\" } $c: Company { name: \"Acme\" } $p worksAt $c", "$p.name"),
            "scan $p: Person {name = \"A\"}\n"
            "traverse $p -> $c via WorksAt (forward, from $p src->dst, new, hops 1..1)\n"
            "check $c: Company {name = \"Acme\"}\n"
            "return p.name: String = $p.name\n");
  // A traversal written before its only binding starts from that binding.
  EXPECT_EQ(ReadPlan("$p knows $f $f: Person { name: \"x\" }", "$p.name"),
            "scan $f: Person {name = \"x\"}\n"
            "traverse $f -> $p via Knows (forward, from $f dst->src, new, hops 1..1)\n"
            "return p.name: String = $p.name\n");
  // Filters wait for their variables; unconnected bindings stay a product.
  EXPECT_EQ(ReadPlan("$p: Person $c: Company $c.name = \"Acme\" $p worksAt $c $q: Person", "$p.name, $q.name"),
            "scan $p: Person\n"
            "traverse $p -> $c via WorksAt (forward, from $p src->dst, new, hops 1..1)\n"
            "filter $c.name = \"Acme\"\n"
            "scan $q: Person\n"
            "return p.name: String = $p.name\n"
            "return q.name: String = $q.name\n");
}

TEST(TypecheckIr, ImplicitScanAndCycleCheck) {
  EXPECT_EQ(ReadPlan("$a knows $b", "$a.name"),
            "scan $a: Person (implicit)\n"
            "traverse $a -> $b via Knows (forward, from $a src->dst, new, hops 1..1)\n"
            "return a.name: String = $a.name\n");
  EXPECT_EQ(ReadPlan("$a: Person $a knows $b $b knows $c $c knows $a", "$a.name"),
            "scan $a: Person\n"
            "traverse $a -> $b via Knows (forward, from $a src->dst, new, hops 1..1)\n"
            "traverse $b -> $c via Knows (forward, from $b src->dst, new, hops 1..1)\n"
            "traverse $c -> $a via Knows (forward, from $c src->dst, cycle, hops 1..1)\n"
            "return a.name: String = $a.name\n");
  EXPECT_EQ(ReadPlan("$p: Person $p knows $p"),
            "scan $p: Person\n"
            "traverse $p -> $p via Knows (forward, from $p src->dst, cycle, hops 1..1)\n"
            "return p.name: String = $p.name\n");
}

TEST(TypecheckIr, HopBoundsUndirectedAndEdgeBindings) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person $p <knows>{2,3} $f $p $w:knows $g $p worksAt{1,3} $c",
                                                "$f.name, $w.since"));
  const ir::Traverse& u = Step(q, 1).traverse;
  EXPECT_EQ(u.direction, ir::Traverse::Direction::kUndirected);
  EXPECT_EQ(u.follow, ir::Traverse::Follow::kBoth);
  EXPECT_EQ(u.min_hops, 2u);
  EXPECT_EQ(u.max_hops, 3u);
  const ir::Traverse& w = Step(q, 2).traverse;
  EXPECT_EQ(w.edge_variable, "w");
  // Edges between different node types never continue past one hop.
  const ir::Traverse& c = Step(q, 3).traverse;
  EXPECT_EQ(c.written_max_hops, 3u);
  EXPECT_EQ(c.max_hops, 1u);
  const ir::Projection& since = q.read.projections[1];
  EXPECT_EQ(since.expr.kind, ir::Expr::Kind::kProperty);
  EXPECT_TRUE(since.expr.on_edge);
  EXPECT_EQ(since.expr.type_name, "Knows");
  EXPECT_EQ(since.column, "w.since");
  EXPECT_EQ(q.read.tie_break_variables, (std::vector<std::string>{"c", "f", "g", "p", "w"}));
}

TEST(TypecheckIr, NegationAndAnonymousEndpoints) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person not { $p worksAt $_ } not { $p knows $f $f.age > 40 }"));
  EXPECT_EQ(ir::ToDebugString(q),
            "scan $p: Person\n"
            "not [$p] {\n"
            "  traverse $p -> $_#1 via WorksAt (forward, from $p src->dst, new, hops 1..1)\n"
            "}\n"
            "not [$p] {\n"
            "  traverse $p -> $f via Knows (forward, from $p src->dst, new, hops 1..1)\n"
            "  filter $f.age > 40\n"
            "}\n"
            "return p.name: String = $p.name\n");
  const ir::Traverse& t = Step(q, 1).negation.steps.at(0).traverse;
  EXPECT_TRUE(t.to_anonymous);
  EXPECT_FALSE(t.from_anonymous);
  EXPECT_EQ(Step(q, 1).negation.outer_variables, std::vector<std::string>{"p"});
  EXPECT_EQ(q.read.tie_break_variables, std::vector<std::string>{"p"});  // inner variables are local
  // A negation runs once its outer variables are bound, inner bindings are
  // deferred like outer ones.
  EXPECT_EQ(ReadPlan("$p: Person not { $c: Company { name: \"Acme\" } $p worksAt $c }"),
            "scan $p: Person\n"
            "not [$p] {\n"
            "  traverse $p -> $c via WorksAt (forward, from $p src->dst, new, hops 1..1)\n"
            "  check $c: Company {name = \"Acme\"}\n"
            "}\n"
            "return p.name: String = $p.name\n");
}

TEST(TypecheckIr, FiltersKeepPositionsAndCoerceLiterals) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person $p.ratio = 0.1 $p.score > 3 \"hay\" contains $p.name "
                                                "$p.tags contains \"x\" $p.name starts_with \"A\" 3 < $p.age "
                                                "search($p.name, \"x\")"));
  const ir::Filter& f32 = Step(q, 1).filter;
  EXPECT_EQ(f32.kind, ir::Filter::Kind::kCompare);
  EXPECT_EQ(f32.op, ir::CompareOp::kEq);
  EXPECT_EQ(f32.right.literal.double_value(), static_cast<double>(0.1f));  // compared at the column's width
  EXPECT_EQ(f32.right.type.ToString(), "F32");
  const ir::Filter& f64 = Step(q, 2).filter;
  EXPECT_TRUE(f64.right.literal.is_double());
  const ir::Filter& hay = Step(q, 3).filter;
  EXPECT_EQ(hay.kind, ir::Filter::Kind::kStringContains);
  EXPECT_EQ(hay.left.kind, ir::Expr::Kind::kLiteral);  // positional operands
  EXPECT_EQ(hay.right.kind, ir::Expr::Kind::kProperty);
  EXPECT_EQ(Step(q, 4).filter.kind, ir::Filter::Kind::kListContains);
  EXPECT_EQ(Step(q, 5).filter.kind, ir::Filter::Kind::kStartsWith);
  const ir::Filter& rev = Step(q, 6).filter;
  EXPECT_EQ(rev.op, ir::CompareOp::kLt);
  EXPECT_EQ(rev.left.type.ToString(), "I32");
  const ir::Filter& search = Step(q, 7).filter;
  EXPECT_EQ(search.kind, ir::Filter::Kind::kTextSearch);
  EXPECT_EQ(search.left.kind, ir::Expr::Kind::kSearch);
  // An integer literal beyond the column's range stays I64 (a valid, never-true comparison).
  ir::QueryIR big = MustCheck(Social(), ReadQuery("$p: Person $p.age < 5000000000"));
  EXPECT_EQ(Step(big, 1).filter.right.type.ToString(), "I64");
}

TEST(TypecheckIr, SearchFunctionDefaults) {
  ir::QueryIR q = MustCheck(
      Social(), ReadQuery("$p: Person fuzzy($p.name, $q) match_text($p.nick, \"a b\")", "$p.name",
                          "order { rrf(nearest($p.embedding, $q), bm25($p.name, $q)) } limit 5", "$q: String"));
  const ir::Expr& fuzzy = Step(q, 1).filter.left;
  ASSERT_EQ(fuzzy.args.size(), 3u);
  EXPECT_EQ(fuzzy.args[2].literal.int_value(), 2);  // default max_edits
  EXPECT_EQ(Step(q, 2).filter.left.kind, ir::Expr::Kind::kMatchText);
  ASSERT_TRUE(q.read.search_order.has_value());
  const ir::Expr& rrf = *q.read.search_order;
  EXPECT_EQ(rrf.kind, ir::Expr::Kind::kRrf);
  EXPECT_EQ(rrf.args[2].literal.int_value(), 60);  // default k
  EXPECT_EQ(rrf.args[0].kind, ir::Expr::Kind::kNearest);
  EXPECT_TRUE(rrf.args[0].embed_text);  // a String query is embedded
  EXPECT_EQ(rrf.args[1].kind, ir::Expr::Kind::kBm25);
  EXPECT_EQ(rrf.args[1].args[0].property, "name");
  EXPECT_TRUE(q.read.order.empty());
  EXPECT_EQ(*q.read.limit, 5u);
}

TEST(TypecheckIr, NearestQueriesAndEmbedModel) {
  Catalog c = testing::MustCompile(
      "node Doc { slug: String @key body: String? status: String?\n"
      "  embedding: Vector(4) @embed(body, model=\"mock-1\") }");
  ir::QueryIR lit = MustCheck(c, "query q() { match { $d: Doc { status: \"hit\" } } return { $d.slug }\n"
                                 "  order { nearest($d.embedding, [0.1, 0.2, 0.3, 1]) } limit 3 }");
  const ir::Expr& n = *lit.read.search_order;
  EXPECT_EQ(n.kind, ir::Expr::Kind::kNearest);
  EXPECT_EQ(n.variable, "d");
  EXPECT_EQ(n.property, "embedding");
  EXPECT_FALSE(n.embed_text);
  ASSERT_EQ(n.args[0].literal.nested().size(), 4u);
  EXPECT_EQ(n.args[0].literal.nested()[0].double_value(), static_cast<double>(0.1f));
  EXPECT_EQ(n.args[0].literal.nested()[3].double_value(), 1.0);
  ir::QueryIR text = MustCheck(c, "query q($t: String) { match { $d: Doc } return { $d.slug }\n"
                                  "  order { nearest($d.embedding, $t) } limit 3 }");
  EXPECT_TRUE(text.read.search_order->embed_text);
  EXPECT_EQ(*text.read.search_order->embed_model, "mock-1");
}

TEST(TypecheckIr, ProjectionNamesAndTypes) {
  ir::QueryIR q = MustCheck(
      Social(), ReadQuery("$p: Person $p knows $f", "$p.name, $f, $x, \"lit\", now(), $p.age as years, $p.tags, "
                                                    "$p.embedding",
                          "", "$x: I64?"));
  const auto& p = q.read.projections;
  ASSERT_EQ(p.size(), 8u);
  std::vector<std::string> cols, names;
  for (const auto& proj : p) {
    cols.push_back(proj.column);
    names.push_back(proj.descriptor_name);
  }
  EXPECT_EQ(cols, (std::vector<std::string>{"p.name", "f", "x", "literal", "now", "years", "p.tags", "p.embedding"}));
  EXPECT_EQ(names, (std::vector<std::string>{"name", "f", "x", "literal", "now", "years", "tags", "embedding"}));
  EXPECT_EQ(p[1].expr.kind, ir::Expr::Kind::kNodeId);  // a bare node variable projects its id
  EXPECT_EQ(p[1].expr.type_name, "Person");
  EXPECT_EQ(p[2].expr.kind, ir::Expr::Kind::kParam);
  EXPECT_EQ(p[2].expr.type.ToString(), "I64?");
  EXPECT_EQ(p[3].expr.literal, Scalar::String("lit"));
  EXPECT_TRUE(p[4].expr.is_now);
  EXPECT_EQ(p[5].expr.type.ToString(), "I32?");
  EXPECT_TRUE(q.uses_now);  // [QUIRK] now() in reads: BindParams injects it
  EXPECT_FALSE(q.read.aggregate);
}

TEST(TypecheckIr, AggregatesAndGroupKeys) {
  ir::QueryIR q = MustCheck(
      Social(), ReadQuery("$p: Person $p worksAt $c", "$c.name, count($p), sum($p.age) as total, avg($p.age), "
                                                      "min($p.age) as youngest, max($p.name), count(\"x\")"));
  const auto& p = q.read.projections;
  EXPECT_TRUE(q.read.aggregate);
  EXPECT_EQ(q.read.group_keys, std::vector<int>{0});
  std::vector<std::string> cols, types;
  for (const auto& proj : p) {
    cols.push_back(proj.column);
    types.push_back(proj.expr.type.ToString());
  }
  // Unaliased aggregates take their argument's name at run time (§2.5).
  EXPECT_EQ(cols, (std::vector<std::string>{"c.name", "p", "total", "p.age", "youngest", "p.name", "literal"}));
  EXPECT_EQ(types, (std::vector<std::string>{"String", "I64", "F64?", "F64?", "I32?", "String?", "I64"}));
  EXPECT_EQ(p[1].descriptor_name, "count");
  EXPECT_EQ(p[3].descriptor_name, "avg");
  EXPECT_EQ(p[1].expr.agg, ir::AggFunc::kCount);
  EXPECT_EQ(p[1].expr.args[0].kind, ir::Expr::Kind::kNodeId);
}

TEST(TypecheckIr, OrderKeys) {
  ir::QueryIR q = MustCheck(
      Social(), ReadQuery("$p: Person", "$p.name as n, $p.score", "order { $p.age desc, n, $p.score asc } limit 2"));
  ASSERT_EQ(q.read.order.size(), 3u);
  EXPECT_EQ(q.read.order[0].kind, ir::OrderKey::Kind::kProperty);  // not projected: sorted by the row's value
  EXPECT_EQ(q.read.order[0].expr.property, "age");
  EXPECT_TRUE(q.read.order[0].descending);
  EXPECT_EQ(q.read.order[0].projection, -1);
  EXPECT_EQ(q.read.order[1].kind, ir::OrderKey::Kind::kProjection);
  EXPECT_EQ(q.read.order[1].projection, 0);
  EXPECT_FALSE(q.read.order[1].descending);
  EXPECT_EQ(q.read.order[2].kind, ir::OrderKey::Kind::kProperty);
  EXPECT_EQ(q.read.order[2].projection, 1);
  EXPECT_EQ(*q.read.limit, 2u);
  // Aggregate queries order by aliases or identical projections.
  ir::QueryIR a = MustCheck(Social(), ReadQuery("$p: Person $p knows $f", "$p.name, count($f) as friends",
                                                "order { friends desc, $p.name, count($f) }"));
  ASSERT_EQ(a.read.order.size(), 3u);
  EXPECT_EQ(a.read.order[0].projection, 1);
  EXPECT_EQ(a.read.order[1].kind, ir::OrderKey::Kind::kProjection);
  EXPECT_EQ(a.read.order[1].projection, 0);
  EXPECT_EQ(a.read.order[2].projection, 1);
}

TEST(TypecheckIr, SearchOrderIgnoresLaterKeys) {
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person", "$p.name, bm25($p.name, $t) as s",
                                                "order { s desc, $p.name } limit 3", "$t: String"));
  ASSERT_TRUE(q.read.search_order.has_value());
  EXPECT_EQ(q.read.search_order->kind, ir::Expr::Kind::kBm25);
  EXPECT_TRUE(q.read.order.empty());
}

TEST(TypecheckIr, ScoreColumnsInReturnAreSupported) {
  // [QUIRK] upstream typechecks score projections but fails at run time; the
  // IR carries them for the executor to compute.
  ir::QueryIR q = MustCheck(Social(), ReadQuery("$p: Person", "$p.name, nearest($p.embedding, $v) as d, "
                                                              "bm25($p.name, $t) as s, rrf(nearest($p.embedding, $v), "
                                                              "bm25($p.name, $t)) as r",
                                                "order { nearest($p.embedding, $v) } limit 3",
                                                "$v: Vector(3), $t: String"));
  const auto& p = q.read.projections;
  EXPECT_EQ(p[1].expr.kind, ir::Expr::Kind::kNearest);
  EXPECT_EQ(p[1].expr.type.ToString(), "F64");
  EXPECT_EQ(p[2].expr.kind, ir::Expr::Kind::kBm25);
  EXPECT_EQ(p[3].expr.kind, ir::Expr::Kind::kRrf);
  EXPECT_EQ(p[3].descriptor_name, "r");
}

TEST(TypecheckIr, EmptyBindingBracesCheckLikeNoBraces) {
  // [QUIRK] `$d: Doc { }` is accepted.
  EXPECT_EQ(Plan(Social(), "query q() { match { $p: Person { } } return { $p.name } }"),
            Plan(Social(), "query q() { match { $p: Person } return { $p.name } }"));
}

TEST(TypecheckIr, Mutations) {
  ir::QueryIR q = MustCheck(
      Social(),
      "query onboard($name: String, $age: I32, $team: String) {\n"
      "  insert Person { name: $name, age: $age, score: 1, seen: now() }\n"
      "  insert WorksAt { from: $name, to: $team, title: \"eng\" }\n"
      "  update Person set { nick: \"n\" } where age >= 30\n"
      "}");
  EXPECT_TRUE(q.is_mutation);
  EXPECT_EQ(ir::ToDebugString(q),
            "insert node Person {name: $name, age: $age, score: 1, seen: now()}\n"
            "insert edge WorksAt from $name to $team {title: \"eng\"}\n"
            "update node Person {nick: \"n\"} where age >= 30\n");
  const ir::MutationStatement& ins = q.statements[0];
  EXPECT_EQ(ins.assignments[2].value.literal.double_value(), 1.0);  // [QUIRK] int literal → F64
  EXPECT_EQ(ins.assignments[2].type.ToString(), "F64?");
  EXPECT_TRUE(ins.assignments[3].value.is_now);
  const ir::MutationStatement& edge = q.statements[1];
  EXPECT_TRUE(edge.on_edge);
  EXPECT_EQ(edge.from->param, "name");
  EXPECT_EQ(edge.to->param, "team");
  EXPECT_EQ(edge.assignments.size(), 1u);
  const ir::MutationStatement& upd = q.statements[2];
  EXPECT_EQ(upd.where->column, ir::WherePredicate::Column::kProperty);
  EXPECT_EQ(upd.where->op, ir::CompareOp::kGe);
  EXPECT_EQ(upd.where->value.literal.int_value(), 30);
  EXPECT_EQ(upd.where->value.type.ToString(), "I32");
  std::vector<std::string> reads, writes;
  for (const auto& r : q.reads) reads.push_back((r.is_edge ? "edge:" : "node:") + r.type_name);
  for (const auto& w : q.writes) writes.push_back((w.is_edge ? "edge:" : "node:") + w.type_name);
  EXPECT_EQ(reads, (std::vector<std::string>{"node:Company", "node:Person", "edge:WorksAt"}));
  EXPECT_EQ(writes, (std::vector<std::string>{"node:Person", "edge:WorksAt"}));
}

TEST(TypecheckIr, DeletesAndEndpointPredicates) {
  ir::QueryIR q = MustCheck(Social(), "query unlink($from: String) { delete Knows where from = $from }");
  EXPECT_EQ(q.statements[0].kind, ir::MutationStatement::Kind::kDelete);
  EXPECT_EQ(q.statements[0].where->column, ir::WherePredicate::Column::kSrc);
  ir::QueryIR to = MustCheck(Social(), "query unlink() { delete Knows where to != \"x\" }");
  EXPECT_EQ(to.statements[0].where->column, ir::WherePredicate::Column::kDst);
  ir::QueryIR node = MustCheck(Social(), "query remove($n: String) { delete Person where name = $n }");
  std::vector<std::string> writes;
  for (const auto& w : node.writes) writes.push_back((w.is_edge ? "edge:" : "node:") + w.type_name);
  // Node deletes cascade to every incident edge type.
  EXPECT_EQ(writes, (std::vector<std::string>{"node:Person", "edge:Knows", "edge:WorksAt"}));
}

TEST(TypecheckIr, EdgeInsertSpellingsAndStringToBlob) {
  // Edge inserts with from:/to: as the corpora write them; a String literal
  // or parameter fills a Blob.
  ir::QueryIR q = MustCheck(Social(), "query m($b: String) { insert Knows { from: \"a\", to: \"b\", payload: $b } "
                                      "insert Person { name: \"c\", photo: \"base64:AAAA\" } }");
  EXPECT_EQ(q.statements[0].from->literal, Scalar::String("a"));
  EXPECT_EQ(q.statements[0].assignments[0].property, "payload");
  EXPECT_EQ(q.statements[1].assignments[1].value.literal, Scalar::String("base64:AAAA"));
}

TEST(TypecheckIr, IntegerLiteralEdgeCases) {
  Catalog c = testing::MustCompile("node T { k: I64 @key u: U64? f: F32? d: F64? i: I32? }");
  ir::QueryIR q = MustCheck(c, "query m() { insert T { k: 1413617112501850121, u: 18446744073709551615, "
                               "f: 16777217, d: 9007199254740993, i: 2147483647 } }");
  const auto& a = q.statements[0].assignments;
  EXPECT_EQ(a[0].value.literal.int_value(), 1413617112501850121);
  EXPECT_EQ(a[1].value.literal.uint_value(), 18446744073709551615ULL);
  EXPECT_EQ(a[2].value.literal.double_value(), 16777216.0);  // rounded to F32
  EXPECT_EQ(a[4].value.literal.int_value(), 2147483647);
  EXPECT_EQ(testing::QueryError(c, "query m() { insert T { k: 9223372036854775808 } }"),
            "type error: T3: property `k` has type I64 but literal 9223372036854775808 is out of range");
  EXPECT_EQ(testing::QueryError(c, "query m() { insert T { k: 1, i: 3.0 } }"), "");  // integral float
  EXPECT_EQ(testing::QueryError(c, "query m() { insert T { k: 1, f: 1.0e1 } }").substr(0, 12), "parse error:");
}

// "Int 2", "Double 2.5": a literal's representation and value.
std::string Shown(const ir::Value& v) {
  const Scalar& s = v.literal;
  const char* kind = s.is_int() ? "Int" : s.is_uint() ? "UInt" : s.is_double() ? "Double" : "other";
  return fmt::format("{} {}: {}", kind, s.ToString(), v.type.ToString());
}
std::string Shown(const ir::Expr& e) {
  ir::Value v;
  v.literal = e.literal;
  v.type = e.type;
  return Shown(v);
}

// §2.4: a numeric literal compared with a property of another kind takes
// the property's representation when a property value equals it exactly;
// otherwise it keeps its own value (so it matches no row by `=`) rather
// than being refused, wrapped or rounded onto a neighbouring value.
TEST(TypecheckIr, ComparedNumbersKeepTheirExactValue) {
  Catalog c = testing::MustCompile("node T { k: I32 @key u: U32? f: F32? d: F64? nums: [I32]? }");
  ir::QueryIR q = MustCheck(c, ReadQuery("$t: T { k: 2.0, u: 4294967298, d: 2, nums: 2.5 } $t.d = 9007199254740993 "
                                         "$t.f = 16777217 $t.f = 16777216 $t.f = 0.1 $t.k < 2.5 "
                                         "$t.nums contains 3.0 4294967296 > $t.u",
                                         "$t.k"));
  const std::vector<ir::PropertyFilter>& inline_filters = Step(q, 0).scan.filters;
  EXPECT_EQ(Shown(inline_filters[0].value), "Int 2: I32");
  EXPECT_EQ(Shown(inline_filters[1].value), "Int 4294967298: I64");  // not wrapped to 2
  EXPECT_EQ(Shown(inline_filters[2].value), "Double 2: F64");
  EXPECT_TRUE(inline_filters[3].membership);
  EXPECT_EQ(Shown(inline_filters[3].value), "Double 2.5: F64");
  // 2^53 + 1 is no double: it stays an integer (the double 2^53 would
  // equal a stored 2^53).
  EXPECT_EQ(Shown(Step(q, 1).filter.right), "Int 9007199254740993: I64");
  EXPECT_EQ(Shown(Step(q, 2).filter.right), "Int 16777217: I64");  // no F32 holds it
  EXPECT_EQ(Shown(Step(q, 3).filter.right), "Double 16777216: F32");
  // A float literal against F32 is the nearest F32, as a load stores it.
  EXPECT_EQ(Shown(Step(q, 4).filter.right), "Double 0.10000000149011612: F32");
  EXPECT_EQ(Shown(Step(q, 5).filter.right), "Double 2.5: F64");
  EXPECT_EQ(Shown(Step(q, 6).filter.right), "Int 3: I32");
  EXPECT_EQ(Shown(Step(q, 7).filter.left), "Int 4294967296: I64");
  ir::QueryIR m = MustCheck(c, "query m() { update T set { f: 1 } where u = 2.5 }");
  EXPECT_EQ(Shown(m.statements[0].where->value), "Double 2.5: F64");
  EXPECT_EQ(Shown(m.statements[0].assignments[0].value), "Double 1: F32");
  ir::QueryIR w = MustCheck(c, "query m() { delete T where k = 7.0 }");
  EXPECT_EQ(Shown(w.statements[0].where->value), "Int 7: I32");
}

}  // namespace typecheck_ir_test
}  // namespace omnigraph::compiler
