// ULIDs: 128-bit ids (48-bit millisecond timestamp + 80 random bits) spelled
// as 26 Crockford base32 characters, upper case. Used for genesis commit ids,
// unkeyed entity ids and branch incarnations (spec/engine.md §2.2,
// spec/surface.md §1.7).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace omnigraph {

struct Ulid {
  std::array<uint8_t, 16> bytes{};

  // A new ULID for the current time. Ids minted by one process within the
  // same millisecond increase strictly (the random part is incremented), so
  // they sort in creation order.
  static Ulid New();
  static Ulid FromParts(uint64_t unix_ms, uint64_t random_high16, uint64_t random_low64);
  // Parses the canonical 26-character spelling (case-insensitive, Crockford
  // aliases I/L -> 1, O -> 0 accepted); false if malformed or overflowing.
  static bool Parse(std::string_view text, Ulid* out);

  uint64_t unix_ms() const;
  // Canonical upper-case spelling.
  std::string ToString() const;
  static constexpr size_t kTextLength = 26;
  // Writes the canonical spelling to out[0, kTextLength), without allocating.
  void Format(char* out) const;
  bool operator==(const Ulid&) const = default;
  bool operator<(const Ulid& other) const { return bytes < other.bytes; }
};

// True when `text` is exactly a canonical upper-case ULID spelling.
bool IsCanonicalUlid(std::string_view text);

}  // namespace omnigraph
