#include "cluster/desired.h"

#include <algorithm>
#include <set>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "cluster/digest.h"
#include "cluster/files.h"
#include "cluster/prescan.h"
#include "cluster/queries.h"
#include "compiler/catalog.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

// Everything the semantic checks accumulate while walking the config.
struct Collector {
  fs::path config_dir;
  Diagnostics* diagnostics = nullptr;
  std::map<std::string, ResourceSummary> resources;  // by address
  std::set<Dependency> dependencies;

  void Error(std::string code, std::string path, std::string message) {
    diagnostics->push_back(ErrorDiagnostic(std::move(code), std::move(path), std::move(message)));
  }
  void AddResource(const std::string& address, const char* kind, std::string digest,
                   std::optional<std::string> path = std::nullopt) {
    resources[address] = ResourceSummary{address, kind, std::move(digest), std::move(path)};
  }
};

void CheckId(Collector& collector, std::string_view kind, const std::string& path, const std::string& id) {
  if (IsValidResourceId(id)) return;
  collector.Error("invalid_resource_id", path,
                  fmt::format("{} `{}` must start with a letter or `_` and contain only ASCII letters, digits, `_`, "
                              "or `-`",
                              kind, id));
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' || text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// §1.2 `storage`: trimmed, trailing `/` dropped; none when invalid.
std::optional<std::string> CheckStorageRoot(Collector& collector, const std::string& storage) {
  std::string_view root = Trim(storage);
  if (root.empty()) {
    collector.Error("invalid_storage_root", "storage",
                    "storage must be a non-empty path or URI (for example s3://bucket/prefix or az://container/prefix) "
                    "when provided");
    return std::nullopt;
  }
  if (root.starts_with("s3://")) {
    std::string_view bucket = root.substr(5);
    while (!bucket.empty() && bucket.front() == '/') bucket.remove_prefix(1);
    if (bucket.empty()) {
      collector.Error("invalid_storage_root", "storage", "storage s3:// URI must name a bucket");
      return std::nullopt;
    }
  } else if (const size_t scheme_end = root.find("://");
             scheme_end != std::string_view::npos && !root.starts_with("file://")) {
    // Local roots and s3:// only in this build (§0.1).
    collector.Error("invalid_storage_root", "storage",
                    fmt::format("invalid storage root '{}': unsupported storage scheme `{}`", root,
                                root.substr(0, scheme_end)));
    return std::nullopt;
  }
  while (root.size() > 1 && root.back() == '/' && !root.ends_with("://")) root.remove_suffix(1);
  return std::string(root);
}

void CheckHeader(Collector& collector, const ClusterConfig& config, DesiredCluster* desired) {
  if (config.version != 1) {
    collector.Error("unsupported_cluster_config_version", "version",
                    fmt::format("unsupported cluster config version {}; this build supports version 1", config.version));
  }
  if (config.metadata_name && Trim(*config.metadata_name).empty()) {
    collector.Error("empty_metadata_name", "metadata.name", "metadata.name must not be empty when provided");
  }
  if (config.state_backend && *config.state_backend != "cluster") {
    collector.Error("unsupported_state_backend", "state.backend",
                    "Stage 2C supports only omitted state.backend or `cluster`");
  }
  if (config.storage) desired->storage_root = CheckStorageRoot(collector, *config.storage);
  desired->state_lock = config.state_lock.value_or(true);
}

// `${NAME}` with a non-blank NAME (§1.4).
bool IsSecretReference(std::string_view value) {
  value = Trim(value);
  if (!value.starts_with("${") || !value.ends_with("}") || value.size() < 3) return false;
  return !Trim(value.substr(2, value.size() - 3)).empty();
}

void CheckProviders(Collector& collector, const ClusterConfig& config) {
  for (const auto& [name, profile] : config.embedding_providers) {
    const std::string path = "providers.embedding." + name;
    CheckId(collector, "embedding provider name", path, name);
    const std::string kind = profile.kind.value_or("openai-compatible");
    if (kind != "openai-compatible" && kind != "openai" && kind != "gemini" && kind != "mock") {
      collector.Error("invalid_embedding_provider", path,
                      fmt::format("unknown embedding provider '{}' (expected openai-compatible|openai|gemini|mock)", kind));
    }
    if (profile.api_key && !IsSecretReference(*profile.api_key)) {
      collector.Error("embedding_api_key_inline", path + ".api_key",
                      "embedding api_key must be a ${NAME} env reference, not an inline secret");
    } else if (!profile.api_key && kind != "mock") {
      collector.Error("embedding_api_key_required", path + ".api_key",
                      "non-mock embedding providers must set api_key to a ${NAME} env reference");
    }
    collector.AddResource(EmbeddingProviderAddress(name), "embedding_provider", EmbeddingProviderDigest(profile));
  }
}

// §1.4: `provider.embedding.<e>` or bare `<e>`; the provider's address when
// it is declared.
std::optional<std::string> CheckEmbeddingProviderReference(Collector& collector, const ClusterConfig& config,
                                                           const std::string& graph_id, const std::string& reference) {
  const std::string path = fmt::format("graphs.{}.embedding_provider", graph_id);
  std::string name = reference;
  if (reference.starts_with("provider.embedding.")) {
    name = reference.substr(std::string_view("provider.embedding.").size());
  } else if (reference.find('.') != std::string::npos) {
    collector.Error("wrong_kind_reference", path,
                    fmt::format("embedding_provider expects a providers.embedding ref or bare provider name, got `{}`",
                                reference));
    return std::nullopt;
  }
  if (!config.embedding_providers.contains(name)) {
    collector.Error("dangling_embedding_provider_reference", path,
                    fmt::format("graph references embedding provider `{}`, but no providers.embedding.{} profile is "
                                "declared",
                                name, name));
    return std::nullopt;
  }
  return EmbeddingProviderAddress(name);
}

// Reads and compiles a graph's schema; the catalog when it compiles.
std::optional<compiler::Catalog> CheckSchema(Collector& collector, const std::string& graph_id,
                                             const std::string& declared, DesiredGraph* graph) {
  const std::string path = fmt::format("graphs.{}.schema", graph_id);
  const fs::path resolved = ResolveConfigPath(collector.config_dir, declared);
  Result<std::string> source = ReadSourceFile(resolved);
  if (!source.ok()) {
    collector.Error("schema_file_missing", path,
                    fmt::format("could not read schema file '{}': {}", resolved.string(), source.status().message()));
    return std::nullopt;
  }
  graph->schema_digest = Sha256Hex(*source);
  collector.AddResource(SchemaAddress(graph_id), "schema", graph->schema_digest, resolved.string());
  auto catalog = compiler::CompileSchema(*source, resolved.string());
  if (catalog.ok()) return std::move(*catalog);
  const auto& details = catalog.status().details();
  const auto code = details.find("code");
  const bool catalog_error = code != details.end() && code->second == "catalog";
  collector.Error(catalog_error ? "schema_catalog_error" : "schema_parse_error", path, catalog.status().message());
  return std::nullopt;
}

DesiredGraph CheckGraph(Collector& collector, const ClusterConfig& config, const std::string& graph_id,
                        const GraphDeclaration& declaration) {
  DesiredGraph graph;
  graph.id = graph_id;
  CheckId(collector, "graph id", "graphs." + graph_id, graph_id);
  graph.external_blob_policy =
      CheckExternalBlobPolicy(graph_id, declaration.external_blob_allow, collector.diagnostics);
  const std::string graph_address = GraphAddress(graph_id);
  const std::string schema_address = SchemaAddress(graph_id);
  collector.dependencies.insert(Dependency{schema_address, graph_address});
  if (declaration.embedding_provider) {
    graph.embedding_provider =
        CheckEmbeddingProviderReference(collector, config, graph_id, *declaration.embedding_provider);
    if (graph.embedding_provider) collector.dependencies.insert(Dependency{graph_address, *graph.embedding_provider});
  }
  const std::optional<compiler::Catalog> catalog = CheckSchema(collector, graph_id, declaration.schema, &graph);

  DiscoveredQueries queries = DiscoverQueries(collector.config_dir, graph_id, declaration.queries, collector.diagnostics);
  graph.query_files = queries.files;
  for (const auto& [name, declared_file] : queries.files) {
    const std::string path = fmt::format("graphs.{}.queries.{}", graph_id, name);
    CheckId(collector, "query name", path, name);
    const std::string query_address = QueryAddress(graph_id, name);
    collector.dependencies.insert(Dependency{query_address, graph_address});
    collector.dependencies.insert(Dependency{query_address, schema_address});
    const fs::path resolved = ResolveConfigPath(collector.config_dir, declared_file);
    const auto cached = queries.contents.find(declared_file);
    Result<std::string> source =
        cached != queries.contents.end() ? Result<std::string>(cached->second) : ReadSourceFile(resolved);
    if (!source.ok()) {
      collector.Error("query_file_missing", path + ".file",
                      fmt::format("could not read query file '{}': {}", resolved.string(), source.status().message()));
      continue;
    }
    // The whole file is the query's payload (§1.3), so its digest covers
    // every declaration in it.
    collector.AddResource(query_address, "query", Sha256Hex(*source), resolved.string());
    CheckQuerySource(graph_id, name, *source, resolved.string(), catalog ? &*catalog : nullptr, collector.diagnostics);
  }
  return graph;
}

// §1.6 for one bundle; `owners` maps each bound scope to the first bundle
// (in name order) binding it.
std::vector<std::string> CheckPolicy(Collector& collector, const ClusterConfig& config, const LoadOptions& options,
                                     const std::string& name, const PolicyDeclaration& policy,
                                     std::map<std::string, std::string>* owners) {
  const std::string path = "policies." + name;
  CheckId(collector, "policy name", path, name);
  if (policy.applies_to.empty()) {
    collector.Error("policy_missing_applies_to", path + ".applies_to",
                    "policy.applies_to must name `cluster` or at least one graph");
  }
  const std::string policy_address = PolicyAddress(name);
  std::vector<std::string> bindings;
  bool binds_cluster = false;
  std::optional<std::string> first_graph;
  for (size_t index = 0; index < policy.applies_to.size(); ++index) {
    const std::string& target = policy.applies_to[index];
    const std::string entry_path = fmt::format("{}.applies_to[{}]", path, index);
    if (target == "cluster") {
      binds_cluster = true;
      bindings.push_back("cluster");
      continue;
    }
    std::string graph_id = target;
    if (target.starts_with("graph.")) {
      graph_id = target.substr(6);
    } else if (target.find('.') != std::string::npos) {
      collector.Error("wrong_kind_reference", entry_path,
                      fmt::format("policy applies_to expects graph refs or `cluster`, got `{}`", target));
      continue;
    }
    if (!first_graph) first_graph = graph_id;
    bindings.push_back(GraphAddress(graph_id));
    if (config.graphs.contains(graph_id)) {
      collector.dependencies.insert(Dependency{policy_address, GraphAddress(graph_id)});
    } else {
      collector.Error("dangling_graph_reference", entry_path,
                      fmt::format("policy references graph `{}`, but no graph with that id is declared", graph_id));
    }
  }
  std::sort(bindings.begin(), bindings.end());
  bindings.erase(std::unique(bindings.begin(), bindings.end()), bindings.end());
  if (binds_cluster && first_graph) {
    collector.Error("policy_mixed_binding_kinds", path + ".applies_to",
                    "one policy bundle cannot bind both `cluster` and graph scopes; split server and graph rules into "
                    "separate bundles");
  }
  for (const std::string& binding : bindings) {
    auto [owner, inserted] = owners->emplace(binding, name);
    if (inserted) continue;
    collector.Error("duplicate_policy_binding", path + ".applies_to",
                    fmt::format("policy bundles `{}` and `{}` both bind `{}`; merge them or leave exactly one bundle "
                                "for that scope",
                                owner->second, name, binding));
  }
  const fs::path resolved = ResolveConfigPath(collector.config_dir, policy.file);
  Result<std::string> source = ReadSourceFile(resolved);
  if (!source.ok()) {
    collector.Error("policy_file_missing", path + ".file",
                    fmt::format("could not read policy file '{}': {}", resolved.string(), source.status().message()));
    return bindings;
  }
  collector.AddResource(policy_address, "policy", Sha256Hex(*source), resolved.string());
  // A bundle with no binding or both kinds has no single kind to compile
  // as; its binding diagnostics above already explain why.
  if (options.check_policy_bundle && binds_cluster != first_graph.has_value()) {
    const PolicyBundleKind kind = binds_cluster ? PolicyBundleKind::kServer : PolicyBundleKind::kGraph;
    if (std::optional<std::string> error = options.check_policy_bundle(*source, kind, first_graph.value_or(""))) {
      collector.Error("policy_invalid", path + ".file",
                      fmt::format("policy file '{}' is invalid: {}", resolved.string(), *error));
    }
  }
  return bindings;
}

// Checks every section of a parsed config into `desired`.
void CheckConfig(Collector& collector, const LoadOptions& options, DesiredCluster* desired) {
  const ClusterConfig& config = desired->config;
  CheckHeader(collector, config, desired);
  CheckProviders(collector, config);
  for (const auto& [graph_id, declaration] : config.graphs) {
    desired->graphs.push_back(CheckGraph(collector, config, graph_id, declaration));
  }
  // Composite digests last: they bind the digests collected above.
  for (const DesiredGraph& graph : desired->graphs) {
    GraphDigestInputs inputs;
    inputs.graph_id = graph.id;
    if (!graph.schema_digest.empty()) inputs.schema_digest = graph.schema_digest;
    for (const auto& [name, file] : graph.query_files) {
      const auto resource = collector.resources.find(QueryAddress(graph.id, name));
      if (resource != collector.resources.end()) inputs.query_digests[name] = resource->second.digest;
    }
    if (graph.embedding_provider) {
      inputs.embedding_provider_address = graph.embedding_provider;
      const auto provider = collector.resources.find(*graph.embedding_provider);
      if (provider != collector.resources.end()) inputs.embedding_provider_digest = provider->second.digest;
    }
    inputs.external_blob_policy_json = PersistedExternalBlobPolicyJson(graph.external_blob_policy);
    collector.AddResource(GraphAddress(graph.id), "graph", GraphCompositeDigest(inputs));
  }
  std::map<std::string, std::string> owners;
  for (const auto& [name, policy] : config.policies) {
    desired->policy_bindings[PolicyAddress(name)] = CheckPolicy(collector, config, options, name, policy, &owners);
  }
  for (auto& [address, resource] : collector.resources) {
    desired->resource_digests[address] = resource.digest;
    desired->resources.push_back(std::move(resource));
  }
  desired->dependencies.assign(collector.dependencies.begin(), collector.dependencies.end());
  desired->config_digest = ConfigDigest(config, desired->resource_digests);
}

// §1.1 steps 1–4, then the semantic checks: all of them, or (`header_only`)
// the header's.
LoadOutcome LoadConfigDir(const std::string& config_dir, const LoadOptions& options, bool header_only) {
  LoadOutcome outcome;
  outcome.config_dir = config_dir;
  const fs::path directory(config_dir);
  outcome.config_file = (directory / kClusterConfigFile).string();
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    outcome.diagnostics.push_back(ErrorDiagnostic("config_dir_not_found", config_dir,
                                                  "`--config` must point at a directory containing cluster.yaml"));
    return outcome;
  }
  Result<std::string> text = ReadSourceFile(outcome.config_file);
  if (!text.ok()) {
    outcome.diagnostics.push_back(ErrorDiagnostic("cluster_config_read_error", std::string(kClusterConfigFile),
                                                  "could not read cluster.yaml: " + text.status().message()));
    return outcome;
  }
  for (Diagnostics scan : {DuplicateKeyDiagnostics(*text), FuturePhaseDiagnostics(*text),
                           RemovedStreamingDiagnostics(*text)}) {
    outcome.diagnostics.insert(outcome.diagnostics.end(), scan.begin(), scan.end());
  }
  if (HasErrors(outcome.diagnostics)) return outcome;
  Result<ClusterConfig> config = ParseClusterConfig(*text);
  if (!config.ok()) {
    outcome.diagnostics.push_back(ErrorDiagnostic("invalid_cluster_yaml", std::string(kClusterConfigFile),
                                                  "could not parse cluster.yaml: " + config.status().message()));
    return outcome;
  }
  DesiredCluster desired;
  desired.config = std::move(*config);
  Collector collector;
  collector.config_dir = directory;
  collector.diagnostics = &outcome.diagnostics;
  if (header_only) {
    CheckHeader(collector, desired.config, &desired);
  } else {
    CheckConfig(collector, options, &desired);
  }
  outcome.desired = std::move(desired);
  return outcome;
}

}  // namespace

LoadOutcome LoadDesiredCluster(const std::string& config_dir, const LoadOptions& options) {
  return LoadConfigDir(config_dir, options, /*header_only=*/false);
}

LoadOutcome LoadClusterHeader(const std::string& config_dir) {
  return LoadConfigDir(config_dir, LoadOptions{}, /*header_only=*/true);
}

Diagnostics ValidateOnlyWarnings(const DesiredCluster& desired) {
  Diagnostics warnings;
  for (const DesiredGraph& graph : desired.graphs) {
    if (!graph.external_blob_policy.denies()) continue;
    warnings.push_back(WarningDiagnostic(
        "external_blob_ingress_default_deny", fmt::format("graphs.{}.external_blobs", graph.id),
        fmt::format("graph `{}` declares no external_blobs allow-list, so external blob ingress is denied", graph.id)));
  }
  return warnings;
}

std::string GraphAddress(std::string_view graph_id) { return fmt::format("graph.{}", graph_id); }
std::string SchemaAddress(std::string_view graph_id) { return fmt::format("schema.{}", graph_id); }
std::string QueryAddress(std::string_view graph_id, std::string_view query_name) {
  return fmt::format("query.{}.{}", graph_id, query_name);
}
std::string PolicyAddress(std::string_view policy_name) { return fmt::format("policy.{}", policy_name); }
std::string EmbeddingProviderAddress(std::string_view provider_name) {
  return fmt::format("provider.embedding.{}", provider_name);
}

bool IsValidResourceId(std::string_view id) {
  if (id.empty()) return false;
  auto letter = [](char character) {
    return (character >= 'a' && character <= 'z') || (character >= 'A' && character <= 'Z');
  };
  if (!letter(id.front()) && id.front() != '_') return false;
  return std::all_of(id.begin(), id.end(), [&](char character) {
    return letter(character) || (character >= '0' && character <= '9') || character == '_' || character == '-';
  });
}

}  // namespace omnigraph::cluster
