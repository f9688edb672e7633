#include "cluster/config.h"

#include <initializer_list>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace omnigraph::cluster {
namespace {

// Thrown inside this file only, to leave a nested parse at the first
// problem; ParseClusterConfig turns it into a Status.
struct ParseFailure {
  std::string detail;
};

std::string Position(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return "";
  return fmt::format(" at line {} column {}", mark.line + 1, mark.column + 1);
}

[[noreturn]] void Fail(const std::string& path, const YAML::Node& node, const std::string& what) {
  std::string where = path.empty() ? std::string() : path + ": ";
  throw ParseFailure{where + what + Position(node)};
}

std::string Child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// How serde words the shape of a value it did not expect.
std::string DescribeValue(const YAML::Node& node) {
  if (node.IsMap()) return "map";
  if (node.IsSequence()) return "sequence";
  if (node.IsNull()) return "unit value";
  return fmt::format("string \"{}\"", node.Scalar());
}

bool IsAbsent(const YAML::Node& node) { return !node.IsDefined() || node.IsNull(); }

// A plain (unquoted) scalar: YAML resolves its type from the text, so
// `true` and `1` are a boolean and an integer only when plain.
bool IsPlainScalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

std::string ScalarKey(const YAML::Node& key, const std::string& path) {
  if (!key.IsScalar()) Fail(path, key, "invalid type: " + DescribeValue(key) + ", expected a string key");
  return key.Scalar();
}

// Refuses a key of `node` outside `allowed`, in serde's words.
void CheckFields(const YAML::Node& node, const std::string& path, std::initializer_list<std::string_view> allowed) {
  for (const auto& entry : node) {
    const std::string key = ScalarKey(entry.first, path);
    bool known = false;
    for (std::string_view name : allowed) known = known || name == key;
    if (known) continue;
    std::string expected;
    for (std::string_view name : allowed) {
      expected += expected.empty() ? "" : ", ";
      expected += fmt::format("`{}`", name);
    }
    Fail(path, entry.first, fmt::format("unknown field `{}`, expected one of {}", key, expected));
  }
}

void RequireMap(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) Fail(path, node, "invalid type: " + DescribeValue(node) + ", expected a map");
}

std::string ReadString(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar() || (IsPlainScalar(node) && IsAbsent(node))) {
    Fail(path, node, "invalid type: " + DescribeValue(node) + ", expected a string");
  }
  return node.Scalar();
}

std::optional<std::string> ReadOptionalString(const YAML::Node& node, const std::string& path) {
  if (IsAbsent(node)) return std::nullopt;
  return ReadString(node, path);
}

std::vector<std::string> ReadStringList(const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) Fail(path, node, "invalid type: " + DescribeValue(node) + ", expected a sequence");
  std::vector<std::string> values;
  for (size_t index = 0; index < node.size(); ++index) {
    values.push_back(ReadString(node[index], fmt::format("{}[{}]", path, index)));
  }
  return values;
}

const YAML::Node Required(const YAML::Node& map, const std::string& path, const char* key) {
  YAML::Node value = map[key];
  if (!value.IsDefined()) Fail(path, map, fmt::format("missing field `{}`", key));
  return value;
}

uint32_t ReadVersion(const YAML::Node& node, const std::string& path) {
  const std::string& text = node.IsScalar() ? node.Scalar() : std::string();
  bool digits = IsPlainScalar(node) && !text.empty() && text.size() <= 10;
  for (char character : text) digits = digits && character >= '0' && character <= '9';
  if (!digits || std::stoull(text) > UINT32_MAX) {
    Fail(path, node, "invalid type: " + DescribeValue(node) + ", expected u32");
  }
  return static_cast<uint32_t>(std::stoull(text));
}

bool ReadBool(const YAML::Node& node, const std::string& path) {
  if (IsPlainScalar(node) && node.Scalar() == "true") return true;
  if (IsPlainScalar(node) && node.Scalar() == "false") return false;
  Fail(path, node, "invalid type: " + DescribeValue(node) + ", expected a boolean");
}

EmbeddingProfile ReadProfile(const YAML::Node& node, const std::string& path) {
  EmbeddingProfile profile;
  if (IsAbsent(node)) return profile;
  RequireMap(node, path);
  CheckFields(node, path, {"kind", "provider", "base_url", "model", "api_key"});
  if (node["kind"].IsDefined() && node["provider"].IsDefined()) Fail(path, node, "duplicate field `kind`");
  profile.kind = ReadOptionalString(node["kind"].IsDefined() ? node["kind"] : node["provider"], Child(path, "kind"));
  profile.base_url = ReadOptionalString(node["base_url"], Child(path, "base_url"));
  profile.model = ReadOptionalString(node["model"], Child(path, "model"));
  profile.api_key = ReadOptionalString(node["api_key"], Child(path, "api_key"));
  return profile;
}

QueriesDeclaration ReadQueries(const YAML::Node& node, const std::string& path) {
  QueriesDeclaration queries;
  if (IsAbsent(node)) return queries;
  if (node.IsScalar()) {
    queries.spelling = QueriesDeclaration::Spelling::kOnePath;
    queries.paths.push_back(ReadString(node, path));
  } else if (node.IsSequence()) {
    queries.spelling = QueriesDeclaration::Spelling::kPathList;
    queries.paths = ReadStringList(node, path);
  } else {
    queries.spelling = QueriesDeclaration::Spelling::kExplicit;
    for (const auto& entry : node) {
      const std::string name = ScalarKey(entry.first, path);
      const std::string entry_path = Child(path, name);
      RequireMap(entry.second, entry_path);
      CheckFields(entry.second, entry_path, {"file"});
      queries.files[name] = ReadString(Required(entry.second, entry_path, "file"), Child(entry_path, "file"));
    }
  }
  return queries;
}

std::vector<ExternalBlobAllowEntry> ReadExternalBlobs(const YAML::Node& node, const std::string& path) {
  std::vector<ExternalBlobAllowEntry> allow;
  if (IsAbsent(node)) return allow;
  RequireMap(node, path);
  CheckFields(node, path, {"allow"});
  const YAML::Node list = node["allow"];
  if (IsAbsent(list)) return allow;
  if (!list.IsSequence()) Fail(Child(path, "allow"), list, "invalid type: " + DescribeValue(list) + ", expected a sequence");
  for (size_t index = 0; index < list.size(); ++index) {
    const std::string entry_path = fmt::format("{}.allow[{}]", path, index);
    const YAML::Node entry = list[index];
    RequireMap(entry, entry_path);
    CheckFields(entry, entry_path, {"base", "scope"});
    ExternalBlobAllowEntry parsed;
    parsed.base = ReadString(Required(entry, entry_path, "base"), Child(entry_path, "base"));
    const YAML::Node scope = Required(entry, entry_path, "scope");
    parsed.scope = ReadString(scope, Child(entry_path, "scope"));
    if (parsed.scope != "server_safe" && parsed.scope != "embedded_only") {
      Fail(Child(entry_path, "scope"), scope,
           fmt::format("unknown variant `{}`, expected `server_safe` or `embedded_only`", parsed.scope));
    }
    allow.push_back(std::move(parsed));
  }
  return allow;
}

GraphDeclaration ReadGraph(const YAML::Node& node, const std::string& path) {
  if (IsAbsent(node)) Fail(path, node, "missing field `schema`");
  RequireMap(node, path);
  CheckFields(node, path, {"schema", "queries", "embedding_provider", "external_blobs"});
  GraphDeclaration graph;
  graph.schema = ReadString(Required(node, path, "schema"), Child(path, "schema"));
  graph.queries = ReadQueries(node["queries"], Child(path, "queries"));
  graph.embedding_provider = ReadOptionalString(node["embedding_provider"], Child(path, "embedding_provider"));
  graph.external_blob_allow = ReadExternalBlobs(node["external_blobs"], Child(path, "external_blobs"));
  return graph;
}

PolicyDeclaration ReadPolicy(const YAML::Node& node, const std::string& path) {
  if (IsAbsent(node)) Fail(path, node, "missing field `file`");
  RequireMap(node, path);
  CheckFields(node, path, {"file", "applies_to"});
  PolicyDeclaration policy;
  policy.file = ReadString(Required(node, path, "file"), Child(path, "file"));
  policy.applies_to = ReadStringList(Required(node, path, "applies_to"), Child(path, "applies_to"));
  return policy;
}

// A map of named sections (`graphs`, `policies`, …); null reads as empty.
template <typename Value, typename Reader>
std::map<std::string, Value> ReadNamedMap(const YAML::Node& node, const std::string& path, Reader read) {
  std::map<std::string, Value> values;
  if (IsAbsent(node)) return values;
  RequireMap(node, path);
  for (const auto& entry : node) {
    const std::string name = ScalarKey(entry.first, path);
    values.emplace(name, read(entry.second, Child(path, name)));
  }
  return values;
}

ClusterConfig ReadConfig(const YAML::Node& root) {
  if (IsAbsent(root)) Fail("", root, "missing field `version`");
  RequireMap(root, "");
  CheckFields(root, "", {"version", "metadata", "storage", "state", "providers", "graphs", "policies"});
  ClusterConfig config;
  config.version = ReadVersion(Required(root, "", "version"), "version");
  if (const YAML::Node metadata = root["metadata"]; !IsAbsent(metadata)) {
    RequireMap(metadata, "metadata");
    CheckFields(metadata, "metadata", {"name"});
    config.metadata_name = ReadOptionalString(metadata["name"], "metadata.name");
  }
  config.storage = ReadOptionalString(root["storage"], "storage");
  if (const YAML::Node state = root["state"]; !IsAbsent(state)) {
    RequireMap(state, "state");
    CheckFields(state, "state", {"backend", "lock"});
    config.state_backend = ReadOptionalString(state["backend"], "state.backend");
    if (!IsAbsent(state["lock"])) config.state_lock = ReadBool(state["lock"], "state.lock");
  }
  if (const YAML::Node providers = root["providers"]; !IsAbsent(providers)) {
    RequireMap(providers, "providers");
    CheckFields(providers, "providers", {"embedding"});
    config.embedding_providers =
        ReadNamedMap<EmbeddingProfile>(providers["embedding"], "providers.embedding", ReadProfile);
  }
  config.graphs = ReadNamedMap<GraphDeclaration>(root["graphs"], "graphs", ReadGraph);
  config.policies = ReadNamedMap<PolicyDeclaration>(root["policies"], "policies", ReadPolicy);
  return config;
}

}  // namespace

Result<ClusterConfig> ParseClusterConfig(std::string_view text) {
  try {
    return ReadConfig(YAML::Load(std::string(text)));
  } catch (const ParseFailure& failure) {
    return Status(ErrorCode::kInvalidArgument, failure.detail);
  } catch (const YAML::Exception& error) {
    return Status(ErrorCode::kInvalidArgument, error.what());
  }
}

}  // namespace omnigraph::cluster
