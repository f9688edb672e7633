#include "api/engine.h"

namespace omnigraph::api {

EngineOptions EngineOptions::WithCacheBudget(int64_t bytes) {
  EngineOptions options;
  options.topologies.bytes = bytes / 3;
  options.tables.table_data_bytes = bytes - options.topologies.bytes;
  return options;
}

Engine::Engine(EngineOptions options)
    : options_(options),
      tables_(std::make_shared<graph::TableVersionCache>(options_.tables)),
      topologies_(options_.topologies),
      ordered_scans_(options_.ordered_scans) {}

const std::shared_ptr<Engine>& Engine::Process() {
  // Never destroyed: handles may outlive static destruction order.
  static auto* engine = new std::shared_ptr<Engine>(std::make_shared<Engine>());
  return *engine;
}

Engine::Usage Engine::usage() {
  graph::TableVersionCache::Counts tables = tables_->counts();
  return Usage{tables.datasets,    tables.table_data,    tables.table_data_bytes,
               topologies_.size(), topologies_.bytes(), ordered_scans_.usage()};
}

}  // namespace omnigraph::api
