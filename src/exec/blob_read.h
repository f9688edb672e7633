// Reading one Blob cell of a snapshot (spec/surface.md §5.2 `blob get` /
// `blob stat`; engine.md §5.3 "Blob read range ≤ 4 MiB per call").
//
// A selector names one cell: entity kind, type, entity id, property. The
// cell is looked up at the snapshot's pins and decoded (exec/blob_value.h):
// managed bytes or an external URI. NULL is an absent value (not found); a
// zero-length managed value is a valid empty blob.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/catalog.h"
#include "graph/snapshot.h"
#include "util/status.h"

namespace omnigraph::exec {

struct BlobSelector {
  std::string entity;  // "node" | "edge"
  std::string type;    // node type (exact) or edge type (case-insensitive)
  std::string id;      // entity id
  std::string property;
};

// One Blob cell as stored at a snapshot.
struct BlobValue {
  bool external = false;
  std::string bytes;  // managed: the whole value
  std::string uri;    // external: the normalized URI
};

// The cell `selector` names in `snapshot`, whose schema is `catalog`
// (the edge type is canonicalised in `selector->type`).
// Errors: InvalidArgument "blob entity must be 'node' or 'edge', got 'x'";
// NotFound "unknown node type 'T'" / "unknown edge type 'T'"; NotFound
// "node type 'T' has no property 'p'"; InvalidArgument "property 'T.p' is
// <type>, not Blob"; NotFound "node T 'id' not found"; NotFound "blob
// property 'T.p' of node 'id' is null" for a NULL cell; storage errors.
Result<BlobValue> ReadBlobCell(const graph::Snapshot& snapshot, const compiler::Catalog& catalog,
                               BlobSelector* selector);

// A byte range request: `length` bytes from `offset` (absent: to the end
// of the value, at most kBlobReadRangeMaxBytes at a time).
struct BlobRangeRequest {
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

// Checks `range` before anything is read. Errors: InvalidArgument "blob
// range length must be positive" for length 0, "blob range offset + length
// overflows" past 2^64; ResourceLimitExceeded "Blob read range bytes"
// (limit 4 MiB) for a longer explicit length.
Status CheckBlobRange(const BlobRangeRequest& range);

// The half-open [start, end) a (checked) `range` covers in a value of
// `size` bytes: end clamped to the value's end, and to start + 4 MiB when
// no length is given. Errors: BlobRangeNotSatisfiable (details start, end,
// length) when start >= size of a non-empty value; an empty value always
// answers [0, 0).
Result<std::pair<uint64_t, uint64_t>> ResolveBlobRange(const BlobRangeRequest& range, uint64_t size);

}  // namespace omnigraph::exec
