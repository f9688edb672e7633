#include "cluster/prescan.h"

#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace omnigraph::cluster {
namespace {

// One mapping being read: its indentation, dotted path and the keys seen.
struct Scope {
  size_t indent = 0;
  std::string path;
  std::set<std::string> keys;
  std::string last_key_path;  // the path of the latest key, parent of a nested block
};

// `line` without its comment: a `#` at the start or after whitespace,
// outside single and double quotes.
std::string_view WithoutComment(std::string_view line) {
  char quote = 0;
  for (size_t index = 0; index < line.size(); ++index) {
    const char character = line[index];
    if (quote != 0) {
      if (character == '\\' && quote == '"') {
        ++index;
      } else if (character == quote) {
        quote = 0;
      }
    } else if (character == '"' || character == '\'') {
      quote = character;
    } else if (character == '#' && (index == 0 || line[index - 1] == ' ' || line[index - 1] == '\t')) {
      return line.substr(0, index);
    }
  }
  return line;
}

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// The key of a `key: value` or `key:` entry, unquoted; none when `content`
// is not a block mapping entry (a plain scalar, a flow collection, …).
struct KeyEntry {
  std::string key;
  std::string_view value;  // the text after `:`, trimmed
};

std::optional<KeyEntry> ParseKeyEntry(std::string_view content) {
  if (content.empty() || content[0] == '{' || content[0] == '[' || content[0] == '-') return std::nullopt;
  size_t colon = std::string_view::npos;
  size_t key_end = 0;
  std::string key;
  if (content[0] == '"' || content[0] == '\'') {
    const size_t close = content.find(content[0], 1);
    if (close == std::string_view::npos) return std::nullopt;
    key = std::string(content.substr(1, close - 1));
    key_end = close + 1;
    colon = content.find(':', key_end);
    if (colon == std::string_view::npos || TrimRight(content.substr(key_end, colon - key_end)).size() != 0) {
      return std::nullopt;
    }
  } else {
    for (size_t index = 0; index < content.size(); ++index) {
      if (content[index] == ':' && (index + 1 == content.size() || content[index + 1] == ' ')) {
        colon = index;
        break;
      }
    }
    if (colon == std::string_view::npos) return std::nullopt;
    key = std::string(TrimRight(content.substr(0, colon)));
  }
  std::string_view value = content.substr(colon + 1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return KeyEntry{key, TrimRight(value)};
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace

Diagnostics DuplicateKeyDiagnostics(std::string_view text) {
  Diagnostics diagnostics;
  std::vector<Scope> scopes{Scope{}};
  // While inside a block scalar (`key: |`), lines indented deeper than its
  // key are text, not keys.
  std::optional<size_t> block_scalar_indent;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    if (block_scalar_indent) {
      if (TrimRight(raw).size() <= indent || indent > *block_scalar_indent) continue;
      block_scalar_indent.reset();
    }
    std::string_view content = TrimRight(WithoutComment(raw.substr(indent)));
    if (content.empty() || content == "---" || content == "...") continue;

    while (scopes.size() > 1 && scopes.back().indent > indent) scopes.pop_back();
    // A sequence item opens a fresh scope `<parent>[]` for the keys that
    // follow its dash at the item's content column.
    while (content.size() >= 2 && content[0] == '-' && content[1] == ' ') {
      const std::string sequence_path = scopes.back().last_key_path;
      size_t offset = 2;
      while (offset < content.size() && content[offset] == ' ') ++offset;
      indent += offset;
      content.remove_prefix(offset);
      scopes.push_back(Scope{indent, sequence_path + "[]", {}, sequence_path + "[]"});
    }
    if (content == "-") continue;
    const std::optional<KeyEntry> entry = ParseKeyEntry(content);
    if (!entry) continue;
    if (scopes.back().indent < indent) {
      // The first key of a nested block belongs to the latest key above.
      scopes.push_back(Scope{indent, scopes.back().last_key_path, {}, ""});
    }
    Scope& scope = scopes.back();
    const std::string path = JoinPath(scope.path, entry->key);
    if (!scope.keys.insert(entry->key).second) {
      diagnostics.push_back(ErrorDiagnostic("duplicate_yaml_key", path,
                                            fmt::format("duplicate YAML key `{}` on line {}", entry->key, line_number)));
    }
    scope.last_key_path = path;
    if (!entry->value.empty() && (entry->value[0] == '|' || entry->value[0] == '>')) block_scalar_indent = indent;
  }
  return diagnostics;
}

namespace {

std::optional<YAML::Node> LoadQuietly(std::string_view text) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

}  // namespace

Diagnostics FuturePhaseDiagnostics(std::string_view text) {
  static constexpr std::array<std::string_view, 7> kReservedKeys = {"apply", "env_file", "pipelines", "embeddings",
                                                                    "ui",    "aliases",  "bindings"};
  Diagnostics diagnostics;
  const std::optional<YAML::Node> root = LoadQuietly(text);
  if (!root || !root->IsMap()) return diagnostics;
  for (const auto& entry : *root) {
    if (!entry.first.IsScalar()) continue;
    const std::string& key = entry.first.Scalar();
    for (std::string_view reserved : kReservedKeys) {
      if (key != reserved) continue;
      diagnostics.push_back(ErrorDiagnostic("future_phase_field", key,
                                            fmt::format("`{}` is reserved for a later cluster-control phase", key)));
    }
  }
  return diagnostics;
}

Diagnostics RemovedStreamingDiagnostics(std::string_view text) {
  Diagnostics diagnostics;
  const std::optional<YAML::Node> root = LoadQuietly(text);
  if (!root || !root->IsMap()) return diagnostics;
  const YAML::Node graphs = (*root)["graphs"];
  if (!graphs.IsDefined() || !graphs.IsMap()) return diagnostics;
  for (const auto& graph : graphs) {
    if (!graph.first.IsScalar() || !graph.second.IsMap() || !graph.second["streaming"].IsDefined()) continue;
    diagnostics.push_back(ErrorDiagnostic(
        "removed_streaming_declaration", "graphs." + graph.first.Scalar() + ".streaming",
        "`streaming` was removed: the MemWAL firehose is gone and graphs no longer carry a stream profile. Delete "
        "this key. A graph written by a development build that had it must be exported with that build and "
        "rebuilt."));
  }
  return diagnostics;
}

}  // namespace omnigraph::cluster
