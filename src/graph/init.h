// Creating a graph (spec/engine.md §1.8 init): claim the root with
// `__init_claim.json`, create every table at version 1, then `__manifest`
// in one Create holding all table rows, the schema contract and the
// parentless genesis commit (a ULID).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "graph/graph_store.h"

namespace omnigraph::graph {

struct TableSpec {
  std::string table_key;  // "node:Person"
  uint64_t stable_id = 0;
  Schema schema;          // physical columns (field ids assigned by Create)
};

// Creates the table of a type schema apply adds, at version 1 of the
// location its identity derives (engine.md §1.2; write-path.md "an added
// type uses its identity-derived path, which a retry derives again"), and
// returns its registration pinned there. Whatever an earlier attempt that
// never published left at that path is replaced, never adopted.
// REQUIRES: `identity` is registered on no branch (the caller derived it
// for a type the accepted schema lacks) and the caller holds main's writers
// lock. Errors: IoError.
Result<TableEntry> CreateAddedTable(GraphStore& graph, const TableSpec& spec, const TableIdentity& identity);

// Creates a graph at `root`. A claim whose owner died (an init killed or
// crashed before publishing) is taken over; a failed init releases its
// claim and removes the tables it created.
// Errors: AlreadyExists (detail kind already_initialized when a __manifest
// version exists, initialization_claimed when a live init holds the claim),
// IoError (detail kind initialization_indeterminate when __manifest v1 may
// or may not survive a power cut). `versions`: as for GraphStore::Open.
Result<std::shared_ptr<GraphStore>> InitGraph(ObjectStorePtr store, std::string root, SchemaContract contract,
                                              const std::vector<TableSpec>& tables,
                                              TableVersionCachePtr versions = nullptr);

}  // namespace omnigraph::graph
