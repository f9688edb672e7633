#include "cluster/state.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/strict_json.h"
#include "util/sha256.h"

namespace omnigraph::cluster {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

const StrictJson kStrict("invalid_state_json", "invalid state.json");

// The entries of the map member `key` of `object` (absent = empty), each
// decoded by `decode`.
template <typename T, typename Decode>
Status DecodeMap(const Json& object, std::string_view path, std::string_view key, std::map<std::string, T>* out,
                 Decode decode) {
  auto map = object.find(std::string(key));
  if (map == object.end()) return Status::OK();
  const std::string map_path = StrictJson::Child(path, key);
  OG_RETURN_IF_ERROR(kStrict.ExpectObject(*map, map_path));
  for (const auto& [name, value] : map->items()) {
    const std::string entry_path = fmt::format("{}.{}", map_path, name);
    OG_RETURN_IF_ERROR(kStrict.ExpectObject(value, entry_path));
    OG_ASSIGN_OR_RETURN(T decoded, decode(value, entry_path));
    out->emplace(name, std::move(decoded));
  }
  return Status::OK();
}

Status StateReadError(const std::string& key, const Status& cause) {
  return WithClusterCode(IoError(fmt::format("could not read {}: {}", key, cause.message())), "state_read_error");
}

// A list of strings member (absent = nullopt).
Result<std::optional<std::vector<std::string>>> OptionalStrings(const Json& object, const std::string& path,
                                                               std::string_view key) {
  auto list = object.find(std::string(key));
  if (list == object.end()) return std::optional<std::vector<std::string>>();
  const std::string list_path = StrictJson::Child(path, key);
  if (!list->is_array()) return kStrict.Invalid(list_path, "expected a list of strings");
  std::vector<std::string> strings;
  for (const Json& item : *list) {
    if (!item.is_string()) return kStrict.Invalid(list_path, "expected a list of strings");
    strings.push_back(item.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(strings));
}

// The ledger keeps a profile and an external-blob policy as the compact
// JSON the planner wrote (§1.8 and §1.5 key orders), which the graph
// composite hashes and the planner compares as text; the reader sorts
// object keys, so they are re-emitted in the writer's order (other keys,
// which the writer never produces, follow sorted).
OrderedJson InKeyOrder(const Json& object, std::initializer_list<std::string_view> order) {
  OrderedJson ordered = OrderedJson::object();
  for (std::string_view key : order) {
    if (auto found = object.find(std::string(key)); found != object.end()) ordered[std::string(key)] = *found;
  }
  for (const auto& [key, item] : object.items()) {
    if (!ordered.contains(key)) ordered[key] = item;
  }
  return ordered;
}

Result<StateResource> DecodeResource(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path,
                                      {"digest", "applies_to", "embedding_provider", "embedding_profile",
                                       "external_blob_policy"}));
  StateResource resource;
  OG_ASSIGN_OR_RETURN(resource.digest, kStrict.RequiredString(value, path, "digest"));
  OG_ASSIGN_OR_RETURN(resource.applies_to, OptionalStrings(value, path, "applies_to"));
  OG_ASSIGN_OR_RETURN(resource.embedding_provider, kStrict.OptionalString(value, path, "embedding_provider"));
  if (auto profile = value.find("embedding_profile"); profile != value.end()) {
    OG_RETURN_IF_ERROR(kStrict.ExpectObject(*profile, StrictJson::Child(path, "embedding_profile")));
    resource.embedding_profile = InKeyOrder(*profile, {"kind", "base_url", "model", "api_key"}).dump();
  }
  if (auto policy = value.find("external_blob_policy"); policy != value.end()) {
    OG_RETURN_IF_ERROR(kStrict.ExpectObject(*policy, StrictJson::Child(path, "external_blob_policy")));
    OrderedJson ordered = InKeyOrder(*policy, {"mode", "bases"});
    if (auto bases = policy->find("bases"); bases != policy->end() && bases->is_array()) {
      OrderedJson list = OrderedJson::array();
      for (const Json& base : *bases) {
        list.push_back(base.is_object() ? InKeyOrder(base, {"uri", "scope"}) : OrderedJson(base));
      }
      ordered["bases"] = std::move(list);
    }
    resource.external_blob_policy = ordered.dump();
  }
  return resource;
}

Result<ResourceStatus> DecodeStatus(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path, {"status", "conditions", "message"}));
  ResourceStatus status;
  OG_ASSIGN_OR_RETURN(status.status, kStrict.RequiredString(value, path, "status"));
  if (std::find(std::begin(kResourceStatuses), std::end(kResourceStatuses), status.status) ==
      std::end(kResourceStatuses)) {
    return kStrict.Invalid(path + ".status", fmt::format("unknown status `{}`", status.status));
  }
  OG_ASSIGN_OR_RETURN(std::optional<std::vector<std::string>> conditions,
                      OptionalStrings(value, path, "conditions"));
  if (conditions) status.conditions = std::move(*conditions);
  OG_ASSIGN_OR_RETURN(status.message, kStrict.OptionalString(value, path, "message"));
  return status;
}

Result<ApprovalRecord> DecodeApproval(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path, {"consumed_at", "consumed_by_operation"}));
  ApprovalRecord record;
  OG_ASSIGN_OR_RETURN(record.consumed_at, kStrict.RequiredString(value, path, "consumed_at"));
  OG_ASSIGN_OR_RETURN(record.consumed_by_operation, kStrict.RequiredString(value, path, "consumed_by_operation"));
  return record;
}

Result<RecoveryRecord> DecodeRecovery(const Json& value, const std::string& path) {
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path, {"kind", "graph_id", "outcome", "recovered_at", "actor"}));
  RecoveryRecord record;
  OG_ASSIGN_OR_RETURN(record.kind, kStrict.RequiredString(value, path, "kind"));
  OG_ASSIGN_OR_RETURN(record.graph_id, kStrict.RequiredString(value, path, "graph_id"));
  OG_ASSIGN_OR_RETURN(record.outcome, kStrict.RequiredString(value, path, "outcome"));
  OG_ASSIGN_OR_RETURN(record.recovered_at, kStrict.RequiredString(value, path, "recovered_at"));
  OG_ASSIGN_OR_RETURN(record.actor, kStrict.OptionalString(value, path, "actor"));
  return record;
}

Result<Observation> DecodeObservation(const Json& value, const std::string& path) {
  Observation observation;
  OG_ASSIGN_OR_RETURN(observation.kind, kStrict.RequiredString(value, path, "kind"));
  if (observation.kind == "tombstone") {
    OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path, {"kind", "deleted_at", "approval_id", "actor"}));
    OG_ASSIGN_OR_RETURN(observation.deleted_at, kStrict.OptionalString(value, path, "deleted_at"));
    OG_ASSIGN_OR_RETURN(observation.approval_id, kStrict.OptionalString(value, path, "approval_id"));
    OG_ASSIGN_OR_RETURN(observation.actor, kStrict.OptionalString(value, path, "actor"));
    return observation;
  }
  if (observation.kind != "graph") {
    return kStrict.Invalid(path + ".kind", fmt::format("unknown kind `{}`", observation.kind));
  }
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(value, path,
                              {"kind", "address", "graph_uri", "observed_at", "exists", "graph_manifest_version",
                               "manifest_version", "schema_digest", "desired_schema_digest", "schema_matches_desired",
                               "error"}));
  OG_ASSIGN_OR_RETURN(observation.address, kStrict.RequiredString(value, path, "address"));
  OG_ASSIGN_OR_RETURN(observation.graph_uri, kStrict.OptionalString(value, path, "graph_uri"));
  OG_ASSIGN_OR_RETURN(observation.observed_at, kStrict.OptionalString(value, path, "observed_at"));
  OG_ASSIGN_OR_RETURN(observation.exists, kStrict.OptionalBool(value, path, "exists"));
  // The legacy spelling `manifest_version` reads as graph_manifest_version.
  std::optional<std::optional<uint64_t>> current, legacy;
  if (value.contains("graph_manifest_version")) {
    OG_ASSIGN_OR_RETURN(current, kStrict.OptionalUnsigned(value, path, "graph_manifest_version"));
  }
  if (value.contains("manifest_version")) {
    OG_ASSIGN_OR_RETURN(legacy, kStrict.OptionalUnsigned(value, path, "manifest_version"));
  }
  if (current && legacy && *current != *legacy) {
    return WithClusterCode(InvalidArgument(fmt::format(
                     "invalid state.json: {}: `manifest_version` and `graph_manifest_version` disagree", path)),
                 "conflicting_graph_manifest_observation");
  }
  observation.graph_manifest_version = current ? *current : legacy ? *legacy : std::nullopt;
  OG_ASSIGN_OR_RETURN(observation.schema_digest, kStrict.OptionalString(value, path, "schema_digest"));
  OG_ASSIGN_OR_RETURN(observation.desired_schema_digest, kStrict.OptionalString(value, path, "desired_schema_digest"));
  OG_ASSIGN_OR_RETURN(observation.schema_matches_desired, kStrict.OptionalBool(value, path, "schema_matches_desired"));
  OG_ASSIGN_OR_RETURN(observation.error, kStrict.OptionalString(value, path, "error"));
  return observation;
}

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
  OG_RETURN_IF_ERROR(kStrict.ExpectObject(root, "$"));
  OG_ASSIGN_OR_RETURN(uint64_t version, kStrict.RequiredUnsigned(root, "$", "version"));
  if (version != 1) {
    return WithClusterCode(
        InvalidArgument(fmt::format("unsupported state.json version {}; this build supports version 1", version)),
        "unsupported_state_version");
  }
  OG_RETURN_IF_ERROR(kStrict.OnlyKeys(root, "$",
                              {"version", "state_revision", "applied_revision", "resource_statuses", "approval_records",
                               "recovery_records", "observations"}));
  ClusterState state;
  if (root.contains("state_revision")) {
    OG_ASSIGN_OR_RETURN(state.state_revision, kStrict.RequiredUnsigned(root, "$", "state_revision"));
  }
  if (auto applied = root.find("applied_revision"); applied != root.end()) {
    OG_RETURN_IF_ERROR(kStrict.ExpectObject(*applied, "applied_revision"));
    OG_RETURN_IF_ERROR(kStrict.OnlyKeys(*applied, "applied_revision", {"config_digest", "resources"}));
    OG_ASSIGN_OR_RETURN(state.config_digest, kStrict.OptionalString(*applied, "applied_revision", "config_digest"));
    OG_RETURN_IF_ERROR(DecodeMap(*applied, "applied_revision", "resources", &state.resources, DecodeResource));
  }
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "resource_statuses", &state.resource_statuses, DecodeStatus));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "approval_records", &state.approval_records, DecodeApproval));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "recovery_records", &state.recovery_records, DecodeRecovery));
  OG_RETURN_IF_ERROR(DecodeMap(root, "", "observations", &state.observations, DecodeObservation));
  return state;
}

namespace {

OrderedJson StatusesObject(const std::map<std::string, ResourceStatus>& resource_statuses) {
  OrderedJson statuses = OrderedJson::object();
  for (const auto& [address, status] : resource_statuses) {
    OrderedJson s;
    s["status"] = status.status;
    if (!status.conditions.empty()) s["conditions"] = status.conditions;
    if (status.message) s["message"] = *status.message;
    statuses[address] = std::move(s);
  }
  return statuses;
}

OrderedJson ObservationsObject(const std::map<std::string, Observation>& state_observations) {
  OrderedJson observations = OrderedJson::object();
  for (const auto& [address, o] : state_observations) {
    if (o.kind == "tombstone") {
      observations[address] = {{"kind", o.kind},
                               {"deleted_at", NullableJson(o.deleted_at)},
                               {"approval_id", NullableJson(o.approval_id)},
                               {"actor", NullableJson(o.actor)}};
      continue;
    }
    observations[address] = {{"kind", o.kind},
                             {"address", o.address},
                             {"graph_uri", NullableJson(o.graph_uri)},
                             {"observed_at", NullableJson(o.observed_at)},
                             {"exists", NullableJson(o.exists)},
                             {"graph_manifest_version", o.graph_manifest_version
                                                            ? OrderedJson(*o.graph_manifest_version)
                                                            : OrderedJson(nullptr)},
                             {"schema_digest", NullableJson(o.schema_digest)},
                             {"desired_schema_digest", NullableJson(o.desired_schema_digest)},
                             {"schema_matches_desired", NullableJson(o.schema_matches_desired)},
                             {"error", NullableJson(o.error)}};
  }
  return observations;
}

}  // namespace

std::string ResourceStatusesJson(const std::map<std::string, ResourceStatus>& resource_statuses) {
  return StatusesObject(resource_statuses).dump();
}

std::string ObservationsJson(const std::map<std::string, Observation>& observations) {
  return ObservationsObject(observations).dump();
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
  root["applied_revision"] = {{"config_digest", NullableJson(state.config_digest)},
                              {"resources", std::move(resources)}};
  root["resource_statuses"] = StatusesObject(state.resource_statuses);
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
                      {"actor", NullableJson(record.actor)}};
  }
  root["recovery_records"] = std::move(recoveries);
  root["observations"] = ObservationsObject(state.observations);
  return root.dump(2) + "\n";
}

std::string StateCas(std::string_view bytes) { return "sha256:" + Sha256Hex(bytes); }

Result<StateRead> ReadState(ObjectStore& store, const std::string& root) {
  const std::string key = JoinPath(root, kStateKey);
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) return StateRead{};
    return StateReadError(key, bytes.status());
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
    return StateReadError(key, bytes.status());
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
