// `optimize` and `repair` through the binary (spec/surface.md §5.2;
// engine.md §8.1, §8.3): outputs, exit codes, and bad input that changes
// nothing.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace optimize_cli_test {

using json = nlohmann::ordered_json;
using testing::CliRun;

constexpr std::string_view kSchema = R"(node Person {
    name: String @key
    age: I32?
}
edge Knows: Person -> Person
)";

constexpr std::string_view kData = R"({"type":"Person","data":{"name":"a","age":1}}
{"type":"Person","data":{"name":"b","age":2}}
{"edge":"Knows","from":"a","to":"b"}
)";

constexpr std::string_view kMutations = R"(
query add($name: String) { insert Person { name: $name } }
query remove($name: String) { delete Person where name = $name }
)";

class OptimizeCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("s.pg", kSchema);
    Write("d.jsonl", kData);
    Write("m.gq", kMutations);
    InitGraph("s.pg", "d.jsonl", "overwrite");
  }
  void Mutate(const std::string& name, const std::string& params) {
    CliRun run = Run("mutate " + name + " --store g --query m.gq --params '" + params + "' --quiet");
    ASSERT_EQ(run.rc, 0) << run.err;
  }
  size_t CommitCount() {
    CliRun list = Run("commit list g --json");
    EXPECT_EQ(list.rc, 0) << list.err;
    return json::parse(list.out)["commits"].size();
  }
};

TEST_F(OptimizeCliTest, HumanAndJsonOutputs) {
  Mutate("add", R"({"name":"c"})");
  Mutate("remove", R"({"name":"a"})");
  const size_t commits = CommitCount();
  CliRun optimized = Run("optimize g");
  ASSERT_EQ(optimized.rc, 0) << optimized.err;
  EXPECT_EQ(optimized.out, "optimize g — 2 datasets\n  edge:Knows: no-op\n  node:Person: frags 2 → 1 ✓\n");
  EXPECT_EQ(CommitCount(), commits + 1);
  CliRun again = Run("optimize g --json --quiet");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(again.err, "");
  json report = json::parse(again.out);
  EXPECT_EQ(report["uri"], "g");
  ASSERT_EQ(report["datasets"].size(), 2u);
  EXPECT_EQ(report["datasets"][1].dump(),
            R"({"type_key":"node:Person","fragments_removed":0,"fragments_added":0,"committed":false,)"
            R"("skipped":false,"published_dataset_version":5,"lance_head_version":1,"pending_indexes":[]})");
  CliRun noop = Run("optimize --store g --quiet");
  ASSERT_EQ(noop.rc, 0) << noop.err;
  EXPECT_EQ(noop.out, "optimize g — 2 datasets\n  edge:Knows: no-op\n  node:Person: no-op\n");
  EXPECT_EQ(CommitCount(), commits + 1);
  CliRun count = Run("export g");
  ASSERT_EQ(count.rc, 0) << count.err;
  EXPECT_EQ(count.out.find("\"a\""), std::string::npos);
  EXPECT_NE(count.out.find("\"c\""), std::string::npos);
}

TEST_F(OptimizeCliTest, RepairReportsAndNeverWrites) {
  const size_t commits = CommitCount();
  CliRun human = Run("repair g");
  ASSERT_EQ(human.rc, 0) << human.err;
  EXPECT_EQ(human.out,
            "edge:Knows: no_drift (last_linear_version=1 lance_head_version=1)\n"
            "node:Person: no_drift (last_linear_version=1 lance_head_version=1)\n");
  CliRun as_json = Run("repair g --json");
  ASSERT_EQ(as_json.rc, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out).dump(),
            R"({"uri":"g","datasets":[{"type_key":"edge:Knows","classification":"no_drift",)"
            R"("last_linear_version":1,"lance_head_version":1},{"type_key":"node:Person",)"
            R"("classification":"no_drift","last_linear_version":1,"lance_head_version":1}]})");
  EXPECT_EQ(CommitCount(), commits);
}

TEST_F(OptimizeCliTest, BadInputChangesNothing) {
  CliRun missing = Run("optimize nope");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/nope"));
  // A directory that is not a graph.
  std::filesystem::create_directories(dir_.path() + "/plain");
  Write("plain/notes.txt", "hello");
  CliRun plain = Run("optimize plain --json");
  EXPECT_EQ(plain.rc, 1);
  EXPECT_EQ(plain.out, "");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_.path() + "/plain")) ++entries;
  EXPECT_EQ(entries, 1u);
  CliRun repair_missing = Run("repair nope");
  EXPECT_EQ(repair_missing.rc, 1);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/nope"));
  // Usage: a positional URI and another --store.
  CliRun both = Run("optimize g --store other");
  EXPECT_EQ(both.rc, 2);
}

}  // namespace optimize_cli_test
}  // namespace omnigraph::cli
