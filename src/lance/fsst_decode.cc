#include "lance/fsst_decode.h"

#include <fmt/format.h>

#include <cstring>

#include "util/endian.h"

namespace omnigraph::lance {
namespace {

constexpr uint64_t kFsstMagic = 0x46535354;
constexpr uint8_t kEscape = 255;

}  // namespace

Result<FsstSymbolTable> FsstSymbolTable::Parse(std::string_view bytes, std::string_view where) {
  if (bytes.size() < 8) {
    return CorruptData(
        fmt::format("{}: FSST symbol table of {} bytes is shorter than its header", where, bytes.size()));
  }
  uint64_t header = LoadLE<uint64_t>(bytes.data());
  if ((header >> 32) != kFsstMagic) {
    return CorruptData(fmt::format("{}: FSST symbol table has bad magic {:#x}", where, header >> 32));
  }
  FsstSymbolTable table;
  table.enabled_ = ((header >> 24) & 1) != 0;
  table.num_symbols_ = static_cast<int>(header & 0xFF);
  size_t n = static_cast<size_t>(table.num_symbols_);
  if (bytes.size() < 8 + 9 * n) {
    return CorruptData(fmt::format("{}: FSST symbol table of {} bytes cannot hold {} symbols", where, bytes.size(), n));
  }
  for (size_t i = 0; i < n; ++i) {
    uint8_t length = static_cast<uint8_t>(bytes[8 + 8 * n + i]);
    if (length > 8) return CorruptData(fmt::format("{}: FSST symbol {} has length {}", where, i, length));
    table.lengths_[i] = length;
    std::memcpy(table.symbols_[i], bytes.data() + 8 + 8 * i, 8);
  }
  return table;
}

Status FsstSymbolTable::Decode(const uint8_t* data, size_t size, std::vector<uint8_t>* out,
                               std::string_view where) const {
  if (!enabled_) {
    out->insert(out->end(), data, data + size);
    return Status::OK();
  }
  // Every code expands to at most 8 bytes; grow once, trim at the end.
  size_t at = out->size();
  out->resize(at + size * 8);
  uint8_t* dst = out->data() + at;
  size_t written = 0;
  for (size_t i = 0; i < size; ++i) {
    uint8_t code = data[i];
    if (code == kEscape) {
      if (++i == size) return CorruptData(fmt::format("{}: FSST string ends in an escape code", where));
      dst[written++] = data[i];
      continue;
    }
    if (code >= num_symbols_) {
      return CorruptData(fmt::format("{}: FSST code {} with only {} symbols", where, code, num_symbols_));
    }
    // Symbols are stored in 8-byte slots, so copying all 8 is safe; only
    // `length` bytes count.
    std::memcpy(dst + written, symbols_[code], 8);
    written += lengths_[code];
  }
  out->resize(at + written);
  return Status::OK();
}

}  // namespace omnigraph::lance
