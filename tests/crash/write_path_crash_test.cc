// Crash tests of the graph write path (issue: graph engine, "Proof"): a
// child process is killed at every failpoint of a write (after staging,
// after a detached commit, just before and just after the __manifest CAS).
// Afterwards the graph opens without any recovery step, equals the state
// before (pre-CAS) or contains the complete commit (post-CAS), and the next
// write succeeds.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::api {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kBase = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"WorksAt","from":"alice","to":"acme","data":{"id":"w1"}}
)";

// Touches all three tables: two detached commits happen before the CAS.
constexpr std::string_view kDelta = R"({"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"globex"}}
{"edge":"WorksAt","from":"bob","to":"globex","data":{"id":"w2"}}
)";

struct CrashPoint {
  std::string_view failpoint;
  bool published;  // whether the commit is visible after the crash
};

class WritePathCrashTest : public ::testing::TestWithParam<CrashPoint> {};

TEST_P(WritePathCrashTest, GraphIsEitherUnchangedOrCompletelyCommitted) {
  testing::TempDir dir;
  std::string uri = dir.path() + "/g";
  {
    auto g = Omnigraph::Init(uri, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE((*g)->Load(kBase, "base.jsonl", LoadMode::kOverwrite).ok());
  }
  std::string before = *(*Omnigraph::Open(uri))->Export("main", {});
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    failpoint::Set(GetParam().failpoint, failpoint::Action::kCrash);
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)(*g)->Load(kDelta, "delta.jsonl", LoadMode::kMerge);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "failpoint " << GetParam().failpoint << " was not reached";

  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::string after = *(*g)->Export("main", {});
  if (GetParam().published) {
    EXPECT_EQ(after,
              "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
              "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"globex\",\"data\":{\"id\":\"w2\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"name\":\"acme\"}}\n"
              "{\"type\":\"Company\",\"data\":{\"id\":\"globex\",\"name\":\"globex\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
              "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n");
    EXPECT_EQ((*g)->ListCommits()->size(), 3u);
  } else {
    EXPECT_EQ(after, before);
    EXPECT_EQ((*g)->ListCommits()->size(), 2u);
  }
  // The next write succeeds.
  auto next = (*g)->Load("{\"type\":\"Person\",\"data\":{\"name\":\"carol\"}}\n", "next.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_NE((*g)->Export("main", {"Person"})->find("carol"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(EveryFailpoint, WritePathCrashTest,
                         ::testing::Values(CrashPoint{failpoint::kGraphAfterStaging, false},
                                           CrashPoint{failpoint::kGraphAfterDetachedCommit, false},
                                           CrashPoint{failpoint::kGraphBeforeCas, false},
                                           CrashPoint{failpoint::kCommitBeforeManifest, false},
                                           CrashPoint{failpoint::kGraphAfterCas, true}),
                         [](const ::testing::TestParamInfo<CrashPoint>& info) {
                           std::string name(info.param.failpoint);
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace omnigraph::api
