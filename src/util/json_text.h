// Writing JSON text directly, for hot paths where building a JSON document
// first would cost more than the text itself.
#pragma once

#include <string>
#include <string_view>

namespace omnigraph {

// Appends `text` as a JSON string literal: quotes, `\"`, `\\`, `\n`, `\r`,
// `\t`, `\b`, `\f`, other control characters as `\u00XX`; other bytes
// (UTF-8 included) unchanged.
void AppendJsonString(std::string* out, std::string_view text);

// The number of bytes AppendJsonString appends for `text` (quotes included).
size_t JsonStringBytes(std::string_view text);

}  // namespace omnigraph
