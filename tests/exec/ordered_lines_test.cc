// Export's ordered scan (exec/ordered_lines.h, exec/export.h): lines come
// back in id order whether they fit in one run or spill to scratch files,
// and an export that spills is byte for byte the one that does not.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "exec/export.h"
#include "exec/ordered_lines.h"
#include "support/ordered_lines_input.h"
#include "support/temp_dir.h"

namespace omnigraph::exec {
namespace ordered_lines_test {

// Ids 0..n-1 zero-padded, added in a shuffled order; returns what Drain emits.
std::vector<std::string> Drained(IdOrderedLines& lines, int n, size_t* spilled) {
  for (int id : testing::ShuffledIds(n, 7)) EXPECT_TRUE(testing::AddId(lines, id).ok());
  *spilled = lines.spilled_runs();
  return testing::DrainAll(lines);
}

TEST(IdOrderedLinesTest, OneRunIsSortedInMemory) {
  IdOrderedLines lines;
  size_t spilled = 0;
  EXPECT_EQ(Drained(lines, 1000, &spilled), testing::ExpectedLines(1000));
  EXPECT_EQ(spilled, 0u);
}

TEST(IdOrderedLinesTest, SpilledRunsMergeInIdOrder) {
  IdOrderedLines lines(/*run_bytes=*/4096);
  size_t spilled = 0;
  EXPECT_EQ(Drained(lines, 5000, &spilled), testing::ExpectedLines(5000));
  EXPECT_GT(spilled, 50u);  // each run holds a few dozen entries
  // Drained empties it: nothing is emitted twice.
  int emitted = 0;
  ASSERT_TRUE(lines.Drain([&](std::string_view) {
                     ++emitted;
                     return Status::OK();
                   })
                  .ok());
  EXPECT_EQ(emitted, 0);
}

TEST(IdOrderedLinesTest, AnEmitErrorStopsTheMerge) {
  IdOrderedLines lines(/*run_bytes=*/256);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(lines.Add(fmt::format("{:03}", 99 - i), "x\n").ok());
  int emitted = 0;
  Status stopped = lines.Drain([&](std::string_view) -> Status {
    if (++emitted == 10) return IoError("client went away");
    return Status::OK();
  });
  EXPECT_EQ(stopped.code(), ErrorCode::kIoError);
  EXPECT_EQ(emitted, 10);
}

// A table export that spills (tiny runs) is the export that does not, for
// tables written by several loads (several fragments, ids interleaved).
TEST(OrderedExportTest, SpillingChangesNothingInTheOutput) {
  omnigraph::testing::TempDir dir;
  auto graph = api::Omnigraph::Init(dir.path() + "/g",
                                    "node Person { name: String @key\n age: I32? }\nedge Knows: Person -> Person\n");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  std::mt19937 random(11);
  for (int load = 0; load < 3; ++load) {
    std::string data;
    std::vector<int> ids(2000);
    for (int i = 0; i < 2000; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), random);  // 700 distinct ids per load, in random order
    for (int i = 0; i < 700; ++i) {
      int id = ids[i];
      data += fmt::format(R"({{"type":"Person","data":{{"name":"p{}","age":{}}}}})", id, load) + "\n";
      data += fmt::format(R"({{"edge":"Knows","from":"p{}","to":"p{}"}})", id, id) + "\n";
    }
    auto loaded = (*graph)->Load(data, "d.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  auto snapshot = (*graph)->store().Latest();
  ASSERT_TRUE(snapshot.ok());
  auto export_with = [&](int64_t run_bytes) {
    std::string out;
    Status exported = ExportTablesTo(
        *snapshot, [](const graph::TableEntry&) { return true; },
        [&](std::string_view piece) {
          out += piece;
          return Status::OK();
        },
        run_bytes);
    EXPECT_TRUE(exported.ok()) << exported.ToString();
    return out;
  };
  const std::string in_memory = export_with(kOrderedRunBytes);
  const std::string spilled = export_with(/*run_bytes=*/2048);
  EXPECT_EQ(spilled, in_memory);
  EXPECT_GT(std::count(in_memory.begin(), in_memory.end(), '\n'), 1000);
  // And it is the embedded API's export.
  auto whole = (*graph)->Export("main", {});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, in_memory);
}

}  // namespace ordered_lines_test
}  // namespace omnigraph::exec
