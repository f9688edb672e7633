// The engine's ordered-scan envelope (api/engine.h ordered_scans(),
// exec/ordered_scan_budget.h): every export and change baseline of every
// handle opened with one engine sorts within that engine's one pool and
// scratch cap (spec/engine.md Appendix A; surface.md §7.1).
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/engine.h"
#include "api/omnigraph.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace engine_ordered_scans_test {

constexpr int kPeople = 3000;

class EngineOrderedScansTest : public ::testing::Test {
 protected:
  // A graph of kPeople Person nodes, loaded in a shuffled id order: its
  // export is about 180 KB of lines, 400 KB held in a sort run.
  void SetUp() override {
    uri_ = dir_.path() + "/g";
    auto graph = Omnigraph::Init(uri_, "node Person { name: String @key\n age: I32 }\n", "schema.pg", false,
                                 std::make_shared<Engine>());
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    std::string data;
    for (int i = 0; i < kPeople; ++i) {
      int id = (i * 7919) % kPeople;  // 7919 is prime: a permutation
      data += fmt::format(R"({{"type":"Person","data":{{"name":"person{:05}","age":{}}}}})", id, id % 90) + "\n";
    }
    auto loaded = (*graph)->Load(data, "people.jsonl", LoadMode::kOverwrite);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    // The reference: an engine whose pool holds the whole table at once.
    auto exported = (*graph)->Export("main", {});
    ASSERT_TRUE(exported.ok()) << exported.status().ToString();
    reference_ = *exported;
  }

  std::unique_ptr<Omnigraph> OpenWith(const EnginePtr& engine) {
    auto graph = Omnigraph::Open(uri_, engine);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    return graph.ok() ? std::move(graph).value() : nullptr;
  }

  static EnginePtr EngineWith(exec::OrderedScanLimits limits) {
    EngineOptions options;
    options.ordered_scans = limits;
    return std::make_shared<Engine>(options);
  }

  omnigraph::testing::TempDir dir_;
  std::string uri_;
  std::string reference_;
};

TEST_F(EngineOrderedScansTest, TheSpecDefaults) {
  const EngineOptions options;
  EXPECT_EQ(options.ordered_scans.resident_bytes, int64_t{150} << 20);
  EXPECT_EQ(options.ordered_scans.scratch_bytes, int64_t{100} << 30);
  // A cache budget sizes the caches only.
  EXPECT_EQ(EngineOptions::WithCacheBudget(1 << 20).ordered_scans.resident_bytes, int64_t{150} << 20);
  Engine engine;
  EXPECT_EQ(engine.ordered_scans().limits().resident_bytes, int64_t{150} << 20);
  EXPECT_EQ(engine.usage().ordered_scans.resident_bytes, 0);
}

// Handle one's export, in the middle of its merge, runs handle two's whole
// export: both draw from the engine's one 64 KiB pool. Each scan holds its
// 4 KiB minimum while it merges (its runs are all on disk), so the engine
// reports exactly one minimum inside the first export and two inside both.
TEST_F(EngineOrderedScansTest, TwoHandlesOfOneEngineShareItsPool) {
  EnginePtr engine = EngineWith({.resident_bytes = 64 * 1024, .scratch_bytes = int64_t{1} << 30, .min_run_bytes = 4096});
  auto first = OpenWith(engine);
  auto second = OpenWith(engine);
  ASSERT_TRUE(first && second);
  std::string first_out, second_out;
  int64_t during_first = -1, during_both = -1;
  Status exported = first->ExportTo(ReadTarget{}, {}, [&](std::string_view piece) -> Status {
    if (during_first < 0) {
      during_first = engine->usage().ordered_scans.resident_bytes;
      Status nested = second->ExportTo(ReadTarget{}, {}, [&](std::string_view inner) {
        if (during_both < 0) during_both = engine->usage().ordered_scans.resident_bytes;
        second_out += inner;
        return Status::OK();
      });
      if (!nested.ok()) return nested;
    }
    first_out += piece;
    return Status::OK();
  });
  ASSERT_TRUE(exported.ok()) << exported.ToString();
  EXPECT_EQ(first_out, reference_);
  EXPECT_EQ(second_out, reference_);
  EXPECT_EQ(during_first, 4096);
  EXPECT_EQ(during_both, 2 * 4096);
  const exec::OrderedScanBudget::Usage usage = engine->usage().ordered_scans;
  EXPECT_LE(usage.peak_resident_bytes, 64 * 1024);
  EXPECT_GT(usage.early_spills, 2 * (kPeople * 100 / (64 * 1024)));  // over 100 bytes held per row
  EXPECT_EQ(usage.resident_bytes, 0);
  EXPECT_EQ(usage.scratch_bytes, 0);
  // Both exports had every row on disk at once.
  EXPECT_GT(usage.peak_scratch_bytes, 2 * static_cast<int64_t>(reference_.size()));
}

// Another engine's scans are not this engine's: a handle of the process
// engine leaves a private engine's budget untouched.
TEST_F(EngineOrderedScansTest, EnginesDoNotShareAPool) {
  EnginePtr engine = EngineWith({.resident_bytes = 64 * 1024, .scratch_bytes = int64_t{1} << 30, .min_run_bytes = 4096});
  auto private_handle = OpenWith(engine);
  auto process_handle = OpenWith(nullptr);
  ASSERT_TRUE(private_handle && process_handle);
  auto exported = process_handle->Export("main", {});
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(*exported, reference_);
  EXPECT_EQ(engine->usage().ordered_scans.peak_resident_bytes, 0);
  EXPECT_EQ(engine->usage().ordered_scans.peak_scratch_bytes, 0);
  // The process engine's pool holds the whole table: nothing spilled.
  EXPECT_EQ(Engine::Process()->usage().ordered_scans.peak_scratch_bytes, 0);
}

// An export that would spill past the engine's scratch cap fails with
// ResourceLimitExceeded (413) naming the limit, before any output, and
// gives back every byte; so does a change baseline, which is an export.
TEST_F(EngineOrderedScansTest, PassingTheScratchCapFailsTheExportAndReleasesEverything) {
  EnginePtr engine = EngineWith({.resident_bytes = 16 * 1024, .scratch_bytes = 8192, .min_run_bytes = 4096});
  auto graph = OpenWith(engine);
  ASSERT_TRUE(graph);
  int pieces = 0;
  Status exported = graph->ExportTo(ReadTarget{}, {}, [&](std::string_view) {
    ++pieces;
    return Status::OK();
  });
  EXPECT_EQ(exported.code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(HttpStatusOf(exported.code()), 413);
  EXPECT_EQ(exported.details().at("resource"), "ordered_scan_scratch_bytes");
  EXPECT_EQ(exported.details().at("limit"), "8192");
  const int64_t actual = std::stoll(exported.details().at("actual"));
  EXPECT_GT(actual, 8192);
  EXPECT_EQ(exported.message(), fmt::format("ordered_scan_scratch_bytes exceeds the limit: {} > 8192", actual));
  EXPECT_EQ(pieces, 0);
  EXPECT_EQ(engine->usage().ordered_scans.resident_bytes, 0);
  EXPECT_EQ(engine->usage().ordered_scans.scratch_bytes, 0);
  EXPECT_LE(engine->usage().ordered_scans.peak_scratch_bytes, 8192);

  auto baseline = graph->ChangesBaseline("main");
  EXPECT_EQ(baseline.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(engine->usage().ordered_scans.resident_bytes, 0);
  EXPECT_EQ(engine->usage().ordered_scans.scratch_bytes, 0);

  // The graph is unharmed: an engine with room exports it.
  auto roomy = OpenWith(std::make_shared<Engine>());
  auto whole = roomy->Export("main", {});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, reference_);
}

// A baseline through the engine sorts in its pool too, with the export's bytes.
TEST_F(EngineOrderedScansTest, AChangeBaselineSortsInTheEnginePool) {
  EnginePtr engine = EngineWith({.resident_bytes = 16 * 1024, .scratch_bytes = int64_t{1} << 30, .min_run_bytes = 4096});
  auto graph = OpenWith(engine);
  ASSERT_TRUE(graph);
  auto baseline = graph->ChangesBaseline("main");
  ASSERT_TRUE(baseline.ok()) << baseline.status().ToString();
  EXPECT_EQ(baseline->snapshot, reference_);
  EXPECT_GT(engine->usage().ordered_scans.early_spills, 0);
  EXPECT_LE(engine->usage().ordered_scans.peak_resident_bytes, 16 * 1024);
  EXPECT_EQ(engine->usage().ordered_scans.resident_bytes, 0);
}

}  // namespace engine_ordered_scans_test
}  // namespace omnigraph::api
