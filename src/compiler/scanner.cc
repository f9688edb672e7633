#include "compiler/scanner.h"

#include <algorithm>

#include "compiler/source.h"
#include "util/utf8.h"

namespace omnigraph::compiler {

namespace {

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAlnum(char c) { return utf8::IsAsciiDigit(c) || IsLower(c) || IsUpper(c); }

}  // namespace

bool Scanner::IsIdentChar(char c) { return IsAlnum(c) || c == '_'; }

void Scanner::SkipTrivia() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++pos_;
      continue;
    }
    if (c == '/' && pos_ + 1 < src_.size()) {
      if (src_[pos_ + 1] == '/') {
        size_t nl = src_.find('\n', pos_);
        pos_ = nl == std::string_view::npos ? src_.size() : nl;
        continue;
      }
      if (src_[pos_ + 1] == '*') {
        size_t close = src_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return;  // unterminated: not trivia
        pos_ = close + 2;
        continue;
      }
    }
    return;
  }
}

size_t Scanner::PeekTokenStart() {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  pos_ = saved;
  return start;
}

bool Scanner::AtEnd() {
  size_t saved = pos_;
  SkipTrivia();
  if (pos_ >= src_.size()) return true;
  return Fail("end of input", saved, pos_);
}

bool Scanner::Fail(std::string_view what, size_t saved, size_t at) {
  Expect(what, at);
  pos_ = saved;
  return false;
}

void Scanner::Expect(std::string_view what, size_t at) {
  if (quiet_ > 0 || at < furthest_) return;
  for (const Label& label : labels_) {
    if (label.at == at) {
      what = label.what;
      break;
    }
  }
  if (at > furthest_) {
    furthest_ = at;
    expected_.clear();
  }
  std::string item(what);
  if (std::find(expected_.begin(), expected_.end(), item) == expected_.end()) expected_.push_back(std::move(item));
}

std::string Scanner::ExpectedMessage() const {
  std::string out = "expected ";
  if (expected_.empty()) {
    out += "valid input";
  } else {
    for (size_t i = 0; i < expected_.size(); ++i) {
      if (i > 0) out += (i + 1 == expected_.size()) ? " or " : ", ";
      out += expected_[i];
    }
  }
  if (furthest_ >= src_.size()) {
    out += ", found end of input";
    return out;
  }
  bool cut = false;
  std::string_view found = FoundToken(&cut);
  if (found == "\n" || found == "\r") {
    out += ", found end of line";
    return out;
  }
  out += ", found `" + DisplayCharacter(found) + (cut ? "…`" : "`");
  if (std::string_view hint = Hint(found); !hint.empty()) out += " (" + std::string(hint) + ")";
  return out;
}

std::string_view Scanner::FoundToken(bool* cut) const {
  // A word (starting with an ASCII letter, digit or `_`, possibly after `@`
  // or `$`, and running on over word characters and non-ASCII letters) is
  // quoted whole, up to kMaxQuotedBytes; anything else as its one UTF-8
  // character.
  size_t start = furthest_;
  size_t first = (src_[start] == '@' || src_[start] == '$') ? start + 1 : start;
  if (first < src_.size() && IsIdentChar(src_[first])) {
    size_t end = first;
    while (end < src_.size() && end - start < kMaxQuotedBytes &&
           (IsIdentChar(src_[end]) || static_cast<unsigned char>(src_[end]) >= 0x80)) {
      ++end;
    }
    while (end < src_.size() && (static_cast<unsigned char>(src_[end]) & 0xC0) == 0x80) --end;  // whole characters
    *cut = end < src_.size() && (IsIdentChar(src_[end]) || static_cast<unsigned char>(src_[end]) >= 0x80);
    return src_.substr(start, end - start);
  }
  size_t len = 1;
  while (start + len < src_.size() && (static_cast<unsigned char>(src_[start + len]) & 0xC0) == 0x80) ++len;
  return src_.substr(start, len);
}

std::string_view Scanner::Hint(std::string_view found) const {
  // Constructs of later upstream versions of the languages that the
  // grammar of spec/surface.md §1.2/§2.2 does not have. Naming them spares
  // a user coming from such a version from decoding the expected-list.
  constexpr std::string_view kEndpoints =
      "`@src`, `@dst` and `@type` are not part of this language: an edge's endpoints are `src`/`dst` in schema "
      "constraints and `from`/`to` in mutation predicates";
  constexpr std::string_view kAndOr =
      "`and`/`or` are not part of this language: the clauses of a match block all hold at once, and a mutation's "
      "`where` is one comparison";
  if (found == "@src" || found == "@dst" || found == "@type") return kEndpoints;
  if (language_ != Language::kQuery) return {};
  if (found == "and" || found == "or") return kAndOr;
  if (found == "is") return "`is null` is not part of this language";
  if (found == "in") return "`in` is not part of this language; test a list property with `contains`";
  // `$t.a = 1 or $t.b = 2`: `or` reads as a return-alias reference (a bare
  // word may be one), so the parse fails just after it. Only right after a
  // value is that word the connective rather than a name.
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  size_t end = furthest_;
  while (end > 0 && space(src_[end - 1])) --end;
  size_t start = end;
  while (start > 0 && IsIdentChar(src_[start - 1])) --start;
  std::string_view before = src_.substr(start, end - start);
  if (before != "and" && before != "or") return {};
  size_t value_end = start;
  while (value_end > 0 && space(src_[value_end - 1])) --value_end;
  if (value_end == start || value_end == 0) return {};  // glued to what precedes, or nothing does
  char last = src_[value_end - 1];
  bool after_value = IsIdentChar(last) || last == '"' || last == ')' || last == ']';
  return after_value ? kAndOr : std::string_view{};
}

bool Scanner::Lit(std::string_view text) {
  size_t saved = pos_;
  SkipTrivia();
  if (src_.substr(pos_, text.size()) == text) {
    pos_ += text.size();
    return true;
  }
  return Fail("`" + std::string(text) + "`", saved, pos_);
}

bool Scanner::Word(std::string_view text) {
  size_t saved = pos_;
  SkipTrivia();
  if (src_.substr(pos_, text.size()) == text &&
      (pos_ + text.size() >= src_.size() || !IsIdentChar(src_[pos_ + text.size()]))) {
    pos_ += text.size();
    return true;
  }
  return Fail("`" + std::string(text) + "`", saved, pos_);
}

bool Scanner::PeekLit(std::string_view text) {
  size_t start = PeekTokenStart();
  return src_.substr(start, text.size()) == text;
}

bool Scanner::Ident(std::string* out, const char* what) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  if (pos_ < src_.size() && (IsLower(src_[pos_]) || src_[pos_] == '_')) {
    ++pos_;
    while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
    *out = std::string(src_.substr(start, pos_ - start));
    return true;
  }
  return Fail(what, saved, start);
}

bool Scanner::TypeName(std::string* out) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  if (pos_ < src_.size() && IsUpper(src_[pos_])) {
    ++pos_;
    while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
    *out = std::string(src_.substr(start, pos_ - start));
    return true;
  }
  return Fail("type name", saved, start);
}

bool Scanner::Integer(std::string* out) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  while (pos_ < src_.size() && utf8::IsAsciiDigit(src_[pos_])) ++pos_;
  if (pos_ == start) return Fail("integer", saved, start);
  *out = std::string(src_.substr(start, pos_ - start));
  return true;
}

bool Scanner::Decimal(std::string* out, bool signed_value, std::string_view what) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  size_t p = pos_;
  if (signed_value && p < src_.size() && src_[p] == '-') ++p;
  size_t digits = p;
  while (p < src_.size() && utf8::IsAsciiDigit(src_[p])) ++p;
  if (p == digits || p >= src_.size() || src_[p] != '.') return Fail(what, saved, start);
  size_t frac = ++p;
  while (p < src_.size() && utf8::IsAsciiDigit(src_[p])) ++p;
  if (p == frac) return Fail(what, saved, start);
  pos_ = p;
  *out = std::string(src_.substr(start, pos_ - start));
  return true;
}

bool Scanner::Float(std::string* out) { return Decimal(out, /*signed_value=*/false, "float"); }

bool Scanner::SignedFloat(std::string* out) { return Decimal(out, /*signed_value=*/true, "number"); }

bool Scanner::BaseType(ScalarKind* kind) {
  static constexpr std::string_view kNames[] = {"String", "Blob", "Bool", "I32", "I64",     "U32",
                                                "U64",    "F32",  "F64",  "DateTime", "Date"};
  size_t at = PeekTokenStart();
  PushQuiet();
  for (std::string_view name : kNames) {
    if (Lit(name)) {
      PopQuiet();
      *kind = *ScalarKindFromName(name);
      return true;
    }
  }
  PopQuiet();
  Expect("type", at);
  return false;
}

bool Scanner::SignedInteger(std::string* out) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  size_t p = pos_;
  if (p < src_.size() && src_[p] == '-') ++p;
  size_t digits = p;
  while (p < src_.size() && utf8::IsAsciiDigit(src_[p])) ++p;
  if (p == digits) return Fail("number", saved, start);
  pos_ = p;
  *out = std::string(src_.substr(start, pos_ - start));
  return true;
}

bool Scanner::StringLit(std::string* body, size_t* start_out) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  if (pos_ >= src_.size() || src_[pos_] != '"') return Fail("string", saved, start);
  size_t p = pos_ + 1;
  while (p < src_.size() && src_[p] != '"') {
    if (src_[p] == '\\') {
      if (p + 1 >= src_.size()) break;
      p += 2;
    } else {
      ++p;
    }
  }
  if (p >= src_.size()) {
    // Unterminated: the string rule fails at the opening quote, but the
    // useful place to point at is the end of input where `"` was expected.
    Expect("`\"`", src_.size());
    pos_ = saved;
    return false;
  }
  *body = std::string(src_.substr(start + 1, p - start - 1));
  *start_out = start;
  pos_ = p + 1;
  return true;
}

bool Scanner::Variable(std::string* name) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  if (pos_ < src_.size() && src_[pos_] == '$' && pos_ + 1 < src_.size() &&
      (IsLower(src_[pos_ + 1]) || src_[pos_ + 1] == '_')) {
    pos_ += 2;
    while (pos_ < src_.size() && IsIdentChar(src_[pos_])) ++pos_;
    *name = std::string(src_.substr(start + 1, pos_ - start - 1));
    return true;
  }
  return Fail("variable", saved, start);
}

bool Scanner::EnumValue(std::string* out) {
  size_t saved = pos_;
  SkipTrivia();
  size_t start = pos_;
  while (pos_ < src_.size() && (IsIdentChar(src_[pos_]) || src_[pos_] == '-')) ++pos_;
  if (pos_ == start) return Fail("enum value", saved, start);
  *out = std::string(src_.substr(start, pos_ - start));
  return true;
}

}  // namespace omnigraph::compiler
