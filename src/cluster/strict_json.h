// Strict decoding of the control plane's JSON files (state.json, lock.json,
// recovery sidecars, approval artifacts; spec/cluster.md §2): an unknown
// field, a missing required one or a wrong type refuses the whole file with
// the file kind's code and a message "<prefix>: <path>: <what>", where the
// path is dotted from the document root ("$" for the root itself).
// Internal to src/cluster.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace omnigraph::cluster {

class StrictJson {
 public:
  using Json = nlohmann::json;

  // `code`: the cluster code of every refusal; `prefix`: the message start.
  StrictJson(std::string_view code, std::string_view prefix) : code_(code), prefix_(prefix) {}

  // Parses `bytes` as one JSON object. Errors: "<prefix>: not a JSON object".
  Result<Json> ParseObject(std::string_view bytes) const;

  Status Invalid(std::string_view path, std::string_view what) const;
  Status ExpectObject(const Json& value, std::string_view path) const;
  // Refuses any key of `object` outside `allowed`.
  Status OnlyKeys(const Json& object, std::string_view path, std::initializer_list<std::string_view> allowed) const;
  // Refuses a missing key of `object` from `required`.
  Status RequireKeys(const Json& object, std::string_view path, std::initializer_list<std::string_view> required) const;

  // Member accessors; `path` is the object's. Absent and null optional
  // members read as unset.
  Result<std::string> RequiredString(const Json& object, std::string_view path, std::string_view key) const;
  Result<std::optional<std::string>> OptionalString(const Json& object, std::string_view path,
                                                    std::string_view key) const;
  Result<std::optional<bool>> OptionalBool(const Json& object, std::string_view path, std::string_view key) const;
  Result<uint64_t> RequiredUnsigned(const Json& object, std::string_view path, std::string_view key) const;
  Result<std::optional<uint64_t>> OptionalUnsigned(const Json& object, std::string_view path,
                                                   std::string_view key) const;

  // "<path>.<key>", or `key` alone at the root.
  static std::string Child(std::string_view path, std::string_view key);

 private:
  std::string code_;
  std::string prefix_;
};

// The JSON of an optional value: null when unset (these files write every
// key, nulls included).
template <typename T>
nlohmann::ordered_json NullableJson(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace omnigraph::cluster
