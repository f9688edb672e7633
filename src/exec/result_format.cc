#include "exec/result_format.h"

#include <algorithm>

#include <fmt/format.h>

#include "exec/result_json.h"
#include "util/utf8.h"

namespace omnigraph::exec {
namespace {

// Cell text for table/kv/csv: strings raw, numbers and bools as JSON text,
// NULL as "null", lists and objects as compact JSON. A scalar that JSON
// spells as a string (a date, a datetime, a NaN or infinite float) is a
// string cell too, printed without its quotes; its text needs no escapes.
std::string CellText(const Array& array, int64_t row) {
  const TypeId type = array.type_id();
  if (!array.IsNull(row) && (type == TypeId::kUtf8 || type == TypeId::kLargeBinary)) {
    return std::string(array.GetView(row));
  }
  std::string json;
  AppendCellJson(&json, array, row);
  const bool nested = type == TypeId::kList || type == TypeId::kFixedSizeList || type == TypeId::kStruct;
  if (!nested && json.size() >= 2 && json.front() == '"') return json.substr(1, json.size() - 2);
  return json;
}

using utf8::DisplayWidth;

std::string EscapeNewlines(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

// Truncates to `width` terminal columns, ending with "…" (one column) when
// shortened; a wide character that would not fit before it is left out.
std::string Fit(const std::string& text, size_t width) {
  if (DisplayWidth(text) <= width) return text;
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < text.size();) {
    size_t start = i;
    size_t columns = utf8::ColumnWidth(utf8::Next(text, &i));
    if (used + columns + 1 > width) break;
    out.append(text, start, i - start);
    used += columns;
  }
  return out + "…";
}

// Splits `text` into pieces of at most `width` terminal columns; a wide
// character is never split across two pieces.
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> pieces(1);
  size_t used = 0;
  for (size_t i = 0; i < text.size();) {
    size_t start = i;
    size_t columns = utf8::ColumnWidth(utf8::Next(text, &i));
    if (used > 0 && used + columns > width) {
      pieces.emplace_back();
      used = 0;
    }
    pieces.back().append(text, start, i - start);
    used += columns;
  }
  return pieces;
}

std::string Pad(const std::string& text, size_t width) {
  size_t w = DisplayWidth(text);
  return w >= width ? text : text + std::string(width - w, ' ');
}

std::string Header(const ResultGrid& result) {
  std::string target = result.snapshot ? fmt::format("snapshot {}", *result.snapshot)
                                       : fmt::format("branch {}", result.branch);
  return fmt::format("{} rows from {} via {}\n", result.row_count, target, result.query_name);
}

std::string CsvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

std::string TargetJson(const ResultGrid& result) {
  // A snapshot read is not a read of any branch.
  std::string out = "{\"branch\":";
  if (result.snapshot) out += "null";
  else AppendJsonString(&out, result.branch);
  out += ",\"snapshot\":";
  if (result.snapshot) AppendJsonString(&out, *result.snapshot);
  else out += "null";
  return out + "}";
}

}  // namespace

std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "kv") return OutputFormat::kKv;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "jsonl") return OutputFormat::kJsonl;
  if (name == "json") return OutputFormat::kJson;
  return std::nullopt;
}

std::string RowJson(const QueryResult& result, int64_t row) {
  std::string out = "{";
  for (size_t c = 0; c < result.columns.size(); ++c) {
    if (c) out += ',';
    AppendJsonString(&out, result.columns[c]);
    out += ':';
    AppendCellJson(&out, *result.rows->column(static_cast<int>(c)), row);
  }
  return out + "}";
}

ResultGrid GridOf(const QueryResult& result) {
  ResultGrid grid;
  grid.query_name = result.query_name;
  grid.branch = result.branch;
  grid.snapshot = result.snapshot;
  grid.graph_commit_id = result.graph_commit_id;
  grid.columns = result.columns;
  grid.row_count = result.row_count();
  grid.cell_text = [&result](int64_t row, size_t column) {
    return CellText(*result.rows->column(static_cast<int>(column)), row);
  };
  grid.row_json = [&result](int64_t row) { return RowJson(result, row); };
  return grid;
}

std::string ReadOutputJson(const QueryResult& result, bool with_graph_commit_id) {
  return ReadOutputJson(GridOf(result), with_graph_commit_id);
}

std::string ReadOutputJson(const ResultGrid& result, bool with_graph_commit_id) {
  const int64_t rows = result.row_count;
  const size_t columns = result.columns.size();
  std::string out = "{\"query_name\":";
  AppendJsonString(&out, result.query_name);
  out += ",\"target\":" + TargetJson(result) + fmt::format(",\"row_count\":{}", rows);
  if (columns > 0) {
    out += ",\"columns\":[";
    for (size_t c = 0; c < columns; ++c) {
      if (c) out += ",";
      AppendJsonString(&out, result.columns[c]);
    }
    out += "]";
  }
  out += ",\"rows\":[";
  for (int64_t r = 0; r < rows; ++r) out += (r ? "," : "") + result.row_json(r);
  out += "]";
  if (with_graph_commit_id && result.graph_commit_id) {
    out += ",\"graph_commit_id\":";
    AppendJsonString(&out, *result.graph_commit_id);
  }
  return out + "}";
}

std::string FormatResult(const QueryResult& result, OutputFormat format, const TableOptions& options) {
  return FormatGrid(GridOf(result), format, options);
}

std::string FormatGrid(const ResultGrid& result, OutputFormat format, const TableOptions& options) {
  const int64_t rows = result.row_count;
  const size_t columns = result.columns.size();
  switch (format) {
    case OutputFormat::kJsonl: {
      std::string out = fmt::format("{{\"kind\":\"metadata\",\"query_name\":");
      AppendJsonString(&out, result.query_name);
      out += ",\"target\":" + TargetJson(result) + fmt::format(",\"row_count\":{}}}\n", rows);
      for (int64_t r = 0; r < rows; ++r) out += result.row_json(r) + "\n";
      return out;
    }
    case OutputFormat::kJson:
      return PrettyJson(ReadOutputJson(result, /*with_graph_commit_id=*/true)) + "\n";
    case OutputFormat::kCsv: {
      std::string out;
      for (size_t c = 0; c < columns; ++c) out += (c ? "," : "") + CsvCell(result.columns[c]);
      out += "\n";
      for (int64_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < columns; ++c) out += (c ? "," : "") + CsvCell(result.cell_text(r, c));
        out += "\n";
      }
      return out;
    }
    case OutputFormat::kKv: {
      std::string out = Header(result);
      if (rows == 0 || columns == 0) return out + "(no rows)\n";
      for (int64_t r = 0; r < rows; ++r) {
        if (r) out += "\n";
        out += fmt::format("row {}\n", r + 1);
        for (size_t c = 0; c < columns; ++c) {
          out += result.columns[c] + ": " + EscapeNewlines(result.cell_text(r, c)) + "\n";
        }
      }
      return out;
    }
    case OutputFormat::kTable: {
      std::string out = Header(result);
      if (columns == 0) return out + "(no rows)\n";
      size_t cap = std::max<size_t>(options.max_column_width, 8);
      std::vector<std::vector<std::string>> cells(rows);
      std::vector<size_t> widths(columns);
      for (size_t c = 0; c < columns; ++c) widths[c] = DisplayWidth(result.columns[c]);
      for (int64_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < columns; ++c) {
          cells[r].push_back(EscapeNewlines(result.cell_text(r, c)));
          widths[c] = std::max(widths[c], DisplayWidth(cells[r].back()));
        }
      }
      for (size_t& w : widths) w = std::min(w, cap);
      auto line = [&](const std::vector<std::string>& values) {
        std::string text;
        if (!options.wrap_cells) {
          for (size_t c = 0; c < columns; ++c) {
            if (c) text += " | ";
            text += Pad(Fit(values[c], widths[c]), widths[c]);
          }
          return text + "\n";
        }
        // One physical line per piece of the tallest cell.
        std::vector<std::vector<std::string>> pieces(columns);
        size_t height = 1;
        for (size_t c = 0; c < columns; ++c) {
          pieces[c] = Wrap(values[c], widths[c]);
          height = std::max(height, pieces[c].size());
        }
        for (size_t h = 0; h < height; ++h) {
          for (size_t c = 0; c < columns; ++c) {
            if (c) text += " | ";
            text += Pad(h < pieces[c].size() ? pieces[c][h] : std::string(), widths[c]);
          }
          text += "\n";
        }
        return text;
      };
      out += line(result.columns);
      std::string separator;
      for (size_t c = 0; c < columns; ++c) separator += (c ? "-+-" : "") + std::string(widths[c], '-');
      out += separator + "\n";
      for (int64_t r = 0; r < rows; ++r) out += line(cells[r]);
      return out;
    }
  }
  return "";
}

}  // namespace omnigraph::exec
