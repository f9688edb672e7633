#include "compiler/source.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/utf8.h"

namespace omnigraph::compiler {

namespace {

bool IsContinuationByte(unsigned char c) { return (c & 0xC0) == 0x80; }

Status Located(std::string_view prefix, std::string_view code, std::string_view file, std::string_view source,
               SourceLocation loc, std::string_view what) {
  std::string message = fmt::format("{} {}:{}:{}: {}", prefix, file, loc.line, loc.column, what);
  std::string caret = CaretDiagnostic(source, loc);
  if (!caret.empty()) message += "\n" + caret;
  Status::Details details{{"code", std::string(code)},
                          {"file", std::string(file)},
                          {"line", std::to_string(loc.line)},
                          {"column", std::to_string(loc.column)}};
  return Status(ErrorCode::kInvalidArgument, std::move(message), std::move(details));
}

// Length of the well-formed UTF-8 sequence at text[i], or 0 when the byte
// there does not start one (overlong two-byte forms included).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  auto c = static_cast<unsigned char>(text[i]);
  size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size() || (length == 2 && c < 0xC2)) return 0;
  for (size_t k = 1; k < length; ++k) {
    if (!IsContinuationByte(static_cast<unsigned char>(text[i + k]))) return 0;
  }
  return length;
}

}  // namespace

// A byte EscapeForDisplay writes as \xHH although it is valid UTF-8.
static bool IsEscapedControl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

std::string EscapeForDisplay(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t length = Utf8SequenceLength(text, i);
    // C1 controls (U+0080-U+009F, bytes C2 80-9F) drive terminals too.
    const bool c1 = length == 2 && static_cast<unsigned char>(text[i]) == 0xC2 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c1) {
      out += fmt::format("\\xC2\\x{:02X}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
      continue;
    }
    if (length == 0 || (length == 1 && IsEscapedControl(static_cast<unsigned char>(text[i])))) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

// Whether the code point is invisible in a terminal (no-break and
// zero-width spaces, directional marks, line/paragraph separators, the
// word joiner and the byte order mark): quoting it raw would show nothing.
static bool IsInvisible(uint32_t code_point) {
  return code_point == 0x00A0 || (code_point >= 0x200B && code_point <= 0x200F) || code_point == 0x2028 ||
         code_point == 0x2029 || code_point == 0x2060 || code_point == 0xFEFF;
}

std::string DisplayCharacter(std::string_view character) {
  if (character.size() == 2 || character.size() == 3) {
    const auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(character[i])); };
    const uint32_t code_point = character.size() == 2
                                    ? ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F)
                                    : ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    if (FirstInvalidUtf8(character) == std::string_view::npos && IsInvisible(code_point)) {
      return fmt::format("U+{:04X}", code_point);
    }
  }
  if (character.size() != 1) return EscapeForDisplay(character);
  const unsigned char c = static_cast<unsigned char>(character[0]);
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\0': return "\\0";
    default:
      if (c < 0x20 || c == 0x7F) return fmt::format("\\x{:02X}", c);
      return EscapeForDisplay(character);
  }
}

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string_view WithoutByteOrderMark(std::string_view source) {
  if (source.starts_with(utf8::kByteOrderMark)) source.remove_prefix(utf8::kByteOrderMark.size());
  return source;
}

Status CheckUtf8Source(std::string_view file, std::string_view source) {
  size_t bad = FirstInvalidUtf8(source);
  if (bad == std::string_view::npos) return Status::OK();
  return ParseErrorAt(file, source, LocateOffset(source, bad),
                      fmt::format("invalid UTF-8 byte 0x{:02X}", static_cast<unsigned char>(source[bad])));
}

SourceLocation LocateOffset(std::string_view source, size_t offset) {
  if (offset > source.size()) offset = source.size();
  SourceLocation loc;
  loc.line = 1;
  loc.column = 1;
  loc.offset = static_cast<uint32_t>(offset);
  for (size_t i = 0; i < offset; ++i) {
    unsigned char c = static_cast<unsigned char>(source[i]);
    if (c == '\n') {
      ++loc.line;
      loc.column = 1;
    } else if (!IsContinuationByte(c)) {
      ++loc.column;
    }
  }
  return loc;
}

LineIndex::LineIndex(std::string_view source) : source_(source) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLocation LineIndex::Locate(size_t offset) const {
  if (offset > source_.size()) offset = source_.size();
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
  size_t begin = line_starts_[line - 1];
  SourceLocation loc;
  loc.line = static_cast<uint32_t>(line);
  loc.column = 1;
  if (last_.line == loc.line && last_.offset <= offset) {
    loc.column = last_.column;
    begin = last_.offset;
  }
  loc.offset = static_cast<uint32_t>(offset);
  for (size_t i = begin; i < offset; ++i) {
    if (!IsContinuationByte(static_cast<unsigned char>(source_[i]))) ++loc.column;
  }
  last_ = loc;
  return loc;
}

std::string CaretDiagnostic(std::string_view source, SourceLocation loc) {
  if (!loc.known()) return "";
  size_t offset = std::min<size_t>(loc.offset, source.size());
  size_t begin = 0;
  if (offset > 0) {
    size_t newline = source.rfind('\n', offset - 1);
    if (newline != std::string_view::npos) begin = newline + 1;
  }
  size_t end = source.find('\n', begin);
  if (end == std::string_view::npos) end = source.size();
  if (end > begin && source[end - 1] == '\r') --end;
  // A long line is cut to a window of kShownCodePoints around the error,
  // marked with "…" at each cut, so a huge one-line file does not flood
  // the terminal.
  constexpr size_t kShownCodePoints = 120;
  auto step_back = [&](size_t i) {
    do --i;
    while (i > begin && IsContinuationByte(static_cast<unsigned char>(source[i])));
    return i;
  };
  auto step_forward = [&](size_t i) {
    do ++i;
    while (i < end && IsContinuationByte(static_cast<unsigned char>(source[i])));
    return i;
  };
  size_t first = std::min(offset, end), last = first;
  size_t shown = 0;
  for (; shown < kShownCodePoints / 2 && first > begin; ++shown) first = step_back(first);
  for (; shown < kShownCodePoints && last < end; ++shown) last = step_forward(last);
  for (; shown < kShownCodePoints && first > begin; ++shown) first = step_back(first);
  const bool cut_before = first > begin, cut_after = last < end;
  begin = first;
  end = last;
  std::string_view line = source.substr(begin, end - begin);
  // Invalid bytes and control characters are shown escaped. The caret
  // still lines up: the first invalid byte of a source is where the error
  // points, and each control character before it is padded as its escape.
  std::string number = std::to_string(loc.line);
  std::string gutter(number.size(), ' ');
  // Pad with spaces per code point, but keep tabs so the caret lines up.
  std::string pad = cut_before ? " " : "";
  for (size_t i = begin; i < offset && i < end; ++i) {
    unsigned char c = static_cast<unsigned char>(source[i]);
    if (c == '\t') {
      pad += '\t';
    } else if (IsEscapedControl(c)) {
      pad += "    ";  // shown as \xHH
    } else if (!IsContinuationByte(c)) {
      pad += ' ';
    }
  }
  return fmt::format("{} | {}{}{}\n{} | {}^", number, cut_before ? "…" : "", EscapeForDisplay(line),
                     cut_after ? "…" : "", gutter, pad);
}

Status ParseErrorAt(std::string_view file, std::string_view source, SourceLocation loc, std::string_view what) {
  return Located("parse error:", "parse", file, source, loc, what);
}

Status CatalogErrorAt(std::string_view file, std::string_view source, SourceLocation loc, std::string_view what) {
  return Located("catalog error:", "catalog", file, source, loc, what);
}

// `what` with every `quoted` span longer than a message should hold cut by
// utf8::ShortenForMessage: type errors quote names from the source, and a
// name can be as long as the source.
static std::string ShortenBackquotedNames(std::string_view what) {
  constexpr size_t kLongMessage = 512;
  if (what.size() <= kLongMessage) return std::string(what);
  std::string out;
  size_t pos = 0;
  while (pos < what.size()) {
    size_t open = what.find('`', pos);
    size_t close = open == std::string_view::npos ? open : what.find('`', open + 1);
    if (close == std::string_view::npos) break;
    out.append(what.substr(pos, open + 1 - pos));
    out += utf8::ShortenForMessage(what.substr(open + 1, close - open - 1));
    out += '`';
    pos = close + 1;
  }
  out.append(what.substr(std::min(pos, what.size())));
  return out;
}

Status TypeError(std::string_view code, std::string_view what_in_full, SourceLocation loc) {
  const std::string what = ShortenBackquotedNames(what_in_full);
  std::string message =
      code.empty() ? fmt::format("type error: {}", what) : fmt::format("type error: {}: {}", code, what);
  Status::Details details{{"code", code.empty() ? std::string("type") : std::string(code)}};
  if (loc.known()) {
    details["line"] = std::to_string(loc.line);
    details["column"] = std::to_string(loc.column);
  }
  return Status(ErrorCode::kInvalidArgument, std::move(message), std::move(details));
}

bool DecodeStringBody(std::string_view body, std::string* out, std::string* error, size_t* bad_offset) {
  out->clear();
  out->reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (i + 1 >= body.size()) {
      *error = "unsupported escape sequence: \\";
      *bad_offset = i;
      return false;
    }
    char e = body[i + 1];
    switch (e) {
      case '"': out->push_back('"'); break;
      case '\\': out->push_back('\\'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      default: {
        // Name the whole escaped character (it may be multi-byte UTF-8).
        size_t len = 1;
        while (i + 1 + len < body.size() && IsContinuationByte(static_cast<unsigned char>(body[i + 1 + len]))) ++len;
        std::string_view escaped = body.substr(i + 1, len);
        *error = escaped == "\n" || escaped == "\r"
                     ? std::string("unsupported escape sequence: \\ at the end of a line")
                     : fmt::format("unsupported escape sequence: \\{}", DisplayCharacter(escaped));
        *bad_offset = i;
        return false;
      }
    }
    ++i;
  }
  return true;
}

}  // namespace omnigraph::compiler
