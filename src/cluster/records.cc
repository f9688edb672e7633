#include "cluster/records.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/state.h"
#include "cluster/strict_json.h"

namespace omnigraph::cluster {
namespace {

using Json = StrictJson::Json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kSidecarKinds[] = {"graph_create", "schema_apply", "graph_delete"};

// schema_version must be 1 (checked before any other field, so a newer
// file is "unsupported", not "invalid").
Status CheckSchemaVersion(const StrictJson& strict, const Json& root, std::string_view where,
                          std::string_view unsupported_code, std::string_view what) {
  OG_ASSIGN_OR_RETURN(uint64_t version, strict.RequiredUnsigned(root, "$", "schema_version"));
  if (version == 1) return Status::OK();
  return WithClusterCode(InvalidArgument(fmt::format("{}: unsupported {} schema_version {}; this build supports 1",
                                                     where, what, version)),
                         unsupported_code);
}

// Lists `dir`'s `*.json` files, sorted, decoding each with `parse`.
template <typename T, typename Parse>
Result<RecordListing<T>> ListRecords(ObjectStore& store, const std::string& dir, std::string_view read_error_code,
                                     Parse parse) {
  RecordListing<T> listing;
  auto names = store.ListNames(dir);
  if (!names.ok()) {
    if (names.status().code() == ErrorCode::kNotFound) return listing;
    return WithClusterCode(IoError(fmt::format("could not list {}: {}", dir, names.status().message())),
                           read_error_code);
  }
  std::vector<std::string> sorted = *names;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& name : sorted) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".json") continue;
    const std::string key = JoinPath(dir, name);
    auto bytes = store.Get(key);
    if (!bytes.ok()) {
      listing.problems.push_back(
          WithClusterCode(IoError(fmt::format("could not read {}: {}", key, bytes.status().message())),
                          read_error_code));
      continue;
    }
    auto record = parse((*bytes)->view(), key);
    if (!record.ok()) {
      listing.problems.push_back(record.status());
      continue;
    }
    listing.records.push_back(std::move(*record));
  }
  return listing;
}

Status WriteRecord(ObjectStore& store, const std::string& key, const std::string& bytes) {
  Status written = store.Put(key, bytes);
  if (written.ok()) return written;
  return WithClusterCode(IoError(fmt::format("could not write {}: {}", key, written.message())), "state_write_error");
}

}  // namespace

Result<RecoverySidecar> ParseRecoverySidecar(std::string_view bytes, std::string_view where) {
  const StrictJson strict("invalid_recovery_sidecar", fmt::format("invalid recovery sidecar {}", where));
  OG_ASSIGN_OR_RETURN(Json root, strict.ParseObject(bytes));
  OG_RETURN_IF_ERROR(CheckSchemaVersion(strict, root, where, "unsupported_recovery_sidecar_version",
                                        "recovery sidecar"));
  OG_RETURN_IF_ERROR(strict.OnlyKeys(
      root, "$",
      {"schema_version", "operation_id", "started_at", "actor", "kind", "graph_id", "graph_uri",
       "observed_manifest_version", "expected_manifest_version", "desired_schema_digest", "state_cas_base",
       "approval_id"}));
  RecoverySidecar sidecar;
  OG_ASSIGN_OR_RETURN(sidecar.operation_id, strict.RequiredString(root, "$", "operation_id"));
  OG_ASSIGN_OR_RETURN(sidecar.started_at, strict.RequiredString(root, "$", "started_at"));
  OG_ASSIGN_OR_RETURN(sidecar.actor, strict.OptionalString(root, "$", "actor"));
  OG_ASSIGN_OR_RETURN(sidecar.kind, strict.RequiredString(root, "$", "kind"));
  if (std::find(std::begin(kSidecarKinds), std::end(kSidecarKinds), sidecar.kind) == std::end(kSidecarKinds)) {
    return strict.Invalid("kind", fmt::format("unknown kind `{}`", sidecar.kind));
  }
  OG_ASSIGN_OR_RETURN(sidecar.graph_id, strict.RequiredString(root, "$", "graph_id"));
  OG_ASSIGN_OR_RETURN(sidecar.graph_uri, strict.RequiredString(root, "$", "graph_uri"));
  OG_ASSIGN_OR_RETURN(sidecar.observed_manifest_version,
                      strict.OptionalUnsigned(root, "$", "observed_manifest_version"));
  OG_ASSIGN_OR_RETURN(sidecar.expected_manifest_version,
                      strict.OptionalUnsigned(root, "$", "expected_manifest_version"));
  OG_ASSIGN_OR_RETURN(sidecar.desired_schema_digest, strict.RequiredString(root, "$", "desired_schema_digest"));
  OG_ASSIGN_OR_RETURN(sidecar.state_cas_base, strict.OptionalString(root, "$", "state_cas_base"));
  OG_ASSIGN_OR_RETURN(sidecar.approval_id, strict.OptionalString(root, "$", "approval_id"));
  return sidecar;
}

std::string SerializeRecoverySidecar(const RecoverySidecar& sidecar) {
  OrderedJson root;
  root["schema_version"] = sidecar.schema_version;
  root["operation_id"] = sidecar.operation_id;
  root["started_at"] = sidecar.started_at;
  root["actor"] = NullableJson(sidecar.actor);
  root["kind"] = sidecar.kind;
  root["graph_id"] = sidecar.graph_id;
  root["graph_uri"] = sidecar.graph_uri;
  root["observed_manifest_version"] = NullableJson(sidecar.observed_manifest_version);
  root["expected_manifest_version"] = NullableJson(sidecar.expected_manifest_version);
  root["desired_schema_digest"] = sidecar.desired_schema_digest;
  root["state_cas_base"] = NullableJson(sidecar.state_cas_base);
  root["approval_id"] = NullableJson(sidecar.approval_id);
  return root.dump(2) + "\n";
}

Result<ApprovalArtifact> ParseApprovalArtifact(std::string_view bytes, std::string_view where) {
  const StrictJson strict("invalid_approval_artifact", fmt::format("invalid approval artifact {}", where));
  OG_ASSIGN_OR_RETURN(Json root, strict.ParseObject(bytes));
  OG_RETURN_IF_ERROR(CheckSchemaVersion(strict, root, where, "unsupported_approval_version", "approval artifact"));
  OG_RETURN_IF_ERROR(strict.OnlyKeys(root, "$",
                                     {"schema_version", "approval_id", "resource", "operation", "reason",
                                      "bound_config_digest", "bound_before_digest", "bound_after_digest",
                                      "approved_by", "created_at", "consumed_at", "consumed_by_operation"}));
  ApprovalArtifact artifact;
  OG_ASSIGN_OR_RETURN(artifact.approval_id, strict.RequiredString(root, "$", "approval_id"));
  OG_ASSIGN_OR_RETURN(artifact.resource, strict.RequiredString(root, "$", "resource"));
  OG_ASSIGN_OR_RETURN(artifact.operation, strict.RequiredString(root, "$", "operation"));
  if (artifact.operation != "delete") {
    return strict.Invalid("operation", fmt::format("unknown operation `{}`", artifact.operation));
  }
  OG_ASSIGN_OR_RETURN(artifact.reason, strict.RequiredString(root, "$", "reason"));
  OG_ASSIGN_OR_RETURN(artifact.bound_config_digest, strict.RequiredString(root, "$", "bound_config_digest"));
  OG_ASSIGN_OR_RETURN(artifact.bound_before_digest, strict.OptionalString(root, "$", "bound_before_digest"));
  OG_ASSIGN_OR_RETURN(artifact.bound_after_digest, strict.OptionalString(root, "$", "bound_after_digest"));
  OG_ASSIGN_OR_RETURN(artifact.approved_by, strict.OptionalString(root, "$", "approved_by"));
  OG_ASSIGN_OR_RETURN(artifact.created_at, strict.RequiredString(root, "$", "created_at"));
  OG_ASSIGN_OR_RETURN(artifact.consumed_at, strict.OptionalString(root, "$", "consumed_at"));
  OG_ASSIGN_OR_RETURN(artifact.consumed_by_operation, strict.OptionalString(root, "$", "consumed_by_operation"));
  return artifact;
}

std::string SerializeApprovalArtifact(const ApprovalArtifact& artifact) {
  OrderedJson root;
  root["schema_version"] = artifact.schema_version;
  root["approval_id"] = artifact.approval_id;
  root["resource"] = artifact.resource;
  root["operation"] = artifact.operation;
  root["reason"] = artifact.reason;
  root["bound_config_digest"] = artifact.bound_config_digest;
  root["bound_before_digest"] = NullableJson(artifact.bound_before_digest);
  root["bound_after_digest"] = NullableJson(artifact.bound_after_digest);
  root["approved_by"] = NullableJson(artifact.approved_by);
  root["created_at"] = artifact.created_at;
  root["consumed_at"] = NullableJson(artifact.consumed_at);
  root["consumed_by_operation"] = NullableJson(artifact.consumed_by_operation);
  return root.dump(2) + "\n";
}

Result<RecordListing<RecoverySidecar>> ListRecoverySidecars(ObjectStore& store, const std::string& root) {
  return ListRecords<RecoverySidecar>(store, JoinPath(root, kRecoveriesDir), "recovery_sidecar_read_error",
                                      ParseRecoverySidecar);
}

Result<RecordListing<ApprovalArtifact>> ListApprovalArtifacts(ObjectStore& store, const std::string& root) {
  return ListRecords<ApprovalArtifact>(store, JoinPath(root, kApprovalsDir), "approval_read_error",
                                       ParseApprovalArtifact);
}

Status WriteRecoverySidecar(ObjectStore& store, const std::string& root, const RecoverySidecar& sidecar) {
  return WriteRecord(store, JoinPath(JoinPath(root, kRecoveriesDir), sidecar.operation_id + ".json"),
                     SerializeRecoverySidecar(sidecar));
}

Status WriteApprovalArtifact(ObjectStore& store, const std::string& root, const ApprovalArtifact& artifact) {
  return WriteRecord(store, JoinPath(JoinPath(root, kApprovalsDir), artifact.approval_id + ".json"),
                     SerializeApprovalArtifact(artifact));
}

Status DeleteRecoverySidecar(ObjectStore& store, const std::string& root, const std::string& operation_id) {
  const std::string key = JoinPath(JoinPath(root, kRecoveriesDir), operation_id + ".json");
  Status removed = store.Delete(key);
  if (removed.ok() || removed.code() == ErrorCode::kNotFound) return Status::OK();
  return WithClusterCode(IoError(fmt::format("could not delete {}: {}", key, removed.message())), "state_write_error");
}

}  // namespace omnigraph::cluster
