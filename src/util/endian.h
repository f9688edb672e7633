// Little-endian loads and stores for file formats. Lance and Arrow store every
// integer little-endian; these helpers keep byte-order and alignment handling
// in one place (memcpy compiles to a plain load on x86-64).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace omnigraph {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "big-endian hosts are not supported");

template <typename T>
inline T LoadLE(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
inline void StoreLE(void* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

template <typename T>
inline void AppendLE(std::vector<uint8_t>* out, T value) {
  size_t at = out->size();
  out->resize(at + sizeof(T));
  std::memcpy(out->data() + at, &value, sizeof(T));
}

inline void AppendBytes(std::vector<uint8_t>* out, const void* data, size_t size) {
  if (size == 0) return;
  const auto* bytes = static_cast<const uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

// Appends `fill` bytes until out->size() is a multiple of `alignment`.
inline void PadTo(std::vector<uint8_t>* out, size_t alignment, uint8_t fill = 0) {
  size_t rem = out->size() % alignment;
  if (rem != 0) out->insert(out->end(), alignment - rem, fill);
}

}  // namespace omnigraph
