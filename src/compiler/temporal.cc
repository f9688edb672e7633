#include "compiler/temporal.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "util/utf8.h"

namespace omnigraph::compiler {

namespace {

constexpr int64_t kMsPerDay = 86'400'000;

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return (m == 2 && IsLeap(y)) ? 29 : kDays[m - 1];
}

// Civil date of a day count (Howard Hinnant's algorithm).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const uint64_t doe = static_cast<uint64_t>(z - era * 146097);
  const uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t year = static_cast<int64_t>(yoe) + era * 400;
  const uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  *y = year + (*m <= 2 ? 1 : 0);
}


// Reads between `min` and `max` digits at `*pos`.
bool ReadNumber(std::string_view s, size_t* pos, size_t min, size_t max, int64_t* out) {
  size_t start = *pos;
  int64_t v = 0;
  while (*pos < s.size() && *pos - start < max && utf8::IsAsciiDigit(s[*pos])) {
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
  }
  if (*pos - start < min) return false;
  *out = v;
  return true;
}

bool ValidDate(int64_t y, int64_t m, int64_t d) {
  return m >= 1 && m <= 12 && d >= 1 && d <= static_cast<int64_t>(DaysInMonth(y, static_cast<unsigned>(m)));
}

// `[±]YYYY-M[M]-D[D]` at the start of `s` (`[±]YYYY-MM-DD` when
// `two_digit_fields`: the date of a timestamp); advances `*pos`.
bool ReadDashedDate(std::string_view s, size_t* pos, int64_t* days, bool two_digit_fields = false) {
  const size_t min_field_digits = two_digit_fields ? 2 : 1;
  size_t p = *pos;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) {
    negative = s[p] == '-';
    ++p;
  }
  int64_t y = 0, m = 0, d = 0;
  if (!ReadNumber(s, &p, 4, 6, &y)) return false;
  if (p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!ReadNumber(s, &p, min_field_digits, 2, &m)) return false;
  if (p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!ReadNumber(s, &p, min_field_digits, 2, &d)) return false;
  if (negative) y = -y;
  if (!ValidDate(y, m, d)) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  *pos = p;
  return true;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const uint64_t yoe = static_cast<uint64_t>(y - era * 400);
  const uint64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const uint64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::optional<int32_t> ParseDate(std::string_view text) {
  // YYYYMMDD
  if (text.size() == 8 && std::all_of(text.begin(), text.end(), utf8::IsAsciiDigit)) {
    int64_t y = std::stoll(std::string(text.substr(0, 4)));
    int64_t m = std::stoll(std::string(text.substr(4, 2)));
    int64_t d = std::stoll(std::string(text.substr(6, 2)));
    if (!ValidDate(y, m, d)) return std::nullopt;
    return static_cast<int32_t>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
  }
  size_t pos = 0;
  int64_t days = 0;
  if (ReadDashedDate(text, &pos, &days) && pos == text.size()) {
    if (days < INT32_MIN || days > INT32_MAX) return std::nullopt;
    return static_cast<int32_t>(days);
  }
  if (text.size() > 10) {
    std::optional<int64_t> ms = ParseDateTime(text);
    if (!ms) return std::nullopt;
    int64_t d = *ms / kMsPerDay;
    if (*ms % kMsPerDay < 0) --d;
    return static_cast<int32_t>(d);
  }
  return std::nullopt;
}

std::optional<int64_t> ParseDateTime(std::string_view text) {
  if (text.size() <= 10) {
    std::optional<int32_t> d = ParseDate(text);
    if (!d) return std::nullopt;
    return static_cast<int64_t>(*d) * kMsPerDay;
  }
  size_t p = 0;
  int64_t days = 0;
  if (!ReadDashedDate(text, &p, &days, /*two_digit_fields=*/true)) return std::nullopt;
  if (p >= text.size() || (text[p] != 'T' && text[p] != 't' && text[p] != ' ')) return std::nullopt;
  ++p;
  int64_t hh = 0, mm = 0, ss = 0, ms = 0;
  if (!ReadNumber(text, &p, 2, 2, &hh)) return std::nullopt;
  if (p >= text.size() || text[p] != ':') return std::nullopt;
  ++p;
  if (!ReadNumber(text, &p, 2, 2, &mm)) return std::nullopt;
  if (p < text.size() && text[p] == ':') {
    ++p;
    if (!ReadNumber(text, &p, 2, 2, &ss)) return std::nullopt;
    if (p < text.size() && text[p] == '.') {
      ++p;
      size_t start = p;
      int64_t scale = 100;
      while (p < text.size() && utf8::IsAsciiDigit(text[p])) {
        ms += (text[p] - '0') * scale;
        scale /= 10;
        ++p;
      }
      if (p == start) return std::nullopt;
    }
  }
  if (hh > 23 || mm > 59 || ss > 60) return std::nullopt;
  int64_t offset_minutes = 0;
  if (p < text.size()) {
    char c = text[p];
    if (c == 'Z' || c == 'z') {
      ++p;
    } else if (c == '+' || c == '-') {
      ++p;
      int64_t oh = 0, om = 0;
      if (!ReadNumber(text, &p, 2, 2, &oh)) return std::nullopt;
      // `±hh`, `±hhmm` or `±hh:mm`: a colon must be followed by minutes.
      const bool colon = p < text.size() && text[p] == ':';
      if (colon) ++p;
      if (colon || p < text.size()) {
        if (!ReadNumber(text, &p, 2, 2, &om)) return std::nullopt;
      }
      if (oh > 23 || om > 59) return std::nullopt;
      offset_minutes = (oh * 60 + om) * (c == '-' ? -1 : 1);
    }
  }
  if (p != text.size()) return std::nullopt;
  int64_t seconds = days * 86400 + hh * 3600 + mm * 60 + ss - offset_minutes * 60;
  return seconds * 1000 + ms;
}

std::string FormatDate(int64_t epoch_days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(epoch_days, &y, &m, &d);
  if (y >= 0 && y <= 9999) return fmt::format("{:04}-{:02}-{:02}", y, m, d);
  return fmt::format("{}{:04}-{:02}-{:02}", y < 0 ? "-" : "+", y < 0 ? -y : y, m, d);
}

std::string FormatDateTime(int64_t epoch_ms) {
  int64_t days = epoch_ms / kMsPerDay;
  int64_t rem = epoch_ms % kMsPerDay;
  if (rem < 0) {
    rem += kMsPerDay;
    --days;
  }
  int64_t secs = rem / 1000;
  return fmt::format("{}T{:02}:{:02}:{:02}.{:03}Z", FormatDate(days), secs / 3600, (secs / 60) % 60, secs % 60,
                     rem % 1000);
}

}  // namespace omnigraph::compiler
