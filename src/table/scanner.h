// Streaming scans over one dataset version: column projection, a row
// predicate, deletion vectors honoured, rows in fragment order, bounded
// memory (one decoded page per projected column plus one output batch).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "table/dataset.h"
#include "table/predicate.h"

namespace omnigraph::table {

// Name of the optional row-address column: (fragment id << 32) | row offset.
inline constexpr std::string_view kRowAddressColumn = "_rowaddr";

struct ScanOptions {
  // Top-level columns to return, in this order; empty = every column.
  std::vector<std::string> columns;
  Predicate filter;
  // Rows per output batch (an upper bound; batches never span fragments).
  int64_t batch_rows = 64 * 1024;
  // Appends a UInt64 `_rowaddr` column.
  bool with_row_address = false;
  // Restricts the scan to these fragment ids (in manifest order); empty = all.
  std::vector<uint64_t> fragment_ids;
  // Stops after this many output rows.
  std::optional<uint64_t> limit;
};

class Scanner {
 public:
  virtual ~Scanner() = default;
  // Output schema: the projected fields (plus `_rowaddr`).
  virtual const SchemaPtr& schema() const = 0;
  // Next batch, or nullptr at the end. Errors: CorruptData / Unsupported /
  // NotFound from data and deletion files, naming the file.
  virtual Result<RecordBatchPtr> Next() = 0;
};

// Errors: InvalidArgument for an unknown column or an invalid predicate.
Result<std::unique_ptr<Scanner>> MakeScanner(const Dataset& dataset, const ScanOptions& options);

}  // namespace omnigraph::table
