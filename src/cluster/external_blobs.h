// `graphs.<g>.external_blobs` (spec/cluster.md §1.5) in the first version
// §0.1 allows: Deny (absent or empty `allow`) plus `server_safe` bases under
// `s3://`; any other allow-list entry is refused as unsupported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/config.h"
#include "cluster/diagnostics.h"

namespace omnigraph::cluster {

// One normalised base of an allow policy.
struct ExternalBlobBase {
  std::string uri;    // normalised: `s3://<bucket lower-cased>/<prefix>/`
  std::string scope;  // "server_safe"

  bool operator==(const ExternalBlobBase& other) const = default;
};

// A graph's checked policy: no bases = Deny.
struct ExternalBlobPolicy {
  std::vector<ExternalBlobBase> bases;  // sorted by uri, server_safe first

  bool denies() const { return bases.empty(); }
};

// Normalises one configured base (§1.5): scheme and bucket lower-cased, a
// trailing `/` added (`S3://Assets-Bucket/knowledge` →
// `s3://assets-bucket/knowledge/`). Errors (the message of an
// `invalid_external_blob_base` diagnostic): not an absolute `s3://` or
// `file://` URI; no bucket; credentials, a port, a query or fragment, or a
// `.`/`..` segment; `server_safe` with `file://`; and, in this build,
// `file://` bases and the `embedded_only` scope ("… is not supported by this
// build").
Result<ExternalBlobBase> NormaliseExternalBlobBase(const ExternalBlobAllowEntry& entry);

// Checks a graph's allow-list (§1.5), appending to `diagnostics`:
// `invalid_external_blob_base` at `graphs.<g>.external_blobs.allow[<i>].base`
// per bad base, else `invalid_external_blob_policy` at
// `graphs.<g>.external_blobs.allow` when two bases overlap (one is a prefix
// of the other). Any error yields Deny.
ExternalBlobPolicy CheckExternalBlobPolicy(const std::string& graph_id, const std::vector<ExternalBlobAllowEntry>& allow,
                                           Diagnostics* diagnostics);

// The persisted and hashed form of an allow policy (§1.5):
// `{"mode":"allow","bases":[{"uri":"s3://…/","scope":"server_safe"}]}`;
// none for Deny, which is never persisted.
std::optional<std::string> PersistedExternalBlobPolicyJson(const ExternalBlobPolicy& policy);

// Reads a persisted policy back (the ledger's `external_blob_policy`),
// keeping its bases as written (the server re-checks them when it opens
// the graph). Errors: InvalidArgument "invalid persisted external blob
// policy: <reason>" for text that is not that JSON object (mode other than
// "allow", a base without string `uri` and `scope`).
Result<ExternalBlobPolicy> ParsePersistedExternalBlobPolicy(std::string_view json);

}  // namespace omnigraph::cluster
