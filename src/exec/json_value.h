// Strict JSON input for graph batches (spec/surface.md §4.1–§4.2): one JSON
// object per line, duplicate members rejected at any depth, non-finite
// numbers rejected, integers kept exact (no double round trips), and typed
// conversion of property values to column values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "columnar/builder.h"
#include "compiler/types.h"
#include "util/status.h"
#include "util/utf8.h"

namespace omnigraph::exec {

// Limits of one strict NDJSON line (spec/surface.md §7.1).
inline constexpr size_t kMaxLineBytes = 32u << 20;
inline constexpr size_t kMaxStructuralTokens = 131072;

// Deepest nesting of arrays and objects a line may hold. A graph line needs
// four levels (line, data, list, item); the bound keeps every recursive
// walk of a parsed line (conversion, echo in messages) far from the stack's
// limit, which the structural-token limit alone would not.
inline constexpr size_t kMaxJsonDepth = 4096;

// A parsed JSON value: a handle to one node of an immutable parsed line,
// cheap to copy (values handed out by Get/Members/Elements share the line's
// document). Default-constructed, it is JSON null.
class JsonValue {
 public:
  JsonValue() = default;

  // Parses one line: with simdjson when the line is valid, falling back to
  // a second, slower parser only to describe what is wrong. Errors
  // (InvalidArgument, message without location; the caller prefixes
  // file:line): malformed JSON ("invalid JSON at column N: …"), "duplicate
  // JSON member 'k'", nesting deeper than kMaxJsonDepth, too many structural
  // tokens (ResourceLimitExceeded "graph_batch_json_structural_slots").
  static Result<JsonValue> ParseLine(std::string_view line);

  bool is_null() const;
  bool is_object() const;
  bool is_string() const;
  bool is_array() const;
  bool is_bool() const;
  bool is_number() const;
  bool is_integer() const;  // a JSON number without fraction or exponent that fits int64 or uint64
  std::string_view string() const;  // views the document, alive while any value of it is
  // JSON spelling of the value (for messages).
  std::string Dump() const;
  // Object members in document order (only for objects; 0 otherwise). The
  // names view the document, which each member value keeps alive.
  size_t member_count() const;
  std::pair<std::string_view, JsonValue> Member(size_t i) const;  // i < member_count()
  std::optional<JsonValue> Get(std::string_view key) const;  // nullopt if absent (objects only)
  std::vector<JsonValue> Elements() const;            // arrays only

  // The parsed line (defined in json_value.cc).
  struct Document;
  struct Node;
  const Node& node() const;

 private:
  JsonValue(std::shared_ptr<const Document> document, uint32_t node)
      : document_(std::move(document)), node_(node) {}
  JsonValue Child(uint32_t node) const { return JsonValue(document_, node); }

  std::shared_ptr<const Document> document_;  // null: the value is null
  uint32_t node_ = 0;
};

// `text` for an error message (util/utf8.h).
using utf8::ShortenForMessage;

// Appends `value` (JSON) converted to property type `type` to `builder`
// (whose type is type.PhysicalType()), per the strict table of §4.2.
// `property` names the property in messages. Errors: InvalidArgument with
// the documented message shapes ("strict property 'p' expects Utf8, got 5",
// "property 'p' value V exceeds Int32 range", "invalid Date literal", …).
// A Blob value becomes its cell through `blobs` (exec/blob_value.h), which
// admits external URIs and counts them for the operation; null denies
// every URI. Errors also: those of BlobInput::CellOf (ExternalBlobPolicy,
// ResourceLimitExceeded).
class BlobInput;
Status AppendJsonProperty(const JsonValue& value, const compiler::PropertyType& type, std::string_view property,
                          ArrayBuilder* builder, BlobInput* blobs = nullptr);

// True when `value` is null or of a JSON kind that property type `type`
// converts from in §4.2 (String/enum and Blob: a string; Bool: true/false;
// integers: an integer number, also one beyond 64 bits, which conversion
// refuses as out of range; floats: any number; Date/DateTime: a string or
// an integer; lists and vectors: an array). The value may still be refused
// by AppendJsonProperty (a bad date text, an out-of-range number, a list
// item of the wrong kind). The loader-compatible parser (§4.6) loads a
// value for which this is false as NULL.
bool JsonKindConvertsTo(const JsonValue& value, const compiler::PropertyType& type);

// Decodes standard base64 (with padding); false when malformed or not
// canonical (non-zero bits after the last whole byte, as in "QR==").
bool DecodeBase64(std::string_view text, std::string* out);

}  // namespace omnigraph::exec
