// Lance blob v2 columns (file format 2.2; spec/engine.md §1.2; the facts
// are in docs/lance-file-encoding.md §15): how a Blob field is laid out in
// Lance schemas, how its descriptor pages are encoded and decoded, and how
// descriptors become the in-memory cells of columnar/blob_cell.h.
//
// Schema. In a manifest a blob v2 field is a nullable struct
// {data: large_binary, uri: string} whose Field carries extension_name
// "lance.blob.v2" and the metadata ARROW:extension:name = lance.blob.v2; its
// children take the two ids after the struct's. A data file's
// FileDescriptor holds the descriptor form Lance writes: the struct with
// metadata lance-encoding:blob = lance-encoding:packed = "true", followed by
// five top-level fields with id -1 (kind, position, size, blob_id,
// blob_uri). DataFile.fields lists only the struct's id, with one column.
//
// Column. One full-zip page per page of rows whose values are the
// descriptor struct {kind u8, position u64, size u64, blob_id u32,
// blob_uri utf8} in variable_packed_struct form. Each row is
// [u8 def level, only when the page has nulls][u32 length = 25 + uri
// bytes][kind][position][size][blob_id][u32 uri length][uri], little-endian;
// a null row is its def byte (1) alone.
//
// Payloads. kind 0 (inline): the raw bytes at absolute offset `position`
// of the data file, `size` bytes; our writer stores every managed payload
// inline, whatever its size, right where the file's write position is, and
// records an XXH3-64 of each payload in the page (file2.proto
// Page.blob_payload_checksums). kind 1 (packed) / 2 (dedicated): bytes
// [position, position + size) of the sidecar file
// data/<data file stem>/<blob_id as 32 binary digits, least significant
// first>.blob, which only Lance writes. kind 3 (external): `blob_uri`; our
// writer records position 0 and size 0 (the whole object, as Lance writes
// a URI given without a range).
//
// NULL. A null row has def level 1. Lance's own scans report a null row as
// an all-zero descriptor and its compaction rewrites it so; Lance's blob
// API reads an inline descriptor with position 0, size 0 and no URI as
// NULL. So does ours, and our writer never gives an empty payload
// position 0: NULL and an empty blob stay distinct through Lance's
// compaction as well.
//
// Internal to src/lance (exposes generated protobuf types).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/blob_cell.h"
#include "columnar/builder.h"
#include "encodings21.pb.h"
#include "lance/page_decoder.h"
#include "lance/page_encoder.h"
#include "lance/proto_convert.h"
#include "util/status.h"

namespace omnigraph::lance {

// Descriptor kinds.
enum class BlobKind : uint8_t { kInline = 0, kPacked = 1, kDedicated = 2, kExternal = 3 };

// Field metadata of the descriptor struct in a data file's schema.
inline constexpr std::string_view kBlobEncodingKey = "lance-encoding:blob";
inline constexpr std::string_view kPackedEncodingKey = "lance-encoding:packed";

// One row of a descriptor column.
struct BlobDescriptor {
  bool valid = false;  // false: a null row (def level > 0)
  BlobKind kind = BlobKind::kInline;
  uint64_t position = 0;
  uint64_t size = 0;
  uint32_t blob_id = 0;
  std::string uri;

  // Lance's blob API reads an all-zero inline descriptor as NULL.
  bool IsNull() const {
    return !valid || (kind == BlobKind::kInline && position == 0 && size == 0 && uri.empty());
  }
};

// ---------------------------------------------------------------- schema

// Appends the Lance fields of blob v2 field `field` (IsBlobV2Field):
// the manifest form, or the data file's descriptor form when `data_file`.
void AppendBlobV2Fields(const Field& field, bool data_file, ProtoFields* out);

// Whether a manifest struct field is a blob v2 field: extension_name or
// ARROW:extension:name metadata equal to "lance.blob.v2".
bool IsBlobV2ManifestField(const ::lance::file::Field& proto);
// Whether a data file's struct field is a blob v2 descriptor column: the
// manifest marker, or lance-encoding:blob = "true" on a struct.
bool IsBlobV2FileField(const ::lance::file::Field& proto);

// The in-memory field (columnar/blob_cell.h) of manifest blob field
// `proto` with children `children` (in order). `where` names the file.
// Errors: Unsupported unless the children are exactly data (large_binary)
// and uri (string) with ids proto.id + 1 and + 2.
Result<Field> BlobV2FieldFromManifest(const ::lance::file::Field& proto,
                                      const std::vector<const ::lance::file::Field*>& children,
                                      std::string_view where);

// ---------------------------------------------------------------- writer

// Rows of one descriptor page being built.
class BlobPageBuilder {
 public:
  // Appends a null row.
  void AppendNull();
  // Appends an inline row for `size` payload bytes stored at `position`,
  // whose XXH3-64 is `checksum`.
  void AppendInline(uint64_t position, uint64_t size, uint64_t checksum);
  // Appends an external row referencing `uri`.
  void AppendExternal(std::string_view uri);

  uint64_t num_rows() const { return row_starts_.size(); }
  // Bytes of the zipped rows so far.
  uint64_t buffered_bytes() const { return zipped_.size(); }

  // Encodes the rows into `out` (full-zip layout, two buffers) and moves
  // the per-row payload checksums into `checksums`; the builder is empty
  // afterwards.
  void Finish(EncodedPage* out, std::vector<uint64_t>* checksums);

 private:
  void AppendRow(BlobKind kind, uint64_t position, uint64_t size, std::string_view uri, uint64_t checksum);

  // Rows are zipped with a def byte each; Finish() drops the bytes again
  // when no row is null.
  std::vector<uint8_t> zipped_;
  std::vector<uint64_t> row_starts_;
  std::vector<uint64_t> checksums_;
  bool any_null_ = false;
};

// ---------------------------------------------------------------- reader

// Decodes the descriptor page `layout` of `num_rows` rows into `out`
// (replaced). Errors, prefixed with `where`: CorruptData for inconsistent
// bytes or counts; Unsupported for a descriptor page in another layout or
// encoding than the one described above.
Status DecodeBlobPage(const ::lance::encodings21::PageLayout& layout, uint64_t num_rows,
                      const std::vector<uint64_t>& buffer_sizes, const PageBufferReader& read,
                      std::vector<BlobDescriptor>* out, std::string_view where);

// The key of the sidecar holding blob `blob_id` of the data file at
// `data_file_path` ("…/data/<stem>.lance" -> "…/data/<stem>/<bits>.blob").
std::string BlobSidecarPath(std::string_view data_file_path, uint32_t blob_id);

// Where the payload bytes of a data file's descriptors come from.
struct BlobPayloadSource {
  // Bytes [offset, offset + length) of the data file itself.
  std::function<Result<BufferPtr>(uint64_t offset, uint64_t length)> read_file;
  // Bytes [offset, offset + length) of sidecar `blob_id`; unset when the
  // reader has no store to open sidecars with.
  std::function<Result<BufferPtr>(uint32_t blob_id, uint64_t offset, uint64_t length)> read_sidecar;
  uint64_t data_end = 0;  // inline payloads lie in [0, data_end)
};

// Appends the cells of descriptors `rows[begin, end)` to `out` (a
// LargeBinary builder): NULL, managed bytes (EncodeManagedBlobCell) or an
// external URI (EncodeExternalBlobCell). `checksums` (one per row of
// `rows`, or empty for files without them) verify inline payloads.
// Adjacent inline payloads are fetched in one read. Errors, prefixed with
// `where`: CorruptData for a payload outside the data region, a failed
// checksum or an unknown kind; Unsupported for a packed or dedicated
// payload when no sidecar reader is set; the source's errors.
Status AppendBlobCells(const std::vector<BlobDescriptor>& rows, size_t begin, size_t end,
                       const std::vector<uint64_t>& checksums, const BlobPayloadSource& source, BinaryBuilder* out,
                       std::string_view where);

}  // namespace omnigraph::lance
