// `cluster import` and `cluster refresh` (spec/cluster.md §4.2): rebuild
// the ledger's view of the graphs from what the storage root holds. Import
// bootstraps a missing state.json; refresh re-observes an existing one
// (always bumping the revision, §8 Q6). Both verify the payload catalog and
// observe every declared graph root read-only.
#pragma once

#include <map>
#include <string>

#include "cluster/command.h"
#include "cluster/diagnostics.h"
#include "cluster/state.h"

namespace omnigraph::cluster {

// §4.2 JSON {ok, operation, config_dir, state_observations,
// resource_digests, resource_statuses, observations, diagnostics}.
struct ObserveReport {
  bool ok = false;
  std::string operation;  // "import" | "refresh"
  std::string config_dir;
  StateObservations state_observations;
  std::map<std::string, std::string> resource_digests;  // the ledger written (or read, on failure)
  std::map<std::string, ResourceStatus> resource_statuses;
  std::map<std::string, Observation> observations;
  Diagnostics diagnostics;
};

// `cluster import`: load (errors → ok false, nothing touched) → lock →
// state must be absent (state_already_exists) → start from an empty ledger
// carrying the desired config digest (§8 Q4) → sweep → observe each
// declared graph → write revision 1 unless any error arose (then nothing
// is written). Codes: those of LoadDesiredCluster, storage_root_invalid,
// state_lock_held, state_lock_error, state_read_error, invalid_state_json,
// state_already_exists, graph_observation_error, state_cas_mismatch,
// state_write_error.
ObserveReport RunImport(const CommandOptions& options);

// The ledger import starts from for `desired` before anything is written:
// the desired config digest (§8 Q4) and an observation of every declared
// graph root (§4.2). `apply` bootstraps a storage root without a ledger
// from it (a divergence from §4.4; see the README). Errors:
// graph_observation_error "<n> graph observation(s) failed".
// REQUIRES: the caller holds the cluster lock of `storage`.
Result<ClusterState> BootstrapState(const ClusterStorage& storage, const DesiredCluster& desired);

// `cluster refresh`: as import on an existing ledger (state_missing
// "refresh requires an existing state.json; run `cluster import` to
// bootstrap state"), after the authority check
// (external_blob_policy_digest_mismatch); verifies the payload catalog
// (catalog_payload_missing / catalog_payload_mismatch drop the entry,
// catalog_payload_read_error keeps it) and writes revision + 1 always.
ObserveReport RunRefresh(const CommandOptions& options);

}  // namespace omnigraph::cluster
