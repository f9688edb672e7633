// Unpublished commits and unattached snapshots through the binary
// (spec/branches.md BR-11, BR-12, BR-13.1): the receipts, `commit list
// --unpublished`, `commit show`, `query --snapshot`, `commit publish` (exit
// 4 on a moved head), `commit drop`, and `branch merge --as-commit` with
// `--delete-branch` as a usage error (exit 2).
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace omnigraph::cli {
namespace proposal_cli_test {

using testing::CliRun;

constexpr std::string_view kSchema = "node Account {\n  slug: String @key\n}\n";
constexpr std::string_view kData = "{\"type\":\"Account\",\"data\":{\"slug\":\"a\"}}\n";
constexpr std::string_view kQueries =
    "query propose($s: String) as commit {\n  insert Account { slug: $s }\n}\n"
    "query sketch($s: String) as unattached branch {\n  insert Account { slug: $s }\n}\n"
    "query add($s: String) {\n  insert Account { slug: $s }\n}\n"
    "query slugs() {\n  match { $a: Account }\n  return { $a.slug }\n  order { $a.slug }\n}\n";

class ProposalCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("schema.pg", kSchema);
    Write("data.jsonl", kData);
    Write("q.gq", kQueries);
    InitGraph("schema.pg", "data.jsonl", "overwrite");
  }
  // Runs `query` with slug `slug` and --json; the receipt.
  nlohmann::json Mutate(const std::string& query, const std::string& slug) {
    CliRun run = Run("mutate " + query + " --store g --query q.gq --params '{\"s\":\"" + slug + "\"}' --json");
    EXPECT_EQ(run.rc, 0) << run.err;
    return nlohmann::json::parse(run.out, nullptr, false);
  }
};

TEST_F(ProposalCliTest, AProposalIsListedShownReadAndPublished) {
  const std::string head = Head();
  nlohmann::json receipt = Mutate("propose", "b");
  ASSERT_TRUE(receipt["commit"].is_object()) << receipt.dump();
  EXPECT_EQ(receipt["commit"]["published"], false);
  EXPECT_EQ(receipt["commit"]["parent_commit_id"], head);
  EXPECT_EQ(receipt["commit"]["graph_manifest_version"], 3);
  EXPECT_FALSE(receipt["commit"].contains("unattached_root"));
  const std::string c = receipt["commit"]["graph_commit_id"].get<std::string>();
  EXPECT_EQ(Head(), head);

  CliRun listed = Run("commit list g --unpublished");
  EXPECT_EQ(listed.rc, 0) << listed.err;
  EXPECT_EQ(listed.out, c + " graph_branch=main graph_manifest_version=3 published=false\n");
  CliRun listed_json = Run("commit list g --unpublished --branch main --json");
  ASSERT_EQ(listed_json.rc, 0);
  nlohmann::json commits = nlohmann::json::parse(listed_json.out)["commits"];
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0]["graph_commit_id"], c);
  // The ordinary listing does not show it.
  CliRun ordinary = Run("commit list g --json");
  EXPECT_EQ(nlohmann::json::parse(ordinary.out)["commits"].size(), 2u);

  CliRun shown = Run("commit show --uri g " + c + " --json");
  ASSERT_EQ(shown.rc, 0) << shown.err;
  EXPECT_EQ(nlohmann::json::parse(shown.out)["published"], false);
  CliRun shown_human = Run("commit show --uri g " + c);
  EXPECT_NE(shown_human.out.find("published: false\n"), std::string::npos) << shown_human.out;

  CliRun read = Run("query slugs --store g --query q.gq --snapshot " + c + " --format jsonl");
  ASSERT_EQ(read.rc, 0) << read.err;
  EXPECT_NE(read.out.find("{\"a.slug\":\"a\"}\n{\"a.slug\":\"b\"}\n"), std::string::npos) << read.out;
  EXPECT_NE(read.out.find("\"snapshot\":\"" + c + "\""), std::string::npos) << read.out;
  CliRun branch_read = Run("query slugs --store g --query q.gq --format jsonl");
  EXPECT_EQ(branch_read.out.find("\"b\""), std::string::npos) << branch_read.out;

  CliRun published = Run("commit publish --uri g " + c);
  EXPECT_EQ(published.rc, 0) << published.err;
  EXPECT_EQ(published.out, "published commit " + c + " on branch main\n");
  EXPECT_EQ(Head(), c);
  CliRun again = Run("commit publish --uri g " + c + " --json");
  EXPECT_EQ(again.rc, 0) << again.err;
  nlohmann::json body = nlohmann::json::parse(again.out);
  EXPECT_EQ(body["graph_commit_id"], c);
  EXPECT_EQ(body["published"], true);
  EXPECT_EQ(body["graph_manifest_version"], 3);

  CliRun drop = Run("commit drop --uri g " + c);
  EXPECT_EQ(drop.rc, 1);
  EXPECT_EQ(drop.err, "error: commit '" + c + "' is published and cannot be dropped\n");
}

TEST_F(ProposalCliTest, PublishingOnAMovedHeadExitsFourWithItsBody) {
  const std::string head = Head();
  const std::string c = Mutate("propose", "b")["commit"]["graph_commit_id"].get<std::string>();
  Mutate("add", "z");
  const std::string moved = Head();
  CliRun lost = Run("commit publish --uri g " + c + " --json");
  EXPECT_EQ(lost.rc, 4) << lost.err;
  const std::string message =
      "precondition failed on branch 'main': expected head '" + head + "' but current is " + moved;
  EXPECT_EQ(lost.out, "{\n  \"error\": \"" + message + "\",\n  \"precondition_failure\": {\n    \"expected\": \"" +
                          head + "\",\n    \"actual\": \"" + moved + "\"\n  }\n}\n");
  EXPECT_EQ(lost.err, "error: " + message + "\n");
  EXPECT_EQ(Head(), moved);
}

TEST_F(ProposalCliTest, UnattachedSnapshotsRefusePublicationAndDropAsATree) {
  CliRun human = Run("mutate sketch --store g --query q.gq --params '{\"s\":\"x\"}'");
  ASSERT_EQ(human.rc, 0) << human.err;
  CliRun listed = Run("commit list g --unpublished --json");
  nlohmann::json commits = nlohmann::json::parse(listed.out)["commits"];
  ASSERT_EQ(commits.size(), 1u);
  const std::string r = commits[0]["graph_commit_id"].get<std::string>();
  EXPECT_EQ(commits[0]["unattached_root"], r);
  EXPECT_NE(human.out.find("unattached snapshot: " + r + " (root " + r + ")\n"), std::string::npos) << human.out;
  CliRun listed_human = Run("commit list g --unpublished");
  EXPECT_EQ(listed_human.out, r + " graph_branch=main graph_manifest_version=3 published=false unattached_root=" + r +
                                  "\n");

  CliRun publish = Run("commit publish --uri g " + r + " --json");
  EXPECT_EQ(publish.rc, 1);
  EXPECT_EQ(publish.out, "");
  EXPECT_EQ(publish.err, "error: commit '" + r + "' is an unattached snapshot and cannot be published\n");

  CliRun drop = Run("commit drop --uri g " + r + " --json");
  ASSERT_EQ(drop.rc, 0) << drop.err;
  EXPECT_EQ(drop.out, "{\n  \"graph_commit_id\": \"" + r + "\",\n  \"dropped\": [\n    \"" + r + "\"\n  ]\n}\n");
  CliRun gone = Run("commit drop --uri g " + r);
  EXPECT_EQ(gone.rc, 1);
  EXPECT_EQ(gone.err, "error: commit '" + r + "' not found\n");
}

TEST_F(ProposalCliTest, MergeAsCommitWithDeleteBranchIsAUsageError) {
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  CliRun refused = Run("branch merge --uri g feature --as-commit --delete-branch");
  EXPECT_EQ(refused.rc, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("--as-commit cannot be combined with --delete-branch"), std::string::npos)
      << refused.err;

  CliRun add = Run("mutate add --store g --query q.gq --branch feature --params '{\"s\":\"f\"}'");
  ASSERT_EQ(add.rc, 0) << add.err;
  CliRun merged = Run("branch merge --uri g feature --as-commit --json");
  ASSERT_EQ(merged.rc, 0) << merged.err;
  nlohmann::json body = nlohmann::json::parse(merged.out);
  EXPECT_EQ(body["outcome"], "fast_forward");
  EXPECT_EQ(body["commit"]["published"], false);
  const std::string c = body["commit"]["graph_commit_id"].get<std::string>();
  CliRun published = Run("commit publish --uri g " + c);
  EXPECT_EQ(published.rc, 0) << published.err;
  EXPECT_EQ(Head(), c);
}

}  // namespace proposal_cli_test
}  // namespace omnigraph::cli
