#include "util/checksum.h"

#include <cstring>

#include <xxhash.h>

namespace omnigraph {
namespace {

// Tag of field 1000, wire type 1 (fixed64): varint of (1000 << 3) | 1 = 8001.
constexpr char kTag[2] = {static_cast<char>(0xC1), static_cast<char>(0x3E)};
constexpr size_t kFieldBytes = 2 + 8;

}  // namespace

uint64_t Checksum64(const void* data, size_t size, uint64_t seed) { return XXH3_64bits_withSeed(data, size, seed); }

void AppendChecksumField(std::string* message) { AppendChecksumField(message, 0); }

void AppendChecksumField(std::string* out, size_t message_start, uint64_t seed) {
  uint64_t sum = Checksum64(std::string_view(*out).substr(message_start), seed);
  out->append(kTag, 2);
  out->append(reinterpret_cast<const char*>(&sum), 8);
}

ChecksumState CheckTrailingChecksum(std::string_view message, uint64_t seed) {
  if (message.size() < kFieldBytes) return ChecksumState::kAbsent;
  std::string_view tail = message.substr(message.size() - kFieldBytes);
  if (tail[0] != kTag[0] || tail[1] != kTag[1]) return ChecksumState::kAbsent;
  uint64_t stored;
  std::memcpy(&stored, tail.data() + 2, 8);
  return Checksum64(message.substr(0, message.size() - kFieldBytes), seed) == stored ? ChecksumState::kValid
                                                                                : ChecksumState::kMismatch;
}

}  // namespace omnigraph
