// Mutation execution (spec/surface.md §3.2): statements run in order against
// the captured snapshot plus the query's own pending writes
// (read-your-writes: a pending row image shadows the committed one), and
// the whole query becomes one WriteDelta — validated and published as
// exactly one commit by the caller, or none when nothing changed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "columnar/scalar.h"
#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "exec/blob_value.h"
#include "exec/write_delta.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

struct MutationPlan {
  WriteDelta delta;
  uint64_t affected_nodes = 0;
  uint64_t affected_edges = 0;
  // Only inserts: a moved branch may be re-prepared silently (engine.md §5.2).
  bool insert_only = true;

  bool changes_anything() const { return !delta.empty(); }
};

// Plans `query` (a checked mutation). `params` holds the bound parameters
// (including `__nanograph_now` when the query uses now()).
// Errors: InvalidArgument for run-time failures ("parameter 'x' not
// provided", "insert missing @key property 'p'", a value that does not fit
// its property), ResourceLimitExceeded (also "external Blob reference
// cells" above 8,192 URI cells), ExternalBlobPolicy for a Blob URI
// `blob_policy` refuses ("parameter '<p>': blob property '<q>': …" when a
// parameter carried it; every URI under the default Deny).
Result<MutationPlan> PlanMutation(const graph::Snapshot& base, const compiler::Catalog& catalog, const compiler::ir::QueryIR& query,
                                  const std::map<std::string, Scalar>& params,
                                  const ExternalBlobPolicy& blob_policy = DenyExternalBlobs());

}  // namespace omnigraph::exec
