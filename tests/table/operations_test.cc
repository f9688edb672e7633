#include <filesystem>

#include "lance/deletion_file.h"
#include "table_fixture.h"

namespace omnigraph::table {
namespace operations_test {

using testing::D;
using testing::I;
using testing::N;
using testing::S;

TEST_F(TableTest, DeleteByPredicateWritesDeletionVectors) {
  Dataset v1 = CreatePeople(10);
  auto staged = StageDelete(v1, Predicate::Lt("age", I(3)));
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  EXPECT_EQ(staged->rows_deleted, 3u);
  auto v2 = CommitLinear(*staged);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->CountRows(), 7u);
  EXPECT_EQ(Ids(*v2), (std::vector<std::string>{"p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
  const auto& fragment = v2->manifest().fragments[0];
  ASSERT_TRUE(fragment.deletion_file.has_value());
  EXPECT_EQ(fragment.deletion_file->kind, lance::DeletionFileKind::kArrowArray);
  EXPECT_EQ(fragment.deletion_file->num_deleted_rows, 3u);
  EXPECT_EQ(fragment.deletion_file->read_version, 1u);
  EXPECT_EQ(v2->manifest().reader_feature_flags & lance::kFlagDeletionFiles, lance::kFlagDeletionFiles);
  auto txn = v2->ReadTransaction();
  EXPECT_EQ(std::get<lance::DeleteOperation>(txn->operation).predicate, "age < 3");
  // A second delete unions with the first.
  auto v3 = CommitLinear(*StageDelete(*v2, Predicate::In("id", {S("p9"), S("p0"), S("zzz")})));
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->manifest().fragments[0].deletion_file->num_deleted_rows, 4u);
  EXPECT_EQ(v3->CountRows(), 6u);
  // Deleting every remaining row drops the fragment.
  auto v4 = CommitLinear(*StageDelete(*v3, Predicate::True()));
  ASSERT_TRUE(v4.ok());
  EXPECT_TRUE(v4->manifest().fragments.empty());
  EXPECT_EQ(v4->CountRows(), 0u);
  EXPECT_EQ(std::get<lance::DeleteOperation>(v4->ReadTransaction()->operation).deleted_fragment_ids,
            (std::vector<uint64_t>{0}));
}

TEST_F(TableTest, ManyDeletionsSwitchToRoaringBitmaps) {
  Dataset v1 = CreatePeople(12000);
  auto v2 = CommitLinear(*StageDelete(v1, Predicate::And(Predicate::Ge("age", I(1000)), Predicate::Lt("age", I(8000)))));
  ASSERT_TRUE(v2.ok());
  const auto& d = *v2->manifest().fragments[0].deletion_file;
  EXPECT_EQ(d.kind, lance::DeletionFileKind::kBitmap);
  EXPECT_EQ(d.num_deleted_rows, 7000u);
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/people.lance/_deletions/" + d.FileName(0)));
  EXPECT_EQ(v2->CountRows(), 5000u);
  EXPECT_EQ(*v2->CountRows(Predicate::Lt("age", I(1000))), 1000u);
  EXPECT_EQ(*v2->CountRows(Predicate::Ge("age", I(8000))), 4000u);
}

TEST_F(TableTest, DeleteIdsUsesAHashSet) {
  Dataset v1 = CreatePeople(100);
  std::vector<Scalar> ids;
  for (int i = 0; i < 100; i += 2) ids.push_back(S("p" + std::to_string(i)));
  auto v2 = CommitDetached(*StageDeleteIds(v1, "id", ids));
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->CountRows(), 50u);
  EXPECT_EQ(Ids(*v2)[0], "p1");
}

TEST_F(TableTest, DeleteWithInvalidPredicateIsRefused) {
  Dataset v1 = CreatePeople(3);
  EXPECT_EQ(StageDelete(v1, Predicate::Eq("nope", I(1))).status().message(), "predicate names unknown column 'nope'");
  EXPECT_EQ(StageDelete(v1, Predicate::Eq("age", S("x"))).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(TableTest, StrictMergeInsertRefusesExistingKeys) {
  Dataset v1 = CreatePeople(3);
  MergeInsertOptions strict;
  strict.mode = MergeInsertMode::kStrictInsert;
  auto conflict = StageMergeInsert(v1, {People(2, 2)}, strict);
  ASSERT_EQ(conflict.status().code(), ErrorCode::kKeyConflict);
  EXPECT_EQ(conflict.status().message(), "key 'p2' already exists in column 'id' of 'people.lance'");
  EXPECT_EQ(conflict.status().details().at("key"), "p2");
  EXPECT_EQ(conflict.status().http_status(), 409);
  auto fresh = StageMergeInsert(v1, {People(3, 2)}, strict);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->rows_inserted, 2u);
  auto v2 = CommitDetached(*fresh);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(Ids(*v2), (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4"}));
  EXPECT_EQ(v2->ReadTransaction()->OperationName(), "Update");
}

TEST_F(TableTest, UpsertReplacesMatchedRowsAndInsertsTheRest) {
  Dataset v1 = CreatePeople(4);
  auto schema = PeopleSchemaPtr();
  auto input = testing::MakeBatch(schema, {{S("p1"), I(100), D(1.5)}, {S("p9"), I(9), N()}});
  auto staged = StageMergeInsert(v1, {input}, MergeInsertOptions{});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  EXPECT_EQ(staged->rows_updated, 1u);
  EXPECT_EQ(staged->rows_inserted, 1u);
  auto v2 = CommitLinear(*staged);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(testing::RowsToString(ReadAll(*v2)),
            "[\"p0\", 0, null]\n[\"p2\", 2, 1]\n[\"p3\", 3, 1.5]\n[\"p1\", 100, 1.5]\n[\"p9\", 9, null]\n");
  // Upserting the same keys again replaces the new copies.
  auto v3 = CommitLinear(*StageMergeInsert(*v2, {testing::MakeBatch(schema, {{S("p1"), I(101), N()}})}, {}));
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->CountRows(), 5u);
  EXPECT_EQ(*v3->CountRows(Predicate::Eq("age", I(101))), 1u);
  EXPECT_EQ(*v3->CountRows(Predicate::Eq("age", I(100))), 0u);
}

TEST_F(TableTest, MergeInsertRejectsBadInputBeforeAnyEffect) {
  Dataset v1 = CreatePeople(2);
  auto schema = PeopleSchemaPtr();
  auto dup = testing::MakeBatch(schema, {{S("x"), I(1), N()}, {S("x"), I(2), N()}});
  auto r = StageMergeInsert(v1, {dup}, {});
  EXPECT_EQ(r.status().message(), "merge-insert input repeats key 'x' in column 'id'");
  MergeInsertOptions bad_key;
  bad_key.key_column = "missing";
  EXPECT_EQ(StageMergeInsert(v1, {People(5, 1)}, bad_key).status().code(), ErrorCode::kInvalidArgument);
  MergeInsertOptions float_key;
  float_key.key_column = "score";
  EXPECT_EQ(StageMergeInsert(v1, {People(5, 1)}, float_key).status().message(),
            "merge-insert key column 'score' has type float64, which cannot be a key");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/people.lance/_deletions"));
}

TEST_F(TableTest, AppendRejectsMismatchedBatches) {
  Dataset v1 = CreatePeople(1);
  auto other = std::make_shared<const Schema>(std::vector<Field>{Field("id", DataType::Utf8(), false),
                                                                 Field("age", DataType::Int32())});
  auto batch = testing::MakeBatch(other, {{S("a"), I(1)}});
  auto r = StageAppend(v1, {batch});
  EXPECT_EQ(r.status().message(), "batch 0: batch has 2 columns, the dataset has 3");
}

TEST_F(TableTest, AddColumnsIsMetadataOnly) {
  Dataset v1 = CreatePeople(3);
  auto staged = StageAddColumns(v1, {Field("email", DataType::Utf8()),
                                     Field("tags", DataType::List(DataType::Utf8()))});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  EXPECT_TRUE(staged->written_files.empty());
  auto v2 = CommitDetached(*staged);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->schema()->field(3).id, 3);
  EXPECT_EQ(v2->schema()->field(4).id, 4);
  EXPECT_EQ(v2->schema()->field(4).type->item().id, 5);
  ScanOptions scan;
  scan.columns = {"id", "email", "tags"};
  EXPECT_EQ(testing::RowsToString(ReadAll(*v2, scan)), "[\"p0\", null, null]\n[\"p1\", null, null]\n[\"p2\", null, null]\n");
  EXPECT_EQ(v2->manifest().fragments, v1.manifest().fragments);
  // New rows carry the new columns.
  auto schema = v2->schema();
  auto batch = testing::MakeBatch(schema, {{S("p9"), I(9), N(), S("a@b"), testing::L({S("x")})}});
  auto v3 = CommitDetached(*StageAppend(*v2, {batch}));
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  scan.filter = Predicate::IsNotNull("email");
  EXPECT_EQ(testing::RowsToString(ReadAll(*v3, scan)), "[\"p9\", \"a@b\", [\"x\"]]\n");
  EXPECT_EQ(StageAddColumns(v1, {Field("id", DataType::Utf8())}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(StageAddColumns(v1, {Field("x", DataType::Utf8(), false)}).status().message(),
            "new column 'x' must be nullable: existing rows have no value");
}

TEST_F(TableTest, ProjectRenamesAndDropsWithoutTouchingData) {
  Dataset v1 = CreatePeople(3);
  auto v2 = CommitDetached(*StageProject(v1, {{"age", "years"}}, {"score"}));
  ASSERT_TRUE(v2.ok());
  ASSERT_EQ(v2->schema()->num_fields(), 2);
  EXPECT_EQ(v2->schema()->field(1).name, "years");
  EXPECT_EQ(v2->schema()->field(1).id, 1);
  EXPECT_EQ(testing::RowsToString(ReadAll(*v2)), "[\"p0\", 0]\n[\"p1\", 1]\n[\"p2\", 2]\n");
  // A column added after a drop never reuses the dropped id.
  auto v3 = CommitDetached(*StageAddColumns(*v2, {Field("score", DataType::Float64())}));
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->schema()->field(2).id, 3);
  ScanOptions scan;
  scan.columns = {"score"};
  EXPECT_EQ(testing::RowsToString(ReadAll(*v3, scan)), "[null]\n[null]\n[null]\n");
  EXPECT_EQ(StageProject(v1, {}, {"id"}).status().message(), "cannot drop primary-key column 'id'");
  EXPECT_EQ(StageProject(v1, {{"age", "score"}}, {}).status().message(), "projection gives two columns the name 'score'");
  EXPECT_EQ(StageProject(v1, {{"nope", "x"}}, {}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(TableTest, RewriteCompactsFragmentsAndDropsDeletedRowsAndColumns) {
  Dataset v1 = CreatePeople(5);
  Dataset current = v1;
  for (int i = 0; i < 3; ++i) current = *CommitLinear(*StageAppend(current, {People(10 + i, 1)}));
  current = *CommitLinear(*StageDelete(current, Predicate::In("id", {S("p1"), S("p11")})));
  current = *CommitLinear(*StageProject(current, {}, {"score"}));
  ASSERT_EQ(current.manifest().fragments.size(), 3u);  // p11's fragment was dropped entirely
  auto staged = StageRewrite(current);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  auto compacted = CommitLinear(*staged);
  ASSERT_TRUE(compacted.ok());
  ASSERT_EQ(compacted->manifest().fragments.size(), 1u);
  const auto& fragment = compacted->manifest().fragments[0];
  EXPECT_EQ(fragment.physical_rows, 6u);
  EXPECT_FALSE(fragment.deletion_file.has_value());
  EXPECT_EQ(fragment.files[0].fields, (std::vector<int32_t>{0, 1}));  // the dropped column is gone
  EXPECT_EQ(fragment.id, 4u);  // ids are never reused
  EXPECT_EQ(Ids(*compacted), (std::vector<std::string>{"p0", "p2", "p3", "p4", "p10", "p12"}));
  EXPECT_EQ(StageRewrite(current, {99}).status().code(), ErrorCode::kNotFound);
}

TEST_F(TableTest, OverwriteReplacesRowsAndSchema) {
  Dataset v1 = CreatePeople(5);
  auto same = CommitLinear(*StageOverwrite(v1, {People(100, 2)}));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(Ids(*same), (std::vector<std::string>{"p100", "p101"}));
  Schema other({Field("k", DataType::Int64(), false), Field("v", DataType::Utf8())});
  auto batch = testing::MakeBatch(std::make_shared<const Schema>(other), {{I(1), S("one")}});
  auto replaced = CommitLinear(*StageOverwrite(*same, {batch}, other));
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->schema()->field(0).name, "k");
  EXPECT_EQ(replaced->schema()->field(0).id, 3);  // above every id the dataset used
  EXPECT_EQ(testing::RowsToString(ReadAll(*replaced)), "[1, \"one\"]\n");
}

TEST_F(TableTest, LargeAppendsSplitIntoFragments) {
  Dataset v1 = CreatePeople(0);
  StageOptions options;
  options.max_rows_per_file = 1000;
  auto v2 = CommitLinear(*StageAppend(v1, {People(0, 2500)}, options));
  ASSERT_TRUE(v2.ok());
  ASSERT_EQ(v2->manifest().fragments.size(), 3u);
  EXPECT_EQ(v2->manifest().fragments[2].physical_rows, 500u);
  EXPECT_EQ(v2->CountRows(), 2500u);
  EXPECT_EQ(*v2->CountRows(Predicate::StartsWith("id", "p24")), 111u);  // p24, p240-249, p2400-2499
}

}  // namespace operations_test
}  // namespace omnigraph::table
