#include "table/dataset.h"

#include <algorithm>
#include <charconv>
#include <future>
#include <limits>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "io/unpublished_objects.h"
#include "lance/refs.h"
#include "lance/versioning.h"
#include "table/commit.h"
#include "table/internal.h"
#include "table/scanner.h"
#include "util/endian.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/random.h"

namespace omnigraph::table {
namespace {

std::string ManifestKeyIn(const std::string& branch_root, uint64_t version) {
  return JoinPath(JoinPath(branch_root, lance::kVersionsDir), lance::ManifestFileName(version));
}

Result<Dataset> OpenManifestAt(ObjectStorePtr store, std::string root, std::string branch_root, uint64_t version,
                               const std::optional<std::string>& branch) {
  std::string path = ManifestKeyIn(branch_root, version);
  auto file = internal::ReadManifest(store.get(), path);
  if (!file.ok()) {
    if (file.status().code() == ErrorCode::kNotFound) {
      return NotFound(fmt::format("version {} of dataset '{}'{} does not exist", version, root,
                                  branch ? fmt::format(" on branch '{}'", *branch) : ""));
    }
    return file.status();
  }
  lance::ManifestFile decoded = std::move(file).value();
  if (decoded.manifest.version != version) {
    return CorruptData(fmt::format("{}: manifest says version {}, its file name says {}", path,
                                   decoded.manifest.version, version));
  }
  if (decoded.manifest.branch != branch) {
    return CorruptData(fmt::format("{}: manifest belongs to branch '{}', expected '{}'", path,
                                   decoded.manifest.branch.value_or("main"), branch.value_or("main")));
  }
  uint64_t size = decoded.file_size;
  auto manifest = std::make_shared<const lance::Manifest>(std::move(decoded.manifest));
  return Dataset(std::move(store), std::move(root), std::move(branch_root), std::move(manifest), std::move(path), size,
                 std::move(decoded.transaction_section));
}

// Removes a prefix "file://" and returns the path part of a base-path URI.
std::string_view StripFileScheme(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.substr(0, kScheme.size()) == kScheme) uri.remove_prefix(kScheme.size());
  return uri;
}

}  // namespace

std::string BranchRoot(const std::string& root, const std::optional<std::string>& branch) {
  if (!branch) return root;
  return JoinPath(JoinPath(root, lance::kBranchTreeDir), *branch);
}

Dataset::Dataset(ObjectStorePtr store, std::string root, std::string branch_root,
                 std::shared_ptr<const lance::Manifest> manifest, std::string manifest_path, uint64_t manifest_size,
                 std::string transaction_section)
    : store_(std::move(store)),
      root_(std::move(root)),
      branch_root_(std::move(branch_root)),
      manifest_(std::move(manifest)),
      schema_(std::make_shared<const Schema>(manifest_->schema)),
      manifest_path_(std::move(manifest_path)),
      manifest_size_(manifest_size),
      transaction_section_(std::move(transaction_section)) {}

Result<uint64_t> Dataset::LatestVersion(ObjectStore* store, const std::string& root,
                                        const std::optional<std::string>& branch) {
  std::string dir = JoinPath(BranchRoot(root, branch), lance::kVersionsDir);
  OG_ASSIGN_OR_RETURN(auto names, store->ListNames(dir));
  std::optional<uint64_t> latest;
  bool saw_v1 = false, saw_v2 = false;
  for (const std::string& name : names) {
    auto parsed = lance::ParseManifestFileName(name);
    if (!parsed || parsed->naming == lance::ManifestNaming::kDetached) continue;
    (parsed->naming == lance::ManifestNaming::kV1 ? saw_v1 : saw_v2) = true;
    latest = std::max(latest.value_or(0), parsed->version);
  }
  if (saw_v1 && saw_v2) return CorruptData(fmt::format("{}: mixes V1 and V2 manifest names", dir));
  if (!latest) {
    return NotFound(branch ? fmt::format("branch '{}' of dataset '{}' has no versions", *branch, root)
                           : fmt::format("no dataset at '{}'", root));
  }
  return *latest;
}

namespace {

// `{"version":N}` as Lance and WriteVersionHint write it.
std::optional<uint64_t> ParseVersionHint(std::string_view text) {
  constexpr std::string_view kKey = "\"version\"";
  size_t at = text.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  at = text.find_first_not_of(" \t\r\n:", at + kKey.size());
  if (at == std::string_view::npos) return std::nullopt;
  uint64_t version = 0;
  auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), version);
  if (error != std::errc() || end == text.data() + at || version == 0) return std::nullopt;
  return version;
}

}  // namespace

Result<std::optional<uint64_t>> Dataset::LatestVersionFromHint(ObjectStore* store, const std::string& root,
                                                               const std::optional<std::string>& branch,
                                                               int max_probes) {
  const std::string hint_key = JoinPath(BranchRoot(root, branch), lance::kLatestVersionHint);
  auto read_hint = [&]() -> std::optional<std::string> {
    auto bytes = store->Get(hint_key);
    if (!bytes.ok()) return std::nullopt;
    return std::string((*bytes)->view());
  };
  std::optional<std::string> hint = read_hint();
  if (!hint) return std::optional<uint64_t>();
  std::optional<uint64_t> hinted = ParseVersionHint(*hint);
  if (!hinted || lance::IsDetachedVersion(*hinted)) return std::optional<uint64_t>();
  auto exists = [&](uint64_t version) -> Result<bool> {
    auto meta = store->Head(ManifestKey(root, branch, version));
    if (meta.ok()) return true;
    if (meta.status().code() == ErrorCode::kNotFound) return false;
    return meta.status();
  };
  OG_ASSIGN_OR_RETURN(bool hinted_exists, exists(*hinted));
  if (!hinted_exists) return std::optional<uint64_t>();
  uint64_t latest = *hinted;
  for (int successors = 0;; ++successors) {
    OG_ASSIGN_OR_RETURN(bool next_exists, exists(latest + 1));
    if (!next_exists) break;
    if (successors == max_probes) return std::optional<uint64_t>();
    ++latest;
  }
  // A collector that deletes versions rewrites the hint first; an unchanged
  // hint means no version between it and `latest` was deleted meanwhile.
  if (read_hint() != hint) return std::optional<uint64_t>();
  return std::optional<uint64_t>(latest);
}

Status Dataset::WriteVersionHint(ObjectStore* store, const std::string& branch_root, uint64_t version, bool durable) {
  return store->Put(JoinPath(branch_root, lance::kLatestVersionHint),
                    fmt::format("{{\"version\":{}}}", version), WriteOptions{durable});
}

Result<Dataset> Dataset::Open(ObjectStorePtr store, std::string root, const VersionRef& ref) {
  switch (ref.kind) {
    case VersionRef::Kind::kLatest: {
      OG_ASSIGN_OR_RETURN(uint64_t v, LatestVersion(store.get(), root, ref.branch));
      std::string branch_root = BranchRoot(root, ref.branch);
      return OpenManifestAt(std::move(store), std::move(root), std::move(branch_root), v, ref.branch);
    }
    case VersionRef::Kind::kVersion: {
      std::string branch_root = BranchRoot(root, ref.branch);
      return OpenManifestAt(std::move(store), std::move(root), std::move(branch_root), ref.version, ref.branch);
    }
    case VersionRef::Kind::kTag: {
      OG_RETURN_IF_ERROR(lance::ValidateTagName(*ref.name));
      std::string path = JoinPath(root, lance::TagRecordPath(*ref.name));
      auto bytes = store->Get(path);
      if (!bytes.ok()) {
        if (bytes.status().code() == ErrorCode::kNotFound) {
          return NotFound(fmt::format("tag '{}' of dataset '{}' does not exist", *ref.name, root));
        }
        return bytes.status();
      }
      OG_ASSIGN_OR_RETURN(lance::TagRecord tag, lance::DecodeTagRecord((*bytes)->view(), path));
      std::string branch_root = BranchRoot(root, tag.branch);
      return OpenManifestAt(std::move(store), std::move(root), std::move(branch_root), tag.version, tag.branch);
    }
    case VersionRef::Kind::kBranch: {
      OG_RETURN_IF_ERROR(lance::ValidateBranchName(*ref.name));
      auto record = store->Head(JoinPath(root, lance::BranchRecordPath(*ref.name)));
      if (!record.ok()) {
        if (record.status().code() == ErrorCode::kNotFound) {
          return NotFound(fmt::format("branch '{}' of dataset '{}' does not exist", *ref.name, root));
        }
        return record.status();
      }
      uint64_t v = ref.version;
      if (!ref.has_version) {
        OG_ASSIGN_OR_RETURN(v, LatestVersion(store.get(), root, ref.name));
      }
      std::string branch_root = BranchRoot(root, ref.name);
      return OpenManifestAt(std::move(store), std::move(root), std::move(branch_root), v, ref.name);
    }
  }
  return Internal("unknown version reference");
}

Result<Dataset> Dataset::Create(ObjectStorePtr store, std::string root, Schema schema,
                                const std::vector<RecordBatchPtr>& batches, std::string transaction_uuid,
                                std::map<std::string, std::string> properties) {
  if (schema.num_fields() == 0) return InvalidArgument("a dataset needs at least one column");
  schema.AssignMissingFieldIds();
  auto existing = LatestVersion(store.get(), root);
  if (existing.ok()) return AlreadyExists(fmt::format("dataset '{}' already exists (version {})", root, *existing));
  if (existing.status().code() != ErrorCode::kNotFound) return existing.status();
  auto shared_schema = std::make_shared<const Schema>(schema);
  for (const RecordBatchPtr& batch : batches) OG_RETURN_IF_ERROR(internal::CheckBatchMatchesSchema(*batch, schema));
  // Deleted again unless version 1 lands (or may have landed).
  UnpublishedObjects written(store.get());
  OG_ASSIGN_OR_RETURN(auto fragments,
                      internal::WriteFragments(store.get(), root, shared_schema, batches, 1 << 20, {},
                                               internal::TableFileVersion(lance::Manifest{}, schema), written.keys()));
  lance::Transaction txn;
  txn.read_version = 0;
  txn.uuid = transaction_uuid.empty() ? Uuid::Random().ToString() : std::move(transaction_uuid);
  txn.properties = std::move(properties);
  txn.operation = lance::OverwriteOperation{fragments, schema, {}};
  lance::Manifest empty;
  OG_ASSIGN_OR_RETURN(lance::Manifest manifest, BuildManifest(empty, txn, 1));
  auto published = internal::WriteManifest(store.get(), root, &manifest, txn, *written.keys());
  if (published.ok() || published.status().details().count(std::string(kDurabilityDetail))) written.Keep();
  if (!published.ok()) {
    if (published.status().code() == ErrorCode::kCommitConflict) {
      return AlreadyExists(fmt::format("dataset '{}' was created concurrently", root));
    }
    return published.status();
  }
  auto shared = std::make_shared<const lance::Manifest>(std::move(manifest));
  return Dataset(std::move(store), root, root, std::move(shared), published->path, published->size,
                 std::move(published->transaction_section));
}

Result<uint64_t> Dataset::CountRows(const Predicate& predicate) const {
  if (predicate.is_true()) return CountRows();
  ScanOptions options;
  for (const std::string& c : predicate.Columns()) options.columns.push_back(c);
  options.filter = predicate;
  OG_ASSIGN_OR_RETURN(auto scanner, Scan(options));
  uint64_t count = 0;
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
    if (!batch) break;
    count += static_cast<uint64_t>(batch->num_rows());
  }
  return count;
}

Result<std::unique_ptr<Scanner>> Dataset::Scan(const ScanOptions& options) const { return MakeScanner(*this, options); }

namespace {

// Every batch of a scan with `options`, and the scan's schema.
Status ScanAll(const Dataset& dataset, const ScanOptions& options, std::vector<RecordBatchPtr>* batches,
               SchemaPtr* schema) {
  OG_ASSIGN_OR_RETURN(auto scanner, MakeScanner(dataset, options));
  *schema = scanner->schema();
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
    if (!batch) return Status::OK();
    batches->push_back(std::move(batch));
  }
}

// Estimated cost of reading a fragment, in rows: opening a data file costs
// about as much as decoding this many rows.
constexpr uint64_t kFragmentOpenCostRows = 1000;
// Whole-table reads at least this costly are split in two.
constexpr uint64_t kParallelScanCostRows = 32768;

// The fragment ids of `fragments` split at the point that halves the
// estimated cost, or nothing when the read is too small to split. A table
// written by many small commits (one fragment per inserted row until it is
// compacted) is mostly file opens, which two threads overlap.
std::optional<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> SplitForParallelScan(
    const std::vector<lance::Fragment>& fragments) {
  if (fragments.size() < 2 || std::thread::hardware_concurrency() < 2) return std::nullopt;
  uint64_t total = 0;
  for (const lance::Fragment& f : fragments) total += f.physical_rows + kFragmentOpenCostRows;
  if (total < kParallelScanCostRows) return std::nullopt;
  std::pair<std::vector<uint64_t>, std::vector<uint64_t>> halves;
  uint64_t cost = 0, first_cost = 0;
  for (const lance::Fragment& f : fragments) {
    const bool first = cost < total / 2 || halves.first.empty();
    cost += f.physical_rows + kFragmentOpenCostRows;
    if (first) first_cost = cost;
    (first ? halves.first : halves.second).push_back(f.id);
  }
  // A split no better than two to one (one large fragment) would mostly
  // wait for the large half: read on one thread.
  const uint64_t larger = std::max(first_cost, total - first_cost);
  if (halves.second.empty() || larger * 3 > total * 2) return std::nullopt;
  return halves;
}

}  // namespace

Result<RecordBatchPtr> Dataset::ToBatch(const ScanOptions& requested) const {
  // Every row ends up in one batch anyway, so an unfiltered, unlimited read takes each
  // fragment in one window: the reader then moves whole decoded pages into
  // the arrays instead of copying the part of each page a window covers.
  ScanOptions options = requested;
  if (options.filter.is_true() && !options.limit) options.batch_rows = std::numeric_limits<int64_t>::max();
  std::vector<RecordBatchPtr> batches;
  SchemaPtr schema;
  auto halves = options.fragment_ids.empty() && !options.limit ? SplitForParallelScan(manifest().fragments)
                                                                : std::nullopt;
  if (!halves) {
    OG_RETURN_IF_ERROR(ScanAll(*this, options, &batches, &schema));
    return ConcatBatches(schema, batches);
  }
  // The second half on another thread; rows keep manifest order.
  ScanOptions first = options, second = options;
  first.fragment_ids = std::move(halves->first);
  second.fragment_ids = std::move(halves->second);
  std::vector<RecordBatchPtr> second_batches;
  SchemaPtr second_schema;
  auto second_scan = std::async(std::launch::async,
                                [&] { return ScanAll(*this, second, &second_batches, &second_schema); });
  Status first_status = ScanAll(*this, first, &batches, &schema);
  Status second_status = second_scan.get();
  OG_RETURN_IF_ERROR(first_status);
  OG_RETURN_IF_ERROR(second_status);
  batches.insert(batches.end(), second_batches.begin(), second_batches.end());
  return ConcatBatches(schema, batches);
}

template <typename Decode>
auto Dataset::DecodeOwnTransaction(Decode decode) const -> decltype(decode(std::string_view(), std::string_view())) {
  if (!transaction_section_.empty()) return decode(transaction_section_, manifest_path_);
  if (manifest_->transaction_file.empty()) {
    return NotFound(fmt::format("{}: version {} records no transaction", manifest_path_, version()));
  }
  std::string path = JoinPath(JoinPath(branch_root_, lance::kTransactionsDir), manifest_->transaction_file);
  OG_ASSIGN_OR_RETURN(BufferPtr bytes, store_->Get(path));
  return decode(bytes->view(), path);
}

Result<lance::Transaction> Dataset::ReadTransaction() const {
  return DecodeOwnTransaction(&lance::DecodeTransaction);
}

Result<std::string> Dataset::ReadTransactionUuid() const {
  return DecodeOwnTransaction(&lance::DecodeTransactionUuid);
}

Result<std::optional<lance::Transaction>> Dataset::ReadLeadingTransaction(ObjectStore* store,
                                                                          const std::string& manifest_key) {
  // Enough for the transaction of any small write in one read.
  constexpr uint64_t kFirstRead = 64 * 1024;
  OG_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessObject> file, store->OpenForRead(manifest_key));
  const uint64_t size = file->size();
  if (size < lance::kManifestTrailerBytes + 4) {
    return CorruptData(fmt::format("{}: {} bytes is too short for a manifest", manifest_key, size));
  }
  OG_ASSIGN_OR_RETURN(BufferPtr trailer,
                      file->ReadAt(size - lance::kManifestTrailerBytes, lance::kManifestTrailerBytes));
  OG_ASSIGN_OR_RETURN(uint64_t position, lance::ManifestPositionFromTrailer(trailer->view(), size, manifest_key));
  if (position < 4) return std::optional<lance::Transaction>();  // the manifest is the first section
  OG_ASSIGN_OR_RETURN(BufferPtr head, file->ReadAt(0, std::min(position, kFirstRead)));
  const uint32_t length = LoadLE<uint32_t>(head->view().data());
  if (length > position - 4) {
    return CorruptData(fmt::format("{}: the section at offset 0 claims {} bytes, past the manifest at {}",
                                   manifest_key, length, position));
  }
  BufferPtr whole = head;
  if (4 + uint64_t{length} > head->size()) {
    OG_ASSIGN_OR_RETURN(whole, file->ReadAt(4, length));
  }
  std::string_view section = whole == head ? head->view().substr(4, length) : whole->view();
  if (!lance::IsTransactionSection(section)) return std::optional<lance::Transaction>();
  OG_ASSIGN_OR_RETURN(lance::Transaction transaction, lance::DecodeTransaction(section, manifest_key));
  return std::optional<lance::Transaction>(std::move(transaction));
}

Result<std::vector<VersionInfo>> Dataset::ListVersions() const {
  std::string dir = JoinPath(branch_root_, lance::kVersionsDir);
  OG_ASSIGN_OR_RETURN(auto entries, store_->List(dir));
  std::vector<VersionInfo> versions;
  for (const ObjectMeta& entry : entries) {
    auto parsed = lance::ParseManifestFileName(std::string_view(entry.path).substr(dir.size() + 1));
    if (!parsed || parsed->naming == lance::ManifestNaming::kDetached) continue;
    OG_ASSIGN_OR_RETURN(lance::ManifestFile file, internal::ReadManifest(store_.get(), entry.path));
    versions.push_back(VersionInfo{parsed->version, file.manifest.timestamp_nanos, entry.size});
  }
  std::sort(versions.begin(), versions.end(), [](const VersionInfo& a, const VersionInfo& b) { return a.version < b.version; });
  return versions;
}

Status Dataset::CreateTag(const std::string& name, uint64_t version, const std::optional<std::string>& branch) const {
  OG_RETURN_IF_ERROR(lance::ValidateTagName(name));
  if (branch) OG_RETURN_IF_ERROR(lance::ValidateBranchName(*branch));
  std::string manifest_key = Dataset::ManifestKey(root_, branch, version);
  auto head = store_->Head(manifest_key);
  if (!head.ok()) {
    if (head.status().code() == ErrorCode::kNotFound) {
      return NotFound(fmt::format("cannot tag '{}': version {} of dataset '{}'{} does not exist", name, version, root_,
                                  branch ? fmt::format(" on branch '{}'", *branch) : ""));
    }
    return head.status();
  }
  lance::TagRecord tag;
  tag.branch = branch;
  tag.version = version;
  tag.manifest_size = head->size;
  OG_FAILPOINT(failpoint::kRefBeforeWrite);
  Status st = store_->PutIfAbsent(JoinPath(root_, lance::TagRecordPath(name)), lance::EncodeTagRecord(tag));
  if (st.code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists(fmt::format("tag '{}' of dataset '{}' already exists", name, root_));
  }
  return st;
}

Status Dataset::DeleteTag(const std::string& name) const {
  OG_RETURN_IF_ERROR(lance::ValidateTagName(name));
  Status st = store_->Delete(JoinPath(root_, lance::TagRecordPath(name)));
  if (st.code() == ErrorCode::kNotFound) return NotFound(fmt::format("tag '{}' of dataset '{}' does not exist", name, root_));
  return st;
}

Result<std::vector<TagInfo>> Dataset::ListTags() const {
  std::string dir = JoinPath(root_, lance::kTagsDir);
  OG_ASSIGN_OR_RETURN(auto entries, store_->List(dir));
  std::vector<TagInfo> tags;
  for (const ObjectMeta& entry : entries) {
    auto name = lance::TagNameFromRecordFile(std::string_view(entry.path).substr(dir.size() + 1));
    if (!name) continue;
    OG_ASSIGN_OR_RETURN(BufferPtr bytes, store_->Get(entry.path));
    OG_ASSIGN_OR_RETURN(lance::TagRecord tag, lance::DecodeTagRecord(bytes->view(), entry.path));
    tags.push_back(TagInfo{*name, tag.branch, tag.version});
  }
  return tags;
}

Result<Dataset> Dataset::CreateBranch(const std::string& name, uint64_t version,
                                      const std::optional<std::string>& from_branch, CloneDepth depth) const {
  OG_RETURN_IF_ERROR(lance::ValidateBranchName(name));
  if (lance::IsDetachedVersion(version)) {
    return InvalidArgument(fmt::format("cannot branch '{}' from detached version {}: a branch continues a linear "
                                       "history", name, version));
  }
  std::string record_path = JoinPath(root_, lance::BranchRecordPath(name));
  if (store_->Head(record_path).ok()) {
    return AlreadyExists(fmt::format("branch '{}' of dataset '{}' already exists", name, root_));
  }
  VersionRef source_ref = from_branch ? VersionRef::BranchVersion(*from_branch, version) : VersionRef::Version(version);
  OG_ASSIGN_OR_RETURN(Dataset source, Open(store_, root_, source_ref));

  // The branch's first manifest keeps the source's version. A shallow
  // clone points every inherited file at the source root through a new base
  // path; a deep clone copies each file into the branch's own tree.
  lance::Manifest clone = source.manifest();
  std::string branch_root = BranchRoot(root_, name);
  UnpublishedObjects copies(store_.get());
  if (depth == CloneDepth::kShallow) {
    uint32_t base_id = 0;
    for (const lance::BasePath& b : clone.base_paths) base_id = std::max(base_id, b.id + 1);
    clone.base_paths.push_back(lance::BasePath{base_id, std::nullopt, true, store_->Uri(source.branch_root())});
    for (lance::Fragment& fragment : clone.fragments) {
      for (lance::DataFile& file : fragment.files.Mutable()) {
        if (!file.base_id) file.base_id = base_id;
      }
      if (fragment.deletion_file && !fragment.deletion_file->base_id) fragment.deletion_file->base_id = base_id;
    }
  } else {
    auto copy = [&](std::string_view subdir, const std::string& file_name, std::optional<uint32_t>* base) -> Status {
      OG_ASSIGN_OR_RETURN(std::string from, source.ResolveFilePath(subdir, file_name, *base));
      OG_ASSIGN_OR_RETURN(BufferPtr bytes, store_->Get(from));
      std::string to = JoinPath(JoinPath(branch_root, subdir), file_name);
      WriteOptions unsynced;
      unsynced.durable = false;  // synced with the branch's manifest below
      OG_RETURN_IF_ERROR(store_->Put(to, bytes->view(), unsynced));
      copies.keys()->push_back(to);
      base->reset();
      return Status::OK();
    };
    for (lance::Fragment& fragment : clone.fragments) {
      for (lance::DataFile& file : fragment.files.Mutable()) OG_RETURN_IF_ERROR(copy(lance::kDataDir, file.path, &file.base_id));
      if (fragment.deletion_file) {
        OG_RETURN_IF_ERROR(copy(lance::kDeletionsDir, fragment.deletion_file->FileName(fragment.id),
                                &fragment.deletion_file->base_id));
      }
    }
  }
  clone.branch = name;
  clone.timestamp_nanos = internal::NowNanos();
  clone.RecomputeFeatureFlags();

  lance::Transaction txn;
  txn.read_version = version;
  txn.uuid = Uuid::Random().ToString();
  txn.operation = lance::CloneOperation{depth == CloneDepth::kShallow, from_branch, version,
                                        store_->Uri(source.branch_root()), name};
  auto published = internal::WriteManifest(store_.get(), branch_root, &clone, txn, *copies.keys());
  if (published.ok() || published.status().details().count(std::string(kDurabilityDetail))) copies.Keep();
  if (!published.ok()) {
    if (published.status().code() == ErrorCode::kCommitConflict) {
      return AlreadyExists(fmt::format("branch '{}' of dataset '{}' already exists", name, root_));
    }
    return published.status();
  }

  lance::BranchRecord record;
  record.parent_branch = from_branch;
  record.parent_version = version;
  record.create_at = internal::NowNanos() / 1'000'000'000;
  record.manifest_size = published->size;
  record.identifier = Uuid::Random().ToHex();
  OG_FAILPOINT(failpoint::kRefBeforeWrite);
  Status st = store_->PutIfAbsent(record_path, lance::EncodeBranchRecord(record));
  if (st.code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists(fmt::format("branch '{}' of dataset '{}' already exists", name, root_));
  }
  OG_RETURN_IF_ERROR(st);
  return Open(store_, root_, VersionRef::BranchVersion(name, version));
}

Status Dataset::DeleteBranch(const std::string& name) const {
  OG_RETURN_IF_ERROR(lance::ValidateBranchName(name));
  Status st = store_->Delete(JoinPath(root_, lance::BranchRecordPath(name)));
  if (st.code() == ErrorCode::kNotFound) {
    return NotFound(fmt::format("branch '{}' of dataset '{}' does not exist", name, root_));
  }
  OG_RETURN_IF_ERROR(st);
  // Remove only this branch's own directories: a branch "a/b" lives inside
  // tree/a/b, below branch "a"'s tree.
  std::string branch_root = BranchRoot(root_, name);
  for (std::string_view dir : {lance::kVersionsDir, lance::kTransactionsDir, lance::kDataDir, lance::kDeletionsDir,
                               lance::kIndicesDir}) {
    OG_RETURN_IF_ERROR(store_->DeletePrefix(JoinPath(branch_root, dir)));
  }
  return Status::OK();
}

Result<std::vector<BranchInfo>> Dataset::ListBranches() const { return ListBranchRecords(store_.get(), root_); }

Result<std::vector<BranchInfo>> Dataset::ListBranchRecords(ObjectStore* store, const std::string& root) {
  std::string dir = JoinPath(root, lance::kBranchesDir);
  OG_ASSIGN_OR_RETURN(std::vector<std::string> files, store->ListNames(dir));
  std::vector<BranchInfo> branches;
  for (const std::string& file : files) {
    auto name = lance::BranchNameFromRecordFile(file);
    if (!name) continue;
    std::string key = JoinPath(dir, file);
    auto bytes = store->Get(key);
    if (!bytes.ok() && bytes.status().code() == ErrorCode::kNotFound) continue;  // deleted meanwhile
    OG_RETURN_IF_ERROR(bytes.status());
    OG_ASSIGN_OR_RETURN(lance::BranchRecord record, lance::DecodeBranchRecord((*bytes)->view(), key));
    branches.push_back(BranchInfo{*name, record.parent_branch, record.parent_version, record.identifier});
  }
  // File names encode '/' as "%2F", which sorts differently from the names.
  std::sort(branches.begin(), branches.end(), [](const BranchInfo& a, const BranchInfo& b) { return a.name < b.name; });
  return branches;
}

Status Dataset::RetireBranch(ObjectStore* store, const std::string& root, const std::string& name) {
  OG_RETURN_IF_ERROR(lance::ValidateBranchName(name));
  Status st = store->DeleteDurable(BranchRecordKey(root, name));
  if (st.code() == ErrorCode::kNotFound) {
    return NotFound(fmt::format("branch '{}' of dataset '{}' does not exist", name, root));
  }
  return st;
}

std::string Dataset::BranchRecordKey(const std::string& root, const std::string& name) {
  return JoinPath(root, lance::BranchRecordPath(name));
}

std::string Dataset::ManifestKey(const std::string& root, const std::optional<std::string>& branch, uint64_t version) {
  return ManifestKeyIn(BranchRoot(root, branch), version);
}

Result<BranchInfo> Dataset::GetBranch(const std::string& name) const {
  OG_RETURN_IF_ERROR(lance::ValidateBranchName(name));
  std::string path = JoinPath(root_, lance::BranchRecordPath(name));
  auto bytes = store_->Get(path);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) {
      return NotFound(fmt::format("branch '{}' of dataset '{}' does not exist", name, root_));
    }
    return bytes.status();
  }
  OG_ASSIGN_OR_RETURN(lance::BranchRecord record, lance::DecodeBranchRecord((*bytes)->view(), path));
  return BranchInfo{name, record.parent_branch, record.parent_version, record.identifier};
}

Result<std::string> Dataset::ResolveFilePath(std::string_view subdir, const std::string& file_name,
                                             const std::optional<uint32_t>& base_id) const {
  if (!base_id) return JoinPath(JoinPath(branch_root_, subdir), file_name);
  const lance::BasePath* base = manifest_->FindBasePath(*base_id);
  if (base == nullptr) {
    return CorruptData(fmt::format("{}: file '{}' names unknown base path {}", manifest_path_, file_name, *base_id));
  }
  std::string store_root = store_->Uri("");
  std::string_view base_path = StripFileScheme(base->path);
  std::string relative;
  if (base_path == store_root) {
    relative = "";
  } else if (base_path.size() > store_root.size() && base_path.substr(0, store_root.size()) == store_root &&
             (store_root.back() == '/' || base_path[store_root.size()] == '/')) {
    relative = std::string(base_path.substr(store_root.size() + (store_root.back() == '/' ? 0 : 1)));
  } else {
    return Unsupported(fmt::format("{}: base path '{}' lies outside the object store root '{}'", manifest_path_,
                                   base->path, store_root));
  }
  if (base->is_dataset_root) return JoinPath(JoinPath(relative, subdir), file_name);
  return JoinPath(relative, file_name);
}

}  // namespace omnigraph::table
