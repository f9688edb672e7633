// `profile list` and `profile show [NAME]` (surface §5.2, §5.5): the
// profiles of the operator config, human and JSON, exact.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace profile_cli_test {

using testing::CliRun;

constexpr const char* kConfig =
    "servers:\n  prod:\n    url: https://og.example.com\n"
    "profiles:\n"
    "  work:\n    store: /srv/g\n"
    "  remote:\n    server: prod\n    default_graph: people\n"
    "  ops:\n    cluster: s3://bucket/root\n"
    "  blank:\n";

class ProfileCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    ::unsetenv("OMNIGRAPH_PROFILE");
    std::filesystem::create_directories(dir_.path() + "/home");
    Write("home/config.yaml", kConfig);
  }
};

TEST_F(ProfileCliTest, ListPrintsEveryProfileByName) {
  CliRun list = Run("profile list");
  EXPECT_EQ(list.rc, 0) << list.err;
  EXPECT_EQ(list.out,
            "blank\t(empty)\n"
            "ops\tcluster s3://bucket/root\n"
            "remote\tserver prod graph people\n"
            "work\tstore /srv/g\n");
  EXPECT_EQ(list.err, "");
  CliRun json = Run("profile list --json");
  EXPECT_EQ(json.rc, 0) << json.err;
  EXPECT_EQ(json.out,
            "{\n  \"profiles\": [\n    {\n      \"name\": \"blank\"\n    },\n"
            "    {\n      \"name\": \"ops\",\n      \"cluster\": \"s3://bucket/root\"\n    },\n"
            "    {\n      \"name\": \"remote\",\n      \"server\": \"prod\",\n      \"default_graph\": \"people\"\n    },\n"
            "    {\n      \"name\": \"work\",\n      \"store\": \"/srv/g\"\n    }\n  ]\n}\n");
}

TEST_F(ProfileCliTest, ShowPrintsOneProfile) {
  CliRun show = Run("profile show remote");
  EXPECT_EQ(show.rc, 0) << show.err;
  EXPECT_EQ(show.out, "profile: remote\nserver: prod\ndefault_graph: people\n");
  CliRun json = Run("profile show work --json");
  EXPECT_EQ(json.rc, 0) << json.err;
  EXPECT_EQ(json.out, "{\n  \"name\": \"work\",\n  \"store\": \"/srv/g\"\n}\n");
  // Without NAME: the profile $OMNIGRAPH_PROFILE selects.
  ::setenv("OMNIGRAPH_PROFILE", "ops", 1);
  CliRun selected = Run("profile show");
  ::unsetenv("OMNIGRAPH_PROFILE");
  EXPECT_EQ(selected.rc, 0) << selected.err;
  EXPECT_EQ(selected.out, "profile: ops\ncluster: s3://bucket/root\n");
}

TEST_F(ProfileCliTest, ShowRefusesAnUnknownOrMissingName) {
  CliRun unknown = Run("profile show nope");
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "error: profile 'nope' is not in " + dir_.path() + "/home/config.yaml\n");
  CliRun missing = Run("profile show");
  EXPECT_EQ(missing.rc, 2);
  EXPECT_EQ(missing.err, "error: no profile given: pass a profile NAME (or set $OMNIGRAPH_PROFILE)\n");
  CliRun flag = Run("profile list --profile work");
  EXPECT_EQ(flag.rc, 2);
  EXPECT_EQ(flag.err, "error: `profile list` addresses no graph; drop --profile\n");
}

TEST_F(ProfileCliTest, ListIsEmptyWithoutAConfig) {
  std::filesystem::remove(dir_.path() + "/home/config.yaml");
  CliRun list = Run("profile list");
  EXPECT_EQ(list.rc, 0) << list.err;
  EXPECT_EQ(list.out, "");
  EXPECT_EQ(Run("profile list --json").out, "{\n  \"profiles\": []\n}\n");
}

}  // namespace profile_cli_test
}  // namespace omnigraph::cli
