// In-memory model of a Lance manifest and its file framing
// (spec/lance-format.md §1.3–§1.5, §1.9–§1.10).
//
// A manifest names one immutable version of a dataset: its schema (with field
// ids), its fragments (data files plus an optional deletion file) and its
// feature flags. Manifest files are written once and never modified.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/data_type.h"
#include "util/status.h"

namespace omnigraph::lance {

// Feature flags (spec §1.5). Readers and writers refuse any flag outside
// the supported sets.
inline constexpr uint64_t kFlagDeletionFiles = 1;
inline constexpr uint64_t kFlagStableRowIds = 2;
inline constexpr uint64_t kFlagTableConfig = 8;
inline constexpr uint64_t kFlagBasePaths = 16;
inline constexpr uint64_t kFlagDisableTransactionFile = 32;
inline constexpr uint64_t kSupportedReaderFlags = kFlagDeletionFiles | kFlagTableConfig | kFlagBasePaths;
inline constexpr uint64_t kSupportedWriterFlags =
    kFlagDeletionFiles | kFlagTableConfig | kFlagBasePaths | kFlagDisableTransactionFile;

enum class DeletionFileKind : int { kArrowArray = 0, kBitmap = 1 };

// One data file of a fragment: which field ids it stores in which columns.
struct DataFile {
  std::string path;                     // relative to data/ of its base
  std::vector<int32_t> fields;          // field ids; -2 = tombstoned
  std::vector<int32_t> column_indices;  // column of each field; -1 = none
  uint32_t file_major_version = 2;
  uint32_t file_minor_version = 1;
  uint64_t file_size_bytes = 0;         // 0 = unknown
  std::optional<uint32_t> base_id;

  bool operator==(const DataFile&) const = default;
};

// The data files of a fragment, copy-on-write: copying a fragment (every
// commit copies its base manifest) shares the list, and two lists that share
// storage compare equal without looking inside. A table with thousands of
// fragments (one per small write until compaction) thus commits without
// copying or comparing thousands of paths. Reads see a std::vector; writes
// go through Mutable(), which first unshares.
class DataFileList {
 public:
  using const_iterator = std::vector<DataFile>::const_iterator;

  DataFileList() = default;
  DataFileList(std::vector<DataFile> files)  // NOLINT(google-explicit-constructor): a value type
      : files_(std::make_shared<std::vector<DataFile>>(std::move(files))) {}
  DataFileList(std::initializer_list<DataFile> files) : DataFileList(std::vector<DataFile>(files)) {}

  const std::vector<DataFile>& get() const { return files_ ? *files_ : Empty(); }
  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const DataFile& operator[](size_t i) const { return get()[i]; }

  // The list for writing, no longer shared with any copy.
  std::vector<DataFile>& Mutable();
  void push_back(DataFile file) { Mutable().push_back(std::move(file)); }

  bool operator==(const DataFileList& other) const { return files_ == other.files_ || get() == other.get(); }

 private:
  static const std::vector<DataFile>& Empty();
  // Never modified while shared: Mutable() copies it first when another
  // list holds it too.
  std::shared_ptr<std::vector<DataFile>> files_;
};

struct DeletionFile {
  DeletionFileKind kind = DeletionFileKind::kBitmap;
  uint64_t read_version = 0;
  uint64_t id = 0;
  uint64_t num_deleted_rows = 0;
  std::optional<uint32_t> base_id;
  // XXH3-64 of the file's bytes (set by our writer; absent in Lance's).
  std::optional<uint64_t> checksum;

  // "{fragment_id}-{read_version}-{id}.{arrow|bin}" under _deletions/.
  std::string FileName(uint64_t fragment_id) const;
  bool operator==(const DeletionFile&) const = default;
};

struct FragmentEncoding;

struct Fragment {
  uint64_t id = 0;
  DataFileList files;
  std::optional<DeletionFile> deletion_file;
  uint64_t physical_rows = 0;  // rows including deleted ones
  // The serialized DataFragment of this fragment, with the value it was made
  // from (see CacheFragmentEncodings). Not part of the value: copies share
  // it and == ignores it.
  std::shared_ptr<const FragmentEncoding> encoding;

  uint64_t num_deleted_rows() const { return deletion_file ? deletion_file->num_deleted_rows : 0; }
  uint64_t num_rows() const { return physical_rows - num_deleted_rows(); }
  bool operator==(const Fragment& other) const {
    return id == other.id && files == other.files && deletion_file == other.deletion_file &&
           physical_rows == other.physical_rows;
  }
};

// A fragment's DataFragment bytes and the fragment they encode. Keeping the
// value makes a stale encoding impossible to use: a fragment changed after
// its bytes were made no longer equals `fragment`, and is encoded afresh.
struct FragmentEncoding {
  Fragment fragment;  // its own `encoding` is empty
  std::string bytes;
};

struct BasePath {
  uint32_t id = 0;
  std::optional<std::string> name;
  bool is_dataset_root = true;
  std::string path;  // absolute URI of the base

  bool operator==(const BasePath&) const = default;
};

// Every manifest field except the fragment list. Split out so a commit can
// copy a base manifest's fields and its fragments separately, giving the
// new fragment list room for the appended fragments in one allocation
// (table::BuildManifest): a plain copy followed by an append would copy
// every fragment and then move every one again.
struct ManifestFields {
  Schema schema;                       // every field carries its id
  uint64_t version = 0;
  std::optional<uint32_t> max_fragment_id;
  uint64_t reader_feature_flags = 0;
  uint64_t writer_feature_flags = 0;
  std::string transaction_file;        // relative to _transactions/
  int64_t timestamp_nanos = 0;         // commit time, Unix epoch
  std::string writer_library = "omnigraph";
  std::string writer_version = "0.1.0";
  // Lance data storage version: "2.1", or "2.2" for a table with a blob v2
  // column (table/commit.cc decides; every data file follows it).
  std::string data_format_version = "2.1";
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> table_metadata;
  std::vector<BasePath> base_paths;
  std::optional<std::string> branch;   // nullopt = main
  uint64_t next_row_id = 0;
  // Serialized IndexSection, carried through commits unchanged (empty = none).
  std::string index_section;
};

struct Manifest : ManifestFields {
  std::vector<Fragment> fragments;

  uint64_t NumRows() const;
  // Id for the next new fragment: max_fragment_id + 1, or 0 when none was used.
  uint64_t NextFragmentId() const { return max_fragment_id ? uint64_t{*max_fragment_id} + 1 : 0; }
  const Fragment* FindFragment(uint64_t id) const;
  const BasePath* FindBasePath(uint32_t id) const;
  // Sets the deletion-file and base-path flags from the content, keeping the
  // other flags.
  void RecomputeFeatureFlags();
};

// Result of decoding a manifest file. The inline transaction section, when
// present, is returned still serialized (see transaction.h to decode it).
struct ManifestFile {
  Manifest manifest;
  std::string transaction_section;
  uint64_t file_size = 0;
};

// Serializes a manifest file: [u32 len | Transaction] (when given)
// [u32 len | IndexSection] (when present) [u32 len | Manifest]
// [i64 manifest position][i16 0][i16 2]["LANC"].
// `transaction` is a serialized Transaction message or empty.
// A fragment's cached encoding is used when it still matches the fragment.
// Errors: InvalidArgument (a schema field without an id), Unsupported (a
// field type Lance cannot name).
Result<std::string> EncodeManifestFile(const Manifest& manifest, std::string_view transaction);

// As above, after CacheFragmentEncodings(manifest): compares each fragment
// with its cached value once, not twice.
Result<std::string> EncodeManifestFile(Manifest* manifest, std::string_view transaction);

// Gives every fragment of `manifest` a current cached encoding (new ones for
// fragments without one or whose value changed). A manifest that descends
// from this one by copy then encodes its unchanged fragments by copying
// bytes: a table with many fragments (one per small write until compaction)
// commits in time proportional to its changes, not to its fragment count.
void CacheFragmentEncodings(Manifest* manifest);

// Parses manifest file bytes. `path` names the file in errors.
// Errors: CorruptData (bad magic, bad framing, undecodable protobuf, a
// checksum mismatch or a missing checksum on a manifest we wrote, invalid
// schema tree, inconsistent fragments), Unsupported (unknown reader feature
// flags, data format other than Lance 2.0/2.1/2.2, unknown logical types).
Result<ManifestFile> DecodeManifestFile(std::string_view bytes, std::string_view path);

// The size of a manifest file's trailer: i64 manifest position, i16 major,
// i16 minor, "LANC".
inline constexpr size_t kManifestTrailerBytes = 16;

// Where the manifest section of a `file_size`-byte manifest file begins,
// read from its trailer (the file's last kManifestTrailerBytes bytes).
// Errors: CorruptData (short file, missing magic, a position outside the
// file).
Result<uint64_t> ManifestPositionFromTrailer(std::string_view trailer, uint64_t file_size, std::string_view path);

// Whether the first section of a manifest file (the bytes after its u32
// length) is a Transaction rather than an IndexSection, from its first
// protobuf tag alone: a Transaction opens with read_version (field 1,
// varint) or, when that is 0, its always-present uuid (field 2, bytes);
// an IndexSection opens with its indices (field 1, bytes). Lance 8 and
// EncodeManifestFile both put the transaction first when there is one
// (spec/lance-format.md §1.3).
bool IsTransactionSection(std::string_view section);

// Checks the writer feature flags before a commit on top of `manifest`.
// Errors: Unsupported naming the unknown flags.
Status CheckWriterFlags(const Manifest& manifest, std::string_view path);

}  // namespace omnigraph::lance
