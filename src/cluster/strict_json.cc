#include "cluster/strict_json.h"

#include <algorithm>

#include <fmt/format.h>

#include "cluster/state.h"

namespace omnigraph::cluster {

Result<StrictJson::Json> StrictJson::ParseObject(std::string_view bytes) const {
  Json root = Json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return WithClusterCode(InvalidArgument(fmt::format("{}: not a JSON object", prefix_)), code_);
  }
  return root;
}

Status StrictJson::Invalid(std::string_view path, std::string_view what) const {
  return WithClusterCode(InvalidArgument(fmt::format("{}: {}: {}", prefix_, path, what)), code_);
}

Status StrictJson::ExpectObject(const Json& value, std::string_view path) const {
  return value.is_object() ? Status::OK() : Invalid(path, "expected an object");
}

Status StrictJson::OnlyKeys(const Json& object, std::string_view path,
                            std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Invalid(path, fmt::format("unknown field `{}`", key));
    }
  }
  return Status::OK();
}

Status StrictJson::RequireKeys(const Json& object, std::string_view path,
                               std::initializer_list<std::string_view> required) const {
  for (std::string_view key : required) {
    if (!object.contains(std::string(key))) return Invalid(path, fmt::format("missing field `{}`", key));
  }
  return Status::OK();
}

Result<std::string> StrictJson::RequiredString(const Json& object, std::string_view path, std::string_view key) const {
  auto it = object.find(std::string(key));
  if (it == object.end()) return Invalid(path, fmt::format("missing field `{}`", key));
  if (!it->is_string()) return Invalid(Child(path, key), "expected a string");
  return it->get<std::string>();
}

Result<std::optional<std::string>> StrictJson::OptionalString(const Json& object, std::string_view path,
                                                              std::string_view key) const {
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Invalid(Child(path, key), "expected a string or null");
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::optional<bool>> StrictJson::OptionalBool(const Json& object, std::string_view path,
                                                     std::string_view key) const {
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return std::optional<bool>();
  if (!it->is_boolean()) return Invalid(Child(path, key), "expected a boolean or null");
  return std::optional<bool>(it->get<bool>());
}

Result<uint64_t> StrictJson::RequiredUnsigned(const Json& object, std::string_view path, std::string_view key) const {
  auto it = object.find(std::string(key));
  if (it == object.end()) return Invalid(path, fmt::format("missing field `{}`", key));
  if (!it->is_number_unsigned()) return Invalid(Child(path, key), "expected an unsigned integer");
  return it->get<uint64_t>();
}

Result<std::optional<uint64_t>> StrictJson::OptionalUnsigned(const Json& object, std::string_view path,
                                                             std::string_view key) const {
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return std::optional<uint64_t>();
  if (!it->is_number_unsigned()) return Invalid(Child(path, key), "expected an unsigned integer or null");
  return std::optional<uint64_t>(it->get<uint64_t>());
}

std::string StrictJson::Child(std::string_view path, std::string_view key) {
  return path.empty() || path == "$" ? std::string(key) : fmt::format("{}.{}", path, key);
}

}  // namespace omnigraph::cluster
