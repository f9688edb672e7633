#include "exec/blob_value.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "exec/json_value.h"
#include "util/checksum.h"
#include "util/utf8.h"

namespace omnigraph::exec {
namespace {

constexpr std::string_view kBase64Prefix = "base64:";

Status Refused(std::string_view uri, std::string reason) {
  return Status(ErrorCode::kExternalBlobPolicy,
                fmt::format("external Blob URI '{}' refused: {}", utf8::ShortenForMessage(uri), reason),
                {{"uri", std::string(uri)}, {"reason", reason}});
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; });
  return out;
}

// `segment` with percent-encoded dots decoded, to catch "%2e%2e".
std::string DecodeDots(std::string_view segment) {
  std::string out;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '%' && i + 2 < segment.size() && segment[i + 1] == '2' &&
        (segment[i + 2] == 'e' || segment[i + 2] == 'E')) {
      out += '.';
      i += 2;
    } else {
      out += segment[i];
    }
  }
  return out;
}

}  // namespace

std::string BlobEtag(std::string_view bytes) {
  return fmt::format("\"{:016x}-{:x}\"", Checksum64(bytes), bytes.size());
}

Result<std::string> NormalizeExternalBlobUri(std::string_view uri) {
  const size_t sep = uri.find("://");
  if (sep == std::string_view::npos || sep == 0) {
    return Refused(uri, "not an absolute URI (expected file:///<path> or s3://<bucket>/<key>)");
  }
  const std::string scheme = Lower(uri.substr(0, sep));
  if (scheme != "file" && scheme != "s3") {
    return Refused(uri, fmt::format("scheme '{}' is not approved (only file:// and s3://)",
                                    utf8::ShortenForMessage(scheme)));
  }
  const std::string_view rest = uri.substr(sep + 3);
  for (char c : rest) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return Refused(uri, "it contains control characters");
    if (c == '\\') return Refused(uri, "it contains a backslash");
  }
  if (rest.find('?') != std::string_view::npos) return Refused(uri, "a query is not allowed");
  if (rest.find('#') != std::string_view::npos) return Refused(uri, "a fragment is not allowed");
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) return Refused(uri, "credentials are not allowed");
  if (authority.find(':') != std::string_view::npos) return Refused(uri, "a port is not allowed");
  std::string host;
  if (scheme == "file") {
    if (!authority.empty()) return Refused(uri, "a file:// URI must be host-less (file:///<absolute path>)");
  } else {
    if (authority.empty()) return Refused(uri, "an s3:// URI needs a bucket");
    host = Lower(authority);
  }
  if (path.empty() || path == "/") return Refused(uri, "it names no object");
  // Every segment between slashes (a trailing slash ends a base).
  std::string_view segments = path.substr(1);
  if (segments.ends_with('/')) segments.remove_suffix(1);
  for (size_t start = 0; start <= segments.size();) {
    size_t end = segments.find('/', start);
    if (end == std::string_view::npos) end = segments.size();
    const std::string segment = DecodeDots(segments.substr(start, end - start));
    if (segment == "." || segment == "..") return Refused(uri, "dot segments ('.' or '..') are not allowed");
    if (segment.empty()) return Refused(uri, "empty path segments are not allowed");
    start = end + 1;
  }
  return scheme + "://" + host + std::string(path);
}

Result<ExternalBlobPolicy> ExternalBlobPolicy::Allow(std::vector<ExternalBlobBase> bases) {
  ExternalBlobPolicy policy;
  for (ExternalBlobBase& base : bases) {
    auto normalized = NormalizeExternalBlobUri(base.uri);
    auto invalid = [&](std::string_view reason) {
      return InvalidArgument(
          fmt::format("invalid external blob base '{}': {}", utf8::ShortenForMessage(base.uri), reason));
    };
    if (!normalized.ok()) return invalid(normalized.status().details().at("reason"));
    std::string uri = *normalized;
    if (!uri.ends_with('/')) uri += '/';
    if (uri.starts_with("file://")) {
      if (base.scope == ExternalBlobScope::kServerSafe) return invalid("a file:// base cannot be server_safe");
      std::error_code ec;
      if (!std::filesystem::is_directory(uri.substr(7), ec)) return invalid("not an existing directory");
    }
    policy.bases_.push_back({std::move(uri), base.scope});
  }
  std::sort(policy.bases_.begin(), policy.bases_.end(), [](const ExternalBlobBase& a, const ExternalBlobBase& b) {
    if (a.uri != b.uri) return a.uri < b.uri;
    return a.scope == ExternalBlobScope::kServerSafe && b.scope != ExternalBlobScope::kServerSafe;
  });
  for (size_t i = 0; i + 1 < policy.bases_.size(); ++i) {
    // Sorted, a base that contains others comes right before the first.
    if (policy.bases_[i + 1].uri.starts_with(policy.bases_[i].uri)) {
      return InvalidArgument(fmt::format("external blob bases '{}' and '{}' overlap", policy.bases_[i].uri,
                                         policy.bases_[i + 1].uri));
    }
  }
  return policy;
}

Result<std::string> ExternalBlobPolicy::Admit(std::string_view uri) const {
  if (uri.size() > kMaxExternalBlobUriBytes) {
    return ResourceLimitExceeded("external Blob URI bytes", kMaxExternalBlobUriBytes, uri.size());
  }
  if (denies_all()) {
    return Status(ErrorCode::kExternalBlobPolicy,
                  "external Blob URIs are denied by the graph's ExternalBlobPolicy (use base64: data)",
                  {{"uri", std::string(uri)}, {"reason", "external Blob URIs are denied by default"}});
  }
  OG_ASSIGN_OR_RETURN(std::string normalized, NormalizeExternalBlobUri(uri));
  if (normalized.ends_with('/')) return Refused(uri, "it names a directory, not a blob");
  for (const ExternalBlobBase& base : bases_) {
    if (normalized.starts_with(base.uri)) return normalized;
  }
  return Refused(uri, "it is under no allowed base of the graph's ExternalBlobPolicy");
}

Result<std::string> BlobInput::CellOf(std::string_view text, std::string_view property) {
  if (text.starts_with(kBase64Prefix)) {
    std::string bytes;
    if (!DecodeBase64(text.substr(kBase64Prefix.size()), &bytes)) {
      return InvalidArgument(fmt::format("blob property '{}': invalid base64 blob data", property));
    }
    return EncodeManagedBlobCell(bytes);
  }
  auto admitted = policy_.Admit(text);
  if (!admitted.ok()) return admitted.status().WithContext(fmt::format("blob property '{}'", property));
  if (++external_cells_ > kMaxExternalBlobCellsPerOperation) {
    return ResourceLimitExceeded("external Blob reference cells", kMaxExternalBlobCellsPerOperation, external_cells_);
  }
  return EncodeExternalBlobCell(*admitted);
}

const ExternalBlobPolicy& DenyExternalBlobs() {
  static const ExternalBlobPolicy kDeny;
  return kDeny;
}

}  // namespace omnigraph::exec
