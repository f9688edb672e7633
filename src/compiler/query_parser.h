// Parser for `.gq` query files (spec/surface.md §2.1–§2.2, §3.1).
#pragma once

#include <string_view>

#include "compiler/query_ast.h"
#include "util/status.h"

namespace omnigraph::compiler {

// Parses a whole `.gq` file (an empty file is valid: no queries). Accepts the
// EBNF of §2.2 with its consequences (optional commas in return and mutation
// bodies, no negative or null literals, `$q contains $m` is a traversal over
// an edge named `contains`, `nearest(...) desc` is an error), plus the
// user-expected spellings chosen over upstream quirks (architecture §3.7):
//   * `$d: Doc { }` — empty binding braces are accepted (same as `$d: Doc`);
//   * integer literals up to 2^64-1 (typed U64 above the I64 range).
// Grammar-layer checks reported after a successful parse, first in source
// order: unsupported string escapes, integer literals above 2^64-1, invalid
// `date("…")`/`datetime("…")` text, hop bounds above 2^32-1, duplicate
// `@description`/`@instruction` on one query, and a read-only declaration
// carrying the write clause (below).
// Extensions (spec/branches.md BR-11.1, BR-12.1): after the parameters and
// annotations, before the body, a mutation may carry `as commit` or `as
// unattached branch [on "<id>"]` (QueryDecl::write_as); on a read query it
// is "`as commit` applies only to mutations; query <q> is read-only" at the
// clause's position.
// Nested `not { }` blocks, expressions and list literals deeper than
// kMaxNestingDepth are refused ("nesting deeper than 64 levels") so that
// hostile input cannot exhaust the stack of the parser or the type checker.
// Errors: kInvalidArgument "parse error: <file>:<line>:<col>: <what>" plus a
// caret diagnostic (source.h).
Result<query::QueryFile> ParseQueries(std::string_view source, std::string_view file_name);

inline constexpr int kMaxNestingDepth = 64;

}  // namespace omnigraph::compiler
