#include "cluster/serving.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/catalog.h"
#include "cluster/command.h"
#include "cluster/config.h"
#include "cluster/records.h"
#include "cluster/state.h"
#include "io/local_store.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kQueryPrefix = "query.";
constexpr std::string_view kGraphPrefix = "graph.";
constexpr std::string_view kPolicyPrefix = "policy.";

bool StartsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The NAME of the `${NAME}` api_key in the applied profile of the provider
// at `provider_address`, if it has one.
std::optional<std::string> ApiKeyVariable(const ClusterState& state, const std::string& provider_address) {
  auto provider = state.resources.find(provider_address);
  if (provider == state.resources.end() || !provider->second.embedding_profile) return std::nullopt;
  nlohmann::json profile = nlohmann::json::parse(*provider->second.embedding_profile, nullptr, false);
  if (!profile.is_object() || !profile.contains("api_key") || !profile["api_key"].is_string()) return std::nullopt;
  const std::string key = profile["api_key"].get<std::string>();
  if (key.size() < 4 || !StartsWith(key, "${") || key.back() != '}') return std::nullopt;
  return key.substr(2, key.size() - 3);
}

// The storage root `argument` names (§5, §2.1): a `file://` root as is,
// else the config dir's `storage:` when cluster.yaml parses, else the dir.
Result<std::string> ServingStorageRoot(const std::string& argument) {
  if (argument.find("://") != std::string::npos) {
    if (!StartsWith(argument, "file://")) {
      return InvalidArgument("[storage_root_invalid] " + argument +
                             ": this build serves local storage roots only (s3:// support is not built yet)");
    }
    return fs::absolute(argument.substr(7)).lexically_normal().string();
  }
  std::optional<std::string> storage;
  std::ifstream in(fs::path(argument) / "cluster.yaml", std::ios::binary);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    auto config = ParseClusterConfig(text.str());
    if (config.ok()) storage = config->storage;
  }
  auto root = ResolveStorageRoot(storage, fs::absolute(argument).lexically_normal().string());
  if (!root.ok()) return InvalidArgument("[storage_root_invalid] storage: " + root.status().message());
  return root;
}

// Reads and re-hashes one catalog payload; a problem becomes a diagnostic.
std::optional<std::string> ReadPayload(ObjectStore& store, const std::string& key, const std::string& digest,
                                       const std::string& address, Diagnostics* errors) {
  auto check = CheckPayload(store, key, digest);
  if (!check.ok()) {
    errors->push_back(ErrorDiagnostic(ClusterCodeOf(check.status()), address, check.status().message()));
    return std::nullopt;
  }
  if (*check == PayloadCheck::kMissing) {
    errors->push_back(ErrorDiagnostic("catalog_payload_missing", address,
                                      "the applied payload is missing from the catalog; run `cluster refresh` then "
                                      "`cluster apply`, and restart"));
    return std::nullopt;
  }
  if (*check == PayloadCheck::kDigestMismatch) {
    errors->push_back(ErrorDiagnostic("catalog_payload_digest_mismatch", address,
                                      "the applied payload no longer matches its digest; run `cluster refresh` then "
                                      "`cluster apply`, and restart"));
    return std::nullopt;
  }
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    errors->push_back(ErrorDiagnostic("catalog_payload_read_error", address, bytes.status().message()));
    return std::nullopt;
  }
  return std::string((*bytes)->view());
}

}  // namespace

Result<ServingSnapshot> ReadServingSnapshot(const std::string& argument) {
  Diagnostics errors;
  ServingSnapshot snapshot;
  auto refuse = [&]() -> Status {
    std::string message = "the cluster at '" + argument + "' is not ready to serve:";
    for (const Diagnostic& d : errors) message += "\n  [" + d.code + "] " + d.path + ": " + d.message;
    return InvalidArgument(message);
  };
  auto root = ServingStorageRoot(argument);
  if (!root.ok()) {
    return InvalidArgument("the cluster at '" + argument + "' is not ready to serve:\n  " + root.status().message());
  }
  snapshot.storage_root = *root;
  auto store = LocalStore::Make(*root);

  // 1. Recovery sidecars: each quarantines its graph.
  auto sidecars = ListRecoverySidecars(*store, "");
  if (!sidecars.ok()) {
    errors.push_back(ErrorDiagnostic(ClusterCodeOf(sidecars.status()), "__cluster/recoveries",
                                     sidecars.status().message()));
    return refuse();
  }
  for (const Status& problem : sidecars->problems) {
    errors.push_back(ErrorDiagnostic(ClusterCodeOf(problem), "__cluster/recoveries", problem.message()));
  }
  for (const RecoverySidecar& sidecar : sidecars->records) {
    if (sidecar.graph_id.empty()) {
      errors.push_back(ErrorDiagnostic("cluster_recovery_unattributed", "__cluster/recoveries/" +
                                       sidecar.operation_id + ".json",
                                       "a recovery sidecar names no graph; run `cluster apply` to settle it"));
      continue;
    }
    Diagnostic warning = WarningDiagnostic(
        "cluster_recovery_pending", "graph." + sidecar.graph_id,
        "a " + sidecar.kind + " of graph '" + sidecar.graph_id + "' did not finish (operation " +
            sidecar.operation_id + "); run `cluster apply` to recover it");
    snapshot.quarantined.emplace(sidecar.graph_id, warning);
    snapshot.warnings.push_back(warning);
  }

  // 2. The ledger.
  auto read = ReadState(*store, "");
  if (!read.ok()) {
    errors.push_back(ErrorDiagnostic(ClusterCodeOf(read.status()), std::string(kStateKey), read.status().message()));
    return refuse();
  }
  if (!read->state) {
    errors.push_back(ErrorDiagnostic("cluster_state_missing", std::string(kStateKey),
                                     "no cluster state ledger; run `cluster import` and `cluster apply` first"));
    return refuse();
  }
  const ClusterState& state = *read->state;

  // 3. Graphs and their queries.
  std::map<std::string, ServingGraph> graphs;
  for (const auto& [address, resource] : state.resources) {
    if (!StartsWith(address, kGraphPrefix)) continue;
    std::string id = address.substr(kGraphPrefix.size());
    if (snapshot.quarantined.count(id)) continue;
    ServingGraph graph;
    graph.id = id;
    graph.root = (fs::path(*root) / "graphs" / (id + ".omni")).string();
    if (resource.external_blob_policy) {
      auto policy = ParsePersistedExternalBlobPolicy(*resource.external_blob_policy);
      if (!policy.ok()) {
        Diagnostic warning = WarningDiagnostic("invalid_external_blob_policy", address, policy.status().message());
        snapshot.quarantined.emplace(id, warning);
        snapshot.warnings.push_back(warning);
        continue;
      }
      graph.external_blobs = std::move(*policy);
    }
    if (resource.embedding_provider) graph.embedding_api_key_env = ApiKeyVariable(state, *resource.embedding_provider);
    graphs.emplace(id, std::move(graph));
  }
  for (const auto& [address, resource] : state.resources) {
    if (!StartsWith(address, kQueryPrefix)) continue;
    std::string rest = address.substr(kQueryPrefix.size());
    size_t dot = rest.find('.');
    if (dot == std::string::npos) continue;
    std::string graph_id = rest.substr(0, dot), name = rest.substr(dot + 1);
    auto graph = graphs.find(graph_id);
    if (graph == graphs.end()) continue;
    auto source = ReadPayload(*store, QueryPayloadKey("", graph_id, name, resource.digest), resource.digest,
                              address, &errors);
    if (source) graph->second.queries[name] = std::move(*source);
  }

  // 4. Policies and their bindings (one bundle per scope).
  for (const auto& [address, resource] : state.resources) {
    if (!StartsWith(address, kPolicyPrefix)) continue;
    std::string name = address.substr(kPolicyPrefix.size());
    if (!resource.applies_to) {
      errors.push_back(ErrorDiagnostic("policy_bindings_missing", address,
                                       "the applied policy records no bindings; re-run `cluster apply` to backfill"));
      continue;
    }
    std::vector<std::string> graph_bindings;
    bool server_binding = false;
    for (const std::string& binding : *resource.applies_to) {
      if (binding == "cluster") {
        server_binding = true;
      } else if (StartsWith(binding, kGraphPrefix)) {
        graph_bindings.push_back(binding.substr(kGraphPrefix.size()));
      } else {
        errors.push_back(ErrorDiagnostic("policy_binding_invalid", address,
                                         "unrecognized policy binding '" + binding + "'"));
      }
    }
    // Bindings to quarantined or absent graphs are dropped.
    std::vector<std::string> live;
    for (const std::string& id : graph_bindings) {
      if (graphs.count(id)) live.push_back(id);
    }
    if (!server_binding && live.empty()) continue;
    auto source = ReadPayload(*store, PolicyPayloadKey("", name, resource.digest), resource.digest, address, &errors);
    if (!source) continue;
    if (server_binding) {
      if (snapshot.server_policy_name) {
        errors.push_back(ErrorDiagnostic("duplicate_policy_binding", address,
                                         "multiple policy bundles bind cluster ('" + *snapshot.server_policy_name +
                                             "' and '" + name + "'); cluster-mode serving supports one bundle per scope"));
        continue;
      }
      snapshot.server_policy_name = name;
      snapshot.server_policy_source = *source;
    }
    for (const std::string& id : live) {
      ServingGraph& graph = graphs[id];
      if (graph.policy_name) {
        errors.push_back(ErrorDiagnostic("duplicate_policy_binding", address,
                                         "multiple policy bundles bind graph." + id + " ('" + *graph.policy_name +
                                             "' and '" + name + "'); cluster-mode serving supports one bundle per scope"));
        continue;
      }
      graph.policy_name = name;
      graph.policy_source = *source;
    }
  }

  // 5. Something to serve.
  if (graphs.empty()) {
    if (!snapshot.quarantined.empty()) {
      errors.push_back(ErrorDiagnostic("cluster_no_healthy_graphs", std::string(kStateKey),
                                       "every applied graph is quarantined"));
    } else {
      errors.push_back(ErrorDiagnostic("cluster_empty", std::string(kStateKey), "the cluster has no applied graphs"));
    }
  }
  if (HasErrors(errors)) return refuse();
  for (auto& [id, graph] : graphs) snapshot.graphs.push_back(std::move(graph));
  return snapshot;
}

Result<std::string> AppliedGraphRoot(const std::string& argument, const std::string& graph_id) {
  auto root = ServingStorageRoot(argument);
  if (!root.ok()) return InvalidArgument("the cluster at '" + argument + "': " + root.status().message());
  auto store = LocalStore::Make(*root);
  auto read = ReadState(*store, "");
  if (!read.ok()) {
    return InvalidArgument("the cluster at '" + argument + "': [" + ClusterCodeOf(read.status()) + "] " +
                           std::string(kStateKey) + ": " + read.status().message());
  }
  if (!read->state) {
    return InvalidArgument("no cluster state ledger at '" + *root +
                           "'; run `cluster import` and `cluster apply` first");
  }
  std::vector<std::string> ids;
  for (const auto& [address, resource] : read->state->resources) {
    if (StartsWith(address, kGraphPrefix)) ids.push_back(address.substr(kGraphPrefix.size()));
  }
  auto list = [&] {
    std::string names;
    for (const std::string& id : ids) names += (names.empty() ? "" : ", ") + id;
    return names;
  };
  std::string id = graph_id;
  if (id.empty()) {
    if (ids.empty()) return InvalidArgument("the cluster at '" + argument + "' has no applied graphs; run `cluster apply` first");
    if (ids.size() > 1) {
      return InvalidArgument("the cluster at '" + argument + "' has " + std::to_string(ids.size()) + " graphs (" +
                             list() + "); pass --graph <id>");
    }
    id = ids.front();
  } else if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    return InvalidArgument("the cluster at '" + argument + "' has no applied graph '" + id + "' (" +
                           (ids.empty() ? std::string("it has none") : "graphs: " + list()) + ")");
  }
  return GraphRootUri(*root, id);
}

}  // namespace omnigraph::cluster
