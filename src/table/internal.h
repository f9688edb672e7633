// Helpers shared by the table layer's translation units (not a public API).
#pragma once

#include <string>
#include <vector>

#include "lance/data_file.h"
#include "lance/manifest.h"
#include "lance/transaction.h"
#include "table/dataset.h"

namespace omnigraph::table::internal {

// The file format of the data files, and the manifest's data storage
// version, of a table with `schema` committed on top of `base`: 2.2 when
// the base is at 2.2 or the schema holds a blob v2 field (a Blob property;
// engine.md §1.2), 2.1 otherwise. A table never goes back from 2.2.
lance::FileVersion TableFileVersion(const lance::Manifest& base, const Schema& schema);
// "2.1" or "2.2".
std::string DataFormatVersionString(lance::FileVersion version);

// Writes `batches` under `{branch_root}/data/` as fragments of at most
// `max_rows_per_file` rows (fragment ids left 0 for the commit to assign)
// in file format `version` (overriding file_options.version). Appends the
// store keys of written files to `written`.
Result<std::vector<lance::Fragment>> WriteFragments(ObjectStore* store, const std::string& branch_root,
                                                    const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                                                    uint64_t max_rows_per_file,
                                                    const lance::DataFileWriterOptions& file_options,
                                                    lance::FileVersion version, std::vector<std::string>* written);

// Staging writes data and deletion files under fresh random names with
// deferred durability; the commit syncs them together.
inline constexpr WriteOptions kDeferredWrite{/*durable=*/false, /*direct=*/true};

// Writes the transaction file and the manifest of `manifest.version` under
// `{branch_root}/_versions/` and makes them, and `staged_files`, durable
// before returning.
// - Linear versions: the staged files, the transaction file, `sync_with`
//   and the new manifest's temporary copy are synced in one batch, then the
//   manifest is linked into place (put-if-absent), so it is visible only
//   once everything it names is durable; a concurrent writer of the same
//   version loses with CommitConflict.
// - Detached versions: nothing can name the manifest until the caller
//   publishes its id, so all files are written first and synced together
//   (one batch of barriers); the transaction is stored only inline in the
//   manifest (no `_transactions/` file).
struct PublishedManifest {
  std::string path;
  uint64_t size = 0;
  std::string transaction_section;
};
// Sets manifest->transaction_file to what was written (empty when the
// transaction is inline only: detached versions, or !transaction_file).
Result<PublishedManifest> WriteManifest(ObjectStore* store, const std::string& branch_root, lance::Manifest* manifest,
                                        const lance::Transaction& transaction,
                                        const std::vector<std::string>& staged_files,
                                        const std::vector<std::string>& sync_with = {},
                                        std::vector<std::string>* deferred = nullptr, bool transaction_file = true);

// Reads, verifies and decodes the deletion vector of `fragment` (which must
// have a deletion file). Errors: NotFound, CorruptData (checksum mismatch,
// count differs from the manifest, an offset past the fragment's rows).
Result<std::vector<uint32_t>> ReadDeletedOffsets(const Dataset& dataset, const lance::Fragment& fragment);

// Reads and decodes the manifest at `path`.
Result<lance::ManifestFile> ReadManifest(ObjectStore* store, const std::string& path);

// Checks that a record batch matches `schema` by names, types and
// nullability (ids aside). InvalidArgument names the first mismatch.
Status CheckBatchMatchesSchema(const RecordBatch& batch, const Schema& schema);

// New random data file name: 32 hex digits + ".lance".
std::string NewDataFileName();

// Unix epoch nanoseconds.
int64_t NowNanos();

}  // namespace omnigraph::table::internal
