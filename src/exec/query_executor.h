// The read-query executor: runs the typed query IR (compiler/query_ir.h)
// against one graph snapshot and produces result rows (spec/surface.md §2.4
// MATCH, §2.5 RETURN, §2.6 ORDER/LIMIT, §2.7 search, §2.8 now(), §9 items
// 5–10).
//
// Execution model. The match pipeline builds a columnar binding table: one
// vector of row numbers per bound variable (node variables index the node
// type's cached TableData, edge variables the edge table's), so no value is
// copied before the final projection. Steps run in IR order:
//   * kScan    — candidate rows of the node type (inline filters; a filter on
//                the single-property @key is a hash lookup of the derived id),
//                cartesian product with the rows so far;
//   * kCheck   — inline filters of an already bound variable;
//   * kTraverse— expansion over the cached CSR of the edge table
//                (exec/topology.h) with the normative BFS of §2.4 (shortest
//                hop distances; the source's own self-loop only at hop 1;
//                a node reported at most once per source row), set-of-pairs
//                semantics without an edge binding, one row per edge with
//                one, a cycle check when the destination is already bound;
//   * kFilter  — SQL three-valued comparisons (NULL never matches, also for
//                `!=`), list membership, exact substring / prefix tests with
//                positional operands, flat token search;
//   * kNegation— anti-join: the inner steps run seeded with the outer rows
//                (tracked by a hidden origin column); outer rows with no
//                surviving inner row are kept. Nesting works recursively.
// Then: search ordering (nearest / bm25 / rrf) or user order keys (NULLs
// first ascending, last descending, then the ids of every bound named
// variable ascending, edges by their id — not for aggregate queries),
// aggregates with implicit grouping (first-appearance group order),
// limit, and the projection of output columns.
//
// Search functions. nearest: brute-force squared-L2 (Lance's L2 metric,
// also the projected score) over the rows that passed the match clause
// (pre-filtering), `limit` nearest; a String query is embedded only in mock
// mode (OMNIGRAPH_EMBEDDINGS_MOCK), otherwise Unsupported. bm25 / search /
// fuzzy / match_text: flat token matching (exec/text_search.h: lower-cased
// ASCII-alphanumeric tokens, no stemming); bm25 statistics are taken over
// the distinct candidate entities. rrf: §2.7 fusion. Score projections are
// supported for nearest and bm25, and for rrf when it is the search order.
#pragma once

#include <map>
#include <string>

#include "columnar/scalar.h"
#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "exec/result_format.h"
#include "exec/topology.h"
#include "graph/graph_store.h"
#include "graph/snapshot.h"
#include "util/status.h"

namespace omnigraph::exec {

struct QueryContext {
  const graph::Snapshot* snapshot = nullptr;     // pins of every table, and access to them
  const compiler::Catalog* catalog = nullptr;    // the snapshot's schema
  // Bound parameters by name (representation: query_ir.h). A missing
  // nullable parameter reads as NULL; when the query uses now() and
  // `__nanograph_now` is absent, the current time is used.
  const std::map<std::string, Scalar>* params = nullptr;
  // Where traversals find and keep edge topologies: the engine context's
  // cache (api/engine.h), shared by every handle of the process.
  TopologyCache* topologies = nullptr;
};

// Runs a read query (query.is_mutation == false) against context.state.
// REQUIRES: every pointer of `context` is set.
// The result's columns are the projections' runtime names (Projection::
// column); column types are the projections' physical types (count → Int64,
// sum/avg → Float64, a bare node variable → its Utf8 id, search scores →
// Float64). `branch` and `graph_commit_id` come from the state.
// Errors:
//   InvalidArgument — a mutation query; "parameter 'x' not provided" for a
//                     used non-nullable parameter; a parameter of the wrong
//                     kind; an invalid search argument (negative max_edits,
//                     k <= 0, query vector of the wrong length);
//   Unsupported     — nearest with a String query outside mock embedding
//                     mode, rrf score projections without rrf ordering,
//                     search functions combined with aggregates;
//   NotFound / CorruptData / IoError / VersionReclaimed — from reading the
//                     snapshot's tables;
//   ResourceLimitExceeded — a binding table beyond 2^32-1 rows.
Result<QueryResult> ExecuteRead(const compiler::ir::QueryIR& query, const QueryContext& context);

}  // namespace omnigraph::exec
