// Reading a wire JSON reply (api/wire; a served route's body) without
// trusting its shape: the printers that render a local result and a
// server's reply alike read members through these, so a reply missing a
// member prints an empty field instead of crashing the CLI.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace omnigraph::cli {

// Member `key` of `object`; a null when `object` is no object or lacks it.
inline const nlohmann::ordered_json& Member(const nlohmann::ordered_json& object, std::string_view key) {
  static const nlohmann::ordered_json kNull;
  if (!object.is_object()) return kNull;
  auto found = object.find(key);
  return found == object.end() ? kNull : *found;
}

// Member `key` as text: a string's value, "" for anything else.
inline std::string Text(const nlohmann::ordered_json& object, std::string_view key) {
  const nlohmann::ordered_json& value = Member(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

// Member `key` as a flag: a bool's value, `fallback` for anything else.
inline bool Flag(const nlohmann::ordered_json& object, std::string_view key, bool fallback) {
  const nlohmann::ordered_json& value = Member(object, key);
  return value.is_boolean() ? value.get<bool>() : fallback;
}

}  // namespace omnigraph::cli
