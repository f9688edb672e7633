// The real graphs in ../shared/corpus (architecture.md §2 "tests/corpus"),
// run whenever that folder is present, as it is in CI:
//   * every JSONL file loads (overwrite) into a graph created from its
//     schema, and every parameterless read query next to it runs;
//   * the documented results of the Omnigraph fixtures (spec/surface.md §8)
//     hold exactly on test.pg + test.jsonl;
//   * every entry of corpus/expected.json (format in corpus/README.md) holds
//     exactly: entity counts after an overwrite load, and query results.
// When the folder is absent the tests say so and check nothing (the
// expected.json test reports itself skipped, not passed).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "corpus/expected_json.h"
#include "compiler/catalog.h"
#include "compiler/typecheck.h"
#include "exec/result_json.h"
#include "support/shared_files.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace corpus_test {

namespace fs = std::filesystem;
using omnigraph::testing::FilesUnder;
using omnigraph::testing::ReadFileText;
using omnigraph::testing::SchemasNear;

using testing::corpus::CheckGraphCounts;
using testing::corpus::CheckQueryEntry;
using testing::corpus::CorpusRoot;  // OMNIGRAPH_CORPUS_DIR points it at another copy
using testing::corpus::GraphEntry;
using testing::corpus::Json;
using testing::corpus::LoadGraph;
using testing::corpus::OnlyKnownMembers;
using testing::corpus::QueryEntry;
using testing::corpus::ReadGraphEntry;
using testing::corpus::ReadQueryEntry;

// Each row as its cells' JSON texts.
using Cells = std::vector<std::string>;

std::vector<Cells> RowCells(const exec::QueryResult& result) {
  std::vector<Cells> rows;
  for (int64_t r = 0; r < result.row_count(); ++r) {
    Cells cells;
    for (int c = 0; c < result.rows->num_columns(); ++c) {
      std::string cell;
      exec::AppendCellJson(&cell, *result.rows->column(c), r);
      cells.push_back(std::move(cell));
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

TEST(CorpusTest, EveryGraphLoadsAndItsParameterlessQueriesRun) {
  fs::path root = CorpusRoot();
  if (!fs::is_directory(root)) {
    std::cout << "[corpus] " << root.string() << " is not present: loaded 0 graphs\n";
    return;
  }
  int loaded = 0, queries_run = 0;
  for (const fs::path& jsonl : FilesUnder(root, ".jsonl")) {
    std::vector<fs::path> schemas = SchemasNear(jsonl, root);
    ASSERT_FALSE(schemas.empty()) << "no schema found for " << jsonl;
    // The data file loads into the graph of one of its candidate schemas.
    std::string failures;
    omnigraph::testing::TempDir dir;
    std::unique_ptr<Omnigraph> graph;
    fs::path schema_used;
    for (const fs::path& pg : schemas) {
      std::string uri = dir.path() + "/" + pg.stem().string();
      auto g = Omnigraph::Init(uri, ReadFileText(pg), pg.string());
      if (!g.ok()) {
        failures += "\n  init " + pg.string() + ": " + g.status().ToString();
        continue;
      }
      auto report = (*g)->Load(ReadFileText(jsonl), jsonl.string(), LoadMode::kOverwrite);
      if (report.ok()) {
        graph = std::move(*g);
        schema_used = pg;
        break;
      }
      failures += "\n  load against " + pg.string() + ": " + report.status().ToString();
    }
    ASSERT_NE(graph, nullptr) << jsonl << failures;
    ++loaded;
    auto catalog = graph->Catalog();
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    for (const fs::path& gq : FilesUnder(jsonl.parent_path(), ".gq")) {
      if (SchemasNear(gq, root) != std::vector<fs::path>{schema_used} && gq.stem() != schema_used.stem()) continue;
      std::string source = ReadFileText(gq);
      compiler::CompileOptions options;
      options.enforce_d2 = false;
      auto compiled = compiler::CompileQueries(**catalog, source, gq.string(), options);
      if (!compiled.ok()) continue;  // compiled against its own schema by QuerySharedFiles
      for (const compiler::ir::QueryIR& query : *compiled) {
        if (query.is_mutation || !query.params.empty()) continue;
        auto result = graph->Query(source, gq.string(), query.name, "{}");
        EXPECT_TRUE(result.ok()) << gq << " query " << query.name << ": " << result.status().ToString();
        ++queries_run;
      }
    }
  }
  std::cout << "[corpus] loaded " << loaded << " JSONL files and ran " << queries_run << " queries under "
            << root.string() << "\n";
}

// One documented expectation: rows in order (or sorted when `unordered`),
// each row given by cells it must contain (the query may return more).
struct Expectation {
  std::string query;
  std::string param_value;  // JSON value for the query's only parameter, or "" for none
  std::vector<Cells> rows;
  bool unordered = false;
};

bool RowContains(Cells row, const Cells& wanted) {
  for (const std::string& cell : wanted) {
    auto it = std::find(row.begin(), row.end(), cell);
    if (it == row.end()) return false;
    row.erase(it);
  }
  return true;
}

TEST(CorpusTest, OmnigraphFixtureResultsMatchTheSpec) {
  fs::path fixtures = CorpusRoot() / "omnigraph-fixtures";
  if (!fs::exists(fixtures / "test.pg")) {
    std::cout << "[corpus] " << fixtures.string() << "/test.pg is not present: checked 0 results\n";
    return;
  }
  omnigraph::testing::TempDir dir;
  auto graph = Omnigraph::Init(dir.path() + "/g", ReadFileText(fixtures / "test.pg"), "test.pg");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  auto loaded = (*graph)->Load(ReadFileText(fixtures / "test.jsonl"), "test.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  std::string source = ReadFileText(fixtures / "test.gq");
  auto catalog = (*graph)->Catalog();
  ASSERT_TRUE(catalog.ok());
  auto compiled = compiler::CompileQueries(**catalog, source, "test.gq");
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();

  // spec/surface.md §8, "Expected results on test.pg + test.jsonl".
  const std::vector<Expectation> expectations = {
      {"get_person", R"("Alice")", {{R"("Alice")", "30"}}},
      {"get_person", R"("Nobody")", {}},
      {"adults", "", {{R"("Charlie")", "35"}}},
      {"friends_of", R"("Alice")", {{R"("Bob")"}, {R"("Charlie")"}}, true},
      {"employees_of", R"("Acme")", {{R"("Alice")"}}},
      {"friends_of_friends", R"("Alice")", {{R"("Diana")"}}},
      {"unemployed", "", {{R"("Charlie")"}, {R"("Diana")"}}, true},
      {"friend_counts", "", {{R"("Alice")", "2"}, {R"("Bob")", "1"}}},
      {"top_by_age", "", {{R"("Charlie")", "35"}, {R"("Alice")", "30"}}},
      {"total_people", "", {{"4"}}},
      {"age_stats", "", {{R"("Acme")", "30.0", "30.0", "30", "30", "1"}, {R"("Globex")", "25.0", "25.0", "25", "25", "1"}},
       true},
      {"top_connected", "", {{R"("Alice")", "2"}}},
  };
  int checked = 0;
  for (const Expectation& e : expectations) {
    auto query = std::find_if(compiled->begin(), compiled->end(), [&](const auto& q) { return q.name == e.query; });
    ASSERT_NE(query, compiled->end()) << "test.gq has no query " << e.query;
    std::string params = "{}";
    if (!e.param_value.empty()) {
      ASSERT_EQ(query->params.size(), 1u) << e.query;
      params = "{\"" + query->params[0].name + "\":" + e.param_value + "}";
    }
    auto result = (*graph)->Query(source, "test.gq", e.query, params);
    ASSERT_TRUE(result.ok()) << e.query << ": " << result.status().ToString();
    std::vector<Cells> rows = RowCells(*result);
    ASSERT_EQ(rows.size(), e.rows.size()) << e.query << " " << params;
    std::vector<bool> used(rows.size(), false);
    for (size_t i = 0; i < e.rows.size(); ++i) {
      if (!e.unordered) {
        EXPECT_TRUE(RowContains(rows[i], e.rows[i])) << e.query << " row " << i;
        continue;
      }
      bool found = false;
      for (size_t j = 0; j < rows.size() && !found; ++j) {
        if (!used[j] && RowContains(rows[j], e.rows[i])) found = used[j] = true;
      }
      EXPECT_TRUE(found) << e.query << " has no row holding expected row " << i;
    }
    ++checked;
  }
  std::cout << "[corpus] checked " << checked << " documented fixture results\n";
}

// Runs every entry of one expected.json and tallies the verdicts. An entry
// counts as checked once it was compared with the engine's answer, whatever
// the outcome; each failure is reported on its own, naming the entry.
class ExpectedJsonRun {
 public:
  explicit ExpectedJsonRun(fs::path root) : root_(std::move(root)) {}

  // Reads queries[]; entries in an unknown format are failures.
  void ReadQueries(const Json& queries) {
    for (size_t i = 0; i < queries.size(); ++i) {
      auto entry = ReadQueryEntry(i, queries[i]);
      if (entry.ok()) {
        queries_.push_back(std::move(*entry));
      } else {
        Fail(fmt::format("queries[{}] {}: not understood: {}", i, queries[i].dump(), entry.status().message()));
      }
    }
  }

  // Loads the graph once, checks its counts, then runs its queries.
  void RunGraph(const std::string& name, const Json& spec) {
    auto entry = ReadGraphEntry(root_, name, spec);
    if (!entry.ok()) return Fail(fmt::format("graphs.{}: not understood: {}", name, entry.status().message()));
    auto graph = LoadGraph(*entry, dir_.path() + "/" + std::to_string(graphs_run_++));
    if (!graph.ok()) {
      Fail(fmt::format("graphs.{}: the seed did not load: {}", name, graph.status().ToString()));
    } else {
      Tally(fmt::format("graphs.{} ({})", name, entry->seed.string()), CheckGraphCounts(**graph, *entry));
    }
    for (const QueryEntry& query : queries_) {
      if (query.corpus != name) continue;
      ran_.push_back(query.index);
      if (graph.ok()) {
        Tally(Describe(query), CheckQueryEntry(**graph, root_, query));
      } else {
        Fail(Describe(query) + ": its graph did not load");
      }
    }
  }

  // Entries whose corpus names no graph were never run.
  void FailUnrunQueries() {
    for (const QueryEntry& query : queries_) {
      if (std::find(ran_.begin(), ran_.end(), query.index) == ran_.end()) {
        Fail(Describe(query) + ": no graph named '" + query.corpus + "'");
      }
    }
  }

  size_t checked() const { return checked_; }
  size_t failed() const { return failed_; }

 private:
  static std::string Describe(const QueryEntry& q) {
    return fmt::format("queries[{}] {} {} {} {} (source: {})", q.index, q.corpus, q.file, q.name, q.params, q.source);
  }
  void Tally(const std::string& what, const Status& verdict) {
    ++checked_;
    if (!verdict.ok()) Fail(what + ": " + verdict.message());
  }
  void Fail(const std::string& message) {
    ++failed_;
    ADD_FAILURE() << "expected.json " << message;
  }

  fs::path root_;
  omnigraph::testing::TempDir dir_;
  std::vector<QueryEntry> queries_;
  std::vector<size_t> ran_;
  size_t graphs_run_ = 0, checked_ = 0, failed_ = 0;
};

TEST(CorpusTest, EveryEntryOfExpectedJsonHolds) {
  fs::path root = CorpusRoot();
  if (!fs::is_directory(root)) GTEST_SKIP() << root.string() << " is not present";
  const Json doc = Json::parse(ReadFileText(root / "expected.json"), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(doc.is_object()) << root / "expected.json" << " is missing or not a JSON object";
  Status members = OnlyKnownMembers(doc, {"format", "graphs", "queries"});
  ASSERT_TRUE(members.ok()) << "expected.json: " << members.message();
  const Json graphs = doc.value("graphs", Json());
  const Json queries = doc.value("queries", Json());
  // Empty lists would let every check below pass without checking anything.
  ASSERT_TRUE(graphs.is_object() && !graphs.empty()) << "expected.json: 'graphs' must be a non-empty object";
  ASSERT_TRUE(queries.is_array() && !queries.empty()) << "expected.json: 'queries' must be a non-empty array";

  ExpectedJsonRun run(root);
  run.ReadQueries(queries);
  for (const auto& [name, spec] : graphs.items()) run.RunGraph(name, spec);
  run.FailUnrunQueries();

  const size_t entries = graphs.size() + queries.size();
  std::cout << "[corpus] expected.json: checked " << run.checked() << " of " << entries << " entries (" << graphs.size()
            << " graphs, " << queries.size() << " queries), " << run.failed() << " failed\n";
  EXPECT_EQ(run.checked(), entries) << "entries of expected.json were not checked";
  EXPECT_EQ(run.failed(), 0u);
}

}  // namespace corpus_test
}  // namespace omnigraph::api
