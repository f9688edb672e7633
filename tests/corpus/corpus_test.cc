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
#include "compiler/catalog.h"
#include "compiler/typecheck.h"
#include "exec/result_json.h"
#include "support/shared_files.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace {

namespace fs = std::filesystem;
using omnigraph::testing::FilesUnder;
using omnigraph::testing::ReadFileText;
using omnigraph::testing::SchemasNear;

// OMNIGRAPH_CORPUS_DIR points the tests at another copy of the corpus.
fs::path CorpusRoot() {
  const char* override_dir = std::getenv("OMNIGRAPH_CORPUS_DIR");
  return override_dir ? fs::path(override_dir) : fs::path(OMNIGRAPH_SHARED_DIR) / "corpus";
}

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

// ---------------------------------------------------------------------------
// corpus/expected.json: every documented result, checked entry by entry.
//
// Cells are compared as the CLI prints them (exec::AppendCellJson), parsed
// back into JSON, so numbers compare as JSON numbers (30 == 30.0, as the
// README allows for a float column). The README's other rule, that an
// integer column must not print a fraction, is checked on that printed
// text: comparing the stored values would not see how they print.

// Ordered so that expected rows and messages keep the file's column order.
using Json = nlohmann::ordered_json;
using JsonRows = std::vector<std::vector<Json>>;

// What an entry demands of a result: its rows restricted to `columns`.
struct ExpectedRows {
  std::vector<std::string> columns;
  JsonRows rows;  // values in `columns` order
  bool ordered = false;
  bool prefix = false;  // only the first rows.size() result rows are fixed
};

// One entry of queries[].
struct QueryEntry {
  size_t index = 0;
  std::string corpus, file, name, source;
  std::string params;  // a JSON object's text
  ExpectedRows expected;
};

// One entry of graphs{}: the counts export must show after the seed loads.
struct GraphEntry {
  std::string name;
  fs::path schema, seed;
  uint64_t nodes = 0, edges = 0;
};

// Refuses members outside `known`: an entry in a format this test does not
// know must fail rather than be checked partly.
Status OnlyKnownMembers(const Json& object, const std::vector<std::string>& known) {
  for (const auto& [member, value] : object.items()) {
    if (std::find(known.begin(), known.end(), member) == known.end()) {
      return InvalidArgument(fmt::format("unknown member '{}'", member));
    }
  }
  return Status::OK();
}

Result<std::string> StringMember(const Json& object, const std::string& member) {
  auto it = object.find(member);
  if (it == object.end() || !it->is_string()) return InvalidArgument(fmt::format("'{}' must be a string", member));
  return it->get<std::string>();
}

Result<bool> BoolMember(const Json& object, const std::string& member) {
  auto it = object.find(member);
  if (it == object.end() || !it->is_boolean()) return InvalidArgument(fmt::format("'{}' must be a boolean", member));
  return it->get<bool>();
}

Result<uint64_t> CountMember(const Json& object, const std::string& member) {
  auto it = object.find(member);
  if (it == object.end() || !it->is_number_unsigned()) {
    return InvalidArgument(fmt::format("'{}' must be a non-negative integer", member));
  }
  return it->get<uint64_t>();
}

// The `key` + `expect` form: one column, one expected value per row.
Result<ExpectedRows> ReadKeyForm(const Json& entry) {
  ExpectedRows expected;
  OG_ASSIGN_OR_RETURN(std::string key, StringMember(entry, "key"));
  const Json values = entry.value("expect", Json());
  if (!values.is_array()) return InvalidArgument("'expect' must be an array");
  if (entry.contains("rows") || entry.contains("prefix")) return InvalidArgument("'key' form with 'rows' or 'prefix'");
  expected.columns = {key};
  for (const Json& value : values) expected.rows.push_back({value});
  return expected;
}

// The `rows` form: objects that all name the same columns.
Result<ExpectedRows> ReadRowsForm(const Json& entry) {
  ExpectedRows expected;
  const Json rows = entry.value("rows", Json());
  if (!rows.is_array()) return InvalidArgument("'rows' must be an array");
  if (entry.contains("key") || entry.contains("expect")) return InvalidArgument("'rows' form with 'key' or 'expect'");
  if (!rows.empty() && rows[0].is_object()) {
    for (const auto& [column, value] : rows[0].items()) expected.columns.push_back(column);
  }
  for (const Json& row : rows) {
    if (!row.is_object() || row.empty() || row.size() != expected.columns.size()) {
      return InvalidArgument("every expected row must be an object naming the same columns");
    }
    std::vector<Json> values;
    for (const std::string& column : expected.columns) {
      if (!row.contains(column)) return InvalidArgument("every expected row must name the same columns");
      values.push_back(row.at(column));
    }
    expected.rows.push_back(std::move(values));
  }
  if (entry.contains("prefix")) {
    OG_ASSIGN_OR_RETURN(expected.prefix, BoolMember(entry, "prefix"));
  }
  return expected;
}

Result<QueryEntry> ReadQueryEntry(size_t index, const Json& entry) {
  if (!entry.is_object()) return InvalidArgument("an entry must be an object");
  OG_RETURN_IF_ERROR(OnlyKnownMembers(
      entry, {"corpus", "file", "name", "params", "source", "ordered", "key", "expect", "rows", "prefix"}));
  QueryEntry query;
  query.index = index;
  OG_ASSIGN_OR_RETURN(query.corpus, StringMember(entry, "corpus"));
  OG_ASSIGN_OR_RETURN(query.file, StringMember(entry, "file"));
  OG_ASSIGN_OR_RETURN(query.name, StringMember(entry, "name"));
  OG_ASSIGN_OR_RETURN(query.source, StringMember(entry, "source"));
  const Json params = entry.value("params", Json());
  if (!params.is_object()) return InvalidArgument("'params' must be an object");
  query.params = params.dump();
  if (entry.contains("key") == entry.contains("rows")) return InvalidArgument("exactly one of 'key' and 'rows'");
  OG_ASSIGN_OR_RETURN(query.expected, entry.contains("key") ? ReadKeyForm(entry) : ReadRowsForm(entry));
  OG_ASSIGN_OR_RETURN(query.expected.ordered, BoolMember(entry, "ordered"));
  // A prefix fixes leading rows of an order; without an order, or without
  // rows, it would fix nothing and the entry could not fail.
  if (query.expected.prefix && (!query.expected.ordered || query.expected.rows.empty())) {
    return InvalidArgument("'prefix' needs 'ordered' and at least one row");
  }
  return query;
}

Result<GraphEntry> ReadGraphEntry(const fs::path& root, const std::string& name, const Json& entry) {
  if (!entry.is_object()) return InvalidArgument("a graph must be an object");
  OG_RETURN_IF_ERROR(OnlyKnownMembers(entry, {"schema", "seed", "nodes", "edges"}));
  GraphEntry graph;
  graph.name = name;
  OG_ASSIGN_OR_RETURN(std::string schema, StringMember(entry, "schema"));
  OG_ASSIGN_OR_RETURN(std::string seed, StringMember(entry, "seed"));
  graph.schema = root / schema;
  graph.seed = root / seed;
  OG_ASSIGN_OR_RETURN(graph.nodes, CountMember(entry, "nodes"));
  OG_ASSIGN_OR_RETURN(graph.edges, CountMember(entry, "edges"));
  return graph;
}

bool IsIntegerType(TypeId type) {
  return type == TypeId::kInt32 || type == TypeId::kInt64 || type == TypeId::kUInt32 || type == TypeId::kUInt64;
}

// array[row] as the CLI prints it, parsed back into JSON.
Result<Json> PrintedCell(const Array& array, int64_t row, const std::string& column) {
  std::string text;
  exec::AppendCellJson(&text, array, row);
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Internal(fmt::format("column '{}' printed invalid JSON {}", column, text));
  if (IsIntegerType(array.type_id()) && !value.is_null() && !value.is_number_integer()) {
    return InvalidArgument(fmt::format("integer column '{}' printed {}", column, text));
  }
  return value;
}

// The result's rows restricted to `columns` (runtime names, e.g. "p.slug").
Result<JsonRows> PrintedRows(const exec::QueryResult& result, const std::vector<std::string>& columns) {
  std::vector<int> positions;
  for (const std::string& column : columns) {
    auto it = std::find(result.columns.begin(), result.columns.end(), column);
    if (it == result.columns.end()) {
      return InvalidArgument(fmt::format("the result has no column '{}' (it has {})", column,
                                         Json(result.columns).dump()));
    }
    positions.push_back(static_cast<int>(it - result.columns.begin()));
  }
  JsonRows rows;
  for (int64_t r = 0; r < result.row_count(); ++r) {
    std::vector<Json> row;
    for (size_t c = 0; c < columns.size(); ++c) {
      OG_ASSIGN_OR_RETURN(Json cell, PrintedCell(*result.rows->column(positions[c]), r, columns[c]));
      row.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Each expected row matched to a distinct actual row. Json's == is an
// equivalence (numbers by value), so first-fit matching is exact.
bool SameMultiset(const JsonRows& actual, const JsonRows& expected) {
  if (actual.size() != expected.size()) return false;
  std::vector<bool> used(actual.size(), false);
  for (const std::vector<Json>& row : expected) {
    size_t j = 0;
    while (j < actual.size() && (used[j] || actual[j] != row)) ++j;
    if (j == actual.size()) return false;
    used[j] = true;
  }
  return true;
}

bool RowsMatch(const JsonRows& actual, const ExpectedRows& expected) {
  if (expected.prefix) {
    return actual.size() >= expected.rows.size() &&
           std::equal(expected.rows.begin(), expected.rows.end(), actual.begin());
  }
  return expected.ordered ? actual == expected.rows : SameMultiset(actual, expected.rows);
}

// Rows as a JSON array of {column: value} objects, for messages.
std::string RowsText(const std::vector<std::string>& columns, const JsonRows& rows) {
  Json text = Json::array();
  for (const std::vector<Json>& row : rows) {
    Json object = Json::object();
    for (size_t c = 0; c < columns.size(); ++c) object[columns[c]] = row[c];
    text.push_back(std::move(object));
  }
  return text.dump();
}

Status CheckQueryEntry(Omnigraph& graph, const fs::path& root, const QueryEntry& entry) {
  std::string source = ReadFileText(root / entry.corpus / entry.file);
  if (source.empty()) return NotFound("the query file is missing or empty");
  auto result = graph.Query(source, entry.corpus + "/" + entry.file, entry.name, entry.params);
  if (!result.ok()) return result.status().WithContext("the query failed");
  const ExpectedRows& expected = entry.expected;
  OG_ASSIGN_OR_RETURN(JsonRows actual, PrintedRows(*result, expected.columns));
  if (RowsMatch(actual, expected)) return Status::OK();
  // An empty `rows` names no column to restrict to: show the whole rows.
  const std::vector<std::string>& shown = expected.columns.empty() ? result->columns : expected.columns;
  OG_ASSIGN_OR_RETURN(JsonRows shown_rows, PrintedRows(*result, shown));
  return InvalidArgument(fmt::format("expected {}{} {}, got {}", expected.ordered ? "in order" : "as a multiset",
                                     expected.prefix ? " (leading rows)" : "",
                                     RowsText(expected.columns, expected.rows), RowsText(shown, shown_rows)));
}

// Nodes and edges in main's export: one NDJSON line per entity, a node
// line with "type", an edge line with "edge" (spec/surface.md §4.5).
Result<std::pair<uint64_t, uint64_t>> ExportCounts(Omnigraph& graph) {
  OG_ASSIGN_OR_RETURN(std::string ndjson, graph.Export("main", {}));
  uint64_t nodes = 0, edges = 0;
  size_t begin = 0;
  while (begin < ndjson.size()) {
    size_t end = std::min(ndjson.find('\n', begin), ndjson.size());
    Json line = Json::parse(ndjson.substr(begin, end - begin), nullptr, /*allow_exceptions=*/false);
    begin = end + 1;
    if (line.is_object() && line.contains("type") != line.contains("edge")) {
      (line.contains("type") ? nodes : edges) += 1;
    } else {
      return Internal("export wrote a line that is neither a node nor an edge");
    }
  }
  return std::make_pair(nodes, edges);
}

Status CheckGraphCounts(Omnigraph& graph, const GraphEntry& entry) {
  OG_ASSIGN_OR_RETURN(auto counts, ExportCounts(graph));
  if (counts == std::make_pair(entry.nodes, entry.edges)) return Status::OK();
  return InvalidArgument(fmt::format("expected {} nodes and {} edges in the export, got {} and {}", entry.nodes,
                                     entry.edges, counts.first, counts.second));
}

Result<std::unique_ptr<Omnigraph>> LoadGraph(const GraphEntry& entry, const std::string& uri) {
  std::string schema = ReadFileText(entry.schema), seed = ReadFileText(entry.seed);
  if (schema.empty() || seed.empty()) return NotFound("the schema or seed is missing or empty");
  OG_ASSIGN_OR_RETURN(auto graph, Omnigraph::Init(uri, schema, entry.schema.string()));
  auto loaded = graph->Load(seed, entry.seed.string(), LoadMode::kOverwrite);
  if (!loaded.ok()) return loaded.status();
  return graph;
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

}  // namespace
}  // namespace omnigraph::api
