#include "table/commit.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <fmt/format.h>

#include "io/unpublished_objects.h"
#include "lance/versioning.h"
#include "table/internal.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::table {
namespace {

// Assigns fresh ids to new fragments, advancing max_fragment_id.
void AssignFragmentIds(lance::Manifest* manifest, std::vector<lance::Fragment>* fragments) {
  uint64_t next = manifest->NextFragmentId();
  for (lance::Fragment& f : *fragments) {
    f.id = next++;
    manifest->max_fragment_id = static_cast<uint32_t>(f.id);
  }
}

Status ReplaceFragments(lance::Manifest* manifest, const std::vector<lance::Fragment>& updated,
                        const std::set<uint64_t>& removed, std::string_view op) {
  std::map<uint64_t, const lance::Fragment*> by_id;
  for (const lance::Fragment& f : updated) by_id[f.id] = &f;
  size_t matched = 0;
  std::vector<lance::Fragment> kept;
  for (lance::Fragment& f : manifest->fragments) {
    if (removed.count(f.id)) {
      ++matched;
      continue;
    }
    if (auto it = by_id.find(f.id); it != by_id.end()) {
      kept.push_back(*it->second);
      ++matched;
    } else {
      kept.push_back(std::move(f));
    }
  }
  if (matched != by_id.size() + removed.size()) {
    return InvalidArgument(fmt::format("{} names fragments that are not in the base version", op));
  }
  manifest->fragments = std::move(kept);
  return Status::OK();
}

struct ApplyVisitor {
  lance::Manifest* m;

  Status operator()(const lance::AppendOperation& op) const {
    std::vector<lance::Fragment> fragments = op.fragments;
    AssignFragmentIds(m, &fragments);
    m->fragments.insert(m->fragments.end(), std::make_move_iterator(fragments.begin()),
                        std::make_move_iterator(fragments.end()));
    return Status::OK();
  }
  Status operator()(const lance::DeleteOperation& op) const {
    std::set<uint64_t> removed(op.deleted_fragment_ids.begin(), op.deleted_fragment_ids.end());
    return ReplaceFragments(m, op.updated_fragments, removed, "Delete");
  }
  Status operator()(const lance::OverwriteOperation& op) const {
    m->schema = op.schema;
    std::vector<lance::Fragment> fragments = op.fragments;
    m->fragments.clear();
    AssignFragmentIds(m, &fragments);
    m->fragments = std::move(fragments);
    for (const auto& [k, v] : op.config_upsert_values) m->config[k] = v;
    return Status::OK();
  }
  Status operator()(const lance::UpdateOperation& op) const {
    std::set<uint64_t> removed(op.removed_fragment_ids.begin(), op.removed_fragment_ids.end());
    OG_RETURN_IF_ERROR(ReplaceFragments(m, op.updated_fragments, removed, "Update"));
    std::vector<lance::Fragment> fragments = op.new_fragments;
    AssignFragmentIds(m, &fragments);
    m->fragments.insert(m->fragments.end(), fragments.begin(), fragments.end());
    return Status::OK();
  }
  Status operator()(const lance::MergeOperation& op) const {
    OG_RETURN_IF_ERROR(ReplaceFragments(m, op.fragments, {}, "Merge"));
    m->schema = op.schema;
    return Status::OK();
  }
  Status operator()(const lance::ProjectOperation& op) const {
    m->schema = op.schema;
    return Status::OK();
  }
  // Each group's new fragments take the place of its first old fragment
  // (in the base's order), as Lance places them, so a rewrite of contiguous
  // fragments keeps the scan order of every row.
  Status operator()(const lance::RewriteOperation& op) const {
    std::map<uint64_t, size_t> group_of;
    std::vector<std::vector<lance::Fragment>> fresh;
    for (size_t g = 0; g < op.groups.size(); ++g) {
      for (const lance::Fragment& f : op.groups[g].old_fragments) {
        if (!group_of.emplace(f.id, g).second) {
          return InvalidArgument(fmt::format("Rewrite names fragment {} twice", f.id));
        }
      }
      fresh.push_back(op.groups[g].new_fragments);
      AssignFragmentIds(m, &fresh.back());
    }
    std::vector<bool> placed(op.groups.size(), false);
    size_t matched = 0;
    std::vector<lance::Fragment> out;
    out.reserve(m->fragments.size());
    for (lance::Fragment& f : m->fragments) {
      auto it = group_of.find(f.id);
      if (it == group_of.end()) {
        out.push_back(std::move(f));
        continue;
      }
      ++matched;
      if (!placed[it->second]) {
        placed[it->second] = true;
        out.insert(out.end(), fresh[it->second].begin(), fresh[it->second].end());
      }
    }
    if (matched != group_of.size()) return InvalidArgument("Rewrite names fragments that are not in the base version");
    m->fragments = std::move(out);
    return Status::OK();
  }
  Status operator()(const lance::CloneOperation&) const {
    return InvalidArgument("a Clone is committed by branch creation, not as a transaction");
  }
  Status operator()(const lance::RestoreOperation&) const {
    return InvalidArgument("Restore is not a staged operation");
  }
};

Result<Dataset> Commit(const StagedTransaction& staged, uint64_t new_version, const CommitOptions& options) {
  const Dataset& base = staged.base;
  OG_RETURN_IF_ERROR(lance::CheckWriterFlags(base.manifest(), base.manifest_path()));
  OG_ASSIGN_OR_RETURN(lance::Manifest manifest, BuildManifest(base.manifest(), staged.transaction, new_version));
  OG_ASSIGN_OR_RETURN(internal::PublishedManifest published,
                      internal::WriteManifest(base.store().get(), base.branch_root(), &manifest, staged.transaction,
                                              staged.written_files, options.sync_with, options.deferred,
                                              options.write_transaction_file));
  return Dataset(base.store(), base.root(), base.branch_root(), std::make_shared<const lance::Manifest>(std::move(manifest)),
                 std::move(published.path), published.size, std::move(published.transaction_section));
}

}  // namespace

Result<lance::Manifest> BuildManifest(const lance::Manifest& base, const lance::Transaction& transaction,
                                      uint64_t new_version) {
  lance::Manifest m;
  static_cast<lance::ManifestFields&>(m) = base;
  if (const auto* append = std::get_if<lance::AppendOperation>(&transaction.operation)) {
    m.fragments.reserve(base.fragments.size() + append->fragments.size());
  }
  m.fragments.assign(base.fragments.begin(), base.fragments.end());
  OG_RETURN_IF_ERROR(std::visit(ApplyVisitor{&m}, transaction.operation));
  m.version = new_version;
  m.timestamp_nanos = internal::NowNanos();
  m.transaction_file = transaction.FileName();
  m.writer_library = "omnigraph";
  m.writer_version = "0.1.0";
  // 2.1, or 2.2 once the table holds a blob v2 column (engine.md §1.2).
  // StageAddColumns lets a blob field onto a 2.1 table only while it has no
  // data files: Lance refuses a table whose files mix 2.1 and 2.2.
  m.data_format_version = internal::DataFormatVersionString(internal::TableFileVersion(base, m.schema));
  m.RecomputeFeatureFlags();
  return m;
}

Result<Dataset> CommitLinear(const StagedTransaction& staged, const CommitOptions& options) {
  if (staged.base.is_detached()) {
    return InvalidArgument(fmt::format("cannot commit linearly on detached version {} of '{}'", staged.base.version(),
                                       staged.base.root()));
  }
  if (options.deferred) return InvalidArgument("a linear commit cannot defer its sync");
  auto result = Commit(staged, staged.base.version() + 1, options);
  if (result.ok() && options.write_version_hint) {
    // Best effort and not synced: Lance lists _versions/ to find the latest
    // version, so a missing or stale hint is harmless.
    (void)Dataset::WriteVersionHint(staged.base.store().get(), result->branch_root(), result->version(),
                                    /*durable=*/false);
  }
  return result;
}

Result<Dataset> CommitDetached(const StagedTransaction& staged, const CommitOptions& options) {
  return Commit(staged, lance::NewDetachedVersion(), options);
}

namespace internal {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<lance::ManifestFile> ReadManifest(ObjectStore* store, const std::string& path) {
  OG_ASSIGN_OR_RETURN(BufferPtr bytes, store->Get(path));
  return lance::DecodeManifestFile(bytes->view(), path);
}

Result<PublishedManifest> WriteManifest(ObjectStore* store, const std::string& branch_root, lance::Manifest* manifest,
                                        const lance::Transaction& transaction,
                                        const std::vector<std::string>& staged_files,
                                        const std::vector<std::string>& sync_with, std::vector<std::string>* deferred,
                                        bool transaction_file) {
  bool detached = lance::IsDetachedVersion(manifest->version);
  OG_ASSIGN_OR_RETURN(std::string transaction_bytes, lance::EncodeTransaction(transaction));
  // The objects this call writes, deleted again if the version does not
  // land (the staged files stay with their transaction, whose owner decides).
  UnpublishedObjects own(store);
  std::vector<std::string> to_sync = staged_files;
  to_sync.insert(to_sync.end(), sync_with.begin(), sync_with.end());
  if (detached || !transaction_file) {
    // A detached version is never part of a linear history, so Lance's
    // conflict resolution never looks for its transaction file; the
    // transaction lives in the manifest's inline section alone, which saves
    // a file and its sync barrier on every graph write.
    manifest->transaction_file.clear();
  } else {
    manifest->transaction_file = transaction.FileName();
    std::string txn_path = JoinPath(JoinPath(branch_root, lance::kTransactionsDir), manifest->transaction_file);
    // Put (not put-if-absent): a staged transaction may be committed again
    // after a failed attempt, rewriting the same transaction file.
    OG_RETURN_IF_ERROR(store->Put(txn_path, transaction_bytes, WriteOptions{/*durable=*/false}));
    own.keys()->push_back(txn_path);
    to_sync.push_back(txn_path);
  }
  OG_FAILPOINT(failpoint::kCommitAfterTransactionFile);
  // The manifest becomes the committed version's (and its successors')
  // base; cached fragment encodings make their commits copy bytes.
  OG_ASSIGN_OR_RETURN(std::string bytes, lance::EncodeManifestFile(manifest, transaction_bytes));
  std::string path = JoinPath(JoinPath(branch_root, lance::kVersionsDir), lance::ManifestFileName(manifest->version));
  OG_FAILPOINT(failpoint::kCommitBeforeManifest);
  auto conflict = [&]() {
    return CommitConflict(fmt::format("version {} of '{}' was committed by another writer", manifest->version,
                                      branch_root))
        .WithDetail("version", std::to_string(manifest->version));
  };
  if (detached) {
    // Nothing names a fresh random detached id until the caller publishes
    // it, so the manifest is created in place and synced with its files.
    Status st = store->PutIfAbsent(path, bytes, kDeferredWrite);
    if (st.code() == ErrorCode::kAlreadyExists) return conflict();
    OG_RETURN_IF_ERROR(st);
    own.keys()->push_back(path);
    OG_FAILPOINT(failpoint::kCommitAfterManifest);
    to_sync.push_back(path);
    if (deferred) {
      deferred->insert(deferred->end(), to_sync.begin(), to_sync.end());
    } else {
      OG_RETURN_IF_ERROR(store->Sync(to_sync));
    }
  } else {
    OG_ASSIGN_OR_RETURN(std::string staged_manifest, store->StageForPublish(path, bytes));
    own.keys()->push_back(staged_manifest);
    to_sync.push_back(staged_manifest);
    OG_RETURN_IF_ERROR(store->Sync(to_sync));
    Status st = store->PublishIfAbsent(staged_manifest, path);
    if (st.code() == ErrorCode::kAlreadyExists) return conflict();
    // Published but not confirmed durable: readers may already see the
    // version, so nothing of it is deleted.
    if (st.ok() || st.details().count(std::string(kDurabilityDetail))) own.Keep();
    OG_RETURN_IF_ERROR(st);
    OG_FAILPOINT(failpoint::kCommitAfterManifest);
  }
  own.Keep();
  return PublishedManifest{std::move(path), bytes.size(), std::move(transaction_bytes)};
}

}  // namespace internal
}  // namespace omnigraph::table
