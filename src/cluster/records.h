// Recovery sidecars and approval artifacts under the storage root
// (spec/cluster.md §2.6, §2.7): strict pretty JSON files, one per
// operation or approval, listed sorted by name. A file that cannot be read
// or decoded is reported and left in place (never deleted or rewritten by
// a listing), so an operator can inspect it.
//
// Failures carry the spec's code as the Status detail kClusterCodeDetail
// (state.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::cluster {

inline constexpr std::string_view kRecoveriesDir = "__cluster/recoveries";
inline constexpr std::string_view kApprovalsDir = "__cluster/approvals";

// A mutating graph operation in flight (§2.6), written before its effect
// and deleted (or settled by the recovery sweep, §6.2) after it.
struct RecoverySidecar {
  uint32_t schema_version = 1;
  std::string operation_id;  // ULID; the file is <operation_id>.json
  std::string started_at;    // RFC 3339 UTC
  std::optional<std::string> actor;
  std::string kind;  // graph_create | schema_apply | graph_delete
  std::string graph_id;
  std::string graph_uri;
  std::optional<uint64_t> observed_manifest_version;
  std::optional<uint64_t> expected_manifest_version;
  std::string desired_schema_digest;  // "" for deletes
  std::optional<std::string> state_cas_base;  // forensic only
  std::optional<std::string> approval_id;
  bool operator==(const RecoverySidecar&) const = default;
};

// An operator's approval of a destructive change (§2.7).
struct ApprovalArtifact {
  uint32_t schema_version = 1;
  std::string approval_id;  // ULID; the file is <approval_id>.json
  std::string resource;     // address, e.g. "graph.spike"
  std::string operation;    // "delete"
  std::string reason;
  std::string bound_config_digest;
  std::optional<std::string> bound_before_digest;
  std::optional<std::string> bound_after_digest;  // null for deletes
  std::optional<std::string> approved_by;
  std::string created_at;
  std::optional<std::string> consumed_at;            // null until consumed
  std::optional<std::string> consumed_by_operation;  // null until consumed
  bool operator==(const ApprovalArtifact&) const = default;
};

// Decoding and encoding (pretty, two-space indent, trailing newline).
// `where` names the file in messages. Errors: invalid_recovery_sidecar /
// invalid_approval_artifact (not JSON, an unknown or missing field, a
// wrong type, an unknown kind or operation), unsupported_recovery_sidecar_version
// / unsupported_approval_version (schema_version other than 1).
Result<RecoverySidecar> ParseRecoverySidecar(std::string_view bytes, std::string_view where);
std::string SerializeRecoverySidecar(const RecoverySidecar& sidecar);
Result<ApprovalArtifact> ParseApprovalArtifact(std::string_view bytes, std::string_view where);
std::string SerializeApprovalArtifact(const ApprovalArtifact& artifact);

// A directory listing: the files that decoded, sorted by name, and one
// coded Status per file that did not (read errors carry
// recovery_sidecar_read_error / approval_read_error).
template <typename T>
struct RecordListing {
  std::vector<T> records;
  std::vector<Status> problems;
};

// Every `*.json` under `root`/kRecoveriesDir (no directory: none).
// Errors: recovery_sidecar_read_error when the directory cannot be listed.
Result<RecordListing<RecoverySidecar>> ListRecoverySidecars(ObjectStore& store, const std::string& root);
// Every `*.json` under `root`/kApprovalsDir. Errors: approval_read_error.
Result<RecordListing<ApprovalArtifact>> ListApprovalArtifacts(ObjectStore& store, const std::string& root);

// Writes the sidecar or artifact atomically under its id (replacing an
// earlier version of the same file: consumption rewrites an artifact).
// Errors: state_write_error.
Status WriteRecoverySidecar(ObjectStore& store, const std::string& root, const RecoverySidecar& sidecar);
Status WriteApprovalArtifact(ObjectStore& store, const std::string& root, const ApprovalArtifact& artifact);

// Deletes the sidecar of `operation_id` (a missing file is success): the
// operation completed, or the recovery sweep retired it (§6.2).
// Errors: state_write_error.
Status DeleteRecoverySidecar(ObjectStore& store, const std::string& root, const std::string& operation_id);

}  // namespace omnigraph::cluster
