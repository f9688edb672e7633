// Calendar conversions for Date (epoch days, Date32) and DateTime (epoch
// milliseconds UTC, Date64) values: literal parsing for `date("…")`,
// `datetime("…")` and parameters (spec/surface.md §2.1, §2.3, §4.2) and the
// result spellings of §2.10. Proleptic Gregorian calendar, no leap seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace omnigraph::compiler {

// Days since 1970-01-01 of a civil date (no validation).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// Parses a Date: `YYYY-MM-DD` (month and day may have one digit), `YYYYMMDD`,
// or a longer timestamp accepted by ParseDateTime whose UTC date is taken.
// nullopt when malformed or not a real calendar day (2023-02-29).
std::optional<int32_t> ParseDate(std::string_view text);

// Parses a DateTime to epoch milliseconds: text of at most 10 characters is
// a date at 00:00 UTC; otherwise `YYYY-MM-DD` (two-digit month and day) +
// `T` or space + `HH:MM[:SS[.f+]]` + optional `Z`, `±hh`, `±hhmm` or
// `±hh:mm` (no offset = UTC). Fractions beyond milliseconds are truncated.
std::optional<int64_t> ParseDateTime(std::string_view text);

// `YYYY-MM-DD` (years outside 0..9999 print with as many digits as needed
// and a leading `-` when negative).
std::string FormatDate(int64_t epoch_days);
// `YYYY-MM-DDTHH:MM:SS.mmmZ` (always three fractional digits).
std::string FormatDateTime(int64_t epoch_ms);

}  // namespace omnigraph::compiler
