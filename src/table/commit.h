// Committing staged transactions (spec/engine.md §0.2, spec/lance-format.md
// §1.7 and §1.11).
//
// Linear commit: the manifest of version base+1 is created with
// put-if-absent. Losing that race returns CommitConflict; the table store
// never retries or rebases. Detached commit: the manifest is written as
// `_versions/d{id}.manifest` on any base (linear or detached), which leaves the
// linear HEAD where it was; detached commits chain by staging on a detached
// base. Either way the transaction file and the manifest (with the
// transaction inline) are fsynced, with their directory entries, before the
// call returns.
#pragma once

#include "table/dataset.h"
#include "table/staging.h"

namespace omnigraph::table {

// The manifest a transaction produces on top of `base` at `new_version`.
// Errors: InvalidArgument when the operation does not apply to the base
// (unknown fragment ids, a Clone), Unsupported for unknown writer flags.
Result<lance::Manifest> BuildManifest(const lance::Manifest& base, const lance::Transaction& transaction,
                                      uint64_t new_version);

struct CommitOptions {
  // Store keys of other files that must be durable no later than this
  // commit; they are synced in the same batch as the commit's own files.
  std::vector<std::string> sync_with;
  // Detached commits only: do not sync; instead append every file this
  // version needs durable to *deferred. The caller must sync them before
  // anything names the version (the graph publisher syncs them with the
  // __manifest commit that publishes the pin).
  std::vector<std::string>* deferred = nullptr;
  // Linear commits only: also write `_transactions/{version}-{uuid}.txn`.
  // Lance's conflict resolution reads it when another writer rebases onto
  // this version; a table that only one engine writes and never rebases
  // (the graph's __manifest) keeps the transaction inline in the manifest
  // alone. Detached commits never write the file.
  bool write_transaction_file = true;
  // Linear commits only: afterwards, best effort and not synced, rewrite
  // `_versions/latest_version_hint.json` (lance-format.md §1.11 step 7).
  // Lance finds the latest version by listing, so the hint is optional; the
  // graph's __manifest skips it because nothing may follow its publication
  // (write-path.md) and the rename costs about half a millisecond.
  bool write_version_hint = true;
};

// Commits as version base+1 of the base's line (main or its branch).
// Errors: InvalidArgument when the base is detached, CommitConflict when
// version base+1 already exists, IoError.
Result<Dataset> CommitLinear(const StagedTransaction& staged, const CommitOptions& options = {});

// Commits as a new detached version with a random id (top bit set).
// Errors: IoError; CommitConflict only on an id collision (2^-63).
Result<Dataset> CommitDetached(const StagedTransaction& staged, const CommitOptions& options = {});

}  // namespace omnigraph::table
