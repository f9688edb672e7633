// UTF-8 decoding and Unicode character properties shared by the text
// analyzer (exec/text_search.h) and the table output (exec/result_format.h).
// Classification, case and display width come from glibc's C.UTF-8 locale,
// used through the *_l functions so the process locale is never changed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace omnigraph::utf8 {

// U+FFFD: what an invalid or truncated sequence decodes to.
inline constexpr char32_t kReplacement = 0xFFFD;

// U+FEFF encoded: the byte-order mark some editors put at the start of a
// UTF-8 file. Sources and data files may start with one; it is skipped.
inline constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Decodes the code point at text[*i] and advances *i past it. An invalid
// or truncated sequence yields kReplacement and advances one byte.
// Precondition: *i < text.size().
char32_t Next(std::string_view text, size_t* i);

// Appends the UTF-8 encoding of `cp` (a valid scalar value) to `out`.
void Append(char32_t cp, std::string* out);

// '0'..'9' only: the digits of every grammar and date format we parse
// (a locale's other digits never are).
inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// Unicode letter or digit (ASCII rules without a C.UTF-8 locale).
bool IsLetterOrDigit(char32_t cp);

// Simple (one-to-one) lower-case mapping.
char32_t ToLower(char32_t cp);

// Terminal columns of `cp`: 2 for East Asian wide and full-width
// characters, 0 for combining marks, 1 otherwise (control characters
// included, as they are printed raw).
size_t ColumnWidth(char32_t cp);

// Sum of ColumnWidth over the code points of `text`.
size_t DisplayWidth(std::string_view text);

// `text` for an error message: whole when short, else its first 120 bytes
// (cut at a code point boundary) and "… (N bytes)", so a huge input value
// never becomes a huge message.
std::string ShortenForMessage(std::string_view text);

// `message` with the text between its first and last single quote passed
// through ShortenForMessage: a parser's message quoting an input token
// ("number overflow parsing '…'", "last read: '…'") that can be as long as
// the input.
std::string ShortenQuotedToken(std::string_view message);

}  // namespace omnigraph::utf8
