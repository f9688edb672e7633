#include "util/random.h"

#include <pthread.h>

#include <atomic>
#include <random>

#include "util/hex.h"

namespace omnigraph {
namespace {

// Bumped in the child after fork(2), so a forked process never repeats its
// parent's random sequence (which would give both the same "random" file
// names, UUIDs and detached version ids).
std::atomic<uint64_t> fork_generation{0};

std::mt19937_64 SeededGenerator() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device()};
  return std::mt19937_64(seed);
}

std::mt19937_64& ThreadGenerator() {
  thread_local uint64_t seeded_generation = ForkGeneration();
  thread_local std::mt19937_64 generator = SeededGenerator();
  uint64_t generation = ForkGeneration();
  if (generation != seeded_generation) {
    generator = SeededGenerator();
    seeded_generation = generation;
  }
  return generator;
}

}  // namespace

uint64_t ForkGeneration() {
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1, std::memory_order_relaxed); });
    return true;
  }();
  (void)registered;
  return fork_generation.load(std::memory_order_relaxed);
}

uint64_t RandomU64() { return ThreadGenerator()(); }

Uuid Uuid::Random() {
  Uuid uuid;
  uint64_t hi = RandomU64(), lo = RandomU64();
  for (int i = 0; i < 8; ++i) {
    uuid.bytes[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    uuid.bytes[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  uuid.bytes[6] = (uuid.bytes[6] & 0x0f) | 0x40;  // version 4
  uuid.bytes[8] = (uuid.bytes[8] & 0x3f) | 0x80;  // RFC 4122 variant
  return uuid;
}

bool Uuid::Parse(std::string_view text, Uuid* out) {
  if (text.size() != 36) return false;
  size_t byte = 0;
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
      ++i;
      continue;
    }
    int high = HexDigitValue(text[i]), low = HexDigitValue(text[i + 1]);
    if (high < 0 || low < 0) return false;
    out->bytes[byte++] = static_cast<uint8_t>(high * 16 + low);
    i += 2;
  }
  return byte == 16;
}

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
}  // namespace

std::string Uuid::ToHex() const {
  std::string hex(32, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    hex[2 * i] = kHexDigits[bytes[i] >> 4];
    hex[2 * i + 1] = kHexDigits[bytes[i] & 0xf];
  }
  return hex;
}

std::string Uuid::ToString() const {
  // 8-4-4-4-12 groups of hex digits.
  std::string text(36, '-');
  size_t out = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) ++out;
    text[out++] = kHexDigits[bytes[i] >> 4];
    text[out++] = kHexDigits[bytes[i] & 0xf];
  }
  return text;
}

}  // namespace omnigraph
