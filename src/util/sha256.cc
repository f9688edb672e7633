#include "util/sha256.h"

#include <openssl/evp.h>

namespace omnigraph {

std::array<uint8_t, 32> Sha256(std::string_view bytes) {
  std::array<uint8_t, 32> digest{};
  unsigned int length = 0;
  // EVP_Digest only fails on allocation failure inside OpenSSL, which the
  // process cannot recover from either.
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

std::string Sha256Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::array<uint8_t, 32> digest = Sha256(bytes);
  std::string hex;
  hex.reserve(64);
  for (uint8_t byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 0xf]);
  }
  return hex;
}

}  // namespace omnigraph
