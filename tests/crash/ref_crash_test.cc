// Crash tests of ref writes (spec/lance-format.md §1.8 tags, §1.9 native
// branches), one case per ref-write cell of the crash matrix
// (crash_matrix.h), generated from the failpoint registry. No graph write
// makes a ref yet, so these failpoints are proven at the table layer that
// owns them (write-path.md: "prove ... crash windows at the owning layer").
// A forked child tags or branches version 1 of a dataset and is SIGKILLed
// at the cell's hit; afterwards the dataset opens with no recovery step,
// lists exactly the refs before the write (or exactly the new one), the same
// ref write then succeeds and reads version 1, and the next commit succeeds.
// The same hits armed to return an error check the same in process.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "crash/crash_matrix.h"
#include "table/table_fixture.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace ref_crash_test {

using table::Dataset;
using table::VersionRef;

constexpr int kRows = 3;
// The rows of version 1, which every ref points at.
std::vector<std::string> Version1Ids() { return {"p0", "p1", "p2"}; }

// The ref each write makes, and how it reads.
struct RefWrite {
  std::string_view listed;  // its line in Refs() once made
  VersionRef ref;
};

RefWrite RefOf(Write write) {
  if (write == Write::kTag) return {"tag stable -> main@1\n", VersionRef::Tag("stable")};
  if (write != Write::kBranch) ADD_FAILURE() << WriteName(write) << " is not a ref write";
  return {"branch exp <- main@1\n", VersionRef::Branch("exp")};
}

Status RunRefWrite(const Dataset& dataset, Write write) {
  if (write == Write::kTag) return dataset.CreateTag("stable", 1);
  return dataset.CreateBranch("exp", 1).status();
}

// Every tag and branch of `dataset`, one line each.
Result<std::string> Refs(const Dataset& dataset) {
  std::string refs;
  OG_ASSIGN_OR_RETURN(std::vector<table::TagInfo> tags, dataset.ListTags());
  for (const table::TagInfo& t : tags) {
    refs += fmt::format("tag {} -> {}@{}\n", t.name, t.branch.value_or("main"), t.version);
  }
  OG_ASSIGN_OR_RETURN(std::vector<table::BranchInfo> branches, dataset.ListBranches());
  for (const table::BranchInfo& b : branches) {
    refs += fmt::format("branch {} <- {}@{}\n", b.name, b.parent_branch.value_or("main"), b.parent_version);
  }
  return refs;
}

class RefCrashTest : public table::TableTest, public ::testing::WithParamInterface<CrashCase> {
 protected:
  // After a killed or failed ref write whose outcome is `committed`: the
  // dataset is unchanged, the ref exists exactly when committed, the same
  // write then succeeds (unless it already did) and the ref reads version
  // 1, and the next commit on main succeeds without moving the ref.
  void ExpectRefWriteCompletes(Write write, bool committed) {
    const RefWrite ref = RefOf(write);
    auto latest = Dataset::Open(store_, "people.lance");  // no recovery step
    ASSERT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_EQ(latest->version(), 1u);
    EXPECT_EQ(Ids(*latest), Version1Ids());
    EXPECT_EQ(*Refs(*latest), committed ? ref.listed : "");

    if (!committed) {
      Status again = RunRefWrite(*latest, write);
      ASSERT_TRUE(again.ok()) << again.ToString();
    }
    EXPECT_EQ(*Refs(*latest), ref.listed);
    auto through_ref = Dataset::Open(store_, "people.lance", ref.ref);
    ASSERT_TRUE(through_ref.ok()) << through_ref.status().ToString();
    EXPECT_EQ(Ids(*through_ref), Version1Ids());

    auto next = table::CommitLinear(*table::StageAppend(*latest, {People(kRows, 1)}));
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    EXPECT_EQ(next->version(), 2u);
    EXPECT_EQ(Ids(*next), (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
    EXPECT_EQ(Ids(*Dataset::Open(store_, "people.lance", ref.ref)), Version1Ids());
  }
};

TEST_P(RefCrashTest, RefIsEitherAbsentOrComplete) {
  const CrashCase& c = GetParam();
  Dataset v1 = CreatePeople(kRows);
  ASSERT_TRUE(KilledAt(c.cell, [&] { (void)RunRefWrite(v1, c.write); }));
  ExpectRefWriteCompletes(c.write, c.cell.outcome == Outcome::kCommitted);
}

TEST_P(RefCrashTest, AnErrorIsRefusedAndAbsent) {
  const CrashCase& c = GetParam();
  // Every ref failpoint precedes the ref's record, the write's only effect
  // that publishes anything; an error there must refuse the write.
  ASSERT_EQ(c.cell.outcome, Outcome::kUnchanged) << "a ref write has no step after its record";
  Dataset v1 = CreatePeople(kRows);
  failpoint::Set(c.cell.failpoint, failpoint::Action::kError, c.cell.skip);
  Status st = RunRefWrite(v1, c.write);
  failpoint::ClearAll();
  ASSERT_EQ(st.code(), ErrorCode::kIoError) << st.ToString();
  EXPECT_EQ(st.message(), fmt::format("failpoint '{}' triggered", c.cell.failpoint));
  ExpectRefWriteCompletes(c.write, /*committed=*/false);
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, RefCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), kRefWrites)),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace ref_crash_test
}  // namespace omnigraph::crash
