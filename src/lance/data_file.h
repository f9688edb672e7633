// Lance data files, file format 2.1 and 2.2 (spec/lance-format.md §2–§3 and
// docs/lance-file-encoding.md).
//
// The writer uses the simplest encodings Lance accepts (mini-block pages of
// flat / variable / fixed-size-list values with flat u16 repetition and
// definition levels, full-zip pages for values too wide for a mini-block
// chunk, all-null pages); the reader reads everything the writer produces
// plus what Lance 8 writes by default (bit-packing, rle, dictionary, fsst,
// general zstd/lz4 full-zip values, and in 2.2 files large mini-block
// chunks and constant pages) and refuses any other layout or compressive
// encoding with an Unsupported error naming it.
//
// A blob v2 field (columnar/blob_cell.h IsBlobV2Field) needs format 2.2:
// the writer turns its cells into a descriptor column plus inline payload
// bytes, and the reader turns descriptors back into cells
// (lance/blob_v2.h, docs/lance-file-encoding.md §15).
//
// Files we write also carry XXH3 checksums (FileDescriptor, column metadata,
// page buffers, blob payloads) in protobuf fields Lance skips; the reader
// verifies them, so damaged bytes give CorruptData instead of different
// values (data_file_format.h).
//
// Implementation: data_file_writer.cc and data_file_reader.cc, on top of
// repdef.h (levels), page_encoder.h / page_decoder.h (layouts),
// value_decoders.h (compressive encodings), leaf_values.h (values) and
// blob_v2.h (blob columns).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::lance {

// Lance file format versions we write (footer major.minor, DataFile
// file_major_version / file_minor_version). 2.2 is required for blob v2
// columns; tables without one stay at 2.1.
enum class FileVersion : uint8_t { kV2_1, kV2_2 };
inline constexpr uint32_t FileMinorVersion(FileVersion v) { return v == FileVersion::kV2_2 ? 2 : 1; }

struct DataFileWriterOptions {
  // A column's page is cut when its encoded buffers reach this size (bytes).
  // Pages are cut at row boundaries, so a single row larger than this gets a
  // page of its own. Each leaf column buffers at most about one page.
  uint64_t page_bytes = 8 << 20;
  // ... or when it holds this many rows.
  uint64_t max_rows_per_page = 1 << 20;
  // How Finish() writes the file; the table layer defers durability so a
  // commit syncs all its new files together (io/object_store.h).
  WriteOptions write;
  // The file format version (footer). In 2.2 files no page uses the 2.1
  // all-null layout's level buffers (2.2 reads that slot as a constant
  // layout); blob v2 fields need 2.2.
  FileVersion version = FileVersion::kV2_1;
};

// What the manifest records about a finished data file.
struct WrittenDataFile {
  std::string path;                     // as given to Open
  uint64_t num_rows = 0;
  uint64_t file_size_bytes = 0;
  std::vector<int32_t> fields;          // field ids that own a column, pre-order
  std::vector<int32_t> column_indices;  // column of each entry in `fields`
  uint32_t file_major_version = 2;
  uint32_t file_minor_version = 1;
};

// Streams record batches into one data file.
class DataFileWriter {
 public:
  // `schema` must carry field ids. Nothing is visible at `path` until
  // Finish() succeeds. Errors: InvalidArgument for a schema without ids,
  // with a type Lance cannot store, or with a blob v2 field when
  // `options.version` is not 2.2 or below the top level; IoError from the
  // store.
  static Result<std::unique_ptr<DataFileWriter>> Open(ObjectStore* store, const std::string& path, SchemaPtr schema,
                                                      DataFileWriterOptions options = {});
  virtual ~DataFileWriter() = default;

  // Appends rows. The batch schema must equal the writer schema (ids aside).
  // Errors: InvalidArgument on a schema mismatch or nulls in a non-nullable
  // column; IoError from the store. After an error other than a schema
  // mismatch the writer is unusable (every later call returns that error)
  // and Finish() publishes nothing.
  virtual Status Write(const RecordBatch& batch) = 0;
  virtual uint64_t rows_written() const = 0;
  // Flushes the remaining pages, writes metadata and footer, and makes the
  // file durable (fsynced) and visible. InvalidArgument in one corner case:
  // a boolean row whose list levels cannot be chunked (more than ~8,000 null
  // or empty lists before one value in a single row; other types fall back
  // to full-zip pages).
  virtual Result<WrittenDataFile> Finish() = 0;
};

// The key of the data file that owns blob sidecar `key`
// ("…/data/<stem>/<32 binary digits>.blob" -> "…/data/<stem>.lance"), or
// "" when `key` is not a sidecar's. Lance stores packed and dedicated blob
// v2 payloads in sidecars no manifest names, so a file collector must keep
// a sidecar as long as its data file.
std::string BlobSidecarOwner(std::string_view key);

// Reads one data file. Thread-compatible (one reader per thread).
// The seed of a data file's descriptor checksum: XXH3 of the file's name
// (the last component of `path`). A file we write can then only be read
// under the name it was written as: another of our data files copied or
// swapped under that name fails its descriptor checksum instead of serving
// another fragment's rows. (Files written before the seed was introduced
// carry an unseeded checksum, which is still accepted.)
uint64_t DataFileChecksumSeed(std::string_view path);

class DataFileReader {
 public:
  // Reads the footer, column metadata and schema. `path` names the file in
  // errors. `sidecars`, when given, is the store holding the file under
  // `key`: packed and dedicated blob v2 payloads (written by Lance) are read
  // from sidecar files next to it; without it such rows read as
  // Unsupported. Errors:
  // NotFound, CorruptData (truncated file, bad magic, offsets outside the
  // file, undecodable metadata, a file of ours under another name than the
  // one it was written as), Unsupported (file version other than 2.1 and
  // 2.2, an unknown layout or encoding, named).
  static Result<std::unique_ptr<DataFileReader>> Open(std::unique_ptr<RandomAccessObject> file,
                                                      ObjectStore* sidecars = nullptr, std::string key = {});
  virtual ~DataFileReader() = default;

  virtual uint64_t num_rows() const = 0;
  // File schema with field ids (FileDescriptor in global buffer 0). A blob
  // v2 column appears as its in-memory field (LargeBinary with the
  // lance.blob.v2 extension name). Top-level fields whose type our columnar
  // layer lacks (int8, binary, large_string, large_list, ...) are left out;
  // ReadField on their id returns Unsupported naming the logical type, and
  // the other fields stay readable.
  virtual const SchemaPtr& schema() const = 0;

  // Reads rows [start, start + count) of the top-level field with id
  // `field_id`. Errors: NotFound when the file holds no such field;
  // InvalidArgument when the range is outside the file; CorruptData /
  // Unsupported as for Open (column metadata and pages are decoded lazily,
  // so their errors surface here). Sequential calls with increasing `start`
  // reuse decoded pages (one cached page per leaf column), so a forward scan
  // decodes each page once. A blob v2 field reads as its cells: payload
  // bytes are fetched (and checksums verified) per call; CorruptData for a
  // damaged payload, Unsupported for a sidecar payload without `sidecars`.
  virtual Result<ArrayPtr> ReadField(int32_t field_id, uint64_t start, uint64_t count) = 0;
};

}  // namespace omnigraph::lance
