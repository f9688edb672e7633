// Compaction planning and the grouped Rewrite (spec/engine.md §8.1;
// design/write-path.md "Optimize plans each table's compaction from its pin").
#include "table/compaction.h"
#include "table_fixture.h"

namespace omnigraph::table {
namespace compaction_test {

using testing::I;
using testing::N;
using testing::S;

std::vector<uint64_t> FragmentIds(const Dataset& ds) {
  std::vector<uint64_t> ids;
  for (const auto& f : ds.manifest().fragments) ids.push_back(f.id);
  return ids;
}

// Fragments of 5, 2, 3, 5 and 1 rows (ids 0..4), ids p0.. in order.
class CompactionTest : public TableTest {
 protected:
  Dataset FiveFragments() {
    Dataset current = CreatePeople(5);
    int next = 5;
    for (int rows : {2, 3, 5, 1}) {
      current = *CommitLinear(*StageAppend(current, {People(next, rows)}));
      next += rows;
    }
    return current;
  }
  static CompactionOptions Target(uint64_t rows) {
    CompactionOptions options;
    options.target_rows_per_fragment = rows;
    return options;
  }
};

TEST_F(CompactionTest, PlanGroupsContiguousRunsOfSmallFragments) {
  Dataset ds = FiveFragments();
  ASSERT_EQ(FragmentIds(ds), (std::vector<uint64_t>{0, 1, 2, 3, 4}));
  // Target 5: fragments 1 and 2 are a run of two; 4 is a lone small one.
  EXPECT_EQ(PlanCompaction(ds, Target(5)).groups, (std::vector<std::vector<uint64_t>>{{1, 2}}));
  // Target 6: every fragment is small, one run.
  EXPECT_EQ(PlanCompaction(ds, Target(6)).groups, (std::vector<std::vector<uint64_t>>{{0, 1, 2, 3, 4}}));
  // Target 1: nothing is small.
  EXPECT_TRUE(PlanCompaction(ds, Target(1)).empty());
  // The default target (1 Mi rows): everything.
  EXPECT_EQ(PlanCompaction(ds).fragments_removed(), 5u);
}

TEST_F(CompactionTest, ALoneFragmentWithDeletionsIsRewritten) {
  Dataset ds = FiveFragments();
  ds = *CommitLinear(*StageDelete(ds, Predicate::In("id", {S("p1"), S("p13")})));
  // Fragment 0 (p0..p4) and 3 (p10..p14) have deletions. At target 1
  // nothing is small: each is rewritten alone.
  EXPECT_EQ(PlanCompaction(ds, Target(1)).groups, (std::vector<std::vector<uint64_t>>{{0}, {3}}));
  // At target 2 the lone small fragment 4 joins 3's run.
  EXPECT_EQ(PlanCompaction(ds, Target(2)).groups, (std::vector<std::vector<uint64_t>>{{0}, {3, 4}}));
  // At target 5 every fragment is a candidate: one run.
  EXPECT_EQ(PlanCompaction(ds, Target(5)).groups, (std::vector<std::vector<uint64_t>>{{0, 1, 2, 3, 4}}));
}

// Each group's new fragments replace its first old fragment: scan order and
// every value are kept, and the deletion vectors are gone.
TEST_F(CompactionTest, GroupedRewriteKeepsScanOrderAndValues) {
  Dataset ds = FiveFragments();
  ds = *CommitLinear(*StageDelete(ds, Predicate::In("id", {S("p1"), S("p13")})));
  std::vector<testing::Row> before = ReadAll(ds);
  ASSERT_EQ(before.size(), 14u);
  auto staged = StageRewriteGroups(ds, {{0}, {3}}, {});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  auto compacted = CommitLinear(*staged);
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  // Old ids 0 and 3 were replaced in place by 5 and 6 (above the high-water mark).
  EXPECT_EQ(FragmentIds(*compacted), (std::vector<uint64_t>{5, 1, 2, 6, 4}));
  for (const auto& f : compacted->manifest().fragments) EXPECT_FALSE(f.deletion_file.has_value()) << f.id;
  EXPECT_EQ(compacted->manifest().fragments[0].physical_rows, 4u);
  EXPECT_EQ(testing::RowsToString(ReadAll(*compacted)), testing::RowsToString(before));
  EXPECT_EQ(compacted->CountRows(), 14u);
  // Nothing left to do at this target.
  EXPECT_TRUE(PlanCompaction(*compacted, Target(2)).empty());
}

TEST_F(CompactionTest, GroupedRewriteRefusesBadGroups) {
  Dataset ds = FiveFragments();
  EXPECT_EQ(StageRewriteGroups(ds, {}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(StageRewriteGroups(ds, {{}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(StageRewriteGroups(ds, {{0, 1}, {1}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(StageRewriteGroups(ds, {{0, 9}}).status().code(), ErrorCode::kNotFound);
}

// A column added by a metadata-only Merge is absent from older fragments,
// which read it as NULL; the rewrite writes NULL there and keeps the new
// fragments' NULL and empty values as they were.
TEST_F(CompactionTest, RewriteWritesAColumnAFragmentLacksAsNull) {
  Dataset ds = CreatePeople(3);
  ds = *CommitLinear(*StageAddColumns(ds, {Field("nick", DataType::Utf8())}));
  const int32_t nick_id = ds.schema()->FindField("nick")->id;
  RecordBatchPtr later = testing::MakeBatch(ds.schema(), {{S("q0"), I(1), N(), S("")}, {S("q1"), I(2), N(), N()},
                                                          {S("q2"), I(3), N(), S("x")}});
  ds = *CommitLinear(*StageAppend(ds, {later}));
  ASSERT_EQ(ds.manifest().fragments.size(), 2u);
  std::vector<testing::Row> before = ReadAll(ds);
  auto compacted = CommitLinear(*StageRewrite(ds));
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_EQ(compacted->manifest().fragments.size(), 1u);
  const auto& fields = compacted->manifest().fragments[0].files[0].fields;
  EXPECT_NE(std::find(fields.begin(), fields.end(), nick_id), fields.end());
  std::vector<testing::Row> after = ReadAll(*compacted);
  EXPECT_EQ(testing::RowsToString(after), testing::RowsToString(before));
  ScanOptions nick;
  nick.columns = {"nick"};
  std::vector<testing::Row> nicks = ReadAll(*compacted, nick);
  ASSERT_EQ(nicks.size(), 6u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(nicks[i][0].is_null()) << i;
  EXPECT_EQ(nicks[3][0].string_value(), "");
  EXPECT_TRUE(nicks[4][0].is_null());
  EXPECT_EQ(nicks[5][0].string_value(), "x");
}

// A dropped column's values stay in the files until a rewrite: every
// fragment holding them is planned, whatever its size, and the rewrite
// erases them.
TEST_F(CompactionTest, FragmentsHoldingDroppedColumnsArePlannedAndErased) {
  Dataset ds = FiveFragments();
  ds = *CommitLinear(*StageProject(ds, {}, {"score"}));
  for (const auto& f : ds.manifest().fragments) EXPECT_TRUE(HoldsDroppedFields(*ds.schema(), f)) << f.id;
  // Target 1: no fragment is small, yet all hold the dropped column.
  CompactionPlan plan = PlanCompaction(ds, Target(1));
  EXPECT_EQ(plan.groups, (std::vector<std::vector<uint64_t>>{{0, 1, 2, 3, 4}}));
  StageOptions options;
  options.max_rows_per_file = 5;
  auto compacted = CommitLinear(*StageRewriteGroups(ds, plan.groups, options));
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  EXPECT_EQ(compacted->manifest().fragments.size(), 4u);  // 16 rows in files of 5
  for (const auto& f : compacted->manifest().fragments) {
    EXPECT_FALSE(HoldsDroppedFields(*compacted->schema(), f)) << f.id;
    EXPECT_EQ(f.files[0].fields, (std::vector<int32_t>{0, 1}));
  }
  EXPECT_EQ(compacted->CountRows(), 16u);
  EXPECT_EQ(Ids(*compacted).front(), "p0");
  EXPECT_EQ(Ids(*compacted).back(), "p15");
  EXPECT_TRUE(PlanCompaction(*compacted, Target(1)).empty());
}

}  // namespace compaction_test
}  // namespace omnigraph::table
