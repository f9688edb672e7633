// Source positions and compiler error construction shared by the `.pg` and
// `.gq` front ends (spec/surface.md §6.1).
//
// Every compiler error is a Status with code kInvalidArgument whose message
// starts with its category prefix:
//   parse error: <file>:<line>:<col>: <what>      (grammar, schema validation)
//   catalog error: <file>:<line>:<col>: <what>    (duplicate types, endpoints)
//   type error: T<n>: <what>                      (query type checking)
// Parse and catalog messages continue with a caret diagnostic: the source
// line and a `^` under the column. Type errors carry no location in the
// message (their text is part of the contract); their location is in the
// Status details ("line", "column", "query"). Every compiler error carries
// details["code"]: "parse", "catalog", "T<n>", "type" (uncoded type error)
// or "mutation_mix" (the D2 rule).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::compiler {

// 1-based line and column (columns count Unicode code points) plus the byte
// offset into the source. A default location (line 0) means "unknown".
struct SourceLocation {
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t offset = 0;

  bool known() const { return line != 0; }
};

// The location of byte `offset` in `source` (clamped to the end).
SourceLocation LocateOffset(std::string_view source, size_t offset);

// Line starts of one source, for repeated O(log n) locating.
class LineIndex {
 public:
  explicit LineIndex(std::string_view source);
  // Line and column (in code points) of byte `offset`. Parsers ask in
  // increasing order, so the column is counted on from the previous answer
  // when it lies earlier on the same line: N locations on one long line cost
  // one pass over it, not N. Not thread-safe.
  SourceLocation Locate(size_t offset) const;

 private:
  std::string_view source_;
  std::vector<size_t> line_starts_;
  mutable SourceLocation last_;  // the previous answer (line 0: none)
};

// The two caret lines for `loc`: "  12 | <source line>\n     |    ^".
std::string CaretDiagnostic(std::string_view source, SourceLocation loc);

// "parse error: <file>:<line>:<col>: <what>\n<caret>" (kInvalidArgument,
// details code=parse, line, column, file).
Status ParseErrorAt(std::string_view file, std::string_view source, SourceLocation loc, std::string_view what);
// Same with the "catalog error:" prefix and details code=catalog.
Status CatalogErrorAt(std::string_view file, std::string_view source, SourceLocation loc, std::string_view what);
// "type error: T<n>: <what>" (or "type error: <what>" when `code` is empty);
// details code=T<n>|type and, when known, line/column.
Status TypeError(std::string_view code, std::string_view what, SourceLocation loc = {});

// `text` as messages quote input: every byte that is not part of a
// well-formed UTF-8 sequence, and every control character but tab (C0, DEL
// and the C1 range U+0080-U+009F), written as \xHH bytes, so quoted input
// can neither garble a terminal nor forge a line.
std::string EscapeForDisplay(std::string_view text);

// One source character as error messages quote it: printable characters as
// they are, control characters as escapes ("\\n", "\\0", "\\x1B"), so a
// message always stays on one line.
std::string DisplayCharacter(std::string_view character);

// The byte offset of the first byte of `text` that is not part of a
// well-formed UTF-8 sequence, or npos when `text` is valid UTF-8.
size_t FirstInvalidUtf8(std::string_view text);

// `source` without a leading UTF-8 byte order mark, which editors on some
// systems write and JSONL input already tolerates; lines and columns are
// then counted from the first real character.
std::string_view WithoutByteOrderMark(std::string_view source);

// Sources must be UTF-8 (a stray byte would otherwise reach storage):
// "parse error: <file>:<line>:<col>: invalid UTF-8 byte 0xHH" at the first
// bad byte, or OK.
Status CheckUtf8Source(std::string_view file, std::string_view source);

// Decodes the body of a string literal (the text between the quotes, with
// escapes still encoded). Only \" \\ \n \r \t are legal (§1.1); anything
// else fails with "unsupported escape sequence: \X" and `*bad_offset` set to
// the byte offset of the backslash within `body`.
bool DecodeStringBody(std::string_view body, std::string* out, std::string* error, size_t* bad_offset);

}  // namespace omnigraph::compiler
