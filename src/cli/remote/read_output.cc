#include "cli/remote/read_output.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "cli/remote/raw_json.h"

namespace omnigraph::cli::remote {
namespace {

Status Malformed(std::string_view what) {
  return InvalidArgument("the server's query reply is malformed: " + std::string(what));
}

}  // namespace

Result<ServedRead> ServedRead::Parse(std::string body) {
  ServedRead read;
  read.body_ = std::make_shared<const std::string>(std::move(body));
  nlohmann::json json = nlohmann::json::parse(*read.body_, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return Malformed("not a JSON object");
  exec::ResultGrid& meta = read.meta_;
  if (!json.contains("query_name") || !json["query_name"].is_string()) return Malformed("no query_name");
  meta.query_name = json["query_name"].get<std::string>();
  const nlohmann::json& target = json.value("target", nlohmann::json::object());
  if (target.contains("snapshot") && target["snapshot"].is_string()) {
    meta.snapshot = target["snapshot"].get<std::string>();
  }
  if (target.contains("branch") && target["branch"].is_string()) meta.branch = target["branch"].get<std::string>();
  if (json.contains("graph_commit_id") && json["graph_commit_id"].is_string()) {
    meta.graph_commit_id = json["graph_commit_id"].get<std::string>();
  }
  if (json.contains("columns")) {
    if (!json["columns"].is_array()) return Malformed("columns is not an array");
    for (const auto& column : json["columns"]) {
      if (!column.is_string()) return Malformed("a column name is not a string");
      meta.columns.push_back(column.get<std::string>());
    }
  }
  // Rows are kept as the server spelled them (raw_json.h).
  auto members = ObjectMembers(*read.body_);
  if (!members.ok()) return Malformed("not a JSON object");
  std::optional<std::string_view> rows;
  for (const auto& [name, value] : *members) {
    if (name == "rows") rows = value;
  }
  auto elements = rows ? ArrayElements(*rows) : Result<std::vector<std::string_view>>(Malformed("no rows array"));
  if (!elements.ok()) return Malformed("no rows array");
  read.rows_ = std::move(*elements);
  meta.row_count = static_cast<int64_t>(read.rows_.size());
  for (std::string_view row : read.rows_) {
    auto cells = ObjectMembers(row);
    if (!cells.ok() || cells->size() != meta.columns.size()) {
      return Malformed("a row does not hold one value per column");
    }
    std::vector<std::string_view> values;
    for (const auto& [name, value] : *cells) values.push_back(value);
    read.cells_.push_back(std::move(values));
  }
  return read;
}

exec::ResultGrid ServedRead::Grid() const {
  exec::ResultGrid grid = meta_;
  grid.cell_text = [this](int64_t row, size_t column) {
    std::string_view raw = cells_[static_cast<size_t>(row)][column];
    if (!raw.empty() && raw.front() == '"') {
      nlohmann::json value = nlohmann::json::parse(raw, nullptr, false);
      if (value.is_string()) return value.get<std::string>();
    }
    return std::string(raw);
  };
  grid.row_json = [this](int64_t row) { return std::string(rows_[static_cast<size_t>(row)]); };
  return grid;
}

}  // namespace omnigraph::cli::remote
