#include "exec/topology_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "io/local_store.h"
#include "support/batches.h"
#include "support/temp_dir.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::exec {
namespace topology_file_test {

using testing::I;
using testing::MakeBatch;
using testing::S;

ArrayPtr Utf8(const std::vector<std::string>& values) {
  BinaryBuilder builder(DataType::Utf8());
  for (const std::string& v : values) builder.Append(v);
  return builder.Finish();
}

graph::TableDataPtr Nodes(const std::vector<std::string>& ids) {
  auto schema = std::make_shared<const Schema>(Schema({Field("id", DataType::Utf8(), false)}));
  std::vector<testing::Row> rows;
  for (const std::string& id : ids) rows.push_back({S(id)});
  return std::make_shared<const graph::TableData>(MakeBatch(schema, rows));
}

// a→b, a→c, b→c, c→a, a→b again (a parallel edge), and one dangling edge.
TopologyPtr SampleTopology() {
  auto nodes = Nodes({"a", "b", "c"});
  auto built = BuildTopology(*Utf8({"a", "a", "b", "c", "a", "x"}), *Utf8({"b", "c", "c", "a", "b", "a"}), *nodes,
                             *nodes);
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  return *built;
}

std::vector<uint32_t> Vec(std::span<const uint32_t> s) { return {s.begin(), s.end()}; }

void ExpectSameTopology(const Topology& a, const Topology& b) {
  EXPECT_EQ(a.num_edges, b.num_edges);
  EXPECT_EQ(a.dangling_edges, b.dangling_edges);
  EXPECT_EQ(a.edge_rows, b.edge_rows);
  for (auto [x, y] : {std::pair{&a.forward, &b.forward}, {&a.reverse, &b.reverse}}) {
    EXPECT_EQ(Vec(x->offsets), Vec(y->offsets));
    EXPECT_EQ(Vec(x->neighbors), Vec(y->neighbors));
    EXPECT_EQ(Vec(x->edges), Vec(y->edges));
  }
}

BufferPtr Bytes(const std::string& s) { return Buffer::FromString(s); }

// Layout of SampleTopology() encoded under the identity "id": the 64-byte
// header, the identity padded to 8 bytes, one block checksum, then the
// arrays (forward: 4 offsets, 5 neighbors, 5 edges; then reverse).
constexpr size_t kSampleBlockChecksum = 72;
constexpr size_t kSampleArrays = 80;

// Rewrites the checksums after a deliberate edit, so only the structural
// checks can catch it.
void Reseal(std::string* bytes) {
  StoreLE<uint64_t>(bytes->data() + kSampleBlockChecksum,
                    Checksum64(bytes->data() + kSampleArrays, bytes->size() - kSampleArrays));
  StoreLE<uint64_t>(bytes->data() + 8, Checksum64(bytes->data() + 16, kSampleArrays - 16));
}

// Which nodes of each direction may be expanded.
std::vector<bool> ReadyNodes(const Adjacency& adj) {
  std::vector<bool> ready;
  for (uint32_t node = 0; node < adj.num_nodes(); ++node) ready.push_back(adj.Ready(node));
  return ready;
}

TEST(TopologyFileTest, RoundTripsExactly) {
  TopologyPtr topology = SampleTopology();
  EXPECT_EQ(topology->num_edges, 5u);
  EXPECT_EQ(topology->dangling_edges, 1u);
  EXPECT_EQ(topology->edge_rows, 6u);
  EXPECT_EQ(Vec(topology->forward.offsets), (std::vector<uint32_t>{0, 3, 4, 5}));
  EXPECT_EQ(Vec(topology->forward.neighbors), (std::vector<uint32_t>{1, 1, 2, 2, 0}));
  EXPECT_EQ(Vec(topology->forward.edges), (std::vector<uint32_t>{0, 4, 1, 2, 3}));
  const std::string encoded = EncodeTopology(*topology, "edges@3#u;");
  auto decoded = DecodeTopology(Bytes(encoded), "edges@3#u;");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ExpectSameTopology(**decoded, *topology);
  // The arrays are views into the bytes, which the topology keeps alive.
  EXPECT_NE((*decoded)->storage, nullptr);
}

TEST(TopologyFileTest, RefusesAHeaderThatDoesNotVerify) {
  const std::string good = EncodeTopology(*SampleTopology(), "id");
  ASSERT_EQ(good.size(), kSampleArrays + 4 * (4 + 5 + 5 + 4 + 5 + 5));
  auto message = [&](std::string bytes, std::string_view identity = "id") {
    auto decoded = DecodeTopology(Bytes(bytes), identity);
    EXPECT_FALSE(decoded.ok());
    if (decoded.ok()) return std::string("decoded");
    EXPECT_EQ(decoded.status().code(), ErrorCode::kCorruptData);
    return decoded.status().message();
  };
  EXPECT_EQ(message(good, "other"), "topology file: identity mismatch");
  EXPECT_EQ(message(good.substr(0, good.size() - 4)), "topology file: truncated");
  EXPECT_EQ(message(good + "pad!"), "topology file: truncated");
  EXPECT_EQ(message(good.substr(0, 20)), "topology file: bad magic");
  EXPECT_EQ(message("XXTOPO03" + good.substr(8)), "topology file: bad magic");
  EXPECT_EQ(message("OGTOPO02" + good.substr(8)), "topology file: bad magic");  // the format before blocks
  // The header, identity and block checksum table are checksummed: node
  // counts edited in place, or a block checksum replaced.
  std::string counts = good;
  StoreLE<uint32_t>(counts.data() + 40, 1);
  StoreLE<uint32_t>(counts.data() + 44, 5);
  EXPECT_EQ(message(counts), "topology file: checksum mismatch");
  std::string table = good;
  table[kSampleBlockChecksum] ^= 1;
  EXPECT_EQ(message(table), "topology file: checksum mismatch");
  std::string version = good;
  version[16] = 9;
  EXPECT_EQ(message(version), "topology file: unknown format version");
  // Counts that do not add up to the size, even with a valid checksum.
  std::string longer = good;
  StoreLE<uint32_t>(longer.data() + 40, 4);
  Reseal(&longer);
  EXPECT_EQ(message(longer), "topology file: array lengths do not match its size");
}

// Array blocks are verified when a traversal first reads them: a damaged
// or out-of-bounds block makes every node whose data it holds unusable.
TEST(TopologyFileTest, VerifiesArrayBlocksWhenNodesAreRead) {
  const std::string good = EncodeTopology(*SampleTopology(), "id");
  auto ready = [&](std::string bytes) {
    auto decoded = DecodeTopology(Bytes(bytes), "id");
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    if (!decoded.ok()) return std::pair<std::vector<bool>, std::vector<bool>>();
    return std::pair{ReadyNodes((*decoded)->forward), ReadyNodes((*decoded)->reverse)};
  };
  const std::vector<bool> all{true, true, true}, none{false, false, false};
  EXPECT_EQ(ready(good), std::pair(all, all));
  std::string flipped = good;
  flipped[flipped.size() - 1] ^= 1;  // the last reverse edge: fails the block checksum
  EXPECT_EQ(ready(flipped), std::pair(none, none));

  const size_t forward_offsets = kSampleArrays;
  std::string descending = good;
  StoreLE<uint32_t>(descending.data() + forward_offsets + 4, 4);  // {0,4,4,5}: fine
  StoreLE<uint32_t>(descending.data() + forward_offsets + 8, 3);  // {0,4,3,5}: node 1 runs backwards
  Reseal(&descending);
  EXPECT_EQ(ready(descending), std::pair(std::vector<bool>{true, false, true}, all));
  std::string past_end = good;
  StoreLE<uint32_t>(past_end.data() + forward_offsets + 12, 6);  // an offset past the 5 edges
  Reseal(&past_end);
  EXPECT_EQ(ready(past_end), std::pair(none, none));
  std::string far_neighbor = good;
  StoreLE<uint32_t>(far_neighbor.data() + forward_offsets + 16, 3);  // node 3 of 3
  Reseal(&far_neighbor);
  EXPECT_EQ(ready(far_neighbor), std::pair(none, none));
  std::string far_edge = good;
  StoreLE<uint32_t>(far_edge.data() + forward_offsets + 16 + 20, 6);  // edge row 6 of 6
  Reseal(&far_edge);
  EXPECT_EQ(ready(far_edge), std::pair(none, none));
}

// In a topology larger than one block, damage stays local to the nodes
// whose offsets or entries lie in the damaged block.
TEST(TopologyFileTest, DamageIsLocalToItsBlock) {
  // A chain 0 → 1 → ... → n-1 of n nodes: 4(n+1) + 8(n-1) bytes forward.
  constexpr uint32_t n = 20000;
  std::vector<std::string> ids, src, dst;
  for (uint32_t i = 0; i < n; ++i) ids.push_back("n" + std::to_string(i));
  for (uint32_t i = 0; i + 1 < n; ++i) {
    src.push_back(ids[i]);
    dst.push_back(ids[i + 1]);
  }
  auto nodes = Nodes(ids);
  auto built = BuildTopology(*Utf8(src), *Utf8(dst), *nodes, *nodes);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  std::string bytes = EncodeTopology(**built, "chain");
  // Header 64, "chain" padded to 8, then the checksums of the blocks.
  const uint64_t array_bytes = 4 * (2 * (uint64_t{n} + 1) + 4 * (n - 1));
  const uint64_t blocks = (array_bytes + 65535) / 65536;
  const uint64_t arrays = 72 + 8 * blocks;
  ASSERT_EQ(bytes.size(), arrays + array_bytes);
  // Forward: offsets [0, 80004), neighbors [80004, 160000), edges
  // [160000, 240000); reverse offsets from 240000. Damage block 3 (bytes
  // 196608..262143): forward edges 9152.. and reverse offsets 0..5535.
  bytes[arrays + 3 * 65536 + 100] ^= 0x40;
  auto decoded = DecodeTopology(Bytes(bytes), "chain");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const Adjacency& forward = (*decoded)->forward;
  EXPECT_TRUE(forward.Ready(0));
  EXPECT_TRUE(forward.Ready(9151));    // its edge row is the last one in block 2
  EXPECT_FALSE(forward.Ready(9152));   // its edge row is the first one in block 3
  EXPECT_TRUE(forward.Ready(n - 1));   // the chain's end: no entries to read
  EXPECT_FALSE((*decoded)->reverse.Ready(0));
  EXPECT_FALSE((*decoded)->reverse.Ready(5535));
  EXPECT_EQ(std::vector<uint32_t>(forward.neighbors.begin() + forward.begin(5),
                                  forward.neighbors.begin() + forward.end(5)),
            std::vector<uint32_t>{6});
}

TEST(TopologyFilesTest, SavesLoadsAndBoundsItsDirectory) {
  testing::TempDir dir;
  auto store = LocalStore::Make(dir.path());
  TopologyFiles files(store.get(), "graph", /*min_edges=*/5);
  TopologyPtr topology = SampleTopology();
  EXPECT_EQ(files.Load("id-0"), nullptr);  // nothing persisted yet
  files.Save("id-0", *topology);
  TopologyPtr loaded = files.Load("id-0");
  ASSERT_NE(loaded, nullptr);
  ExpectSameTopology(*loaded, *topology);
  EXPECT_EQ(files.Load("id-1"), nullptr);
  const std::string path = dir.path() + "/" + files.PathOf("id-0");
  EXPECT_TRUE(std::filesystem::exists(path));

  // What is not a file of the size its header announces is never read
  // whole: a sparse 64 GiB file is refused at once, a FIFO never blocks.
  std::filesystem::resize_file(path, uint64_t{64} << 30);
  EXPECT_EQ(files.Load("id-0"), nullptr);
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  EXPECT_EQ(files.Load("id-0"), nullptr);
  std::filesystem::remove(path);
  files.Save("id-0", *topology);
  ASSERT_NE(files.Load("id-0"), nullptr);
  EXPECT_EQ(files.PathOf("id-0").rfind("graph/_cache/topology/", 0), 0u);

  TopologyFiles picky(store.get(), "graph", /*min_edges=*/6);
  picky.Save("small", *topology);  // 5 edges: not worth a file
  EXPECT_EQ(picky.Load("small"), nullptr);

  // One more than the bound removes every other copy.
  for (size_t k = 1; k <= TopologyFiles::kMaxFiles; ++k) files.Save("id-" + std::to_string(k), *topology);
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator(dir.path() + "/graph/_cache/topology")) {
    ++count;
  }
  EXPECT_EQ(count, 1u);
  EXPECT_NE(files.Load("id-" + std::to_string(TopologyFiles::kMaxFiles)), nullptr);
  EXPECT_EQ(files.Load("id-0"), nullptr);
}

}  // namespace topology_file_test
}  // namespace omnigraph::exec
