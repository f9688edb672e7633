// Crash tests of the graph write path (design/write-path.md), one case per
// graph-write cell of the crash matrix (crash_matrix.h), generated from the
// failpoint registry. A forked child runs a load or a mutation and is
// SIGKILLed at the cell's hit of its failpoint: in staging, in a detached
// table commit, in the sync batch, just before or at the __manifest CAS, or
// just after it. Afterwards the graph opens with no recovery step and
// exports exactly the state before the write (a kill before the CAS landed)
// or exactly the complete write (after), the same write then succeeds and
// leaves exactly its result, and so does an unrelated one.
// The same hits armed to return an error instead check, in process, that a
// refused write is absent, an acknowledged one present, and one whose
// publication is unconfirmed reported as indeterminate and visible.
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "crash/crash_graph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace graph_write_crash_test {

using api::LoadMode;
using api::Omnigraph;

constexpr std::string_view kBefore =
    "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n";

// Touches all three tables.
constexpr std::string_view kLoadDelta = R"({"type":"Person","data":{"name":"erin","age":52}}
{"type":"Company","data":{"name":"globex","city":"oslo"}}
{"edge":"WorksAt","from":"erin","to":"globex","data":{"id":"w3"}}
)";

// A graph write of the matrix and the exact graph once it committed.
struct GraphWrite {
  std::string_view mutation;  // query in kMutations; empty: a merge load of kLoadDelta
  std::string_view after;     // export once the write committed
  bool repeat_commits;        // whether running it again publishes another commit
};

GraphWrite WriteOf(Write write) {
  switch (write) {
    case Write::kLoad:
      return {"",
              "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
              "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
              "{\"edge\":\"WorksAt\",\"from\":\"erin\",\"to\":\"globex\",\"data\":{\"id\":\"w3\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"globex\",\"city\":\"oslo\",\"name\":\"globex\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"erin\",\"age\":52,\"name\":\"erin\"}}\n",
              true};
    case Write::kInsert:
      return {"hire",
              "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
              "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"globex\",\"city\":\"oslo\",\"name\":\"globex\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n",
              true};
    case Write::kUpdate:
      return {"relocate",
              "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
              "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"rome\",\"name\":\"acme\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":31,\"name\":\"alice\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n",
              true};
    case Write::kDelete:
      // alice's deletion cascades to her WorksAt edge; a second run matches
      // nothing and publishes no commit.
      return {"fire",
              "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n",
              false};
    case Write::kTag:
    case Write::kBranch:
    case Write::kBranchCreate:
    case Write::kBranchDelete:
    case Write::kFastForwardMerge:
    case Write::kThreeWayMerge:
    case Write::kPropose:
    case Write::kPublish:
    case Write::kDrop:
    case Write::kSchemaApply:
    case Write::kOptimize:
    case Write::kClusterApply:
    case Write::kCleanup:
      break;
  }
  ADD_FAILURE() << WriteName(write) << " is not a graph write";
  return {};
}

// Runs `write`; returns the commit it published, if any.
Result<std::optional<graph::CommitRecord>> RunWrite(Omnigraph& g, const GraphWrite& write) {
  if (write.mutation.empty()) {
    OG_ASSIGN_OR_RETURN(api::LoadReport report, g.Load(kLoadDelta, "delta.jsonl", LoadMode::kMerge));
    return report.commit;
  }
  OG_ASSIGN_OR_RETURN(api::MutationReport report,
                      g.Mutate(kMutations, "mutations.gq", std::string(write.mutation), "{}"));
  return report.commit;
}

// add_person("zoe")'s node; the export sorts by id, so it comes last.
constexpr std::string_view kZoe = "{\"type\":\"Person\",\"data\":{\"id\":\"zoe\",\"age\":null,\"name\":\"zoe\"}}\n";

// The Person lines of an export, in order.
std::string PersonLines(std::string_view export_text) {
  std::istringstream in{std::string(export_text)};
  std::string people;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("{\"type\":\"Person\"")) people += line + "\n";
  }
  return people;
}

// Commits of the graph InitBase makes: the init and the load of kBase.
constexpr size_t kBaseCommits = 2;

// A graph at `uri` holding kBase, or nullptr after a reported failure.
std::unique_ptr<Omnigraph> InitBase(const std::string& uri) {
  auto g = Omnigraph::Init(uri, kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return nullptr;
  auto loaded = (*g)->Load(kBase, "base.jsonl", LoadMode::kOverwrite);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  if (!loaded.ok()) return nullptr;
  return std::move(*g);
}

class GraphWriteCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(GraphWriteCrashTest, GraphIsEitherUnchangedOrCompletelyCommitted) {
  const CrashCase& c = GetParam();
  const GraphWrite write = WriteOf(c.write);
  const bool committed = c.cell.outcome != Outcome::kUnchanged;
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  ASSERT_NE(InitBase(uri), nullptr);

  ASSERT_TRUE(KilledAt(c.cell, [&] {
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)RunWrite(**g, write);
  }));

  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto after = (*g)->Export("main", {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, committed ? write.after : kBefore);
  size_t commits = kBaseCommits + (committed ? 1 : 0);
  EXPECT_EQ((*g)->ListCommits()->size(), commits);
  EXPECT_EQ((*g)->Snapshot()->graph_manifest_version, commits);

  // The same write succeeds (again) and leaves exactly its result.
  auto again = RunWrite(**g, write);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  bool publishes = !committed || write.repeat_commits;
  EXPECT_EQ(again->has_value(), publishes);
  if (publishes) ++commits;
  EXPECT_EQ(*(*g)->Export("main", {}), write.after);
  EXPECT_EQ((*g)->ListCommits()->size(), commits);

  // And so does the next, unrelated one.
  auto next = (*g)->Mutate(kMutations, "mutations.gq", "add_person", R"({"name":"zoe"})");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*(*g)->Export("main", {"Person"}), PersonLines(write.after) + std::string(kZoe));
  EXPECT_EQ((*g)->ListCommits()->size(), commits + 1);
}

// The same hit armed to fail instead of crash, in process: a write that
// reports an error left the graph unchanged, one that reports success is
// completely committed, and one whose published version was not confirmed
// durable says so and is visible. A fresh handle then sees the same graph,
// and the write succeeds.
TEST_P(GraphWriteCrashTest, AnErrorIsRefusedAndAbsentAnAcknowledgementIsPresent) {
  const CrashCase& c = GetParam();
  const GraphWrite write = WriteOf(c.write);
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  std::unique_ptr<Omnigraph> graph = InitBase(uri);
  ASSERT_NE(graph, nullptr);

  failpoint::Set(c.cell.failpoint, failpoint::Action::kError, c.cell.skip);
  Result<std::optional<graph::CommitRecord>> published = RunWrite(*graph, write);
  failpoint::ClearAll();
  auto commits = graph->ListCommits();
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  const std::string message = fmt::format("failpoint '{}' triggered", c.cell.failpoint);
  switch (c.cell.outcome) {
    case Outcome::kUnchanged:
      ASSERT_FALSE(published.ok());
      EXPECT_EQ(published.status().code(), ErrorCode::kIoError);
      EXPECT_EQ(published.status().message(), message);
      EXPECT_EQ(commits->size(), kBaseCommits);
      break;
    case Outcome::kCommitted:
      ASSERT_TRUE(published.ok()) << published.status().ToString();
      ASSERT_TRUE(published->has_value());
      ASSERT_EQ(commits->size(), kBaseCommits + 1);
      EXPECT_EQ((*published)->id, commits->front().id);
      EXPECT_EQ((*published)->manifest_version, kBaseCommits + 1);
      break;
    case Outcome::kCommittedUnconfirmed:
      ASSERT_FALSE(published.ok());
      EXPECT_EQ(published.status().code(), ErrorCode::kIoError);
      EXPECT_EQ(published.status().message(), message);
      ASSERT_EQ(commits->size(), kBaseCommits + 1);
      EXPECT_EQ(published.status().details(), (Status::Details{{"durability", "unconfirmed"},
                                                               {"outcome", "indeterminate"},
                                                               {"commit", commits->front().id}}));
      break;
  }
  const bool committed = c.cell.outcome != Outcome::kUnchanged;
  EXPECT_EQ(*graph->Export("main", {}), committed ? write.after : kBefore);

  auto reopened = Omnigraph::Open(uri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(*(*reopened)->Export("main", {}), committed ? write.after : kBefore);
  auto again = RunWrite(**reopened, write);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*(*reopened)->Export("main", {}), write.after);
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, GraphWriteCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), kGraphWrites)),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace graph_write_crash_test
}  // namespace omnigraph::crash
