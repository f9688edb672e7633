// Loading a config dir into the desired cluster (spec/cluster.md §1): the
// load pipeline of §1.1, the semantic checks of §1.2–§1.6, the resources
// and dependency edges of §1.7 and the digests of §1.8. This is what
// `cluster validate` reports and what plan/apply/import diff against.
#pragma once

#include <compare>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/config.h"
#include "cluster/diagnostics.h"
#include "cluster/external_blobs.h"

namespace omnigraph::cluster {

// One addressable resource of the desired cluster (§0, §4.1).
struct ResourceSummary {
  std::string address;              // graph.<g>, schema.<g>, query.<g>.<n>, policy.<p>, provider.embedding.<e>
  std::string kind;                 // graph | schema | query | policy | embedding_provider
  std::string digest;               // §1.8
  std::optional<std::string> path;  // the source file, resolved (schema, query, policy)
};

// A dependency edge (§1.7): `from` needs `to`.
struct Dependency {
  std::string from;
  std::string to;

  auto operator<=>(const Dependency& other) const = default;
};

// What one declared graph resolved to.
struct DesiredGraph {
  std::string id;
  std::string schema_digest;                        // "" when the schema could not be read
  std::map<std::string, std::string> query_files;   // query name -> declared file
  std::optional<std::string> embedding_provider;    // provider address, when bound and declared
  ExternalBlobPolicy external_blob_policy;          // checked; Deny when absent or invalid
};

// The desired cluster: parsed config plus everything derived from it.
struct DesiredCluster {
  ClusterConfig config;
  std::string config_digest;
  // `storage` trimmed, trailing `/` dropped; none = the config dir (§1.2).
  std::optional<std::string> storage_root;
  bool state_lock = true;
  std::vector<DesiredGraph> graphs;                             // by id
  std::map<std::string, std::string> resource_digests;          // address -> digest
  std::vector<ResourceSummary> resources;                       // by address
  std::vector<Dependency> dependencies;                         // sorted by (from, to)
  std::map<std::string, std::vector<std::string>> policy_bindings;  // policy address -> normalised applies_to
};

// How a policy bundle is bound (§1.6): to `cluster` (a server bundle) or to
// graphs (a graph bundle).
enum class PolicyBundleKind { kServer, kGraph };

// Compiles a policy bundle strictly (server.md §2.2) for its binding;
// returns the compiler's error text, or none when the bundle is valid.
// `graph_id` is the first bound graph for a graph bundle, "" otherwise.
using PolicyBundleCheck =
    std::function<std::optional<std::string>(std::string_view source, PolicyBundleKind kind, std::string_view graph_id)>;

struct LoadOptions {
  // The policy compiler, when this build has one; without it a readable
  // policy file's content is not checked (`policy_invalid` never arises).
  PolicyBundleCheck check_policy_bundle;
};

// The result of loading a config dir: the desired cluster when the typed
// parse succeeded (even with semantic errors, so that output can still list
// resources), and every diagnostic in the order found.
struct LoadOutcome {
  std::optional<DesiredCluster> desired;
  Diagnostics diagnostics;
  std::string config_dir;   // as given
  std::string config_file;  // <config_dir>/cluster.yaml

  // §1.1 step 5: no error-severity diagnostic.
  bool ok() const { return !HasErrors(diagnostics); }
};

// Loads `config_dir` (§1.1) without touching storage. Stops early with one
// error for: `config_dir_not_found` (path = the dir as given) "`--config`
// must point at a directory containing cluster.yaml"; `cluster_config_read_error`
// (path `cluster.yaml`) "could not read cluster.yaml: <io>"; the pre-scan
// errors of prescan.h (all of them); `invalid_cluster_yaml` (path
// `cluster.yaml`) "could not parse cluster.yaml: <detail>" (config.h). Then
// collects, in this order, the header checks (`unsupported_cluster_config_version`,
// `empty_metadata_name`, `unsupported_state_backend`, `invalid_storage_root`),
// providers (`invalid_resource_id`, `invalid_embedding_provider`,
// `embedding_api_key_required`, `embedding_api_key_inline`), graphs by id
// (`invalid_resource_id`, external blobs (external_blobs.h),
// `wrong_kind_reference` / `dangling_embedding_provider_reference` for
// `embedding_provider`, `schema_file_missing`, `schema_parse_error`,
// `schema_catalog_error`, query discovery and checks (queries.h),
// `query_file_missing` at `graphs.<g>.queries.<n>.file` for an explicit
// map), and policies by name (`invalid_resource_id`, `policy_missing_applies_to`,
// `wrong_kind_reference`, `dangling_graph_reference`,
// `policy_mixed_binding_kinds`, `duplicate_policy_binding`,
// `policy_file_missing`, `policy_invalid`).
LoadOutcome LoadDesiredCluster(const std::string& config_dir, const LoadOptions& options = {});

// `cluster status` and `force-unlock` (§4.6, §4.7): the pipeline of
// LoadDesiredCluster up to the typed parse, then only the header checks
// (version, metadata.name, state.backend, storage); `desired` carries the
// config, storage root and lock setting, no resources.
LoadOutcome LoadClusterHeader(const std::string& config_dir);

// The warnings only `validate` adds (§1.5), once the load is error-free:
// `external_blob_ingress_default_deny` at `graphs.<g>.external_blobs` per
// graph whose external-blob policy is Deny.
Diagnostics ValidateOnlyWarnings(const DesiredCluster& desired);

// Resource addresses (§0).
std::string GraphAddress(std::string_view graph_id);
std::string SchemaAddress(std::string_view graph_id);
std::string QueryAddress(std::string_view graph_id, std::string_view query_name);
std::string PolicyAddress(std::string_view policy_name);
std::string EmbeddingProviderAddress(std::string_view provider_name);

// The id rule of §1.2: first character an ASCII letter or `_`, then
// letters, digits, `_` or `-`.
bool IsValidResourceId(std::string_view id);

}  // namespace omnigraph::cluster
