// The engine context (api/engine.h): one set of caches and budgets shared by
// every handle opened with it, on every graph.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "api/engine.h"
#include "api/omnigraph.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace engine_test {

constexpr std::string_view kSchema = R"(
node Person { name: String @key }
node Company { name: String @key }
edge Knows: Person -> Person
edge WorksAt: Person -> Company
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"alice"}}
{"type":"Person","data":{"name":"bob"}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"Knows","from":"alice","to":"bob"}
{"edge":"WorksAt","from":"bob","to":"acme"}
)";

constexpr std::string_view kQueries = R"(
query people() { match { $p: Person } return { $p.name } }
query companies() { match { $c: Company } return { $c.name } }
query knows($name: String) { match { $p: Person { name: $name } $p knows $f } return { $f.name } }
query employer($name: String) { match { $p: Person { name: $name } $p worksAt $c } return { $c.name } }
)";

class EngineTest : public ::testing::Test {
 protected:
  // A graph holding kData at `name` under the temporary directory, made
  // through an engine of its own (so `engine_` starts empty).
  std::string MakeGraph(const std::string& name) {
    std::string uri = dir_.path() + "/" + name;
    auto graph = Omnigraph::Init(uri, kSchema, "schema.pg", false, std::make_shared<Engine>());
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    auto load = (*graph)->Load(kData, "data.jsonl", LoadMode::kOverwrite);
    EXPECT_TRUE(load.ok()) << load.status().ToString();
    return uri;
  }

  std::unique_ptr<Omnigraph> OpenWith(const std::string& uri, const EnginePtr& engine) {
    auto graph = Omnigraph::Open(uri, engine);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    return graph.ok() ? std::move(graph).value() : nullptr;
  }

  static int64_t Rows(Omnigraph& graph, const std::string& name, std::string_view params = "{}") {
    auto result = graph.Query(kQueries, "q.gq", name, std::string(params));
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? result->row_count() : -1;
  }

  omnigraph::testing::TempDir dir_;
};

TEST_F(EngineTest, HandlesOfOneEngineDecodeATableVersionOnce) {
  const std::string uri = MakeGraph("g");
  auto engine = std::make_shared<Engine>();
  auto first = OpenWith(uri, engine);
  auto second = OpenWith(uri, engine);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(engine->usage().table_versions, 0u);

  EXPECT_EQ(Rows(*first, "people"), 2);
  const Engine::Usage after_first = engine->usage();
  EXPECT_EQ(after_first.table_versions, 1u);  // node:Person at its pin
  EXPECT_GT(after_first.table_bytes, 0);

  EXPECT_EQ(Rows(*second, "people"), 2);  // served from what `first` decoded
  EXPECT_EQ(engine->usage().table_versions, 1u);
  EXPECT_EQ(engine->usage().table_bytes, after_first.table_bytes);

  // A handle of another engine decodes its own copy.
  auto other_engine = std::make_shared<Engine>();
  auto third = OpenWith(uri, other_engine);
  ASSERT_TRUE(third);
  EXPECT_EQ(Rows(*third, "people"), 2);
  EXPECT_EQ(other_engine->usage().table_versions, 1u);
  EXPECT_EQ(engine->usage().table_versions, 1u);
}

TEST_F(EngineTest, TopologiesAreSharedByHandles) {
  const std::string uri = MakeGraph("g");
  auto engine = std::make_shared<Engine>();
  auto first = OpenWith(uri, engine);
  auto second = OpenWith(uri, engine);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(Rows(*first, "knows", R"({"name":"alice"})"), 1);
  EXPECT_EQ(engine->usage().topologies, 1u);
  const int64_t bytes = engine->usage().topology_bytes;
  EXPECT_GT(bytes, 0);
  EXPECT_EQ(Rows(*second, "knows", R"({"name":"alice"})"), 1);
  EXPECT_EQ(engine->usage().topologies, 1u);
  EXPECT_EQ(engine->usage().topology_bytes, bytes);
}

// One budget for every graph: reading a second graph evicts the first
// graph's table when both do not fit.
TEST_F(EngineTest, TheTableBudgetSpansGraphs) {
  const std::string a = MakeGraph("a");
  const std::string b = MakeGraph("b");
  // Measure one decoded Person table.
  int64_t one_table = 0;
  {
    auto probe = std::make_shared<Engine>();
    auto graph = OpenWith(a, probe);
    ASSERT_TRUE(graph);
    EXPECT_EQ(Rows(*graph, "people"), 2);
    one_table = probe->usage().table_bytes;
    ASSERT_GT(one_table, 0);
  }
  EngineOptions options;
  options.tables.table_data_bytes = one_table + one_table / 2;  // room for one table, not two
  auto engine = std::make_shared<Engine>(options);
  auto graph_a = OpenWith(a, engine);
  auto graph_b = OpenWith(b, engine);
  ASSERT_TRUE(graph_a && graph_b);
  EXPECT_EQ(Rows(*graph_a, "people"), 2);
  EXPECT_EQ(engine->usage().table_versions, 1u);
  EXPECT_EQ(Rows(*graph_b, "people"), 2);
  EXPECT_EQ(engine->usage().table_versions, 1u);  // a's Person went
  EXPECT_EQ(engine->usage().table_bytes, one_table);
  // Each graph still answers (a's table is decoded again).
  EXPECT_EQ(Rows(*graph_a, "people"), 2);
  EXPECT_EQ(engine->usage().table_versions, 1u);

  // Without the bound both stay.
  auto roomy = std::make_shared<Engine>();
  auto roomy_a = OpenWith(a, roomy);
  auto roomy_b = OpenWith(b, roomy);
  EXPECT_EQ(Rows(*roomy_a, "people"), 2);
  EXPECT_EQ(Rows(*roomy_b, "people"), 2);
  EXPECT_EQ(roomy->usage().table_versions, 2u);
  EXPECT_EQ(roomy->usage().table_bytes, 2 * one_table);
}

TEST_F(EngineTest, TheTopologyBudgetKeepsTheNewestWhenFull) {
  const std::string uri = MakeGraph("g");
  EngineOptions options;
  options.topologies.bytes = 1;  // smaller than any topology: only the newest stays
  auto engine = std::make_shared<Engine>(options);
  auto graph = OpenWith(uri, engine);
  ASSERT_TRUE(graph);
  EXPECT_EQ(Rows(*graph, "knows", R"({"name":"alice"})"), 1);
  EXPECT_EQ(engine->usage().topologies, 1u);
  EXPECT_EQ(Rows(*graph, "employer", R"({"name":"bob"})"), 1);
  EXPECT_EQ(engine->usage().topologies, 1u);
  // Evicted topologies are rebuilt; answers never change.
  EXPECT_EQ(Rows(*graph, "knows", R"({"name":"alice"})"), 1);
  EXPECT_EQ(Rows(*graph, "employer", R"({"name":"bob"})"), 1);
  EXPECT_EQ(engine->usage().topologies, 1u);
}

TEST_F(EngineTest, WritesFeedTheSharedCache) {
  const std::string uri = MakeGraph("g");
  auto engine = std::make_shared<Engine>();
  auto writer = OpenWith(uri, engine);
  auto reader = OpenWith(uri, engine);
  ASSERT_TRUE(writer && reader);
  EXPECT_EQ(Rows(*reader, "people"), 2);
  auto inserted = writer->Mutate("query add($n: String) { insert Person { name: $n } }", "m.gq", "add",
                                 R"({"n":"carol"})");
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  const size_t versions = engine->usage().table_versions;
  // The reader sees the insert through the version the writer derived.
  EXPECT_EQ(Rows(*reader, "people"), 3);
  EXPECT_EQ(engine->usage().table_versions, versions);
}

TEST_F(EngineTest, ACacheBudgetSplitsBetweenTablesAndTopologies) {
  EngineOptions options = EngineOptions::WithCacheBudget(int64_t{768} << 20);
  EXPECT_EQ(options.tables.table_data_bytes, int64_t{512} << 20);
  EXPECT_EQ(options.topologies.bytes, int64_t{256} << 20);
  EngineOptions odd = EngineOptions::WithCacheBudget(100);
  EXPECT_EQ(odd.tables.table_data_bytes + odd.topologies.bytes, 100);
}

TEST_F(EngineTest, HandlesWithoutAnEngineShareTheProcessEngine) {
  const std::string uri = MakeGraph("g");
  auto first = OpenWith(uri, nullptr);
  ASSERT_TRUE(first);
  const size_t before = Engine::Process()->usage().table_versions;
  EXPECT_EQ(Rows(*first, "companies"), 1);
  const size_t after = Engine::Process()->usage().table_versions;
  EXPECT_EQ(after, before + 1);
  auto second = OpenWith(uri, nullptr);
  EXPECT_EQ(Rows(*second, "companies"), 1);
  EXPECT_EQ(Engine::Process()->usage().table_versions, after);
}

}  // namespace engine_test
}  // namespace omnigraph::api
