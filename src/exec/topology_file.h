// Persisted copies of traversal topologies (spec/engine.md §7.4: "persisted
// copies are derived caches").
//
// Building the CSR of a large edge table means reading its `src`/`dst`
// columns and resolving every endpoint id (about 200 ms for 500k edges), a
// cost a new process (each CLI query) would otherwise pay on every run. The
// first process that builds a topology of at least `min_edges` edges writes
// it under `{graph}/_cache/topology/{hash of identity}.csr`; later
// processes read it back. A copy is only a cache: it is written without
// fsync, carries its full identity (edge and endpoint table pins) and a
// checksum, and anything that does not verify is ignored and rebuilt.
// Deleting `_cache/` never changes a result.
//
// File layout (little-endian; arrays 4-byte aligned, so they are used in
// place without copying). The header checksum covers the header, the
// identity and the block checksum table; a reader checks the header against
// the file's size before it maps anything, so a huge or sparse file costs
// nothing. The arrays region is cut into 64 KiB blocks, each with its own
// checksum, verified (with the bounds of its values) the first time a
// traversal reads it (exec/topology.h, TopologyBlocks): a cold query that
// expands a few nodes does not read, hash and validate the whole file.
//   0  magic "OGTOPO03"          8 bytes
//   8  header checksum           u64  XXH3 of bytes [16, arrays)
//  16  format version (3)        u32
//  20  identity length           u32
//  24  num_edges                 u64
//  32  dangling_edges            u64
//  40  forward node count        u32
//  44  reverse node count        u32
//  48  edge rows                 u64  rows of the edge table (bounds `edges`)
//  56  file size                 u64
//  64  identity, zero-padded to a multiple of 8
//      block checksums           u64 per 64 KiB block of the arrays region
//      arrays: forward offsets (node count + 1), neighbors, edges (u32 each),
//              reverse offsets (node count + 1), neighbors, edges
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "exec/topology.h"
#include "io/object_store.h"
#include "util/buffer.h"
#include "util/status.h"

namespace omnigraph::exec {

// The bytes of a persisted copy of `topology` named by `identity`.
std::string EncodeTopology(const Topology& topology, std::string_view identity);

// The file size the header at the start of `header` (at least
// kTopologyHeaderBytes) announces, checked against the sizes its counts
// imply. Errors: CorruptData for a wrong magic or version, or counts that do
// not add up to the announced size.
inline constexpr size_t kTopologyHeaderBytes = 64;
Result<uint64_t> TopologyFileSize(std::string_view header);

// The topology in `bytes`, whose arrays view `bytes` (kept alive by the
// result). Only the header, identity and block checksum table are verified
// here; each array block is verified when first read (Adjacency::Ready).
// Errors: CorruptData when the header, size or header checksum is wrong,
// when the identity is not `identity`, or when edges have no node or edge
// rows to point at.
Result<TopologyPtr> DecodeTopology(BufferPtr bytes, std::string_view identity);

// The persisted topologies of one graph.
class TopologyFiles {
 public:
  // Copies kept per graph; writing one more removes the others (a bound
  // on disk use, not an LRU: the cache only saves rebuilds).
  static constexpr size_t kMaxFiles = 8;
  // Topologies with fewer edges build faster than a file is read.
  static constexpr uint64_t kDefaultMinEdges = 65536;

  // `graph_root` is the graph's key in `store`. `min_edges` is the
  // smallest edge count worth persisting; the environment variable
  // OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES overrides the default.
  TopologyFiles(ObjectStore* store, std::string graph_root, uint64_t min_edges = DefaultMinEdges());

  static uint64_t DefaultMinEdges();

  // The persisted topology of `identity`, or nullptr when there is none
  // or it does not verify (never an error: the caller rebuilds).
  TopologyPtr Load(std::string_view identity) const;
  // Persists `topology` when it has at least `min_edges` edges. Failures
  // (read-only graph, full disk) are ignored: the copy is only a cache.
  void Save(std::string_view identity, const Topology& topology) const;

  // Store key of the copy of `identity`.
  std::string PathOf(std::string_view identity) const;

 private:
  ObjectStore* store_;
  std::string directory_;
  uint64_t min_edges_;
};

}  // namespace omnigraph::exec
