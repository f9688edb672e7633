// The one publication (spec/engine.md §1.6; design/write-path.md "publish
// every pin + accepted schema contract + lineage in one __manifest CAS").
//
// A graph commit becomes visible exactly when one new `__manifest` version
// exists on its branch's native ref. Publish() is the only writer of
// `__manifest` content: it checks every captured precondition against
// version M (the captured one), builds the complete next row image
// (copy-on-write: pins, registrations, contract, the new head commit and
// the settled history) and commits it as exactly version M+1 with a
// put-if-absent, never retried. Losing that race is ReadSetChanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph_store.h"
#include "graph/write/effect.h"

namespace omnigraph::graph {

// A pin a publication moves: to a detached version the door committed, or
// to another snapshot's pin of the same identity (a pointer switch).
struct TableUpdate {
  std::string table_key;
  TableIdentity identity;
  uint64_t expected_published_version = 0;  // the captured pin's
  // The new pin. Its published_version is expected + 1, except that a
  // pointer switch keeps the adopted pin's own when that is higher, so the
  // registration equals the source's (BR-9.5 compares whole registrations).
  TablePin new_pin;
  bool pointer_switch = false;
};

// Everything one publication needs, captured before any effect.
struct Publication {
  NativeRef ref;
  uint64_t expected_manifest_version = 0;  // M
  std::string expected_head;               // the captured effective head
  std::vector<TableUpdate> updates;
  std::vector<TableEntry> registrations;
  std::vector<RetireTable> retirements;
  std::vector<RenameTable> renames;  // applied after updates and retirements
  std::optional<SchemaContract> schema;  // replacement contract, if any
  std::string intent_nonce;              // ULID minted with the write intent
  std::optional<std::string> actor_id;
  int64_t created_at_us = 0;
  std::optional<MergedParent> merged;    // second parent and lineage import
  // Store keys (detached table versions, their data and deletion files)
  // that must be durable before the publication is; synced in the same
  // batch as the new __manifest version, before it becomes visible.
  std::vector<std::string> sync_with;
};

// The published state (the new snapshot's rows) and its head commit.
struct Published {
  std::shared_ptr<const GraphState> state;
  CommitRecord commit;
};

// Publishes `publication` as version M+1 of its ref.
// Errors: NotFound (kind branch_not_found) when the ref is no longer live;
// ReadSetChanged (details member, expected, actual; members
// "graph_head:<branch>", "dataset_binding:<identity>") when a captured
// precondition no longer holds or another writer published M+1 first;
// Conflict when a registration's alias is taken; IoError. An error after
// the put-if-absent may have landed is resolved by reading M+1 back: holding
// this commit it is a success; an unreadable version keeps the error with
// detail outcome=indeterminate. A failure that cannot have published
// deletes the `__manifest` data file and history segment it wrote; the
// caller's detached table versions (`sync_with`) are the caller's to delete.
Result<Published> Publish(GraphStore& graph, const Publication& publication);

// How a write becomes a proposal rather than a new version of its branch
// (spec/branches.md BR-11.1, BR-12.1).
struct ProposalForm {
  bool unattached = false;
  // Unattached child: its root's id (nullopt: the snapshot is a root).
  std::optional<std::string> root;
  // Unattached child: the parent snapshot's state the effects apply to
  // (nullptr: the target's captured version M).
  std::shared_ptr<const GraphState> base;
};

// A proposal written: its rows (head = the candidate commit) and its tag.
struct Proposed {
  std::shared_ptr<const GraphState> state;
  std::string tag;
};

// Writes `publication` as a proposal: the complete result rows as a
// detached version D of the target's `__manifest` whose transaction
// carries the recipe (proposals.h), then the tag unpublished_<C> (or
// unattached_<R>_<C>) put-if-absent at D, then re-probes the target's
// authority. The candidate commit is exactly the one Publish would have
// made on the captured head (id per BR-4.2), or for an unattached
// snapshot a commit whose id is the intent nonce, parent the base's head,
// and manifest version the base's + 1. The branch head does not move.
// Errors: those of Publish before its CAS (NotFound branch_not_found,
// ReadSetChanged, Conflict); ReadSetChanged when the target moved before
// the tag was durable (the tag is removed again); Internal when the tag
// exists at another version (integrity); IoError (detail
// kind=manifest_publish_in_doubt when the tag's creation could not be
// read back).
Result<Proposed> Propose(GraphStore& graph, const Publication& publication, const ProposalForm& form);

// Publishes the unpublished commit recorded by a proposal: one ordinary
// `__manifest` version on its target holding the proposal's exact pins,
// schema and history, and its commit record with the same id, parents,
// actor and creation time (BR-11.3 step 3). Table effects are not
// replayed. REQUIRES: `state` is the proposal's rows, `target` its live
// target, `captured_head` its captured parent.
// Errors: NotFound (branch_not_found); ReadSetChanged (member
// graph_head:<b>) when the target's head is not `captured_head` or another
// commit took the next version; Internal "commit id recomputed as '<x>',
// not '<C>'" when the id allocated now differs; IoError (outcome as
// Publish's).
Result<Published> PublishProposed(GraphStore& graph, const NativeRef& target, const std::string& captured_head,
                                  const GraphState& state);

// Whether a failed write's publication may still have landed (its error
// says outcome=indeterminate, or the object store could not confirm a
// visible name). Only when it cannot may the write delete its unpublished
// staging.
bool PublicationMayHaveLanded(const Status& failure);

// ReadSetChanged with its standard message and details (BR-9.2, engine.md §1.6).
Status ReadSetChanged(std::string member, std::string expected, std::string actual);

}  // namespace omnigraph::graph
