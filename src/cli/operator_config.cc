#include "cli/operator_config.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion
#include <yaml-cpp/yaml.h>

namespace omnigraph::cli {
namespace {

// The documented schema (§5.5). A section maps fixed keys, or any name to
// a map of fixed keys (`servers.<name>.url`).
struct Section {
  bool named_entries = false;
  std::vector<std::string_view> keys;
};

const std::map<std::string_view, Section>& KnownSections() {
  static const std::map<std::string_view, Section> sections = {
      {"operator", {false, {"actor"}}},
      {"servers", {true, {"url"}}},
      {"defaults",
       {false, {"output", "server", "store", "default_graph", "table_max_column_width", "table_cell_layout"}}},
      {"clusters", {true, {"root"}}},
      {"profiles", {true, {"server", "cluster", "store", "default_graph"}}},
      {"aliases", {true, {"server", "graph", "query", "args", "params", "format"}}},
  };
  return sections;
}

bool Contains(const std::vector<std::string_view>& keys, const std::string& key) {
  for (std::string_view k : keys) {
    if (k == key) return true;
  }
  return false;
}

// A YAML value as JSON: a map or list member by member, a quoted scalar
// as a string, a plain scalar as YAML's core schema reads it (null, ~,
// true, false, a number), else as a string.
nlohmann::json YamlToJson(const YAML::Node& node) {
  if (node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : node) list.push_back(YamlToJson(item));
    return list;
  }
  if (node.IsMap()) {
    nlohmann::json map = nlohmann::json::object();
    for (const auto& entry : node) map[entry.first.as<std::string>()] = YamlToJson(entry.second);
    return map;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted, or explicitly tagged
  if (text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  nlohmann::json number = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return number.is_number() ? number : nlohmann::json(text);
}

class Parser {
 public:
  explicit Parser(std::string_view path) { config_.path = std::string(path); }

  Result<OperatorConfig> Parse(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) return std::move(config_);  // an empty file
    if (!root.IsMap()) return WrongKind(root, "the file", "a map of sections");
    std::set<std::string> sections;
    for (const auto& entry : root) {
      std::string name = entry.first.as<std::string>();
      OG_RETURN_IF_ERROR(CheckUnique(&sections, name, entry.first));
      auto section = KnownSections().find(name);
      if (section == KnownSections().end()) {
        Warn(name);
        continue;
      }
      OG_RETURN_IF_ERROR(ParseSection(name, section->second, entry.second));
    }
    return std::move(config_);
  }

 private:
  Status ParseSection(const std::string& name, const Section& section, const YAML::Node& node) {
    if (node.IsNull()) return Status::OK();
    if (!node.IsMap()) return WrongKind(node, name, "a map");
    std::set<std::string> keys;
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      std::string path = name + "." + key;
      OG_RETURN_IF_ERROR(CheckUnique(&keys, path, entry.first));
      if (section.named_entries) {
        // servers.<name>.url, clusters.<name>.root, profiles.<name> and
        // aliases.<name> are kept.
        OperatorProfile* profile = name == "profiles" ? &config_.profiles[key] : nullptr;
        OperatorAlias* alias = name == "aliases" ? &config_.aliases[key] : nullptr;
        const bool server = name == "servers";
        const bool cluster = name == "clusters";
        if (entry.second.IsNull()) continue;
        if (!entry.second.IsMap()) return WrongKind(entry.second, path, "a map");
        std::set<std::string> fields;
        for (const auto& field : entry.second) {
          std::string field_key = field.first.as<std::string>();
          OG_RETURN_IF_ERROR(CheckUnique(&fields, path + "." + field_key, field.first));
          if (!Contains(section.keys, field_key)) {
            Warn(path + "." + field_key);
          } else if (profile != nullptr) {
            OG_RETURN_IF_ERROR(ParseProfileValue(path + "." + field_key, field_key, field.second, profile));
          } else if (alias != nullptr) {
            OG_RETURN_IF_ERROR(ParseAliasValue(path + "." + field_key, field_key, field.second, alias));
          } else if (server && field_key == "url" && !field.second.IsNull()) {
            if (!field.second.IsScalar() || field.second.Scalar().empty()) {
              return WrongKind(field.second, path + ".url", "a non-empty http(s) URL");
            }
            config_.servers[key] = field.second.Scalar();
          } else if (cluster && field_key == "root" && !field.second.IsNull()) {
            if (!field.second.IsScalar() || field.second.Scalar().empty()) {
              return WrongKind(field.second, path + ".root", "a non-empty cluster directory or URI");
            }
            config_.clusters[key] = field.second.Scalar();
          }
        }
        if (profile != nullptr && (profile->store.has_value() + profile->server.has_value() +
                                   profile->cluster.has_value()) > 1) {
          return WrongKind(entry.first, path, "one of store, server or cluster");
        }
        continue;
      }
      if (!Contains(section.keys, key)) {
        Warn(path);
        continue;
      }
      OG_RETURN_IF_ERROR(ParseValue(path, entry.second));
    }
    return Status::OK();
  }

  Status ParseValue(const std::string& key, const YAML::Node& value) {
    if (value.IsNull()) return Status::OK();
    if (!value.IsScalar()) return WrongKind(value, key, "a single value");
    const std::string text = value.Scalar();
    if (key == "operator.actor") {
      if (text.empty()) return WrongKind(value, key, "a non-empty actor id");
      config_.actor = text;
    } else if (key == "defaults.output") {
      config_.output = exec::ParseOutputFormat(text);
      if (!config_.output) return WrongKind(value, key, "table, kv, csv, jsonl or json", text);
    } else if (key == "defaults.store") {
      if (text.empty()) return WrongKind(value, key, "a graph path or file:// URI");
      config_.store = text;
    } else if (key == "defaults.table_max_column_width") {
      size_t width = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), width);
      if (ec != std::errc() || end != text.data() + text.size() || width == 0) {
        return WrongKind(value, key, "a positive whole number of columns", text);
      }
      config_.table_max_column_width = width;
    } else if (key == "defaults.table_cell_layout") {
      if (text != "truncate" && text != "wrap") return WrongKind(value, key, "truncate or wrap", text);
      config_.table_cell_wrap = text == "wrap";
    } else if (key == "defaults.server") {
      if (text.empty()) return WrongKind(value, key, "a server name or http(s) URL");
      config_.server = text;
    } else if (key == "defaults.default_graph") {
      if (text.empty()) return WrongKind(value, key, "a graph id");
      config_.default_graph = text;
    }
    return Status::OK();
  }

  Status ParseProfileValue(const std::string& path, const std::string& field, const YAML::Node& value,
                           OperatorProfile* profile) {
    if (value.IsNull()) return Status::OK();
    if (!value.IsScalar() || value.Scalar().empty()) return WrongKind(value, path, "a single non-empty value");
    std::optional<std::string>* slot = field == "store"     ? &profile->store
                                       : field == "server"  ? &profile->server
                                       : field == "cluster" ? &profile->cluster
                                                            : &profile->default_graph;
    *slot = value.Scalar();
    return Status::OK();
  }

  Status ParseAliasValue(const std::string& path, const std::string& field, const YAML::Node& value,
                         OperatorAlias* alias) {
    if (value.IsNull()) return Status::OK();
    if (field == "args") {
      if (!value.IsSequence()) return WrongKind(value, path, "a list of parameter names");
      for (const auto& item : value) {
        if (!item.IsScalar() || item.Scalar().empty()) return WrongKind(item, path, "a list of parameter names");
        alias->args.push_back(item.Scalar());
      }
      return Status::OK();
    }
    if (field == "params") {
      if (!value.IsMap()) return WrongKind(value, path, "a map of parameter values");
      alias->params_json = YamlToJson(value).dump();
      return Status::OK();
    }
    if (!value.IsScalar() || value.Scalar().empty()) return WrongKind(value, path, "a single non-empty value");
    const std::string& text = value.Scalar();
    if (field == "format") {
      alias->format = exec::ParseOutputFormat(text);
      if (!alias->format) return WrongKind(value, path, "table, kv, csv, jsonl or json", text);
    } else {
      std::optional<std::string>* slot = field == "server" ? &alias->server
                                         : field == "graph" ? &alias->graph
                                                            : &alias->query;
      *slot = text;
    }
    return Status::OK();
  }

  // YAML forbids a key twice in one map, and yaml-cpp keeps both: which
  // graph a command addresses must not depend on which one comes last.
  Status CheckUnique(std::set<std::string>* seen, const std::string& path, const YAML::Node& key) {
    if (seen->insert(path).second) return Status::OK();
    const YAML::Mark mark = key.Mark();
    return InvalidArgument(
        fmt::format("{}:{}:{}: duplicate key '{}'", config_.path, mark.line + 1, mark.column + 1, path));
  }

  // "<path>:<line>:<column>: <key> must be <expected>[, got '<got>']",
  // placed at `at` (the file alone when the node has no position).
  Status WrongKind(const YAML::Node& at, std::string_view key, std::string_view expected,
                   std::optional<std::string> got = std::nullopt) {
    const YAML::Mark mark = at.Mark();
    std::string where = mark.is_null() ? config_.path
                                       : fmt::format("{}:{}:{}", config_.path, mark.line + 1, mark.column + 1);
    std::string message = fmt::format("{}: {} must be {}", where, key, expected);
    if (got) message += fmt::format(", got '{}'", *got);
    return InvalidArgument(std::move(message));
  }

  void Warn(const std::string& key) { config_.warnings.push_back(fmt::format("{}: unknown key '{}'", config_.path, key)); }

  OperatorConfig config_;
};

}  // namespace

std::string OperatorConfigPath(const char* omnigraph_home, const char* home) {
  if (omnigraph_home != nullptr && *omnigraph_home != '\0') return std::string(omnigraph_home) + "/config.yaml";
  if (home != nullptr && *home != '\0') return std::string(home) + "/.omnigraph/config.yaml";
  return "";
}

Result<OperatorConfig> ParseOperatorConfig(std::string_view text, std::string_view path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    return InvalidArgument(
        fmt::format("{}:{}:{}: nested too deeply for the YAML parser", path, e.mark.line + 1, e.mark.column + 1));
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return InvalidArgument(fmt::format("{}: {}", path, e.msg));
    return InvalidArgument(fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  try {
    return Parser(path).Parse(root);
  } catch (const YAML::Exception& e) {
    // A key that is not a scalar (a map or list used as a key).
    return InvalidArgument(fmt::format("{}:{}:{}: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

Result<OperatorConfig> LoadOperatorConfig() {
  std::string path = OperatorConfigPath(std::getenv("OMNIGRAPH_HOME"), std::getenv("HOME"));
  if (path.empty()) return OperatorConfig{};
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return IoError(fmt::format("cannot read the operator config '{}': it is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path, ec)) return OperatorConfig{};
    return IoError(fmt::format("cannot read the operator config '{}'", path));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return IoError(fmt::format("cannot read the operator config '{}'", path));
  return ParseOperatorConfig(buffer.str(), path);
}

}  // namespace omnigraph::cli
