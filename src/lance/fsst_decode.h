// FSST string decompression with Lance's serialized symbol table
// (docs/lance-file-encoding.md §10.5). Decoding only: our writer never
// compresses strings.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::lance {

// A parsed symbol table: up to 255 symbols of 1..8 bytes.
class FsstSymbolTable {
 public:
  // Parses `bytes`: u64 header (bits 32..63 = "FSST" 0x46535354, bit 24 =
  // compression enabled, bits 0..7 = symbol count n), n 8-byte symbols at
  // offset 8, n u8 lengths at offset 8 + 8n. CorruptData (prefixed with
  // `where`) for a short table, a bad magic or a symbol longer than 8 bytes.
  static Result<FsstSymbolTable> Parse(std::string_view bytes, std::string_view where);

  bool enabled() const { return enabled_; }
  int num_symbols() const { return num_symbols_; }

  // Appends the expansion of `size` compressed bytes to `out`: code c < n
  // emits symbol c; code 255 emits the next byte literally. When compression
  // is disabled the bytes are copied. CorruptData for an unknown code or a
  // dangling escape.
  Status Decode(const uint8_t* data, size_t size, std::vector<uint8_t>* out, std::string_view where) const;

 private:
  bool enabled_ = false;
  int num_symbols_ = 0;
  uint8_t symbols_[255][8] = {};
  uint8_t lengths_[255] = {};
};

}  // namespace omnigraph::lance
