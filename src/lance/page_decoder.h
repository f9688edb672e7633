// Decodes one Lance 2.1 or 2.2 page of a leaf column into levels plus
// visible values (docs/lance-file-encoding.md §4–§6, §9, §15): mini-block
// (with dictionary; 2.2 large chunks), full-zip, and all-null (2.1) or
// constant (2.2, the same slot) layouts. Refuses, with Unsupported naming
// the feature, blob and sparse layouts, constant pages of fixed-size lists
// and any encoding value_decoders.h does not implement.
//
// Internal to src/lance (exposes generated protobuf types).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "encodings21.pb.h"
#include "lance/leaf_values.h"
#include "lance/repdef.h"
#include "util/buffer.h"
#include "util/status.h"

namespace omnigraph::lance {

struct DecodedPage {
  std::vector<Layer> layers;  // innermost first
  uint64_t num_rows = 0;
  // A page of a single NULLABLE_ITEM layer without buffers: every row is
  // one null level, nothing is materialized.
  bool all_null_rows = false;
  std::vector<uint16_t> rep;  // empty when the page has no lists
  std::vector<uint16_t> def;  // empty when every level is 0
  uint64_t num_levels = 0;
  LeafValues values;  // visible values, nulls zeroed
  // First level and first value of each row, plus totals (num_rows + 1
  // entries); empty when levels, values and rows coincide (no lists).
  std::vector<uint64_t> row_level;
  std::vector<uint64_t> row_value;

  uint64_t RowLevel(uint64_t row) const { return row_level.empty() ? row : row_level[row]; }
  uint64_t RowValue(uint64_t row) const { return row_value.empty() ? row : row_value[row]; }
};

// Returns the bytes of page buffer `index` (the caller validated its range).
using PageBufferReader = std::function<Result<BufferPtr>(size_t index)>;

// Decodes a page of `num_rows` rows of the leaf `path`. `buffer_sizes`
// lists the page's buffers; only the ones needed are read. Errors are
// prefixed with `where`: CorruptData for inconsistent bytes or counts,
// Unsupported for layouts and encodings outside the implemented set.
Status DecodePage(const ::lance::encodings21::PageLayout& layout, const LeafPath& path, uint64_t num_rows,
                  const std::vector<uint64_t>& buffer_sizes, const PageBufferReader& read, DecodedPage* out,
                  std::string_view where);

}  // namespace omnigraph::lance
