// Schema plan and the schema apply writer (spec/surface.md §1.9, §5.2;
// spec/engine.md §1.2, §3.4, §5.2 row "Schema apply"; design/write-path.md
// "Schema apply changes an existing table's columns by metadata-only Lance
// commits").
//
// Apply is metadata only: per evolved table a chain of detached commits on
// its pin (a Project renaming and dropping columns, a Merge adding nullable
// columns over the unchanged fragments, and a Project putting the columns in
// catalog order when the first two leave them out of it); no data file is
// written and no row is read. An added type is created at version 1 of the
// path its identity derives (a retry derives the same one); a dropped type
// is retired; a renamed type keeps its table and changes its alias. The
// replacement schema contract, every pin and alias publish in one main
// commit at exactly M+1 through the door, under the exclusive schema gate.
#pragma once

#include <optional>
#include <string>

#include "compiler/schema_plan.h"
#include "exec/catalog_cache.h"
#include "graph/graph_store.h"

namespace omnigraph::exec {

struct SchemaChangeRequest {
  std::string source;       // the desired .pg text
  std::string source_file;  // names it in compiler errors
  bool allow_data_loss = false;
  std::optional<std::string> actor_id;
};

struct SchemaChangeResult {
  compiler::SchemaPlan plan;
  bool applied = false;
  // Main's manifest version after the apply (the current one when nothing
  // was applied).
  uint64_t manifest_version = 0;
  std::optional<graph::CommitRecord> commit;
};

// The plan from main's accepted schema to `request.source`; changes nothing.
// Errors: the compiler's (InvalidArgument naming file:line:column);
// CorruptData for an unreadable accepted contract; storage errors.
Result<SchemaChangeResult> PlanSchema(graph::GraphStore& graph, CatalogCache& catalogs,
                                      const SchemaChangeRequest& request);

// Plans and applies on main. A plan without steps whose source equals the
// accepted one publishes nothing (applied = false); a source that differs
// only in comments or formatting still publishes the new contract.
// Errors: those of PlanSchema; InvalidArgument "schema change is not
// supported: …" (detail kind unsupported_schema_change) when any step is
// unsupported; Conflict (kind manifest_conflict) "schema apply requires a
// graph with only main; found non-main branches: …" (engine.md §3.4);
// ReadSetChanged when main moved after the capture (never rebased);
// storage errors. A failure leaves the graph unchanged.
Result<SchemaChangeResult> ApplySchema(graph::GraphStore& graph, CatalogCache& catalogs,
                                       const SchemaChangeRequest& request);

}  // namespace omnigraph::exec
