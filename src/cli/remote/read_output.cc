#include "cli/remote/read_output.h"

#include <cctype>

#include <nlohmann/json.hpp>

namespace omnigraph::cli::remote {
namespace {

size_t SkipSpace(std::string_view text, size_t pos) {
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  return pos;
}

// The raw values of the members of the object text[begin, end), in order.
bool MemberValues(std::string_view object, std::vector<std::string_view>* values) {
  size_t pos = SkipSpace(object, 0);
  if (pos >= object.size() || object[pos] != '{') return false;
  pos = SkipSpace(object, pos + 1);
  if (pos < object.size() && object[pos] == '}') return true;
  while (pos < object.size()) {
    size_t key_end = SkipJsonValue(object, pos);
    if (key_end == std::string_view::npos || object[SkipSpace(object, pos)] != '"') return false;
    pos = SkipSpace(object, key_end);
    if (pos >= object.size() || object[pos] != ':') return false;
    size_t value_begin = SkipSpace(object, pos + 1);
    size_t value_end = SkipJsonValue(object, value_begin);
    if (value_end == std::string_view::npos) return false;
    values->push_back(object.substr(value_begin, value_end - value_begin));
    pos = SkipSpace(object, value_end);
    if (pos < object.size() && object[pos] == ',') {
      pos = SkipSpace(object, pos + 1);
      continue;
    }
    return pos < object.size() && object[pos] == '}';
  }
  return false;
}

// The raw elements of the array value starting at text[pos].
bool ArrayElements(std::string_view text, size_t pos, std::vector<std::string_view>* elements) {
  pos = SkipSpace(text, pos);
  if (pos >= text.size() || text[pos] != '[') return false;
  pos = SkipSpace(text, pos + 1);
  if (pos < text.size() && text[pos] == ']') return true;
  while (pos < text.size()) {
    size_t end = SkipJsonValue(text, pos);
    if (end == std::string_view::npos) return false;
    elements->push_back(text.substr(pos, end - pos));
    pos = SkipSpace(text, end);
    if (pos < text.size() && text[pos] == ',') {
      pos = SkipSpace(text, pos + 1);
      continue;
    }
    return pos < text.size() && text[pos] == ']';
  }
  return false;
}

// The start of the value of top-level member `key` of the object `text`.
size_t FindMember(std::string_view text, std::string_view key) {
  size_t pos = SkipSpace(text, 0);
  if (pos >= text.size() || text[pos] != '{') return std::string_view::npos;
  pos = SkipSpace(text, pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    size_t key_end = SkipJsonValue(text, pos);
    if (key_end == std::string_view::npos) return key_end;
    std::string_view raw_key = text.substr(pos, key_end - pos);
    pos = SkipSpace(text, key_end);
    if (pos >= text.size() || text[pos] != ':') return std::string_view::npos;
    size_t value = SkipSpace(text, pos + 1);
    if (nlohmann::json::parse(raw_key, nullptr, false) == key) return value;
    size_t value_end = SkipJsonValue(text, value);
    if (value_end == std::string_view::npos) return value_end;
    pos = SkipSpace(text, value_end);
    if (pos < text.size() && text[pos] == ',') pos = SkipSpace(text, pos + 1);
  }
  return std::string_view::npos;
}

Status Malformed(std::string_view what) {
  return InvalidArgument("the server's query reply is malformed: " + std::string(what));
}

}  // namespace

bool RawMembers(std::string_view object, std::vector<std::pair<std::string, std::string_view>>* members) {
  size_t pos = SkipSpace(object, 0);
  if (pos >= object.size() || object[pos] != '{') return false;
  pos = SkipSpace(object, pos + 1);
  if (pos < object.size() && object[pos] == '}') return true;
  while (pos < object.size()) {
    size_t key_end = SkipJsonValue(object, pos);
    if (key_end == std::string_view::npos || object[pos] != '"') return false;
    nlohmann::json key = nlohmann::json::parse(object.substr(pos, key_end - pos), nullptr, false);
    if (!key.is_string()) return false;
    pos = SkipSpace(object, key_end);
    if (pos >= object.size() || object[pos] != ':') return false;
    size_t value_begin = SkipSpace(object, pos + 1);
    size_t value_end = SkipJsonValue(object, value_begin);
    if (value_end == std::string_view::npos) return false;
    members->emplace_back(key.get<std::string>(), object.substr(value_begin, value_end - value_begin));
    pos = SkipSpace(object, value_end);
    if (pos < object.size() && object[pos] == ',') {
      pos = SkipSpace(object, pos + 1);
      continue;
    }
    return pos < object.size() && object[pos] == '}';
  }
  return false;
}

size_t SkipJsonValue(std::string_view text, size_t pos) {
  pos = SkipSpace(text, pos);
  if (pos >= text.size()) return std::string_view::npos;
  char first = text[pos];
  if (first == '"') {
    for (size_t i = pos + 1; i < text.size(); ++i) {
      if (text[i] == '\\') ++i;
      else if (text[i] == '"') return i + 1;
    }
    return std::string_view::npos;
  }
  if (first == '{' || first == '[') {
    int depth = 0;
    for (size_t i = pos; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        i = SkipJsonValue(text, i);
        if (i == std::string_view::npos) return i;
        --i;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return std::string_view::npos;
  }
  size_t end = pos;
  while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != ']' &&
         !std::isspace(static_cast<unsigned char>(text[end]))) {
    ++end;
  }
  return end == pos ? std::string_view::npos : end;
}

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
  std::string_view text = *read.body_;
  size_t rows = FindMember(text, "rows");
  if (rows == std::string_view::npos || !ArrayElements(text, rows, &read.rows_)) return Malformed("no rows array");
  meta.row_count = static_cast<int64_t>(read.rows_.size());
  for (std::string_view row : read.rows_) {
    std::vector<std::string_view> values;
    if (!MemberValues(row, &values) || values.size() != meta.columns.size()) {
      return Malformed("a row does not hold one value per column");
    }
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
