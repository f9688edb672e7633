#include "exec/legacy_records.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "compiler/temporal.h"
#include "util/utf8.h"

namespace omnigraph::exec {
namespace {

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the JSON value that starts at data[begin] (not whitespace).
// Only the value's extent is found here, tracking strings and nesting; the
// JSON parser judges the bytes. A stray closing bracket, comma or colon is
// a value of its own, which the parser then refuses.
size_t ValueEnd(std::string_view data, size_t begin) {
  const char first = data[begin];
  if (first == '{' || first == '[' || first == '"') {
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = begin; i < data.size(); ++i) {
      const char c = data[i];
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
          if (depth == 0) return i + 1;  // a bare string value
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return data.size();  // unterminated: the parser says so
  }
  if (first == '}' || first == ']' || first == ',' || first == ':') return begin + 1;
  size_t i = begin;
  while (i < data.size() && !IsJsonSpace(data[i]) && std::string_view("{}[]\",:").find(data[i]) == std::string_view::npos) {
    ++i;
  }
  return i;
}

// The whole of `text` as a number of type T, or nullopt.
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// Reads one parsed record into `out` (every field but `number`).
Status Normalise(const JsonValue& value, const compiler::Catalog& catalog, LegacyRecord* out) {
  auto type = value.Get("type");
  auto edge = value.Get("edge");
  const std::vector<compiler::Property>* properties = nullptr;
  if (type && type->is_string()) {
    out->node = catalog.FindNode(type->string());
    if (out->node == nullptr) {
      return InvalidArgument(fmt::format("unknown node type '{}'", ShortenForMessage(type->string())));
    }
    properties = &out->node->properties;
  } else if (edge && edge->is_string()) {
    out->edge = catalog.FindEdge(edge->string());
    if (out->edge == nullptr) {
      return InvalidArgument(fmt::format("unknown edge type '{}'", ShortenForMessage(edge->string())));
    }
    auto from = value.Get("from");
    if (!from || !from->is_string()) return InvalidArgument("edge missing 'from'");
    auto to = value.Get("to");
    if (!to || !to->is_string()) return InvalidArgument("edge missing 'to'");
    out->from = from->string();
    out->to = to->string();
    properties = &out->edge->properties;
  } else {
    return InvalidArgument("expected 'type' or 'edge' field");
  }
  auto data = value.Get("data");
  if (!data || data->is_null()) return Status::OK();
  if (!data->is_object()) return InvalidArgument("'data' must be an object");
  for (size_t m = 0; m < data->member_count(); ++m) {
    auto [name, field] = data->Member(m);
    if (name == "id") {
      if (!field.is_string()) return InvalidArgument("'data.id' must be a string");
      out->explicit_id = std::string(field.string());
      continue;
    }
    const compiler::Property* property = nullptr;
    for (const compiler::Property& p : *properties) {
      if (p.name == name) property = &p;
    }
    if (property == nullptr) continue;  // unknown keys are ignored
    out->fields.emplace_back(name, JsonKindConvertsTo(field, property->type) ? field : JsonValue());
  }
  return Status::OK();
}

}  // namespace

Status ReadLegacyRecords(std::string_view data, const compiler::Catalog& catalog, const LegacyRecordSink& sink) {
  size_t pos = data.starts_with(utf8::kByteOrderMark) ? utf8::kByteOrderMark.size() : 0;
  uint64_t number = 0;
  LegacyRecord record;
  while (true) {
    while (pos < data.size() && IsJsonSpace(data[pos])) ++pos;
    if (pos >= data.size()) return Status::OK();
    const size_t end = ValueEnd(data, pos);
    const std::string_view text = data.substr(pos, end - pos);
    pos = end;
    ++number;
    auto where = [number] { return fmt::format("record {}", number); };
    if (text.size() > kMaxLineBytes) {
      return ResourceLimitExceeded("graph_batch_line_bytes", kMaxLineBytes, text.size()).WithContext(where());
    }
    auto parsed = JsonValue::ParseLine(text);
    if (!parsed.ok()) return parsed.status().WithContext(where());
    record = LegacyRecord();
    record.number = number;
    record.document = std::move(parsed).value();
    if (Status st = Normalise(record.document, catalog, &record); !st.ok()) return st.WithContext(where());
    OG_RETURN_IF_ERROR(sink(record, pos));
    // Release the record's document, so the next parse can reuse it.
    record = LegacyRecord();
  }
}

bool LegacySpellingMatches(std::string_view explicit_id, const compiler::PropertyType& type, const Scalar& value) {
  using compiler::ScalarKind;
  if (value.is_null() || type.is_list() || type.is_vector()) return false;
  if (type.is_enum()) return value.is_string() && value.string_value() == explicit_id;
  switch (type.scalar) {
    case ScalarKind::kString: return value.is_string() && value.string_value() == explicit_id;
    case ScalarKind::kBool:
      return value.is_bool() && explicit_id == (value.bool_value() ? "true" : "false");
    case ScalarKind::kI32:
    case ScalarKind::kI64: {
      auto n = ParseWhole<int64_t>(explicit_id);
      return n && value.is_int() && *n == value.int_value();
    }
    case ScalarKind::kU32:
    case ScalarKind::kU64: {
      auto n = ParseWhole<uint64_t>(explicit_id);
      return n && value.is_uint() && *n == value.uint_value();
    }
    case ScalarKind::kF32: {
      // Read at the stored width, as the value itself was.
      auto f = ParseWhole<float>(explicit_id);
      return f && value.is_double() && std::isfinite(*f) && *f == static_cast<float>(value.double_value());
    }
    case ScalarKind::kF64: {
      auto d = ParseWhole<double>(explicit_id);
      return d && value.is_double() && std::isfinite(*d) && *d == value.double_value();
    }
    case ScalarKind::kDate: {
      if (!value.is_int()) return false;
      std::optional<int64_t> days = ParseWhole<int64_t>(explicit_id);
      if (!days) {
        if (auto parsed = compiler::ParseDate(explicit_id)) days = *parsed;
      }
      return days && *days == value.int_value();
    }
    case ScalarKind::kDateTime: {
      if (!value.is_int()) return false;
      std::optional<int64_t> ms = ParseWhole<int64_t>(explicit_id);
      if (!ms) ms = compiler::ParseDateTime(explicit_id);
      return ms && *ms == value.int_value();
    }
    case ScalarKind::kBlob: return false;
  }
  return false;
}

}  // namespace omnigraph::exec
