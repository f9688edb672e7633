#include "crash/crash_matrix.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include <fmt/format.h>

#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::crash {
namespace {

namespace fp = ::omnigraph::failpoint;

constexpr Outcome kUnchanged = Outcome::kUnchanged;
constexpr Outcome kCommitted = Outcome::kCommitted;
constexpr Outcome kUnconfirmed = Outcome::kCommittedUnconfirmed;

constexpr Writes kLoad{Write::kLoad};
constexpr Writes kMutationWrites{Write::kInsert, Write::kUpdate, Write::kDelete};
constexpr Writes kInsertOrUpdate{Write::kInsert, Write::kUpdate};
constexpr Writes kDelete{Write::kDelete};
constexpr Writes kWritesWithData{Write::kLoad, Write::kInsert, Write::kUpdate};
constexpr Writes kWritesWithDeletions{Write::kUpdate, Write::kDelete};

// Hit order of a graph write (measured): staging of each table;
// graph.write.after_staging; per table a detached commit
// (table.commit.after_transaction_file, .before_manifest, .after_manifest)
// and graph.write.after_detached_commit; the __manifest's staging
// (table.stage.after_data_files); graph.publish.before_cas; its linear
// commit (table.commit.after_transaction_file, .before_manifest, the sync
// batch: store.put.before_dir_sync, then store.put.before_file_sync per
// file; the put-if-absent rename: store.put.before_publish; the published
// name's directory sync: store.put.before_dir_sync again;
// table.commit.after_manifest); graph.publish.after_cas. The load writes
// three tables, a mutation two, and a delete stages no data file, so the
// __manifest's hits of table.* failpoints come at different skips.
constexpr CrashCell kCells[] = {
    // failpoint                      writes                skip outcome       step
    {fp::kStoreBeforeFileSync,        kGraphWrites,         0,   kUnchanged,   "sync_batch_file_sync"},
    {fp::kStoreBeforePublish,         kGraphWrites,         0,   kUnchanged,   "before_manifest_rename"},
    {fp::kStoreBeforeDirSync,         kGraphWrites,         0,   kUnchanged,   "sync_batch_start"},
    {fp::kStoreBeforeDirSync,         kGraphWrites,         1,   kUnconfirmed, "after_manifest_rename"},
    {fp::kStageAfterDataFiles,        kWritesWithData,      0,   kUnchanged,   "after_first_table_data_files"},
    {fp::kStageAfterDataFiles,        kLoad,                3,   kUnchanged,   "after_manifest_data_files"},
    {fp::kStageAfterDataFiles,        kInsertOrUpdate,      2,   kUnchanged,   "after_manifest_data_files"},
    {fp::kStageAfterDataFiles,        kDelete,              0,   kUnchanged,   "after_manifest_data_files"},
    {fp::kStageAfterDeletionFiles,    kWritesWithDeletions, 0,   kUnchanged,   "after_first_table_deletion_files"},
    {fp::kCommitAfterTransactionFile, kGraphWrites,         0,   kUnchanged,   "after_first_detached_transaction"},
    {fp::kCommitAfterTransactionFile, kLoad,                3,   kUnchanged,   "manifest_commit_after_transaction"},
    {fp::kCommitAfterTransactionFile, kMutationWrites,           2,   kUnchanged,   "manifest_commit_after_transaction"},
    {fp::kCommitBeforeManifest,       kGraphWrites,         0,   kUnchanged,   "before_first_detached_manifest"},
    {fp::kCommitBeforeManifest,       kGraphWrites,         1,   kUnchanged,   "before_second_detached_manifest"},
    {fp::kCommitBeforeManifest,       kLoad,                3,   kUnchanged,   "before_manifest_put_if_absent"},
    {fp::kCommitBeforeManifest,       kMutationWrites,           2,   kUnchanged,   "before_manifest_put_if_absent"},
    {fp::kCommitAfterManifest,        kGraphWrites,         0,   kUnchanged,   "after_first_detached_manifest"},
    {fp::kCommitAfterManifest,        kLoad,                3,   kCommitted,   "after_manifest_put_if_absent"},
    {fp::kCommitAfterManifest,        kMutationWrites,           2,   kCommitted,   "after_manifest_put_if_absent"},
    // Tags only: a branch creation killed (or failing) here leaves the
    // branch's first manifest without its record, after which CreateBranch
    // of that name answers AlreadyExists, DeleteBranch NotFound, and a
    // creation from a lower version reads the orphan as the branch's latest.
    // Reported for a decision; the kBranch write joins this cell once fixed.
    {fp::kRefBeforeWrite,             {Write::kTag},        0,   kUnchanged,   "before_record"},
    {fp::kGraphAfterStaging,          kGraphWrites,         0,   kUnchanged,   "after_staging"},
    {fp::kGraphAfterDetachedCommit,   kGraphWrites,         0,   kUnchanged,   "after_first_detached_commit"},
    {fp::kGraphAfterDetachedCommit,   kGraphWrites,         1,   kUnchanged,   "after_second_detached_commit"},
    {fp::kGraphBeforeCas,             kGraphWrites,         0,   kUnchanged,   "before_cas"},
    {fp::kGraphAfterCas,              kGraphWrites,         0,   kCommitted,   "after_cas"},
    // Branch control. A graph branch creation deep-clones the __manifest
    // into a ref named by a fresh incarnation id, then writes the ref's
    // record: a kill before the record leaves a tree nothing names (the
    // next creation of the name picks another id), after it the branch.
    {fp::kStoreBeforePublish,         {Write::kBranchCreate}, 0, kUnchanged,   "before_branch_manifest_rename"},
    {fp::kRefBeforeWrite,             {Write::kBranchCreate}, 0, kUnchanged,   "before_branch_record"},
    {fp::kBranchCreateAfterRef,       {Write::kBranchCreate}, 0, kCommitted,   "after_branch_record"},
    {fp::kBranchDeleteBeforeUnlink,   {Write::kBranchDelete}, 0, kUnchanged,   "before_record_unlink"},
    // A merge captures the source, plans, chains detached commits on the
    // target's pins where both sides changed a table (pointer switches
    // otherwise) and publishes once.
    {fp::kMergeAfterCapture,          kMerges,              0,   kUnchanged,   "after_capture"},
    {fp::kGraphAfterDetachedCommit,   {Write::kThreeWayMerge}, 0, kUnchanged,  "after_first_chain_link"},
    {fp::kGraphAfterDetachedCommit,   {Write::kThreeWayMerge}, 1, kUnchanged,  "after_second_chain_link"},
    {fp::kGraphBeforeCas,             kMerges,              0,   kUnchanged,   "before_cas"},
    {fp::kGraphAfterCas,              kMerges,              0,   kCommitted,   "after_cas"},
    // Proposals: a mutation `as commit` (one detached table commit, then
    // the detached __manifest version and its tag), `commit publish`
    // (one linear __manifest commit, then the tag's removal) and `commit
    // drop` (the tag's removal). A proposal exists once its tag does.
    {fp::kGraphAfterDetachedCommit,   {Write::kPropose},    0,   kUnchanged,   "after_table_commit"},
    {fp::kProposeBeforeDetached,      {Write::kPropose},    0,   kUnchanged,   "before_detached_manifest"},
    {fp::kProposeAfterTag,            {Write::kPropose},    0,   kCommitted,   "after_tag"},
    {fp::kStageAfterDataFiles,        {Write::kPublish},    0,   kUnchanged,   "after_manifest_data_files"},
    {fp::kGraphBeforeCas,             {Write::kPublish},    0,   kUnchanged,   "before_cas"},
    {fp::kCommitBeforeManifest,       {Write::kPublish},    0,   kUnchanged,   "before_manifest_put_if_absent"},
    {fp::kStoreBeforePublish,         {Write::kPublish},    0,   kUnchanged,   "before_manifest_rename"},
    {fp::kCommitAfterManifest,        {Write::kPublish},    0,   kCommitted,   "after_manifest_put_if_absent"},
    {fp::kGraphAfterCas,              {Write::kPublish},    0,   kCommitted,   "after_cas"},
    {fp::kCommitPublishBeforeUntag,   {Write::kPublish},    0,   kCommitted,   "before_untag"},
    {fp::kCommitDropAfterUntag,       {Write::kDrop},       0,   kCommitted,   "after_untag"},
    // Schema apply: the evolved Person table chains three metadata-only
    // detached commits (Project, Merge, reorder), then one publication.
    {fp::kGraphAfterStaging,          {Write::kSchemaApply}, 0,  kUnchanged,   "after_staging"},
    {fp::kGraphAfterDetachedCommit,   {Write::kSchemaApply}, 0,  kUnchanged,   "after_first_chain_link"},
    {fp::kGraphAfterDetachedCommit,   {Write::kSchemaApply}, 2,  kUnchanged,   "after_last_chain_link"},
    {fp::kGraphBeforeCas,             {Write::kSchemaApply}, 0,  kUnchanged,   "before_cas"},
    {fp::kGraphAfterCas,              {Write::kSchemaApply}, 0,  kCommitted,   "after_cas"},
    // optimize stages a Rewrite per productive table (data files only),
    // commits each detached and publishes once; it has no step of its own
    // between the door's.
    {fp::kStageAfterDataFiles,        {Write::kOptimize},   0,   kUnchanged,   "after_first_table_data_files"},
    {fp::kGraphAfterStaging,          {Write::kOptimize},   0,   kUnchanged,   "after_staging"},
    {fp::kGraphAfterDetachedCommit,   {Write::kOptimize},   0,   kUnchanged,   "after_first_detached_commit"},
    {fp::kGraphAfterDetachedCommit,   {Write::kOptimize},   2,   kUnchanged,   "after_third_detached_commit"},
    {fp::kGraphBeforeCas,             {Write::kOptimize},   0,   kUnchanged,   "before_cas"},
    {fp::kGraphAfterCas,              {Write::kOptimize},   0,   kCommitted,   "after_cas"},
    // Cleanup publishes nothing: every branch reads the same before and
    // after a kill anywhere (kUnchanged), and the next run completes the
    // sweep (cleanup_crash_test.cc). Order: the expired proposal's tag;
    // per table version its files then its manifest; the __manifest versions.
    {fp::kCleanupAfterReleaseTags,    kCleanupWrites,       0,   kUnchanged,   "after_release_tags"},
    {fp::kCleanupAfterVersionFiles,   kCleanupWrites,       0,   kUnchanged,   "after_first_version_files"},
    {fp::kCleanupAfterVersionFiles,   kCleanupWrites,       2,   kUnchanged,   "after_third_version_files"},
    {fp::kCleanupAfterTableVersion,   kCleanupWrites,       0,   kUnchanged,   "after_first_table_version"},
    {fp::kCleanupAfterTableVersion,   kCleanupWrites,       1,   kUnchanged,   "after_second_table_version"},
    {fp::kCleanupBeforeManifestSweep, kCleanupWrites,       0,   kUnchanged,   "before_manifest_sweep"},
    {fp::kCleanupAfterManifestVersion, kCleanupWrites,      0,   kUnchanged,   "after_first_manifest_version"},
    {fp::kCleanupAfterManifestVersion, kCleanupWrites,      3,   kUnchanged,   "after_fourth_manifest_version"},
    // cluster apply (spec/cluster.md §6.1): state.json is never written
    // before these, so a kill leaves the ledger unchanged; the next apply's
    // recovery sweep settles the sidecar.
    {fp::kClusterApplyBeforeGraphCreate, kClusterApplyWrites, 0, kUnchanged,  "before_graph_create"},
    {fp::kClusterApplyAfterGraphCreate,  kClusterApplyWrites, 0, kUnchanged,  "after_graph_create"},
    {fp::kClusterApplyBeforeSchemaApply, kClusterApplyWrites, 0, kUnchanged,  "before_schema_apply"},
    {fp::kClusterApplyAfterSchemaApply,  kClusterApplyWrites, 0, kUnchanged,  "after_schema_apply"},
    {fp::kClusterApplyAfterPayloadPhase, kClusterApplyWrites, 0, kUnchanged,  "after_payload_phase"},
    {fp::kClusterApplyBeforeGraphDelete, kClusterApplyWrites, 0, kUnchanged,  "before_graph_delete"},
    {fp::kClusterApplyAfterGraphDelete,  kClusterApplyWrites, 0, kUnchanged,  "after_graph_delete"},
    {fp::kClusterApplyBeforeStateWrite,  kClusterApplyWrites, 0, kUnchanged,  "before_state_write"},
};

bool Covers(std::span<const CrashCell> cells, std::string_view failpoint) {
  return std::any_of(cells.begin(), cells.end(), [&](const CrashCell& c) { return c.failpoint == failpoint; });
}

}  // namespace

std::string_view WriteName(Write write) {
  switch (write) {
    case Write::kLoad: return "load";
    case Write::kInsert: return "insert";
    case Write::kUpdate: return "update";
    case Write::kDelete: return "delete";
    case Write::kTag: return "tag";
    case Write::kBranch: return "branch";
    case Write::kBranchCreate: return "branch_create";
    case Write::kBranchDelete: return "branch_delete";
    case Write::kFastForwardMerge: return "fast_forward_merge";
    case Write::kThreeWayMerge: return "three_way_merge";
    case Write::kPropose: return "propose";
    case Write::kPublish: return "publish";
    case Write::kDrop: return "drop";
    case Write::kSchemaApply: return "schema_apply";
    case Write::kOptimize: return "optimize";
    case Write::kCleanup: return "cleanup";
    case Write::kClusterApply: return "cluster_apply";
  }
  return "unknown";
}

std::span<const CrashCell> CrashCells() { return kCells; }

std::vector<CrashCase> CrashMatrix(std::span<const std::string_view> declared, Writes writes,
                                   std::span<const CrashCell> cells) {
  constexpr Write kWriteOrder[] = {Write::kLoad,         Write::kInsert,       Write::kUpdate,
                                   Write::kDelete,       Write::kTag,          Write::kBranch,
                                   Write::kBranchCreate, Write::kBranchDelete, Write::kFastForwardMerge,
                                   Write::kThreeWayMerge, Write::kPropose,     Write::kPublish,
                                   Write::kDrop,         Write::kSchemaApply, Write::kOptimize, Write::kCleanup,
                                   Write::kClusterApply};
  std::vector<CrashCase> cases;
  for (std::string_view failpoint : declared) {
    for (const CrashCell& cell : cells) {
      if (cell.failpoint != failpoint) continue;
      for (Write write : kWriteOrder) {
        if (writes.Has(write) && cell.writes.Has(write)) cases.push_back(CrashCase{write, cell});
      }
    }
  }
  return cases;
}

std::vector<std::string_view> UncoveredFailpoints(std::span<const std::string_view> declared,
                                                  std::span<const CrashCell> cells) {
  std::vector<std::string_view> uncovered;
  for (std::string_view failpoint : declared) {
    if (!Covers(cells, failpoint)) uncovered.push_back(failpoint);
  }
  return uncovered;
}

std::vector<std::string_view> UndeclaredFailpoints(std::span<const std::string_view> declared,
                                                   std::span<const CrashCell> cells) {
  std::vector<std::string_view> undeclared;
  for (const CrashCell& cell : cells) {
    bool known = std::find(declared.begin(), declared.end(), cell.failpoint) != declared.end();
    bool listed = std::find(undeclared.begin(), undeclared.end(), cell.failpoint) != undeclared.end();
    if (!known && !listed) undeclared.push_back(cell.failpoint);
  }
  return undeclared;
}

::testing::AssertionResult KilledAt(const CrashCell& cell, const std::function<void()>& write) {
  pid_t pid = fork();
  if (pid < 0) return ::testing::AssertionFailure() << "fork failed";
  if (pid == 0) {
    failpoint::Set(cell.failpoint, failpoint::Action::kCrash, cell.skip);
    write();
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return ::testing::AssertionFailure() << "waitpid failed";
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    return ::testing::AssertionFailure() << "failpoint " << cell.failpoint << " (skip " << cell.skip
                                         << ") was not reached";
  }
  return ::testing::AssertionSuccess();
}

void PrintTo(const CrashCase& c, std::ostream* os) {
  *os << WriteName(c.write) << " killed at " << c.cell.failpoint << " (skip " << c.cell.skip << ")";
}

std::string CaseName(const CrashCase& c) { return fmt::format("{}_{}", WriteName(c.write), c.cell.step); }

}  // namespace omnigraph::crash
