// Crash tests of the mutation write path (design/write-path.md): a forked
// child running an insert, an update or a delete-with-cascade mutation is
// killed at every durable step of the write: after staging, before and
// after each detached table commit, just before the __manifest CAS (at the
// graph and at the table layer) and just after it. Every mutation touches
// two tables, so two detached commits precede the CAS. Afterwards the graph
// opens with no recovery step and exports exactly the state before the
// mutation (a crash before the CAS) or exactly the state with the complete
// commit (after it), and the same mutation, then another one, succeed.
// The same points armed to return an error instead check, in process, that
// a refused mutation is absent and an acknowledged one present.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ostream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::api {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key  city: String? }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kBase = R"({"type":"Person","data":{"name":"alice","age":30}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme","city":"paris"}}
{"edge":"WorksAt","from":"alice","to":"acme","data":{"id":"w1"}}
{"edge":"WorksAt","from":"bob","to":"acme","data":{"id":"w2"}}
)";

constexpr std::string_view kBefore =
    "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n";

constexpr std::string_view kMutations = R"(
query hire() {
    insert Person { name: "carol", age: 41 }
    insert Company { name: "globex", city: "oslo" }
}
query relocate() {
    update Person set { age: 31 } where name = "alice"
    update Company set { city: "rome" } where name = "acme"
}
query fire() { delete Person where name = "alice" }
query add_person($name: String) { insert Person { name: $name } }
)";

struct MutationCase {
  std::string_view name;    // query name in kMutations
  std::string_view after;   // exact export once the mutation committed
  bool repeat_commits;      // whether running it again publishes another commit
};

const MutationCase kInsert{
    "hire",
    "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"globex\",\"city\":\"oslo\",\"name\":\"globex\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":30,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n",
    true};

const MutationCase kUpdate{
    "relocate",
    "{\"edge\":\"WorksAt\",\"from\":\"alice\",\"to\":\"acme\",\"data\":{\"id\":\"w1\"}}\n"
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"rome\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":31,\"name\":\"alice\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n",
    true};

// alice's deletion cascades to her WorksAt edge: Person and WorksAt change.
const MutationCase kDelete{
    "fire",
    "{\"edge\":\"WorksAt\",\"from\":\"bob\",\"to\":\"acme\",\"data\":{\"id\":\"w2\"}}\n"
    "{\"type\":\"Company\",\"data\":{\"id\":\"acme\",\"city\":\"paris\",\"name\":\"acme\"}}\n"
    "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n",
    false};  // a second run matches nothing and publishes no commit

struct CrashPoint {
  std::string_view failpoint;
  uint32_t skip;    // hits that pass before the crash
  bool published;   // whether the commit is visible after the crash
  std::string_view label;
};

// table.commit.* fire in each detached table commit (hits 0 and 1) and then
// in the linear __manifest commit (hit 2).
const CrashPoint kCrashPoints[] = {
    {failpoint::kGraphAfterStaging, 0, false, "after_staging"},
    {failpoint::kCommitBeforeManifest, 0, false, "before_first_detached_manifest"},
    {failpoint::kGraphAfterDetachedCommit, 0, false, "after_first_detached_commit"},
    {failpoint::kCommitBeforeManifest, 1, false, "before_second_detached_manifest"},
    {failpoint::kGraphAfterDetachedCommit, 1, false, "after_second_detached_commit"},
    {failpoint::kGraphBeforeCas, 0, false, "before_cas"},
    {failpoint::kCommitBeforeManifest, 2, false, "before_manifest_put_if_absent"},
    {failpoint::kCommitAfterManifest, 2, true, "after_manifest_put_if_absent"},
    {failpoint::kGraphAfterCas, 0, true, "after_cas"},
};

void PrintTo(const MutationCase& m, std::ostream* os) { *os << m.name; }
void PrintTo(const CrashPoint& c, std::ostream* os) { *os << c.failpoint << " (skip " << c.skip << ")"; }

using Param = std::tuple<MutationCase, CrashPoint>;

class MutationCrashTest : public ::testing::TestWithParam<Param> {};

// A graph at `uri` holding the base data (kBase), or nullptr after a
// reported failure.
std::unique_ptr<Omnigraph> InitBase(const std::string& uri) {
  auto g = Omnigraph::Init(uri, kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return nullptr;
  auto loaded = (*g)->Load(kBase, "base.jsonl", LoadMode::kOverwrite);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  if (!loaded.ok()) return nullptr;
  return std::move(*g);
}

TEST_P(MutationCrashTest, GraphIsEitherUnchangedOrCompletelyCommitted) {
  const auto& [mutation, crash] = GetParam();
  testing::TempDir dir;
  std::string uri = dir.path() + "/g";
  ASSERT_NE(InitBase(uri), nullptr);
  {
    auto g = Omnigraph::Open(uri);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_EQ(*(*g)->Export("main", {}), kBefore);
    ASSERT_EQ((*g)->ListCommits()->size(), 2u);
  }

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    failpoint::Set(crash.failpoint, failpoint::Action::kCrash, crash.skip);
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)(*g)->Mutate(kMutations, "mutations.gq", std::string(mutation.name), "{}");
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "failpoint " << crash.failpoint << " (skip " << crash.skip
                                   << ") was not reached";
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto after = (*g)->Export("main", {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, crash.published ? mutation.after : kBefore);
  size_t commits = crash.published ? 3u : 2u;
  EXPECT_EQ((*g)->ListCommits()->size(), commits);
  EXPECT_EQ((*g)->Snapshot()->graph_manifest_version, commits);

  // The same mutation succeeds (again) and leaves exactly its result.
  auto again = (*g)->Mutate(kMutations, "mutations.gq", std::string(mutation.name), "{}");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  if (!crash.published || mutation.repeat_commits) ++commits;
  EXPECT_EQ(again->commit.has_value(), !crash.published || mutation.repeat_commits);
  EXPECT_EQ(*(*g)->Export("main", {}), mutation.after);
  EXPECT_EQ((*g)->ListCommits()->size(), commits);

  // And so does the next, unrelated one.
  auto next = (*g)->Mutate(kMutations, "mutations.gq", "add_person", R"({"name":"dave"})");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(*(*g)->Export("main", {"Person"}),
            std::string(mutation.name == "fire" ? ""
                                                : "{\"type\":\"Person\",\"data\":{\"id\":\"alice\",\"age\":" +
                                                      std::string(mutation.name == "relocate" ? "31" : "30") +
                                                      ",\"name\":\"alice\"}}\n") +
                "{\"type\":\"Person\",\"data\":{\"id\":\"bob\",\"age\":25,\"name\":\"bob\"}}\n" +
                (mutation.name == "hire" ? "{\"type\":\"Person\",\"data\":{\"id\":\"carol\",\"age\":41,\"name\":\"carol\"}}\n"
                                         : "") +
                "{\"type\":\"Person\",\"data\":{\"id\":\"dave\",\"age\":null,\"name\":\"dave\"}}\n");
  EXPECT_EQ((*g)->ListCommits()->size(), commits + 1);
}

// The same points armed to fail instead of crash, in process: a mutation
// that reports an error left the graph unchanged, and one that reports
// success is completely committed. An error after the __manifest CAS is a
// lost acknowledgement, resolved by reading back the attempted version.
TEST_P(MutationCrashTest, AnErrorIsRefusedAndAbsentAnAcknowledgementIsPresent) {
  const auto& [mutation, crash] = GetParam();
  testing::TempDir dir;
  std::string uri = dir.path() + "/g";
  std::unique_ptr<Omnigraph> graph = InitBase(uri);
  ASSERT_NE(graph, nullptr);

  failpoint::Set(crash.failpoint, failpoint::Action::kError, crash.skip);
  auto r = graph->Mutate(kMutations, "mutations.gq", std::string(mutation.name), "{}");
  failpoint::ClearAll();
  auto commits = graph->ListCommits();
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  if (crash.published) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->commit.has_value());
    EXPECT_EQ(r->commit->id, commits->front().id);
    EXPECT_EQ(r->commit->manifest_version, 3u);
    EXPECT_EQ(*graph->Export("main", {}), mutation.after);
    EXPECT_EQ(commits->size(), 3u);
  } else {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kIoError);
    EXPECT_EQ(r.status().message(), fmt::format("failpoint '{}' triggered", crash.failpoint));
    EXPECT_EQ(*graph->Export("main", {}), kBefore);
    EXPECT_EQ(commits->size(), 2u);
  }
  // A fresh handle sees the same graph, and the mutation then succeeds.
  auto reopened = Omnigraph::Open(uri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(*(*reopened)->Export("main", {}), crash.published ? mutation.after : kBefore);
  auto again = (*reopened)->Mutate(kMutations, "mutations.gq", std::string(mutation.name), "{}");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*(*reopened)->Export("main", {}), mutation.after);
}

INSTANTIATE_TEST_SUITE_P(EveryFailpoint, MutationCrashTest,
                         ::testing::Combine(::testing::Values(kInsert, kUpdate, kDelete),
                                            ::testing::ValuesIn(kCrashPoints)),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  std::string(std::get<1>(info.param).label);
                         });

}  // namespace
}  // namespace omnigraph::api
