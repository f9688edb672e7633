// Read-result output formats of the CLI and server (spec/surface.md §5.3):
// table, kv, csv, jsonl and json.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"

namespace omnigraph::exec {

// A finished read: column names in projection order and the rows.
struct QueryResult {
  std::string query_name;
  std::string branch = "main";
  std::optional<std::string> snapshot;         // set when reading a past commit
  std::optional<std::string> graph_commit_id;  // head commit of the snapshot read
  std::vector<std::string> columns;
  RecordBatchPtr rows;                         // may be null when there are no columns

  int64_t row_count() const { return rows ? rows->num_rows() : 0; }
};

enum class OutputFormat { kTable, kKv, kCsv, kJsonl, kJson };

// Parses "table" | "kv" | "csv" | "jsonl" | "json"; nullopt otherwise.
std::optional<OutputFormat> ParseOutputFormat(std::string_view name);

struct TableOptions {
  // Cap on a column's width in terminal columns (at least 8 is used).
  size_t max_column_width = 80;
  // Cells wider than the cap: false truncates them with "…", true wraps
  // them onto as many lines as they need (table_cell_layout: wrap).
  bool wrap_cells = false;
};

// The neutral form every layout of §5.3 renders: the read's envelope and,
// per cell, its display text and per row its compact JSON. A local read
// (GridOf) and a served one (the CLI's ReadOutput parser) both become one,
// so table, kv, csv, jsonl and json print alike whichever path ran.
struct ResultGrid {
  std::string query_name;
  std::string branch = "main";
  std::optional<std::string> snapshot;         // set when reading a past commit
  std::optional<std::string> graph_commit_id;  // head commit of the snapshot read
  std::vector<std::string> columns;
  int64_t row_count = 0;
  // The text of cell (row, column) for table/kv/csv: strings raw, numbers
  // and bools as JSON text, NULL as "null", lists and objects as compact
  // JSON.
  std::function<std::string(int64_t row, size_t column)> cell_text;
  // Row `row` as a compact JSON object keyed by column name, in column
  // order (the form ReadOutput's `rows` hold).
  std::function<std::string(int64_t row)> row_json;
};

// A grid that reads `result`, which must outlive it.
ResultGrid GridOf(const QueryResult& result);

// The complete text written to stdout (ends with a newline).
std::string FormatGrid(const ResultGrid& grid, OutputFormat format, const TableOptions& options = {});

// FormatGrid(GridOf(result), …).
std::string FormatResult(const QueryResult& result, OutputFormat format, const TableOptions& options = {});

// One row as a compact JSON object keyed by column name.
std::string RowJson(const QueryResult& result, int64_t row);
// The read envelope as compact JSON (`ReadOutput`, spec/openapi.json):
// {query_name, target, row_count, columns?, rows, graph_commit_id?}.
// Without `with_graph_commit_id` it is the byte-stable legacy form
// (`LegacyReadOutput`, server.md §1.2 `/read`). `--format json` prints it
// pretty.
std::string ReadOutputJson(const QueryResult& result, bool with_graph_commit_id);
std::string ReadOutputJson(const ResultGrid& grid, bool with_graph_commit_id);

}  // namespace omnigraph::exec
