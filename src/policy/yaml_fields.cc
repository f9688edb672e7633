#include "policy/yaml_fields.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion

namespace omnigraph::policy {
namespace {

std::string JoinQuoted(std::initializer_list<std::string_view> names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += fmt::format("'{}'", name);
  }
  return joined;
}

Status LocatedError(const std::string& file, SourcePosition position, std::string_view message) {
  if (position.line == 0) return InvalidArgument(fmt::format("{}: {}", file, message)).WithDetail("file", file);
  return InvalidArgument(fmt::format("{}:{}:{}: {}", file, position.line, position.column, message))
      .WithDetail("file", file)
      .WithDetail("line", std::to_string(position.line))
      .WithDetail("column", std::to_string(position.column));
}

}  // namespace

Result<YAML::Node> YamlFields::Load(std::string_view text) const {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own message for this is "bad file".
    return LocatedError(file_, {error.mark.line + 1, error.mark.column + 1}, "nested too deeply for the YAML parser");
  } catch (const YAML::Exception& error) {
    if (error.mark.is_null()) return LocatedError(file_, {}, error.msg);
    return LocatedError(file_, {error.mark.line + 1, error.mark.column + 1}, error.msg);
  }
}

SourcePosition YamlFields::PositionOf(const YAML::Node& node) {
  if (!node.IsDefined()) return {};
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

Status YamlFields::ErrorAt(const YAML::Node& node, std::string_view message) const {
  return LocatedError(file_, PositionOf(node), message);
}

Status YamlFields::ErrorAt(SourcePosition position, std::string_view message) const {
  return LocatedError(file_, position, message);
}

Status YamlFields::ErrorAt(const YamlField& field, std::string_view message) const {
  SourcePosition position = PositionOf(field.value);
  // An empty value (`version:`) is a null node that yaml-cpp may not place.
  if (position.line == 0 || field.value.IsNull()) position = PositionOf(field.key);
  return LocatedError(file_, position, message);
}

Result<std::vector<YamlField>> YamlFields::Fields(const YAML::Node& node, std::string_view what,
                                                  std::initializer_list<std::string_view> allowed,
                                                  std::initializer_list<std::string_view> required) const {
  std::vector<Status> errors;
  std::optional<std::vector<YamlField>> fields = CollectFields(node, what, allowed, required, &errors);
  if (!errors.empty()) return errors.front();
  return std::move(*fields);
}

std::optional<std::vector<YamlField>> YamlFields::CollectFields(const YAML::Node& node, std::string_view what,
                                                                std::initializer_list<std::string_view> allowed,
                                                                std::initializer_list<std::string_view> required,
                                                                std::vector<Status>* errors) const {
  if (!node.IsMap()) {
    errors->push_back(ErrorAt(node, fmt::format("{} must be a mapping", what)));
    return std::nullopt;
  }
  std::vector<YamlField> fields;
  std::set<std::string> seen;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      errors->push_back(ErrorAt(entry.first, fmt::format("keys of {} must be plain strings", what)));
      return std::nullopt;
    }
    const std::string& key = entry.first.Scalar();
    bool known = allowed.size() == 0;
    for (std::string_view name : allowed) known = known || name == key;
    if (!known) {
      errors->push_back(ErrorAt(
          entry.first, fmt::format("unknown field '{}' in {}, expected one of {}", key, what, JoinQuoted(allowed))));
      continue;
    }
    // YAML forbids a key twice in one mapping, and yaml-cpp keeps both:
    // which one counts must not depend on the reader.
    if (!seen.insert(key).second) {
      errors->push_back(ErrorAt(entry.first, fmt::format("duplicate key '{}' in {}", key, what)));
      continue;
    }
    fields.push_back(YamlField{entry.first, entry.second});
  }
  for (std::string_view name : required) {
    if (FindField(fields, name) == nullptr && seen.count(std::string(name)) == 0) {
      errors->push_back(ErrorAt(node, fmt::format("{} is missing the '{}' field", what, name)));
    }
  }
  return fields;
}

Result<std::string> YamlFields::Scalar(const YamlField& field, std::string_view what) const {
  if (!field.value.IsScalar()) return ErrorAt(field, fmt::format("{} must be a string", what));
  return field.value.Scalar();
}

Result<std::string> YamlFields::Scalar(const YAML::Node& node, std::string_view what) const {
  if (!node.IsScalar()) return ErrorAt(node, fmt::format("{} must be a string", what));
  return node.Scalar();
}

Status YamlFields::CheckSequence(const YamlField& field, std::string_view what) const {
  if (!field.value.IsSequence()) return ErrorAt(field, fmt::format("{} must be a list", what));
  return Status::OK();
}

Status YamlFields::CheckVersionOne(const YamlField& field, std::string_view what) const {
  // A quoted "1" is a string, not the number the format asks for: yaml-cpp
  // tags plain scalars "?" and quoted ones "!".
  if (!field.value.IsScalar() || field.value.Scalar() != "1" || field.value.Tag() != "?") {
    return ErrorAt(field, fmt::format("{} version must be 1", what));
  }
  return Status::OK();
}

Result<std::string> ReadTextFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return IoError(fmt::format("cannot read '{}': it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path, error)) return NotFound(fmt::format("cannot read '{}': no such file", path));
    return IoError(fmt::format("cannot read '{}'", path));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return IoError(fmt::format("cannot read '{}'", path));
  return buffer.str();
}

const YamlField* FindField(const std::vector<YamlField>& fields, std::string_view name) {
  for (const YamlField& field : fields) {
    if (field.key.Scalar() == name) return &field;
  }
  return nullptr;
}

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

}  // namespace omnigraph::policy
