// SHA-256, for content identities that other tools must be able to
// recompute (cluster digests and ledger CAS tokens, spec/cluster.md §1.8,
// §2.2; bearer-token digests, server.md §1.4). Internal checksums use
// XXH3 (checksum.h); this is for identities, not speed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace omnigraph {

// The 32-byte SHA-256 digest of `bytes`.
std::array<uint8_t, 32> Sha256(std::string_view bytes);
// The same as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace omnigraph
