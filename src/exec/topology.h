// Compressed adjacency (CSR) of one edge table at one pin, for traversals
// (spec/surface.md §2.4; §7.1 "graph index cache", 8 entries).
//
// Nodes are addressed by their dense row number in the endpoint tables'
// cached TableData (graph/table_data.h), edges by their row number in the
// edge table's TableData. Pins are immutable, so a topology built for
// (edge pin, from-table pin, to-table pin) never changes; it is cached
// process-wide by that exact identity and evicted least recently used.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "graph/table_data.h"
#include "util/status.h"

namespace omnigraph::exec {

// The storage of a persisted topology (exec/topology_file.h), verified
// lazily: its arrays region is cut into fixed blocks, each with its own
// checksum, and a block is checked (checksum, then every value against the
// bound of the array it belongs to) the first time a traversal reads it. A
// query that expands a few nodes verifies a few blocks instead of the whole
// file. Thread-safe; a verdict is computed at most a few times and kept.
class TopologyBlocks {
 public:
  // Bytes [begin, end) of the region hold u32 values that must not exceed
  // `max` (an array: offsets, neighbor rows or edge rows).
  struct Bound {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint32_t max = 0;
  };

  // `region`/`size`: the arrays; `checksums`: one little-endian u64 per
  // block of `block_bytes` (the last may be shorter). The memory must
  // outlive this object.
  TopologyBlocks(const uint8_t* region, uint64_t size, const uint8_t* checksums, uint64_t block_bytes,
                 std::vector<Bound> bounds);

  // Whether the bytes [data, data + bytes), which lie in the region, are
  // intact: every block they touch verified.
  bool Verify(const void* data, uint64_t bytes) const;

 private:
  bool VerifyBlock(uint64_t block) const;

  const uint8_t* region_;
  uint64_t size_;
  const uint8_t* checksums_;
  uint64_t block_bytes_;
  std::vector<Bound> bounds_;
  // Per block: 0 not yet checked, 1 intact, 2 corrupt.
  std::unique_ptr<std::atomic<uint8_t>[]> verdicts_;
};

// One direction of adjacency. Within a node's range, entries are sorted by
// (neighbor row, edge row), so parallel edges to one neighbor are adjacent
// (set-of-pairs de-duplication is a comparison with the previous entry) and
// membership tests can binary-search. The arrays are views into the
// storage their Topology owns (vectors it built, or a persisted copy it
// read; see exec/topology_file.h).
struct Adjacency {
  std::span<const uint32_t> offsets;    // node count + 1
  std::span<const uint32_t> neighbors;  // neighbor node rows
  std::span<const uint32_t> edges;      // edge rows, parallel to `neighbors`
  // Set for a persisted copy, whose arrays are verified as they are read.
  const TopologyBlocks* blocks = nullptr;

  // Whether `node` (below num_nodes()) may be expanded: for a persisted
  // copy, the blocks holding its offsets and entries are intact and its
  // range lies within the arrays. Callers check it before begin(), end()
  // and the entries of `node`; false means the copy is corrupt.
  bool Ready(uint32_t node) const { return blocks == nullptr || VerifyNode(node); }

  uint32_t begin(uint32_t node) const { return offsets[node]; }
  uint32_t end(uint32_t node) const { return offsets[node + 1]; }
  uint32_t num_nodes() const { return offsets.empty() ? 0 : static_cast<uint32_t>(offsets.size() - 1); }
  // True when `node` has an entry whose neighbor is `target` (`node` Ready).
  bool HasNeighbor(uint32_t node, uint32_t target) const;

 private:
  bool VerifyNode(uint32_t node) const;
};

struct Topology {
  Adjacency forward;  // indexed by rows of the edge's from-type table: src → dst
  Adjacency reverse;  // indexed by rows of the edge's to-type table: dst → src
  uint64_t num_edges = 0;
  // Edges whose src or dst id is not a row of its endpoint table. Write
  // validation rejects dangling endpoints (§3.2), so this is 0 for any graph
  // this engine wrote; such edges are left out rather than failing reads.
  uint64_t dangling_edges = 0;
  // Rows of the edge table (every entry of `edges` is below it).
  uint64_t edge_rows = 0;
  // Owns the arrays `forward` and `reverse` view.
  std::shared_ptr<const void> storage;

  int64_t MemoryBytes() const;
};

using TopologyPtr = std::shared_ptr<const Topology>;

// Builds the topology of an edge table from its endpoint columns `src` and
// `dst` (Utf8, in table row order: edge row e is position e) whose
// endpoints live in `from_nodes` / `to_nodes`.
// Errors: CorruptData when `src`/`dst` are not Utf8 columns of one length;
// ResourceLimitExceeded beyond 2^32-1 edges or nodes.
Result<TopologyPtr> BuildTopology(const Array& src, const Array& dst, const graph::TableData& from_nodes,
                                  const graph::TableData& to_nodes);

// The identity of an edge table's topology within its graph: the exact
// physical identity (location, Lance version, transaction) of the edge table
// and of both endpoint tables. The process-wide cache key prefixes it with
// the graph root; a persisted copy is named by it.
std::string TopologyIdentity(const graph::TableEntry& edges, const graph::TableEntry& from_nodes,
                             const graph::TableEntry& to_nodes);

// Limits of a TopologyCache; the least recently used topology goes first
// when either is passed (one topology larger than `bytes` is still kept
// while it is the only one).
struct TopologyCacheLimits {
  size_t topologies = 8;
  int64_t bytes = int64_t{256} << 20;  // as accounted by Topology::MemoryBytes
};

// A thread-safe LRU cache of topologies, keyed by the graph root's URI and
// TopologyIdentity. A process has one per engine context (api/engine.h),
// shared by every handle on every graph.
class TopologyCache {
 public:
  explicit TopologyCache(TopologyCacheLimits limits = {}) : limits_(limits) {}

  // The cached topology for `key`, or the result of `build` (run without the
  // lock held; when two callers race, the first inserted result wins).
  // Errors: whatever `build` returns (not cached).
  Result<TopologyPtr> GetOrBuild(const std::string& key, const std::function<Result<TopologyPtr>()>& build);

  // Whether `key` is cached (without counting as a use).
  bool Contains(const std::string& key) const;
  // Drops `key` if it holds `topology` (a copy found corrupt), so a
  // replacement another caller cached meanwhile survives.
  void Erase(const std::string& key, const TopologyPtr& topology);
  size_t size() const;
  // Sum of the cached topologies' MemoryBytes.
  int64_t bytes() const;
  void Clear();

 private:
  struct Entry {
    TopologyPtr topology;
    uint64_t last_use = 0;
  };
  const TopologyCacheLimits limits_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mutex_
  uint64_t clock_ = 0;                                  // guarded by mutex_
  int64_t bytes_ = 0;                                   // guarded by mutex_
};

}  // namespace omnigraph::exec
