// The crash matrix, generated from the failpoint registry
// (util/failpoint_names.inc, read through failpoint::AllNames()).
//
// A crash cell names a failpoint, the writes that reach it, the hit at which
// a child process running one of them is SIGKILLed there, and what the store
// must hold afterwards: exactly the state before the write, or exactly its
// complete result. The crash suites build their cases by walking AllNames()
// and looking each name up among the cells, so the registry, not a hand list
// in a test, decides what is crashed; a failpoint declared without a cell
// fails EveryDeclaredFailpoint.HasACrashCell/<name> (crash_matrix_test.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace omnigraph::crash {

// The writes a cell can stop. Graph writes run through the embedded API on
// a small graph (graph_write_crash_test.cc); ref writes make a tag or a
// branch of one Lance dataset (ref_crash_test.cc), proving
// table.ref.before_write at the layer that owns it; branch-control writes
// create or delete a graph branch or merge one into main
// (branch_crash_test.cc).
enum class Write : uint8_t {
  kLoad,    // merge load touching all three tables: three detached commits
  kInsert,  // the mutations touch two tables each: two detached commits
  kUpdate,
  kDelete,  // cascades from a node to its edge
  kTag,
  kBranch,
  kBranchCreate,      // a graph branch: one native __manifest ref
  kBranchDelete,      // retires that ref's record
  kFastForwardMerge,  // pointer switches only, no detached commit
  kThreeWayMerge,     // both sides changed two tables: two chain links
  // Proposals (proposal_crash_test.cc): a mutation `as commit`, `commit
  // publish` of a proposal, and `commit drop` of one.
  kPropose,
  kPublish,
  kDrop,
  // Schema apply (schema_apply_crash_test.cc): a chain of metadata-only
  // detached commits on an evolved table, an added type's version 1, one
  // publication with the new contract.
  kSchemaApply,
  // optimize (optimize_crash_test.cc): a rewrite of each of three tables,
  // three detached commits, one publication.
  kOptimize,
  // cleanup --keep 1 (cleanup_crash_test.cc): releases an expired
  // proposal's tag, sweeps table versions and __manifest versions.
  kCleanup,
  // `cluster apply` (tests/cluster/apply_crash_test.cc): each cluster_apply.*
  // failpoint is reached by the apply of a scenario made for it (a graph
  // create, a schema update, an approved delete); every one of them comes
  // before the ledger write, so a kill leaves state.json as it was.
  kClusterApply,
};

// "load", "insert", "update", "delete", "tag", "branch", "branch_create",
// "branch_delete", "fast_forward_merge", "three_way_merge", "propose",
// "publish", "drop", "schema_apply", "optimize", "cleanup", "cluster_apply".
std::string_view WriteName(Write write);

// A set of writes, for a cell that each of them reaches at the same hit.
class Writes {
 public:
  constexpr Writes(std::initializer_list<Write> writes) {
    for (Write w : writes) bits_ |= Bit(w);
  }
  constexpr bool Has(Write write) const { return (bits_ & Bit(write)) != 0; }

 private:
  static constexpr uint32_t Bit(Write write) { return uint32_t{1} << static_cast<uint32_t>(write); }
  uint32_t bits_ = 0;
};

inline constexpr Writes kGraphWrites{Write::kLoad, Write::kInsert, Write::kUpdate, Write::kDelete};
inline constexpr Writes kRefWrites{Write::kTag, Write::kBranch};
inline constexpr Writes kBranchControlWrites{Write::kBranchCreate, Write::kBranchDelete, Write::kFastForwardMerge,
                                             Write::kThreeWayMerge};
inline constexpr Writes kMerges{Write::kFastForwardMerge, Write::kThreeWayMerge};
inline constexpr Writes kProposalWrites{Write::kPropose, Write::kPublish, Write::kDrop};
inline constexpr Writes kCleanupWrites{Write::kCleanup};
inline constexpr Writes kClusterApplyWrites{Write::kClusterApply};
inline constexpr Writes kEveryWrite{Write::kLoad,         Write::kInsert,       Write::kUpdate,
                                    Write::kDelete,       Write::kTag,          Write::kBranch,
                                    Write::kBranchCreate, Write::kBranchDelete, Write::kFastForwardMerge,
                                    Write::kThreeWayMerge, Write::kPropose,     Write::kPublish,
                                    Write::kDrop,         Write::kSchemaApply, Write::kOptimize, Write::kCleanup,
                                    Write::kClusterApply};

// What a write leaves when it is killed at the cell, and what it reports
// when the same hit returns an error instead.
enum class Outcome : uint8_t {
  // Killed: the state before the write. Error: refused (the IoError naming
  // the failpoint), and the write is absent.
  kUnchanged,
  // Killed: the complete write. Error: acknowledged, since the writer reads
  // the attempted __manifest version back and finds its own commit there.
  kCommitted,
  // Killed: the complete write. Error: the __manifest version is published
  // but its name not yet confirmed durable, so the write is neither
  // acknowledged nor undone: an IoError with outcome=indeterminate naming
  // the commit, which is visible.
  kCommittedUnconfirmed,
};

struct CrashCell {
  std::string_view failpoint;
  Writes writes;
  uint32_t skip;          // hits of the failpoint that pass before the kill
  Outcome outcome;
  std::string_view step;  // where the kill happens; unique per write (names the test)
};

// A cell applied to one of its writes: one test case.
struct CrashCase {
  Write write;
  CrashCell cell;
};

// Every crash cell of the code base.
std::span<const CrashCell> CrashCells();

// The cases of `writes` in `cells` for each failpoint of `declared`, in the
// order of `declared`; a name no cell covers contributes no case.
std::vector<CrashCase> CrashMatrix(std::span<const std::string_view> declared, Writes writes,
                                   std::span<const CrashCell> cells = CrashCells());

// The failpoints of `declared` that no cell of `cells` covers.
std::vector<std::string_view> UncoveredFailpoints(std::span<const std::string_view> declared,
                                                  std::span<const CrashCell> cells = CrashCells());

// The failpoints cells name that `declared` does not hold: a renamed or
// removed failpoint, whose cells CrashMatrix would silently drop.
std::vector<std::string_view> UndeclaredFailpoints(std::span<const std::string_view> declared,
                                                   std::span<const CrashCell> cells = CrashCells());

// Forks a child that arms `cell`'s failpoint to crash at its hit and runs
// `write`; succeeds when the child died of SIGKILL, fails naming the
// failpoint when the write never reached it.
::testing::AssertionResult KilledAt(const CrashCell& cell, const std::function<void()>& write);

// "insert killed at graph.publish.after_cas (skip 0)", for gtest's output.
void PrintTo(const CrashCase& c, std::ostream* os);

// A gtest-safe name: "<write>_<step>", e.g. "insert_after_cas".
std::string CaseName(const CrashCase& c);

}  // namespace omnigraph::crash
