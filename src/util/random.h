// Randomness for identifiers: file names, transaction UUIDs, detached
// version ids, deletion-file ids. Thread-safe; seeded from the OS.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace omnigraph {

uint64_t RandomU64();

// How many fork(2)s this process descends from (0 in the original process).
// A sequence that must never repeat across a fork (random streams, ULID
// monotonicity) restarts when this changes; reading it is one relaxed load.
uint64_t ForkGeneration();

// A random (version 4) UUID.
struct Uuid {
  std::array<uint8_t, 16> bytes{};

  static Uuid Random();
  // Parses the canonical 36-character form; false if malformed.
  static bool Parse(std::string_view text, Uuid* out);
  // Canonical lower-case "8-4-4-4-12" form.
  std::string ToString() const;
  // 32 lower-case hex digits, no dashes.
  std::string ToHex() const;
  bool operator==(const Uuid&) const = default;
};

}  // namespace omnigraph
