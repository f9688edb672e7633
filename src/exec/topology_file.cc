#include "exec/topology_file.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "graph/layout.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::exec {

namespace {

constexpr std::string_view kMagic = "OGTOPO03";
constexpr uint32_t kFormatVersion = 3;
constexpr size_t kChecksumOffset = 8;
constexpr size_t kChecksummedFrom = 16;
// Arrays are verified in blocks of this many bytes (16,384 values): a
// one-hop expansion reads one or two of them.
constexpr uint64_t kBlockBytes = 64 << 10;

uint64_t Padded8(uint64_t n) { return (n + 7) / 8 * 8; }
uint64_t NumBlocks(uint64_t array_bytes) { return (array_bytes + kBlockBytes - 1) / kBlockBytes; }

// Where the parts of a file with these counts lie.
struct FileLayout {
  uint64_t checksums = 0;  // offset of the block checksum table
  uint64_t arrays = 0;     // offset of the arrays region
  uint64_t array_bytes = 0;
  uint64_t size = 0;

  FileLayout(uint64_t identity_length, uint64_t forward_nodes, uint64_t reverse_nodes, uint64_t num_edges) {
    checksums = kTopologyHeaderBytes + Padded8(identity_length);
    array_bytes = sizeof(uint32_t) * (forward_nodes + 1 + reverse_nodes + 1 + 4 * num_edges);
    arrays = checksums + 8 * NumBlocks(array_bytes);
    size = arrays + array_bytes;
  }
};

FileLayout LayoutOf(const uint8_t* header) {
  return FileLayout(LoadLE<uint32_t>(header + 20), LoadLE<uint32_t>(header + 40), LoadLE<uint32_t>(header + 44),
                    LoadLE<uint64_t>(header + 24));
}

void AppendArray(std::string* out, std::span<const uint32_t> values) {
  out->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(uint32_t));
}

// `count` u32 values at `*offset` as a view, advancing the offset (the
// lengths were checked against the file size).
std::span<const uint32_t> TakeArray(const uint8_t* base, uint64_t* offset, uint64_t count) {
  std::span<const uint32_t> out{reinterpret_cast<const uint32_t*>(base + *offset), static_cast<size_t>(count)};
  *offset += count * sizeof(uint32_t);
  return out;
}

// The largest valid row below `rows` (0 when there is none: then any
// entry is out of bounds, which `entries` > 0 turns into corruption).
uint32_t LastRow(uint64_t rows) {
  return rows == 0 ? 0 : static_cast<uint32_t>(std::min<uint64_t>(rows - 1, std::numeric_limits<uint32_t>::max()));
}

// What a persisted topology owns: the file's bytes and their verifier.
struct PersistedStorage {
  BufferPtr bytes;
  std::unique_ptr<TopologyBlocks> blocks;
};

}  // namespace

Result<uint64_t> TopologyFileSize(std::string_view header) {
  const auto* base = reinterpret_cast<const uint8_t*>(header.data());
  if (header.size() < kTopologyHeaderBytes || header.substr(0, kMagic.size()) != kMagic) {
    return CorruptData("topology file: bad magic");
  }
  if (LoadLE<uint32_t>(base + 16) != kFormatVersion) return CorruptData("topology file: unknown format version");
  // Every count is bounded by 32 bits, so the sizes cannot overflow.
  const uint64_t num_edges = LoadLE<uint64_t>(base + 24);
  const uint64_t size = LoadLE<uint64_t>(base + 56);
  if (num_edges > std::numeric_limits<uint32_t>::max() || size != LayoutOf(base).size) {
    return CorruptData("topology file: array lengths do not match its size");
  }
  return size;
}

std::string EncodeTopology(const Topology& topology, std::string_view identity) {
  const FileLayout layout(identity.size(), topology.forward.num_nodes(), topology.reverse.num_nodes(),
                          topology.num_edges);
  std::string out(kTopologyHeaderBytes, '\0');
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  StoreLE<uint32_t>(out.data() + 16, kFormatVersion);
  StoreLE<uint32_t>(out.data() + 20, static_cast<uint32_t>(identity.size()));
  StoreLE<uint64_t>(out.data() + 24, topology.num_edges);
  StoreLE<uint64_t>(out.data() + 32, topology.dangling_edges);
  StoreLE<uint32_t>(out.data() + 40, topology.forward.num_nodes());
  StoreLE<uint32_t>(out.data() + 44, topology.reverse.num_nodes());
  StoreLE<uint64_t>(out.data() + 48, topology.edge_rows);
  StoreLE<uint64_t>(out.data() + 56, layout.size);
  out.append(identity);
  out.resize(layout.arrays, '\0');  // identity padding and the checksum table, filled below
  out.reserve(layout.size);
  for (const Adjacency* adj : {&topology.forward, &topology.reverse}) {
    AppendArray(&out, adj->offsets);
    AppendArray(&out, adj->neighbors);
    AppendArray(&out, adj->edges);
  }
  for (uint64_t block = 0; block < NumBlocks(layout.array_bytes); ++block) {
    const uint64_t begin = layout.arrays + block * kBlockBytes;
    const uint64_t length = std::min(kBlockBytes, layout.size - begin);
    StoreLE<uint64_t>(out.data() + layout.checksums + 8 * block, Checksum64(out.data() + begin, length));
  }
  StoreLE<uint64_t>(out.data() + kChecksumOffset,
                    Checksum64(out.data() + kChecksummedFrom, layout.arrays - kChecksummedFrom));
  return out;
}

Result<TopologyPtr> DecodeTopology(BufferPtr bytes, std::string_view identity) {
  if (reinterpret_cast<uintptr_t>(bytes->data()) % alignof(uint64_t) != 0) {
    bytes = Buffer::FromString(bytes->view());  // heap copies are aligned
  }
  const uint8_t* base = bytes->data();
  OG_ASSIGN_OR_RETURN(uint64_t announced, TopologyFileSize(bytes->view()));
  if (announced != bytes->size()) return CorruptData("topology file: truncated");
  const FileLayout layout = LayoutOf(base);
  // The header, identity and block checksums are verified now; the arrays
  // block by block as traversals read them (TopologyBlocks).
  if (LoadLE<uint64_t>(base + kChecksumOffset) !=
      Checksum64(base + kChecksummedFrom, layout.arrays - kChecksummedFrom)) {
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
  const uint8_t* region = base + layout.arrays;
  uint64_t offset = 0;
  std::vector<TopologyBlocks::Bound> bounds;
  for (auto [adj, nodes, others] : {std::tuple{&topology->forward, forward_nodes, reverse_nodes},
                                    {&topology->reverse, reverse_nodes, forward_nodes}}) {
    const uint64_t at = offset;
    adj->offsets = TakeArray(region, &offset, uint64_t{nodes} + 1);
    bounds.push_back({at, offset, static_cast<uint32_t>(topology->num_edges)});
    const uint64_t neighbors_at = offset;
    adj->neighbors = TakeArray(region, &offset, topology->num_edges);
    bounds.push_back({neighbors_at, offset, LastRow(others)});
    const uint64_t edges_at = offset;
    adj->edges = TakeArray(region, &offset, topology->num_edges);
    bounds.push_back({edges_at, offset, LastRow(topology->edge_rows)});
  }
  if (topology->num_edges > 0 && (forward_nodes == 0 || reverse_nodes == 0 || topology->edge_rows == 0)) {
    return CorruptData("topology file: edges without nodes or edge rows");
  }
  auto storage = std::make_shared<PersistedStorage>();
  storage->blocks = std::make_unique<TopologyBlocks>(region, layout.array_bytes, base + layout.checksums, kBlockBytes,
                                                     std::move(bounds));
  storage->bytes = std::move(bytes);
  topology->forward.blocks = topology->reverse.blocks = storage->blocks.get();
  topology->storage = std::move(storage);
  return TopologyPtr(std::move(topology));
}

TopologyFiles::TopologyFiles(ObjectStore* store, std::string graph_root, uint64_t min_edges)
    : store_(store), directory_(JoinPath(graph_root, graph::layout::kTopologyCacheDir)), min_edges_(min_edges) {}

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
