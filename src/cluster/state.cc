#include "cluster/state.h"

#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/sha256.h"

namespace omnigraph::cluster {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

Status Invalid(const std::string& path, std::string_view what) {
  return WithClusterCode(InvalidArgument(fmt::format("invalid state.json: {}: {}", path, what)), "invalid_state_json");
}

// Refuses any key of `object` outside `allowed`.
Status OnlyKeys(const Json& object, const std::string& path, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Invalid(path, fmt::format("unknown field `{}`", key));
    }
  }
  return Status::OK();
}

Status ExpectObject(const Json& value, const std::string& path) {
  return value.is_object() ? Status::OK() : Invalid(path, "expected an object");
}

// The member `key` of `object`; absent → nullptr (or an error when required).
Result<const Json*> Member(const Json& object, const std::string& path, std::string_view key, bool required) {
  auto it = object.find(std::string(key));
  if (it == object.end()) {
    if (required) return Invalid(path, fmt::format("missing field `{}`", key));
    return static_cast<const Json*>(nullptr);
  }
  return &*it;
}

Result<std::string> RequiredString(const Json& object, const std::string& path, std::string_view key) {
  OG_ASSIGN_OR_RETURN(const Json* value, Member(object, path, key, true));
  if (!value->is_string()) return Invalid(fmt::format("{}.{}", path, key), "expected a string");
  return value->get<std::string>();
}

// An optional string: absent and null both read as unset.
Result<std::optional<std::string>> OptionalString(const Json& object, const std::string& path, std::string_view key) {
  OG_ASSIGN_OR_RETURN(const Json* value, Member(object, path, key, false));
  if (value == nullptr || value->is_null()) return std::optional<std::string>();
  if (!value->is_string()) return Invalid(fmt::format("{}.{}", path, key), "expected a string or null");
  return std::optional<std::string>(value->get<std::string>());
}

Result<std::optional<bool>> OptionalBool(const Json& object, const std::string& path, std::string_view key) {
  OG_ASSIGN_OR_RETURN(const Json* value, Member(object, path, key, false));
  if (value == nullptr || value->is_null()) return std::optional<bool>();
  if (!value->is_boolean()) return Invalid(fmt::format("{}.{}", path, key), "expected a boolean or null");
  return std::optional<bool>(value->get<bool>());
}

Result<std::optional<uint64_t>> OptionalUnsigned(const Json& value, const std::string& path) {
  if (value.is_null()) return std::optional<uint64_t>();
  if (!value.is_number_unsigned()) return Invalid(path, "expected an unsigned integer or null");
  return std::optional<uint64_t>(value.get<uint64_t>());
}

// The entries of the map member `key` (absent = empty), each decoded by `decode`.
template <typename T, typename Decode>
Status DecodeMap(const Json& object, const std::string& path, std::string_view key, std::map<std::string, T>* out,
                 Decode decode) {
  OG_ASSIGN_OR_RETURN(const Json* map, Member(object, path, key, false));
  if (map == nullptr) return Status::OK();
  const std::string map_path = path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  OG_RETURN_IF_ERROR(ExpectObject(*map, map_path));
  for (const auto& [name, value] : map->items()) {
    const std::string entry_path = fmt::format("{}.{}", map_path, name);
    OG_RETURN_IF_ERROR(ExpectObject(value, entry_path));
    OG_ASSIGN_OR_RETURN(T decoded, decode(value, entry_path));
    out->emplace(name, std::move(decoded));
  }
  return Status::OK();
}

Result<StateResource> DecodeResource(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(OnlyKeys(value, path,
                              {"digest", "applies_to", "embedding_provider", "embedding_profile", "external_blob_policy"}));
  StateResource resource;
  OG_ASSIGN_OR_RETURN(resource.digest, RequiredString(value, path, "digest"));
  OG_ASSIGN_OR_RETURN(const Json* applies_to, Member(value, path, "applies_to", false));
  if (applies_to != nullptr) {
    if (!applies_to->is_array()) return Invalid(path + ".applies_to", "expected a list of strings");
    std::vector<std::string> scopes;
    for (const Json& scope : *applies_to) {
      if (!scope.is_string()) return Invalid(path + ".applies_to", "expected a list of strings");
      scopes.push_back(scope.get<std::string>());
    }
    resource.applies_to = std::move(scopes);
  }
  OG_ASSIGN_OR_RETURN(resource.embedding_provider, OptionalString(value, path, "embedding_provider"));
  for (auto [key, slot] : {std::pair{"embedding_profile", &resource.embedding_profile},
                           std::pair{"external_blob_policy", &resource.external_blob_policy}}) {
    OG_ASSIGN_OR_RETURN(const Json* object, Member(value, path, key, false));
    if (object == nullptr) continue;
    OG_RETURN_IF_ERROR(ExpectObject(*object, fmt::format("{}.{}", path, key)));
    *slot = object->dump();
  }
  return resource;
}

Result<ResourceStatus> DecodeStatus(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(OnlyKeys(value, path, {"status", "conditions", "message"}));
  ResourceStatus status;
  OG_ASSIGN_OR_RETURN(status.status, RequiredString(value, path, "status"));
  if (std::find(std::begin(kResourceStatuses), std::end(kResourceStatuses), status.status) ==
      std::end(kResourceStatuses)) {
    return Invalid(path + ".status", fmt::format("unknown status `{}`", status.status));
  }
  OG_ASSIGN_OR_RETURN(const Json* conditions, Member(value, path, "conditions", false));
  if (conditions != nullptr) {
    if (!conditions->is_array()) return Invalid(path + ".conditions", "expected a list of strings");
    for (const Json& condition : *conditions) {
      if (!condition.is_string()) return Invalid(path + ".conditions", "expected a list of strings");
      status.conditions.push_back(condition.get<std::string>());
    }
  }
  OG_ASSIGN_OR_RETURN(status.message, OptionalString(value, path, "message"));
  return status;
}

Result<ApprovalRecord> DecodeApproval(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(OnlyKeys(value, path, {"consumed_at", "consumed_by_operation"}));
  ApprovalRecord record;
  OG_ASSIGN_OR_RETURN(record.consumed_at, RequiredString(value, path, "consumed_at"));
  OG_ASSIGN_OR_RETURN(record.consumed_by_operation, RequiredString(value, path, "consumed_by_operation"));
  return record;
}

Result<RecoveryRecord> DecodeRecovery(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(OnlyKeys(value, path, {"kind", "graph_id", "outcome", "recovered_at", "actor"}));
  RecoveryRecord record;
  OG_ASSIGN_OR_RETURN(record.kind, RequiredString(value, path, "kind"));
  OG_ASSIGN_OR_RETURN(record.graph_id, RequiredString(value, path, "graph_id"));
  OG_ASSIGN_OR_RETURN(record.outcome, RequiredString(value, path, "outcome"));
  OG_ASSIGN_OR_RETURN(record.recovered_at, RequiredString(value, path, "recovered_at"));
  OG_ASSIGN_OR_RETURN(record.actor, OptionalString(value, path, "actor"));
  return record;
}

Result<Observation> DecodeObservation(const Json& value, const std::string& path) {
  Observation observation;
  OG_ASSIGN_OR_RETURN(observation.kind, RequiredString(value, path, "kind"));
  if (observation.kind == "tombstone") {
    OG_RETURN_IF_ERROR(OnlyKeys(value, path, {"kind", "deleted_at", "approval_id", "actor"}));
    OG_ASSIGN_OR_RETURN(observation.deleted_at, OptionalString(value, path, "deleted_at"));
    OG_ASSIGN_OR_RETURN(observation.approval_id, OptionalString(value, path, "approval_id"));
    OG_ASSIGN_OR_RETURN(observation.actor, OptionalString(value, path, "actor"));
    return observation;
  }
  if (observation.kind != "graph") return Invalid(path + ".kind", fmt::format("unknown kind `{}`", observation.kind));
  OG_RETURN_IF_ERROR(OnlyKeys(value, path,
                              {"kind", "address", "graph_uri", "observed_at", "exists", "graph_manifest_version",
                               "manifest_version", "schema_digest", "desired_schema_digest", "schema_matches_desired",
                               "error"}));
  OG_ASSIGN_OR_RETURN(observation.address, RequiredString(value, path, "address"));
  OG_ASSIGN_OR_RETURN(observation.graph_uri, OptionalString(value, path, "graph_uri"));
  OG_ASSIGN_OR_RETURN(observation.observed_at, OptionalString(value, path, "observed_at"));
  OG_ASSIGN_OR_RETURN(observation.exists, OptionalBool(value, path, "exists"));
  // The legacy spelling `manifest_version` reads as graph_manifest_version.
  std::optional<std::optional<uint64_t>> current, legacy;
  if (auto it = value.find("graph_manifest_version"); it != value.end()) {
    OG_ASSIGN_OR_RETURN(current, OptionalUnsigned(*it, path + ".graph_manifest_version"));
  }
  if (auto it = value.find("manifest_version"); it != value.end()) {
    OG_ASSIGN_OR_RETURN(legacy, OptionalUnsigned(*it, path + ".manifest_version"));
  }
  if (current && legacy && *current != *legacy) {
    return WithClusterCode(InvalidArgument(fmt::format(
                     "invalid state.json: {}: `manifest_version` and `graph_manifest_version` disagree", path)),
                 "conflicting_graph_manifest_observation");
  }
  observation.graph_manifest_version = current ? *current : legacy ? *legacy : std::nullopt;
  OG_ASSIGN_OR_RETURN(observation.schema_digest, OptionalString(value, path, "schema_digest"));
  OG_ASSIGN_OR_RETURN(observation.desired_schema_digest, OptionalString(value, path, "desired_schema_digest"));
  OG_ASSIGN_OR_RETURN(observation.schema_matches_desired, OptionalBool(value, path, "schema_matches_desired"));
  OG_ASSIGN_OR_RETURN(observation.error, OptionalString(value, path, "error"));
  return observation;
}

OrderedJson Nullable(const std::optional<std::string>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

OrderedJson Nullable(const std::optional<bool>& value) { return value ? OrderedJson(*value) : OrderedJson(nullptr); }

}  // namespace

Status WithClusterCode(Status status, std::string_view code) {
  return status.WithDetail(std::string(kClusterCodeDetail), std::string(code));
}

std::string ClusterCodeOf(const Status& status) {
  auto it = status.details().find(std::string(kClusterCodeDetail));
  return it == status.details().end() ? std::string() : it->second;
}

Result<ClusterState> ParseState(std::string_view bytes) {
  Json root = Json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return WithClusterCode(InvalidArgument("invalid state.json: not valid JSON"), "invalid_state_json");
  }
  OG_RETURN_IF_ERROR(ExpectObject(root, "$"));
  OG_ASSIGN_OR_RETURN(const Json* version, Member(root, "$", "version", true));
  if (!version->is_number_unsigned()) return Invalid("version", "expected an unsigned integer");
  if (version->get<uint64_t>() != 1) {
    return WithClusterCode(InvalidArgument(fmt::format("unsupported state.json version {}; this build supports version 1",
                                             version->get<uint64_t>())),
                 "unsupported_state_version");
  }
  OG_RETURN_IF_ERROR(OnlyKeys(root, "$",
                              {"version", "state_revision", "applied_revision", "resource_statuses", "approval_records",
                               "recovery_records", "observations"}));
  ClusterState state;
  OG_ASSIGN_OR_RETURN(const Json* revision, Member(root, "$", "state_revision", false));
  if (revision != nullptr) {
    if (!revision->is_number_unsigned()) return Invalid("state_revision", "expected an unsigned integer");
    state.state_revision = revision->get<uint64_t>();
  }
  OG_ASSIGN_OR_RETURN(const Json* applied, Member(root, "$", "applied_revision", false));
  if (applied != nullptr) {
    OG_RETURN_IF_ERROR(ExpectObject(*applied, "applied_revision"));
    OG_RETURN_IF_ERROR(OnlyKeys(*applied, "applied_revision", {"config_digest", "resources"}));
    OG_ASSIGN_OR_RETURN(state.config_digest, OptionalString(*applied, "applied_revision", "config_digest"));
    OG_RETURN_IF_ERROR(DecodeMap(*applied, "applied_revision", "resources", &state.resources, DecodeResource));
  }
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "resource_statuses", &state.resource_statuses, DecodeStatus));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "approval_records", &state.approval_records, DecodeApproval));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "recovery_records", &state.recovery_records, DecodeRecovery));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "observations", &state.observations, DecodeObservation));
  return state;
}

std::string SerializeState(const ClusterState& state) {
  OrderedJson root;
  root["version"] = state.version;
  root["state_revision"] = state.state_revision;
  OrderedJson resources = OrderedJson::object();
  for (const auto& [address, resource] : state.resources) {
    OrderedJson r;
    r["digest"] = resource.digest;
    if (resource.applies_to) r["applies_to"] = *resource.applies_to;
    if (resource.embedding_provider) r["embedding_provider"] = *resource.embedding_provider;
    if (resource.embedding_profile) r["embedding_profile"] = OrderedJson::parse(*resource.embedding_profile);
    if (resource.external_blob_policy) r["external_blob_policy"] = OrderedJson::parse(*resource.external_blob_policy);
    resources[address] = std::move(r);
  }
  root["applied_revision"] = {{"config_digest", Nullable(state.config_digest)}, {"resources", std::move(resources)}};
  OrderedJson statuses = OrderedJson::object();
  for (const auto& [address, status] : state.resource_statuses) {
    OrderedJson s;
    s["status"] = status.status;
    if (!status.conditions.empty()) s["conditions"] = status.conditions;
    if (status.message) s["message"] = *status.message;
    statuses[address] = std::move(s);
  }
  root["resource_statuses"] = std::move(statuses);
  OrderedJson approvals = OrderedJson::object();
  for (const auto& [id, record] : state.approval_records) {
    approvals[id] = {{"consumed_at", record.consumed_at}, {"consumed_by_operation", record.consumed_by_operation}};
  }
  root["approval_records"] = std::move(approvals);
  OrderedJson recoveries = OrderedJson::object();
  for (const auto& [id, record] : state.recovery_records) {
    recoveries[id] = {{"kind", record.kind},
                      {"graph_id", record.graph_id},
                      {"outcome", record.outcome},
                      {"recovered_at", record.recovered_at},
                      {"actor", Nullable(record.actor)}};
  }
  root["recovery_records"] = std::move(recoveries);
  OrderedJson observations = OrderedJson::object();
  for (const auto& [address, o] : state.observations) {
    if (o.kind == "tombstone") {
      observations[address] = {{"kind", o.kind},
                               {"deleted_at", Nullable(o.deleted_at)},
                               {"approval_id", Nullable(o.approval_id)},
                               {"actor", Nullable(o.actor)}};
      continue;
    }
    observations[address] = {{"kind", o.kind},
                             {"address", o.address},
                             {"graph_uri", Nullable(o.graph_uri)},
                             {"observed_at", Nullable(o.observed_at)},
                             {"exists", Nullable(o.exists)},
                             {"graph_manifest_version", o.graph_manifest_version
                                                            ? OrderedJson(*o.graph_manifest_version)
                                                            : OrderedJson(nullptr)},
                             {"schema_digest", Nullable(o.schema_digest)},
                             {"desired_schema_digest", Nullable(o.desired_schema_digest)},
                             {"schema_matches_desired", Nullable(o.schema_matches_desired)},
                             {"error", Nullable(o.error)}};
  }
  root["observations"] = std::move(observations);
  return root.dump(2) + "\n";
}

std::string StateCas(std::string_view bytes) { return "sha256:" + Sha256Hex(bytes); }

Result<StateRead> ReadState(ObjectStore& store, const std::string& root) {
  const std::string key = JoinPath(root, kStateKey);
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) return StateRead{};
    return WithClusterCode(IoError(fmt::format("could not read {}: {}", key, bytes.status().message())), "state_read_error");
  }
  OG_ASSIGN_OR_RETURN(ClusterState state, ParseState((*bytes)->view()));
  return StateRead{std::move(state), StateCas((*bytes)->view())};
}

Result<std::string> WriteState(ObjectStore& store, const std::string& root, const ClusterState& state,
                               const std::optional<std::string>& expected_cas) {
  const Status mismatch = WithClusterCode(
      Status(ErrorCode::kConflict,
             "state.json changed while the command was running; re-run the command against the latest state"),
      "state_cas_mismatch");
  const std::string key = JoinPath(root, kStateKey);
  std::optional<std::string> current;
  auto bytes = store.Get(key);
  if (bytes.ok()) {
    current = StateCas((*bytes)->view());
  } else if (bytes.status().code() != ErrorCode::kNotFound) {
    return WithClusterCode(IoError(fmt::format("could not read {}: {}", key, bytes.status().message())), "state_read_error");
  }
  if (current != expected_cas) return mismatch;
  const std::string out = SerializeState(state);
  Status written = current ? store.Put(key, out) : store.PutIfAbsent(key, out);
  if (written.code() == ErrorCode::kAlreadyExists) return mismatch;
  if (!written.ok()) {
    return WithClusterCode(IoError(fmt::format("could not write {}: {}", key, written.message())), "state_write_error");
  }
  return StateCas(out);
}

}  // namespace omnigraph::cluster
