// JSON encoding of query result cells (spec/surface.md §2.10) and of export
// values (§4.5). Integers are printed exactly (full 64 bits), floats in
// shortest round-trip form (NaN / ±Inf as strings), Date as "YYYY-MM-DD",
// DateTime as "YYYY-MM-DDTHH:MM:SS.mmmZ", lists and vectors as arrays.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "columnar/array.h"
#include "util/json_text.h"

namespace omnigraph::exec {

enum class TemporalEncoding {
  kText,     // query results: Date "YYYY-MM-DD", DateTime "…T…Z"
  kInteger,  // export: epoch days / epoch milliseconds
};

// Appends the compact JSON of array[row] to `out`.
void AppendCellJson(std::string* out, const Array& array, int64_t row,
                    TemporalEncoding temporal = TemporalEncoding::kText);

// Appends `text` as a JSON string literal (util/json_text.h).
using omnigraph::AppendJsonString;

// Re-lays out compact JSON text (no whitespace outside strings, as the
// functions above write it) in the pretty style of serde_json: two-space
// indentation, one member or element per line, `"key": value`, and empty
// arrays and objects kept as `[]` / `{}`. Tokens are copied unchanged, so
// numbers keep their exact spelling. No trailing newline.
std::string PrettyJson(std::string_view compact);

}  // namespace omnigraph::exec
