// The engine context: what one process shares across every Omnigraph handle
// it opens, on every graph (design/structure.md P3 `api/engine`).
//
// It owns the caches that hold decoded data and their memory budgets:
//   tables()      opened and decoded table versions (graph/table_cache.h),
//                 under one byte budget for every graph;
//   topologies()  edge topologies (CSR) traversals build (exec/topology.h).
// and the process's ordered-scan envelope:
//   ordered_scans()  the resident pool and scratch cap every external sort
//                 of an export or change baseline draws from
//                 (exec/ordered_scan_budget.h; engine.md Appendix A,
//                 surface.md §7.1 "ordered-scan spill envelope").
// Handles of one graph opened with one engine read each table version once:
// a server's writer handle and its pool of reader handles share what any
// of them decoded, including what the writer derived from its own commits.
//
// It does not own the write gates (graph/write/gates.h). Gates order the
// writers of one graph inside a process whatever handle or engine they come
// through: were they per engine, two engines of one process would stop
// ordering each other's writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "exec/ordered_scan_budget.h"
#include "exec/topology.h"
#include "graph/table_cache.h"

namespace omnigraph::api {

struct EngineOptions {
  graph::TableCacheLimits tables;
  exec::TopologyCacheLimits topologies;
  // Spec defaults: a 150 MiB resident pool shared by the ordered scans of
  // every handle, 100 GiB of scratch for their spilled runs (bytes each;
  // REQUIRES > 0). Not part of WithCacheBudget: the pool holds sort runs
  // for as long as a scan lives, not a cache that can be evicted.
  exec::OrderedScanLimits ordered_scans;

  // Options whose two caches together stay within `bytes`: two thirds for
  // decoded table rows, one third for topologies (a topology is at most a
  // few times smaller than the edge table it indexes).
  // REQUIRES: bytes > 0.
  static EngineOptions WithCacheBudget(int64_t bytes);
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The process's default engine: handles opened without an engine share it.
  static const std::shared_ptr<Engine>& Process();

  const EngineOptions& options() const { return options_; }
  const graph::TableVersionCachePtr& tables() const { return tables_; }
  exec::TopologyCache& topologies() { return topologies_; }
  exec::OrderedScanBudget& ordered_scans() { return ordered_scans_; }

  // What the caches and the ordered scans hold now (for diagnostics, a
  // server's reports, and tests).
  struct Usage {
    size_t datasets = 0;           // opened table versions
    size_t table_versions = 0;     // decoded table versions
    int64_t table_bytes = 0;       // their TableData::MemoryBytes
    size_t topologies = 0;         // cached edge topologies
    int64_t topology_bytes = 0;    // their Topology::MemoryBytes
    // Bytes reserved now and at most so far (resident, scratch) and runs
    // spilled early for want of pool (exec::OrderedScanBudget::Usage).
    exec::OrderedScanBudget::Usage ordered_scans;
  };
  Usage usage();

 private:
  const EngineOptions options_;
  graph::TableVersionCachePtr tables_;
  exec::TopologyCache topologies_;
  exec::OrderedScanBudget ordered_scans_;
};

using EnginePtr = std::shared_ptr<Engine>;

}  // namespace omnigraph::api
