// The typed form of `cluster.yaml` (spec/cluster.md §1.2) and its strict
// parse (§1.1 step 4). Values are kept as written: paths unresolved, ids
// unchecked, references unnormalised; the semantic checks of §1.2–§1.6 run
// on this form (desired.h), and the config digest (§1.8) hashes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::cluster {

// The file every config dir holds.
inline constexpr std::string_view kClusterConfigFile = "cluster.yaml";

// `providers.embedding.<e>` (§1.4): every field optional, as written.
// `provider` is accepted as an alias of `kind`.
struct EmbeddingProfile {
  std::optional<std::string> kind;
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  std::optional<std::string> api_key;

  bool operator==(const EmbeddingProfile& other) const = default;
};

// `graphs.<g>.queries` (§1.3) in one of its three spellings.
struct QueriesDeclaration {
  enum class Spelling {
    kAbsent,    // no `queries` key: no queries
    kOnePath,   // a string: a directory or one .gq file
    kPathList,  // a list of strings
    kExplicit,  // a map `<name>: {file: <path>}`
  };
  Spelling spelling = Spelling::kAbsent;
  std::vector<std::string> paths;              // kOnePath (one entry) and kPathList
  std::map<std::string, std::string> files;    // kExplicit: query name -> file as written
};

// One entry of `graphs.<g>.external_blobs.allow` (§1.5), as written.
struct ExternalBlobAllowEntry {
  std::string base;
  std::string scope;  // "server_safe" or "embedded_only" (checked by the parse)
};

// `graphs.<g>` (§1.2). There is no `uri`: graph roots are derived (§2.1).
struct GraphDeclaration {
  std::string schema;  // required path
  QueriesDeclaration queries;
  std::optional<std::string> embedding_provider;
  // `external_blobs.allow`; absent or empty means Deny (§1.5).
  std::vector<ExternalBlobAllowEntry> external_blob_allow;
};

// `policies.<p>` (§1.2, §1.6).
struct PolicyDeclaration {
  std::string file;                     // required path
  std::vector<std::string> applies_to;  // required list
};

// The whole `cluster.yaml`. Maps are ordered by name, the order every
// check, digest and output follows.
struct ClusterConfig {
  uint32_t version = 0;
  std::optional<std::string> metadata_name;
  std::optional<std::string> storage;
  std::optional<std::string> state_backend;
  std::optional<bool> state_lock;  // unset means true (§1.2)
  std::map<std::string, EmbeddingProfile> embedding_providers;
  std::map<std::string, GraphDeclaration> graphs;
  std::map<std::string, PolicyDeclaration> policies;
};

// Parses `text` strictly into a ClusterConfig (§1.1 step 4): every key of
// §1.2 with its type, nothing else. Errors (kInvalidArgument, message is the
// detail that follows "could not parse cluster.yaml: "):
//   * YAML syntax errors, as the YAML reader words them, with line/column;
//   * "<path>: unknown field `<k>`, expected one of `a`, `b`, …" for a key
//     no struct declares (anywhere, `providers.*` other than `embedding`
//     included);
//   * "<path>: missing field `<k>`" for `version`, `graphs.<g>.schema`,
//     `policies.<p>.file`, `policies.<p>.applies_to`, an allow entry's
//     `base`/`scope` and an explicit query's `file`;
//   * "<path>: invalid type: …" for a value of the wrong shape (a quoted
//     or negative `version`, a non-boolean `state.lock`, a map where a
//     string is expected, …);
//   * "<path>: unknown variant `<v>`, expected `server_safe` or
//     `embedded_only`" for an allow entry's scope;
//   * "<path>: duplicate field `kind`" when a profile has `kind` and its
//     alias `provider`.
// Every message ends with " at line <l> column <c>" when the YAML reader
// knows the position.
Result<ClusterConfig> ParseClusterConfig(std::string_view text);

}  // namespace omnigraph::cluster
