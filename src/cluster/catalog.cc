#include "cluster/catalog.h"

#include <fmt/format.h>

#include "cluster/state.h"
#include "compiler/source.h"
#include "util/sha256.h"

namespace omnigraph::cluster {

std::string QueryPayloadKey(const std::string& root, std::string_view graph, std::string_view name,
                            std::string_view digest) {
  return JoinPath(root, fmt::format("__cluster/resources/query/{}/{}/{}.gq", graph, name, digest));
}

std::string PolicyPayloadKey(const std::string& root, std::string_view policy, std::string_view digest) {
  return JoinPath(root, fmt::format("__cluster/resources/policy/{}/{}.yaml", policy, digest));
}

std::optional<std::string> PayloadKeyOf(const std::string& root, std::string_view address, std::string_view digest) {
  constexpr std::string_view kPolicy = "policy.";
  constexpr std::string_view kQuery = "query.";
  if (address.substr(0, kPolicy.size()) == kPolicy) return PolicyPayloadKey(root, address.substr(kPolicy.size()), digest);
  if (address.substr(0, kQuery.size()) != kQuery) return std::nullopt;
  const std::string_view rest = address.substr(kQuery.size());
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  return QueryPayloadKey(root, rest.substr(0, dot), rest.substr(dot + 1), digest);
}

Status StorePayload(ObjectStore& store, const std::string& key, std::string_view digest, std::string_view source) {
  auto existing = store.Head(key);
  if (existing.ok()) return Status::OK();  // immutable: the bytes of this digest are already there
  if (existing.status().code() != ErrorCode::kNotFound) {
    return WithClusterCode(IoError(fmt::format("could not inspect {}: {}", key, existing.status().message())),
                           "resource_payload_write_error");
  }
  if (Sha256Hex(source) != digest) {
    return WithClusterCode(
        Status(ErrorCode::kConflict,
               fmt::format("the source of {} changed since it was planned (digest {}); re-run the command", key,
                           digest)),
        "resource_content_changed");
  }
  if (compiler::FirstInvalidUtf8(source) != std::string_view::npos) {
    return WithClusterCode(InvalidArgument(fmt::format("the source of {} is not UTF-8", key)),
                           "resource_payload_write_error");
  }
  Status written = store.PutIfAbsent(key, source);
  if (written.ok() || written.code() == ErrorCode::kAlreadyExists) return Status::OK();
  return WithClusterCode(IoError(fmt::format("could not write {}: {}", key, written.message())),
                         "resource_payload_write_error");
}

Result<PayloadCheck> CheckPayload(ObjectStore& store, const std::string& key, std::string_view digest) {
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) return PayloadCheck::kMissing;
    return WithClusterCode(IoError(fmt::format("could not read {}: {}", key, bytes.status().message())),
                           "catalog_payload_read_error");
  }
  return Sha256Hex((*bytes)->view()) == digest ? PayloadCheck::kPresent : PayloadCheck::kDigestMismatch;
}

}  // namespace omnigraph::cluster
