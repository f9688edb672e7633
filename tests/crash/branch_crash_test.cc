// Crash tests of branch control (spec/branches.md BR-3, BR-9.9), one case
// per branch-control cell of the crash matrix (crash_matrix.h), generated
// from the failpoint registry. A forked child creates a branch, deletes one,
// or merges a branch into main (a fast forward, or a three-way merge that
// chains detached commits on main's pins) and is SIGKILLed at the cell's
// hit. Afterwards the graph opens with no recovery step and every branch
// equals its state before the operation (a kill before its record or CAS
// landed) or the complete result (after), where the complete result is what
// the same operation leaves on an untouched copy of the graph. The same
// operation then succeeds (when it had not landed), and so do the next write
// and the next merge.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "exec/result_format.h"
#include "crash/crash_graph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace branch_crash_test {

using api::LoadMode;
using api::Omnigraph;

Status Mutate(Omnigraph& g, const std::string& branch, std::string_view query, std::string_view params = "{}") {
  return g.Mutate(kMutations, "mutations.gq", std::string(query), std::string(params), branch).status();
}

// A graph holding kBase on main and a branch `feature` that hired carol and
// globex; for a three-way merge main then relocated alice and acme, so both
// sides changed both node tables.
Status Prepare(const std::string& uri, Write write) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Omnigraph> g, Omnigraph::Init(uri, kSchema));
  OG_RETURN_IF_ERROR(g->Load(kBase, "base.jsonl", LoadMode::kOverwrite).status());
  OG_RETURN_IF_ERROR(g->BranchCreate("feature").status());
  OG_RETURN_IF_ERROR(Mutate(*g, "feature", "hire"));
  if (write == Write::kThreeWayMerge) OG_RETURN_IF_ERROR(Mutate(*g, "main", "relocate"));
  return Status::OK();
}

// The branch-control write of a case.
Status RunWrite(Omnigraph& g, Write write) {
  switch (write) {
    case Write::kBranchCreate:
      return g.BranchCreate("review", "feature").status();
    case Write::kBranchDelete:
      return g.BranchDelete("feature");
    case Write::kFastForwardMerge:
    case Write::kThreeWayMerge:
      return g.BranchMerge("feature", "main").status();
    default:
      break;
  }
  return InvalidArgument(fmt::format("{} is not a branch-control write", WriteName(write)));
}

// Every branch with its exported rows and the size of its commit list: what
// a reader of each branch sees, without the ids and clocks that differ
// between two runs of the same operation.
Result<std::string> Describe(Omnigraph& g) {
  std::string out;
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, g.BranchList());
  for (const std::string& branch : branches) {
    OG_ASSIGN_OR_RETURN(std::string rows, g.Export(branch, {}));
    OG_ASSIGN_OR_RETURN(std::vector<graph::CommitRecord> commits, g.ListCommits(branch));
    out += fmt::format("== {} ({} commits)\n{}", branch, commits.size(), rows);
  }
  return out;
}

Result<std::string> DescribeAt(const std::string& uri) {
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Omnigraph> g, Omnigraph::Open(uri));
  return Describe(*g);
}

class BranchCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(BranchCrashTest, EveryBranchIsEitherAsBeforeOrHoldsTheCompleteResult) {
  const CrashCase& c = GetParam();
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  const std::string reference = dir.path() + "/reference";
  {
    Status prepared = Prepare(uri, c.write);
    ASSERT_TRUE(prepared.ok()) << prepared.ToString();
  }
  std::filesystem::copy(uri, reference, std::filesystem::copy_options::recursive);
  auto before = DescribeAt(uri);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  std::string complete;
  {
    auto g = Omnigraph::Open(reference);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    Status ran = RunWrite(**g, c.write);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    auto described = Describe(**g);
    ASSERT_TRUE(described.ok()) << described.status().ToString();
    complete = *described;
  }
  ASSERT_NE(*before, complete);

  ASSERT_TRUE(KilledAt(c.cell, [&] {
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)RunWrite(**g, c.write);
  }));

  const bool landed = c.cell.outcome != Outcome::kUnchanged;
  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto after = Describe(**g);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(*after, landed ? complete : *before);

  if (!landed) {
    Status again = RunWrite(**g, c.write);
    ASSERT_TRUE(again.ok()) << again.ToString();
    EXPECT_EQ(*Describe(**g), complete);
  }

  // The next write and the next merge succeed.
  Status wrote = Mutate(**g, "main", "add_person", R"({"name":"zoe"})");
  ASSERT_TRUE(wrote.ok()) << wrote.ToString();
  auto created = (*g)->BranchCreate("next");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Status branch_write = Mutate(**g, "next", "add_person", R"({"name":"yann"})");
  ASSERT_TRUE(branch_write.ok()) << branch_write.ToString();
  auto merged = (*g)->BranchMerge("next", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "fast_forward");
  auto people = (*g)->Query("query names() { match { $p: Person } return { $p.name } order { $p.name } }", "q.gq",
                            "names", "{}");
  ASSERT_TRUE(people.ok()) << people.status().ToString();
  std::string names;
  for (int64_t row = 0; row < people->row_count(); ++row) names += exec::RowJson(*people, row) + "\n";
  const bool merged_feature = c.write == Write::kFastForwardMerge || c.write == Write::kThreeWayMerge;
  EXPECT_EQ(names, merged_feature ? "{\"p.name\":\"alice\"}\n{\"p.name\":\"bob\"}\n{\"p.name\":\"carol\"}\n"
                                    "{\"p.name\":\"yann\"}\n{\"p.name\":\"zoe\"}\n"
                                  : "{\"p.name\":\"alice\"}\n{\"p.name\":\"bob\"}\n{\"p.name\":\"yann\"}\n"
                                    "{\"p.name\":\"zoe\"}\n");
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, BranchCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), kBranchControlWrites)),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace branch_crash_test
}  // namespace omnigraph::crash
