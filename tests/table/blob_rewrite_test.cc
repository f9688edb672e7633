// Compaction keeps NULL and empty LargeBinary cells distinct (shared case
// maintenance/B15; lance #8069: a rewrite after deleting a row with a NULL
// blob wrote the surviving NULL cells back as empty values).
#include "table_fixture.h"

namespace omnigraph::table {
namespace blob_rewrite_test {

using testing::N;
using testing::S;

class BlobRewriteTest : public TableTest {
 protected:
  static Schema DocSchema() {
    Field id("id", DataType::Utf8(), false);
    id.unenforced_primary_key = true;
    return Schema({id, Field("doc", DataType::LargeBinary())});
  }
  static RecordBatchPtr Docs(const std::vector<testing::Row>& rows) {
    Schema s = DocSchema();
    s.AssignMissingFieldIds();
    return testing::MakeBatch(std::make_shared<const Schema>(s), rows);
  }
};

TEST_F(BlobRewriteTest, RewriteKeepsNullAndEmptyBinaryCellsApart) {
  // Two fragments mixing NULL, empty and non-empty cells, including a
  // fragment whose surviving cells are all NULL or empty.
  auto v1 = Dataset::Create(store_, "docs.lance", DocSchema(),
                            {Docs({{S("d0"), N()}, {S("d1"), S("")}, {S("d2"), S("hi")}, {S("d3"), N()}})});
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  auto v2 = CommitLinear(*StageAppend(*v1, {Docs({{S("d4"), N()}, {S("d5"), S("")}, {S("d6"), N()}})}));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  // Delete NULL-blob rows in both fragments, as B15 does before optimize.
  auto v3 = CommitLinear(*StageDelete(*v2, Predicate::In("id", {S("d0"), S("d6")})));
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  const std::string expected = "[\"d1\", \"\"]\n[\"d2\", \"hi\"]\n[\"d3\", null]\n[\"d4\", null]\n[\"d5\", \"\"]\n";
  ASSERT_EQ(testing::RowsToString(ReadAll(*v3)), expected);

  auto staged = StageRewrite(*v3);
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  auto compacted = CommitLinear(*staged);
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_EQ(compacted->manifest().fragments.size(), 1u);
  EXPECT_FALSE(compacted->manifest().fragments[0].deletion_file.has_value());
  EXPECT_EQ(testing::RowsToString(ReadAll(*compacted)), expected);

  // The cells themselves: validity and length, not only their rendering.
  auto batch = compacted->ToBatch(ScanOptions{});
  ASSERT_TRUE(batch.ok());
  const Array& doc = *(*batch)->GetColumn("doc");
  ASSERT_EQ(doc.length(), 5);
  EXPECT_FALSE(doc.IsNull(0));
  EXPECT_EQ(doc.GetView(0).size(), 0u);
  EXPECT_EQ(doc.GetView(1), "hi");
  EXPECT_TRUE(doc.IsNull(2));
  EXPECT_TRUE(doc.IsNull(3));
  EXPECT_FALSE(doc.IsNull(4));
  EXPECT_EQ(doc.GetView(4).size(), 0u);
  EXPECT_EQ(doc.null_count(), 2);

  // A second rewrite of an all-NULL/empty fragment keeps them too.
  auto v5 = CommitLinear(*StageDelete(*compacted, Predicate::In("id", {S("d2")})));
  ASSERT_TRUE(v5.ok());
  auto again = CommitLinear(*StageRewrite(*v5));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(testing::RowsToString(ReadAll(*again)), "[\"d1\", \"\"]\n[\"d3\", null]\n[\"d4\", null]\n[\"d5\", \"\"]\n");
}

}  // namespace blob_rewrite_test
}  // namespace omnigraph::table
