// Raw views of a JSON reply the server sent, read with simdjson's
// On-Demand parser: each member or element is the exact text of its value
// (numbers keep their spelling), as a view into the caller's text, so the
// served result prints the bytes the local one prints.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace omnigraph::cli::remote {

using RawMembers = std::vector<std::pair<std::string, std::string_view>>;

// The members of the JSON object `object` as (unescaped name, raw value
// text) in document order; the views point into `object`. Errors:
// InvalidArgument when `object` is not one well-formed JSON object.
Result<RawMembers> ObjectMembers(std::string_view object);

// The elements of the JSON array `array` as raw value texts, views into
// `array`. Errors: InvalidArgument when it is not one well-formed array.
Result<std::vector<std::string_view>> ArrayElements(std::string_view array);

}  // namespace omnigraph::cli::remote
