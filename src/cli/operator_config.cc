#include "cli/operator_config.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>
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

namespace {

// Reads omnigraph.yaml (see ProjectAlias in the header).
class ProjectParser {
 public:
  explicit ProjectParser(std::string_view path) { config_.path = std::string(path); }

  Result<ProjectConfig> Parse(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) return std::move(config_);
    if (!root.IsMap()) return WrongKind(root, "the file", "a map of sections");
    std::map<std::string, std::pair<std::string, std::optional<std::string>>> graphs;  // name -> uri, token env
    std::optional<std::string> default_graph, default_branch;
    std::optional<exec::OutputFormat> default_format;
    if (const YAML::Node section = Section(root, "graphs"); section) {
      OG_RETURN_IF_ERROR(CheckMap(section, "graphs"));
      for (const auto& entry : section) {
        const std::string name = entry.first.as<std::string>();
        const std::string path = "graphs." + name;
        if (entry.second.IsNull()) continue;
        OG_RETURN_IF_ERROR(CheckMap(entry.second, path));
        OG_ASSIGN_OR_RETURN(std::optional<std::string> uri, Text(entry.second, path, "uri"));
        OG_ASSIGN_OR_RETURN(std::optional<std::string> token, Text(entry.second, path, "bearer_token_env"));
        graphs[name] = {uri.value_or(""), token};
      }
    }
    if (const YAML::Node cli = Section(root, "cli"); cli) {
      OG_RETURN_IF_ERROR(CheckMap(cli, "cli"));
      OG_ASSIGN_OR_RETURN(default_graph, Text(cli, "cli", "graph"));
      OG_ASSIGN_OR_RETURN(default_branch, Text(cli, "cli", "branch"));
      OG_ASSIGN_OR_RETURN(std::optional<std::string> format, Text(cli, "cli", "output_format"));
      if (format) {
        default_format = exec::ParseOutputFormat(*format);
        if (!default_format) return WrongKind(cli["output_format"], "cli.output_format", "table, kv, csv, jsonl or json");
      }
      OG_ASSIGN_OR_RETURN(std::optional<std::string> width, Text(cli, "cli", "table_max_column_width"));
      if (width) {
        size_t value = 0;
        auto [end, ec] = std::from_chars(width->data(), width->data() + width->size(), value);
        if (ec != std::errc() || end != width->data() + width->size() || value == 0) {
          return WrongKind(cli["table_max_column_width"], "cli.table_max_column_width",
                           "a positive whole number of columns");
        }
        config_.table_max_column_width = value;
      }
      OG_ASSIGN_OR_RETURN(std::optional<std::string> layout, Text(cli, "cli", "table_cell_layout"));
      if (layout && *layout != "truncate" && *layout != "wrap") {
        return WrongKind(cli["table_cell_layout"], "cli.table_cell_layout", "truncate or wrap");
      }
      config_.table_cell_wrap = layout == "wrap";
    }
    if (const YAML::Node aliases = Section(root, "aliases"); aliases) {
      OG_RETURN_IF_ERROR(CheckMap(aliases, "aliases"));
      for (const auto& entry : aliases) {
        const std::string name = entry.first.as<std::string>();
        const std::string path = "aliases." + name;
        if (entry.second.IsNull()) continue;
        OG_RETURN_IF_ERROR(CheckMap(entry.second, path));
        const YAML::Node& node = entry.second;
        ProjectAlias alias;
        OG_ASSIGN_OR_RETURN(std::optional<std::string> command, Text(node, path, "command"));
        OG_ASSIGN_OR_RETURN(std::optional<std::string> file, Text(node, path, "query"));
        OG_ASSIGN_OR_RETURN(alias.alias.query, Text(node, path, "name"));
        OG_ASSIGN_OR_RETURN(std::optional<std::string> graph, Text(node, path, "graph"));
        OG_ASSIGN_OR_RETURN(alias.branch, Text(node, path, "branch"));
        if (!alias.branch) alias.branch = default_branch;
        OG_ASSIGN_OR_RETURN(std::optional<std::string> format, Text(node, path, "format"));
        if (format) {
          alias.alias.format = exec::ParseOutputFormat(*format);
          if (!alias.alias.format) return WrongKind(node["format"], path + ".format", "table, kv, csv, jsonl or json");
        } else {
          alias.alias.format = default_format;
        }
        if (const YAML::Node args = node["args"]; args && !args.IsNull()) {
          if (!args.IsSequence()) return WrongKind(args, path + ".args", "a list of parameter names");
          for (const auto& item : args) {
            if (!item.IsScalar() || item.Scalar().empty()) return WrongKind(item, path + ".args", "a list of parameter names");
            alias.alias.args.push_back(item.Scalar());
          }
        }
        if (const YAML::Node params = node["params"]; params && !params.IsNull()) {
          if (!params.IsMap()) return WrongKind(params, path + ".params", "a map of parameter values");
          alias.alias.params_json = YamlToJson(params).dump();
        }
        const std::string graph_name = graph.value_or(default_graph.value_or(""));
        const std::string command_name = command.value_or("read");
        if (command_name != "read" && command_name != "query") {
          alias.problem = fmt::format("alias '{}' runs `{}`; `alias` runs stored read queries only", name, command_name);
        } else if (!alias.alias.query) {
          alias.problem = fmt::format("alias '{}' names no stored query ({}.name{})", name, path,
                                      file ? fmt::format(", the query in {}", *file) : "");
        } else if (graph_name.empty()) {
          alias.problem = fmt::format("alias '{}' names no graph: set {}.graph or cli.graph to one of graphs", name, path);
        } else if (auto target = graphs.find(graph_name); target == graphs.end()) {
          alias.problem = fmt::format("alias '{}' addresses graph '{}', which {} does not declare under graphs", name,
                                      graph_name, config_.path);
        } else if (!SplitServedUri(target->second.first, &alias.alias)) {
          alias.problem = fmt::format(
              "alias '{}' addresses graphs.{} ('{}'), which is no served graph; `alias` runs stored queries on a "
              "server: point it at http(s)://<host>/graphs/<id>",
              name, graph_name, target->second.first);
        } else {
          alias.token_env = target->second.second;
        }
        config_.aliases[name] = std::move(alias);
      }
    }
    return std::move(config_);
  }

 private:
  // A top-level section, or an undefined node.
  static YAML::Node Section(const YAML::Node& root, const char* name) {
    YAML::Node node = root[name];
    if (!node || node.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    return node;
  }

  Status CheckMap(const YAML::Node& node, const std::string& what) {
    if (!node.IsMap()) return WrongKind(node, what, "a map");
    return Status::OK();
  }

  // The scalar `key` of map `node` (none when absent or null).
  Result<std::optional<std::string>> Text(const YAML::Node& node, const std::string& path, const char* key) {
    const YAML::Node value = node[key];
    if (!value || value.IsNull()) return std::optional<std::string>();
    if (!value.IsScalar() || value.Scalar().empty()) return WrongKind(value, path + "." + key, "a single non-empty value");
    return std::optional<std::string>(value.Scalar());
  }

  // http(s)://host[:port][/prefix]/graphs/<id> → server and graph.
  static bool SplitServedUri(const std::string& uri, OperatorAlias* alias) {
    if (uri.rfind("http://", 0) != 0 && uri.rfind("https://", 0) != 0) return false;
    std::string text = uri;
    while (!text.empty() && text.back() == '/') text.pop_back();
    const size_t marker = text.rfind("/graphs/");
    const size_t authority = text.find("://") + 3;
    if (marker == std::string::npos || marker < authority) return false;
    const std::string id = text.substr(marker + 8);
    if (id.empty() || id.find('/') != std::string::npos) return false;
    alias->server = text.substr(0, marker);
    alias->graph = id;
    return true;
  }

  Status WrongKind(const YAML::Node& at, std::string_view key, std::string_view expected) {
    const YAML::Mark mark = at.Mark();
    std::string where = mark.is_null() ? config_.path
                                       : fmt::format("{}:{}:{}", config_.path, mark.line + 1, mark.column + 1);
    return InvalidArgument(fmt::format("{}: {} must be {}", where, key, expected));
  }

  ProjectConfig config_;
};

// Loads `text` (the file `path`) as YAML and hands its root to `parse`.
// yaml-cpp's exceptions become InvalidArgument "<path>:<line>:<column>:
// <what>": a syntax error, nesting too deep (yaml-cpp's own message for
// that is "bad file"), or, while `parse` runs, a key that is not a scalar.
template <typename Parsed>
Result<Parsed> ParseYamlDocument(std::string_view text, std::string_view path,
                                 const std::function<Result<Parsed>(const YAML::Node&)>& parse) {
  auto at = [&](const YAML::Mark& mark, std::string_view what) {
    return InvalidArgument(fmt::format("{}:{}:{}: {}", path, mark.line + 1, mark.column + 1, what));
  };
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    return at(e.mark, "nested too deeply for the YAML parser");
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return InvalidArgument(fmt::format("{}: {}", path, e.msg));
    return at(e.mark, e.msg);
  }
  try {
    return parse(root);
  } catch (const YAML::Exception& e) {
    return at(e.mark, e.msg);
  }
}

}  // namespace

Result<ProjectConfig> ParseProjectConfig(std::string_view text, std::string_view path) {
  return ParseYamlDocument<ProjectConfig>(text, path, [&](const YAML::Node& root) { return ProjectParser(path).Parse(root); });
}

Result<ProjectConfig> LoadProjectConfig(const std::string& directory) {
  const std::string path = directory == "." ? std::string("omnigraph.yaml") : directory + "/omnigraph.yaml";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return ProjectConfig{};
  if (std::filesystem::is_directory(path, ec)) {
    return IoError(fmt::format("cannot read '{}': it is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in || in.bad()) return IoError(fmt::format("cannot read '{}'", path));
  return ParseProjectConfig(buffer.str(), path);
}

std::string OperatorConfigPath(const char* omnigraph_home, const char* home) {
  if (omnigraph_home != nullptr && *omnigraph_home != '\0') return std::string(omnigraph_home) + "/config.yaml";
  if (home != nullptr && *home != '\0') return std::string(home) + "/.omnigraph/config.yaml";
  return "";
}

Result<OperatorConfig> ParseOperatorConfig(std::string_view text, std::string_view path) {
  return ParseYamlDocument<OperatorConfig>(text, path, [&](const YAML::Node& root) { return Parser(path).Parse(root); });
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
