#include "api/wire/blob_json.h"

#include <fmt/format.h>

namespace omnigraph::api::wire {

using Json = nlohmann::ordered_json;

Json BlobStatJson(const BlobInfo& info) {
  Json body;
  body["selector"] = Json{{"entity", info.selector.entity},
                          {"type", info.selector.type},
                          {"id", info.selector.id},
                          {"property", info.selector.property}};
  body["kind"] = info.external ? "external" : "managed";
  if (info.size) body["size"] = *info.size;
  if (info.etag) body["etag"] = *info.etag;
  if (info.uri) body["uri"] = *info.uri;
  Json target = Json::object();
  if (info.target.branch) target["branch"] = *info.target.branch;
  if (info.target.snapshot) target["snapshot"] = *info.target.snapshot;
  target["resolved_snapshot"] = info.target.resolved_snapshot;
  body["target"] = std::move(target);
  return body;
}

std::string BlobStatText(const BlobInfo& info) {
  std::string out = fmt::format("kind: {}\n", info.external ? "external" : "managed");
  if (info.size) out += fmt::format("size: {}\n", *info.size);
  if (info.etag) out += fmt::format("etag: {}\n", *info.etag);
  if (info.uri) out += fmt::format("uri: {}\n", *info.uri);
  out += fmt::format("resolved_snapshot: {}\n", info.target.resolved_snapshot);
  return out;
}

}  // namespace omnigraph::api::wire
