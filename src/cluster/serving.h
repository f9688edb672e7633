// What a cluster-booted server serves (spec/cluster.md §5): the applied
// revision of the ledger under the storage root, read without the lock and
// without writing anything, with every query and policy payload read back
// from the catalog and re-hashed.
//
// This build takes §0.1's strict boot: a problem that upstream answers
// with a quarantine (a pending recovery sidecar) is reported as a warning
// here and the server refuses to start unless it can drop the graph; see
// server/boot.cc for how warnings become quarantines.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/diagnostics.h"
#include "cluster/external_blobs.h"
#include "util/status.h"

namespace omnigraph::cluster {

// One applied graph as the server opens it.
struct ServingGraph {
  std::string id;
  std::string root;                             // absolute path of R/graphs/<g>.omni
  std::map<std::string, std::string> queries;   // stored query name -> whole .gq source
  std::optional<std::string> policy_name;       // the bundle bound to graph.<g>, if any
  std::optional<std::string> policy_source;     // its YAML
  // The ledger's external-blob policy (§1.5, as persisted; empty: Deny).
  ExternalBlobPolicy external_blobs;
  // The environment variable the graph's embedding provider takes its
  // api_key from (`${NAME}` in the applied profile), if it names one.
  // Secrets are read only at server boot (§1.4).
  std::optional<std::string> embedding_api_key_env;
};

struct ServingSnapshot {
  std::string storage_root;  // absolute
  std::vector<ServingGraph> graphs;              // sorted by id
  // The bundle bound to `cluster` (server-scoped), if any.
  std::optional<std::string> server_policy_name;
  std::optional<std::string> server_policy_source;
  // Graphs left out, by id, with the warning that quarantined each.
  std::map<std::string, Diagnostic> quarantined;
  Diagnostics warnings;
};

// Reads the serving snapshot of `argument` (§5): a config directory whose
// cluster.yaml `storage:` key, when it parses, locates the storage root
// (absent or unparsable: the directory itself), or a `file://` root.
// Errors: InvalidArgument "the cluster at '<argument>' is not ready to
// serve:" followed by one line per problem, `  [<code>] <path>: <message>`:
// cluster_state_missing, the state parse codes of §2.2,
// cluster_recovery_unattributed, the sidecar listing codes,
// catalog_payload_missing / catalog_payload_digest_mismatch,
// policy_bindings_missing, unrecognized or duplicate bindings,
// cluster_no_healthy_graphs and cluster_empty; `s3://` roots are
// unsupported in this build (storage_root_invalid).
Result<ServingSnapshot> ReadServingSnapshot(const std::string& argument);

// The root of one applied graph of the cluster `argument` names (located
// as ReadServingSnapshot does), for the maintenance verbs' `--cluster DIR
// [--graph ID]` (surface.md §5.1): the absolute path R/graphs/<id>.omni
// of `graph_id`, or with an empty `graph_id` of the cluster's only applied
// graph. Reads the ledger alone (not the catalog, the sidecars or the
// graph), so maintenance still reaches a graph of a cluster that is not
// ready to serve. Errors: InvalidArgument for a storage root this build
// cannot use, a ledger that does not parse, no ledger ("no cluster state
// ledger at '<R>'; run `cluster import` and `cluster apply` first"), a
// graph the applied revision lacks, and with no `graph_id` a cluster of no
// or of several graphs (naming them, "pass --graph <id>").
Result<std::string> AppliedGraphRoot(const std::string& argument, const std::string& graph_id);

}  // namespace omnigraph::cluster
