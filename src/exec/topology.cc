#include "exec/topology.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::exec {

namespace {

// One direction's arrays, owned.
struct DirectionArrays {
  std::vector<uint32_t> offsets, neighbors, edges;

  Adjacency View() const { return Adjacency{offsets, neighbors, edges}; }
};

struct BuiltArrays {
  DirectionArrays forward, reverse;
};

// Fills one direction from (node, neighbor, edge) triples given as two
// parallel row arrays. Entries are packed as (neighbor << 32 | edge) so one
// integer sort per node range yields the (neighbor, edge) order.
DirectionArrays BuildDirection(uint32_t num_nodes, const std::vector<uint32_t>& from, const std::vector<uint32_t>& to,
                               const std::vector<uint32_t>& edge_rows) {
  DirectionArrays adj;
  adj.offsets.assign(static_cast<size_t>(num_nodes) + 1, 0);
  for (uint32_t node : from) ++adj.offsets[node + 1];
  for (size_t n = 0; n < num_nodes; ++n) adj.offsets[n + 1] += adj.offsets[n];
  std::vector<uint64_t> packed(from.size());
  std::vector<uint32_t> cursor(adj.offsets.begin(), adj.offsets.end() - 1);
  for (size_t k = 0; k < from.size(); ++k) {
    packed[cursor[from[k]]++] = (static_cast<uint64_t>(to[k]) << 32) | edge_rows[k];
  }
  for (uint32_t n = 0; n < num_nodes; ++n) {
    auto first = packed.begin() + adj.offsets[n];
    auto last = packed.begin() + adj.offsets[n + 1];
    if (last - first > 1) std::sort(first, last);
  }
  adj.neighbors.resize(packed.size());
  adj.edges.resize(packed.size());
  for (size_t k = 0; k < packed.size(); ++k) {
    adj.neighbors[k] = static_cast<uint32_t>(packed[k] >> 32);
    adj.edges[k] = static_cast<uint32_t>(packed[k]);
  }
  return adj;
}

void AppendIdentity(std::string* out, const graph::TableEntry& t) {
  fmt::format_to(std::back_inserter(*out), "{}@{}#{};", t.location, t.pin.LanceVersion(), t.pin.transaction_uuid);
}

}  // namespace

TopologyBlocks::TopologyBlocks(const uint8_t* region, uint64_t size, const uint8_t* checksums, uint64_t block_bytes,
                               std::vector<Bound> bounds)
    : region_(region),
      size_(size),
      checksums_(checksums),
      block_bytes_(block_bytes),
      bounds_(std::move(bounds)),
      verdicts_(new std::atomic<uint8_t>[(size + block_bytes - 1) / block_bytes]()) {}

bool TopologyBlocks::Verify(const void* data, uint64_t bytes) const {
  if (bytes == 0) return true;
  const uint64_t offset = static_cast<uint64_t>(static_cast<const uint8_t*>(data) - region_);
  for (uint64_t block = offset / block_bytes_; block <= (offset + bytes - 1) / block_bytes_; ++block) {
    if (!VerifyBlock(block)) return false;
  }
  return true;
}

bool TopologyBlocks::VerifyBlock(uint64_t block) const {
  if (uint8_t verdict = verdicts_[block].load(std::memory_order_acquire); verdict != 0) return verdict == 1;
  const uint64_t begin = block * block_bytes_;
  const uint64_t end = std::min(size_, begin + block_bytes_);
  bool intact = LoadLE<uint64_t>(checksums_ + 8 * block) == Checksum64(region_ + begin, end - begin);
  for (const Bound& bound : bounds_) {
    const uint64_t from = std::max(begin, bound.begin), to = std::min(end, bound.end);
    for (uint64_t at = from; intact && at < to; at += sizeof(uint32_t)) {
      intact = LoadLE<uint32_t>(region_ + at) <= bound.max;
    }
  }
  verdicts_[block].store(intact ? 1 : 2, std::memory_order_release);
  return intact;
}

bool Adjacency::VerifyNode(uint32_t node) const {
  if (!blocks->Verify(offsets.data() + node, 2 * sizeof(uint32_t))) return false;
  const uint32_t first = offsets[node], last = offsets[node + 1];
  if (first > last || last > neighbors.size()) return false;
  const uint64_t bytes = uint64_t{last - first} * sizeof(uint32_t);
  return blocks->Verify(neighbors.data() + first, bytes) && blocks->Verify(edges.data() + first, bytes);
}

bool Adjacency::HasNeighbor(uint32_t node, uint32_t target) const {
  auto first = neighbors.begin() + begin(node);
  auto last = neighbors.begin() + end(node);
  return std::binary_search(first, last, target);
}

int64_t Topology::MemoryBytes() const {
  auto bytes = [](const Adjacency& a) {
    return static_cast<int64_t>((a.offsets.size() + a.neighbors.size() + a.edges.size()) * sizeof(uint32_t));
  };
  return bytes(forward) + bytes(reverse);
}

Result<TopologyPtr> BuildTopology(const Array& src_column, const Array& dst_column, const graph::TableData& from_nodes,
                                  const graph::TableData& to_nodes) {
  const Array* src = &src_column;
  const Array* dst = &dst_column;
  if (src->type_id() != TypeId::kUtf8 || dst->type_id() != TypeId::kUtf8 || src->length() != dst->length()) {
    return CorruptData("edge table has no Utf8 src/dst columns of one length");
  }
  const int64_t n = src->length();
  constexpr int64_t kMax = std::numeric_limits<uint32_t>::max() - 1;
  if (n > kMax || from_nodes.num_rows() > kMax || to_nodes.num_rows() > kMax) {
    return ResourceLimitExceeded("topology rows", static_cast<uint64_t>(kMax),
                                 static_cast<uint64_t>(std::max({n, from_nodes.num_rows(), to_nodes.num_rows()})));
  }
  auto topology = std::make_shared<Topology>();
  topology->edge_rows = static_cast<uint64_t>(n);
  std::vector<uint32_t> src_rows, dst_rows, edge_rows;
  src_rows.reserve(static_cast<size_t>(n));
  dst_rows.reserve(static_cast<size_t>(n));
  edge_rows.reserve(static_cast<size_t>(n));
  // Resolve every endpoint id in two bulk, pipelined lookups.
  std::vector<std::string_view> src_ids(static_cast<size_t>(n)), dst_ids(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    if (!src->IsNull(e)) src_ids[static_cast<size_t>(e)] = src->GetView(e);
    if (!dst->IsNull(e)) dst_ids[static_cast<size_t>(e)] = dst->GetView(e);
  }
  std::vector<int64_t> src_found, dst_found;
  from_nodes.RowsOf(src_ids, &src_found);
  to_nodes.RowsOf(dst_ids, &dst_found);
  for (int64_t e = 0; e < n; ++e) {
    const size_t k = static_cast<size_t>(e);
    if (src->IsNull(e) || dst->IsNull(e) || src_found[k] < 0 || dst_found[k] < 0) {
      ++topology->dangling_edges;
      continue;
    }
    src_rows.push_back(static_cast<uint32_t>(src_found[k]));
    dst_rows.push_back(static_cast<uint32_t>(dst_found[k]));
    edge_rows.push_back(static_cast<uint32_t>(e));
  }
  topology->num_edges = src_rows.size();
  auto arrays = std::make_shared<BuiltArrays>();
  arrays->forward = BuildDirection(static_cast<uint32_t>(from_nodes.num_rows()), src_rows, dst_rows, edge_rows);
  arrays->reverse = BuildDirection(static_cast<uint32_t>(to_nodes.num_rows()), dst_rows, src_rows, edge_rows);
  topology->forward = arrays->forward.View();
  topology->reverse = arrays->reverse.View();
  topology->storage = std::move(arrays);
  return TopologyPtr(std::move(topology));
}

std::string TopologyIdentity(const graph::TableEntry& edges, const graph::TableEntry& from_nodes,
                             const graph::TableEntry& to_nodes) {
  std::string identity;
  AppendIdentity(&identity, edges);
  AppendIdentity(&identity, from_nodes);
  AppendIdentity(&identity, to_nodes);
  return identity;
}

Result<TopologyPtr> TopologyCache::GetOrBuild(const std::string& key,
                                              const std::function<Result<TopologyPtr>()>& build) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      it->second.last_use = ++clock_;
      return it->second.topology;
    }
  }
  OG_ASSIGN_OR_RETURN(TopologyPtr built, build());
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    it->second.last_use = ++clock_;
    return it->second.topology;
  }
  entries_[key] = Entry{built, ++clock_};
  bytes_ += built->MemoryBytes();
  while (entries_.size() > 1 && (entries_.size() > limits_.topologies || bytes_ > limits_.bytes)) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    }
    bytes_ -= oldest->second.topology->MemoryBytes();
    entries_.erase(oldest);
  }
  return built;
}

bool TopologyCache::Contains(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.count(key) > 0;
}

void TopologyCache::Erase(const std::string& key, const TopologyPtr& topology) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = entries_.find(key); it != entries_.end() && it->second.topology == topology) {
    bytes_ -= topology->MemoryBytes();
    entries_.erase(it);
  }
}

size_t TopologyCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

int64_t TopologyCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

void TopologyCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
  bytes_ = 0;
}

}  // namespace omnigraph::exec
