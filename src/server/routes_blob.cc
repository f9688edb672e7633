// GET and HEAD /graphs/{graph_id}/blob (server.md §1.6 "Blob"): one Blob
// cell streamed as application/octet-stream with its strong ETag, one
// byte range (206), the conditional headers If-Match (412), If-None-Match
// (304) and If-Range, and external values answered by a 302 to their URI.
#include <charconv>

#include "server/errors.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {
namespace {

// Bytes of one read from the engine (its per-call ceiling, §1.6).
constexpr uint64_t kBlobChunkBytes = 4ull * 1024 * 1024;

// The comma-separated entity tags of a conditional header.
std::vector<std::string> EntityTags(const std::string& header) {
  std::vector<std::string> tags;
  size_t start = 0;
  while (start <= header.size()) {
    size_t comma = header.find(',', start);
    if (comma == std::string::npos) comma = header.size();
    std::string tag = header.substr(start, comma - start);
    size_t begin = tag.find_first_not_of(" \t"), end = tag.find_last_not_of(" \t");
    if (begin != std::string::npos) tags.push_back(tag.substr(begin, end - begin + 1));
    start = comma + 1;
  }
  return tags;
}

// RFC 9110 §8.8.3.2: a strong match needs two strong, equal tags; a weak
// match ignores the W/ prefix.
bool TagMatches(const std::string& tag, const std::string& etag, bool weak) {
  if (tag == "*") return true;
  if (weak) return (tag.rfind("W/", 0) == 0 ? tag.substr(2) : tag) == etag;
  return tag == etag;
}

bool AnyTagMatches(const std::string& header, const std::string& etag, bool weak) {
  for (const std::string& tag : EntityTags(header)) {
    if (TagMatches(tag, etag, weak)) return true;
  }
  return false;
}

std::optional<uint64_t> Number(std::string_view text) {
  uint64_t value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One `bytes=` range of a value of `size` bytes as a half-open [start,
// end). nullopt: no usable range (absent, malformed, several ranges or
// another unit), and the whole value is sent. `unsatisfiable` is set for a
// well-formed range that selects nothing.
struct ByteRange {
  uint64_t start = 0, end = 0;
  bool unsatisfiable = false;
};
std::optional<ByteRange> ParseRange(const std::string& header, uint64_t size) {
  constexpr std::string_view kUnit = "bytes=";
  if (header.compare(0, kUnit.size(), kUnit) != 0) return std::nullopt;
  std::string spec = header.substr(kUnit.size());
  if (spec.find(',') != std::string::npos) return std::nullopt;
  size_t dash = spec.find('-');
  if (dash == std::string::npos) return std::nullopt;
  std::string first = spec.substr(0, dash), last = spec.substr(dash + 1);
  ByteRange range;
  if (first.empty()) {  // suffix: the last N bytes
    auto suffix = Number(last);
    if (!suffix) return std::nullopt;
    if (*suffix == 0 || size == 0) return ByteRange{0, 0, true};
    range.start = size - std::min(*suffix, size);
    range.end = size;
    return range;
  }
  auto start = Number(first);
  if (!start) return std::nullopt;
  std::optional<uint64_t> end_inclusive;
  if (!last.empty()) {
    end_inclusive = Number(last);
    if (!end_inclusive || *end_inclusive < *start) return std::nullopt;
  }
  if (*start >= size) return ByteRange{*start, *start, true};
  range.start = *start;
  range.end = end_inclusive ? std::min(*end_inclusive + 1, size) : size;
  return range;
}

HttpResponse BlobResponse(Exchange& exchange, bool head) {
  exec::BlobSelector selector;
  std::vector<std::pair<const char*, std::string*>> required = {
      {"entity", &selector.entity}, {"type", &selector.type}, {"id", &selector.id}, {"property", &selector.property}};
  for (auto [name, out] : required) {
    auto value = exchange.request.QueryParam(name);
    if (!value) return BadRequest(std::string("query parameter '") + name + "' is required");
    *out = *value;
  }
  auto branch = exchange.request.QueryParam("branch");
  auto snapshot = exchange.request.QueryParam("snapshot");
  if (branch && snapshot) return BadRequest("pass either 'branch' or 'snapshot', not both");
  std::string policy_branch = branch.value_or("main");
  if (snapshot) {
    auto view = exchange.graph->Read<Result<exec::CommitView>>(
        [&](api::Omnigraph& handle) { return handle.DescribeCommit(*snapshot); });
    policy_branch = view.ok() ? view->commit.graph_branch.value_or("main") : "main";
  }
  if (auto refusal = Authorize(exchange, policy::Action::kRead, policy_branch, std::nullopt)) return *refusal;
  api::ReadTarget target{branch.value_or("main"), snapshot};
  auto info = exchange.graph->Read<Result<api::BlobInfo>>(
      [&](api::Omnigraph& handle) { return handle.BlobStat(selector, target); });
  if (!info.ok()) return ErrorResponse(info.status());

  HttpResponse response;
  response.head_only = head;
  response.AddHeader("Omnigraph-Snapshot-Id", info->target.resolved_snapshot);
  if (info->external) {
    response.status = 302;
    response.AddHeader("Location", info->uri.value_or(""));
    response.AddHeader("Cache-Control", "no-store");
    return response;
  }
  const std::string etag = info->etag.value_or("");
  const uint64_t size = info->size.value_or(0);
  if (auto if_match = exchange.request.headers.Find("If-Match"); if_match && !AnyTagMatches(*if_match, etag, false)) {
    HttpResponse refused = ErrorResponse(
        Status(ErrorCode::kPreconditionFailed, "If-Match does not match the current entity tag " + etag,
               {{"expected", *if_match}, {"actual", etag}}));
    refused.AddHeader("ETag", etag);
    return refused;
  }
  response.AddHeader("ETag", etag);
  response.AddHeader("Accept-Ranges", "bytes");
  if (auto none_match = exchange.request.headers.Find("If-None-Match");
      none_match && AnyTagMatches(*none_match, etag, true)) {
    response.status = 304;
    response.content_type = "application/octet-stream";
    return response;
  }
  uint64_t start = 0, end = size;
  auto range_header = exchange.request.headers.Find("Range");
  auto if_range = exchange.request.headers.Find("If-Range");
  if (!head && range_header && (!if_range || *if_range == etag)) {
    if (auto range = ParseRange(*range_header, size)) {
      if (range->unsatisfiable) {
        HttpResponse refused = ErrorResponse(
            Status(ErrorCode::kBlobRangeNotSatisfiable, "the requested byte range is not satisfiable",
                   {{"start", std::to_string(range->start)}, {"end", std::to_string(range->end)},
                    {"length", std::to_string(size)}}));
        return refused;
      }
      start = range->start;
      end = range->end;
      response.status = 206;
      response.AddHeader("Content-Range", "bytes " + std::to_string(start) + "-" + std::to_string(end - 1) + "/" +
                                              std::to_string(size));
    }
  }
  response.content_type = "application/octet-stream";
  response.stream_length = end - start;
  // Later chunks read the commit the first read resolved, so a write
  // landing mid-stream cannot splice two versions of the value.
  api::ReadTarget pinned = target;
  if (info->target.resolved_snapshot.rfind("manifest:", 0) != 0) pinned.snapshot = info->target.resolved_snapshot;
  auto offset = std::make_shared<uint64_t>(start);
  ServedGraph* graph = exchange.graph;
  response.stream = std::make_shared<BodyProducer>();
  response.stream->next = [graph, selector, pinned, offset, end, etag](std::string* chunk, bool* failed) {
    *failed = false;
    if (*offset >= end) return false;
    uint64_t length = std::min(kBlobChunkBytes, end - *offset);
    auto bytes = graph->Read<Result<api::BlobBytes>>([&](api::Omnigraph& handle) {
      return handle.BlobGet(selector, pinned, exec::BlobRangeRequest{*offset, length});
    });
    if (!bytes.ok() || bytes->info.etag.value_or("") != etag || bytes->bytes.size() != length) {
      *failed = true;
      return false;
    }
    *chunk = std::move(bytes->bytes);
    *offset += length;
    return true;
  };
  return response;
}

}  // namespace

HttpResponse HandleBlobGet(Exchange& exchange) { return BlobResponse(exchange, /*head=*/false); }
HttpResponse HandleBlobHead(Exchange& exchange) { return BlobResponse(exchange, /*head=*/true); }

}  // namespace omnigraph::server
