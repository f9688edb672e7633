// Encodes one page of a leaf column into Lance 2.1 page buffers plus a
// serialized PageLayout (docs/lance-file-encoding.md §4–§8), or 2.2 ones
// (§15), which differ only for all-null pages:
//   - all-null layout when no visible value is non-null (§6); in a 2.2
//     file that slot is the constant layout, so there a page with levels
//     declares their flat u16 compression, and one without lists uses a
//     mini-block page instead;
//   - full-zip when a value is wider than kMiniBlockMaxValueBytes, or when
//     the levels between two values do not fit a mini-block chunk (§5);
//   - otherwise mini-block: flat u16 rep/def levels, flat / variable /
//     fixed_size_list values, power-of-two chunks of at most 4096 values and
//     32 KiB, Lance's convention for trailing invisible levels, and the
//     repetition index when there are lists (§4).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/data_file.h"
#include "lance/leaf_values.h"
#include "lance/repdef.h"
#include "util/status.h"

namespace omnigraph::lance {

// Values wider than this go to full-zip pages (two always fit a chunk).
inline constexpr uint64_t kMiniBlockMaxValueBytes = 8 * 1024;
// Hard limits of a mini-block chunk (12-bit size field in 8-byte units).
inline constexpr uint64_t kMiniBlockMaxChunkBytes = 32 * 1024;
inline constexpr uint64_t kMiniBlockMaxChunkValues = 4096;

// One finished page: its buffers in order and its PageLayout message.
struct EncodedPage {
  std::vector<std::vector<uint8_t>> buffers;
  std::string layout;  // serialized lance.encodings21.PageLayout
  uint64_t num_rows = 0;
};

// A finalized page (ShreddedPage after Finalize) or a row-aligned part of it.
struct PageInput {
  const LeafPath* path = nullptr;
  const std::vector<Layer>* layers = nullptr;  // innermost first
  const uint16_t* rep = nullptr;               // whole-page levels; null when absent
  const uint16_t* def = nullptr;
  uint64_t level_begin = 0, level_end = 0;  // levels of this input
  const LeafValues* values = nullptr;
  uint64_t value_begin = 0, value_end = 0;  // visible values of this input
  uint64_t num_rows = 0;
  uint64_t non_null_values = 0;
  FileVersion version = FileVersion::kV2_1;  // of the file the page goes to
};

// Encodes `input` into `out`, replacing its contents: usually one page; a
// boolean page whose levels cannot be chunked is split into several pages
// at row boundaries. Elements already in `out` are reused (their buffers
// keep their capacity). InvalidArgument (naming `column`) only when a single
// boolean row cannot be encoded at all.
Status EncodePage(const PageInput& input, std::vector<EncodedPage>* out, std::string_view column);

// The individual layouts, exposed for tests. EncodeMiniBlock returns false
// (and leaves `out` unspecified) when a chunk would exceed its limits.
void EncodeAllNull(const PageInput& input, EncodedPage* out);
void EncodeFullZip(const PageInput& input, EncodedPage* out);
bool EncodeMiniBlock(const PageInput& input, EncodedPage* out);

}  // namespace omnigraph::lance
