// Entity id derivation (spec/surface.md §1.7).
//
// Keyed node: id = canonical spelling of the key value (single-property key)
// or a compact JSON array of the canonical spellings (composite key, in key
// order = stable property id order, NodeType::key). Unkeyed nodes and every
// edge: the supplied id, else a fresh ULID (NewEntityId).
//
// Canonical scalar spelling (also used for uniqueness tuples):
//   String/enum: the text itself       Bool: `true` / `false`
//   I32/I64/U32/U64: decimal           Date: epoch day integer (`19723`)
//   DateTime: epoch millisecond integer (`1704067200000`)
//   F32/F64: shortest round-trip decimal at the stored width, never exponent
//            notation (`1.25`, `-2.5`, `1`); +0 and -0 both `0`; NaN/±Inf
//            are errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/scalar.h"
#include "compiler/catalog.h"
#include "compiler/types.h"
#include "util/status.h"

namespace omnigraph::compiler {

// Shortest round-trip decimal of `value` (rounded to float first when
// `is_f32`), positional notation, `-0` and `0` both "0"; nullopt for NaN or
// infinities.
std::optional<std::string> FormatFloatShortest(double value, bool is_f32);

// Canonical spelling of one non-null key value of type `type` (scalar or
// enum). Value representation (params.h): String for String/enum, Bool,
// Int or UInt for integers, Int for Date (days) and DateTime (ms), Double
// (or Int/UInt) for floats.
// Errors (kInvalidArgument): null value, NaN/Inf floats ("key value NaN is
// not a valid key"), lists/vectors/blobs, a value of the wrong kind.
Result<std::string> CanonicalScalarText(const PropertyType& type, const Scalar& value);

// `["a,b","7","quote\"and\\slash"]`: compact JSON array of strings with
// standard JSON escaping (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other
// control characters as `\u00XX`), non-ASCII left as UTF-8.
std::string CompositeKeyJson(const std::vector<std::string>& parts);

// The id of a keyed node from its key values, given in NodeType::key order.
// Errors: unkeyed node type, wrong number of values, any value invalid for
// CanonicalScalarText ("node T is missing a non-null @key value" for null).
Result<std::string> DeriveKeyId(const NodeType& node, const std::vector<Scalar>& key_values);

// A fresh id for an unkeyed node or an edge: a 26-character ULID.
std::string NewEntityId();

}  // namespace omnigraph::compiler
