// Schema semantics (spec/surface.md §1.3–§1.8, §9 item 3): types and
// physical columns, constraints and annotations, interfaces, layout, stable
// ids, reserved names, catalog-level rules, canonical IR.
#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace catalog_test {

using testing::MustCompile;
using testing::SchemaError;
using testing::SchemaErrorLine;

// ---- §1.3 types -------------------------------------------------------------

TEST(SchemaTypes, DisplaySpellings) {
  Catalog c = MustCompile(
      "node P { a: String b: Bool? c: I32 d: I64 e: U32 f: U64 g: F32 h: F64 i: Date j: DateTime k: Blob? "
      "l: [Date] m: [String]? n: enum(b, a)? o: Vector(4) }");
  const NodeType* p = c.FindNode("P");
  std::vector<std::string> shown;
  for (const Property& prop : p->properties) shown.push_back(prop.name + ":" + prop.type.ToString());
  EXPECT_EQ(shown, (std::vector<std::string>{"a:String", "b:Bool?", "c:I32", "d:I64", "e:U32", "f:U64", "g:F32",
                                             "h:F64", "i:Date", "j:DateTime", "k:Blob?", "l:[Date]", "m:[String]?",
                                             "n:enum(a, b)?", "o:Vector(4)"}));
}

TEST(SchemaTypes, PhysicalColumnTypes) {
  Catalog c = MustCompile(
      "node P { a: String b: Bool c: I32 d: I64 e: U32 f: U64 g: F32 h: F64 i: Date j: DateTime k: Blob "
      "l: [Date] n: enum(x) o: Vector(4) }");
  Schema s = c.NodeTableSchema(*c.FindNode("P"));
  std::vector<std::string> shown;
  for (const Field& f : s.fields()) shown.push_back(f.name + ":" + f.type->ToString());
  ASSERT_EQ(s.num_fields(), 15);
  EXPECT_EQ(s.field(1).type->id(), TypeId::kUtf8);
  EXPECT_EQ(s.field(2).type->id(), TypeId::kBool);
  EXPECT_EQ(s.field(3).type->id(), TypeId::kInt32);
  EXPECT_EQ(s.field(4).type->id(), TypeId::kInt64);
  EXPECT_EQ(s.field(5).type->id(), TypeId::kUInt32);
  EXPECT_EQ(s.field(6).type->id(), TypeId::kUInt64);
  EXPECT_EQ(s.field(7).type->id(), TypeId::kFloat32);
  EXPECT_EQ(s.field(8).type->id(), TypeId::kFloat64);
  EXPECT_EQ(s.field(9).type->id(), TypeId::kDate32);
  EXPECT_EQ(s.field(10).type->id(), TypeId::kDate64);
  EXPECT_EQ(s.field(11).type->id(), TypeId::kLargeBinary);
  ASSERT_EQ(s.field(12).type->id(), TypeId::kList);
  EXPECT_EQ(s.field(12).type->item().name, "item");
  EXPECT_EQ(s.field(12).type->item().type->id(), TypeId::kDate32);
  EXPECT_TRUE(s.field(12).type->item().nullable);
  EXPECT_EQ(s.field(13).type->id(), TypeId::kUtf8);  // enum
  ASSERT_EQ(s.field(14).type->id(), TypeId::kFixedSizeList);
  EXPECT_EQ(s.field(14).type->list_size(), 4);
  EXPECT_EQ(s.field(14).type->item().name, "item");
  EXPECT_EQ(s.field(14).type->item().type->id(), TypeId::kFloat32);
  EXPECT_TRUE(s.field(14).type->item().nullable);
}

// A number in a numeric kind's representation only when a value of that
// kind equals it (comparisons by value, §2.4).
TEST(SchemaTypes, ExactNumericValues) {
  auto shown = [](const Scalar& v, ScalarKind k) {
    std::optional<Scalar> exact = ExactNumericValue(v, k);
    if (!exact) return std::string("none");
    const char* kind = exact->is_int() ? "Int " : exact->is_uint() ? "UInt " : "Double ";
    return kind + exact->ToString();
  };
  EXPECT_EQ(shown(Scalar::Double(2.0), ScalarKind::kI32), "Int 2");
  EXPECT_EQ(shown(Scalar::Double(2.5), ScalarKind::kI32), "none");
  EXPECT_EQ(shown(Scalar::Int(4294967298), ScalarKind::kI32), "none");
  EXPECT_EQ(shown(Scalar::Int(-2147483648), ScalarKind::kI32), "Int -2147483648");
  EXPECT_EQ(shown(Scalar::UInt(5), ScalarKind::kI64), "Int 5");
  EXPECT_EQ(shown(Scalar::Int(-1), ScalarKind::kU32), "none");
  EXPECT_EQ(shown(Scalar::Int(4294967295), ScalarKind::kU32), "UInt 4294967295");
  EXPECT_EQ(shown(Scalar::Int(4294967296), ScalarKind::kU32), "none");
  EXPECT_EQ(shown(Scalar::Double(1e19), ScalarKind::kU64), "UInt 10000000000000000000");
  EXPECT_EQ(shown(Scalar::Int(9007199254740993), ScalarKind::kF64), "none");
  EXPECT_EQ(shown(Scalar::Int(16777216), ScalarKind::kF32), "Double 16777216");
  EXPECT_EQ(shown(Scalar::Int(16777217), ScalarKind::kF32), "none");
  EXPECT_EQ(shown(Scalar::Double(0.1), ScalarKind::kF32), "none");
  EXPECT_EQ(shown(Scalar::Double(0.5), ScalarKind::kF32), "Double 0.5");
  EXPECT_EQ(shown(Scalar::Double(1e300), ScalarKind::kF32), "none");
  EXPECT_EQ(shown(Scalar::Int(2), ScalarKind::kDate), "none");
  EXPECT_EQ(shown(Scalar::String("2"), ScalarKind::kI64), "none");
}

TEST(SchemaTypes, NullabilityFollowsTheQuestionMark) {
  Catalog c = MustCompile("node P { a: I32 b: I32? }");
  Schema s = c.NodeTableSchema(*c.FindNode("P"));
  EXPECT_FALSE(s.FindField("a")->nullable);
  EXPECT_TRUE(s.FindField("b")->nullable);
}

// ---- §1.6 physical layout, §1.7 stable ids -------------------------------

TEST(SchemaLayout, NodeAndEdgeTables) {
  Catalog c = MustCompile(
      "node Person { zeta: I32? name: String @key alpha: String? }\n"
      "edge Knows: Person -> Person { weight: F64? since: Date? }");
  const NodeType* person = c.FindNode("Person");
  Schema ns = c.NodeTableSchema(*person);
  ASSERT_EQ(ns.num_fields(), 4);
  EXPECT_EQ(ns.field(0).name, "id");
  EXPECT_EQ(ns.field(0).type->id(), TypeId::kUtf8);
  EXPECT_FALSE(ns.field(0).nullable);
  EXPECT_TRUE(ns.field(0).unenforced_primary_key);
  EXPECT_EQ(ns.field(1).name, "alpha");  // lexical, not declaration order
  EXPECT_EQ(ns.field(2).name, "name");
  EXPECT_EQ(ns.field(3).name, "zeta");
  EXPECT_EQ(ns.field(0).metadata.count(std::string(kStablePropertyIdKey)), 0u);
  Schema es = c.EdgeTableSchema(*c.FindEdge("Knows"));
  ASSERT_EQ(es.num_fields(), 5);
  EXPECT_EQ(es.field(0).name, "id");
  EXPECT_TRUE(es.field(0).unenforced_primary_key);
  EXPECT_EQ(es.field(1).name, "src");
  EXPECT_FALSE(es.field(1).nullable);
  EXPECT_FALSE(es.field(1).unenforced_primary_key);
  EXPECT_EQ(es.field(2).name, "dst");
  EXPECT_EQ(es.field(3).name, "since");
  EXPECT_EQ(es.field(4).name, "weight");
}

TEST(SchemaLayout, StableIdsFollowOneLexicalSequence) {
  Catalog c = MustCompile(
      "node Zed { b: I32 a: I32 }\n"
      "interface Named { name: String }\n"
      "node Amy implements Named { x: I32 }\n"
      "edge Rel: Amy -> Zed { w: I32? }\n");
  // Types: interfaces, nodes, edges, each lexical; then properties per type.
  EXPECT_EQ(c.FindInterface("Named")->stable_id, 1u);
  EXPECT_EQ(c.FindNode("Amy")->stable_id, 2u);
  EXPECT_EQ(c.FindNode("Zed")->stable_id, 3u);
  EXPECT_EQ(c.FindEdge("Rel")->stable_id, 4u);
  EXPECT_EQ(c.FindInterface("Named")->FindProperty("name")->stable_id, 5u);
  EXPECT_EQ(c.FindNode("Amy")->FindProperty("name")->stable_id, 6u);
  EXPECT_EQ(c.FindNode("Amy")->FindProperty("x")->stable_id, 7u);
  EXPECT_EQ(c.FindNode("Zed")->FindProperty("a")->stable_id, 8u);
  EXPECT_EQ(c.FindNode("Zed")->FindProperty("b")->stable_id, 9u);
  EXPECT_EQ(c.FindEdge("Rel")->FindProperty("w")->stable_id, 10u);
  EXPECT_EQ(c.next_identity_id(), 11u);
  Schema s = c.NodeTableSchema(*c.FindNode("Zed"));
  EXPECT_EQ(s.FindField("a")->metadata.at(std::string(kStablePropertyIdKey)), "8");
  EXPECT_EQ(s.FindField("b")->metadata.at(std::string(kStablePropertyIdKey)), "9");
}

TEST(SchemaLayout, CompositeKeyOrderIsStableIdOrder) {
  Catalog c = MustCompile("node P { b: String a: I32 c: Bool @key(b, a) }");
  EXPECT_EQ(c.FindNode("P")->key, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(c.FindNode("P")->keyed());
  EXPECT_FALSE(MustCompile("node U { a: I32 }").FindNode("U")->keyed());
}

TEST(SchemaLayout, KeyImpliesIndexAndTuplesAreDeduplicated) {
  Catalog c = MustCompile("node P { name: String @key @index @unique  slug: String @unique @unique(slug)\n"
                          "  @index(name) @index(slug, name) }");
  const NodeType* p = c.FindNode("P");
  EXPECT_EQ(p->indexes, (std::vector<std::vector<std::string>>{{"name"}, {"slug", "name"}}));
  EXPECT_EQ(p->uniques, (std::vector<std::vector<std::string>>{{"slug"}, {"name"}}));
}

TEST(SchemaLayout, LookupsAndIncidentEdges) {
  Catalog c = MustCompile(
      "node Person { n: String }\nnode Company { n: String }\n"
      "edge WorksAt: Person -> Company\nedge Knows: Person -> Person\nedge Owns: Company -> Company");
  EXPECT_EQ(c.FindEdge("worksat")->name, "WorksAt");
  EXPECT_EQ(c.FindEdge("WORKSAT")->name, "WorksAt");
  EXPECT_EQ(c.FindEdge("knows")->name, "Knows");
  EXPECT_EQ(c.FindNode("person"), nullptr);  // node lookup is exact
  EXPECT_EQ(c.FindEdge("Likes"), nullptr);
  std::vector<std::string> names;
  for (const EdgeType* e : c.IncidentEdges("Person")) names.push_back(e->name);
  EXPECT_EQ(names, (std::vector<std::string>{"Knows", "WorksAt"}));
  EXPECT_EQ(c.FindNode("Person")->TableKey(), "node:Person");
  EXPECT_EQ(c.FindEdge("Knows")->TableKey(), "edge:Knows");
  EXPECT_EQ(c.source(), "node Person { n: String }\nnode Company { n: String }\n"
                        "edge WorksAt: Person -> Company\nedge Knows: Person -> Person\nedge Owns: Company -> Company");
}

// ---- §1.4 constraints -------------------------------------------------------

TEST(SchemaKey, OneKeyPerNode) {
  EXPECT_EQ(SchemaError("node P {\n  a: String @key\n  b: String @key\n}"),
            "parse error: test.pg:3:13: node type P has multiple @key constraints; only one is supported\n"
            "3 |   b: String @key\n"
            "  |             ^");
  EXPECT_EQ(SchemaErrorLine("node P { a: String b: String @key(a) @key(b) }"),
            "parse error: test.pg:1:38: node type P has multiple @key constraints; only one is supported");
  // A property-level @key before a body-level one: the body-level one is
  // the second in the file.
  EXPECT_EQ(SchemaErrorLine("node A {\n  x: String @key\n  y: String\n  @key(y)\n}"),
            "parse error: test.pg:4:3: node type A has multiple @key constraints; only one is supported");
  MustCompile("node P { a: String b: String @key(a, b) }");
}

TEST(SchemaKey, KeyPropertyRules) {
  EXPECT_EQ(SchemaErrorLine("node P { a: String? @key }"), "parse error: test.pg:1:21: @key property P.a cannot be nullable");
  EXPECT_EQ(SchemaErrorLine("node P { a: String?\n @key(a) }"), "parse error: test.pg:2:7: @key property P.a cannot be nullable");
  EXPECT_EQ(SchemaErrorLine("node P { a: [String] @key }"),
            "parse error: test.pg:1:22: @key is not supported on list property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: [String] @key(a) }"),
            "parse error: test.pg:1:27: @key is not supported on list property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: Vector(2) @key }"),
            "parse error: test.pg:1:23: @key is not supported on vector property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: Vector(2) @key(a) }"),
            "parse error: test.pg:1:28: @key is not supported on vector property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: Blob @key }"), "parse error: test.pg:1:18: @key is not supported on blob property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: Blob @key(a) }"),
            "parse error: test.pg:1:23: @key is not supported on blob property P.a");
  EXPECT_EQ(SchemaErrorLine("node P { a: String @key(b) }"),
            "parse error: test.pg:1:25: @key on P references unknown property 'b'");
  EXPECT_EQ(SchemaErrorLine("node P { a: String @key(a, a) }"),
            "parse error: test.pg:1:28: @key on P lists property 'a' more than once");
  EXPECT_EQ(SchemaErrorLine("node P { a: String @key @key }"),
            "parse error: test.pg:1:25: property P.a declares @key multiple times");
  EXPECT_EQ(SchemaErrorLine("node P { a: String @key(\"x\") }"),
            "parse error: test.pg:1:25: expected property name in constraint");
  // Every scalar kind other than Blob may be a key.
  MustCompile("node P { a: Bool b: I32 c: U64 d: F32 e: Date f: DateTime g: enum(x, y) @key(a, b, c, d, e, f, g) }");
}

TEST(SchemaKey, KeyIsRejectedOnEdges) {
  const char* nodes = "node A { n: String }\n";
  EXPECT_EQ(SchemaErrorLine(std::string(nodes) + "edge E: A -> A { w: String @key }"),
            "parse error: test.pg:2:28: @key is not supported on edge properties (edge E.w)");
  EXPECT_EQ(SchemaErrorLine(std::string(nodes) + "edge E: A -> A { w: String @key(w) }"),
            "parse error: test.pg:2:28: @key constraint is not supported on edges (edge E)");
  EXPECT_EQ(SchemaErrorLine(std::string(nodes) + "edge E: A -> A @key { w: String }"),
            "parse error: test.pg:2:16: @key is not supported on edges (edge E)");
}

TEST(SchemaUnique, NodeAndEdgeForms) {
  Catalog c = MustCompile(
      "node A { n: String @unique m: I32? }\n"
      "edge E: A -> A { w: I32? @unique note: String? @unique(src, dst) @unique(src, note) }");
  EXPECT_EQ(c.FindNode("A")->uniques, (std::vector<std::vector<std::string>>{{"n"}}));
  EXPECT_EQ(c.FindEdge("E")->uniques,
            (std::vector<std::vector<std::string>>{{"src", "dst"}, {"src", "note"}, {"w"}}));
  // `__src`/`__dst` (a later upstream spelling) name the same columns.
  Catalog later = MustCompile("node A { n: String }\nedge E: A -> A { @unique(__src, __dst) @index(__dst) }");
  EXPECT_EQ(later.FindEdge("E")->uniques, (std::vector<std::vector<std::string>>{{"src", "dst"}}));
  EXPECT_EQ(later.FindEdge("E")->indexes, (std::vector<std::vector<std::string>>{{"dst"}}));
  EXPECT_EQ(SchemaErrorLine("node A { n: String @unique(src) }"),
            "parse error: test.pg:1:28: @unique on A references unknown property 'src'");
  EXPECT_EQ(SchemaErrorLine("node A { n: Blob? @unique }"), "parse error: test.pg:1:19: @unique is not supported on blob property A.n");
  EXPECT_EQ(SchemaErrorLine("node A { n: Blob? @unique(n) }"),
            "parse error: test.pg:1:27: @unique is not supported on blob property A.n");
  EXPECT_EQ(SchemaErrorLine("node A { n: [I32] @unique }"),
            "parse error: test.pg:1:19: @unique is not supported on list property A.n");
  EXPECT_EQ(SchemaErrorLine("node A { n: [I32] @unique(n) }"),
            "parse error: test.pg:1:27: @unique is not supported on list property A.n");
  EXPECT_EQ(SchemaErrorLine("node A { n: Vector(2) @unique(n) }"),
            "parse error: test.pg:1:31: @unique is not supported on vector property A.n");
  EXPECT_EQ(SchemaErrorLine("node A { n: String @unique(x) }"),
            "parse error: test.pg:1:28: @unique on A references unknown property 'x'");
  EXPECT_EQ(SchemaErrorLine("node A { n: String @unique(\"n\") }"),
            "parse error: test.pg:1:28: expected property name in constraint");
  EXPECT_EQ(SchemaErrorLine("node A { n: String @unique(1) }"),
            "parse error: test.pg:1:28: expected property name in constraint");
}

TEST(SchemaIndex, Placement) {
  Catalog c = MustCompile(
      "node A { n: String @index tags: [String] v: Vector(3) @index @index(tags) }\n"
      "edge E: A -> A { w: I32? @index @index(src) @index(dst, w) }");
  EXPECT_EQ(c.FindNode("A")->indexes, (std::vector<std::vector<std::string>>{{"tags"}, {"n"}, {"v"}}));
  EXPECT_EQ(c.FindEdge("E")->indexes, (std::vector<std::vector<std::string>>{{"src"}, {"dst", "w"}, {"w"}}));
  EXPECT_EQ(SchemaErrorLine("node A { b: Blob? @index }"), "parse error: test.pg:1:19: @index is not supported on blob property A.b");
  EXPECT_EQ(SchemaErrorLine("node A { b: Blob? @index(b) }"),
            "parse error: test.pg:1:26: @index is not supported on blob property A.b");
  EXPECT_EQ(SchemaErrorLine("node A { t: [String] @index }"),
            "parse error: test.pg:1:22: @index is not supported on list property A.t");
  EXPECT_EQ(SchemaErrorLine("node A { t: String @index(x) }"),
            "parse error: test.pg:1:27: @index on A references unknown property 'x'");
  EXPECT_EQ(SchemaErrorLine("node A { t: String @index(1) }"),
            "parse error: test.pg:1:27: expected property name in constraint");
  EXPECT_EQ(SchemaErrorLine("node A { t: String @index @index }"),
            "parse error: test.pg:1:27: property A.t declares @index multiple times");
  EXPECT_EQ(SchemaErrorLine("node A { t: String @index @index(t) }"),
            "");  // body and property form of one tuple: listed once
}

TEST(SchemaRange, NumericOnlyWithInclusiveBounds) {
  Catalog c = MustCompile(
      "node A { i: I32 u: U64 f: F32 d: F64 l: I64\n"
      "  @range(i, 0..150) @range(u, 1..) @range(f, ..10.5) @range(d, -1.5..2) @range(l, 99999999999999999999..) }");
  const NodeType* a = c.FindNode("A");
  ASSERT_EQ(a->ranges.size(), 5u);
  EXPECT_EQ(a->ranges[0].property, "i");
  EXPECT_EQ(a->ranges[0].min->int_value, 0);
  EXPECT_EQ(a->ranges[0].max->int_value, 150);
  EXPECT_EQ(a->ranges[2].max->ToString(), "10.5");
  EXPECT_EQ(a->ranges[3].min->ToString(), "-1.5");
  EXPECT_EQ(a->ranges[3].max->ToString(), "2");
  EXPECT_TRUE(a->ranges[4].min->is_float);  // beyond i64: read as a float
  EXPECT_EQ(SchemaErrorLine("node A { s: String @range(s, 0..1) }"),
            "parse error: test.pg:1:27: @range on A.s requires a numeric type, got String");
  EXPECT_EQ(SchemaErrorLine("node A { s: [I32] @range(s, 0..1) }"),
            "parse error: test.pg:1:26: @range on A.s requires a numeric type, got [I32]");
  EXPECT_EQ(SchemaErrorLine("node A { s: Date @range(s, 0..1) }"),
            "parse error: test.pg:1:25: @range on A.s requires a numeric type, got Date");
  EXPECT_EQ(SchemaErrorLine("node A { s: I32 @range(t, 0..1) }"),
            "parse error: test.pg:1:24: @range on A references unknown property 't'");
  EXPECT_EQ(SchemaErrorLine("node A { s: I32 @range(s, 5..1) }"),
            "parse error: test.pg:1:17: @range on A.s has min 5 greater than max 1");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A { w: I32 @range(w, 0..1) }"),
            "parse error: test.pg:2:25: @range constraint is not supported on edges (edge E)");
}

TEST(SchemaCheck, StringOnly) {
  Catalog c = MustCompile("node A { code: String status: enum(a, b) @check(code, \"^[A-Z]+$\") @check(status, \"a\") }");
  ASSERT_EQ(c.FindNode("A")->checks.size(), 2u);
  EXPECT_EQ(c.FindNode("A")->checks[0].pattern, "^[A-Z]+$");
  // Regex validity is checked when a write is validated (§1.4).
  MustCompile("node A { code: String @check(code, \"([unclosed\") }");
  EXPECT_EQ(SchemaErrorLine("node A { n: I32 @check(n, \"x\") }"),
            "parse error: test.pg:1:24: @check on A.n requires String type, got I32");
  EXPECT_EQ(SchemaErrorLine("node A { n: [String] @check(n, \"x\") }"),
            "parse error: test.pg:1:29: @check on A.n requires String type, got [String]");
  EXPECT_EQ(SchemaErrorLine("node A { n: String @check(m, \"x\") }"),
            "parse error: test.pg:1:27: @check on A references unknown property 'm'");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A { w: String @check(w, \"x\") }"),
            "parse error: test.pg:2:28: @check constraint is not supported on edges (edge E)");
}

TEST(SchemaEmbed, VectorPropertiesWithStringSource) {
  Catalog c = MustCompile(
      "node Doc { body: String? title: String\n"
      "  v: Vector(3) @embed(body)\n"
      "  w: Vector(3)? @embed(\"title\", model=\"openai/text-embedding-3-large\") }");
  const NodeType* d = c.FindNode("Doc");
  EXPECT_EQ(*d->FindProperty("v")->embed_source, "body");
  EXPECT_FALSE(d->FindProperty("v")->embed_model.has_value());
  EXPECT_EQ(*d->FindProperty("w")->embed_source, "title");
  EXPECT_EQ(*d->FindProperty("w")->embed_model, "openai/text-embedding-3-large");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: String @embed(s) }"),
            "parse error: test.pg:1:30: @embed is only supported on vector properties (D.v)");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed }"),
            "parse error: test.pg:1:33: @embed on D.v requires a source property name");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed(\" \") }"),
            "parse error: test.pg:1:33: @embed on D.v requires a non-empty source property name");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed(t) }"),
            "parse error: test.pg:1:40: @embed on D.v references unknown source property t");
  EXPECT_EQ(SchemaErrorLine("node D { s: I32 v: Vector(2) @embed(s) }"),
            "parse error: test.pg:1:37: @embed source property D.s must be String");
  EXPECT_EQ(SchemaErrorLine("node D { s: [String] v: Vector(2) @embed(s) }"),
            "parse error: test.pg:1:42: @embed source property D.s must be String");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed(s, dims=2) }"),
            "parse error: test.pg:1:48: @embed on D.v has unknown argument 'dims=' (only 'model' is supported)");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed(s) @embed(s) }"),
            "parse error: test.pg:1:43: property D.v declares @embed multiple times");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: [String] @embed(s) }"),
            "parse error: test.pg:1:32: @embed is not supported on list property D.v");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Blob @embed(s) }"),
            "parse error: test.pg:1:28: @embed is not supported on blob property D.v");
  EXPECT_EQ(SchemaErrorLine("node D @embed(s) { s: String }"),
            "parse error: test.pg:1:8: @embed is only supported on node properties or as body constraint (node D)");
  EXPECT_EQ(SchemaErrorLine("node A { n: String }\nedge E: A -> A { s: String v: Vector(2) @embed(s) }"),
            "parse error: test.pg:2:41: @embed is not supported on edge properties (edge E.v)");
  EXPECT_EQ(SchemaErrorLine("node D { s: String v: Vector(2) @embed(s, model=\"a\", model=\"b\") }"),
            "parse error: test.pg:1:60: annotation @embed repeats keyword argument 'model'");
}

TEST(SchemaAnnotations, DescriptionAndInstruction) {
  Catalog c = MustCompile(
      "node P @description(\"people\") @instruction(\"be nice\") { name: String @description(\"full name\") }\n"
      "edge E: P -> P @description(\"e\") @instruction(\"i\") { w: I32? @description(\"weight\") }");
  EXPECT_EQ(*c.FindNode("P")->description, "people");
  EXPECT_EQ(*c.FindNode("P")->instruction, "be nice");
  EXPECT_EQ(*c.FindNode("P")->FindProperty("name")->description, "full name");
  EXPECT_EQ(*c.FindEdge("E")->instruction, "i");
  EXPECT_EQ(*c.FindEdge("E")->FindProperty("w")->description, "weight");
  EXPECT_EQ(SchemaErrorLine("node P @description(\"\") { n: I32 }"),
            "parse error: test.pg:1:8: @description on node P requires a non-empty value");
  EXPECT_EQ(SchemaErrorLine("node P @description { n: I32 }"),
            "parse error: test.pg:1:8: @description on node P requires a non-empty value");
  EXPECT_EQ(SchemaErrorLine("node P @description(\"a\") @description(\"b\") { n: I32 }"),
            "parse error: test.pg:1:26: node P declares @description multiple times");
  EXPECT_EQ(SchemaErrorLine("node P @instruction(\"  \") { n: I32 }"),
            "parse error: test.pg:1:8: @instruction on node P requires a non-empty value");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 @instruction(\"x\") }"),
            "parse error: test.pg:1:17: @instruction is only supported on node and edge types (property P.n)");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 @description(\"a\") @description(\"b\") }"),
            "parse error: test.pg:1:35: property P.n declares @description multiple times");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P @instruction(\"a\") @instruction(\"b\")"),
            "parse error: test.pg:2:34: edge E declares @instruction multiple times");
}

TEST(SchemaAnnotations, RenameFrom) {
  Catalog c = MustCompile(
      "interface I { x: I32 @rename_from(\"y\") }\n"
      "node P @rename_from(\"Person\") { n: I32 @rename_from(\"m\") }\nedge E: P -> P @rename_from(\"Rel\")");
  EXPECT_EQ(*c.FindNode("P")->rename_from, "Person");
  EXPECT_EQ(*c.FindNode("P")->FindProperty("n")->rename_from, "m");
  EXPECT_EQ(*c.FindEdge("E")->rename_from, "Rel");
  EXPECT_EQ(SchemaErrorLine("node P @rename_from { n: I32 }"),
            "parse error: test.pg:1:8: @rename_from on node P requires exactly one non-empty positional value");
  EXPECT_EQ(SchemaErrorLine("node P @rename_from(\"\") { n: I32 }"),
            "parse error: test.pg:1:8: @rename_from on node P requires exactly one non-empty positional value");
  EXPECT_EQ(SchemaErrorLine("node P @rename_from(\"A\", x=1) { n: I32 }"),
            "parse error: test.pg:1:8: @rename_from on node P does not accept keyword arguments");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 @rename_from(\"a\") @rename_from(\"b\") }"),
            "parse error: test.pg:1:35: property P.n declares @rename_from multiple times");
  EXPECT_EQ(SchemaErrorLine("interface I { x: I32 @rename_from(\"\") }"),
            "parse error: test.pg:1:22: @rename_from on property I.x requires exactly one non-empty positional value");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P @rename_from(\"a\") @rename_from(\"b\")"),
            "parse error: test.pg:2:34: edge E declares @rename_from multiple times");
}

TEST(SchemaAnnotations, CustomAnnotationsAreKept) {
  Catalog c = MustCompile(
      "node P @owner(\"team-a\", since=2024, tier=\"gold\") @flagged { n: I32 @pii @sensitivity(3) }");
  const NodeType* p = c.FindNode("P");
  ASSERT_EQ(p->annotations.size(), 2u);
  EXPECT_EQ(p->annotations[0].name, "owner");
  EXPECT_EQ(*p->annotations[0].value, "team-a");
  EXPECT_EQ(p->annotations[0].kwargs,
            (std::vector<std::pair<std::string, std::string>>{{"since", "2024"}, {"tier", "gold"}}));
  EXPECT_FALSE(p->annotations[1].value.has_value());
  ASSERT_EQ(p->FindProperty("n")->annotations.size(), 2u);
  EXPECT_EQ(*p->FindProperty("n")->annotations[1].value, "3");
}

TEST(SchemaAnnotations, PropertyLevelConstraintsTakeNoValue) {
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 @unique(\"x\") }"),
            "parse error: test.pg:1:25: expected property name in constraint");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 @unique @unique }"),
            "parse error: test.pg:1:25: property P.n declares @unique multiple times");
}

TEST(SchemaAnnotations, TypeLevelConstraintAnnotationsAreRejected) {
  for (const char* name : {"key", "unique", "index"}) {
    EXPECT_EQ(SchemaErrorLine("node P @" + std::string(name) + " { n: I32 }"),
              "parse error: test.pg:1:8: @" + std::string(name) +
                  " is only supported on node properties or as body constraint (node P)");
    EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P @" + std::string(name)),
              "parse error: test.pg:2:16: @" + std::string(name) + " is not supported on edges (edge E)");
  }
}

TEST(SchemaAnnotations, VectorAndBlobPlacement) {
  EXPECT_EQ(SchemaErrorLine("node P { v: Vector(2) @unique }"),
            "parse error: test.pg:1:23: @unique is not supported on vector property P.v");
  EXPECT_EQ(SchemaErrorLine("node P { b: Blob @index }"), "parse error: test.pg:1:18: @index is not supported on blob property P.b");
  EXPECT_EQ(SchemaErrorLine("node P { b: Blob @embed(\"x\") }"),
            "parse error: test.pg:1:18: @embed is not supported on blob property P.b");
}

// ---- §1.5 interfaces --------------------------------------------------------

TEST(SchemaInterface, InjectionAndConformance) {
  Catalog c = MustCompile(
      "interface Named { name: String @key @description(\"n\") }\n"
      "interface Dated { created: DateTime? @index status: enum(b, a)? }\n"
      "node Person implements Named, Dated { age: I32? status: enum(a, b)? }\n");
  const NodeType* p = c.FindNode("Person");
  EXPECT_EQ(p->implements, (std::vector<std::string>{"Named", "Dated"}));
  ASSERT_NE(p->FindProperty("name"), nullptr);
  EXPECT_FALSE(p->FindProperty("name")->declared_directly);
  EXPECT_EQ(p->FindProperty("name")->interfaces, std::vector<std::string>{"Named"});
  EXPECT_EQ(*p->FindProperty("name")->description, "n");
  EXPECT_TRUE(p->FindProperty("status")->declared_directly);
  EXPECT_EQ(p->FindProperty("status")->interfaces, std::vector<std::string>{"Dated"});
  EXPECT_EQ(p->key, std::vector<std::string>{"name"});  // injected @key becomes the node's key
  EXPECT_EQ(p->indexes, (std::vector<std::vector<std::string>>{{"name"}, {"created"}}));
  EXPECT_EQ(c.NodeTableSchema(*p).num_fields(), 5);
  EXPECT_EQ(c.FindNode("Person"), p);
  EXPECT_EQ(c.FindNode("Named"), nullptr);  // interfaces are not node types
}

TEST(SchemaInterface, ExactTypeConformance) {
  EXPECT_EQ(SchemaErrorLine("interface I { x: I32 }\nnode P implements I { x: I32? }"),
            "parse error: test.pg:2:26: node P property 'x' has type I32? but interface I declares it as I32");
  EXPECT_EQ(SchemaErrorLine("interface I { x: enum(a, b) }\nnode P implements I { x: enum(a, b, c) }"),
            "parse error: test.pg:2:26: node P property 'x' has type enum(a, b, c) but interface I declares it as "
            "enum(a, b)");
  EXPECT_EQ(SchemaErrorLine("interface I { x: I32 }\ninterface J { x: I64 }\nnode P implements I, J { y: I32 }"),
            "parse error: test.pg:3:22: node P property 'x' has type I32 but interface J declares it as I64");
  EXPECT_EQ(SchemaErrorLine("node P implements Missing { y: I32 }"),
            "parse error: test.pg:1:19: node P implements unknown interface 'Missing'");
  // The node's own @key comes after the interface's in the file.
  EXPECT_EQ(SchemaErrorLine("interface I { k: String @key }\nnode P implements I { j: String @key }"),
            "parse error: test.pg:2:33: node type P has multiple @key constraints; only one is supported");
}

// ---- §1.8 reserved names, catalog rules -------------------------------------

TEST(SchemaCatalogRules, PhysicalColumnNamesCollide) {
  EXPECT_EQ(SchemaErrorLine("node P { id: String }"),
            "parse error: test.pg:1:10: property P.id collides with the physical column 'id'");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P { src: String }"),
            "parse error: test.pg:2:18: property E.src collides with the physical column 'src'");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P { dst: String }"),
            "parse error: test.pg:2:18: property E.dst collides with the physical column 'dst'");
  MustCompile("node P { src: String dst: String ident: I32 }");  // only `id` on nodes
}

TEST(SchemaCatalogRules, DuplicatesEndpointsAndCaseFolding) {
  EXPECT_EQ(SchemaError("node P { n: I32 }\nnode P { m: I32 }"),
            "catalog error: test.pg:2:6: duplicate node type: P\n"
            "2 | node P { m: I32 }\n"
            "  |      ^");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> P\nedge E: P -> P"),
            "catalog error: test.pg:3:6: duplicate edge type: E");
  EXPECT_EQ(SchemaErrorLine("interface I { n: I32 }\ninterface I { m: I32 }"),
            "catalog error: test.pg:2:11: duplicate interface type: I");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: X -> P"),
            "catalog error: test.pg:2:9: edge E references unknown source type: X");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge E: P -> Y"),
            "catalog error: test.pg:2:14: edge E references unknown target type: Y");
  EXPECT_EQ(SchemaErrorLine("interface I { n: I32 }\nedge E: I -> I"),
            "catalog error: test.pg:2:9: edge E references unknown source type: I");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nedge WorksAt: P -> P\nedge Worksat: P -> P"),
            "catalog error: test.pg:3:6: edge name collision after case folding: 'Worksat' conflicts with 'WorksAt'");
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 n: I64 }"),
            "parse error: test.pg:1:17: node P declares property 'n' more than once");
  // A node and an edge may share a name (separate namespaces).
  MustCompile("node Shared { n: I32 }\nedge Shared: Shared -> Shared");
}

TEST(SchemaCatalogRules, ParseErrorsWinOverCatalogErrors) {
  EXPECT_EQ(SchemaErrorLine("node P { n: I32 }\nnode P { m: I32? @key }"),
            "parse error: test.pg:2:18: @key property P.m cannot be nullable");
}

// ---- canonical IR -----------------------------------------------------------

TEST(SchemaIr, ExactJsonForASmallSchema) {
  Catalog c = MustCompile(
      "node Person @description(\"p\") { name: String @key age: I32? @range(age, 0..150) }\n"
      "edge Knows: Person -> Person @card(0..5) { since: Date? }");
  EXPECT_EQ(c.ToIrJson(),
            R"({"ir_version":1,"next_identity_id":6,"interfaces":[],"nodes":[{"name":"Person","type_id":1,)"
            R"("implements":[],"description":"p","instruction":null,"rename_from":null,"annotations":[)"
            R"({"name":"description","value":"p","kwargs":[]}],"properties":[{"name":"age","property_id":3,)"
            R"("type":{"kind":"scalar","scalar":"I32","nullable":true,"display":"I32?"},"declared_directly":true,)"
            R"("interfaces":[],"description":null,"rename_from":null,"embed":null,"annotations":[]},)"
            R"({"name":"name","property_id":4,"type":{"kind":"scalar","scalar":"String","nullable":false,)"
            R"("display":"String"},"declared_directly":true,"interfaces":[],"description":null,"rename_from":null,)"
            R"("embed":null,"annotations":[{"name":"key","value":null,"kwargs":[]}]}],"key":["name"],"uniques":[],)"
            R"("indexes":[["name"]],"ranges":[{"property":"age","min":0,"max":150}],"checks":[]}],"edges":[)"
            R"({"name":"Knows","type_id":2,"from":"Person","to":"Person","card":{"min":0,"max":5},)"
            R"("description":null,"instruction":null,"rename_from":null,"annotations":[],"properties":[)"
            R"({"name":"since","property_id":5,"type":{"kind":"scalar","scalar":"Date","nullable":true,)"
            R"("display":"Date?"},"declared_directly":true,"interfaces":[],"description":null,)"
            R"("rename_from":null,"embed":null,"annotations":[]}],"uniques":[],"indexes":[]}]})");
  EXPECT_EQ(c.IrHash().size(), 16u);
}

TEST(SchemaIr, ByteStableAcrossFormattingAndDeclarationOrder) {
  const char* a =
      "node Person { name: String @key tags: [String]? v: Vector(2)? @embed(name, model=\"m\") }\n"
      "node Company { name: String @key kind: enum(b, a) }\n"
      "edge WorksAt: Person -> Company @card(1..1) { title: String? }\n";
  const char* b =
      "// reordered and reformatted\n"
      "edge WorksAt : Person -> Company @card( 1 .. 1 ) {\n  title : String?\n}\n"
      "node Company {\n  kind: enum(a, b)\n  name: String @key\n}\n"
      "node Person {\n  v: Vector( 2 )? @embed(name, model = \"m\")\n  tags: [ String ]?\n  name: String @key\n}\n";
  Catalog ca = MustCompile(a);
  Catalog cb = MustCompile(b);
  EXPECT_EQ(ca.ToIrJson(), cb.ToIrJson());
  EXPECT_EQ(ca.IrHash(), cb.IrHash());
  EXPECT_EQ(ca.IrHash(), MustCompile(a).IrHash());  // deterministic
  Catalog changed = MustCompile(std::string(a) + "node Extra { n: I32 }");
  EXPECT_NE(ca.IrHash(), changed.IrHash());
}

TEST(SchemaCases, SharedCaseSchemasCompile) {
  // Smoke check of the shared schemas used by the CLI cases.
  Catalog b12 = MustCompile(
      "node Tweet {\n    id_num: I64 @key\n    views: U64?\n    small: I32?\n    ratio: F32?\n    score: F64?\n}\n");
  EXPECT_EQ(b12.FindNode("Tweet")->key, std::vector<std::string>{"id_num"});
}

}  // namespace catalog_test
}  // namespace omnigraph::compiler
