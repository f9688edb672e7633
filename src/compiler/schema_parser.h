// Parser for `.pg` schema files (spec/surface.md §1.1–§1.2).
#pragma once

#include <string_view>

#include "compiler/schema_ast.h"
#include "util/status.h"

namespace omnigraph::compiler {

// Parses `source` into a syntax tree. Accepts exactly the EBNF of §1.2,
// including its documented consequences (keywords glued to type names,
// whitespace inside `@card ( 0 .. 1 )`, optional edge bodies, one-line
// bodies). Also applies the checks the grammar layer owns, each reported at
// its line and column after the whole file parsed:
//   unsupported string escapes, `Vector(0)` / dimensions above 2^31-1,
//   `[Blob]`, duplicate enum values, `@card` min > max or out of u32 range,
//   malformed constraint arguments, reserved storage column names.
// Errors: kInvalidArgument "parse error: <file>:<line>:<col>: <what>" plus a
// caret diagnostic (source.h). A syntax error names what was expected.
Result<schema::SchemaFile> ParseSchema(std::string_view source, std::string_view file_name);

// True for the five names Lance reserves for virtual row columns (§1.8).
bool IsReservedStorageColumn(std::string_view name);

}  // namespace omnigraph::compiler
