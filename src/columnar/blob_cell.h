// Blob cells and Blob fields in memory (spec/surface.md §1.3; engine.md
// §1.2).
//
// Cells. Above the storage layer a Blob column is a nullable LargeBinary
// array of *cells*: NULL is an absent value and a zero-length cell is a
// valid empty blob, so the two stay distinct through every path that copies
// cells (loads, merges, compaction, export). A managed blob's cell holds its
// bytes unchanged. An external blob's cell holds a reserved marker followed
// by its normalized URI; the rare managed value whose bytes begin with one
// of the two reserved markers is stored behind the escape marker, so the
// encoding stays injective (equal cells <=> equal values) and merges compare
// blobs by content without decoding. Every reader of a Blob column goes
// through DecodeBlobCell.
//
// Fields. A Blob property's field is LargeBinary and carries the Arrow
// extension name `lance.blob.v2` in its metadata (MakeBlobV2Field). The
// Lance layer persists such a field as a Lance blob v2 column (a descriptor
// column plus payload bytes, file format 2.2; src/lance/blob_v2.h) and
// reads it back into cells, so nothing above it sees descriptors. In a Lance
// schema the field owns three field ids: its own (the blob struct) and the
// next two, for the struct's `data` and `uri` children (kBlobV2FieldIds);
// Schema::AssignMissingFieldIds and MaxFieldId account for them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "columnar/data_type.h"

namespace omnigraph {

// ---- Cells

// A decoded Blob cell: managed bytes or an external URI, viewing the
// stored cell.
struct BlobCell {
  bool external = false;
  std::string_view payload;  // the bytes (managed) or the normalized URI (external)
};

// Decodes a stored (non-NULL) cell.
BlobCell DecodeBlobCell(std::string_view stored);
// The cell that stores managed `bytes`.
std::string EncodeManagedBlobCell(std::string_view bytes);
// The cell that stores a reference to `uri` (already admitted/normalized).
std::string EncodeExternalBlobCell(std::string_view uri);

// ---- Fields

// Arrow's extension-type metadata key and the name of Lance's blob v2 type.
inline constexpr std::string_view kArrowExtensionNameKey = "ARROW:extension:name";
inline constexpr std::string_view kBlobV2ExtensionName = "lance.blob.v2";
// Field ids a blob v2 field owns in a Lance schema: the struct, `data`, `uri`.
inline constexpr int32_t kBlobV2FieldIds = 3;

// Whether `field` is a Blob field persisted as a Lance blob v2 column: a
// LargeBinary field whose metadata names the extension kBlobV2ExtensionName.
bool IsBlobV2Field(const Field& field);
// Whether any top-level field of `schema` is a blob v2 field.
bool HasBlobV2Field(const Schema& schema);
// A blob v2 field: LargeBinary, `metadata` plus the extension name.
Field MakeBlobV2Field(std::string name, bool nullable, Metadata metadata = {});

}  // namespace omnigraph
