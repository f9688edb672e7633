// The one publication door every graph-content writer goes through
// (design/write-path.md; spec/engine.md §5.1 steps 4–6):
//
//   (writer: capture WriteTxn, prepare + validate, stage on the pins)
//   -> gates in the fixed order (schema permit, branch, sorted tables)
//   -> recheck the captured authority (the ref is live and still at M)
//   -> commit each table effect as a detached version of its pin (a chain
//      link by link), carrying the staged-against properties
//   -> publish every pin, registration, contract and the new head commit
//      in one `__manifest` CAS (publisher.h).
//
// Nothing happens after the CAS. A failure before it leaves the graph
// unchanged; what the attempt wrote is deleted when the publication cannot
// have landed, and otherwise left as unpublished staging for the collector.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/write/effect.h"
#include "graph/write/gates.h"
#include "graph/write/publisher.h"
#include "graph/write/write_txn.h"

namespace omnigraph::graph {

struct DoorOptions {
  // Exclusive for writers that replace the schema contract.
  SchemaAccess schema_access = SchemaAccess::kShared;
  // Set: the effects become a proposal (an unpublished commit or an
  // unattached snapshot, publisher.h Propose) instead of a new version of
  // the branch; the branch head does not move.
  std::optional<ProposalForm> proposal;
};

struct DoorOutcome {
  Snapshot published;  // the new snapshot of the branch (a proposal's snapshot)
  CommitRecord commit;  // its head (a proposal's candidate commit)
  std::optional<std::string> proposal_tag;  // the tag addressing a proposal
};

// The staging options of a detached commit on behalf of `txn`: a fresh
// transaction UUID and the omnigraph.staged_against_* properties.
table::StageOptions DetachedStageOptions(const WriteTxn& txn);

// Commits `effects` for `txn` and publishes them as one commit.
// REQUIRES: the writer validated the change completely; every StagedOnPin
// transaction was staged on `txn`'s pin of its table with
// DetachedStageOptions(txn); at most one table effect per table key.
// Errors: ReadSetChanged (the branch moved since the capture; nothing
// published), NotFound (kind branch_not_found: the branch was deleted),
// InvalidArgument (an effect naming a table the snapshot lacks, two effects
// on one table), and those of Publish (of Propose, when options.proposal
// is set: the outcome is then the proposal's snapshot, candidate commit
// and tag, and the branch does not move).
Result<DoorOutcome> CommitThroughDoor(GraphStore& graph, const WriteTxn& txn, std::vector<Effect> effects,
                                      const DoorOptions& options = {});

}  // namespace omnigraph::graph
