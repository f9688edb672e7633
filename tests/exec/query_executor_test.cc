// The read-query executor (spec/surface.md §2.4–§2.8, §8 fixture
// expectations, §9 items 5–10) on graphs built through the embedded API,
// including the read steps of the shared cases B01, B10, B11 and B12.
#include "exec/query_executor.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/omnigraph.h"
#include "columnar/builder.h"
#include "compiler/catalog.h"
#include "compiler/typecheck.h"
#include "exec/result_format.h"
#include "exec/topology.h"
#include "exec/topology_file.h"
#include "support/temp_dir.h"

namespace omnigraph::exec {
namespace query_executor_test {

using Rows = std::vector<std::string>;
using Params = std::map<std::string, Scalar>;

std::string ReadCaseFile(const std::string& case_name, const std::string& file) {
  std::ifstream in(std::string(OMNIGRAPH_SHARED_DIR) + "/cases/" + case_name + "/" + file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// §8 fixture: test.pg / test.jsonl, written from the spec's description.
constexpr std::string_view kSocialSchema = R"(
node Person {
    name: String @key
    age: I32?
}
node Company {
    name: String @key
}
edge Knows: Person -> Person {
    since: Date?
}
edge WorksAt: Person -> Company
)";

constexpr std::string_view kSocialData = R"({"type": "Person", "data": {"name": "Alice", "age": 30}}
{"type": "Person", "data": {"name": "Bob", "age": 25}}
{"type": "Person", "data": {"name": "Charlie", "age": 35}}
{"type": "Person", "data": {"name": "Diana", "age": 28}}
{"type": "Company", "data": {"name": "Acme"}}
{"type": "Company", "data": {"name": "Globex"}}
{"edge": "Knows", "from": "Alice", "to": "Bob"}
{"edge": "Knows", "from": "Alice", "to": "Charlie"}
{"edge": "Knows", "from": "Bob", "to": "Diana"}
{"edge": "WorksAt", "from": "Alice", "to": "Acme"}
{"edge": "WorksAt", "from": "Bob", "to": "Globex"}
)";

constexpr std::string_view kSocialQueries = R"(
query get_person($name: String) {
    match { $p: Person { name: $name } }
    return { $p.name, $p.age }
}
query adults() {
    match { $p: Person  $p.age > 30 }
    return { $p.name, $p.age }
    order { $p.name }
}
query friends_of($name: String) {
    match { $p: Person { name: $name }  $p knows $f }
    return { $f.name }
}
query employees_of($company: String) {
    match { $c: Company { name: $company }  $p worksAt $c }
    return { $p.name }
}
query friends_of_friends($name: String) {
    match { $p: Person { name: $name }  $p knows $mid  $mid knows $fof }
    return { $fof.name }
}
query unemployed() {
    match { $p: Person  not { $p worksAt $_ } }
    return { $p.name }
    order { $p.name }
}
query friend_counts() {
    match { $p: Person  $p knows $f }
    return { $p.name, count($f) as friends }
    order { friends desc }
}
query top_by_age() {
    match { $p: Person }
    return { $p.name, $p.age }
    order { $p.age desc }
    limit 2
}
query total_people() {
    match { $p: Person }
    return { count($p) as total }
}
query age_stats() {
    match { $p: Person  $p worksAt $c }
    return { $c.name, sum($p.age) as total_age, avg($p.age) as avg_age, min($p.age) as youngest,
             max($p.age) as oldest, count($p) as headcount }
    order { $c.name }
}
query top_connected() {
    match { $p: Person  $p knows $f }
    return { $p.name, count($f) as friends }
    order { friends desc }
    limit 1
}
query undirected($name: String) {
    match { $p: Person { name: $name }  $p <knows> $f }
    return { $f.name }
    order { $f.name }
}
)";

class QueryExecutorTest : public ::testing::Test {
 protected:
  void Build(std::string_view schema, std::string_view data) {
    auto graph = api::Omnigraph::Init(dir_.path() + "/g" + std::to_string(graphs_++), schema);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    graph_ = std::move(graph).value();
    if (!data.empty()) Load(data, api::LoadMode::kOverwrite);
  }

  void Load(std::string_view data, api::LoadMode mode) {
    auto load = graph_->Load(data, "data.jsonl", mode);
    ASSERT_TRUE(load.ok()) << load.status().ToString();
  }

  Result<QueryResult> Run(std::string_view source, std::string_view name, const Params& params = {}) {
    OG_ASSIGN_OR_RETURN(std::shared_ptr<const compiler::Catalog> catalog, graph_->Catalog());
    OG_ASSIGN_OR_RETURN(compiler::ir::QueryIR query, compiler::CompileQuery(*catalog, source, "queries.gq", name));
    OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, graph_->store().Latest());
    QueryContext context{&snapshot, catalog.get(), &params, &api::Engine::Process()->topologies()};
    return ExecuteRead(query, context);
  }

  // Rows as compact JSON objects (§2.10), in result order.
  Rows Query(std::string_view source, std::string_view name, const Params& params = {}) {
    auto result = Run(source, name, params);
    if (!result.ok()) return {"error: " + result.status().ToString()};
    Rows rows;
    for (int64_t r = 0; r < result->row_count(); ++r) rows.push_back(RowJson(*result, r));
    return rows;
  }

  // Rows sorted bytewise (unordered comparison, like the cases' `urows`).
  Rows Sorted(std::string_view source, std::string_view name, const Params& params = {}) {
    Rows rows = Query(source, name, params);
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // The full message of a failing query.
  std::string Error(std::string_view source, std::string_view name, const Params& params = {}) {
    auto result = Run(source, name, params);
    return result.ok() ? "ok" : result.status().message();
  }

  testing::TempDir dir_;
  int graphs_ = 0;
  std::unique_ptr<api::Omnigraph> graph_;
};

Scalar S(std::string v) { return Scalar::String(std::move(v)); }
Scalar I(int64_t v) { return Scalar::Int(v); }

// ---------------------------------------------------------------------------
// B01: self-loops in one-hop, bounded and undirected traversals.

class B01Test : public QueryExecutorTest {
 protected:
  void SetUp() override {
    Build(ReadCaseFile("B01", "schema.pg"), ReadCaseFile("B01", "data.jsonl"));
    queries_ = ReadCaseFile("B01", "queries.gq");
  }
  std::string queries_;
};

TEST_F(B01Test, PlainOneHopShowsTheSelfLoop) {
  Rows expected = {R"({"p.name":"alice","f.name":"bob"})", R"({"p.name":"bob","f.name":"bob"})",
                   R"({"p.name":"carol","f.name":"alice"})"};
  EXPECT_EQ(Sorted(queries_, "plain"), expected);
  EXPECT_EQ(Sorted(queries_, "one_one"), expected);
  EXPECT_EQ(Sorted(queries_, "bound"), expected);
}

TEST_F(B01Test, UndirectedOneHopDeduplicates) {
  EXPECT_EQ(Sorted(queries_, "undirected"),
            (Rows{R"({"p.name":"alice","f.name":"bob"})", R"({"p.name":"alice","f.name":"carol"})",
                  R"({"p.name":"bob","f.name":"alice"})", R"({"p.name":"bob","f.name":"bob"})",
                  R"({"p.name":"carol","f.name":"alice"})"}));
}

TEST_F(B01Test, ClosingASelfLoop) { EXPECT_EQ(Sorted(queries_, "self_loop"), (Rows{R"({"p.name":"bob"})"})); }

TEST_F(B01Test, BoundedHopsUseShortestDistances) {
  EXPECT_EQ(Sorted(queries_, "exactly_two"), (Rows{R"({"p.name":"carol","f.name":"bob"})"}));
  EXPECT_EQ(Sorted(queries_, "one_to_two"),
            (Rows{R"({"p.name":"alice","f.name":"bob"})", R"({"p.name":"bob","f.name":"bob"})",
                  R"({"p.name":"carol","f.name":"alice"})", R"({"p.name":"carol","f.name":"bob"})"}));
  EXPECT_EQ(Sorted(queries_, "exactly_three"), Rows{});
  EXPECT_EQ(Sorted(queries_, "undirected_exactly_two"),
            (Rows{R"({"p.name":"bob","f.name":"carol"})", R"({"p.name":"carol","f.name":"bob"})"}));
}

// ---------------------------------------------------------------------------
// B10: duplicate ids and repeated merges, read back through queries.

TEST_F(QueryExecutorTest, B10ReadsAfterMerges) {
  Build(ReadCaseFile("B10", "schema.pg"), ReadCaseFile("B10", "data.jsonl"));
  const std::string q = ReadCaseFile("B10", "queries.gq");
  EXPECT_EQ(Query(q, "things"),
            (Rows{R"({"t.key":"T1","t.required_val":"r1","t.optional_val":"o1"})",
                  R"({"t.key":"T2","t.required_val":"r2","t.optional_val":"o2"})",
                  R"({"t.key":"T3","t.required_val":"r3","t.optional_val":"o3"})"}));
  EXPECT_EQ(Query(q, "notes"), Rows{});
  Load(ReadCaseFile("B10", "dup_note_id.jsonl"), api::LoadMode::kMerge);
  EXPECT_EQ(Query(q, "notes"), (Rows{R"({"n.body":"second"})"}));
  Load(ReadCaseFile("B10", "dup_edge_id.jsonl"), api::LoadMode::kMerge);
  EXPECT_EQ(Query(q, "links"), (Rows{R"({"a.key":"T1","b.key":"T2","l.weight":1})",
                                     R"({"a.key":"T2","b.key":"T3","l.weight":6})"}));
  Load(ReadCaseFile("B10", "partial.jsonl"), api::LoadMode::kMerge);
  Load(ReadCaseFile("B10", "partial.jsonl"), api::LoadMode::kMerge);
  EXPECT_EQ(Query(q, "things"),
            (Rows{R"({"t.key":"T1","t.required_val":"r1 updated","t.optional_val":null})",
                  R"({"t.key":"T2","t.required_val":"r2","t.optional_val":"o2"})",
                  R"({"t.key":"T3","t.required_val":"r3","t.optional_val":"o3"})",
                  R"({"t.key":"T4","t.required_val":"r4","t.optional_val":null})"}));
  // A parallel edge: one row per edge with an edge binding.
  Load(ReadCaseFile("B10", "edge_again.jsonl"), api::LoadMode::kMerge);
  EXPECT_EQ(Query(q, "links"), (Rows{R"({"a.key":"T1","b.key":"T2","l.weight":1})",
                                     R"({"a.key":"T1","b.key":"T2","l.weight":1})",
                                     R"({"a.key":"T2","b.key":"T3","l.weight":6})"}));
}

// ---------------------------------------------------------------------------
// B11: reads of the dangling-endpoint case (the loads that succeed).

TEST_F(QueryExecutorTest, B11Reads) {
  Build(ReadCaseFile("B11", "schema.pg"), ReadCaseFile("B11", "data.jsonl"));
  const std::string q = ReadCaseFile("B11", "queries.gq");
  EXPECT_EQ(Query(q, "people"), (Rows{R"({"p.name":"alice"})", R"({"p.name":"bob"})"}));
  Load(ReadCaseFile("B11", "forward_ref.jsonl"), api::LoadMode::kMerge);
  EXPECT_EQ(Query(q, "jobs"),
            (Rows{R"({"p.name":"alice","c.name":"acme"})", R"({"p.name":"erin","c.name":"initech"})"}));
  EXPECT_EQ(Query(q, "companies"), (Rows{R"({"c.name":"acme"})", R"({"c.name":"initech"})"}));
}

// ---------------------------------------------------------------------------
// B12: exact 64-bit values.

class B12Test : public QueryExecutorTest {
 protected:
  void SetUp() override {
    Build(ReadCaseFile("B12", "schema.pg"), ReadCaseFile("B12", "data.jsonl"));
    queries_ = ReadCaseFile("B12", "queries.gq");
  }
  std::string queries_;
};

TEST_F(B12Test, AllRowsExactValues) {
  auto result = Run(queries_, "all");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->row_count(), 4);
  const RecordBatch& rows = *result->rows;
  EXPECT_EQ(result->columns, (std::vector<std::string>{"t.id_num", "t.views", "t.small", "t.ratio", "t.score"}));
  EXPECT_EQ(rows.column(0)->type_id(), TypeId::kInt64);
  EXPECT_EQ(rows.column(1)->type_id(), TypeId::kUInt64);
  EXPECT_EQ(rows.column(2)->type_id(), TypeId::kInt32);
  EXPECT_EQ(rows.column(3)->type_id(), TypeId::kFloat32);
  EXPECT_EQ(rows.column(4)->type_id(), TypeId::kFloat64);
  std::vector<int64_t> ids;
  for (int64_t r = 0; r < 4; ++r) ids.push_back(rows.column(0)->Value<int64_t>(r));
  EXPECT_EQ(ids, (std::vector<int64_t>{INT64_MIN, 9007199254740993, 1413617112501850121, INT64_MAX}));
  EXPECT_EQ(rows.column(1)->Value<uint64_t>(0), 0u);
  EXPECT_TRUE(rows.column(1)->IsNull(1));
  EXPECT_EQ(rows.column(1)->Value<uint64_t>(2), UINT64_MAX);
  EXPECT_EQ(rows.column(2)->Value<int32_t>(0), INT32_MIN);
  EXPECT_EQ(rows.column(2)->Value<int32_t>(2), INT32_MAX);
  EXPECT_EQ(rows.column(3)->Value<float>(0), -0.25f);
  EXPECT_EQ(rows.column(4)->Value<double>(0), 1e300);
  EXPECT_EQ(rows.column(4)->Value<double>(1), 3.0);
  EXPECT_EQ(rows.column(4)->Value<double>(2), 0.1);
  EXPECT_TRUE(rows.column(4)->IsNull(3));
  EXPECT_EQ(RowJson(*result, 2),
            R"({"t.id_num":1413617112501850121,"t.views":18446744073709551615,"t.small":2147483647,)"
            R"("t.ratio":0.5,"t.score":0.1})");
}

TEST_F(B12Test, KeyLiteralAndParams) {
  EXPECT_EQ(Query(queries_, "by_literal"), (Rows{R"({"t.id_num":1413617112501850121})"}));
  EXPECT_EQ(Query(queries_, "by_param", {{"v", I(9007199254740993)}}), (Rows{R"({"t.id_num":9007199254740993})"}));
  EXPECT_EQ(Query(queries_, "by_param", {{"v", I(9007199254740992)}}), Rows{});
  EXPECT_EQ(Query(queries_, "above", {{"v", I(-9223372036854775807)}}),
            (Rows{R"({"t.id_num":9007199254740993})", R"({"t.id_num":1413617112501850121})",
                  R"({"t.id_num":9223372036854775807})"}));
  EXPECT_EQ(Query(queries_, "total"), (Rows{R"({"n":4})"}));
  // A key parameter in a binding uses the id index and agrees with the scan.
  constexpr std::string_view kKeyParam = R"(
query by_key($v: I64) { match { $t: Tweet { id_num: $v } } return { $t.id_num, $t.small } }
query by_key_and($v: I64, $s: I32) { match { $t: Tweet { id_num: $v, small: $s } } return { $t.id_num } }
)";
  EXPECT_EQ(Query(kKeyParam, "by_key", {{"v", I(INT64_MIN)}}),
            (Rows{R"({"t.id_num":-9223372036854775808,"t.small":-2147483648})"}));
  EXPECT_EQ(Query(kKeyParam, "by_key", {{"v", I(5)}}), Rows{});
  EXPECT_EQ(Query(kKeyParam, "by_key_and", {{"v", I(INT64_MIN)}, {"s", I(INT32_MIN)}}),
            (Rows{R"({"t.id_num":-9223372036854775808})"}));
  EXPECT_EQ(Query(kKeyParam, "by_key_and", {{"v", I(INT64_MIN)}, {"s", I(0)}}), Rows{});
  // Numeric types mix: an unsigned parameter against the I64 key column.
  constexpr std::string_view kMixed = R"(
query big($v: U64) { match { $t: Tweet  $t.views >= $v } return { $t.id_num } }
query ratio($r: F64) { match { $t: Tweet  $t.ratio < $r } return { $t.id_num } }
)";
  EXPECT_EQ(Query(kMixed, "big", {{"v", Scalar::UInt(UINT64_MAX)}}), (Rows{R"({"t.id_num":1413617112501850121})"}));
  EXPECT_EQ(Query(kMixed, "ratio", {{"r", Scalar::Double(0)}}), (Rows{R"({"t.id_num":-9223372036854775808})"}));
}

// ---------------------------------------------------------------------------
// §8 fixture expectations.

class SocialTest : public QueryExecutorTest {
 protected:
  void SetUp() override { Build(kSocialSchema, kSocialData); }
};

TEST_F(SocialTest, LookupsAndHops) {
  EXPECT_EQ(Query(kSocialQueries, "get_person", {{"name", S("Alice")}}), (Rows{R"({"p.name":"Alice","p.age":30})"}));
  EXPECT_EQ(Query(kSocialQueries, "get_person", {{"name", S("Nobody")}}), Rows{});
  EXPECT_EQ(Query(kSocialQueries, "adults"), (Rows{R"({"p.name":"Charlie","p.age":35})"}));
  EXPECT_EQ(Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}),
            (Rows{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})"}));
  EXPECT_EQ(Query(kSocialQueries, "employees_of", {{"company", S("Acme")}}), (Rows{R"({"p.name":"Alice"})"}));
  EXPECT_EQ(Query(kSocialQueries, "friends_of_friends", {{"name", S("Alice")}}), (Rows{R"({"fof.name":"Diana"})"}));
  EXPECT_EQ(Query(kSocialQueries, "unemployed"), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(kSocialQueries, "undirected", {{"name", S("Bob")}}),
            (Rows{R"({"f.name":"Alice"})", R"({"f.name":"Diana"})"}));
  // Diana -> Bob as well: still one Diana.
  Load(R"({"edge":"Knows","from":"Diana","to":"Bob"})", api::LoadMode::kMerge);
  EXPECT_EQ(Query(kSocialQueries, "undirected", {{"name", S("Bob")}}),
            (Rows{R"({"f.name":"Alice"})", R"({"f.name":"Diana"})"}));
}

// §2.5: alias references in return repeat the referenced column's value,
// aggregates included, and can be ordered by.
TEST_F(SocialTest, ReturnAliasReferences) {
  constexpr std::string_view kSource = R"(
query again() {
  match { $p: Person { name: "Alice" } }
  return { $p.name as n, n as again, $p.age as a, a as years }
}
query counted() {
  match { $p: Person  $p knows $f }
  return { $p.name, count($f) as friends, friends as same }
  order { same desc }
}
)";
  EXPECT_EQ(Query(kSource, "again"), (Rows{R"({"n":"Alice","again":"Alice","a":30,"years":30})"}));
  EXPECT_EQ(Query(kSource, "counted"), (Rows{R"({"p.name":"Alice","friends":2,"same":2})",
                                              R"({"p.name":"Bob","friends":1,"same":1})"}));
}

TEST_F(SocialTest, Aggregates) {
  EXPECT_EQ(Query(kSocialQueries, "friend_counts"),
            (Rows{R"({"p.name":"Alice","friends":2})", R"({"p.name":"Bob","friends":1})"}));
  EXPECT_EQ(Query(kSocialQueries, "top_by_age"),
            (Rows{R"({"p.name":"Charlie","p.age":35})", R"({"p.name":"Alice","p.age":30})"}));
  EXPECT_EQ(Query(kSocialQueries, "total_people"), (Rows{R"({"total":4})"}));
  EXPECT_EQ(Query(kSocialQueries, "top_connected"), (Rows{R"({"p.name":"Alice","friends":2})"}));

  auto stats = Run(kSocialQueries, "age_stats");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->columns,
            (std::vector<std::string>{"c.name", "total_age", "avg_age", "youngest", "oldest", "headcount"}));
  const RecordBatch& rows = *stats->rows;
  EXPECT_EQ(rows.column(1)->type_id(), TypeId::kFloat64);
  EXPECT_EQ(rows.column(2)->type_id(), TypeId::kFloat64);
  EXPECT_EQ(rows.column(3)->type_id(), TypeId::kInt32);
  EXPECT_EQ(rows.column(4)->type_id(), TypeId::kInt32);
  EXPECT_EQ(rows.column(5)->type_id(), TypeId::kInt64);
  ASSERT_EQ(rows.num_rows(), 2);
  const std::vector<std::string> companies = {"Acme", "Globex"};
  const std::vector<int32_t> ages = {30, 25};
  for (int64_t r = 0; r < 2; ++r) {
    EXPECT_EQ(rows.column(0)->GetView(r), companies[static_cast<size_t>(r)]);
    EXPECT_EQ(rows.column(1)->Value<double>(r), ages[static_cast<size_t>(r)]);
    EXPECT_EQ(rows.column(2)->Value<double>(r), ages[static_cast<size_t>(r)]);
    EXPECT_EQ(rows.column(3)->Value<int32_t>(r), ages[static_cast<size_t>(r)]);
    EXPECT_EQ(rows.column(4)->Value<int32_t>(r), ages[static_cast<size_t>(r)]);
    EXPECT_EQ(rows.column(5)->Value<int64_t>(r), 1);
  }
}

TEST_F(SocialTest, EmptyAggregates) {
  constexpr std::string_view q = R"(
query none() {
    match { $p: Person  $p.age > 100 }
    return { count($p) as n, sum($p.age), avg($p.age) as a, min($p.name) as lo, max($p.age) as hi }
}
query none_grouped() {
    match { $p: Person  $p.age > 100 }
    return { $p.name, count($p) as n }
}
query unaliased() {
    match { $p: Person { name: "Nobody" }  $p knows $f }
    return { count($f) }
}
)";
  auto none = Run(q, "none");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->columns, (std::vector<std::string>{"n", "p.age", "a", "lo", "hi"}));
  ASSERT_EQ(none->row_count(), 1);
  EXPECT_EQ(RowJson(*none, 0), R"({"n":0,"p.age":null,"a":null,"lo":null,"hi":null})");
  EXPECT_EQ(none->rows->column(3)->type_id(), TypeId::kUtf8);
  EXPECT_EQ(none->rows->column(4)->type_id(), TypeId::kInt32);
  EXPECT_EQ(Query(q, "none_grouped"), Rows{});
  EXPECT_EQ(Query(q, "unaliased"), (Rows{R"({"f":0})"}));
}

TEST_F(SocialTest, AggregatesOverNullsAndGroups) {
  Load(R"({"type":"Person","data":{"name":"Eve"}}
{"type":"Person","data":{"name":"Frank"}}
{"edge":"WorksAt","from":"Eve","to":"Acme"}
{"edge":"WorksAt","from":"Frank","to":"Acme"}
)",
       api::LoadMode::kMerge);
  constexpr std::string_view q = R"(
query per_company() {
    match { $p: Person  $p worksAt $c }
    return { $c.name, count($p.age) as ages, count($p) as people, max($p.name) as last }
    order { $c.name }
}
query averages() {
    match { $p: Person  $p worksAt $c }
    return { $c.name, avg($p.age) as avg_age, sum($p.age) as total }
    order { $c.name }
}
query by_age() {
    match { $p: Person }
    return { $p.age, count($p) as n }
    order { $p.age }
}
query ids() {
    match { $p: Person  $p worksAt $c }
    return { $c, count($p) as n }
    order { n desc }
}
)";
  EXPECT_EQ(Query(q, "per_company"),
            (Rows{R"({"c.name":"Acme","ages":1,"people":3,"last":"Frank"})",
                  R"({"c.name":"Globex","ages":1,"people":1,"last":"Bob"})"}));
  // avg/sum ignore NULLs (Acme: Alice 30, Eve and Frank without age).
  auto averages = Run(q, "averages");
  ASSERT_TRUE(averages.ok()) << averages.status().ToString();
  ASSERT_EQ(averages->row_count(), 2);
  EXPECT_EQ(averages->rows->column(1)->Value<double>(0), 30.0);
  EXPECT_EQ(averages->rows->column(2)->Value<double>(0), 30.0);
  EXPECT_EQ(averages->rows->column(1)->Value<double>(1), 25.0);
  // NULLs group together and sort first ascending.
  EXPECT_EQ(Query(q, "by_age"), (Rows{R"({"p.age":null,"n":2})", R"({"p.age":25,"n":1})", R"({"p.age":28,"n":1})",
                                      R"({"p.age":30,"n":1})", R"({"p.age":35,"n":1})"}));
  // A bare node variable groups by (and projects) its id.
  EXPECT_EQ(Query(q, "ids"), (Rows{R"({"c":"Acme","n":3})", R"({"c":"Globex","n":1})"}));
}

TEST_F(SocialTest, GroupOrderIsFirstAppearance) {
  constexpr std::string_view q = R"(
query g() {
    match { $p: Person  $p worksAt $c }
    return { $c.name, count($p) as n }
}
)";
  // Without order, group order is the order rows reach the aggregation.
  Rows rows = Query(q, "g");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], R"({"c.name":"Acme","n":1})");
}

TEST_F(SocialTest, NullSemantics) {
  Load(R"({"type":"Person","data":{"name":"Eve"}})", api::LoadMode::kMerge);
  constexpr std::string_view q = R"(
query not_thirty() { match { $p: Person  $p.age != 30 } return { $p.name } order { $p.name } }
query eq_param($a: I32?) { match { $p: Person  $p.age = $a } return { $p.name } }
query ne_param($a: I32?) { match { $p: Person  $p.age != $a } return { $p.name } }
query inline_null($a: I32?) { match { $p: Person { age: $a } } return { $p.name } }
query asc() { match { $p: Person } return { $p.name, $p.age } order { $p.age } }
query desc() { match { $p: Person } return { $p.name, $p.age } order { $p.age desc } }
)";
  // `!=` excludes NULL ages (SQL three-valued logic).
  EXPECT_EQ(Query(q, "not_thirty"), (Rows{R"({"p.name":"Bob"})", R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "eq_param"), Rows{});  // omitted nullable param: NULL
  EXPECT_EQ(Query(q, "eq_param", {{"a", Scalar::Null()}}), Rows{});
  EXPECT_EQ(Query(q, "ne_param", {{"a", Scalar::Null()}}), Rows{});
  EXPECT_EQ(Query(q, "inline_null", {{"a", Scalar::Null()}}), Rows{});
  EXPECT_EQ(Query(q, "eq_param", {{"a", I(25)}}), (Rows{R"({"p.name":"Bob"})"}));
  EXPECT_EQ(Query(q, "asc"), (Rows{R"({"p.name":"Eve","p.age":null})", R"({"p.name":"Bob","p.age":25})",
                                   R"({"p.name":"Diana","p.age":28})", R"({"p.name":"Alice","p.age":30})",
                                   R"({"p.name":"Charlie","p.age":35})"}));
  EXPECT_EQ(Query(q, "desc"), (Rows{R"({"p.name":"Charlie","p.age":35})", R"({"p.name":"Alice","p.age":30})",
                                    R"({"p.name":"Diana","p.age":28})", R"({"p.name":"Bob","p.age":25})",
                                    R"({"p.name":"Eve","p.age":null})"}));
}

TEST_F(SocialTest, NumericAndStringComparisons) {
  constexpr std::string_view q = R"(
query older_f($x: F64) { match { $p: Person  $p.age > $x } return { $p.name } order { $p.name } }
query older_u($x: U64) { match { $p: Person  $p.age >= $x } return { $p.name } order { $p.name } }
query literal_left() { match { $p: Person  30 < $p.age } return { $p.name } }
query lit_float() { match { $p: Person  $p.age < 28.5 } return { $p.name } order { $p.name } }
query before_bob() { match { $p: Person  $p.name < "Bob" } return { $p.name } }
query from_c() { match { $p: Person  $p.name >= "C" } return { $p.name } order { $p.name } }
query two_columns() { match { $a: Person  $b: Person  $a.age = $b.age  $a.name != $b.name } return { $a.name } }
)";
  EXPECT_EQ(Query(q, "older_f", {{"x", Scalar::Double(29.5)}}),
            (Rows{R"({"p.name":"Alice"})", R"({"p.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "older_u", {{"x", Scalar::UInt(30)}}), (Rows{R"({"p.name":"Alice"})", R"({"p.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "literal_left"), (Rows{R"({"p.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "lit_float"), (Rows{R"({"p.name":"Bob"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "before_bob"), (Rows{R"({"p.name":"Alice"})"}));
  EXPECT_EQ(Query(q, "from_c"), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "two_columns"), Rows{});
}

TEST_F(SocialTest, TieBreakByIds) {
  Load(R"({"type":"Person","data":{"name":"Aaron","age":30}}
{"type":"Person","data":{"name":"Zed","age":30}}
{"edge":"Knows","from":"Zed","to":"Alice"}
{"edge":"Knows","from":"Aaron","to":"Bob"}
)",
       api::LoadMode::kMerge);
  constexpr std::string_view q = R"(
query by_age() { match { $p: Person  $p.age = 30 } return { $p.name } order { $p.age } }
query by_age_limit() { match { $p: Person  $p.age = 30 } return { $p.name } order { $p.age desc } limit 2 }
query pairs() {
    match { $p: Person  $p knows $f  $p.age = 30 }
    return { $p.name, $f.name }
    order { $p.age }
}
query unprojected() { match { $p: Person } return { $p.name } order { $p.age desc } limit 3 }
)";
  EXPECT_EQ(Query(q, "by_age"), (Rows{R"({"p.name":"Aaron"})", R"({"p.name":"Alice"})", R"({"p.name":"Zed"})"}));
  EXPECT_EQ(Query(q, "by_age_limit"), (Rows{R"({"p.name":"Aaron"})", R"({"p.name":"Alice"})"}));
  // Tie-break variables in name order: $f before $p.
  EXPECT_EQ(Query(q, "pairs"),
            (Rows{R"({"p.name":"Zed","f.name":"Alice"})", R"({"p.name":"Aaron","f.name":"Bob"})",
                  R"({"p.name":"Alice","f.name":"Bob"})", R"({"p.name":"Alice","f.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "unprojected"),
            (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Aaron"})", R"({"p.name":"Alice"})"}));
}

TEST_F(SocialTest, StringPredicatesArePositionalAndExact) {
  Load(R"({"type":"Person","data":{"name":"50%_off"}})", api::LoadMode::kMerge);
  constexpr std::string_view q = R"(
query haystack() {
    match { $p: Person  "Alice and Bob and Bobby" contains $p.name }
    return { $p.name }
    order { $p.name }
}
query needle() { match { $p: Person  $p.name contains "li" } return { $p.name } order { $p.name } }
query upper() { match { $p: Person  $p.name contains "LI" } return { $p.name } }
query prefix() { match { $p: Person  $p.name starts_with "Ch" } return { $p.name } }
query literal_prefix() { match { $p: Person  "Bobcat" starts_with $p.name } return { $p.name } }
query percent() { match { $p: Person  $p.name contains "%_" } return { $p.name } }
query like_chars() { match { $p: Person  $p.name starts_with "_" } return { $p.name } }
query param($s: String) { match { $p: Person  $p.name contains $s } return { $p.name } order { $p.name } }
)";
  EXPECT_EQ(Query(q, "haystack"), (Rows{R"({"p.name":"Alice"})", R"({"p.name":"Bob"})"}));
  EXPECT_EQ(Query(q, "needle"), (Rows{R"({"p.name":"Alice"})", R"({"p.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "upper"), Rows{});
  EXPECT_EQ(Query(q, "prefix"), (Rows{R"({"p.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "literal_prefix"), (Rows{R"({"p.name":"Bob"})"}));
  EXPECT_EQ(Query(q, "percent"), (Rows{R"({"p.name":"50%_off"})"}));
  EXPECT_EQ(Query(q, "like_chars"), Rows{});
  EXPECT_EQ(Query(q, "param", {{"s", S("a")}}), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "param", {{"s", Scalar::Null()}}), Rows{});
}

TEST_F(SocialTest, CartesianProductOfUnconnectedBindings) {
  constexpr std::string_view q = R"(
query pairs() {
    match { $p: Person { name: "Alice" }  $c: Company }
    return { $p.name, $c.name }
    order { $c.name }
}
query all_pairs() { match { $p: Person  $c: Company } return { count($p) as n } }
query filtered() {
    match { $a: Person  $b: Person  $a.age < $b.age  $b.name = "Alice" }
    return { $a.name }
    order { $a.name }
}
)";
  EXPECT_EQ(Query(q, "pairs"),
            (Rows{R"({"p.name":"Alice","c.name":"Acme"})", R"({"p.name":"Alice","c.name":"Globex"})"}));
  EXPECT_EQ(Query(q, "all_pairs"), (Rows{R"({"n":8})"}));
  EXPECT_EQ(Query(q, "filtered"), (Rows{R"({"a.name":"Bob"})", R"({"a.name":"Diana"})"}));
}

TEST_F(SocialTest, EdgeBindingsAndParallelEdges) {
  Load(R"({"edge":"Knows","from":"Alice","to":"Bob","data":{"since":"2020-05-01"}}
{"edge":"Knows","from":"Alice","to":"Bob","data":{"since":"2019-01-02"}}
)",
       api::LoadMode::kMerge);
  constexpr std::string_view q = R"(
query edges() {
    match { $p: Person { name: "Alice" }  $p $k:knows $f }
    return { $f.name, $k.since }
    order { $k.since }
}
query pairs() { match { $p: Person { name: "Alice" }  $p knows $f } return { $f.name } order { $f.name } }
query recent() {
    match { $p: Person  $p $k:knows $f  $k.since > date("2019-06-01") }
    return { $p.name, $f.name, $k.since }
}
query undirected_edges() {
    match { $p: Person { name: "Bob" }  $p $k:<knows> $f }
    return { $f.name, $k.since }
    order { $f.name, $k.since desc }
}
query backwards() {
    match { $f: Person { name: "Bob" }  $p $k:knows $f }
    return { $p.name, $k.since }
    order { $k.since desc }
}
)";
  // One row per edge; null edge properties do not drop rows (NULLs first).
  EXPECT_EQ(Query(q, "edges"),
            (Rows{R"({"f.name":"Bob","k.since":null})", R"({"f.name":"Charlie","k.since":null})",
                  R"({"f.name":"Bob","k.since":"2019-01-02"})", R"({"f.name":"Bob","k.since":"2020-05-01"})"}));
  // Without an edge binding: set of pairs.
  EXPECT_EQ(Query(q, "pairs"), (Rows{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})"}));
  EXPECT_EQ(Query(q, "recent"), (Rows{R"({"p.name":"Alice","f.name":"Bob","k.since":"2020-05-01"})"}));
  EXPECT_EQ(Query(q, "undirected_edges"),
            (Rows{R"({"f.name":"Alice","k.since":"2020-05-01"})", R"({"f.name":"Alice","k.since":"2019-01-02"})",
                  R"({"f.name":"Alice","k.since":null})", R"({"f.name":"Diana","k.since":null})"}));
  EXPECT_EQ(Query(q, "backwards"),
            (Rows{R"({"p.name":"Alice","k.since":"2020-05-01"})", R"({"p.name":"Alice","k.since":"2019-01-02"})",
                  R"({"p.name":"Alice","k.since":null})"}));
}

TEST_F(SocialTest, NegationVariants) {
  constexpr std::string_view q = R"(
query no_friends() { match { $p: Person  not { $p knows $_ } } return { $p.name } order { $p.name } }
query not_known() { match { $p: Person  not { $_ knows $p } } return { $p.name } order { $p.name } }
query friends_all_employed() {
    match { $p: Person  not { $p knows $f  not { $f worksAt $_ } } }
    return { $p.name }
    order { $p.name }
}
query not_acme() {
    match { $p: Person  not { $p worksAt $c  $c.name = "Acme" } }
    return { $p.name }
    order { $p.name }
}
query older_friend() {
    match { $p: Person  not { $p knows $f  $f.age > $p.age } }
    return { $p.name }
    order { $p.name }
}
query anti_binding() {
    match { $p: Person  not { $p knows $f  $f: Person { name: "Bob" } } }
    return { $p.name }
    order { $p.name }
}
)";
  EXPECT_EQ(Query(q, "no_friends"), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "not_known"), (Rows{R"({"p.name":"Alice"})"}));
  // Nested: Alice knows Charlie (unemployed), Bob knows Diana (unemployed).
  EXPECT_EQ(Query(q, "friends_all_employed"), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "not_acme"), (Rows{R"({"p.name":"Bob"})", R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  // Alice (30) knows Charlie (35); Bob (25) knows Diana (28).
  EXPECT_EQ(Query(q, "older_friend"), (Rows{R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "anti_binding"),
            (Rows{R"({"p.name":"Bob"})", R"({"p.name":"Charlie"})", R"({"p.name":"Diana"})"}));
}

TEST_F(SocialTest, ProjectionsOfVariablesLiteralsParamsAndNow) {
  constexpr std::string_view q = R"(
query misc($tag: String, $d: Date, $maybe: I64?) {
    match { $p: Person { name: "Bob" } }
    return { $p, $p.name as who, 42, "x" as s, $tag, $d, $maybe, now() as t, 1.5 as f, true as b }
}
query when() {
    match { $p: Person  $p.name = "Bob" }
    return { now() }
}
)";
  auto r = Run(q, "misc", {{"tag", S("t1")}, {"d", I(19723)}, {"__nanograph_now", I(1704067200123)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"p", "who", "literal", "s", "tag", "d", "maybe", "t", "f", "b"}));
  ASSERT_EQ(r->row_count(), 1);
  EXPECT_EQ(RowJson(*r, 0),
            R"({"p":"Bob","who":"Bob","literal":42,"s":"x","tag":"t1","d":"2024-01-01","maybe":null,)"
            R"("t":"2024-01-01T00:00:00.123Z","f":1.5,"b":true})");
  EXPECT_EQ(r->rows->column(7)->type_id(), TypeId::kDate64);
  EXPECT_EQ(r->rows->column(5)->type_id(), TypeId::kDate32);
  // Without an explicit __nanograph_now, the executor uses the current time.
  auto now = Run(q, "when");
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  ASSERT_EQ(now->row_count(), 1);
  EXPECT_GT(now->rows->column(0)->Value<int64_t>(0), 1704067200000);
}

TEST_F(SocialTest, MissingParameter) {
  constexpr std::string_view q = R"(
query need($name: String) { match { $p: Person { name: $name } } return { $p.name } }
query unused($name: String) { match { $p: Person { name: "Bob" } } return { $p.name } }
)";
  auto r = Run(q, "need");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "parameter 'name' not provided");
  EXPECT_EQ(Query(q, "unused"), (Rows{R"({"p.name":"Bob"})"}));
}

TEST_F(SocialTest, DirectionInferenceAndCrossTypeHops) {
  constexpr std::string_view q = R"(
query reverse() { match { $c: Company { name: "Globex" }  $p worksAt $c } return { $p.name } }
query capped() { match { $p: Person  $p worksAt{1,3} $c } return { $p.name, $c.name } order { $p.name } }
query two_hop_cross() { match { $p: Person  $p worksAt{2,3} $c } return { $p.name } }
query dst_first() {
    match { $f: Person { name: "Diana" }  $p: Person  $p knows $f }
    return { $p.name }
}
query chain() {
    match { $a: Person { name: "Alice" }  $a knows{1,3} $x }
    return { $x.name }
    order { $x.name }
}
query chain_min() { match { $a: Person { name: "Alice" }  $a knows{2,3} $x } return { $x.name } }
)";
  EXPECT_EQ(Query(q, "reverse"), (Rows{R"({"p.name":"Bob"})"}));
  EXPECT_EQ(Query(q, "capped"),
            (Rows{R"({"p.name":"Alice","c.name":"Acme"})", R"({"p.name":"Bob","c.name":"Globex"})"}));
  EXPECT_EQ(Query(q, "two_hop_cross"), Rows{});
  EXPECT_EQ(Query(q, "dst_first"), (Rows{R"({"p.name":"Bob"})"}));
  EXPECT_EQ(Query(q, "chain"), (Rows{R"({"x.name":"Bob"})", R"({"x.name":"Charlie"})", R"({"x.name":"Diana"})"}));
  EXPECT_EQ(Query(q, "chain_min"), (Rows{R"({"x.name":"Diana"})"}));
}

TEST_F(QueryExecutorTest, MultiHopRules) {
  Build("node N { name: String @key }\nedge E: N -> N\n",
        R"({"type":"N","data":{"name":"a"}}
{"type":"N","data":{"name":"b"}}
{"type":"N","data":{"name":"c"}}
{"type":"N","data":{"name":"d"}}
{"edge":"E","from":"a","to":"b"}
{"edge":"E","from":"b","to":"c"}
{"edge":"E","from":"c","to":"a"}
{"edge":"E","from":"a","to":"c"}
{"edge":"E","from":"c","to":"d"}
{"edge":"E","from":"a","to":"a"}
)");
  constexpr std::string_view q = R"(
query reach($min: I64) { match { $s: N { name: "a" }  $s e{1,3} $t } return { $t.name } order { $t.name } }
query two() { match { $s: N { name: "a" }  $s e{2,2} $t } return { $t.name } order { $t.name } }
query three() { match { $s: N { name: "a" }  $s e{3,3} $t } return { $t.name } order { $t.name } }
query triangle() {
    match { $a: N  $a e $b  $b e $c  $c e $a }
    return { $a.name, $b.name, $c.name }
    order { $a.name }
}
query cycle_multi() { match { $a: N  $b: N { name: "d" }  $a e{2,3} $b } return { $a.name } order { $a.name } }
query back_to_self() { match { $a: N  $a e{2,3} $a } return { $a.name } }
query self_one() { match { $a: N  $a e{1,2} $a } return { $a.name } }
)";
  // a: self-loop (hop 1, reported), b and c at 1, d at 2.
  EXPECT_EQ(Query(q, "reach", {{"min", I(1)}}),
            (Rows{R"({"t.name":"a"})", R"({"t.name":"b"})", R"({"t.name":"c"})", R"({"t.name":"d"})"}));
  // c is at distance 1 (a->c), so {2,2} never reports it even via a->b->c.
  EXPECT_EQ(Query(q, "two"), (Rows{R"({"t.name":"d"})"}));
  EXPECT_EQ(Query(q, "three"), Rows{});
  // Closed walks of length 3: a->b->c->a in every rotation, plus the walks
  // through a's self-loop (a->a->a, a->a->c->a, ...).
  EXPECT_EQ(Query(q, "triangle"),
            (Rows{R"({"a.name":"a","b.name":"a","c.name":"a"})", R"({"a.name":"a","b.name":"a","c.name":"c"})",
                  R"({"a.name":"a","b.name":"b","c.name":"c"})", R"({"a.name":"a","b.name":"c","c.name":"a"})",
                  R"({"a.name":"b","b.name":"c","c.name":"a"})", R"({"a.name":"c","b.name":"a","c.name":"a"})",
                  R"({"a.name":"c","b.name":"a","c.name":"b"})"}));
  // d is at distance 2 from a and b (b->c->d is 2), 1 from c.
  EXPECT_EQ(Query(q, "cycle_multi"), (Rows{R"({"a.name":"a"})", R"({"a.name":"b"})"}));
  // The source is never reported through a cycle.
  EXPECT_EQ(Query(q, "back_to_self"), Rows{});
  EXPECT_EQ(Query(q, "self_one"), (Rows{R"({"a.name":"a"})"}));
}

TEST_F(QueryExecutorTest, ListPropertiesMembership) {
  Build("node Doc { slug: String @key\n tags: [String]?\n scores: [I32]? }\n",
        R"({"type":"Doc","data":{"slug":"d1","tags":["a","b"],"scores":[1,2]}}
{"type":"Doc","data":{"slug":"d2","tags":["b","c"],"scores":[3]}}
{"type":"Doc","data":{"slug":"d3"}}
)");
  constexpr std::string_view q = R"(
query inline_tag() { match { $d: Doc { tags: "a" } } return { $d.slug } }
query contains_tag($t: String) { match { $d: Doc  $d.tags contains $t } return { $d.slug } order { $d.slug } }
query contains_num() { match { $d: Doc  $d.scores contains 3 } return { $d.slug } }
query all_tags() { match { $d: Doc } return { $d.slug, $d.tags } order { $d.slug } }
query in_list() { match { $d: Doc  ["d3", "d1"] contains $d.slug } return { $d.slug } order { $d.slug } }
)";
  EXPECT_EQ(Query(q, "inline_tag"), (Rows{R"({"d.slug":"d1"})"}));
  EXPECT_EQ(Query(q, "contains_tag", {{"t", S("b")}}), (Rows{R"({"d.slug":"d1"})", R"({"d.slug":"d2"})"}));
  EXPECT_EQ(Query(q, "contains_tag", {{"t", S("z")}}), Rows{});
  EXPECT_EQ(Query(q, "contains_num"), (Rows{R"({"d.slug":"d2"})"}));
  EXPECT_EQ(Query(q, "all_tags"),
            (Rows{R"({"d.slug":"d1","d.tags":["a","b"]})", R"({"d.slug":"d2","d.tags":["b","c"]})",
                  R"({"d.slug":"d3","d.tags":null})"}));
  EXPECT_EQ(Query(q, "in_list"), (Rows{R"({"d.slug":"d1"})", R"({"d.slug":"d3"})"}));
}

// List and vector properties order lexicographically (NULL lists first
// ascending), so `order ... limit` picks a well-defined row.
TEST_F(QueryExecutorTest, ListsOrderLexicographically) {
  Build("node L { k: String @key\n l: [I32]?\n s: [String]?\n v: Vector(2)? }\n",
        R"({"type":"L","data":{"k":"a","l":[9],"s":["z"],"v":[1.0,2.0]}}
{"type":"L","data":{"k":"b","l":[1],"s":["a"],"v":[1.0,1.5]}}
{"type":"L","data":{"k":"c","l":[5,5],"s":["a","b"],"v":[0.5,9.0]}}
{"type":"L","data":{"k":"d","l":[5],"s":[]}}
{"type":"L","data":{"k":"e"}}
)");
  constexpr std::string_view q = R"(
query by_l() { match { $x: L } return { $x.k } order { $x.l } }
query by_l_desc() { match { $x: L } return { $x.k } order { $x.l desc } }
query by_s() { match { $x: L } return { $x.k } order { $x.s } limit 3 }
query by_v_desc() { match { $x: L } return { $x.k } order { $x.v desc } }
)";
  auto keys = [](std::vector<std::string> ks) {
    Rows rows;
    for (const std::string& k : ks) rows.push_back(R"({"x.k":")" + k + R"("})");
    return rows;
  };
  EXPECT_EQ(Query(q, "by_l"), keys({"e", "b", "d", "c", "a"}));
  EXPECT_EQ(Query(q, "by_l_desc"), keys({"a", "c", "d", "b", "e"}));
  EXPECT_EQ(Query(q, "by_s"), keys({"e", "d", "b"}));
  EXPECT_EQ(Query(q, "by_v_desc"), keys({"a", "b", "c", "d", "e"}));
}

// An integer property compares with a float exactly: 2^64 - 1 is below the
// float 2^64 (rounding the integer to a double would make them equal).
TEST_F(QueryExecutorTest, IntegersCompareWithFloatsExactly) {
  Build("node Emp { name: String @key\n big: U64?\n small: I64? }\n",
        R"({"type":"Emp","data":{"name":"max","big":18446744073709551615,"small":9007199254740993}}
)");
  constexpr std::string_view q = R"(
query eq($x: F64) { match { $e: Emp  $e.big = $x } return { $e.name } }
query gt($x: F64) { match { $e: Emp  $e.big > $x } return { $e.name } }
query ge($x: F64) { match { $e: Emp  $e.big >= $x } return { $e.name } }
query lt($x: F64) { match { $e: Emp  $e.big < $x } return { $e.name } }
query small_gt($x: F64) { match { $e: Emp  $e.small > $x } return { $e.name } }
query small_eq($x: F64) { match { $e: Emp  $e.small = $x } return { $e.name } }
)";
  const Rows match{R"({"e.name":"max"})"};
  const Scalar two_to_64 = Scalar::Double(18446744073709551616.0);
  EXPECT_EQ(Query(q, "eq", {{"x", two_to_64}}), Rows{});
  EXPECT_EQ(Query(q, "ge", {{"x", two_to_64}}), Rows{});
  EXPECT_EQ(Query(q, "gt", {{"x", two_to_64}}), Rows{});
  EXPECT_EQ(Query(q, "lt", {{"x", two_to_64}}), match);
  EXPECT_EQ(Query(q, "gt", {{"x", Scalar::Double(18446744073709549568.0)}}), match);  // the double below 2^64
  // 2^53 + 1 is above the double 2^53, and not equal to it.
  EXPECT_EQ(Query(q, "small_gt", {{"x", Scalar::Double(9007199254740992.0)}}), match);
  EXPECT_EQ(Query(q, "small_eq", {{"x", Scalar::Double(9007199254740992.0)}}), Rows{});
  EXPECT_EQ(Query(q, "small_gt", {{"x", Scalar::Double(9007199254740992.5e0)}}), match);
}

// §2.4: numbers compare by value whatever the kinds and widths, in every
// filter context: inline matches (the @key id lookup, a plain scan, list
// membership, a traversal destination), `where` comparisons on node and edge
// properties, and negations. A literal no property value equals (2.7 or
// 2^32 + 2 against I32, 2^53 + 1 against F64) matches nothing; it is never
// refused, truncated, wrapped or rounded onto a stored neighbour.
TEST_F(QueryExecutorTest, NumbersOfAnotherKindCompareByValue) {
  Build(R"(
node M { k: I32 @key
  count: I32?
  big: I64?
  u: U32?
  f: F64?
  r: F32?
  nums: [I32]? }
node Box { n: String @key }
edge Has: Box -> M { w: I32? }
)",
        R"({"type":"M","data":{"k":1,"count":2,"big":9007199254740992,"u":0,"f":9007199254740992.0,"r":16777216,"nums":[1,2]}}
{"type":"M","data":{"k":2,"count":3,"big":9007199254740993,"u":4294967295,"f":2.5,"r":0.5,"nums":[3]}}
{"type":"M","data":{"k":3}}
{"type":"M","data":{"k":-2,"count":-7,"big":-1,"u":7,"f":-0.5,"r":-0.5,"nums":[]}}
{"type":"Box","data":{"n":"b"}}
{"edge":"Has","from":"b","to":"1","data":{"w":2}}
{"edge":"Has","from":"b","to":"2","data":{"w":3}}
)");
  auto keys = [](std::vector<int> ks) {
    Rows rows;
    for (int k : ks) rows.push_back(fmt::format(R"({{"m.k":{}}})", k));
    return rows;
  };
  auto run = [&](std::string_view params, std::string_view match, const Params& values = {}) {
    std::string source = fmt::format("query q({}) {{ match {{ {} }} return {{ $m.k }} order {{ $m.k }} }}", params, match);
    return Query(source, "q", values);
  };
  // Inline matches; `k` is the single-property @key (an id lookup).
  EXPECT_EQ(run("", "$m: M { count: 2.7 }"), keys({}));
  EXPECT_EQ(run("", "$m: M { count: 2.0 }"), keys({1}));
  EXPECT_EQ(run("", "$m: M { count: 4294967298 }"), keys({}));  // 2^32 + 2 wraps to 2
  EXPECT_EQ(run("", "$m: M { k: 2.0 }"), keys({2}));
  EXPECT_EQ(run("", "$m: M { k: 2.5 }"), keys({}));
  EXPECT_EQ(run("", "$m: M { k: 4294967298 }"), keys({}));
  EXPECT_EQ(run("", "$m: M { k: 1, count: 2.0 }"), keys({1}));
  EXPECT_EQ(run("", "$m: M { k: 1, count: 2.5 }"), keys({}));
  EXPECT_EQ(run("$v: F64", "$m: M { k: $v }", {{"v", Scalar::Double(2.0)}}), keys({2}));
  EXPECT_EQ(run("$v: F64", "$m: M { k: $v }", {{"v", Scalar::Double(2.5)}}), keys({}));
  EXPECT_EQ(run("$v: I64", "$m: M { k: $v }", {{"v", I(4294967298)}}), keys({}));
  EXPECT_EQ(run("$v: I64", "$m: M { k: $v }", {{"v", I(-2)}}), keys({-2}));
  EXPECT_EQ(run("", "$m: M { f: 9007199254740993 }"), keys({}));
  EXPECT_EQ(run("", "$m: M { big: 9007199254740993.0 }"), keys({1}));  // the literal is the double 2^53
  EXPECT_EQ(run("", "$m: M { r: 16777217 }"), keys({}));
  EXPECT_EQ(run("", "$m: M { r: 0.5 }"), keys({2}));
  // `where` comparisons.
  EXPECT_EQ(run("", "$m: M  $m.count < 2.5"), keys({-2, 1}));
  EXPECT_EQ(run("", "$m: M  2.5 <= $m.count"), keys({2}));
  EXPECT_EQ(run("", "$m: M  $m.count = 2.7"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.count != 2.7"), keys({-2, 1, 2}));
  EXPECT_EQ(run("", "$m: M  $m.count < 3000000000"), keys({-2, 1, 2}));
  EXPECT_EQ(run("", "$m: M  $m.count > 3000000000"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.count = 4294967298"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.count >= 4294967298"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.f = 9007199254740993"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.f < 9007199254740993"), keys({-2, 1, 2}));
  EXPECT_EQ(run("", "$m: M  $m.f = 9007199254740992"), keys({1}));
  EXPECT_EQ(run("", "$m: M  $m.big > 9007199254740992.0"), keys({2}));
  EXPECT_EQ(run("", "$m: M  $m.r = 16777217"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.r < 16777217"), keys({-2, 1, 2}));
  EXPECT_EQ(run("", "$m: M  $m.r = 16777216"), keys({1}));
  EXPECT_EQ(run("", "$m: M  $m.u = 4294967295"), keys({2}));
  EXPECT_EQ(run("", "$m: M  $m.u < 4294967296"), keys({-2, 1, 2}));
  // Negative numbers (parameters only, §2.1) against an unsigned property.
  const Params minus_one{{"n", I(-1)}};
  EXPECT_EQ(run("$n: I64", "$m: M  $m.u > $n", minus_one), keys({-2, 1, 2}));
  EXPECT_EQ(run("$n: I64", "$m: M  $m.u <= $n", minus_one), keys({}));
  EXPECT_EQ(run("$n: I64", "$m: M  $m.u = $n", minus_one), keys({}));
  EXPECT_EQ(run("$n: I64", "$m: M { u: $n }", minus_one), keys({}));
  // List membership.
  EXPECT_EQ(run("", "$m: M { nums: 2.0 }"), keys({1}));
  EXPECT_EQ(run("", "$m: M { nums: 2.5 }"), keys({}));
  EXPECT_EQ(run("", "$m: M  $m.nums contains 3.0"), keys({2}));
  EXPECT_EQ(run("", "$m: M  $m.nums contains 4294967298"), keys({}));
  EXPECT_EQ(run("", "$m: M  [2.0, 7.5] contains $m.count"), keys({1}));
  // Negations, traversal destinations and edge properties.
  EXPECT_EQ(run("", "$m: M  not { $m.count = 2.0 }"), keys({-2, 2, 3}));
  EXPECT_EQ(run("", "$m: M  not { $m: M { count: 2.7 } }"), keys({-2, 1, 2, 3}));
  EXPECT_EQ(run("", "$m: M  not { $x $h:has $m  $h.w = 2.0 }"), keys({-2, 2, 3}));
  EXPECT_EQ(run("", "$b: Box  $b has $m  $m: M { count: 2.7 }"), keys({}));
  EXPECT_EQ(run("", "$b: Box  $b has $m  $m: M { count: 3.0 }"), keys({2}));
  EXPECT_EQ(run("", "$b: Box  $b $h:has $m  $h.w = 2.0"), keys({1}));
  EXPECT_EQ(run("", "$b: Box  $b $h:has $m  $h.w < 2.5"), keys({1}));
  EXPECT_EQ(run("", "$b: Box  $b $h:has $m  $h.w = 2.5"), keys({}));
}

// ---------------------------------------------------------------------------
// Search functions (§2.7).

constexpr std::string_view kSearchSchema = R"(
node Doc {
    slug: String @key
    title: String @index
    body: String @index
    status: String?
    embedding: Vector(4)
}
)";

// Five docs; one NDJSON record per line.
std::string SearchData() {
  return R"({"type":"Doc","data":{"slug":"ml-intro","title":"Introduction to Machine Learning",)"
         R"("body":"Machine learning builds models from data.","status":"hit","embedding":[0.1,0.2,0.3,0.4]}})"
         "\n"
         R"({"type":"Doc","data":{"slug":"dl-basics","title":"Deep Learning Basics",)"
         R"("body":"Neural networks with many layers learn representations.","status":"miss",)"
         R"("embedding":[0.9,0.1,0.0,0.0]}})"
         "\n"
         R"({"type":"Doc","data":{"slug":"nlp-guide","title":"Natural Language Processing",)"
         R"("body":"Language models and neural networks for text.","status":"hit",)"
         R"("embedding":[0.15,0.25,0.3,0.35]}})"
         "\n"
         R"({"type":"Doc","data":{"slug":"cv-overview","title":"Computer Vision Overview",)"
         R"("body":"Convolutional networks see images.","status":"hit","embedding":[0.0,0.0,0.9,0.1]}})"
         "\n"
         R"({"type":"Doc","data":{"slug":"rl-intro","title":"Reinforcement Learning Intro",)"
         R"("body":"Agents learn by reward.","embedding":[0.2,0.2,0.2,0.4]}})"
         "\n";
}

constexpr std::string_view kSearchQueries = R"(
query vector_search($q: Vector(4)) {
    match { $d: Doc }
    return { $d.slug, nearest($d.embedding, $q) as dist }
    order { nearest($d.embedding, $q) }
    limit 3
}
query vector_literal() {
    match { $d: Doc }
    return { $d.slug }
    order { nearest($d.embedding, [0.1, 0.2, 0.3, 0.4]) }
    limit 2
}
query vector_prefiltered($q: Vector(4)) {
    match { $d: Doc { status: "hit" }  $d.slug != "ml-intro" }
    return { $d.slug }
    order { nearest($d.embedding, $q) }
    limit 2
}
query text_search($q: String) {
    match { $d: Doc  search($d.body, $q) }
    return { $d.slug }
    order { $d.slug }
}
query fuzzy_search($q: String) {
    match { $d: Doc  fuzzy($d.body, $q) }
    return { $d.slug }
    order { $d.slug }
}
query fuzzy_strict($q: String) {
    match { $d: Doc  fuzzy($d.body, $q, 0) }
    return { $d.slug }
    order { $d.slug }
}
query phrase_search($q: String) {
    match { $d: Doc  match_text($d.body, $q) }
    return { $d.slug }
    order { $d.slug }
}
query ranked($q: String) {
    match { $d: Doc }
    return { $d.slug, bm25($d.body, $q) as score }
    order { bm25($d.body, $q) }
}
query fused($v: Vector(4), $q: String) {
    match { $d: Doc }
    return { $d.slug, rrf(nearest($d.embedding, $v), bm25($d.title, $q)) as s }
    order { rrf(nearest($d.embedding, $v), bm25($d.title, $q)) }
    limit 3
}
query fused_k($v: Vector(4), $q: String) {
    match { $d: Doc }
    return { $d.slug }
    order { rrf(bm25($d.body, $q), nearest($d.embedding, $v), 1) }
    limit 5
}
query text_nearest($t: String) {
    match { $d: Doc }
    return { $d.slug }
    order { nearest($d.embedding, $t) }
    limit 1
}
)";

class SearchTest : public QueryExecutorTest {
 protected:
  void SetUp() override { Build(kSearchSchema, SearchData()); }
  static Scalar Vec(std::vector<double> v) {
    Scalar::List items;
    for (double x : v) items.push_back(Scalar::Double(static_cast<float>(x)));
    return Scalar::Nested(std::move(items));
  }
};

TEST_F(SearchTest, NearestIsBruteForceL2WithPrefiltering) {
  auto r = Run(kSearchQueries, "vector_search", {{"q", Vec({0.1, 0.2, 0.3, 0.4})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->row_count(), 3);
  std::vector<std::string> slugs;
  for (int64_t i = 0; i < 3; ++i) slugs.emplace_back(r->rows->column(0)->GetView(i));
  EXPECT_EQ(slugs, (std::vector<std::string>{"ml-intro", "nlp-guide", "rl-intro"}));
  EXPECT_EQ(r->rows->column(1)->type_id(), TypeId::kFloat64);
  EXPECT_NEAR(r->rows->column(1)->Value<double>(0), 0.0, 1e-12);
  EXPECT_NEAR(r->rows->column(1)->Value<double>(1), 0.0025 + 0.0025 + 0 + 0.0025, 1e-6);
  EXPECT_EQ(Query(kSearchQueries, "vector_literal"), (Rows{R"({"d.slug":"ml-intro"})", R"({"d.slug":"nlp-guide"})"}));
  // The top 2 among the pre-filtered docs, not a filtered global top 2.
  EXPECT_EQ(Query(kSearchQueries, "vector_prefiltered", {{"q", Vec({0.1, 0.2, 0.3, 0.4})}}),
            (Rows{R"({"d.slug":"nlp-guide"})", R"({"d.slug":"cv-overview"})"}));
}

// §2.10: a vector prints each stored f32 as its f64 value.
TEST_F(SearchTest, VectorsPrintWidenedToF64) {
  constexpr std::string_view kSource = R"(
query one() { match { $d: Doc { slug: "ml-intro" } } return { $d.embedding } }
)";
  EXPECT_EQ(Query(kSource, "one"),
            (Rows{R"({"d.embedding":[0.10000000149011612,0.20000000298023224,0.30000001192092896,0.4000000059604645]})"}));
}

TEST_F(SearchTest, TokenSearchFilters) {
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("NEURAL")}}),
            (Rows{R"({"d.slug":"dl-basics"})", R"({"d.slug":"nlp-guide"})"}));
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("xyznonexistent")}}), Rows{});
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("images reward")}}),
            (Rows{R"({"d.slug":"cv-overview"})", R"({"d.slug":"rl-intro"})"}));
  // Default max_edits 2: "netwrks" is one edit from "networks".
  EXPECT_EQ(Query(kSearchQueries, "fuzzy_search", {{"q", S("netwrks")}}),
            (Rows{R"({"d.slug":"cv-overview"})", R"({"d.slug":"dl-basics"})", R"({"d.slug":"nlp-guide"})"}));
  EXPECT_EQ(Query(kSearchQueries, "fuzzy_strict", {{"q", S("netwrks")}}), Rows{});
  // match_text is token matching (phrases are not implemented, §2.7).
  EXPECT_EQ(Query(kSearchQueries, "phrase_search", {{"q", S("neural networks")}}),
            (Rows{R"({"d.slug":"cv-overview"})", R"({"d.slug":"dl-basics"})", R"({"d.slug":"nlp-guide"})"}));
}

// The analyzer is Lance's default (§2.7): stemming, stop words, folding.
TEST_F(SearchTest, SearchStemsDropsStopWordsAndFoldsAccents) {
  // "learn" stems like "learning"/"learns"; "build" like "builds".
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("learned")}}),
            (Rows{R"({"d.slug":"dl-basics"})", R"({"d.slug":"ml-intro"})", R"({"d.slug":"rl-intro"})"}));
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("BUILDING")}}), (Rows{R"({"d.slug":"ml-intro"})"}));
  // Stop words never match, alone or beside a real word.
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("the and with by")}}), Rows{});
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("by agents")}}), (Rows{R"({"d.slug":"rl-intro"})"}));
  // Accents fold to ASCII on both sides.
  EXPECT_EQ(Query(kSearchQueries, "text_search", {{"q", S("Réward")}}), (Rows{R"({"d.slug":"rl-intro"})"}));
}

TEST_F(SearchTest, Bm25OrdersAndFilters) {
  auto r = Run(kSearchQueries, "ranked", {{"q", S("language models")}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->row_count(), 2);
  // nlp-guide holds both tokens, ml-intro only "models".
  EXPECT_EQ(r->rows->column(0)->GetView(0), "nlp-guide");
  EXPECT_EQ(r->rows->column(0)->GetView(1), "ml-intro");
  EXPECT_GT(r->rows->column(1)->Value<double>(0), r->rows->column(1)->Value<double>(1));
  EXPECT_GT(r->rows->column(1)->Value<double>(1), 0);
}

TEST_F(SearchTest, ReciprocalRankFusion) {
  // Vector arm (limit 3): ml-intro, nlp-guide, rl-intro. Title arm for
  // "learning" (analyzed "learn"): ml-intro, dl-basics, rl-intro, each with
  // three analyzed tokens ("to" is a stop word), so equal scores keep row
  // order. Fused: ml-intro 2/61 > rl-intro 2/63 > nlp-guide 1/62 =
  // dl-basics 1/62, where the tie keeps the primary arm's doc first.
  auto r = Run(kSearchQueries, "fused", {{"v", Vec({0.1, 0.2, 0.3, 0.4})}, {"q", S("learning")}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->row_count(), 3);
  EXPECT_EQ(r->rows->column(0)->GetView(0), "ml-intro");
  EXPECT_NEAR(r->rows->column(1)->Value<double>(0), 2.0 / 61, 1e-12);
  EXPECT_EQ(r->rows->column(0)->GetView(1), "rl-intro");
  EXPECT_NEAR(r->rows->column(1)->Value<double>(1), 2.0 / 63, 1e-12);
  EXPECT_EQ(r->rows->column(0)->GetView(2), "nlp-guide");
  EXPECT_NEAR(r->rows->column(1)->Value<double>(2), 1.0 / 62, 1e-12);
  // k = 1, primary bm25 "networks": dl-basics/nlp-guide/cv-overview, then
  // vector-only docs in vector order.
  Rows fused = Query(kSearchQueries, "fused_k", {{"v", Vec({0.1, 0.2, 0.3, 0.4})}, {"q", S("networks")}});
  ASSERT_EQ(fused.size(), 5u);
}

TEST_F(SearchTest, NearestTextQueryNeedsAnEmbedder) {
  // The provider the environment selects names the key it lacks, as upstream.
  const std::vector<const char*> variables = {"OMNIGRAPH_EMBEDDINGS_MOCK", "OMNIGRAPH_EMBED_PROVIDER",
                                              "OPENROUTER_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"};
  std::map<std::string, std::optional<std::string>> saved;
  for (const char* name : variables) {
    const char* value = std::getenv(name);
    saved[name] = value == nullptr ? std::nullopt : std::optional<std::string>(value);
    ::unsetenv(name);
  }
  auto message = [&] {
    auto r = Run(kSearchQueries, "text_nearest", {{"t", S("machine learning")}});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kUnsupported);
    return r.status().message();
  };
  EXPECT_EQ(message(), "OPENROUTER_API_KEY or OPENAI_API_KEY is required for the openai-compatible embedding provider");
  ::setenv("OMNIGRAPH_EMBED_PROVIDER", "gemini", 1);
  EXPECT_EQ(message(), "GEMINI_API_KEY is required for the gemini embedding provider");
  ::setenv("GEMINI_API_KEY", " key ", 1);
  EXPECT_EQ(message(),
            "nearest with a String query needs the gemini embedding provider, which this build has no client for; "
            "only mock embeddings (OMNIGRAPH_EMBEDDINGS_MOCK=1) are available");
  ::setenv("OMNIGRAPH_EMBED_PROVIDER", "bespoke", 1);
  auto unknown = Run(kSearchQueries, "text_nearest", {{"t", S("machine learning")}});
  EXPECT_EQ(unknown.status().message(),
            "unknown embedding provider 'bespoke' (expected openai-compatible|openai|gemini|mock)");
  ::setenv("OMNIGRAPH_EMBED_PROVIDER", " mock", 1);
  EXPECT_TRUE(Run(kSearchQueries, "text_nearest", {{"t", S("machine learning")}}).ok());
  for (const auto& [name, value] : saved) {
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ::setenv("OMNIGRAPH_EMBEDDINGS_MOCK", "1", 1);
  auto mock = Run(kSearchQueries, "text_nearest", {{"t", S("machine learning")}});
  ::unsetenv("OMNIGRAPH_EMBEDDINGS_MOCK");
  ASSERT_TRUE(mock.ok()) << mock.status().ToString();
  EXPECT_EQ(mock->row_count(), 1);
}

// ---------------------------------------------------------------------------
// Topology cache and snapshots.

TEST_F(SocialTest, TopologyFollowsTheSnapshot) {
  graph::Snapshot before = *graph_->store().Latest();
  Load(R"({"edge":"Knows","from":"Charlie","to":"Diana"})", api::LoadMode::kMerge);
  auto catalog = *graph_->Catalog();
  auto query = compiler::CompileQuery(*catalog, kSocialQueries, "q.gq", "friends_of");
  ASSERT_TRUE(query.ok()) << query.status().ToString();
  Params params{{"name", S("Charlie")}};
  QueryContext old_context{&before, catalog.get(), &params, &api::Engine::Process()->topologies()};
  auto old_rows = ExecuteRead(*query, old_context);
  ASSERT_TRUE(old_rows.ok()) << old_rows.status().ToString();
  EXPECT_EQ(old_rows->row_count(), 0);
  EXPECT_EQ(old_rows->graph_commit_id, before.head().id);
  EXPECT_EQ(Query(kSocialQueries, "friends_of", params), (Rows{R"({"f.name":"Diana"})"}));
  EXPECT_GT(api::Engine::Process()->topologies().size(), 0u);
}

// A new process reads the topology an earlier one persisted; the copy is a
// cache only: a damaged one is rebuilt and results never change.
TEST_F(SocialTest, PersistedTopologyGivesTheSameAnswers) {
  ::setenv("OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES", "1", 1);
  const std::string topology_dir = dir_.path() + "/g0/_cache/topology";
  auto friends = [&] { return Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}); };
  const Rows expected{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})"};
  api::Engine::Process()->topologies().Clear();
  EXPECT_EQ(friends(), expected);  // built from the edge table, then persisted
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(topology_dir)) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);

  api::Engine::Process()->topologies().Clear();  // as in a new process
  EXPECT_EQ(friends(), expected);   // read back from the file

  // Damage every byte after the header's checksum field in turn would be
  // slow; one flipped byte in the arrays (all in one block here) fails the
  // block's checksum when the traversal reads it: the step is redone over a
  // topology built from the tables, which replaces the file.
  auto read_file = [&] {
    std::ifstream in(files[0], std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string intact = read_file();
  std::string bytes = intact;
  bytes[bytes.size() - 5] ^= 0x5a;
  {
    std::ofstream out(files[0], std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  api::Engine::Process()->topologies().Clear();
  EXPECT_EQ(friends(), expected);
  EXPECT_EQ(read_file(), intact);
  api::Engine::Process()->topologies().Clear();
  EXPECT_EQ(friends(), expected);
  ::unsetenv("OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES");
}

// A topology persisted from table data derived in memory after inserts
// (graph/table_data.h) must number rows as a new process reading the
// tables from storage does.
TEST_F(SocialTest, PersistedTopologyMatchesANewProcess) {
  ::setenv("OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES", "1", 1);
  constexpr std::string_view kInserts = R"(
query add_person($name: String) { insert Person { name: $name, age: 40 } }
query add_knows($from: String, $to: String) { insert Knows { from: $from, to: $to } }
)";
  for (const char* name : {"Eve", "Frank"}) {
    auto added = graph_->Mutate(kInserts, "m.gq", "add_person", fmt::format(R"({{"name":"{}"}})", name));
    ASSERT_TRUE(added.ok()) << added.status().ToString();
  }
  for (auto [from, to] : {std::pair{"Alice", "Eve"}, {"Frank", "Alice"}, {"Eve", "Frank"}}) {
    auto added = graph_->Mutate(kInserts, "m.gq", "add_knows", fmt::format(R"({{"from":"{}","to":"{}"}})", from, to));
    ASSERT_TRUE(added.ok()) << added.status().ToString();
  }
  api::Engine::Process()->topologies().Clear();
  const Rows expected{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})", R"({"f.name":"Eve"})"};
  EXPECT_EQ(Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}), expected);
  EXPECT_EQ(Sorted(kSocialQueries, "undirected", {{"name", S("Frank")}}),
            (Rows{R"({"f.name":"Alice"})", R"({"f.name":"Eve"})"}));

  api::Engine::Process()->topologies().Clear();
  auto reopened = api::Omnigraph::Open(dir_.path() + "/g0");  // no table data cached
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  graph_ = std::move(reopened).value();
  EXPECT_EQ(Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}), expected);
  EXPECT_EQ(Sorted(kSocialQueries, "undirected", {{"name", S("Frank")}}),
            (Rows{R"({"f.name":"Alice"})", R"({"f.name":"Eve"})"}));
  ::unsetenv("OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES");
}

// A persisted copy that verifies (identity, checksum) but whose node counts
// are not the tables' is ignored, never read through.
TEST_F(SocialTest, PersistedTopologyOfOtherNodeCountsIsRebuilt) {
  graph::Snapshot snapshot = *graph_->store().Latest();
  const graph::GraphState& state = snapshot.state();
  const graph::TableEntry* knows = state.FindTable("edge:Knows");
  const graph::TableEntry* person = state.FindTable("node:Person");
  ASSERT_NE(knows, nullptr);
  ASSERT_NE(person, nullptr);
  // Two people and one edge between them, filed under the real identity.
  omnigraph::BinaryBuilder ids(DataType::Utf8()), src(DataType::Utf8()), dst(DataType::Utf8());
  for (const char* id : {"x", "y"}) ids.Append(id);
  src.Append("x");
  dst.Append("y");
  auto schema = std::make_shared<const Schema>(Schema({Field("id", DataType::Utf8(), false)}));
  auto two = std::make_shared<const graph::TableData>(
      std::make_shared<const RecordBatch>(schema, 2, std::vector<ArrayPtr>{ids.Finish()}));
  auto wrong = BuildTopology(*src.Finish(), *dst.Finish(), *two, *two);
  ASSERT_TRUE(wrong.ok());
  TopologyFiles files(graph_->store().store().get(), graph_->store().root(), /*min_edges=*/0);
  files.Save(TopologyIdentity(*knows, *person, *person), **wrong);
  ASSERT_NE(files.Load(TopologyIdentity(*knows, *person, *person)), nullptr);

  api::Engine::Process()->topologies().Clear();
  EXPECT_EQ(Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}),
            (Rows{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})"}));
}

TEST_F(SocialTest, SmallTopologiesAreNotPersisted) {
  api::Engine::Process()->topologies().Clear();
  EXPECT_EQ(Sorted(kSocialQueries, "friends_of", {{"name", S("Alice")}}),
            (Rows{R"({"f.name":"Bob"})", R"({"f.name":"Charlie"})"}));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/g0/_cache"));
}

TEST(TopologyCacheTest, EvictsLeastRecentlyUsed) {
  TopologyCache cache(TopologyCacheLimits{2});
  int builds = 0;
  auto build = [&]() -> Result<TopologyPtr> {
    ++builds;
    return TopologyPtr(std::make_shared<Topology>());
  };
  ASSERT_TRUE(cache.GetOrBuild("a", build).ok());
  ASSERT_TRUE(cache.GetOrBuild("b", build).ok());
  ASSERT_TRUE(cache.GetOrBuild("a", build).ok());
  ASSERT_TRUE(cache.GetOrBuild("c", build).ok());  // evicts b
  EXPECT_EQ(builds, 3);
  ASSERT_TRUE(cache.GetOrBuild("a", build).ok());
  EXPECT_EQ(builds, 3);
  ASSERT_TRUE(cache.GetOrBuild("b", build).ok());
  EXPECT_EQ(builds, 4);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(QueryExecutorErrors, RejectsMutations) {
  compiler::ir::QueryIR q;
  q.name = "m";
  q.is_mutation = true;
  QueryContext context;
  auto r = ExecuteRead(q, context);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace query_executor_test
}  // namespace omnigraph::exec
