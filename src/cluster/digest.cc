#include "cluster/digest.h"

#include <nlohmann/json.hpp>

namespace omnigraph::cluster {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Compact JSON; invalid UTF-8 in a value is replaced rather than thrown,
// so a digest always exists (the value itself is reported elsewhere).
std::string Compact(const OrderedJson& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

OrderedJson OptionalText(const std::optional<std::string>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

OrderedJson ProfileObject(const EmbeddingProfile& profile) {
  OrderedJson object = OrderedJson::object();
  if (profile.kind) object["kind"] = *profile.kind;
  if (profile.base_url) object["base_url"] = *profile.base_url;
  if (profile.model) object["model"] = *profile.model;
  if (profile.api_key) object["api_key"] = *profile.api_key;
  return object;
}

OrderedJson QueriesObject(const QueriesDeclaration& queries) {
  switch (queries.spelling) {
    case QueriesDeclaration::Spelling::kAbsent:
      return OrderedJson::object();
    case QueriesDeclaration::Spelling::kOnePath:
      return OrderedJson(queries.paths.front());
    case QueriesDeclaration::Spelling::kPathList:
      return OrderedJson(queries.paths);
    case QueriesDeclaration::Spelling::kExplicit: {
      OrderedJson object = OrderedJson::object();
      for (const auto& [name, file] : queries.files) object[name] = OrderedJson{{"file", file}};
      return object;
    }
  }
  return OrderedJson::object();
}

}  // namespace

std::string EmbeddingProfileJson(const EmbeddingProfile& profile) { return Compact(ProfileObject(profile)); }

std::string EmbeddingProviderDigest(const EmbeddingProfile& profile) {
  std::string input("embedding-provider\0", 19);
  input += EmbeddingProfileJson(profile);
  return Sha256Hex(input);
}

std::string GraphCompositeDigest(const GraphDigestInputs& inputs) {
  // Every field is followed by a NUL so that no two inputs concatenate to
  // the same bytes.
  std::string input;
  auto field = [&input](std::string_view value) {
    input += value;
    input += '\0';
  };
  field("graph");
  field(inputs.graph_id);
  field("schema");
  field(inputs.schema_digest.value_or(""));
  for (const auto& [name, digest] : inputs.query_digests) {
    field("query");
    field(name);
    field(digest);
  }
  if (inputs.embedding_provider_address) {
    field("embedding_provider");
    field(*inputs.embedding_provider_address);
    field(inputs.embedding_provider_digest.value_or(""));
  }
  if (inputs.external_blob_policy_json) {
    field("external_blob_policy");
    field(*inputs.external_blob_policy_json);
  }
  return Sha256Hex(input);
}

std::string CanonicalConfigJson(const ClusterConfig& config) {
  OrderedJson root = OrderedJson::object();
  root["version"] = config.version;
  root["metadata"] = OrderedJson{{"name", OptionalText(config.metadata_name)}};
  root["storage"] = OptionalText(config.storage);
  root["state"] = OrderedJson{{"backend", OptionalText(config.state_backend)},
                              {"lock", config.state_lock ? OrderedJson(*config.state_lock) : OrderedJson(nullptr)}};
  OrderedJson providers = OrderedJson::object();
  for (const auto& [name, profile] : config.embedding_providers) providers[name] = ProfileObject(profile);
  root["providers"] = OrderedJson{{"embedding", providers}};
  OrderedJson graphs = OrderedJson::object();
  for (const auto& [id, graph] : config.graphs) {
    OrderedJson object = OrderedJson::object();
    object["schema"] = graph.schema;
    object["queries"] = QueriesObject(graph.queries);
    object["embedding_provider"] = OptionalText(graph.embedding_provider);
    if (!graph.external_blob_allow.empty()) {
      OrderedJson allow = OrderedJson::array();
      for (const ExternalBlobAllowEntry& entry : graph.external_blob_allow) {
        allow.push_back(OrderedJson{{"base", entry.base}, {"scope", entry.scope}});
      }
      object["external_blobs"] = OrderedJson{{"allow", allow}};
    }
    graphs[id] = object;
  }
  root["graphs"] = graphs;
  OrderedJson policies = OrderedJson::object();
  for (const auto& [name, policy] : config.policies) {
    policies[name] = OrderedJson{{"file", policy.file}, {"applies_to", policy.applies_to}};
  }
  root["policies"] = policies;
  return Compact(root);
}

std::string ConfigDigest(const ClusterConfig& config, const std::map<std::string, std::string>& resource_digests) {
  std::string input("cluster-config\0", 15);
  input += CanonicalConfigJson(config);
  input += '\0';
  for (const auto& [address, digest] : resource_digests) {
    input += address;
    input += '\0';
    input += digest;
    input += '\0';
  }
  return Sha256Hex(input);
}

}  // namespace omnigraph::cluster
