// Compiled schemas and queries, by the schema contract they belong to
// (design/structure.md P3: one process context owns the caches).
//
// A snapshot's accepted schema is identified by its IR hash; a catalog is
// compiled once per hash, and a query once per (hash, file, name, source),
// so an agent repeating one query or mutation compiles it once. Both are
// immutable and disposable.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "graph/manifest/graph_state.h"

namespace omnigraph::exec {

class CatalogCache {
 public:
  // The catalog of `state`'s accepted schema contract. Errors: CorruptData
  // when the stored source no longer compiles or does not match its hash.
  Result<std::shared_ptr<const compiler::Catalog>> CatalogFor(const graph::GraphState& state);
  // Query `name` of `source` compiled against `catalog` (the catalog of
  // `state`). Errors: the compiler's (InvalidArgument naming file:line:column).
  Result<std::shared_ptr<const compiler::ir::QueryIR>> CompiledQuery(const graph::GraphState& state,
                                                                       const compiler::Catalog& catalog,
                                                                       std::string_view source,
                                                                       std::string_view source_file,
                                                                       const std::string& name);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const compiler::Catalog>> catalogs_;  // by IR hash
  // Cleared when it reaches kMaxCompiledQueries entries.
  std::map<std::string, std::shared_ptr<const compiler::ir::QueryIR>> queries_;
  static constexpr size_t kMaxCompiledQueries = 64;
};

}  // namespace omnigraph::exec
