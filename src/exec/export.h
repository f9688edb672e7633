// NDJSON export (spec/surface.md §4.5): edge datasets before node datasets
// (lexical table-key order), rows ordered by id, `data.id` first then every
// property with NULLs included; Date/DateTime as integers, managed Blob
// bytes as "base64:…" (empty: "base64:"), external Blobs as their URI, a
// NULL Blob as null. The output round-trips through a strict load (an
// external URI only where the loading graph's policy admits it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exec/ordered_lines.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

// `types` names node or edge types to export; empty = all. `budget`: the
// process's ordered-scan envelope every table's sort draws from
// (exec/ordered_scan_budget.h; api::Engine::ordered_scans()), nullptr for
// none. Errors: InvalidArgument "unknown export type 'T'", storage errors,
// those of the ordered scan (IoError, ResourceLimitExceeded
// ordered_scan_scratch_bytes).
Result<std::string> ExportGraph(const graph::Snapshot& snapshot, const std::vector<std::string>& types,
                                OrderedScanBudget* budget = nullptr);
// The same export restricted to the tables `include` accepts (a node type
// and an edge type may share a name; this tells them apart). Errors:
// storage errors, the ordered scan's.
Result<std::string> ExportTables(const graph::Snapshot& snapshot,
                                 const std::function<bool(const graph::TableEntry&)>& include,
                                 OrderedScanBudget* budget = nullptr);

// The streaming forms: the same NDJSON handed to `sink` in pieces of about
// kExportChunkBytes, whole lines each, as it is produced. A table is
// scanned kExportScanBatchRows rows at a time and ordered by an external
// merge sort (exec/ordered_lines.h), so an export holds one scan batch, one
// sort run of at most `run_bytes` (less when `budget`'s pool is shared with
// other scans) and one piece, whatever the table's size; larger tables
// spill sorted runs to scratch files. A sink error stops the export and is
// returned. Errors: as above, the sink's, IoError from the scratch files,
// ResourceLimitExceeded when they would pass `budget`'s scratch cap.
inline constexpr size_t kExportChunkBytes = 64 * 1024;
inline constexpr int64_t kExportScanBatchRows = 8192;
using ExportSink = std::function<Status(std::string_view piece)>;
Status ExportGraphTo(const graph::Snapshot& snapshot, const std::vector<std::string>& types, const ExportSink& sink,
                     OrderedScanBudget* budget = nullptr);
Status ExportTablesTo(const graph::Snapshot& snapshot, const std::function<bool(const graph::TableEntry&)>& include,
                      const ExportSink& sink, int64_t run_bytes = kOrderedRunBytes,
                      OrderedScanBudget* budget = nullptr);

// Appends the export JSON of array[row] (the value encoding above), which
// a strict load reads back as the same value.
void AppendExportValueJson(std::string* out, const Array& array, int64_t row);

// Standard base64 with padding.
std::string EncodeBase64(std::string_view bytes);

}  // namespace omnigraph::exec
