#include "util/utf8.h"

#include <locale.h>
#include <wchar.h>
#include <wctype.h>

#include <cctype>

namespace omnigraph::utf8 {
namespace {

// glibc's C.UTF-8 (always present on Debian 12), or 0.
locale_t Utf8Locale() {
  static const locale_t locale = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  return locale;
}

}  // namespace

char32_t Next(std::string_view text, size_t* i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(*i);
  const int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || *i + static_cast<size_t>(length) > text.size()) {
    ++*i;
    return kReplacement;
  }
  char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
  for (int k = 1; k < length; ++k) {
    const unsigned char b = byte(*i + static_cast<size_t>(k));
    if ((b & 0xC0) != 0x80) {
      ++*i;
      return kReplacement;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *i += static_cast<size_t>(length);
  return cp;
}

void Append(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsLetterOrDigit(char32_t cp) {
  if (cp < 0x80) return std::isalnum(static_cast<int>(cp)) != 0;
  if (cp == kReplacement) return false;
  const locale_t locale = Utf8Locale();
  return locale == static_cast<locale_t>(0) || ::iswalnum_l(static_cast<wint_t>(cp), locale) != 0;
}

char32_t ToLower(char32_t cp) {
  if (cp < 0x80) return static_cast<char32_t>(std::tolower(static_cast<int>(cp)));
  const locale_t locale = Utf8Locale();
  if (locale == static_cast<locale_t>(0)) return cp;
  return static_cast<char32_t>(::towlower_l(static_cast<wint_t>(cp), locale));
}

size_t ColumnWidth(char32_t cp) {
  if (cp < 0x80) return 1;
  const locale_t locale = Utf8Locale();
  if (locale == static_cast<locale_t>(0)) return 1;
  // wcwidth reads the thread's locale: switch this thread only, briefly.
  const locale_t previous = ::uselocale(locale);
  const int width = ::wcwidth(static_cast<wchar_t>(cp));
  ::uselocale(previous);
  return width < 0 ? 1 : static_cast<size_t>(width);
}

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) width += ColumnWidth(Next(text, &i));
  return width;
}

std::string ShortenForMessage(std::string_view text) {
  constexpr size_t kMaxEchoBytes = 120;
  if (text.size() <= kMaxEchoBytes) return std::string(text);
  size_t cut = kMaxEchoBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep code points whole
  return std::string(text.substr(0, cut)) + "… (" + std::to_string(text.size()) + " bytes)";
}

std::string ShortenQuotedToken(std::string_view message) {
  size_t open = message.find('\'');
  size_t close = message.rfind('\'');
  if (open == std::string_view::npos || close <= open) return std::string(message);
  return std::string(message.substr(0, open + 1)) + ShortenForMessage(message.substr(open + 1, close - open - 1)) +
         std::string(message.substr(close));
}

}  // namespace omnigraph::utf8
