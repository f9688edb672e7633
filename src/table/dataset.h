// A Lance dataset at one exact version (architecture.md §2 table;
// spec/engine.md §0.2; spec/lance-format.md §1).
//
// A Dataset is an immutable snapshot: opening resolves one manifest (latest
// linear version, an exact linear or detached version, a tag, or a branch at
// its latest or an exact version) and every read through the handle sees
// exactly that version. Writes never mutate a Dataset: they stage a
// transaction against it (staging.h) and commit it (commit.h), which yields a
// new Dataset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "io/object_store.h"
#include "lance/manifest.h"
#include "lance/transaction.h"
#include "lance/versioning.h"
#include "table/predicate.h"

namespace omnigraph::table {

class Scanner;
struct ScanOptions;

// Which version of a dataset to open.
struct VersionRef {
  enum class Kind { kLatest, kVersion, kTag, kBranch };
  Kind kind = Kind::kLatest;
  uint64_t version = 0;                // kVersion (linear or detached); kBranch when set
  std::optional<std::string> name;     // kTag, kBranch
  std::optional<std::string> branch;   // kVersion/kLatest: the branch to read (nullopt = main)
  bool has_version = false;            // kBranch: an exact version rather than the branch's latest

  static VersionRef Latest() { return VersionRef{}; }
  // An exact version on main: linear, or detached (top bit set).
  static VersionRef Version(uint64_t v) {
    VersionRef r;
    r.kind = Kind::kVersion;
    r.version = v;
    return r;
  }
  static VersionRef Tag(std::string tag) {
    VersionRef r;
    r.kind = Kind::kTag;
    r.name = std::move(tag);
    return r;
  }
  // The latest version of a native branch.
  static VersionRef Branch(std::string branch) {
    VersionRef r;
    r.kind = Kind::kBranch;
    r.name = std::move(branch);
    return r;
  }
  // An exact version (linear or detached) of a native branch.
  static VersionRef BranchVersion(std::string branch, uint64_t v) {
    VersionRef r = Branch(std::move(branch));
    r.version = v;
    r.has_version = true;
    return r;
  }
};

struct VersionInfo {
  uint64_t version = 0;
  int64_t timestamp_nanos = 0;
  uint64_t manifest_size = 0;
};

struct TagInfo {
  std::string name;
  std::optional<std::string> branch;
  uint64_t version = 0;
};

struct BranchInfo {
  std::string name;
  std::optional<std::string> parent_branch;
  uint64_t parent_version = 0;
  std::string identifier;  // lifetime id, fresh on every creation
};

class Dataset {
 public:
  // Creates the dataset at `root` as version 1 holding `batches` (which may
  // be empty). Field ids are assigned to fields that lack one. Durable before
  // returning. `transaction_uuid` defaults to a random UUID.
  // Errors: AlreadyExists when any version exists (or another writer created
  // version 1 first), InvalidArgument for a schema Lance cannot store or
  // batches that do not match it, IoError.
  static Result<Dataset> Create(ObjectStorePtr store, std::string root, Schema schema,
                                const std::vector<RecordBatchPtr>& batches = {},
                                std::string transaction_uuid = "",
                                std::map<std::string, std::string> properties = {});

  // Opens one version. Errors: NotFound (no dataset, version, tag or branch),
  // CorruptData / Unsupported from the manifest, IoError.
  static Result<Dataset> Open(ObjectStorePtr store, std::string root, const VersionRef& ref = VersionRef::Latest());

  const ObjectStorePtr& store() const { return store_; }
  // Root of the dataset (main line), e.g. "people.lance".
  const std::string& root() const { return root_; }
  // Directory holding this version's manifests: the root, or
  // `{root}/tree/{branch}` for a branch.
  const std::string& branch_root() const { return branch_root_; }
  const std::optional<std::string>& branch() const { return manifest_->branch; }

  uint64_t version() const { return manifest_->version; }
  bool is_detached() const { return lance::IsDetachedVersion(manifest_->version); }
  const lance::Manifest& manifest() const { return *manifest_; }
  const std::shared_ptr<const lance::Manifest>& shared_manifest() const { return manifest_; }
  SchemaPtr schema() const { return schema_; }
  // Key of this version's manifest file relative to the store root.
  const std::string& manifest_path() const { return manifest_path_; }
  uint64_t manifest_size() const { return manifest_size_; }

  // Live rows (physical rows minus deleted rows), from metadata alone.
  uint64_t CountRows() const { return manifest_->NumRows(); }
  // Live rows matching `predicate` (scans the predicate's columns).
  Result<uint64_t> CountRows(const Predicate& predicate) const;

  // Streams rows in fragment order. See scanner.h.
  Result<std::unique_ptr<Scanner>> Scan(const ScanOptions& options) const;
  // Reads every selected row into one batch (tests, small tables).
  Result<RecordBatchPtr> ToBatch(const ScanOptions& options) const;

  // The transaction that produced this version: the manifest's inline
  // section, else `_transactions/{transaction_file}`. NotFound when neither
  // exists (for example a dataset written without transaction files).
  Result<lance::Transaction> ReadTransaction() const;
  // Only the uuid of that transaction (lance::DecodeTransactionUuid), with
  // the same errors: cheap however many fragments the operation lists.
  Result<std::string> ReadTransactionUuid() const;
  // The transaction the manifest file `manifest_key` carries inline at its
  // start (where Lance 8 and this writer put it), read without opening the
  // version: the file's trailer and first section only, never the
  // manifest, whose fragment list grows with every append until a
  // compaction. The collector reads thousands of versions this way
  // (graph/maintenance/inventory.h). nullopt when the file does not start
  // with a transaction (none inline, or an index section first).
  // Errors: NotFound (no such file), CorruptData (trailer or section
  // framing, the transaction itself), storage errors.
  static Result<std::optional<lance::Transaction>> ReadLeadingTransaction(ObjectStore* store,
                                                                          const std::string& manifest_key);

  // Linear versions of this dataset's line (main or its branch), ascending.
  Result<std::vector<VersionInfo>> ListVersions() const;
  // Latest linear version of `branch` (nullopt = main) without opening it.
  static Result<uint64_t> LatestVersion(ObjectStore* store, const std::string& root,
                                        const std::optional<std::string>& branch = std::nullopt);
  // The latest linear version of `branch` found from its
  // `_versions/latest_version_hint.json` without listing `_versions/`: the
  // hinted version must exist, then Heads walk up to `max_probes` successors
  // to the newest one (linear versions are created strictly in sequence),
  // and the hint must read the same afterwards. nullopt whenever that does
  // not settle it (no hint, unparsable, a hinted version that is gone, more
  // than `max_probes` behind, or a hint rewritten meanwhile): the caller
  // lists instead. Correct only where no writer deletes versions above a
  // hint without first rewriting it (our collector rewrites it first,
  // WriteVersionHint). Errors: IoError from a Head.
  static Result<std::optional<uint64_t>> LatestVersionFromHint(ObjectStore* store, const std::string& root,
                                                               const std::optional<std::string>& branch,
                                                               int max_probes);
  // Writes the version hint of the line rooted at `branch_root` (BranchRoot)
  // naming `version` (atomically replaced; synced when `durable`).
  // Errors: IoError.
  static Status WriteVersionHint(ObjectStore* store, const std::string& branch_root, uint64_t version, bool durable);

  // ---- tags (spec/lance-format.md §1.8) ----
  // Points `name` at `version` of `branch` (nullopt = main); the version may
  // be detached. Errors: InvalidArgument (bad name), AlreadyExists, NotFound
  // (no such version).
  Status CreateTag(const std::string& name, uint64_t version,
                   const std::optional<std::string>& branch = std::nullopt) const;
  Status DeleteTag(const std::string& name) const;
  Result<std::vector<TagInfo>> ListTags() const;

  // ---- native branches (spec/lance-format.md §1.9) ----
  // Creates branch `name` as a clone of linear `version` of `from_branch`
  // (nullopt = main) and returns it opened at that version. A shallow clone
  // points every inherited file at the source through a base path (an
  // absolute URI, so moving the dataset breaks it); a deep clone copies the
  // version's data and deletion files into the branch's tree, so the branch
  // depends on nothing outside it (small datasets such as the graph's
  // `__manifest`). Errors: InvalidArgument (bad name, a detached version),
  // AlreadyExists, NotFound.
  enum class CloneDepth { kShallow, kDeep };
  Result<Dataset> CreateBranch(const std::string& name, uint64_t version,
                               const std::optional<std::string>& from_branch = std::nullopt,
                               CloneDepth depth = CloneDepth::kShallow) const;
  // Removes the branch record and its tree. NotFound when absent.
  Status DeleteBranch(const std::string& name) const;
  // Removes only the branch record: the branch is gone from listings and
  // cannot be opened by name, but its tree stays readable by exact version
  // (VersionRef::Version with `branch` set) until something reclaims it.
  // NotFound when absent.
  static Status RetireBranch(ObjectStore* store, const std::string& root, const std::string& name);
  // The branches whose records exist, sorted by name, without opening the
  // dataset. A record deleted while listing is skipped.
  static Result<std::vector<BranchInfo>> ListBranchRecords(ObjectStore* store, const std::string& root);
  // Store key of a branch's record, and of the manifest of linear `version`
  // of `branch` (nullopt = main): existence probes without a listing.
  static std::string BranchRecordKey(const std::string& root, const std::string& name);
  static std::string ManifestKey(const std::string& root, const std::optional<std::string>& branch, uint64_t version);
  Result<std::vector<BranchInfo>> ListBranches() const;
  Result<BranchInfo> GetBranch(const std::string& name) const;

  // Resolves a data or deletion file key (relative to the store root) from
  // the file name, its base id and the subdirectory ("data", "_deletions").
  // Errors: CorruptData for an unknown base id, Unsupported for a base path
  // outside the store.
  Result<std::string> ResolveFilePath(std::string_view subdir, const std::string& file_name,
                                      const std::optional<uint32_t>& base_id) const;

  // Internal: builds a handle from a decoded manifest.
  Dataset(ObjectStorePtr store, std::string root, std::string branch_root,
          std::shared_ptr<const lance::Manifest> manifest, std::string manifest_path, uint64_t manifest_size,
          std::string transaction_section);

 private:
  ObjectStorePtr store_;
  std::string root_;
  std::string branch_root_;
  std::shared_ptr<const lance::Manifest> manifest_;
  SchemaPtr schema_;
  // `decode`(bytes, path) of this version's transaction: the manifest's
  // inline section, else its transaction file.
  template <typename Decode>
  auto DecodeOwnTransaction(Decode decode) const -> decltype(decode(std::string_view(), std::string_view()));

  std::string manifest_path_;
  uint64_t manifest_size_ = 0;
  std::string transaction_section_;
};

// `{root}/tree/{branch}` or `root` for main.
std::string BranchRoot(const std::string& root, const std::optional<std::string>& branch);

}  // namespace omnigraph::table
