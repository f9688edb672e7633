#include "exec/catalog_cache.h"

#include <fmt/format.h>

#include "compiler/typecheck.h"

namespace omnigraph::exec {

Result<std::shared_ptr<const compiler::Catalog>> CatalogCache::CatalogFor(const graph::GraphState& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = catalogs_.find(state.schema.ir_hash); it != catalogs_.end()) return it->second;
  auto compiled = compiler::CompileSchema(state.schema.source, "schema.pg");
  if (!compiled.ok()) {
    return CorruptData(fmt::format("the graph's accepted schema no longer compiles: {}", compiled.status().message()));
  }
  if (compiled->IrHash() != state.schema.ir_hash) {
    // An evolved schema: its ids are the accepted ones its IR records, not
    // the fresh numbering of its source (Catalog::AdoptIrIdentity).
    if (Status adopted = compiled->AdoptIrIdentity(state.schema.ir); !adopted.ok()) return adopted;
  }
  if (compiled->IrHash() != state.schema.ir_hash) {
    return CorruptData(fmt::format("the graph's schema contract hash {} does not match its source (hash {})",
                                   state.schema.ir_hash, compiled->IrHash()));
  }
  auto catalog = std::make_shared<const compiler::Catalog>(std::move(compiled).value());
  catalogs_[state.schema.ir_hash] = catalog;
  return catalog;
}

Result<std::shared_ptr<const compiler::ir::QueryIR>> CatalogCache::CompiledQuery(const graph::GraphState& state,
                                                                                   const compiler::Catalog& catalog,
                                                                                   std::string_view source,
                                                                                   std::string_view source_file,
                                                                                   const std::string& name) {
  std::string key = fmt::format("{}\n{}\n{}\n{}", state.schema.ir_hash, source_file, name, source);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = queries_.find(key); it != queries_.end()) return it->second;
  }
  OG_ASSIGN_OR_RETURN(compiler::ir::QueryIR query, compiler::CompileQuery(catalog, source, source_file, name));
  auto compiled = std::make_shared<const compiler::ir::QueryIR>(std::move(query));
  std::lock_guard<std::mutex> lock(mutex_);
  if (queries_.size() >= kMaxCompiledQueries) queries_.clear();
  queries_.emplace(std::move(key), compiled);
  return compiled;
}

}  // namespace omnigraph::exec
