// The cluster state ledger `__cluster/state.json` (spec/cluster.md §2.2,
// §2.3): what `cluster apply` last applied (the revision the server serves),
// per-resource statuses, approval and recovery records and observations,
// and the compare-and-swap every write of it goes through.
//
// The file is strict JSON: an unknown field anywhere, a wrong type or a
// missing required field refuses the whole file (`invalid_state_json`), so
// a ledger written by a newer build is never half-understood and rewritten.
// It is written pretty (two-space indent) with a trailing newline, keys in
// the order of this header, map entries sorted. Its identity for the CAS is
// `sha256:` + the SHA-256 of its exact bytes.
//
// Errors of this module are Status values whose detail "code" carries the
// spec's code (state_read_error, invalid_state_json,
// unsupported_state_version, conflicting_graph_manifest_observation,
// state_cas_mismatch, state_write_error); cluster verbs report them as
// diagnostics with that code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::cluster {

// Ledger and lock failures carry the spec's code in this Status detail.
inline constexpr std::string_view kClusterCodeDetail = "code";
// `status` carrying the cluster code `code`.
Status WithClusterCode(Status status, std::string_view code);
// The cluster code `status` carries; empty when none.
std::string ClusterCodeOf(const Status& status);

// Keys of the ledger under the storage root R (§2.1).
inline constexpr std::string_view kStateKey = "__cluster/state.json";

// One applied resource (§2.2 StateResource): its digest, plus what only
// some kinds record. `embedding_profile` and `external_blob_policy` are kept
// as the JSON objects the planner wrote (profiles keep `${…}` unresolved).
struct StateResource {
  std::string digest;
  std::optional<std::vector<std::string>> applies_to;  // policies, normalised
  std::optional<std::string> embedding_provider;       // graphs
  std::optional<std::string> embedding_profile;        // providers: compact JSON object text
  std::optional<std::string> external_blob_policy;     // graphs: compact JSON object text (allow only)
  bool operator==(const StateResource&) const = default;
};

// The status vocabulary of §2.2 (only the last four are produced).
inline constexpr std::string_view kResourceStatuses[] = {"pending", "planned", "applying", "applied",
                                                         "drifted", "blocked",  "error"};

struct ResourceStatus {
  std::string status;                   // one of kResourceStatuses
  // Omitted from the file when empty. Strings: the spec names no richer
  // shape (inferred).
  std::vector<std::string> conditions;
  std::optional<std::string> message;
  bool operator==(const ResourceStatus&) const = default;
};

// An approval artifact's consumption (§2.2 "approval record").
struct ApprovalRecord {
  std::string consumed_at;            // RFC 3339 UTC
  std::string consumed_by_operation;  // "apply" or a recovery sidecar's operation id
  bool operator==(const ApprovalRecord&) const = default;
};

// A recovery the sweep settled (§2.2, §6.2), keyed by operation id.
struct RecoveryRecord {
  std::string kind;  // graph_create | schema_apply | graph_delete
  std::string graph_id;
  std::string outcome;  // "rolled_forward"
  std::string recovered_at;
  std::optional<std::string> actor;
  bool operator==(const RecoveryRecord&) const = default;
};

// What a command saw of a graph (kind "graph"), or the tombstone of a
// deleted one (kind "tombstone"); keyed by resource address.
struct Observation {
  std::string kind;  // "graph" | "tombstone"
  // kind "graph" (every key is written; nulls allowed):
  std::string address;
  std::optional<std::string> graph_uri;
  std::optional<std::string> observed_at;
  std::optional<bool> exists;
  std::optional<uint64_t> graph_manifest_version;
  std::optional<std::string> schema_digest;
  std::optional<std::string> desired_schema_digest;
  std::optional<bool> schema_matches_desired;
  std::optional<std::string> error;
  // kind "tombstone":
  std::optional<std::string> deleted_at;
  std::optional<std::string> approval_id;
  std::optional<std::string> actor;
  bool operator==(const Observation&) const = default;
};

struct ClusterState {
  uint32_t version = 1;
  uint64_t state_revision = 0;
  std::optional<std::string> config_digest;          // applied_revision.config_digest
  std::map<std::string, StateResource> resources;    // applied_revision.resources, by address
  std::map<std::string, ResourceStatus> resource_statuses;
  std::map<std::string, ApprovalRecord> approval_records;
  std::map<std::string, RecoveryRecord> recovery_records;
  std::map<std::string, Observation> observations;
  bool operator==(const ClusterState&) const = default;
};

// Decodes state.json bytes. A legacy observation key `manifest_version` is
// read as `graph_manifest_version`. Errors (detail "code"):
// invalid_state_json (not JSON, an unknown field, a wrong type, a missing
// field, an unknown status or observation kind; the message names the
// JSON path), unsupported_state_version (version other than 1),
// conflicting_graph_manifest_observation (both spellings of the manifest
// version in one observation, with different values).
Result<ClusterState> ParseState(std::string_view bytes);

// The file bytes of `state`: pretty JSON, two-space indent, trailing newline.
std::string SerializeState(const ClusterState& state);

// The compact JSON of a statuses or observations map exactly as state.json
// holds it (§2.2); commands print these in their reports (§4.2, §4.6).
std::string ResourceStatusesJson(const std::map<std::string, ResourceStatus>& resource_statuses);
std::string ObservationsJson(const std::map<std::string, Observation>& observations);

// "sha256:" + lower-case hex SHA-256 of `bytes`: the CAS token of a ledger file.
std::string StateCas(std::string_view bytes);

// The ledger as read: absent, or its state and CAS token.
struct StateRead {
  std::optional<ClusterState> state;
  std::optional<std::string> cas;  // set iff state is
};

// Reads `root`/__cluster/state.json from `store`. A missing file is no
// state. Errors: state_read_error (storage), and those of ParseState.
Result<StateRead> ReadState(ObjectStore& store, const std::string& root);

// Writes `state` if the ledger still is what the command read (§2.3):
// `expected_cas` nullopt means "was absent". Re-reads the file first; a
// different presence or CAS token is state_cas_mismatch "state.json changed
// while the command was running; re-run the command against the latest
// state". Absent → create-if-absent (a racing creator also yields
// state_cas_mismatch); present → atomic replace. Returns the new CAS token.
// Errors: state_cas_mismatch, state_write_error, state_read_error.
// REQUIRES: the cluster state lock (state_lock.h) when the file exists, or
// `state.lock: false` accepted by the caller (the local replace compares
// then replaces, which only the lock makes atomic).
Result<std::string> WriteState(ObjectStore& store, const std::string& root, const ClusterState& state,
                               const std::optional<std::string>& expected_cas);

}  // namespace omnigraph::cluster
