// Crash tests of optimize (spec/engine.md §8.1), one case per optimize cell
// of the crash matrix (crash_matrix.h), generated from the failpoint
// registry. A forked child runs optimize over three tables worth compacting
// and is SIGKILLed at the cell's hit: in staging, after a detached commit,
// just before or just after the __manifest CAS. Afterwards the graph opens
// with no recovery step, reads exactly the same rows either way (a rewrite
// changes no row), and holds either the old pins (no optimize commit) or
// the compacted ones (one commit); optimize then runs to the compacted
// state, and an unrelated write works. The same hits armed to return an
// error check, in process, that a refused optimize is absent and an
// acknowledged one present.
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "crash/crash_graph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace optimize_crash_test {

using api::LoadMode;
using api::Omnigraph;

// After kBase: fire (alice and her edge: deletion vectors on Person and
// WorksAt) and hire (carol and globex: a second fragment of Person and of
// Company).
constexpr size_t kBaseCommits = 4;

constexpr std::string_view kRows =
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"globex\",\"city\":\"oslo\",\"name\":\"globex\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n";

std::unique_ptr<Omnigraph> InitBase(const std::string& uri) {
  auto g = Omnigraph::Init(uri, kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return nullptr;
  EXPECT_TRUE((*g)->Load(kBase, "base.jsonl", LoadMode::kOverwrite).ok());
  for (const char* name : {"fire", "hire"}) {
    auto done = (*g)->Mutate(kMutations, "mutations.gq", name, "{}");
    EXPECT_TRUE(done.ok() && done->commit) << done.status().ToString();
    if (!done.ok()) return nullptr;
  }
  return std::move(*g);
}

// "<fragments>/<fragments with deletions>" per table, by table key.
std::string Layout(Omnigraph& g) {
  auto latest = g.store().Latest();
  if (!latest.ok()) return latest.status().ToString();
  std::string out;
  for (const auto& [key, entry] : latest->state().tables) {
    auto ds = latest->OpenDataset(entry);
    if (!ds.ok()) return ds.status().ToString();
    size_t with_deletions = 0;
    for (const auto& f : ds->manifest().fragments) with_deletions += f.deletion_file ? 1 : 0;
    out += fmt::format("{}={}/{} ", key, ds->manifest().fragments.size(), with_deletions);
  }
  return out;
}

constexpr std::string_view kPlanned = "edge:WorksAt=1/1 node:Company=2/0 node:Person=2/1 ";
constexpr std::string_view kCompacted = "edge:WorksAt=1/0 node:Company=1/0 node:Person=1/0 ";

class OptimizeCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(OptimizeCrashTest, GraphKeepsItsRowsAndEitherPinSet) {
  const CrashCase& c = GetParam();
  const bool committed = c.cell.outcome != Outcome::kUnchanged;
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  {
    auto base = InitBase(uri);
    ASSERT_NE(base, nullptr);
    ASSERT_EQ(Layout(*base), kPlanned);
  }

  ASSERT_TRUE(KilledAt(c.cell, [&] {
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)(*g)->Optimize();
  }));

  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*(*g)->Export("main", {}), kRows);
  size_t commits = kBaseCommits + (committed ? 1 : 0);
  EXPECT_EQ((*g)->ListCommits()->size(), commits);
  EXPECT_EQ(Layout(**g), committed ? kCompacted : kPlanned);

  // Optimize runs (again) to the compacted state, once.
  auto again = (*g)->Optimize();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->commit.has_value(), !committed);
  EXPECT_EQ((*g)->ListCommits()->size(), kBaseCommits + 1);
  EXPECT_EQ(Layout(**g), kCompacted);
  EXPECT_EQ(*(*g)->Export("main", {}), kRows);

  // And the next, unrelated write works.
  auto next = (*g)->Mutate(kMutations, "mutations.gq", "add_person", R"({"name":"zoe"})");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*(*g)->Export("main", {"Person"}),
            "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n"
            "{\"type\":\"Person\",\"data\":{\"id\":\"zoe\",\"age\":null,\"name\":\"zoe\"}}\n");
}

TEST_P(OptimizeCrashTest, AnErrorIsRefusedAndAbsentAnAcknowledgementIsPresent) {
  const CrashCase& c = GetParam();
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  std::unique_ptr<Omnigraph> graph = InitBase(uri);
  ASSERT_NE(graph, nullptr);

  failpoint::Set(c.cell.failpoint, failpoint::Action::kError, c.cell.skip);
  auto optimized = graph->Optimize();
  failpoint::ClearAll();
  const bool committed = c.cell.outcome != Outcome::kUnchanged;
  if (committed) {
    ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
    ASSERT_TRUE(optimized->commit.has_value());
    EXPECT_EQ(optimized->commit->id, graph->ListCommits()->front().id);
  } else {
    ASSERT_FALSE(optimized.ok());
    EXPECT_EQ(optimized.status().code(), ErrorCode::kIoError);
    EXPECT_EQ(optimized.status().message(), fmt::format("failpoint '{}' triggered", c.cell.failpoint));
  }
  EXPECT_EQ(graph->ListCommits()->size(), kBaseCommits + (committed ? 1 : 0));
  EXPECT_EQ(Layout(*graph), committed ? kCompacted : kPlanned);
  EXPECT_EQ(*graph->Export("main", {}), kRows);
  auto reopened = Omnigraph::Open(uri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Layout(**reopened), committed ? kCompacted : kPlanned);
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, OptimizeCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), Writes{Write::kOptimize})),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace optimize_crash_test
}  // namespace omnigraph::crash
