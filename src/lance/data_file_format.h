// Container constants of Lance 2.1 and 2.2 data files shared by the writer
// and the reader (docs/lance-file-encoding.md §1, §15).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "util/checksum.h"

namespace omnigraph::lance {

// Footer: u64 column_meta_start | u64 cmo_table_pos | u64 gbo_table_pos |
// u32 num_global_buffers | u32 num_columns | u16 major | u16 minor | "LANC".
inline constexpr uint64_t kFooterBytes = 40;
inline constexpr std::string_view kFileMagic = "LANC";
inline constexpr uint16_t kFormatMajor = 2;
// Minor versions read and written: 1 and 2 (data_file.h FileVersion).
inline constexpr uint16_t kFormatMinorMin = 1;
inline constexpr uint16_t kFormatMinorMax = 2;
// Every page buffer and global buffer starts at a multiple of this.
inline constexpr uint64_t kBufferAlignment = 64;

inline constexpr std::string_view kPageLayoutTypeUrl = "/lance.encodings21.PageLayout";
inline constexpr std::string_view kColumnEncodingTypeUrl = "/lance.encodings.ColumnEncoding";

// Checksums (util/checksum.h) in files we write; Lance skips them as unknown
// protobuf fields:
//   - the FileDescriptor and every ColumnMetadata end with a checksum field
//     over their own bytes (AppendChecksumField);
//   - every ColumnMetadata.Page carries field kChecksumFieldNumber (fixed64)
//     = PageChecksum of its buffers, so flipped value bytes are detected.
// A file whose FileDescriptor has a valid checksum is ours: its column
// metadata and pages must then carry checksums too.
inline uint64_t PageChecksum(const std::vector<std::string_view>& buffers) {
  // XXH3-64 of the little-endian XXH3-64 of each buffer, in order.
  std::vector<uint64_t> sums;
  sums.reserve(buffers.size());
  for (std::string_view b : buffers) sums.push_back(Checksum64(b));
  return Checksum64(sums.data(), sums.size() * sizeof(uint64_t));
}

}  // namespace omnigraph::lance
