// The catalog of applied query and policy payloads under the storage root
// (spec/cluster.md §2.5): each applied `query.<g>.<name>` and `policy.<p>`
// source is kept at a path named by its digest, so the server boots from
// exactly the bytes `cluster apply` approved, whatever the config dir holds
// since. Objects are immutable: one at its digest path is trusted as is,
// and old ones are never deleted (a ledger restored from a copy still
// finds its payloads).
//
// Failures carry the spec's code as the Status detail kClusterCodeDetail
// (state.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::cluster {

// `root`/__cluster/resources/query/<graph>/<name>/<digest>.gq
std::string QueryPayloadKey(const std::string& root, std::string_view graph, std::string_view name,
                            std::string_view digest);
// `root`/__cluster/resources/policy/<policy>/<digest>.yaml
std::string PolicyPayloadKey(const std::string& root, std::string_view policy, std::string_view digest);

// The payload key of a ledger entry: QueryPayloadKey for `query.<g>.<n>`,
// PolicyPayloadKey for `policy.<p>`, none for the kinds without payloads.
std::optional<std::string> PayloadKeyOf(const std::string& root, std::string_view address, std::string_view digest);

// Stores `source` (the bytes just re-read from the config dir) at `key`
// unless an object is already there. `digest` is the lower-case hex
// SHA-256 the plan recorded. Errors: resource_content_changed when
// `source` no longer hashes to `digest` (the file was edited during the
// run); resource_payload_write_error when `source` is not UTF-8 or the
// write fails.
Status StorePayload(ObjectStore& store, const std::string& key, std::string_view digest, std::string_view source);

// What a ledger entry's payload looks like (status, plan and boot report
// the first two with their own codes).
enum class PayloadCheck { kPresent, kMissing, kDigestMismatch };

// Reads `key` and re-hashes it against `digest`. Errors:
// catalog_payload_read_error for storage failures other than a missing object.
Result<PayloadCheck> CheckPayload(ObjectStore& store, const std::string& key, std::string_view digest);

}  // namespace omnigraph::cluster
