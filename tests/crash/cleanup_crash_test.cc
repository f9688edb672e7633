// Crash tests of cleanup (spec/engine.md §8.2 "interrupted passes are
// resumable"), one case per cleanup cell of the crash matrix
// (crash_matrix.h), generated from the failpoint registry. A forked child
// runs `cleanup --keep 1` on a graph with a live branch, an expired
// proposal and a deleted branch, and is SIGKILLed at the cell's hit.
// Afterwards every branch reads exactly what it read before, the commits
// a retained version heads still read, the next cleanup completes without
// error, and the graph then holds exactly the files an uninterrupted
// cleanup leaves on a copy.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "crash/crash_graph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace cleanup_crash_test {

namespace fs = std::filesystem;
using api::LoadMode;
using api::Omnigraph;

constexpr std::string_view kPropose = "query propose($name: String) as commit { insert Person { name: $name } }";

Status Mutate(Omnigraph& g, const std::string& branch, std::string_view query, std::string_view params = "{}") {
  return g.Mutate(kMutations, "mutations.gq", std::string(query), std::string(params), branch).status();
}

// main: the base, a proposal that three later writes expired; feature:
// one write; gone: one write, then deleted.
Status Prepare(const std::string& uri, std::string* base_commit) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Omnigraph> g, Omnigraph::Init(uri, kSchema));
  OG_ASSIGN_OR_RETURN(api::LoadReport loaded, g->Load(kBase, "base.jsonl", LoadMode::kOverwrite));
  *base_commit = loaded.commit->id;
  OG_RETURN_IF_ERROR(g->BranchCreate("feature").status());
  OG_RETURN_IF_ERROR(Mutate(*g, "feature", "hire"));
  OG_RETURN_IF_ERROR(g->Mutate(kPropose, "p.gq", "propose", R"({"name":"pia"})").status());
  for (std::string_view name : {"dan", "eve", "fay"}) {
    OG_RETURN_IF_ERROR(Mutate(*g, "main", "add_person", fmt::format(R"({{"name":"{}"}})", name)));
  }
  OG_RETURN_IF_ERROR(g->BranchCreate("gone").status());
  OG_RETURN_IF_ERROR(Mutate(*g, "gone", "relocate"));
  return g->BranchDelete("gone");
}

// Past the retired-tree grace, so the deleted branch's tree is reclaimed too.
int64_t Later() {
  auto now = std::chrono::system_clock::now() + std::chrono::minutes(5);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
}

Result<graph::CleanupReport> RunCleanup(Omnigraph& g) {
  graph::CleanupPolicy policy;
  policy.keep_versions = 1;
  policy.confirm = true;
  policy.now_unix_nanos = Later();
  return g.Cleanup(policy);
}

// What a reader of each branch sees, and what the base commit (the merge
// base of main and feature) reads.
Result<std::string> Describe(Omnigraph& g, const std::string& base_commit) {
  std::string out;
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, g.BranchList());
  for (const std::string& branch : branches) {
    OG_ASSIGN_OR_RETURN(std::string rows, g.Export(branch, {}));
    OG_ASSIGN_OR_RETURN(std::vector<graph::CommitRecord> commits, g.ListCommits(branch));
    out += fmt::format("== {} ({} commits)\n{}", branch, commits.size(), rows);
  }
  OG_ASSIGN_OR_RETURN(std::string at_base, g.Export(api::ReadTarget{"main", base_commit}, {}));
  return out + "== base\n" + at_base;
}

Result<std::string> DescribeAt(const std::string& uri, const std::string& base_commit) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Omnigraph> g, Omnigraph::Open(uri));
  return Describe(*g, base_commit);
}

// Every file under `root` (relative), lock files excluded.
std::map<std::string, uint64_t> Files(const std::string& root) {
  std::map<std::string, uint64_t> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), root).string();
    if (rel.rfind("_locks/", 0) != 0) files[rel] = entry.file_size();
  }
  return files;
}

class CleanupCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(CleanupCrashTest, EveryBranchReadsAsBeforeAndTheNextRunCompletes) {
  const CrashCase& c = GetParam();
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  const std::string reference = dir.path() + "/reference";
  std::string base_commit;
  {
    Status prepared = Prepare(uri, &base_commit);
    ASSERT_TRUE(prepared.ok()) << prepared.ToString();
  }
  fs::copy(uri, reference, fs::copy_options::recursive);
  auto before = DescribeAt(uri, base_commit);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  {
    auto g = Omnigraph::Open(reference);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto cleaned = RunCleanup(**g);
    ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
    ASSERT_EQ(cleaned->released_tags.size(), 1u);
    ASSERT_GT(cleaned->versions_removed(), 4u);
  }
  ASSERT_EQ(*DescribeAt(reference, base_commit), *before);

  ASSERT_TRUE(KilledAt(c.cell, [&] {
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)RunCleanup(**g);
  }));

  auto after = DescribeAt(uri, base_commit);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, *before);
  {
    auto g = Omnigraph::Open(uri);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto resumed = RunCleanup(**g);
    ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
    for (const graph::DatasetCleanup& d : resumed->datasets) EXPECT_FALSE(d.error.has_value()) << *d.error;
  }
  EXPECT_EQ(*DescribeAt(uri, base_commit), *before);
  EXPECT_EQ(Files(uri), Files(reference));
  // And the graph takes writes and merges.
  auto g = Omnigraph::Open(uri);
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(Mutate(**g, "main", "add_person", R"({"name":"zoe"})").ok());
  auto merged = (*g)->BranchMerge("feature", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "merged");
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, CleanupCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), kCleanupWrites)),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace cleanup_crash_test
}  // namespace omnigraph::crash
