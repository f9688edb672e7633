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

namespace omnigraph::exec {

// Limits of one strict NDJSON line (spec/surface.md §7.1).
inline constexpr size_t kMaxLineBytes = 32u << 20;
inline constexpr size_t kMaxStructuralTokens = 131072;

// A parsed JSON value. Wraps nlohmann::json without exposing it in headers.
class JsonValue {
 public:
  JsonValue();
  ~JsonValue();
  JsonValue(JsonValue&&) noexcept;
  JsonValue& operator=(JsonValue&&) noexcept;
  JsonValue(const JsonValue&);
  JsonValue& operator=(const JsonValue&);

  // Parses one line. Errors (InvalidArgument, message without location; the
  // caller prefixes file:line): malformed JSON ("invalid JSON at column N:
  // …"), "duplicate JSON member 'k'", too many structural tokens
  // (ResourceLimitExceeded "graph_batch_json_structural_slots").
  static Result<JsonValue> ParseLine(std::string_view line);

  bool is_null() const;
  bool is_object() const;
  bool is_string() const;
  bool is_array() const;
  bool is_bool() const;
  bool is_number() const;
  bool is_integer() const;  // a JSON number without fraction or exponent that fits int64 or uint64
  const std::string& string() const;
  // JSON spelling of the value (for messages).
  std::string Dump() const;
  // Object members in document order (only for objects).
  std::vector<std::pair<std::string, JsonValue>> Members() const;
  std::optional<JsonValue> Get(std::string_view key) const;  // nullopt if absent (objects only)
  std::vector<JsonValue> Elements() const;            // arrays only

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  // A value for `node` (a nlohmann::ordered_json inside this document).
  JsonValue Child(const void* node) const;

  std::unique_ptr<Impl> impl_;
};

// Appends `value` (JSON) converted to property type `type` to `builder`
// (whose type is type.PhysicalType()), per the strict table of §4.2.
// `property` names the property in messages. Errors: InvalidArgument with
// the documented message shapes ("strict property 'p' expects Utf8, got 5",
// "property 'p' value V exceeds Int32 range", "invalid Date literal", …).
Status AppendJsonProperty(const JsonValue& value, const compiler::PropertyType& type, std::string_view property,
                          ArrayBuilder* builder);

// Decodes standard base64 (with padding); false when malformed.
bool DecodeBase64(std::string_view text, std::string* out);

}  // namespace omnigraph::exec
