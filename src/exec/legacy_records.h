// The loader-compatible (legacy) load syntax (spec/surface.md §4 intro and
// §4.6): the front end of HTTP `POST /load` and `/ingest`, CLI `ingest` and
// the SDK's load_as. It only reads records; converting, validating and
// committing them is the strict load's own work (exec/loader.h, with
// LoadSyntax::kLegacy), so the two syntaxes share every rule past parsing.
//
// What the legacy syntax accepts beyond the strict one (§4.1):
//   * a stream of JSON values separated by any whitespace, so one record may
//     span several lines (pretty-printed objects); errors cite "record N",
//     counting records from 1;
//   * a record is a node when its `type` is a string, else an edge when its
//     `edge` is a string (with string `from` and `to`);
//   * extra top-level members and `data` keys that name no declared property
//     are ignored;
//   * a property value of the wrong JSON kind (JsonKindConvertsTo) loads as
//     NULL, so it is refused only by a non-nullable property;
//   * a keyed node's `data.id` may be its canonical id or the legacy spelling
//     of one key component (LegacySpellingMatches), and edges of the same
//     import that name such an id are remapped to the canonical one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/scalar.h"
#include "compiler/catalog.h"
#include "exec/json_value.h"
#include "util/status.h"

namespace omnigraph::exec {

// One legacy record, normalised into what the strict conversion consumes.
struct LegacyRecord {
  uint64_t number = 0;                       // 1-based position in the stream
  const compiler::NodeType* node = nullptr;  // exactly one of node / edge is set
  const compiler::EdgeType* edge = nullptr;
  std::string_view from, to;                 // edges: endpoint ids as given
  std::optional<std::string> explicit_id;    // `data.id`
  // The declared properties `data` names, in document order; a value of the
  // wrong JSON kind is already null. Unknown keys are left out.
  std::vector<std::pair<std::string_view, JsonValue>> fields;
  JsonValue document;  // the parsed record, which the views above point into
};

// Called once per record in stream order; an error stops the read and is
// returned as is. `bytes_read` is the input consumed through this record.
using LegacyRecordSink = std::function<Status(const LegacyRecord& record, uint64_t bytes_read)>;

// Reads the stream `data` (a UTF-8 byte-order mark may start it) and hands
// every record to `sink`. Errors (InvalidArgument, each message prefixed
// "record N: "): malformed JSON ("record N: invalid JSON at column C: …",
// C counted from the record's first byte), a duplicate member, "expected
// 'type' or 'edge' field", "unknown node type 'X'", "unknown edge type 'X'"
// (edge names resolve case-insensitively, as in the strict syntax), "edge
// missing 'from'", "edge missing 'to'", "'data' must be an object",
// "'data.id' must be a string"; ResourceLimitExceeded
// (graph_batch_line_bytes: a record above 32 MiB;
// graph_batch_json_structural_slots) with context "record N".
Status ReadLegacyRecords(std::string_view data, const compiler::Catalog& catalog, const LegacyRecordSink& sink);

// True when `explicit_id` spells the stored key component `value` of type
// `type` in a typed-equivalent way (§4.6): the same text for String/enum;
// `true`/`false` for Bool; a decimal integer of the same value for integer
// types; a decimal number that reads (at the property's width) as the same
// value for F32/F64; epoch days or a date literal of the same day for Date;
// epoch milliseconds or a date/time literal of the same instant for
// DateTime (a decimal integer is always read as the epoch count, so
// "20240101" is day 20240101, not 2024-01-01). `value` is non-null
// (GetScalar of the key column).
bool LegacySpellingMatches(std::string_view explicit_id, const compiler::PropertyType& type, const Scalar& value);

}  // namespace omnigraph::exec
