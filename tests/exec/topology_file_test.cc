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
namespace {

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

// Rewrites the checksum after a deliberate edit, so only the structural
// checks can catch it.
void Reseal(std::string* bytes) {
  StoreLE<uint64_t>(bytes->data() + 8, Checksum64(bytes->data() + 16, bytes->size() - 16));
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

TEST(TopologyFileTest, RefusesAnythingThatDoesNotVerify) {
  const std::string good = EncodeTopology(*SampleTopology(), "id");
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
  EXPECT_EQ(message("XXTOPO02" + good.substr(8)), "topology file: bad magic");
  std::string flipped = good;
  flipped[flipped.size() - 1] ^= 1;
  EXPECT_EQ(message(flipped), "topology file: checksum mismatch");
  // The header is checksummed too: node counts edited in place.
  std::string counts = good;
  StoreLE<uint32_t>(counts.data() + 40, 1);
  StoreLE<uint32_t>(counts.data() + 44, 5);
  EXPECT_EQ(message(counts), "topology file: checksum mismatch");
  std::string version = good;
  version[16] = 9;
  EXPECT_EQ(message(version), "topology file: unknown format version");
  // Counts that do not add up to the size, even with a valid checksum.
  std::string longer = good;
  StoreLE<uint32_t>(longer.data() + 40, 4);
  Reseal(&longer);
  EXPECT_EQ(message(longer), "topology file: array lengths do not match its size");

  // The forward offsets follow the 64-byte header and the padded identity;
  // then 4 offsets, 5 neighbors, 5 edges.
  const size_t forward_offsets = 64 + 4;
  std::string descending = good;
  StoreLE<uint32_t>(descending.data() + forward_offsets + 4, 4);  // {0,4,4,5}: fine
  StoreLE<uint32_t>(descending.data() + forward_offsets + 8, 3);  // {0,4,3,5}: descends
  Reseal(&descending);
  EXPECT_EQ(message(descending), "topology file: not a valid adjacency");
  std::string far_neighbor = good;
  StoreLE<uint32_t>(far_neighbor.data() + forward_offsets + 16, 3);  // node 3 of 3
  Reseal(&far_neighbor);
  EXPECT_EQ(message(far_neighbor), "topology file: not a valid adjacency");
  std::string far_edge = good;
  StoreLE<uint32_t>(far_edge.data() + forward_offsets + 16 + 20, 6);  // edge row 6 of 6
  Reseal(&far_edge);
  EXPECT_EQ(message(far_edge), "topology file: not a valid adjacency");
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

}  // namespace
}  // namespace omnigraph::exec
