// Crash tests of proposals (spec/branches.md BR-11; design/write-path.md
// writer table "as commit"), one case per proposal cell of the crash matrix
// (crash_matrix.h), generated from the failpoint registry. A forked child
// proposes a commit (a mutation `as commit`), publishes one, or drops one,
// and is SIGKILLed at the cell's hit. Afterwards the graph opens with no
// recovery step; the branch and the proposal are exactly as before the
// operation or exactly as after it; and the operation then behaves as it
// would after a clean stop (a repeated publish is idempotent, a repeated
// drop finds nothing) while the branch stays writable.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace proposal_crash_test {

using api::LoadMode;
using api::Omnigraph;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
)";

constexpr std::string_view kBase = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Person","data":{"name":"bob","age":25}}
)";

constexpr std::string_view kQueries = R"(
query propose() as commit { insert Person { name: "carol", age: 41 } }
query add_person($name: String) { insert Person { name: $name } }
)";

constexpr std::string_view kBefore =
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n";
constexpr std::string_view kWithCarol =
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n";

// Proposes carol; the proposal's id, or "" after a reported failure.
std::string Propose(Omnigraph& g) {
  auto report = g.Mutate(kQueries, "q.gq", "propose", "{}");
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (!report.ok() || !report->commit) return "";
  return report->commit->id;
}

// Runs the operation of `write` (the proposal `id` for publish and drop).
Status RunOperation(Omnigraph& g, Write write, const std::string& id) {
  switch (write) {
    case Write::kPropose: return g.Mutate(kQueries, "q.gq", "propose", "{}").status();
    case Write::kPublish: return g.CommitPublish(id).status();
    case Write::kDrop: return g.CommitDrop(id).status();
    default: return Internal(fmt::format("{} is not a proposal operation", WriteName(write)));
  }
}

class ProposalCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(ProposalCrashTest, ProposalAndBranchAreExactlyBeforeOrAfter) {
  const CrashCase& c = GetParam();
  const bool done = c.cell.outcome != Outcome::kUnchanged;
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  std::string head;
  std::string id;
  {
    auto g = Omnigraph::Init(uri, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE((*g)->Load(kBase, "base.jsonl", LoadMode::kOverwrite).ok());
    head = (*g)->Snapshot()->head_commit_id;
    if (c.write != Write::kPropose) {
      id = Propose(**g);
      ASSERT_FALSE(id.empty());
    }
  }

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    failpoint::Set(c.cell.failpoint, failpoint::Action::kCrash, c.cell.skip);
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)RunOperation(**g, c.write, id);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "failpoint " << c.cell.failpoint << " (skip " << c.cell.skip
                                   << ") was not reached";
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  auto opened = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Omnigraph& g = **opened;
  auto unpublished = g.ListUnpublished();
  ASSERT_TRUE(unpublished.ok()) << unpublished.status().ToString();
  switch (c.write) {
    case Write::kPropose: {
      // The branch never moves; the proposal exists once its tag does.
      EXPECT_EQ(g.Snapshot()->head_commit_id, head);
      EXPECT_EQ(*g.Export("main", {}), kBefore);
      ASSERT_EQ(unpublished->size(), done ? 1u : 0u);
      if (done) {
        EXPECT_EQ(*g.Export(api::ReadTarget{"main", unpublished->front().commit.id}, {}), kWithCarol);
      }
      const std::string again = Propose(g);
      ASSERT_FALSE(again.empty());
      EXPECT_EQ(*g.Export(api::ReadTarget{"main", again}, {}), kWithCarol);
      EXPECT_EQ(g.ListUnpublished()->size(), done ? 2u : 1u);
      ASSERT_TRUE(g.CommitPublish(again).ok());
      break;
    }
    case Write::kPublish: {
      EXPECT_EQ(g.Snapshot()->head_commit_id, done ? id : head);
      EXPECT_EQ(*g.Export("main", {}), done ? kWithCarol : kBefore);
      EXPECT_EQ(g.ListCommits()->size(), done ? 3u : 2u);
      EXPECT_EQ(unpublished->size(), done ? 0u : 1u);
      auto again = g.CommitPublish(id);  // publishes, or answers the published commit
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(again->commit.id, id);
      EXPECT_TRUE(again->published);
      break;
    }
    case Write::kDrop: {
      EXPECT_EQ(g.Snapshot()->head_commit_id, head);
      EXPECT_EQ(unpublished->size(), done ? 0u : 1u);
      auto again = g.CommitDrop(id);
      if (done) {
        EXPECT_EQ(again.status().code(), ErrorCode::kNotFound);
      } else {
        ASSERT_TRUE(again.ok()) << again.status().ToString();
        EXPECT_EQ(*again, std::vector<std::string>{id});
      }
      break;
    }
    default:
      FAIL() << WriteName(c.write) << " is not a proposal operation";
  }
  EXPECT_EQ(*g.Export("main", {}), c.write == Write::kDrop ? kBefore : kWithCarol);
  EXPECT_EQ(g.ListUnpublished()->size(), 0u);
  // The branch stays writable.
  ASSERT_TRUE(g.Mutate(kQueries, "q.gq", "add_person", R"({"name":"zoe"})").ok());
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, ProposalCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), kProposalWrites)),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace proposal_crash_test
}  // namespace omnigraph::crash
