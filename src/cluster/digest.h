// Digests of the desired cluster (spec/cluster.md §1.8): lower-case hex
// SHA-256 of raw source files, of embedding-provider profiles, of a graph's
// composite (schema, queries, provider, external-blob policy) and of the
// whole config. The composite formula is re-checked on every ledger read
// (§2.2), so it is exact; the config digest is this build's canonical JSON
// (§0.1 allows any deterministic one that ignores comments and layout).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/config.h"
#include "util/sha256.h"

namespace omnigraph::cluster {

// The compact JSON of a profile as §1.8 hashes it: keys kind, base_url,
// model, api_key in that order, absent ones omitted (`{}` when all are).
std::string EmbeddingProfileJson(const EmbeddingProfile& profile);

// §1.8 provider digest: sha256("embedding-provider\0" + EmbeddingProfileJson).
std::string EmbeddingProviderDigest(const EmbeddingProfile& profile);

// What a graph's composite digest binds (§1.8).
struct GraphDigestInputs {
  std::string graph_id;
  // The schema file's digest; none when it could not be read (hashed as "").
  std::optional<std::string> schema_digest;
  std::map<std::string, std::string> query_digests;  // query name -> digest
  // The bound provider's address (`provider.embedding.<e>`) and its digest
  // (none when unknown, hashed as ""); no address = no provider bound.
  std::optional<std::string> embedding_provider_address;
  std::optional<std::string> embedding_provider_digest;
  // The §1.5 persisted JSON of an allow policy; none for Deny, which adds
  // nothing.
  std::optional<std::string> external_blob_policy_json;
};

// §1.8 graph composite: sha256 of
//   "graph\0<g>\0schema\0<schema digest|empty>\0"
//   + per query by name "query\0<n>\0<digest>\0"
//   + (provider bound) "embedding_provider\0<addr>\0<provider digest|empty>\0"
//   + (allow policy) "external_blob_policy\0<json>\0".
std::string GraphCompositeDigest(const GraphDigestInputs& inputs);

// The canonical compact JSON of a parsed config (§1.8): keys version,
// metadata{name}, storage, state{backend,lock}, providers{embedding},
// graphs{<g>:{schema,queries,embedding_provider[,external_blobs]}},
// policies{<p>:{file,applies_to}}; maps sorted; unset optionals null
// except provider fields and a Deny `external_blobs` (omitted); missing
// `queries` is `{}`. Comments and flow/block style cannot change it: it is
// built from the typed parse, not the text.
std::string CanonicalConfigJson(const ClusterConfig& config);

// §1.8 config digest: sha256("cluster-config\0" + CanonicalConfigJson +
// "\0" + per resource in address order "<addr>\0<digest>\0").
std::string ConfigDigest(const ClusterConfig& config, const std::map<std::string, std::string>& resource_digests);

}  // namespace omnigraph::cluster
