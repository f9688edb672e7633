#include "exec/topology_file.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::exec {

namespace {

constexpr std::string_view kMagic = "OGTOPO02";
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kChecksumOffset = 8;
constexpr size_t kChecksummedFrom = 16;

uint64_t PaddedLength(uint64_t n) { return (n + 3) / 4 * 4; }

void AppendArray(std::string* out, std::span<const uint32_t> values) {
  out->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(uint32_t));
}

// Reads `count` u32 values at `*offset` as a view, advancing the offset.
bool TakeArray(const uint8_t* base, size_t size, size_t* offset, uint64_t count, std::span<const uint32_t>* out) {
  if (count > (size - *offset) / sizeof(uint32_t)) return false;
  *out = {reinterpret_cast<const uint32_t*>(base + *offset), static_cast<size_t>(count)};
  *offset += static_cast<size_t>(count) * sizeof(uint32_t);
  return true;
}

// The largest value of `values` (0 when empty). This runs over every edge
// on each load: a branch-free maximum over four independent lanes keeps it
// near a cycle per value.
uint32_t Largest(std::span<const uint32_t> values) {
  uint32_t lanes[4] = {0, 0, 0, 0};
  const size_t n = values.size();
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    for (size_t lane = 0; lane < 4; ++lane) lanes[lane] = std::max(lanes[lane], values[k + lane]);
  }
  for (; k < n; ++k) lanes[0] = std::max(lanes[0], values[k]);
  return std::max({lanes[0], lanes[1], lanes[2], lanes[3]});
}

// A CSR direction is valid when its offsets run from 0 to the edge count
// without decreasing, every neighbor is a node of the other side and every
// edge a row of the edge table.
bool ValidDirection(const Adjacency& adj, uint64_t num_edges, uint32_t other_nodes, uint64_t edge_rows) {
  if (adj.offsets.empty() || adj.offsets.front() != 0 || adj.offsets.back() != num_edges) return false;
  for (size_t k = 1; k < adj.offsets.size(); ++k) {
    if (adj.offsets[k] < adj.offsets[k - 1]) return false;
  }
  if (num_edges == 0) return true;
  return Largest(adj.neighbors) < other_nodes && Largest(adj.edges) < edge_rows;
}

}  // namespace

Result<uint64_t> TopologyFileSize(std::string_view header) {
  const auto* base = reinterpret_cast<const uint8_t*>(header.data());
  if (header.size() < kTopologyHeaderBytes || header.substr(0, kMagic.size()) != kMagic) {
    return CorruptData("topology file: bad magic");
  }
  if (LoadLE<uint32_t>(base + 16) != kFormatVersion) return CorruptData("topology file: unknown format version");
  // Every count is bounded by 32 bits, so the sum cannot overflow.
  const uint64_t identity_length = LoadLE<uint32_t>(base + 20);
  const uint64_t num_edges = LoadLE<uint64_t>(base + 24);
  const uint64_t forward_nodes = LoadLE<uint32_t>(base + 40);
  const uint64_t reverse_nodes = LoadLE<uint32_t>(base + 44);
  const uint64_t size = LoadLE<uint64_t>(base + 56);
  if (num_edges > std::numeric_limits<uint32_t>::max() ||
      size != kTopologyHeaderBytes + PaddedLength(identity_length) +
                  sizeof(uint32_t) * (forward_nodes + 1 + reverse_nodes + 1 + 4 * num_edges)) {
    return CorruptData("topology file: array lengths do not match its size");
  }
  return size;
}

std::string EncodeTopology(const Topology& topology, std::string_view identity) {
  std::string out(kTopologyHeaderBytes, '\0');
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  StoreLE<uint32_t>(out.data() + 16, kFormatVersion);
  StoreLE<uint32_t>(out.data() + 20, static_cast<uint32_t>(identity.size()));
  StoreLE<uint64_t>(out.data() + 24, topology.num_edges);
  StoreLE<uint64_t>(out.data() + 32, topology.dangling_edges);
  StoreLE<uint32_t>(out.data() + 40, topology.forward.num_nodes());
  StoreLE<uint32_t>(out.data() + 44, topology.reverse.num_nodes());
  StoreLE<uint64_t>(out.data() + 48, topology.edge_rows);
  out.append(identity);
  out.resize(kTopologyHeaderBytes + PaddedLength(identity.size()), '\0');
  for (const Adjacency* adj : {&topology.forward, &topology.reverse}) {
    AppendArray(&out, adj->offsets);
    AppendArray(&out, adj->neighbors);
    AppendArray(&out, adj->edges);
  }
  StoreLE<uint64_t>(out.data() + 56, out.size());
  StoreLE<uint64_t>(out.data() + kChecksumOffset,
                    Checksum64(out.data() + kChecksummedFrom, out.size() - kChecksummedFrom));
  return out;
}

Result<TopologyPtr> DecodeTopology(BufferPtr bytes, std::string_view identity) {
  if (reinterpret_cast<uintptr_t>(bytes->data()) % alignof(uint32_t) != 0) {
    bytes = Buffer::FromString(bytes->view());  // heap copies are aligned
  }
  const uint8_t* base = bytes->data();
  const size_t size = bytes->size();
  OG_ASSIGN_OR_RETURN(uint64_t announced, TopologyFileSize(bytes->view()));
  if (announced != size) return CorruptData("topology file: truncated");
  if (LoadLE<uint64_t>(base + kChecksumOffset) != Checksum64(base + kChecksummedFrom, size - kChecksummedFrom)) {
    return CorruptData("topology file: checksum mismatch");
  }
  const uint32_t identity_length = LoadLE<uint32_t>(base + 20);
  if (std::string_view(reinterpret_cast<const char*>(base + kTopologyHeaderBytes), identity_length) != identity) {
    return CorruptData("topology file: identity mismatch");
  }
  auto topology = std::make_shared<Topology>();
  topology->num_edges = LoadLE<uint64_t>(base + 24);
  topology->dangling_edges = LoadLE<uint64_t>(base + 32);
  const uint32_t forward_nodes = LoadLE<uint32_t>(base + 40);
  const uint32_t reverse_nodes = LoadLE<uint32_t>(base + 44);
  topology->edge_rows = LoadLE<uint64_t>(base + 48);
  size_t offset = kTopologyHeaderBytes + PaddedLength(identity_length);
  for (auto [adj, nodes] : {std::pair{&topology->forward, forward_nodes}, {&topology->reverse, reverse_nodes}}) {
    // Lengths were checked against the size by TopologyFileSize.
    TakeArray(base, size, &offset, uint64_t{nodes} + 1, &adj->offsets);
    TakeArray(base, size, &offset, topology->num_edges, &adj->neighbors);
    TakeArray(base, size, &offset, topology->num_edges, &adj->edges);
  }
  if (!ValidDirection(topology->forward, topology->num_edges, reverse_nodes, topology->edge_rows) ||
      !ValidDirection(topology->reverse, topology->num_edges, forward_nodes, topology->edge_rows)) {
    return CorruptData("topology file: not a valid adjacency");
  }
  topology->storage = std::move(bytes);
  return TopologyPtr(std::move(topology));
}

TopologyFiles::TopologyFiles(ObjectStore* store, std::string graph_root, uint64_t min_edges)
    : store_(store), directory_(JoinPath(graph_root, "_cache/topology")), min_edges_(min_edges) {}

uint64_t TopologyFiles::DefaultMinEdges() {
  if (const char* value = std::getenv("OMNIGRAPH_TOPOLOGY_CACHE_MIN_EDGES")) {
    char* end = nullptr;
    unsigned long long parsed = std::strtoull(value, &end, 10);
    if (end != value && *end == '\0') return parsed;
  }
  return kDefaultMinEdges;
}

std::string TopologyFiles::PathOf(std::string_view identity) const {
  return JoinPath(directory_, fmt::format("{:016x}.csr", Checksum64(identity)));
}

TopologyPtr TopologyFiles::Load(std::string_view identity) const {
  // The header first: a file whose size is not the one its header
  // announces (truncated, padded, sparse, not a regular file) is never read
  // whole.
  Result<std::unique_ptr<RandomAccessObject>> object = store_->OpenForRead(PathOf(identity));
  if (!object.ok() || (*object)->size() < kTopologyHeaderBytes) return nullptr;
  Result<BufferPtr> header = (*object)->ReadAt(0, kTopologyHeaderBytes);
  if (!header.ok()) return nullptr;
  Result<uint64_t> size = TopologyFileSize((*header)->view());
  if (!size.ok() || *size != (*object)->size()) return nullptr;
  Result<BufferPtr> bytes = (*object)->ReadAt(0, *size);
  if (!bytes.ok()) return nullptr;
  Result<TopologyPtr> topology = DecodeTopology(std::move(*bytes), identity);
  return topology.ok() ? std::move(*topology) : nullptr;
}

void TopologyFiles::Save(std::string_view identity, const Topology& topology) const {
  if (topology.num_edges < min_edges_) return;
  const std::string path = PathOf(identity);
  WriteOptions options;
  options.durable = false;  // a cache: a torn or lost copy fails its checksum or is absent
  if (!store_->Put(path, EncodeTopology(topology, identity), options).ok()) return;
  Result<std::vector<ObjectMeta>> files = store_->List(directory_);
  if (!files.ok() || files->size() <= kMaxFiles) return;
  for (const ObjectMeta& file : *files) {
    if (file.path != path) (void)store_->Delete(file.path);
  }
}

}  // namespace omnigraph::exec
