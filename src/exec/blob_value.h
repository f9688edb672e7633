// Blob values (spec/surface.md §1.3, §4.2, §6.3; engine.md §5.3, §9): what a
// Blob cell stores, how input text ("base64:<data>" or a URI) becomes one,
// and the ExternalBlobPolicy that admits external URIs.
//
// Cells. A Blob property is a nullable LargeBinary column of cells (managed
// bytes, or a marker plus an external URI); the cell codec lives in
// columnar/blob_cell.h, below the Lance layer that persists the column as a
// Lance blob v2 column (src/lance/blob_v2.h) and reads it back into cells.
//
// External URIs. A URI is admitted only when the graph's policy allows a
// base it lies under (engine.md §5.3: default deny). The direct-store CLI
// has no allow-list (surface.md §3.2, §4.3), so there every URI is refused;
// the embedded API takes a policy (api::Omnigraph::set_external_blob_policy,
// the cluster's `graphs.<g>.external_blobs`, cluster.md §1.5).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/blob_cell.h"
#include "util/status.h"

namespace omnigraph::exec {

// spec/surface.md §7.1.
inline constexpr size_t kMaxExternalBlobUriBytes = 65536;          // EXTERNAL_BLOB_URI_MAX_BYTES
inline constexpr uint64_t kMaxExternalBlobCellsPerOperation = 8192;  // new URI cells per operation
inline constexpr uint64_t kBlobReadRangeMaxBytes = 4u << 20;        // BLOB_READ_RANGE_MAX_BYTES

// ---- Cells (columnar/blob_cell.h)

using omnigraph::BlobCell;
using omnigraph::DecodeBlobCell;
using omnigraph::EncodeExternalBlobCell;
using omnigraph::EncodeManagedBlobCell;

// The strong entity tag of managed `bytes` (a quoted content digest), as
// `blob stat` and HTTP ETag report it.
std::string BlobEtag(std::string_view bytes);

// ---- Policy

enum class ExternalBlobScope {
  kServerSafe,    // usable by a served graph (s3:// only)
  kEmbeddedOnly,  // usable only through the embedded API
};

struct ExternalBlobBase {
  std::string uri;  // normalized, ends with '/'
  ExternalBlobScope scope = ExternalBlobScope::kEmbeddedOnly;
};

// Which external URIs a graph admits. Default-constructed it denies every
// URI (engine.md §5.3).
class ExternalBlobPolicy {
 public:
  ExternalBlobPolicy() = default;

  // A policy allowing URIs under `bases` (cluster.md §1.5): each base is
  // normalized (NormalizeExternalBlobUri; scheme and bucket lower-cased, a
  // trailing '/' added); a `file://` base must name an existing directory
  // and cannot be server_safe. An empty list is Deny.
  // Errors: InvalidArgument "invalid external blob base '<b>': <reason>";
  // InvalidArgument "external blob bases '<a>' and '<b>' overlap".
  static Result<ExternalBlobPolicy> Allow(std::vector<ExternalBlobBase> bases);

  bool denies_all() const { return bases_.empty(); }
  // Sorted by uri, server_safe first.
  const std::vector<ExternalBlobBase>& bases() const { return bases_; }

  // The normalized form of `uri` when the policy admits it.
  // Errors: ExternalBlobPolicy (details uri, reason) for a malformed URI,
  // an unapproved scheme, dot segments, credentials, a query, a port, or a
  // URI under no allowed base (or any URI under Deny);
  // ResourceLimitExceeded "external Blob URI bytes" above 65,536 bytes.
  Result<std::string> Admit(std::string_view uri) const;

 private:
  std::vector<ExternalBlobBase> bases_;
};

// The normalized spelling of an absolute `file:///…` or `s3://bucket/…`
// URI: scheme (and bucket) lower-cased, everything else kept. Errors:
// ExternalBlobPolicy (details uri, reason) naming what is wrong.
Result<std::string> NormalizeExternalBlobUri(std::string_view uri);

// ---- Input

// Turns Blob input text into cells for one write operation (a load or a
// mutation), admitting external URIs through `policy` and counting them
// against kMaxExternalBlobCellsPerOperation. Not thread-safe.
class BlobInput {
 public:
  // REQUIRES: `policy` outlives this object.
  explicit BlobInput(const ExternalBlobPolicy& policy) : policy_(policy) {}

  // The cell for `text` of property `property`: "base64:<data>" is managed
  // bytes; any other text is an external URI. Errors: InvalidArgument
  // "blob property 'p': invalid base64 blob data"; ExternalBlobPolicy
  // "blob property 'p': external Blob URI '<u>' refused: <reason>" (Deny:
  // "… denied by the graph's ExternalBlobPolicy (use base64: data)");
  // ResourceLimitExceeded "external Blob reference cells" (limit 8,192) and
  // "external Blob URI bytes".
  Result<std::string> CellOf(std::string_view text, std::string_view property);

  uint64_t external_cells() const { return external_cells_; }

 private:
  const ExternalBlobPolicy& policy_;
  uint64_t external_cells_ = 0;
};

// The policy that denies every URI (the CLI's).
const ExternalBlobPolicy& DenyExternalBlobs();

}  // namespace omnigraph::exec
