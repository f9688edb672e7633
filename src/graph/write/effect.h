// The closed set of effects a writer can ask the door to publish
// (design/write-path.md writer table; design/structure.md P2).
//
// Every graph-content writer turns its prepared, validated change into a
// list of effects; the door commits the table effects as detached versions
// of their captured pins and the publisher folds all of them into one
// `__manifest` version. A writer never commits a table version or
// `__manifest` itself.
//
// Table effects name their table by key and are always against the pin the
// WriteTxn captured: at most one table effect per table key per write.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "columnar/record_batch.h"
#include "graph/manifest/graph_state.h"
#include "table/staging.h"

namespace omnigraph::graph {

// One transaction staged on the table's captured pin (mutation, load): the
// door commits it as one detached version. `appended` holds the rows when
// the transaction only appends them, so the table cache can derive the new
// version's data from the old one's instead of reading it back.
struct StagedOnPin {
  std::string table_key;
  table::StagedTransaction transaction;
  std::vector<RecordBatchPtr> appended;
};

// Stages one link of a chain on `base` (the captured pin for the first link,
// the previous link's detached version after it), with the door's staging
// options (staged-against properties, transaction UUID).
using LinkStager =
    std::function<Result<table::StagedTransaction>(const table::Dataset& base, const table::StageOptions& options)>;

// A chain of detached commits on the captured pin, each link on the one
// before, of which the tip is published (a merge writing rows into a
// target whose table changed since the merge base, in bounded chunks).
struct ChainTip {
  std::string table_key;
  std::vector<LinkStager> links;
};

// The table's registration takes another snapshot's pin of the same table
// identity (a merge adopting the source's version: no row is written).
struct PointerSwitch {
  std::string table_key;
  TableEntry adopted;
};

// A table identity newly registered (pinned at its creation version).
struct RegisterTable {
  TableEntry entry;
};

// A table identity no longer visible on the branch (a dropped type).
struct RetireTable {
  std::string table_key;
  TableIdentity identity;
};

// A table identity's alias changes (a renamed type, schema apply): the
// registration moves from `from_key` to `to_key` after any pin update of
// `from_key` in the same write; its location (identity-derived) stays.
struct RenameTable {
  std::string from_key;
  std::string to_key;
  TableIdentity identity;
};

// The accepted schema contract is replaced (schema apply).
struct ReplaceContract {
  SchemaContract contract;
};

// The commit gets a second parent: the merged source head, and the records
// of the source's lineage the target does not hold yet (BR-5 lineage import)
// with the source's history segments.
struct MergedParent {
  CommitRecord source_head;
  std::vector<CommitRecord> imported;
  std::vector<std::string> imported_segments;
};

using Effect = std::variant<StagedOnPin, ChainTip, PointerSwitch, RegisterTable, RetireTable, RenameTable,
                            ReplaceContract, MergedParent>;

}  // namespace omnigraph::graph
