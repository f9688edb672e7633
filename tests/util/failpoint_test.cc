#include "util/failpoint.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "util/failpoint_names.h"

namespace omnigraph {
namespace failpoint_test {

TEST(Failpoint, UnarmedIsOk) {
  failpoint::ClearAll();
  EXPECT_TRUE(failpoint::Hit("table.commit.before_manifest").ok());
}

TEST(Failpoint, ErrorActionReturnsIoErrorNamingThePoint) {
  failpoint::Set("table.commit.before_manifest", failpoint::Action::kError);
  Status st = failpoint::Hit("table.commit.before_manifest");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_EQ(st.message(), "failpoint 'table.commit.before_manifest' triggered");
  EXPECT_TRUE(failpoint::Hit("table.commit.after_manifest").ok());
  failpoint::ClearAll();
  EXPECT_TRUE(failpoint::Hit("table.commit.before_manifest").ok());
}

TEST(Failpoint, SkipLetsTheFirstHitsPass) {
  failpoint::Set("a.skip", failpoint::Action::kError, 2);
  EXPECT_TRUE(failpoint::Hit("a.skip").ok());
  EXPECT_TRUE(failpoint::Hit("a.skip").ok());
  EXPECT_EQ(failpoint::Hit("a.skip").code(), ErrorCode::kIoError);
  EXPECT_EQ(failpoint::Hit("a.skip").code(), ErrorCode::kIoError);
  failpoint::ClearAll();
}

TEST(Failpoint, ConfigureParsesSpecsAndRejectsBadOnes) {
  ASSERT_TRUE(failpoint::Configure("a.b=error;c.d=off").ok());
  EXPECT_EQ(failpoint::Hit("a.b").code(), ErrorCode::kIoError);
  EXPECT_TRUE(failpoint::Hit("c.d").ok());
  EXPECT_EQ(failpoint::Configure("nonsense").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(failpoint::Configure("x=explode").message(), "failpoint action 'explode' is not crash, error or off");
  // `@skip`: the first hits pass.
  ASSERT_TRUE(failpoint::Configure("e.f=error@2").ok());
  EXPECT_TRUE(failpoint::Hit("e.f").ok());
  EXPECT_TRUE(failpoint::Hit("e.f").ok());
  EXPECT_EQ(failpoint::Hit("e.f").code(), ErrorCode::kIoError);
  EXPECT_EQ(failpoint::Configure("e.f=error@x").message(), "failpoint skip count 'x' is not a number");
  EXPECT_EQ(failpoint::Configure("e.f=error@").message(), "failpoint skip count '' is not a number");
  failpoint::ClearAll();
}

TEST(Failpoint, CrashActionKillsTheProcess) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    failpoint::Set("x.crash", failpoint::Action::kCrash);
    (void)failpoint::Hit("x.crash");
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(Failpoint, AllNamesListsDeclaredPoints) {
  const auto& names = failpoint::AllNames();
  EXPECT_NE(std::find(names.begin(), names.end(), failpoint::kCommitBeforeManifest), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), failpoint::kStoreBeforePublish), names.end());
}

}  // namespace failpoint_test
}  // namespace omnigraph
