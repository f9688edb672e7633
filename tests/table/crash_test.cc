// Crash tests: a child process is killed (SIGKILL) at each durable step of a
// commit; afterwards the dataset opens without any recovery step, shows
// either exactly the old version or exactly the complete new one, and the
// next commit succeeds.
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "table_fixture.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::table {
namespace crash_test {

struct CrashCase {
  std::string_view failpoint;
  bool detached;
  bool committed;  // whether the new version exists after the crash
};

class CrashTest : public TableTest, public ::testing::WithParamInterface<CrashCase> {};

TEST_P(CrashTest, KilledCommitLeavesOldOrCompleteNewVersion) {
  const CrashCase& c = GetParam();
  Dataset v1 = CreatePeople(5);
  uint64_t before_latest = v1.version();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    failpoint::Set(c.failpoint, failpoint::Action::kCrash);
    auto staged = StageDelete(v1, Predicate::Eq("id", testing::S("p1")));
    if (staged.ok()) {
      auto appended = StageAppend(v1, {People(5, 2)});
      if (c.detached) (void)CommitDetached(*appended);
      else (void)CommitLinear(*appended);
    }
    _exit(0);  // the failpoint was not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "failpoint " << c.failpoint << " was not reached";
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  auto latest = Dataset::Open(store_, "people.lance");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  if (c.committed && !c.detached) {
    EXPECT_EQ(latest->version(), before_latest + 1);
    EXPECT_EQ(Ids(*latest), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}));
  } else {
    EXPECT_EQ(latest->version(), before_latest);
    EXPECT_EQ(Ids(*latest), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  }
  // The next writer succeeds on whatever is now the latest version.
  auto next = CommitLinear(*StageAppend(*latest, {People(100, 1)}));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->version(), latest->version() + 1);
  EXPECT_EQ(Ids(*next).back(), "p100");
}

INSTANTIATE_TEST_SUITE_P(
    EveryDurableStep, CrashTest,
    ::testing::Values(CrashCase{failpoint::kStageAfterDataFiles, false, false},
                      CrashCase{failpoint::kStageAfterDeletionFiles, false, false},
                      CrashCase{failpoint::kCommitAfterTransactionFile, false, false},
                      CrashCase{failpoint::kCommitBeforeManifest, false, false},
                      CrashCase{failpoint::kCommitAfterManifest, false, true},
                      CrashCase{failpoint::kCommitBeforeManifest, true, false},
                      CrashCase{failpoint::kCommitAfterManifest, true, true},
                      CrashCase{failpoint::kStoreBeforeFileSync, false, false},
                      CrashCase{failpoint::kStoreBeforePublish, false, false}),
    [](const ::testing::TestParamInfo<CrashCase>& info) {
      std::string name(info.param.failpoint);
      for (char& ch : name) {
        if (ch == '.') ch = '_';
      }
      return name + (info.param.detached ? "_detached" : "_linear");
    });

TEST_F(TableTest, FailedCommitReturnsTypedErrorAndPublishesNothing) {
  Dataset v1 = CreatePeople(3);
  auto staged = StageAppend(v1, {People(3, 1)});
  ASSERT_TRUE(staged.ok());
  failpoint::Set(failpoint::kCommitBeforeManifest, failpoint::Action::kError);
  auto result = CommitLinear(*staged);
  failpoint::ClearAll();
  EXPECT_EQ(result.status().code(), ErrorCode::kIoError);
  EXPECT_EQ(Dataset::Open(store_, "people.lance")->version(), 1u);
  // The same staged transaction can still be committed afterwards.
  auto retry = CommitLinear(*staged);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(retry->CountRows(), 4u);
}

// What a failed step wrote and nothing references is deleted at once: a
// staging step's data files, and a linear commit's transaction file and
// staged manifest (the staged transaction keeps its files for a retry).
TEST_F(TableTest, FailedStepsDeleteTheObjectsTheyWrote) {
  Dataset v1 = CreatePeople(3);
  auto objects = [&] {
    std::set<std::string> keys;
    auto listed = store_->List("people.lance", /*recursive=*/true);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    for (const ObjectMeta& o : *listed) keys.insert(o.path);
    return keys;
  };
  const std::set<std::string> before = objects();
  failpoint::Set(failpoint::kStageAfterDataFiles, failpoint::Action::kError);
  auto failed_stage = StageAppend(v1, {People(3, 1)});
  failpoint::ClearAll();
  ASSERT_FALSE(failed_stage.ok());
  EXPECT_EQ(objects(), before);

  auto staged = StageAppend(v1, {People(3, 1)});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  std::set<std::string> with_staged = before;
  with_staged.insert(staged->written_files.begin(), staged->written_files.end());
  ASSERT_EQ(objects(), with_staged);
  failpoint::Set(failpoint::kStoreBeforeDirSync, failpoint::Action::kError);
  auto failed_commit = CommitLinear(*staged);
  failpoint::ClearAll();
  ASSERT_FALSE(failed_commit.ok());
  EXPECT_EQ(objects(), with_staged);
  auto retry = CommitLinear(*staged);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_EQ(retry->CountRows(), 4u);
}

}  // namespace crash_test
}  // namespace omnigraph::table
