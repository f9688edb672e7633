// Omnigraph::BlobStat / BlobGet (spec/surface.md §5.2 `blob stat` /
// `blob get`; engine.md §5.3): one Blob cell of a read target.
#include <fmt/format.h>

#include "api/omnigraph.h"
#include "exec/blob_read.h"
#include "exec/blob_value.h"

namespace omnigraph::api {
namespace {

BlobTargetInfo TargetInfo(const ReadTarget& target, const graph::Snapshot& snapshot) {
  BlobTargetInfo info;
  if (target.snapshot) {
    info.snapshot = *target.snapshot;
  } else {
    info.branch = snapshot.branch();
  }
  info.resolved_snapshot = !snapshot.head().id.empty()
                               ? snapshot.head().id
                               : fmt::format("manifest:{}:v{}", snapshot.branch(), snapshot.manifest_version());
  return info;
}

}  // namespace

Result<BlobInfo> Omnigraph::BlobStat(const exec::BlobSelector& selector, const ReadTarget& target) {
  OG_ASSIGN_OR_RETURN(BlobBytes read, BlobGet(selector, target, exec::BlobRangeRequest{0, 1}));
  return std::move(read.info);
}

Result<BlobBytes> Omnigraph::BlobGet(const exec::BlobSelector& selector, const ReadTarget& target,
                                     const exec::BlobRangeRequest& range) {
  OG_RETURN_IF_ERROR(exec::CheckBlobRange(range));
  OG_ASSIGN_OR_RETURN(graph::Snapshot snapshot, Resolve(target));
  OG_ASSIGN_OR_RETURN(auto catalog, catalogs_.CatalogFor(snapshot.state()));
  BlobBytes out;
  out.info.selector = selector;
  OG_ASSIGN_OR_RETURN(exec::BlobValue value, exec::ReadBlobCell(snapshot, *catalog, &out.info.selector));
  out.info.target = TargetInfo(target, snapshot);
  out.info.external = value.external;
  if (value.external) {
    out.info.uri = std::move(value.uri);
    return out;
  }
  out.info.size = value.bytes.size();
  out.info.etag = exec::BlobEtag(value.bytes);
  OG_ASSIGN_OR_RETURN(auto span, exec::ResolveBlobRange(range, value.bytes.size()));
  out.start = span.first;
  out.end = span.second;
  out.bytes = value.bytes.substr(span.first, span.second - span.first);
  return out;
}

}  // namespace omnigraph::api
