#include "corpus/expected_json.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "exec/result_json.h"
#include "support/shared_files.h"

namespace omnigraph::testing::corpus {

using api::LoadMode;
using api::Omnigraph;

fs::path CorpusRoot() {
  const char* override_dir = std::getenv("OMNIGRAPH_CORPUS_DIR");
  return override_dir ? fs::path(override_dir) : fs::path(OMNIGRAPH_SHARED_DIR) / "corpus";
}

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
Status CheckQueryEntry(Omnigraph& graph, const fs::path& root, const QueryEntry& entry, const SourceRewrite& rewrite) {
  std::string source = ReadFileText(root / entry.corpus / entry.file);
  if (source.empty()) return NotFound("the query file is missing or empty");
  if (rewrite) source = rewrite(std::move(source));
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

}  // namespace omnigraph::testing::corpus
