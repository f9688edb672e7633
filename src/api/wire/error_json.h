// The error body of the wire (spec/server.md §1.5 `ErrorOutput`,
// spec/surface.md §6.3), built from a Status so the CLI and the server
// render every error alike:
//
//   {"error": "<message>", "code": "<closed code>", "<detail>": {…}}
//
// `code` is omitted for the outcomes the spec identifies by their detail
// alone (a lost precondition, branches.md BR-8). At most one detail object
// is present, chosen by the Status code, and only when the Status carries
// the detail's required fields.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace omnigraph::api::wire {

// The closed `code` of the error body (server.md §1.5) for `code`:
// bad_request for invalid input and resource limits, not_found, conflict
// for every 409, internal for storage, integrity and internal failures;
// nullopt for kOk and for the outcomes that carry no code: a lost
// precondition (412) and a reclaimed version (410).
std::optional<std::string_view> WireErrorCode(ErrorCode code);

// The error body of `status` (which must not be OK). Details, from
// Status::details():
//   kPreconditionFailed    "precondition_failure": {expected, actual?}
//                          (actual omitted when unknown)
//   kReadSetChanged        "read_set_conflict": {member, expected, actual}
//                          (null for a missing expected or actual)
//   kKeyConflict           "key_conflict": {entity_kind, type_name, entity_id?}
//   kResourceLimitExceeded "resource_limit": {resource, limit, actual}
//                          (limit and actual as integers)
// `merge_conflicts` (a list) has no Status form yet; the merge writer adds
// it with its error type.
nlohmann::ordered_json ErrorJson(const Status& status);

}  // namespace omnigraph::api::wire
