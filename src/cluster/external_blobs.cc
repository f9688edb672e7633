#include "cluster/external_blobs.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace omnigraph::cluster {
namespace {

std::string Lower(std::string_view text) {
  std::string lowered(text);
  for (char& character : lowered) character = static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
  return lowered;
}

Status Refuse(std::string message) { return Status(ErrorCode::kInvalidArgument, std::move(message)); }

}  // namespace

Result<ExternalBlobBase> NormaliseExternalBlobBase(const ExternalBlobAllowEntry& entry) {
  const std::string& base = entry.base;
  const size_t separator = base.find("://");
  if (separator == std::string::npos) {
    return Refuse(fmt::format("external blob base '{}' must be an absolute s3:// or file:// URI", base));
  }
  const std::string scheme = Lower(std::string_view(base).substr(0, separator));
  if (scheme == "file") {
    if (entry.scope == "server_safe") {
      return Refuse(fmt::format("external blob base '{}' is a file:// base and cannot be server_safe", base));
    }
    return Refuse(fmt::format("external blob base '{}': file:// bases are not supported by this build", base));
  }
  if (scheme != "s3") {
    return Refuse(fmt::format("external blob base '{}' must be an absolute s3:// or file:// URI", base));
  }
  if (entry.scope != "server_safe") {
    return Refuse(fmt::format("external blob base '{}': scope `{}` is not supported by this build", base, entry.scope));
  }
  const std::string_view rest = std::string_view(base).substr(separator + 3);
  const size_t slash = rest.find('/');
  const std::string_view bucket = rest.substr(0, slash);
  std::string_view prefix = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (bucket.empty()) return Refuse(fmt::format("external blob base '{}' must name a bucket", base));
  if (bucket.find('@') != std::string_view::npos) {
    return Refuse(fmt::format("external blob base '{}' must not carry credentials", base));
  }
  if (bucket.find(':') != std::string_view::npos) {
    return Refuse(fmt::format("external blob base '{}' must not carry a port", base));
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return Refuse(fmt::format("external blob base '{}' must not carry a query or fragment", base));
  }
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  size_t start = 0;
  while (start <= prefix.size() && !prefix.empty()) {
    const size_t end = std::min(prefix.find('/', start), prefix.size());
    const std::string_view segment = prefix.substr(start, end - start);
    if (segment == "." || segment == "..") {
      return Refuse(fmt::format("external blob base '{}' must not contain `.` or `..` segments", base));
    }
    start = end + 1;
  }
  std::string uri = "s3://" + Lower(bucket) + "/";
  if (!prefix.empty()) uri += std::string(prefix) + "/";
  return ExternalBlobBase{uri, entry.scope};
}

ExternalBlobPolicy CheckExternalBlobPolicy(const std::string& graph_id, const std::vector<ExternalBlobAllowEntry>& allow,
                                           Diagnostics* diagnostics) {
  ExternalBlobPolicy policy;
  bool invalid = false;
  for (size_t index = 0; index < allow.size(); ++index) {
    Result<ExternalBlobBase> base = NormaliseExternalBlobBase(allow[index]);
    if (base.ok()) {
      policy.bases.push_back(*base);
      continue;
    }
    invalid = true;
    diagnostics->push_back(ErrorDiagnostic("invalid_external_blob_base",
                                           fmt::format("graphs.{}.external_blobs.allow[{}].base", graph_id, index),
                                           base.status().message()));
  }
  if (invalid) return ExternalBlobPolicy{};
  std::sort(policy.bases.begin(), policy.bases.end(), [](const ExternalBlobBase& left, const ExternalBlobBase& right) {
    if (left.uri != right.uri) return left.uri < right.uri;
    return left.scope == "server_safe" && right.scope != "server_safe";
  });
  // Sorted by uri, a base that contains another comes right before it.
  for (size_t index = 1; index < policy.bases.size(); ++index) {
    const std::string& earlier = policy.bases[index - 1].uri;
    const std::string& later = policy.bases[index].uri;
    if (later.compare(0, earlier.size(), earlier) != 0) continue;
    diagnostics->push_back(ErrorDiagnostic("invalid_external_blob_policy",
                                           fmt::format("graphs.{}.external_blobs.allow", graph_id),
                                           fmt::format("external blob bases '{}' and '{}' overlap", earlier, later)));
    return ExternalBlobPolicy{};
  }
  return policy;
}

std::optional<std::string> PersistedExternalBlobPolicyJson(const ExternalBlobPolicy& policy) {
  if (policy.denies()) return std::nullopt;
  nlohmann::ordered_json bases = nlohmann::ordered_json::array();
  for (const ExternalBlobBase& base : policy.bases) {
    bases.push_back(nlohmann::ordered_json{{"uri", base.uri}, {"scope", base.scope}});
  }
  nlohmann::ordered_json object{{"mode", "allow"}, {"bases", bases}};
  return object.dump();
}

Result<ExternalBlobPolicy> ParsePersistedExternalBlobPolicy(std::string_view json) {
  auto invalid = [](std::string_view reason) {
    return Refuse("invalid persisted external blob policy: " + std::string(reason));
  };
  nlohmann::json object = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) return invalid("not a JSON object");
  if (object.value("mode", nlohmann::json()) != "allow") return invalid("mode is not \"allow\"");
  auto bases = object.find("bases");
  if (bases == object.end() || !bases->is_array()) return invalid("bases is not an array");
  ExternalBlobPolicy policy;
  for (const nlohmann::json& base : *bases) {
    if (!base.is_object() || !base.contains("uri") || !base["uri"].is_string() || !base.contains("scope") ||
        !base["scope"].is_string()) {
      return invalid("a base lacks a string uri or scope");
    }
    policy.bases.push_back(ExternalBlobBase{base["uri"].get<std::string>(), base["scope"].get<std::string>()});
  }
  return policy;
}

}  // namespace omnigraph::cluster
