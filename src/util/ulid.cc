#include "util/ulid.h"

#include <chrono>
#include <mutex>

#include "util/random.h"

namespace omnigraph {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int DecodeChar(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  if (c == 'I' || c == 'L') return 1;
  if (c == 'O') return 0;
  for (int i = 0; i < 32; ++i) {
    if (kAlphabet[i] == c) return i;
  }
  return -1;
}

}  // namespace

Ulid Ulid::FromParts(uint64_t unix_ms, uint64_t random_high16, uint64_t random_low64) {
  Ulid u;
  for (int i = 0; i < 6; ++i) u.bytes[i] = static_cast<uint8_t>(unix_ms >> (40 - 8 * i));
  u.bytes[6] = static_cast<uint8_t>(random_high16 >> 8);
  u.bytes[7] = static_cast<uint8_t>(random_high16);
  for (int i = 0; i < 8; ++i) u.bytes[8 + i] = static_cast<uint8_t>(random_low64 >> (56 - 8 * i));
  return u;
}

Ulid Ulid::New() {
  static std::mutex mutex;
  static Ulid last;
  static uint64_t last_generation = 0;
  static bool minted = false;
  uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  std::lock_guard<std::mutex> lock(mutex);
  // A forked child never continues its parent's monotonic sequence
  // (children forked in one millisecond would all mint last+1).
  const uint64_t generation = ForkGeneration();
  const bool inherited = !minted || generation != last_generation;
  last_generation = generation;
  minted = true;
  Ulid next;
  if (!inherited && now <= last.unix_ms()) {
    // Same (or earlier) millisecond: increment the 80-bit random part.
    next = last;
    for (int i = 15; i >= 6; --i) {
      if (++next.bytes[i] != 0) break;
    }
  } else {
    next = FromParts(now, RandomU64() & 0xffff, RandomU64());
  }
  last = next;
  return next;
}

uint64_t Ulid::unix_ms() const {
  uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | bytes[i];
  return ms;
}

void Ulid::Format(char* out) const {
  // 128 bits as 26 base32 digits: the first digit carries the top 3 bits.
  unsigned __int128 value = 0;
  for (uint8_t b : bytes) value = (value << 8) | b;
  for (int i = static_cast<int>(kTextLength) - 1; i >= 0; --i) {
    out[i] = kAlphabet[static_cast<int>(value & 31)];
    value >>= 5;
  }
}

std::string Ulid::ToString() const {
  std::string out(kTextLength, '0');
  Format(out.data());
  return out;
}

bool Ulid::Parse(std::string_view text, Ulid* out) {
  if (text.size() != 26) return false;
  unsigned __int128 value = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int d = DecodeChar(text[i]);
    if (d < 0) return false;
    if (i == 0 && d > 7) return false;  // would overflow 128 bits
    value = (value << 5) | static_cast<unsigned>(d);
  }
  for (int i = 15; i >= 0; --i) {
    out->bytes[i] = static_cast<uint8_t>(value & 0xff);
    value >>= 8;
  }
  return true;
}

bool IsCanonicalUlid(std::string_view text) {
  Ulid u;
  return Ulid::Parse(text, &u) && u.ToString() == text;
}

}  // namespace omnigraph
