#include "cli/remote/raw_json.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace omnigraph::cli::remote {
namespace {

namespace od = simdjson::ondemand;

// The raw text of `value` inside `padded`, mapped back into `original`
// (On-Demand needs padding after its input, so it parses a padded copy).
bool RawText(od::value value, const simdjson::padded_string& padded, std::string_view original,
             std::string_view* out) {
  od::json_type type;
  if (value.type().get(type)) return false;
  std::string_view raw;
  if (type == od::json_type::object) {
    od::object object;
    if (value.get_object().get(object) || object.raw_json().get(raw)) return false;
  } else if (type == od::json_type::array) {
    od::array array;
    if (value.get_array().get(array) || array.raw_json().get(raw)) return false;
  } else {
    // A scalar's token runs to the next structural character, whitespace
    // included; strings are checked for well-formed escapes.
    raw = value.raw_json_token();
    if (type == od::json_type::string) {
      std::string_view unescaped;
      if (value.get_string().get(unescaped)) return false;
    }
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' || raw.back() == '\r')) {
      raw.remove_suffix(1);
    }
  }
  *out = original.substr(static_cast<size_t>(raw.data() - padded.data()), raw.size());
  return true;
}

Status MalformedJson(std::string_view what) { return InvalidArgument("malformed JSON " + std::string(what)); }

}  // namespace

Result<RawMembers> ObjectMembers(std::string_view text) {
  // On-Demand reads only what it is asked for; the whole text is checked
  // first, so trailing or malformed bytes anywhere are refused.
  if (!nlohmann::json::accept(text)) return MalformedJson("object");
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document document;
  od::object object;
  if (parser.iterate(padded).get(document) || document.get_object().get(object)) return MalformedJson("object");
  RawMembers members;
  for (auto field : object) {
    std::string_view name, raw;
    od::value value;
    if (field.unescaped_key().get(name) || field.value().get(value) || !RawText(value, padded, text, &raw)) {
      return MalformedJson("object member");
    }
    members.emplace_back(std::string(name), raw);
  }
  return members;
}

Result<std::vector<std::string_view>> ArrayElements(std::string_view text) {
  if (!nlohmann::json::accept(text)) return MalformedJson("array");
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document document;
  od::array array;
  if (parser.iterate(padded).get(document) || document.get_array().get(array)) return MalformedJson("array");
  std::vector<std::string_view> elements;
  for (auto element : array) {
    od::value value;
    std::string_view raw;
    if (element.get(value) || !RawText(value, padded, text, &raw)) return MalformedJson("array element");
    elements.push_back(raw);
  }
  return elements;
}

}  // namespace omnigraph::cli::remote
