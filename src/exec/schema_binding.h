// Reading a snapshot published under an older schema contract with the
// current one (spec/engine.md §1.2, §2.5; branches.md BR-7): tables are
// found by stable table id and columns by stable property id, so a read
// before a rename shows the old values under the new name, a property added
// later reads as null, and a dropped-then-re-added property (a new id) never
// shows the dropped values.
#pragma once

#include "compiler/catalog.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

// `snapshot` as read under `current` (the accepted schema): its tables keyed
// by their current aliases (tables of types `current` lacks are left out),
// and each table whose physical columns differ from `current`'s table schema
// read through a graph::ReadBinding. A snapshot of `current`'s own contract
// is returned as it is. Opens each pinned table version's manifest (no data).
// Errors: those of Snapshot::OpenDataset (VersionReclaimed, IoError).
Result<graph::Snapshot> BindToCatalog(const graph::Snapshot& snapshot, const compiler::Catalog& current);

}  // namespace omnigraph::exec
