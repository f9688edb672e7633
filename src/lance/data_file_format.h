// Container constants of Lance 2.1 data files shared by the writer and the
// reader (docs/lance-file-encoding.md §1).
#pragma once

#include <cstdint>
#include <string_view>

namespace omnigraph::lance {

// Footer: u64 column_meta_start | u64 cmo_table_pos | u64 gbo_table_pos |
// u32 num_global_buffers | u32 num_columns | u16 major | u16 minor | "LANC".
inline constexpr uint64_t kFooterBytes = 40;
inline constexpr std::string_view kFileMagic = "LANC";
inline constexpr uint16_t kFormatMajor = 2;
inline constexpr uint16_t kFormatMinor = 1;
// Every page buffer and global buffer starts at a multiple of this.
inline constexpr uint64_t kBufferAlignment = 64;

inline constexpr std::string_view kPageLayoutTypeUrl = "/lance.encodings21.PageLayout";
inline constexpr std::string_view kColumnEncodingTypeUrl = "/lance.encodings.ColumnEncoding";

}  // namespace omnigraph::lance
