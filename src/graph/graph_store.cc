#include "graph/graph_store.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/unpublished_objects.h"
#include "lance/versioning.h"
#include "table/commit.h"
#include "table/scanner.h"
#include "table/staging.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/random.h"
#include "util/ulid.h"
#include "util/utf8.h"

namespace omnigraph::graph {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t NonZeroRandom() {
  uint64_t v;
  do {
    v = RandomU64();
  } while (v == 0);
  return v;
}

Status ReadSetChanged(std::string member, std::string expected, std::string actual) {
  return Status(ErrorCode::kReadSetChanged,
                fmt::format("read set changed: {} was '{}' when the write was prepared and is now '{}'", member,
                            expected, actual),
                {{"member", member}, {"expected", expected}, {"actual", actual}});
}

Status CheckStamp(const table::Dataset& manifest) {
  const Metadata& metadata = manifest.schema()->metadata();
  auto it = metadata.find(std::string(kStampKey));
  if (it == metadata.end()) {
    return CorruptData(fmt::format("{}: __manifest carries no storage stamp (damaged or torn init)",
                                   manifest.manifest_path()));
  }
  if (it->second != std::to_string(kStorageStamp)) {
    uint64_t stamp = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), stamp);
    bool older = ec == std::errc() && stamp < kStorageStamp;
    return Unsupported(fmt::format("graph storage stamp {} is not supported; this build reads stamp {} ({})",
                                   it->second, kStorageStamp,
                                   older ? "rebuild the graph by export and load" : "upgrade the omnigraph binary"));
  }
  return Status::OK();
}

// This machine's boot id: a claim's pid means something only on the boot
// that wrote it. Empty when unavailable.
std::string BootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The init claim: who claimed (pid on this boot) and when.
std::string InitClaimText() {
  nlohmann::json claim = {{"claimed_at_us", NowMicros()},
                          {"claim", Uuid::Random().ToString()},
                          {"pid", static_cast<int64_t>(::getpid())},
                          {"boot_id", BootId()}};
  return claim.dump();
}

// Whether the claim at `key` was written on this boot by a process that no
// longer exists. Unreadable claims, other machines' claims and claims
// without a pid (older writers) are presumed alive.
bool ClaimOwnerIsGone(ObjectStore* store, const std::string& key) {
  auto bytes = store->Get(key);
  if (!bytes.ok()) return false;
  auto claim = nlohmann::json::parse((*bytes)->view(), nullptr, /*allow_exceptions=*/false);
  if (!claim.is_object() || !claim.contains("pid") || !claim["pid"].is_number_integer() ||
      !claim.contains("boot_id") || !claim["boot_id"].is_string()) {
    return false;
  }
  const std::string boot_id = BootId();
  const auto pid = claim["pid"].get<int64_t>();
  if (boot_id.empty() || claim["boot_id"].get<std::string>() != boot_id || pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string MakeCommitId(std::string_view block, uint32_t slot, std::string_view nonce) {
  return fmt::format("hb1.{}.{}.{}", block, slot, nonce);
}

Status ValidateCommitId(std::string_view id) {
  constexpr std::string_view kPrefix = "hb1.";
  if (id.substr(0, kPrefix.size()) != kPrefix) return Status::OK();
  auto malformed = [&](std::string_view why) {
    return InvalidArgument(fmt::format("commit id '{}' is malformed: {} (expected hb1.<block>.<slot>.<nonce>)", id, why));
  };
  std::string_view rest = id.substr(kPrefix.size());
  size_t first = rest.find('.');
  size_t second = first == std::string_view::npos ? first : rest.find('.', first + 1);
  if (second == std::string_view::npos) return malformed("it does not have four dot-separated parts");
  std::string_view block = rest.substr(0, first);
  std::string_view slot = rest.substr(first + 1, second - first - 1);
  std::string_view nonce = rest.substr(second + 1);
  if (!IsCanonicalUlid(block)) return malformed("the block is not a canonical ULID");
  if (!IsCanonicalUlid(nonce)) return malformed("the nonce is not a canonical ULID");
  bool digits = !slot.empty() && slot.size() <= 5 &&
                std::all_of(slot.begin(), slot.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (slot.size() > 1 && slot[0] == '0') || std::stoul(std::string(slot)) >= kHistoryBlockSlots) {
    return malformed(fmt::format("the slot must be a decimal number below {} without leading zeros", kHistoryBlockSlots));
  }
  return Status::OK();
}

Result<bool> GraphStore::IsInitialized(ObjectStore* store, const std::string& root) {
  auto latest = table::Dataset::LatestVersion(store, JoinPath(root, kManifestDir));
  if (latest.ok()) return true;
  if (latest.status().code() == ErrorCode::kNotFound) return false;
  return latest.status();
}

Result<std::shared_ptr<GraphStore>> GraphStore::Init(ObjectStorePtr store, std::string root, SchemaContract contract,
                                                     const std::vector<TableSpec>& tables) {
  std::shared_ptr<GraphStore> graph(new GraphStore(store, root));
  std::string manifest_root = graph->Key(kManifestDir);
  OG_ASSIGN_OR_RETURN(bool initialized, IsInitialized(store.get(), root));
  if (initialized) {
    return AlreadyExists(fmt::format("graph '{}' is already initialized", store->Uri(root)))
        .WithDetail("kind", "already_initialized");
  }
  const std::string claim_key = graph->Key(kInitClaim);
  Status claim = store->PutIfAbsent(claim_key, InitClaimText());
  if (claim.code() == ErrorCode::kAlreadyExists && ClaimOwnerIsGone(store.get(), claim_key)) {
    // The claimant died on this machine before publishing: the claim is
    // stale. Whoever wins the fresh claim (or, after a race here, the
    // __manifest create below) initializes; the tables a dead init created
    // are unreferenced and never read.
    (void)store->Delete(claim_key);
    claim = store->PutIfAbsent(claim_key, InitClaimText());
  }
  if (claim.code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists(fmt::format("graph '{}' is being initialized by another process (remove {} if that "
                                     "process died)", store->Uri(root), kInitClaim))
        .WithDetail("kind", "initialization_claimed");
  }
  OG_RETURN_IF_ERROR(claim);
  // Until __manifest v1 is published, a failure leaves nothing anyone
  // reads; releasing the claim lets the next init start over at once.
  std::vector<std::string> table_roots;
  Result<std::shared_ptr<GraphStore>> created = CreateClaimed(graph, std::move(contract), tables, &table_roots);
  if (!created.ok() && !PublicationMayHaveLanded(created.status())) {
    // No __manifest version of this init can appear, so its tables (each
    // at a fresh random incarnation) are referenced by nothing: remove
    // them, so a failure (a full disk) leaves the root as it found it.
    for (const std::string& table_root : table_roots) (void)store->DeletePrefix(table_root);
  }
  if (!created.ok() && created.status().details().count("kind") == 0) (void)store->Delete(claim_key);
  return created;
}

Result<std::shared_ptr<GraphStore>> GraphStore::CreateClaimed(std::shared_ptr<GraphStore> graph,
                                                              SchemaContract contract,
                                                              const std::vector<TableSpec>& tables,
                                                              std::vector<std::string>* table_roots) {
  const ObjectStorePtr& store = graph->store_;
  const std::string& root = graph->root_;
  const std::string manifest_root = graph->Key(kManifestDir);
  GraphState state;
  state.schema = std::move(contract);
  for (const TableSpec& spec : tables) {
    TableEntry entry;
    entry.identity = TableIdentity{spec.stable_id, NonZeroRandom()};
    entry.table_key = spec.table_key;
    entry.location = TableLocation(spec.table_key, entry.identity);
    std::string uuid = Uuid::Random().ToString();
    table_roots->push_back(graph->Key(entry.location));
    OG_ASSIGN_OR_RETURN(table::Dataset created,
                        table::Dataset::Create(store, graph->Key(entry.location), spec.schema, {}, uuid));
    entry.pin.published_version = 1;
    entry.pin.last_linear_version = created.version();
    entry.pin.transaction_uuid = uuid;
    entry.pin.row_count = 0;
    entry.pin.manifest_path = created.manifest_path().substr(root.empty() ? 0 : root.size() + 1);
    entry.pin.manifest_size = created.manifest_size();
    state.tables.emplace(entry.table_key, std::move(entry));
  }
  state.head.id = Ulid::New().ToString();
  state.head.created_at_us = NowMicros();
  state.head.manifest_version = 1;
  state.head.generation = 0;
  state.manifest_version = 1;
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, EncodeGraphState(state));
  Status created = table::Dataset::Create(store, manifest_root, *ManifestSchema(), {rows}).status();
  if (created.code() == ErrorCode::kAlreadyExists) {
    // Another init published __manifest v1 first (possible only when both
    // took over a stale claim): the graph exists, and it is theirs.
    return AlreadyExists(fmt::format("graph '{}' is already initialized", store->Uri(root)))
        .WithDetail("kind", "already_initialized");
  }
  if (created.details().count(std::string(kDurabilityDetail))) {
    // __manifest v1 became visible but its name may not be durable: the
    // graph may exist now and be gone after a power cut. Keep the claim.
    return created.WithDetail("outcome", "indeterminate")
        .WithDetail("commit", state.head.id)
        .WithDetail("kind", "initialization_indeterminate");
  }
  OG_RETURN_IF_ERROR(created);
  (void)store->Delete(graph->Key(kInitClaim));
  return graph;
}

Result<std::shared_ptr<GraphStore>> GraphStore::Open(ObjectStorePtr store, std::string root) {
  std::shared_ptr<GraphStore> graph(new GraphStore(store, root));
  // Reading the head checks the storage stamp and warms the state cache.
  auto head = graph->ReadState(kMainBranch);
  if (!head.ok()) {
    // A published graph missing an object names that object; only a root
    // without any __manifest version holds no graph.
    if (head.status().code() != ErrorCode::kNotFound) return head.status();
    Result<bool> initialized = IsInitialized(store.get(), root);
    if (!initialized.ok() || *initialized) return head.status();
    if (store->Head(graph->Key(kInitClaim)).ok()) {
      return NotFound(fmt::format("no graph at '{}': an init there has not finished ({} remains); unless one is "
                                  "running, run `omnigraph init` on it again",
                                  store->Uri(root), kInitClaim));
    }
    return NotFound(fmt::format("no graph at '{}'", store->Uri(root)));
  }
  return graph;
}

Status GraphStore::CheckBranch(std::string_view branch) const {
  if (branch == kMainBranch) return Status::OK();
  return NotFound(fmt::format("branch '{}' does not exist", utf8::ShortenForMessage(branch)))
      .WithDetail("kind", "branch_not_found");
}

Result<GraphStore::ManifestVersionPtr> GraphStore::ManifestAt(std::string_view branch, uint64_t version) {
  OG_RETURN_IF_ERROR(CheckBranch(branch));
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (auto it = manifest_cache_.find(version); it != manifest_cache_.end()) return it->second;
  }
  OG_ASSIGN_OR_RETURN(table::Dataset manifest,
                      table::Dataset::Open(store_, Key(kManifestDir), table::VersionRef::Version(version)));
  OG_RETURN_IF_ERROR(CheckStamp(manifest));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, manifest.ToBatch({}));
  std::string where = manifest.manifest_path();
  OG_ASSIGN_OR_RETURN(GraphState state, DecodeGraphState(*rows, where));
  if (state.head.manifest_version != manifest.version()) {
    return CorruptData(fmt::format("{}: head commit records manifest version {}, the file is version {}", where,
                                   state.head.manifest_version, manifest.version()));
  }
  state.manifest_version = manifest.version();
  auto decoded = std::make_shared<const ManifestVersion>(ManifestVersion{std::move(manifest), std::move(state)});
  RememberManifest(version, decoded);
  return decoded;
}

void GraphStore::RememberManifest(uint64_t version, ManifestVersionPtr decoded) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  manifest_cache_[version] = std::move(decoded);
  // Recent versions are the hot ones (heads); history walks refill the rest.
  while (manifest_cache_.size() > kManifestCacheVersions) manifest_cache_.erase(manifest_cache_.begin());
}

Result<GraphState> GraphStore::ReadState(std::string_view branch, std::optional<uint64_t> manifest_version) {
  OG_RETURN_IF_ERROR(CheckBranch(branch));
  uint64_t version = 0;
  if (manifest_version) {
    version = *manifest_version;
  } else {
    OG_ASSIGN_OR_RETURN(version, LatestManifestVersion());
  }
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr decoded, ManifestAt(branch, version));
  return decoded->state;
}

Result<uint64_t> GraphStore::LatestManifestVersion(bool confirm_known) {
  uint64_t known = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!manifest_cache_.empty()) known = manifest_cache_.rbegin()->first;
  }
  std::string versions = JoinPath(Key(kManifestDir), lance::kVersionsDir);
  if (known > 0 && confirm_known) {
    // Trust on first use: the version's file is remembered the first time
    // it is confirmed, and must be the same file every time after.
    auto meta = store_->Head(JoinPath(versions, lance::ManifestFileName(known)));
    if (!meta.ok() && meta.status().code() != ErrorCode::kNotFound) return meta.status();
    std::lock_guard<std::mutex> lock(cache_mutex_);
    bool replaced = !meta.ok() || (confirmed_newest_.first == known && confirmed_newest_.second != meta->identity);
    if (replaced) {
      manifest_cache_.clear();
      confirmed_newest_ = {};
      known = 0;
    } else {
      confirmed_newest_ = {known, meta->identity};
    }
  }
  if (known > 0) {
    for (int probe = 0; probe < kMaxVersionProbes; ++probe) {
      auto next = store_->Head(JoinPath(versions, lance::ManifestFileName(known + 1)));
      if (!next.ok()) {
        if (next.status().code() == ErrorCode::kNotFound) return known;
        return next.status();
      }
      ++known;
    }
  }
  // Far behind (or nothing known): one listing beats many probes.
  return table::Dataset::LatestVersion(store_.get(), Key(kManifestDir));
}

namespace {

// The entry of `cache` least recently used among those `select` accepts
// (cache.end() when none is): caches hold a few entries per table, so a
// scan is cheap.
template <typename Cache, typename Select>
typename Cache::iterator LeastRecentlyUsed(Cache& cache, typename Cache::iterator first, Select select) {
  auto oldest = cache.end();
  for (auto it = first; it != cache.end() && select(it); ++it) {
    if (oldest == cache.end() || it->second.last_use < oldest->second.last_use) oldest = it;
  }
  return oldest;
}

// The least recently used version of `location` in `cache` when it holds
// more than kCachedVersionsPerTable of them, else cache.end().
template <typename Cache>
typename Cache::iterator SurplusVersion(Cache& cache, const std::string& location) {
  auto first = cache.lower_bound(std::make_pair(location, uint64_t{0}));
  size_t versions = 0;
  for (auto it = first; it != cache.end() && it->first.first == location; ++it) ++versions;
  if (versions <= kCachedVersionsPerTable) return cache.end();
  return LeastRecentlyUsed(cache, first, [&](auto it) { return it->first.first == location; });
}

}  // namespace

void GraphStore::CacheDataset(const std::pair<std::string, uint64_t>& key, const table::Dataset& dataset) {
  if (!table_cache_.emplace(key, CachedDataset{dataset, ++cache_clock_}).second) return;
  if (auto surplus = SurplusVersion(table_cache_, key.first); surplus != table_cache_.end()) table_cache_.erase(surplus);
  if (table_cache_.size() > kCachedDatasets) {
    table_cache_.erase(LeastRecentlyUsed(table_cache_, table_cache_.begin(), [](auto) { return true; }));
  }
}

GraphStore::CacheCounts GraphStore::cache_counts() {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  return CacheCounts{table_cache_.size(), data_cache_.size(), data_cache_bytes_};
}

void GraphStore::RememberOpened(const TableEntry& table, const table::Dataset& committed) {
  auto cache_key = std::make_pair(Key(table.location), table.pin.LanceVersion());
  std::lock_guard<std::mutex> lock(cache_mutex_);
  CacheDataset(cache_key, committed);
}

// The error for a pinned table version whose objects are missing: its
// manifest or a file it names was removed (a Lance cleanup of the table
// does not see detached versions and deletes what only they reference).
// `cause` names the missing object.
Status PinnedVersionGone(const TableEntry& table, const Status& cause) {
  return Status(ErrorCode::kVersionReclaimed,
                fmt::format("{} version {} (published version {}) is gone: reclaimed by a cleanup, or removed from the "
                            "store ({})",
                            table.table_key, table.pin.LanceVersion(), table.pin.published_version, cause.message()),
                {{"published_dataset_version", std::to_string(table.pin.published_version)}});
}

Result<table::Dataset> GraphStore::OpenTable(const TableEntry& table) {
  uint64_t version = table.pin.LanceVersion();
  std::string location = Key(table.location);
  auto cache_key = std::make_pair(location, version);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (auto it = table_cache_.find(cache_key); it != table_cache_.end()) {
      it->second.last_use = ++cache_clock_;
      return it->second.dataset;
    }
  }
  auto opened = table::Dataset::Open(store_, location, table::VersionRef::Version(version));
  if (!opened.ok()) {
    if (opened.status().code() == ErrorCode::kNotFound && table.pin.staged_version) {
      return PinnedVersionGone(table, opened.status());
    }
    return opened.status();
  }
  // The opened manifest must be the pinned transaction, not a look-alike.
  if (!table.pin.transaction_uuid.empty()) {
    auto txn = opened->ReadTransaction();
    if (!txn.ok() || txn->uuid != table.pin.transaction_uuid) {
      return CorruptData(fmt::format("{}: version {} is not the pinned transaction {}", opened->manifest_path(),
                                     version, table.pin.transaction_uuid));
    }
  }
  std::lock_guard<std::mutex> lock(cache_mutex_);
  // Pins are immutable, so a bounded cache only needs eviction, not invalidation.
  CacheDataset(cache_key, *opened);
  return *opened;
}

Result<TableDataPtr> GraphStore::LoadTable(const TableEntry& table) {
  auto key = std::make_pair(Key(table.location), table.pin.LanceVersion());
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (auto it = data_cache_.find(key); it != data_cache_.end()) {
      it->second.last_use = ++cache_clock_;
      return it->second.data;
    }
  }
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, ReadTable(table));
  if (!rows->GetColumn("id")) return CorruptData(fmt::format("table '{}' has no id column", table.table_key));
  return CacheTableData(key, std::make_shared<const TableData>(std::move(rows)));
}

Result<RecordBatchPtr> GraphStore::ReadTable(const TableEntry& table) {
  OG_ASSIGN_OR_RETURN(table::Dataset dataset, OpenTable(table));
  auto read = dataset.ToBatch({});
  if (!read.ok() && read.status().code() == ErrorCode::kNotFound) return PinnedVersionGone(table, read.status());
  return read;
}

void GraphStore::RememberAppend(const TableEntry& before, const TableEntry& after,
                                const std::vector<RecordBatchPtr>& appended) {
  TableDataPtr base;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = data_cache_.find(std::make_pair(Key(before.location), before.pin.LanceVersion()));
    if (it == data_cache_.end()) return;
    base = it->second.data;
  }
  if (TableDataPtr derived = TableData::Append(base, appended)) {
    CacheTableData(std::make_pair(Key(after.location), after.pin.LanceVersion()), std::move(derived));
  }
}

TableDataPtr GraphStore::CacheTableData(const std::pair<std::string, uint64_t>& key, TableDataPtr data) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (auto it = data_cache_.find(key); it != data_cache_.end()) return it->second.data;  // lost a load race
  data_cache_bytes_ += data->MemoryBytes();
  data_cache_[key] = CachedData{data, ++cache_clock_};
  auto evict = [&](auto it) {
    data_cache_bytes_ -= it->second.data->MemoryBytes();
    data_cache_.erase(it);
  };
  if (auto surplus = SurplusVersion(data_cache_, key.first); surplus != data_cache_.end()) evict(surplus);
  while (data_cache_bytes_ > kTableDataCacheBytes && data_cache_.size() > 1) {
    evict(LeastRecentlyUsed(data_cache_, data_cache_.begin(), [](auto) { return true; }));
  }
  return data;
}

Result<GraphState> GraphStore::Publish(const Publication& p) {
  // The captured version M is the base. Whether M is still the latest is
  // decided by the put-if-absent of M+1 below, the only check that holds
  // across processes; re-reading the latest version first would only add a
  // store call.
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr base, ManifestAt(p.branch, p.expected_manifest_version));
  const table::Dataset& manifest = base->dataset;
  const GraphState& current = base->state;

  // Preconditions against the captured version.
  if (current.branch_identity != p.expected_branch_identity) {
    return ReadSetChanged(fmt::format("branch_identifier:{}", p.branch), p.expected_branch_identity,
                          current.branch_identity);
  }
  if (current.head.id != p.expected_head) {
    return ReadSetChanged(fmt::format("graph_head:{}", p.branch), p.expected_head, current.head.id);
  }
  if (current.manifest_version != p.expected_manifest_version) {
    return ReadSetChanged(fmt::format("manifest_version:{}", p.branch), std::to_string(p.expected_manifest_version),
                          std::to_string(current.manifest_version));
  }
  GraphState next = current;
  for (const TableUpdate& update : p.updates) {
    auto it = next.tables.find(update.table_key);
    std::string member = fmt::format("dataset_binding:{}", update.identity.ObjectId());
    if (it == next.tables.end() || !(it->second.identity == update.identity)) {
      return ReadSetChanged(member, update.table_key, it == next.tables.end() ? "absent" : it->second.identity.ObjectId());
    }
    if (it->second.pin.published_version != update.expected_published_version) {
      return ReadSetChanged(member, std::to_string(update.expected_published_version),
                            std::to_string(it->second.pin.published_version));
    }
    TablePin pin = update.new_pin;
    pin.published_version = update.expected_published_version + 1;
    pin.last_linear_version = it->second.pin.last_linear_version;  // copied forward
    it->second.pin = std::move(pin);
  }
  if (p.schema) next.schema = *p.schema;

  CommitRecord& head = next.head;
  const CommitRecord& parent = current.head;
  bool new_block = parent.block.empty() || parent.slot + 1 >= kHistoryBlockSlots;
  head.block = new_block ? Ulid::New().ToString() : parent.block;
  head.slot = new_block ? 0 : parent.slot + 1;
  head.id = MakeCommitId(head.block, head.slot, p.intent_nonce);
  head.parent_id = parent.id;
  head.merged_parent_id.reset();
  head.actor_id = p.actor_id;
  head.created_at_us = p.created_at_us;
  head.graph_branch = p.branch == kMainBranch ? std::nullopt : std::optional<std::string>(p.branch);
  head.generation = parent.generation + 1;
  head.manifest_version = current.manifest_version + 1;
  next.manifest_version = head.manifest_version;

  OG_ASSIGN_OR_RETURN(RecordBatchPtr new_rows, EncodeGraphState(next));
  OG_ASSIGN_OR_RETURN(table::StagedTransaction staged, table::StageOverwrite(manifest, {new_rows}));
  table::CommitOptions options;
  options.sync_with = p.sync_with;
  // Only this engine writes __manifest and it never resolves conflicts by
  // rebasing, so nothing reads a transaction file there: the transaction
  // inline in the manifest suffices, saving a file and its sync barrier.
  options.write_transaction_file = false;
  // Nothing happens after the CAS, not even the optional version hint.
  options.write_version_hint = false;
  Result<GraphState> published = CommitPublication(p, staged, options, next);
  if (!published.ok() && !PublicationMayHaveLanded(published.status())) {
    DeleteUnpublished(store_.get(), staged.written_files);
  }
  return published;
}

Result<GraphState> GraphStore::CommitPublication(const Publication& p, const table::StagedTransaction& staged,
                                                 const table::CommitOptions& options, const GraphState& next) {
  const CommitRecord& head = next.head;
  OG_FAILPOINT(failpoint::kGraphBeforeCas);
  auto committed = table::CommitLinear(staged, options);
  Status failed = committed.ok() ? failpoint::Hit(failpoint::kGraphAfterCas) : committed.status();
  if (failed.ok()) {
    RememberManifest(next.manifest_version,
                     std::make_shared<const ManifestVersion>(ManifestVersion{std::move(*committed), next}));
    return next;
  }
  if (failed.code() == ErrorCode::kCommitConflict) {
    return ReadSetChanged(fmt::format("graph_head:{}", p.branch), p.expected_head,
                          fmt::format("another commit at manifest version {}", head.manifest_version));
  }
  // M+1 is visible but its directory entry may not survive a power cut:
  // never acknowledged, and not undone either (readers may have seen it).
  if (auto d = failed.details().find(std::string(kDurabilityDetail));
      d != failed.details().end() && d->second == "unconfirmed") {
    return failed.WithDetail("outcome", "indeterminate").WithDetail("commit", head.id);
  }
  // A lost acknowledgement: the put-if-absent of M+1 may have landed before
  // the error. Resolve it against the exact attempted version: it holds this
  // commit (published), is absent or holds another commit (not published),
  // or cannot be read (indeterminate).
  auto landed = ManifestAt(p.branch, head.manifest_version);
  if (landed.ok() && (*landed)->state.head.id == head.id) return next;
  if (!landed.ok() && landed.status().code() != ErrorCode::kNotFound) {
    return failed.WithDetail("outcome", "indeterminate").WithDetail("commit", head.id);
  }
  return failed;
}

bool PublicationMayHaveLanded(const Status& failure) {
  const auto& details = failure.details();
  auto outcome = details.find("outcome");
  return (outcome != details.end() && outcome->second == "indeterminate") ||
         details.count(std::string(kDurabilityDetail)) > 0;
}

Result<std::unique_ptr<ObjectStore::Lock>> GraphStore::LockBranchWriters(std::string_view branch) {
  // Refused before its lock file is made: a name that is no branch would
  // leave a file behind (or be too long to name one).
  OG_RETURN_IF_ERROR(CheckBranch(branch));
  std::string name;
  for (unsigned char c : branch) name += fmt::format("{:02x}", c);
  return store_->LockExclusive(Key(fmt::format("_locks/branch-{}.lock", name)), kWriterQueueMaxWait);
}

Status GraphStore::VisitCommits(std::string_view branch, const std::function<bool(const CommitRecord&)>& visit) {
  OG_ASSIGN_OR_RETURN(GraphState state, ReadState(branch));
  if (!visit(state.head)) return Status::OK();
  // Every __manifest version holds exactly the head it published, so the
  // history of a linear branch is its versions, newest first.
  uint64_t visited = 1;
  for (uint64_t v = state.manifest_version; v-- > 1; ++visited) {
    auto older = ReadState(branch, v);
    if (!older.ok() && older.status().code() == ErrorCode::kNotFound) {
      // Older than a version that exists, so it existed: it was removed.
      return Status(ErrorCode::kVersionReclaimed,
                    fmt::format("graph history is incomplete: __manifest version {} is gone (reclaimed by a cleanup "
                                "of __manifest, or removed from the store); the {} newer commits are intact",
                                v, visited),
                    {{"graph_manifest_version", std::to_string(v)}});
    }
    OG_RETURN_IF_ERROR(older.status());
    if (!visit(older->head)) return Status::OK();
  }
  return Status::OK();
}

Result<std::vector<CommitRecord>> GraphStore::ListCommits(std::string_view branch) {
  std::vector<CommitRecord> commits;
  OG_RETURN_IF_ERROR(VisitCommits(branch, [&](const CommitRecord& c) {
    commits.push_back(c);
    return true;
  }));
  return commits;
}

Result<CommitRecord> GraphStore::FindCommit(std::string_view id, std::string_view branch) {
  OG_RETURN_IF_ERROR(ValidateCommitId(id));
  // Newest first, stopping at the match: recent commits are found without
  // reading the whole history.
  std::optional<CommitRecord> found;
  OG_RETURN_IF_ERROR(VisitCommits(branch, [&](const CommitRecord& c) {
    // A lookup by intent nonce matches the hb1 id that wraps it.
    if (c.id == id || (c.id.rfind("hb1.", 0) == 0 && c.id.size() > id.size() &&
                       c.id.compare(c.id.size() - id.size(), id.size(), id) == 0 && c.id[c.id.size() - id.size() - 1] == '.')) {
      found = c;
      return false;
    }
    return true;
  }));
  if (!found) return NotFound(fmt::format("commit '{}' not found", id));
  return *found;
}

}  // namespace omnigraph::graph
