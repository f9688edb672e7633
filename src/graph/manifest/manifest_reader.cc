#include "graph/manifest/manifest_reader.h"

#include <charconv>

#include <fmt/format.h>

#include "table/scanner.h"
#include "util/ulid.h"
#include "util/utf8.h"

namespace omnigraph::graph {
namespace {

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

Status BranchNotFound(std::string_view branch) {
  return NotFound(fmt::format("branch '{}' not found", utf8::ShortenForMessage(branch)))
      .WithDetail("kind", "branch_not_found")
      .WithDetail("branch", std::string(branch));
}

}  // namespace

std::string NewNativeRefName(std::string_view branch) { return fmt::format("{}.{}", branch, Ulid::New().ToString()); }

std::string LogicalBranchOf(std::string_view ref_name) {
  size_t dot = ref_name.rfind('.');
  if (dot != std::string_view::npos && IsCanonicalUlid(ref_name.substr(dot + 1))) {
    return std::string(ref_name.substr(0, dot));
  }
  return std::string(ref_name);
}

std::string ManifestReader::RecordKey(const NativeRef& ref) const {
  return table::Dataset::BranchRecordKey(root_, ref.name);
}

Result<std::vector<LiveRef>> ManifestReader::ListLive() {
  OG_ASSIGN_OR_RETURN(std::vector<table::BranchInfo> records, table::Dataset::ListBranchRecords(store_.get(), root_));
  std::vector<LiveRef> live;
  for (table::BranchInfo& r : records) {
    live.push_back(LiveRef{NativeRef{LogicalBranchOf(r.name), r.name}, std::move(r.parent_branch), r.parent_version});
  }
  return live;
}

Result<NativeRef> ManifestReader::Resolve(std::string_view branch) {
  if (branch == kMainBranch) return NativeRef::Main();
  std::optional<std::string> known;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = resolved_.find(branch); it != resolved_.end()) known = it->second;
  }
  if (known) {
    NativeRef ref{std::string(branch), *known};
    auto record = store_->Head(RecordKey(ref));
    if (record.ok()) return ref;
    if (record.status().code() != ErrorCode::kNotFound) return record.status();
    std::lock_guard<std::mutex> lock(mutex_);
    resolved_.erase(std::string(branch));
  }
  OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, ListLive());
  std::vector<std::string> matches;
  for (const LiveRef& r : live) {
    if (r.ref.branch == branch) matches.push_back(r.ref.name);
  }
  if (matches.empty()) return BranchNotFound(branch);
  if (matches.size() > 1) {
    std::string names;
    for (const std::string& m : matches) names += (names.empty() ? "" : ", ") + m;
    return Status(ErrorCode::kConflict,
                  fmt::format("branch '{}' has {} live native incarnations ({}); run cleanup before using it", branch,
                              matches.size(), names),
                  {{"kind", "manifest_conflict"}});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  resolved_[std::string(branch)] = matches[0];
  return NativeRef{std::string(branch), matches[0]};
}

Result<NativeRef> ManifestReader::ResolveRemembered(std::string_view branch) {
  if (branch != kMainBranch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = resolved_.find(branch); it != resolved_.end()) return NativeRef{std::string(branch), it->second};
  }
  return Resolve(branch);
}

Status ManifestReader::CheckLive(const NativeRef& ref) {
  if (ref.is_main()) return Status::OK();
  auto record = store_->Head(RecordKey(ref));
  if (record.ok()) return Status::OK();
  if (record.status().code() == ErrorCode::kNotFound) return BranchNotFound(ref.branch);
  return record.status();
}

void ManifestReader::Forget(const NativeRef& ref) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = resolved_.find(ref.branch); it != resolved_.end() && it->second == ref.name) resolved_.erase(it);
  confirmed_newest_.erase(ref.name);
}

Result<ManifestVersionPtr> ManifestReader::At(const NativeRef& ref, uint64_t version) {
  auto key = std::make_pair(ref.name, version);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = versions_.find(key); it != versions_.end()) {
      it->second.last_use = ++clock_;
      return it->second.decoded;
    }
  }
  table::VersionRef at = table::VersionRef::Version(version);
  at.branch = ref.lance_branch();
  OG_ASSIGN_OR_RETURN(table::Dataset manifest, table::Dataset::Open(store_, root_, at));
  OG_RETURN_IF_ERROR(CheckStamp(manifest));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, manifest.ToBatch({}));
  std::string where = manifest.manifest_path();
  OG_ASSIGN_OR_RETURN(GraphState state, DecodeGraphState(*rows, where));
  if (state.head.manifest_version != manifest.version()) {
    return CorruptData(fmt::format("{}: head commit records manifest version {}, the file is version {}", where,
                                   state.head.manifest_version, manifest.version()));
  }
  state.branch = ref.branch;
  state.branch_identity = ref.name;
  state.manifest_version = manifest.version();
  auto decoded = std::make_shared<const ManifestVersion>(
      ManifestVersion{std::move(manifest), std::make_shared<const GraphState>(std::move(state))});
  Remember(ref, version, decoded);
  return decoded;
}

Result<ManifestVersionPtr> ManifestReader::AtTag(const std::string& tag) {
  OG_ASSIGN_OR_RETURN(table::Dataset manifest, table::Dataset::Open(store_, root_, table::VersionRef::Tag(tag)));
  OG_RETURN_IF_ERROR(CheckStamp(manifest));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, manifest.ToBatch({}));
  OG_ASSIGN_OR_RETURN(GraphState state, DecodeGraphState(*rows, manifest.manifest_path()));
  state.manifest_version = state.head.manifest_version;
  return std::make_shared<const ManifestVersion>(
      ManifestVersion{std::move(manifest), std::make_shared<const GraphState>(std::move(state))});
}

Result<std::vector<table::TagInfo>> ManifestReader::ListTags() {
  OG_ASSIGN_OR_RETURN(uint64_t latest, LatestVersion(NativeRef{std::string(kMainBranch), std::string(kMainBranch)}));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr main, At(NativeRef{std::string(kMainBranch), std::string(kMainBranch)}, latest));
  auto tags = main->dataset.ListTags();
  if (!tags.ok() && tags.status().code() == ErrorCode::kNotFound) return std::vector<table::TagInfo>{};
  return tags;
}

void ManifestReader::Remember(const NativeRef& ref, uint64_t version, ManifestVersionPtr decoded) {
  std::lock_guard<std::mutex> lock(mutex_);
  versions_[std::make_pair(ref.name, version)] = Cached{std::move(decoded), ++clock_};
  while (versions_.size() > kManifestCacheVersions) {
    auto oldest = versions_.begin();
    for (auto it = versions_.begin(); it != versions_.end(); ++it) {
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    }
    versions_.erase(oldest);
  }
}

Result<uint64_t> ManifestReader::LatestVersion(const NativeRef& ref, bool confirm_known) {
  uint64_t known = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto first = versions_.lower_bound(std::make_pair(ref.name, uint64_t{0}));
    for (auto it = first; it != versions_.end() && it->first.first == ref.name; ++it) known = it->first.second;
  }
  if (known > 0 && confirm_known) {
    // Trust on first use: the version's file is remembered the first time
    // it is confirmed, and must be the same file every time after.
    auto meta = store_->Head(table::Dataset::ManifestKey(root_, ref.lance_branch(), known));
    if (!meta.ok() && meta.status().code() != ErrorCode::kNotFound) return meta.status();
    std::lock_guard<std::mutex> lock(mutex_);
    auto confirmed = confirmed_newest_.find(ref.name);
    bool replaced = !meta.ok() || (confirmed != confirmed_newest_.end() && confirmed->second.first == known &&
                                   confirmed->second.second != meta->identity);
    if (replaced) {
      for (auto it = versions_.begin(); it != versions_.end();) {
        it = it->first.first == ref.name ? versions_.erase(it) : std::next(it);
      }
      confirmed_newest_.erase(ref.name);
      known = 0;
    } else {
      confirmed_newest_[ref.name] = {known, meta->identity};
    }
  }
  if (known > 0) {
    for (int probe = 0; probe < kMaxVersionProbes; ++probe) {
      auto next = store_->Head(table::Dataset::ManifestKey(root_, ref.lance_branch(), known + 1));
      if (!next.ok()) {
        if (next.status().code() == ErrorCode::kNotFound) return known;
        return next.status();
      }
      ++known;
    }
  }
  // Nothing known (a cold start): the version hint publications leave
  // settles it in at most kVersionHintProbes Heads, where a listing reads
  // one name per retained version.
  if (known == 0) {
    OG_ASSIGN_OR_RETURN(std::optional<uint64_t> hinted,
                        table::Dataset::LatestVersionFromHint(store_.get(), root_, ref.lance_branch(),
                                                              kVersionHintProbes));
    if (hinted) return *hinted;
  }
  // Far behind, or no usable hint: one listing beats many probes.
  return table::Dataset::LatestVersion(store_.get(), root_, ref.lance_branch());
}

}  // namespace omnigraph::graph
