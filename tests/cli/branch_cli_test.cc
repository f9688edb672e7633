// Branch, merge and history verbs through the binary (spec/branches.md
// BR-3, BR-6, BR-8, BR-9, BR-13.1; Appendix A rows 36, 37 (its CLI parts)
// and 38): exit codes, stdout and stderr exactly.
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/branch_fixture.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace omnigraph::cli {
namespace branch_cli_test {

using nlohmann::json;
using testing::CliRun;

class BranchCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("test.pg", testing::FixtureText("test.pg", testing::kFixtureSchema));
    Write("test.jsonl", testing::FixtureText("test.jsonl", testing::kFixtureData));
    Write("q.gq", testing::kBranchQueries);
    Write("m.gq", testing::kFixtureMutations);
    InitGraph("test.pg", "test.jsonl", "merge");
  }
  // `commit list --json` of `branch`.
  json Commits(const std::string& branch = "main") {
    CliRun list = Run("commit list g --branch " + branch + " --json");
    EXPECT_EQ(list.rc, 0) << list.err;
    return json::parse(list.out)["commits"];
  }
  // A mutation of m.gq that must succeed.
  void Mutate(const std::string& name, const std::string& params, const std::string& branch = "main") {
    CliRun run = Run("mutate " + name + " --store g --query m.gq --params '" + params + "' --branch " + branch);
    ASSERT_EQ(run.rc, 0) << run.err;
  }
  std::string People(const std::string& branch = "main") {
    CliRun run = Run("query people --store g --query q.gq --branch " + branch + " --format csv");
    EXPECT_EQ(run.rc, 0) << run.err;
    return run.out;
  }
};

constexpr std::string_view kFixturePeopleCsv = "p.name,p.age\nAlice,30\nBob,25\nCharlie,35\nDiana,28\n";

// BR-3: create, list, delete; human and JSON outputs.
TEST_F(BranchCliTest, CreateListDeleteOutputs) {
  CliRun created = Run("branch create --uri g feature");
  EXPECT_EQ(created.rc, 0) << created.err;
  EXPECT_EQ(created.out, "created branch feature from main\n");
  EXPECT_EQ(created.err, "omnigraph branch create → g (direct, local)\n");  // §5.1 write target
  CliRun json_created = Run("branch create --uri g --from feature experiment --json --as ann");
  EXPECT_EQ(json_created.rc, 0) << json_created.err;
  EXPECT_EQ(json_created.out,
            "{\n  \"uri\": \"g\",\n  \"from\": \"feature\",\n  \"name\": \"experiment\",\n  \"actor_id\": \"ann\"\n}\n");

  CliRun list = Run("branch list --uri g");
  EXPECT_EQ(list.rc, 0);
  EXPECT_EQ(list.out, "experiment\nfeature\nmain\n");
  CliRun list_json = Run("branch list --uri g --json");
  EXPECT_EQ(list_json.rc, 0);
  EXPECT_EQ(json::parse(list_json.out), json::parse(R"({"branches":["experiment","feature","main"]})"));

  // No commit was written by either create.
  EXPECT_EQ(Commits().size(), 2u);
  EXPECT_EQ(Commits("experiment"), Commits());

  CliRun refused = Run("branch delete --uri g feature");
  EXPECT_EQ(refused.rc, 1);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err,
            "omnigraph branch delete → g (direct, local)\n"
            "error: cannot delete branch 'feature' because descendant branch 'experiment' still depends on it\n");
  CliRun deleted = Run("branch delete --uri g experiment --json");
  EXPECT_EQ(deleted.rc, 0) << deleted.err;
  EXPECT_EQ(json::parse(deleted.out), json::parse(R"({"uri":"g","name":"experiment","actor_id":null})"));
  CliRun human = Run("branch delete --uri g feature");
  EXPECT_EQ(human.rc, 0) << human.err;
  EXPECT_EQ(human.out, "deleted branch feature\n");
  EXPECT_EQ(Run("branch list --uri g").out, "main\n");
}

// §5.1: the local branch writes echo their target on stderr, as load and
// schema apply do (and as their served forms do), unless --quiet or
// --json (a --json branch write's stderr is read with its stdout); the
// read (branch list) does not.
TEST_F(BranchCliTest, LocalBranchWritesEchoTheirTarget) {
  CliRun created = Run("branch create --store g feature");
  EXPECT_EQ(created.rc, 0) << created.err;
  EXPECT_EQ(created.err, "omnigraph branch create → g (direct, local)\n");
  CliRun merged = Run("branch merge --uri file://g feature");
  EXPECT_EQ(merged.rc, 0) << merged.err;
  EXPECT_EQ(merged.out, "merged feature into main: already_up_to_date\n");
  EXPECT_EQ(merged.err, "omnigraph branch merge → file://g (direct, local)\n");
  CliRun deleted = Run("branch delete --uri g feature");
  EXPECT_EQ(deleted.rc, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deleted branch feature\n");
  EXPECT_EQ(deleted.err, "omnigraph branch delete → g (direct, local)\n");
  CliRun listed = Run("branch list --uri g");
  EXPECT_EQ(listed.err, "");
  CliRun as_json = Run("branch create --uri g --json json-branch");
  EXPECT_EQ(as_json.rc, 0) << as_json.err;
  EXPECT_EQ(as_json.err, "");

  for (const char* quiet : {"branch create --uri g --quiet other", "branch merge --quiet --uri g other",
                            "--quiet branch delete --uri g other"}) {
    CliRun run = Run(quiet);
    EXPECT_EQ(run.rc, 0) << quiet << "\n" << run.err;
    EXPECT_EQ(run.err, "") << quiet;
  }
  // A graph that does not open is reported before anything is echoed.
  CliRun missing = Run("branch create --uri nowhere x");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.err.find("omnigraph branch create"), std::string::npos) << missing.err;
}

// Row 36: a refused post-merge delete warns and exits 0; an accepted one
// deletes the source.
TEST_F(BranchCliTest, MergeDeleteBranchRefusalWarnsAndExitsZero) {
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  ASSERT_EQ(Run("branch create --uri g --from feature feature-child").rc, 0);
  CliRun merged = Run("branch merge --uri g feature --delete-branch --json");
  EXPECT_EQ(merged.rc, 0) << merged.err;
  const std::string refusal =
      "cannot delete branch 'feature' because descendant branch 'feature-child' still depends on it";
  EXPECT_EQ(json::parse(merged.out), json({{"source", "feature"},
                                           {"target", "main"},
                                           {"outcome", "already_up_to_date"},
                                           {"actor_id", nullptr},
                                           {"branch_deleted", false},
                                           {"branch_delete_error", refusal},
                                           {"commit", nullptr}}));
  EXPECT_EQ(merged.err, "warning: merged, but could not delete branch 'feature': " + refusal + "\n");
  EXPECT_EQ(Run("branch list --uri g").out, "feature\nfeature-child\nmain\n");
  EXPECT_EQ(Commits().size(), 2u);
}

TEST_F(BranchCliTest, MergeDeleteBranchDeletesTheSource) {
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  ASSERT_NO_FATAL_FAILURE(Mutate("insert_person", R"({"name":"Eve","age":22})", "feature"));
  const std::string old_head = Head(), feature_head = Head("feature");
  CliRun merged = Run("branch merge --uri g feature --delete-branch --json");
  EXPECT_EQ(merged.rc, 0) << merged.err;
  EXPECT_EQ(merged.err, "");
  json out = json::parse(merged.out);
  EXPECT_EQ(out["outcome"], "fast_forward");
  EXPECT_EQ(out["branch_deleted"], true);
  EXPECT_FALSE(out.contains("branch_delete_error"));
  EXPECT_EQ(out["commit"]["parent_commit_id"], old_head);
  EXPECT_EQ(out["commit"]["merged_parent_commit_id"], feature_head);
  EXPECT_EQ(out["commit"]["graph_commit_id"], Head());
  EXPECT_EQ(Run("branch list --uri g").out, "main\n");
  EXPECT_EQ(People(), "p.name,p.age\nAlice,30\nBob,25\nCharlie,35\nDiana,28\nEve,22\n");

  // Human form, without the flag: one line, no deletion line.
  ASSERT_EQ(Run("branch create --uri g other").rc, 0);
  ASSERT_NO_FATAL_FAILURE(Mutate("insert_person", R"({"name":"Fay","age":7})", "other"));
  CliRun human = Run("branch merge --uri g other");
  EXPECT_EQ(human.rc, 0) << human.err;
  EXPECT_EQ(human.out, "merged other into main: fast_forward\n");
  CliRun again = Run("branch merge --uri g other --into main --delete-branch");
  EXPECT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(again.out, "merged other into main: already_up_to_date\ndeleted branch other\n");
}

// Row 38 through the CLI: exit 1, the conflict summary on stderr, nothing
// on stdout, nothing changed.
TEST_F(BranchCliTest, AMergeConflictExitsOneAndChangesNothing) {
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  ASSERT_NO_FATAL_FAILURE(Mutate("set_age", R"({"name":"Alice","age":31})"));
  ASSERT_NO_FATAL_FAILURE(Mutate("set_age", R"({"name":"Alice","age":32})", "feature"));
  const json main_before = Commits(), feature_before = Commits("feature");
  CliRun merged = Run("branch merge --uri g feature --json");
  EXPECT_EQ(merged.rc, 1);
  EXPECT_EQ(merged.out, "");
  EXPECT_EQ(merged.err, "error: merge conflicts: node type 'Person', entity id 'Alice' (divergent_update)\n");
  EXPECT_EQ(Commits(), main_before);
  EXPECT_EQ(Commits("feature"), feature_before);
  EXPECT_EQ(People(), "p.name,p.age\nAlice,31\nBob,25\nCharlie,35\nDiana,28\n");
  EXPECT_EQ(People("feature"), "p.name,p.age\nAlice,32\nBob,25\nCharlie,35\nDiana,28\n");
}

// Row 37's CLI parts (BR-8): a stale id exits 4 with the body on stdout
// under --json (actual = the current head); the id from a read of the same
// branch passes; a fresh branch accepts its inherited head.
TEST_F(BranchCliTest, IfCommitOnBranches) {
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  CliRun read = Run("query people --store g --query q.gq --branch feature --json");
  ASSERT_EQ(read.rc, 0) << read.err;
  const std::string inherited = json::parse(read.out)["graph_commit_id"].get<std::string>();
  EXPECT_EQ(inherited, Head());
  CliRun first = Run("mutate set_age --store g --query m.gq --branch feature --params "
                     "'{\"name\":\"Bob\",\"age\":26}' --if-commit " +
                     inherited + " --json");
  ASSERT_EQ(first.rc, 0) << first.err;
  const std::string feature_head = json::parse(first.out)["commit"]["graph_commit_id"].get<std::string>();
  EXPECT_EQ(json::parse(first.out)["commit"]["parent_commit_id"], inherited);
  EXPECT_EQ(json::parse(first.out)["commit"]["graph_branch"], "feature");
  EXPECT_EQ(Head("feature"), feature_head);

  CliRun stale = Run("mutate set_age --store g --query m.gq --branch feature --params "
                     "'{\"name\":\"Bob\",\"age\":27}' --if-commit " +
                     inherited + " --json");
  EXPECT_EQ(stale.rc, 4);
  const std::string message =
      "precondition failed on branch 'feature': expected head '" + inherited + "' but current is " + feature_head;
  json body = json::parse(stale.out);
  EXPECT_EQ(body, json({{"error", message}, {"precondition_failure", {{"expected", inherited}, {"actual", feature_head}}}}));
  EXPECT_FALSE(body.contains("code"));
  EXPECT_EQ(stale.err, "error: " + message + "\n");
  EXPECT_EQ(Head("feature"), feature_head);
  EXPECT_EQ(People("feature"), "p.name,p.age\nAlice,30\nBob,26\nCharlie,35\nDiana,28\n");
  // main is untouched by all of it.
  EXPECT_EQ(People(), kFixturePeopleCsv);
  EXPECT_EQ(Head(), inherited);
}

// BR-7: --branch with --snapshot is a usage error (exit 2); snapshot
// reads work through the CLI and unknown/malformed ids are errors (exit 1).
TEST_F(BranchCliTest, SnapshotReadsAndTheirUsageErrors) {
  const std::string loaded = Head();
  ASSERT_NO_FATAL_FAILURE(Mutate("insert_person", R"({"name":"Eve","age":22})"));
  CliRun both = Run("query people --store g --query q.gq --branch main --snapshot " + loaded);
  EXPECT_EQ(both.rc, 2);
  EXPECT_EQ(both.out, "");
  EXPECT_EQ(both.err, "error: --branch excludes --snapshot\nRun with --help or --help-all for more information.\n");
  // Even with --branch main, and whatever the id.
  CliRun both_unknown = Run("query people --store g --query q.gq --snapshot 01ARZ3NDEKTSV4RRFFQ69G5FAV --branch main");
  EXPECT_EQ(both_unknown.rc, 2);
  EXPECT_EQ(both_unknown.out, "");

  CliRun past = Run("query people --store g --query q.gq --snapshot " + loaded + " --format csv");
  EXPECT_EQ(past.rc, 0) << past.err;
  EXPECT_EQ(past.out, kFixturePeopleCsv);
  CliRun past_json = Run("query people --store g --query q.gq --snapshot " + loaded + " --json");
  ASSERT_EQ(past_json.rc, 0) << past_json.err;
  json out = json::parse(past_json.out);
  EXPECT_EQ(out["target"], json({{"branch", nullptr}, {"snapshot", loaded}}));
  EXPECT_EQ(out["graph_commit_id"], loaded);
  EXPECT_EQ(out["row_count"], 4);

  CliRun unknown = Run("query people --store g --query q.gq --snapshot 01ARZ3NDEKTSV4RRFFQ69G5FAV");
  EXPECT_EQ(unknown.rc, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "error: commit '01ARZ3NDEKTSV4RRFFQ69G5FAV' not found\n");
  CliRun malformed = Run("query people --store g --query q.gq --snapshot hb1.");
  EXPECT_EQ(malformed.rc, 1);
  EXPECT_EQ(malformed.err,
            "error: invalid canonical history-block commit id 'hb1.': it does not have four dot-separated parts "
            "(expected hb1.<block>.<slot>.<nonce>)\n");
  CliRun show_bad = Run("commit show --uri g hb1.");
  EXPECT_EQ(show_bad.rc, 1);
  EXPECT_EQ(show_bad.err, malformed.err);
  CliRun show_unknown = Run("commit show --uri g 01ARZ3NDEKTSV4RRFFQ69G5FAV --json");
  EXPECT_EQ(show_unknown.rc, 1);
  EXPECT_EQ(show_unknown.out, "");
  EXPECT_EQ(show_unknown.err, unknown.err);
}

// BR-6: commit list and show, human and JSON, across a merge.
TEST_F(BranchCliTest, CommitListAndShowAcrossAMerge) {
  const std::string loaded = Head();
  ASSERT_EQ(Run("branch create --uri g feature").rc, 0);
  ASSERT_NO_FATAL_FAILURE(Mutate("insert_person", R"({"name":"Eve","age":22})", "feature"));
  const json feature_commit = Commits("feature")[0];
  CliRun merged = Run("branch merge --uri g feature --as act-merger --json");
  ASSERT_EQ(merged.rc, 0) << merged.err;
  const json merge_commit = json::parse(merged.out)["commit"];
  EXPECT_EQ(json::parse(merged.out)["actor_id"], "act-merger");

  json commits = Commits();
  ASSERT_EQ(commits.size(), 4u);
  EXPECT_EQ(commits[0], merge_commit);
  EXPECT_EQ(commits[1], feature_commit);
  EXPECT_EQ(commits[2]["graph_commit_id"], loaded);
  EXPECT_EQ(commits[3]["parent_commit_id"], nullptr);
  EXPECT_EQ(merge_commit["graph_branch"], nullptr);
  EXPECT_EQ(merge_commit["actor_id"], "act-merger");
  EXPECT_EQ(merge_commit["parent_commit_id"], loaded);
  EXPECT_EQ(merge_commit["merged_parent_commit_id"], feature_commit["graph_commit_id"]);
  EXPECT_EQ(feature_commit["graph_branch"], "feature");

  CliRun human = Run("commit list g");
  ASSERT_EQ(human.rc, 0);
  auto line = [](const json& c) {
    std::string text = c["graph_commit_id"].get<std::string>() + " graph_branch=" +
                       (c["graph_branch"].is_null() ? std::string("main") : c["graph_branch"].get<std::string>()) +
                       " graph_manifest_version=" + std::to_string(c["graph_manifest_version"].get<uint64_t>());
    if (!c["actor_id"].is_null()) text += " actor=" + c["actor_id"].get<std::string>();
    return text + "\n";
  };
  EXPECT_EQ(human.out, line(commits[0]) + line(commits[1]) + line(commits[2]) + line(commits[3]));

  CliRun show = Run("commit show --uri g " + merge_commit["graph_commit_id"].get<std::string>());
  ASSERT_EQ(show.rc, 0) << show.err;
  EXPECT_EQ(show.out, "graph_commit_id: " + merge_commit["graph_commit_id"].get<std::string>() +
                          "\ngraph_branch: main\ngraph_manifest_version: " +
                          std::to_string(merge_commit["graph_manifest_version"].get<uint64_t>()) +
                          "\nparent_commit_id: " + loaded + "\nmerged_parent_commit_id: " +
                          feature_commit["graph_commit_id"].get<std::string>() +
                          "\nactor_id: act-merger\ncreated_at: " +
                          std::to_string(merge_commit["created_at"].get<int64_t>()) + "\n");
  CliRun show_json = Run("commit show --uri g " + feature_commit["graph_commit_id"].get<std::string>() + " --json");
  ASSERT_EQ(show_json.rc, 0) << show_json.err;
  EXPECT_EQ(json::parse(show_json.out), feature_commit);

  // After deleting the source its commits still show and list (BR-5).
  ASSERT_EQ(Run("branch delete --uri g feature").rc, 0);
  CliRun after = Run("commit show --uri g " + feature_commit["graph_commit_id"].get<std::string>() + " --json");
  ASSERT_EQ(after.rc, 0) << after.err;
  EXPECT_EQ(json::parse(after.out), feature_commit);
  EXPECT_EQ(Commits(), commits);
  CliRun gone = Run("commit list g --branch feature");
  EXPECT_EQ(gone.rc, 1);
  EXPECT_EQ(gone.err, "error: branch 'feature' not found\n");
}

// Bad names and refused operations through the CLI: exit 1, the message on
// stderr, nothing on stdout, nothing changed.
TEST_F(BranchCliTest, RefusedBranchControlExitsOne) {
  struct Case {
    std::string args;
    std::string err;
  };
  const Case cases[] = {
      {"branch create --uri g 'bad branch'",
       "error: Branch segment 'bad branch' contains invalid characters. Only alphanumeric, '.', '-', '_' are "
       "allowed.\n"},
      {"branch create --uri g main", "error: cannot create branch 'main'\n"},
      {"branch create --uri g __schema_apply_lock__",
       "error: branch_create does not allow internal system ref '__schema_apply_lock__'\n"},
      {"branch create --uri g --from nope x", "error: branch 'nope' not found\n"},
      {"branch delete --uri g main", "error: cannot delete branch 'main'\n"},
      {"branch delete --uri g nope", "error: branch 'nope' not found\n"},
      {"branch merge --uri g main", "error: branch_merge requires distinct source and target branches\n"},
      {"branch merge --uri g nope", "error: branch 'nope' not found\n"},
  };
  const json before = Commits();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    CliRun run = Run(c.args + " --json");
    EXPECT_EQ(run.rc, 1);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err, c.err);
  }
  EXPECT_EQ(Run("branch list --uri g").out, "main\n");
  EXPECT_EQ(Commits(), before);
  // A path-prefix collision.
  ASSERT_EQ(Run("branch create --uri g review").rc, 0);
  CliRun nested = Run("branch create --uri g review/x");
  EXPECT_EQ(nested.rc, 1);
  EXPECT_EQ(nested.err,
            "omnigraph branch create → g (direct, local)\n"
            "error: cannot create branch 'review/x' while live branch 'review' shares its physical Lance path; live "
            "graph branch names may not be ancestors or descendants\n");
  EXPECT_EQ(Run("branch list --uri g").out, "main\nreview\n");
}

// BR-3.1: `load --branch B --from BASE` creates a missing B first; without
// --from a missing branch is not found (exit 1, nothing written).
TEST_F(BranchCliTest, LoadCreatesAMissingBranchOnlyWithFrom) {
  Write("eve.jsonl", "{\"type\": \"Person\", \"data\": {\"name\": \"Eve\", \"age\": 22}}\n");
  const std::string head = Head();
  CliRun missing = Run("load g --data eve.jsonl --mode merge --branch staging --json --quiet");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err, "error: branch 'staging' not found\n");
  EXPECT_EQ(Run("branch list --uri g").out, "main\n");

  CliRun created = Run("load g --data eve.jsonl --mode merge --branch staging --from main --json");
  ASSERT_EQ(created.rc, 0) << created.err;
  json out = json::parse(created.out);
  EXPECT_EQ(out["branch"], "staging");
  EXPECT_EQ(out["branch_created"], true);
  EXPECT_EQ(out["total_entities"], 1);
  EXPECT_EQ(out["commit"]["graph_branch"], "staging");
  EXPECT_EQ(out["commit"]["parent_commit_id"], head);
  EXPECT_EQ(out["commit"]["graph_commit_id"], Head("staging"));
  EXPECT_EQ(Run("branch list --uri g").out, "main\nstaging\n");
  EXPECT_EQ(People("staging"), "p.name,p.age\nAlice,30\nBob,25\nCharlie,35\nDiana,28\nEve,22\n");
  EXPECT_EQ(People(), "p.name,p.age\nAlice,30\nBob,25\nCharlie,35\nDiana,28\n");
  EXPECT_EQ(Head(), head);

  CliRun again = Run("load g --data eve.jsonl --mode merge --branch staging --from main --json");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["branch_created"], false);
}

}  // namespace branch_cli_test
}  // namespace omnigraph::cli
