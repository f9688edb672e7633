// Content checksums that let readers tell corrupt bytes from valid ones.
//
// Lance files carry no checksums, so a flipped bit in a value or in a
// manifest could otherwise decode into different but plausible data. Files
// we write carry a 64-bit XXH3 checksum in an extra protobuf field that Lance
// readers skip as unknown: appended as the last field of the message it
// covers (manifests, transactions, column metadata, page descriptors), so the
// checksum covers exactly the bytes before it and needs no re-serialization
// to verify.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace omnigraph {

// 64-bit XXH3 of `size` bytes, with `seed` (0 = unseeded XXH3).
uint64_t Checksum64(const void* data, size_t size, uint64_t seed = 0);
inline uint64_t Checksum64(std::string_view bytes, uint64_t seed = 0) {
  return Checksum64(bytes.data(), bytes.size(), seed);
}

// Field number of the trailing checksum field in every message we protect.
inline constexpr uint32_t kChecksumFieldNumber = 1000;

// Appends field kChecksumFieldNumber (wire type fixed64) holding
// Checksum64(*message) to serialized protobuf bytes.
void AppendChecksumField(std::string* message);
// The same for a message that occupies `*out` from byte `message_start`
// to its end (one built in place after other bytes), with `seed`: a
// checksum seeded by where the bytes belong (a file's name) also fails when
// intact bytes turn up somewhere else.
void AppendChecksumField(std::string* out, size_t message_start, uint64_t seed = 0);

enum class ChecksumState {
  kAbsent,    // the message does not end with a checksum field
  kValid,     // it does and the checksum matches
  kMismatch,  // it does and the checksum does not match
};

// Examines the last 10 bytes of a serialized message. A message that ends
// with a checksum field by coincidence is vanishingly unlikely (it needs an
// exact 2-byte tag and a matching 64-bit value).
// `seed` must be the one the checksum was appended with.
ChecksumState CheckTrailingChecksum(std::string_view message, uint64_t seed = 0);

}  // namespace omnigraph
