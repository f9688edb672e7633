#include "exec/rust_regex.h"

#include <fmt/format.h>

namespace omnigraph::exec {
namespace {

// Rust's Unicode `\w`: Alphabetic (letters, letter numbers and the
// Other_Alphabetic symbols outside the mark categories), marks, decimal
// digits, connector punctuation and the join controls.
constexpr std::string_view kWordMembers =
    "\\p{L}\\p{Nl}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F149}"
    "\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}";
// Rust's Unicode `\s`: the White_Space property.
constexpr std::string_view kSpaceMembers =
    "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}"
    "\\x{3000}";

bool IsVerboseSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool IsHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

class Translator {
 public:
  explicit Translator(std::string_view pattern) : p_(pattern) {}

  Result<std::string> Run() {
    while (i_ < p_.size()) {
      const char c = p_[i_];
      if (verbose_ && IsVerboseSpace(c)) {
        ++i_;
      } else if (verbose_ && c == '#') {
        while (i_ < p_.size() && p_[i_] != '\n') ++i_;
      } else if (in_class_) {
        OG_RETURN_IF_ERROR(ClassChar());
      } else if (c == '\\') {
        OG_RETURN_IF_ERROR(Escape());
      } else if (c == '[') {
        OpenClass();
      } else if (c == '(' && At(1) == '?') {
        OG_RETURN_IF_ERROR(Group());
      } else {
        out_ += c;
        ++i_;
      }
    }
    return out_;
  }

 private:
  char At(size_t k) const { return i_ + k < p_.size() ? p_[i_ + k] : '\0'; }

  static Status Unsupported(std::string_view what) {
    return InvalidArgument(fmt::format("{} is not supported", what));
  }

  void OpenClass() {
    out_ += '[';
    ++i_;
    if (At(0) == '^') {
      out_ += '^';
      ++i_;
    }
    in_class_ = true;
    class_first_ = true;  // a `]` here is a literal
  }

  Status ClassChar() {
    const char c = p_[i_];
    const bool first = class_first_;
    class_first_ = false;
    if (c == '\\') return Escape();
    if (c == ']' && !first) {
      out_ += ']';
      ++i_;
      in_class_ = false;
      return Status::OK();
    }
    if (c == '[') {
      if (At(1) != ':') return Unsupported("a nested bracket class (`[…[…]…]`)");
      // An ASCII class, `[:alpha:]`: the same in RE2.
      size_t end = p_.find(":]", i_ + 2);
      if (end == std::string_view::npos) return InvalidArgument("unclosed ASCII class `[:`");
      out_.append(p_.substr(i_, end + 2 - i_));
      i_ = end + 2;
      return Status::OK();
    }
    if ((c == '&' || c == '-' || c == '~') && At(1) == c && !first) {
      return Unsupported(fmt::format("the bracket set operation `{}{}`", c, c));
    }
    out_ += c;
    ++i_;
    return Status::OK();
  }

  Status Escape() {
    const char e = At(1);
    switch (e) {
      case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
        i_ += 2;
        if (!unicode_) {
          out_ += '\\';
          out_ += e;
          return Status::OK();
        }
        return PerlClass(e);
      case 'u': case 'U': return CodePoint(e);
      case 'b': case 'B':
        if (At(2) == '{') return Unsupported("`\\b{…}`");
        break;
      case '<': case '>': return Unsupported(fmt::format("`\\{}`", e));
      case ' ':
        out_ += "\\x20";
        i_ += 2;
        return Status::OK();
      case '\0':
        if (i_ + 1 >= p_.size()) break;  // a trailing `\`: RE2 reports it
        out_ += "\\x00";
        i_ += 2;
        return Status::OK();
      default: break;
    }
    out_ += '\\';
    ++i_;
    if (i_ < p_.size()) {
      out_ += p_[i_];
      ++i_;
    }
    return Status::OK();
  }

  Status PerlClass(char e) {
    const bool negated = e == 'D' || e == 'W' || e == 'S';
    if (e == 'd' || e == 'D') {
      out_ += negated ? "\\P{Nd}" : "\\p{Nd}";
      return Status::OK();
    }
    const std::string_view members = (e == 'w' || e == 'W') ? kWordMembers : kSpaceMembers;
    if (in_class_) {
      if (negated) return Unsupported(fmt::format("`\\{}` inside brackets", e));
      out_.append(members);
      return Status::OK();
    }
    out_ += negated ? "[^" : "[";
    out_.append(members);
    out_ += ']';
    return Status::OK();
  }

  // `\u0041`, `\u{41}`, `\U00000041`, `\U{41}` → `\x{41}`.
  Status CodePoint(char e) {
    size_t start = i_;
    i_ += 2;
    std::string hex;
    if (At(0) == '{') {
      size_t end = p_.find('}', i_);
      if (end == std::string_view::npos) return InvalidArgument("unclosed `\\u{` escape");
      hex = std::string(p_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
    } else {
      const size_t digits = e == 'u' ? 4 : 8;
      hex = std::string(p_.substr(i_, digits));
      if (hex.size() != digits) return InvalidArgument(fmt::format("incomplete escape `{}`", p_.substr(start)));
      i_ += digits;
    }
    if (hex.empty() || hex.size() > 8) return InvalidArgument(fmt::format("invalid escape `{}`", p_.substr(start, i_ - start)));
    for (char c : hex) {
      if (!IsHexDigit(c)) return InvalidArgument(fmt::format("invalid escape `{}`", p_.substr(start, i_ - start)));
    }
    out_ += "\\x{" + hex + "}";
    return Status::OK();
  }

  // `(?` …: named groups and inline flags.
  Status Group() {
    if (p_.substr(i_, 4) == "(?P<") {
      out_ += "(?P<";
      i_ += 4;
      return Status::OK();
    }
    if (At(2) == '<' && At(3) != '=' && At(3) != '!') {
      out_ += "(?P<";
      i_ += 3;
      return Status::OK();
    }
    // Flags up to `)` (for the rest of the pattern) or `:` (a group).
    size_t end = i_ + 2;
    while (end < p_.size() && p_[end] != ')' && p_[end] != ':') ++end;
    if (end >= p_.size()) {
      out_ += "(?";
      i_ += 2;
      return Status::OK();
    }
    const std::string_view flags = p_.substr(i_ + 2, end - i_ - 2);
    std::string on, off;
    bool negate = false;
    for (char f : flags) {
      switch (f) {
        case '-': negate = true; break;
        // Applied here, from this point of the pattern on (Rust scopes a
        // flag to its enclosing group; patterns set them at the start).
        case 'x': verbose_ = !negate; break;
        case 'u': unicode_ = !negate; break;
        case 'R': return Unsupported("the `R` flag");
        case 'i': case 'm': case 's': case 'U': (negate ? off : on) += f; break;
        default:
          // Not a flag group (a lookaround, an unknown flag): RE2 decides.
          out_ += "(?";
          i_ += 2;
          return Status::OK();
      }
    }
    const std::string kept = on + (off.empty() ? "" : "-" + off);
    if (p_[end] == ':') {
      out_ += "(?" + kept + ":";
    } else if (!kept.empty()) {
      out_ += "(?" + kept + ")";
    }
    i_ = end + 1;
    return Status::OK();
  }

  std::string_view p_;
  size_t i_ = 0;
  std::string out_;
  bool in_class_ = false;
  bool class_first_ = false;
  bool verbose_ = false;
  bool unicode_ = true;
};

}  // namespace

Result<std::string> RustRegexToRe2(std::string_view pattern) { return Translator(pattern).Run(); }

}  // namespace omnigraph::exec
