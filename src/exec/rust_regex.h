// `@check` patterns are written in the syntax of Rust's `regex` crate
// (spec/surface.md §1.4) and matched with RE2, whose syntax is close but
// not equal. This translates the differences that change what a pattern
// means, and refuses the ones RE2 cannot express, so that a pattern never
// silently matches something other than what Rust would match.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace omnigraph::exec {

// RE2 source equivalent to the Rust `regex` pattern `pattern`:
// - the Perl classes are Unicode-aware as in Rust: `\d` → `\p{Nd}`, `\w` →
//   letters, marks, decimal digits, connector punctuation and join
//   controls, `\s` → the White_Space characters (and their negations),
//   inside and outside brackets; after `(?-u)` they stay ASCII;
// - `\u0041`, `\u{41}`, `\U00000041`, `\U{41}` become `\x{41}`;
// - `(?<name>…)` becomes `(?P<name>…)`;
// - the `x` flag (verbose mode) is applied here: unescaped whitespace and
//   `#` comments are removed, inside brackets too as in Rust (RE2 has no
//   `x` flag), from the flag's position to the end of the pattern;
// - the `u` flag is removed once applied (RE2 is always Unicode).
// `\b` and `\B` stay ASCII word boundaries (RE2 has no Unicode ones).
// Errors (InvalidArgument, naming the construct): bracket set operations
// (`&&`, `--`, `~~`) and nested brackets, `\W`/`\S` inside brackets,
// `\b{…}`, `\<`, `\>`, the `R` flag.
Result<std::string> RustRegexToRe2(std::string_view pattern);

}  // namespace omnigraph::exec
