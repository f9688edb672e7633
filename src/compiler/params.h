// Query parameters: JSON object → typed values (spec/surface.md §2.3).
//
// Values use the Scalar representation documented in query_ir.h (Int for
// I32/I64/Date/DateTime, UInt for U32/U64, Double for floats, String for
// String/Blob, Nested for lists and vectors). Integers are handled exactly:
// JSON integer tokens are never routed through a double, so
// 9007199254740993 stays 9007199254740993 (§4.2 / case B12).
//
// Conversion per declared type:
//   String               JSON string
//   I32 I64 U32 U64      JSON integer or a decimal string ("-12"); range
//                        checked: "parameter 'x': value N exceeds I32".
//                        U64 accepts the full unsigned range (the upstream
//                        "must fit in i64" engine limit is not reproduced).
//   F32 F64              any JSON number (F32: finite after narrowing)
//   Bool                 true / false
//   Date                 "YYYY-MM-DD" (temporal.h ParseDate) or epoch days
//   DateTime             RFC 3339 text (temporal.h ParseDateTime) or epoch ms
//   Blob                 string ("base64:…" or a URI; kept as text)
//   [T]                  array, each element converted as T (no nulls)
//   Vector(N)            array of exactly N numbers (finite as F32)
// `null` for a non-nullable parameter is an error; an omitted nullable
// parameter is NULL; an omitted non-nullable one fails only when the query
// uses it ("parameter 'x' not provided"). Undeclared keys are ignored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/scalar.h"
#include "compiler/query_ir.h"
#include "compiler/types.h"
#include "util/status.h"

namespace omnigraph::compiler {

struct ParamValue {
  PropertyType type;
  Scalar value;  // may be Null for nullable parameters
};

using ParamMap = std::map<std::string, ParamValue, std::less<>>;

struct BindOptions {
  // Value of now() (kNowParam) in epoch milliseconds when the query uses it.
  // Set (mutations, §2.8: the time of the request), it wins over a
  // `__nanograph_now` key in the parameters, so no caller can date a write.
  // Unset (reads), a caller's `__nanograph_now` is honoured, as upstream
  // readers pass it, and the current time is taken once per call otherwise.
  std::optional<int64_t> now_ms;
  // Web/JS mode: JSON integers beyond ±9007199254740991 are rejected unless
  // written as decimal strings.
  bool js_safe_integers = false;
};

// Converts the JSON object `params_json` (empty text = `{}`) for `query`:
// every declared parameter, plus kNowParam when the query uses now().
// Errors (kInvalidArgument): malformed JSON ("invalid params JSON: …"), not
// an object ("params must be a JSON object"), conversion failures
// ("parameter 'x': …"), null for a non-nullable parameter, a used
// non-nullable parameter that is missing ("parameter 'x' not provided").
Result<ParamMap> BindParams(const ir::QueryIR& query, std::string_view params_json, const BindOptions& options = {});

// Converts one JSON value (text) to `type` as described above; `name` is
// used in messages. A JSON null yields Null when `type.nullable`.
Result<Scalar> ConvertParamValue(std::string_view name, const PropertyType& type, std::string_view value_json,
                                 const BindOptions& options = {});

}  // namespace omnigraph::compiler
