// Lance deletion files (spec/lance-format.md §4): the deleted row offsets of
// one fragment, stored under `_deletions/` of the dataset root as
//   {fragment_id}-{read_version}-{id}.arrow  (DeletionFile.file_type ARROW_ARRAY = 0)
//   {fragment_id}-{read_version}-{id}.bin    (DeletionFile.file_type BITMAP = 1)
// `.arrow` is an Arrow IPC file with one record batch of one non-nullable
// UInt32 column `row_id`; `.bin` is a 32-bit Roaring bitmap in the standard
// portable serialization.
//
// A deletion file is not a delta: a new one replaces the fragment's old one
// and holds the old offsets plus the new ones. Live rows of the fragment are
// physical_rows - num_deleted_rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/manifest.h"  // DeletionFileKind (kArrowArray = 0, kBitmap = 1)
#include "util/status.h"

namespace omnigraph::lance {

// Lance keeps deleted offsets as a hash set (written as `.arrow`) while a
// fragment has at most this many, and as a bitmap (`.bin`) beyond it (see
// ChooseDeletionFileKind for the exact rule at the boundary).
inline constexpr uint64_t kMaxArrowDeletionRows = 5000;

// The column name Lance writes (and checks) in `.arrow` deletion files.
inline constexpr std::string_view kDeletionRowIdColumn = "row_id";

// Deleted row offsets of one fragment: sorted, unique uint32 offsets (row
// positions within the fragment's data files, counted from 0).
class DeletionVector {
 public:
  DeletionVector() = default;

  // `offsets` must already be sorted ascending without duplicates (checked
  // only by assert in debug builds).
  static DeletionVector FromSorted(std::vector<uint32_t> offsets);
  // Sorts and removes duplicates.
  static DeletionVector FromUnsorted(std::vector<uint32_t> offsets);

  // O(log n).
  bool Contains(uint32_t offset) const;
  // Number of deleted rows.
  uint64_t size() const { return offsets_.size(); }
  bool empty() const { return offsets_.empty(); }
  const std::vector<uint32_t>& offsets() const { return offsets_; }
  // Offsets in either vector: what a new deletion file holds when `other`
  // (new deletions) is applied on top of this (the previous file).
  DeletionVector Union(const DeletionVector& other) const;

  bool operator==(const DeletionVector&) const = default;

 private:
  std::vector<uint32_t> offsets_;
};

// The kind Lance 8 would write for `vector`, given the kind of the
// fragment's previous deletion file (nullopt = none). Lance holds a hash set
// (`.arrow`) and promotes it to a bitmap once it exceeds 5,000 offsets; a
// bitmap stays a bitmap. Observed with Lance 8.0.0:
//   previous kBitmap                     -> kBitmap, whatever the size;
//   previous kArrowArray, size <= 5000   -> kArrowArray (4999 + 1 stays .arrow);
//   previous kArrowArray, size >  5000   -> kBitmap    (5000 + 1 became .bin);
//   no previous file,     size <  5000   -> kArrowArray;
//   no previous file,     size >= 5000   -> kBitmap (a first batch of >= 5000
//     deletions goes straight to a bitmap: a fresh delete of exactly 5000
//     rows wrote .bin).
// (Lance decides per scan batch, so a fresh delete spread over several
// batches can still end as `.arrow` at exactly 5000.) Either kind is valid
// at any size: Lance and this reader accept both.
DeletionFileKind ChooseDeletionFileKind(const DeletionVector& vector, std::optional<DeletionFileKind> previous);

// "{fragment_id}-{read_version}-{id}.arrow" or ".bin", relative to the
// `_deletions/` directory. `read_version` is printed as unsigned decimal
// (detached version ids have the top bit set).
std::string DeletionFileName(uint64_t fragment_id, uint64_t read_version, uint64_t id, DeletionFileKind kind);

// Serializes `vector` as a deletion file of `kind`:
//   kArrowArray: Arrow IPC file, one batch, non-nullable UInt32 `row_id`
//                column with the offsets ascending, no body compression
//                (Lance writes ZSTD but reads uncompressed bodies too);
//   kBitmap:     Roaring portable serialization (run containers where they
//                are smaller, cookie 12347; otherwise cookie 12346).
// An empty vector encodes to a valid empty file, although Lance writes no
// deletion file for a fragment without deletions.
// Errors: InvalidArgument (a `kind` outside the enum); Internal (encoder
// failure).
Result<std::string> EncodeDeletionFile(const DeletionVector& vector, DeletionFileKind kind);

// Parses deletion file `bytes` of `kind`. `file_name` is only used in error
// messages. `.arrow` offsets may come in any order (Lance writes them in
// hash-set order); the result is sorted.
// Errors:
//   CorruptData naming `file_name` and what is wrong: bad Arrow framing or
//     flatbuffers, a schema other than one non-nullable `row_id` column, not
//     exactly one record batch, value count != batch length, nulls, buffers
//     outside the body, undecodable compressed buffers, duplicate offsets;
//     a Roaring bitmap that is malformed, not fully consumed, or whose
//     containers are unsorted, overlapping or disagree with their counts;
//   Unsupported naming the feature: a column type other than UInt32, an
//     unknown body compression codec or method, Arrow metadata before V4;
//   InvalidArgument: a `kind` outside the enum.
Result<DeletionVector> DecodeDeletionFile(std::string_view bytes, DeletionFileKind kind, std::string_view file_name);

}  // namespace omnigraph::lance
