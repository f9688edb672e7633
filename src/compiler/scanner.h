// A character-level cursor for the two recursive-descent parsers.
//
// Both grammars (spec/surface.md §1.2, §2.2) were written for a PEG parser
// with implicit whitespace: whitespace and comments may appear between any
// two tokens, keywords are plain string matches (so `nodePerson` reads as
// `node Person`, a documented quirk we keep), and identifiers, numbers and
// strings are atomic. The parsers reproduce that with ordered choice over
// this cursor: every token method first skips trivia, then tries to match at
// the current position, and on failure restores the position and records
// what it expected. The furthest failure position and the set of things
// expected there make the "expected ..." message of a syntax error, as pest
// does. Internal to src/compiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/types.h"

namespace omnigraph::compiler {

class Scanner {
 public:
  // Which grammar is parsed: it decides which hints about constructs of
  // later upstream language versions an error message may carry.
  enum class Language { kSchema, kQuery };

  Scanner(std::string_view source, Language language) : src_(source), language_(language) {}

  std::string_view source() const { return src_; }
  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }

  // Skips whitespace (space, tab, CR, LF), `// ...` line comments and
  // `/* ... */` block comments (not nested; an unterminated one is left in
  // place, so the next token fails there).
  void SkipTrivia();
  // Offset of the next token (after trivia), without consuming the trivia.
  size_t PeekTokenStart();
  // True at end of input (after trivia); records "end of input" otherwise.
  bool AtEnd();

  // Matches `text` exactly (a pest string literal: no word boundary).
  bool Lit(std::string_view text);
  // Like Lit but the next character must not continue an identifier
  // ([A-Za-z0-9_]); used for `true`/`false`.
  bool Word(std::string_view text);
  // Peeks for `text` at the next token start without consuming or recording.
  bool PeekLit(std::string_view text);

  // `[a-z_][A-Za-z0-9_]*`.
  bool Ident(std::string* out, const char* what = "identifier");
  // `[A-Z][A-Za-z0-9_]*`.
  bool TypeName(std::string* out);
  // `[0-9]+` (digits only, returned as text).
  bool Integer(std::string* out);
  // `[0-9]+ "." [0-9]+`.
  bool Float(std::string* out);
  // `"-"? [0-9]+ "." [0-9]+` / `"-"? [0-9]+`.
  bool SignedFloat(std::string* out);
  bool SignedInteger(std::string* out);
  // base_type = "String" | "Blob" | "Bool" | "I32" | … | "DateTime" | "Date"
  // (shared by `.pg` properties and `.gq` parameters); failure records
  // "type".
  bool BaseType(ScalarKind* kind);
  // `"` (char except `"`/`\` | `\` any)* `"`. `*body` receives the raw text
  // between the quotes; `*start` the offset of the opening quote.
  bool StringLit(std::string* body, size_t* start);
  // `$` followed by `[a-z_][A-Za-z0-9_]*` (the name without `$`).
  bool Variable(std::string* name);
  // `(letter | digit | "_" | "-")+` (an enum value).
  bool EnumValue(std::string* out);

  // Records that `what` was expected at byte `at`.
  void Expect(std::string_view what, size_t at);
  // While positive, failures are not recorded (lookahead).
  void PushQuiet() { ++quiet_; }
  void PopQuiet() { --quiet_; }
  // Names a construct starting at `at`: failures recorded exactly at `at`
  // while the label is active are reported as `what` (the outermost label
  // wins), so "expected expression" replaces the list of every alternative
  // an expression may start with. Failures deeper inside keep their detail.
  void PushLabel(size_t at, std::string what) { labels_.push_back({at, std::move(what)}); }
  void PopLabel() { labels_.pop_back(); }

  // Furthest failure position and the message for it: "expected A, B or C,
  // found `x`" (or "found end of input"), where `x` is the word (`@word`,
  // `$word`; at most kMaxQuotedBytes) or else the character there. A hint
  // follows when the failure is at a construct of later upstream language
  // versions: `@src`, `@dst`, `@type` in either language; in queries also
  // `and`, `or`, `is`, `in`, or an `and`/`or` that the parser took for an
  // alias right after a value (`$t.a = 1 or $t.b = 2`).
  size_t furthest() const { return furthest_; }
  std::string ExpectedMessage() const;

 private:
  static bool IsIdentChar(char c);
  // The longest word an error message quotes.
  static constexpr size_t kMaxQuotedBytes = 64;
  // The text quoted as "found" at furthest_ (< source size); *cut tells
  // whether a longer word was cut at kMaxQuotedBytes.
  std::string_view FoundToken(bool* cut) const;
  // The hint for the construct at furthest_, or "".
  std::string_view Hint(std::string_view found) const;
  // `"-"? [0-9]+ "." [0-9]+` with the sign only when `signed_value`.
  bool Decimal(std::string* out, bool signed_value, std::string_view what);
  bool Fail(std::string_view what, size_t saved, size_t at);

  std::string_view src_;
  Language language_;
  size_t pos_ = 0;
  int quiet_ = 0;
  size_t furthest_ = 0;
  std::vector<std::string> expected_;
  struct Label {
    size_t at;
    std::string what;
  };
  std::vector<Label> labels_;
};

}  // namespace omnigraph::compiler
