// `mutate --if-commit` through the binary (branches.md BR-8; surface.md
// §5.2, §5.4): a lost compare-and-swap exits 4; with --json the whole
// error body is printed on stdout, without it the message goes to stderr;
// nothing is written either way.
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace omnigraph::cli {
namespace mutate_if_commit_test {

using testing::CliRun;

constexpr std::string_view kSchema = "node Account {\n  slug: String @key\n  touches: I32?\n}\n";
constexpr std::string_view kData = "{\"type\":\"Account\",\"data\":{\"slug\":\"a\"}}\n";
constexpr std::string_view kMutations =
    "query touch($slug: String, $n: I32) {\n  update Account set { touches: $n } where slug = $slug\n}\n";

class MutateIfCommitCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("schema.pg", kSchema);
    Write("data.jsonl", kData);
    Write("m.gq", kMutations);
    InitGraph("schema.pg", "data.jsonl", "overwrite");
  }

  // `mutate touch` setting touches to `n`, conditional on the commit id
  // the shell word `id_word` expands to (a commit id needs no quoting).
  CliRun Touch(int n, const std::string& id_word, std::string_view extra = "") {
    return Run("mutate touch --store g --query m.gq --params '{\"slug\":\"a\",\"n\":" + std::to_string(n) +
               "}' --if-commit " + id_word + " " + std::string(extra));
  }
};

TEST_F(MutateIfCommitCliTest, ALostPreconditionPrintsTheWholeErrorBodyWithJson) {
  const std::string stale = Head();
  ASSERT_EQ(Touch(1, stale).rc, 0);
  const std::string current = Head();
  ASSERT_NE(current, stale);

  CliRun lost = Touch(2, stale, "--json");
  EXPECT_EQ(lost.rc, 4) << lost.err;
  const std::string message =
      "precondition failed on branch 'main': expected head '" + stale + "' but current is " + current;
  // Pretty-printed like all --json output, with no `code` (BR-8).
  EXPECT_EQ(lost.out, "{\n  \"error\": \"" + message + "\",\n  \"precondition_failure\": {\n    \"expected\": \"" +
                          stale + "\",\n    \"actual\": \"" + current + "\"\n  }\n}\n");
  EXPECT_EQ(lost.err, "error: " + message + "\n");
  EXPECT_EQ(Head(), current);
}

TEST_F(MutateIfCommitCliTest, ALostPreconditionWithoutJsonGoesToStderrOnly) {
  const std::string stale = Head();
  ASSERT_EQ(Touch(1, stale).rc, 0);
  const std::string current = Head();

  CliRun lost = Touch(2, stale);
  EXPECT_EQ(lost.rc, 4);
  EXPECT_EQ(lost.out, "");
  EXPECT_EQ(lost.err, "error: precondition failed on branch 'main': expected head '" + stale +
                          "' but current is " + current + "\n");
  // An id that names no commit never matches (BR-8: string equality).
  CliRun unknown = Touch(3, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--json");
  EXPECT_EQ(unknown.rc, 4);
  EXPECT_EQ(nlohmann::json::parse(unknown.out)["precondition_failure"]["actual"], current);
  EXPECT_EQ(Head(), current);
}

// The expected id is the caller's text, not necessarily UTF-8: the body
// replaces what is not, and stderr shows it escaped.
TEST_F(MutateIfCommitCliTest, AnIdThatIsNotUtf8StillGetsItsErrorBody) {
  const std::string current = Head();
  CliRun lost = Touch(1, "\"$(printf 'a\\377b')\"", "--json");
  EXPECT_EQ(lost.rc, 4) << lost.err;
  nlohmann::json body = nlohmann::json::parse(lost.out);
  EXPECT_EQ(body["precondition_failure"]["expected"], "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(body["precondition_failure"]["actual"], current);
  EXPECT_EQ(lost.err, "error: precondition failed on branch 'main': expected head 'a\\xFFb' but current is " +
                          current + "\n");
}

// Other errors keep stdout empty even with --json (surface §5.4, §6.1:
// the message goes to stderr): only BR-8 puts an error body on stdout.
TEST_F(MutateIfCommitCliTest, OtherErrorsWithJsonLeaveStdoutEmpty) {
  CliRun bad_param = Run("mutate touch --store g --query m.gq --params '{\"slug\":\"a\",\"n\":\"x\"}' --json");
  EXPECT_EQ(bad_param.rc, 1);
  EXPECT_EQ(bad_param.out, "");
  EXPECT_EQ(bad_param.err, "error: parameter 'n': expects an integer for I32, got \"x\"\n");
}

}  // namespace mutate_if_commit_test
}  // namespace omnigraph::cli
