#include "graph/table_data.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "graph/id_index.h"
#include "support/batches.h"

namespace omnigraph::graph {
namespace table_data_test {

using testing::I;
using testing::MakeBatch;
using testing::S;

TEST(IdIndexTest, FindsEveryInsertedIdAndNothingElse) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5000; ++i) ids.push_back("p" + std::to_string(i));
  IdIndex index;  // starts empty and grows
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_TRUE(index.Insert(ids[i], static_cast<int64_t>(i)));
  EXPECT_EQ(index.size(), 5000u);
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(index.Find(ids[i]), static_cast<int64_t>(i)) << ids[i];
  EXPECT_EQ(index.Find("p5000"), -1);
  EXPECT_EQ(index.Find(""), -1);
  EXPECT_EQ(index.Find("p"), -1);
}

TEST(IdIndexTest, FindManyEqualsFindForEveryKey) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3000; ++i) ids.push_back("id-" + std::to_string(i * 7));
  IdIndex index(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) index.Insert(ids[i], static_cast<int64_t>(i));
  std::vector<std::string> probes_text;
  for (int i = 0; i < 6000; ++i) probes_text.push_back("id-" + std::to_string(i * 7 / 2));
  std::vector<std::string_view> probes(probes_text.begin(), probes_text.end());
  std::vector<int64_t> rows;
  index.FindMany(probes, &rows);
  ASSERT_EQ(rows.size(), probes.size());
  int64_t hits = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(rows[i], index.Find(probes[i])) << probes[i];
    hits += rows[i] >= 0;
  }
  EXPECT_EQ(hits, 3000);
  IdIndex empty;
  empty.FindMany(probes, &rows);
  EXPECT_EQ(rows, std::vector<int64_t>(probes.size(), -1));
}

TEST(IdIndexTest, KeepsTheFirstRowOfADuplicateAndIndexesTheEmptyId) {
  IdIndex index(4);
  EXPECT_TRUE(index.Insert("a", 0));
  EXPECT_FALSE(index.Insert("a", 7));
  EXPECT_TRUE(index.Insert("", 1));
  EXPECT_EQ(index.Find("a"), 0);
  EXPECT_EQ(index.Find(""), 1);
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(IdIndex().Find("a"), -1);
}

SchemaPtr PersonSchema() {
  return std::make_shared<const Schema>(
      Schema({Field("id", DataType::Utf8(), false), Field("age", DataType::Int32())}));
}

// The first kScannedLookups lookups scan the id column, later ones build
// and use the index: every path must give the same rows.
TEST(TableDataTest, FirstLookupsByScanAgreeWithTheIndex) {
  SchemaPtr schema = PersonSchema();
  for (std::string_view first : {"b", "zz", "a"}) {
    auto data = std::make_shared<const TableData>(MakeBatch(schema, {{S("a"), I(1)}, {S("b"), I(2)}, {S("c"), I(3)}}));
    const int64_t expected = first == "a" ? 0 : first == "b" ? 1 : -1;
    for (int k = 0; k < kScannedLookups; ++k) {
      EXPECT_EQ(data->RowOf(k % 2 == 0 ? first : "c"), k % 2 == 0 ? expected : 2) << first;  // scans
    }
    EXPECT_FALSE(data->index_built());
    EXPECT_EQ(data->RowOf(first), expected) << first;  // index
    EXPECT_TRUE(data->index_built());
    EXPECT_EQ(data->RowOf("c"), 2);
    EXPECT_EQ(data->RowOf(""), -1);
  }
  // A batch of a few ids (none: an empty edge table) scans like RowOf; a
  // larger batch builds the index at once.
  auto data = std::make_shared<const TableData>(MakeBatch(schema, {{S("a"), I(1)}, {S("b"), I(2)}}));
  std::vector<int64_t> rows{7};
  data->RowsOf({}, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{}));
  EXPECT_FALSE(data->index_built());
  data->RowsOf({"b", "x"}, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{1, -1}));
  EXPECT_FALSE(data->index_built());
  data->RowsOf({"b", "x", "a", "a", "", "b"}, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{1, -1, 0, 0, -1, 1}));
  EXPECT_TRUE(data->index_built());
  EXPECT_EQ(data->RowOf("a"), 0);
}

TEST(TableDataTest, AppendedDataKeepsPrefixRowsAndIndexesNewOnes) {
  SchemaPtr schema = PersonSchema();
  auto base = std::make_shared<const TableData>(MakeBatch(schema, {{S("a"), I(1)}, {S("b"), I(2)}}));
  TableDataPtr one = TableData::Append(base, {MakeBatch(schema, {{S("c"), I(3)}})});
  ASSERT_NE(one, nullptr);
  TableDataPtr two = TableData::Append(one, {MakeBatch(schema, {{S("d"), I(4)}, {S("e"), I(5)}})});
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->num_rows(), 5);
  EXPECT_EQ(two->RowOf("a"), 0);
  EXPECT_EQ(two->RowOf("b"), 1);
  EXPECT_EQ(two->RowOf("c"), 2);
  EXPECT_EQ(two->RowOf("e"), 4);
  EXPECT_EQ(two->RowOf("z"), -1);
  EXPECT_EQ(one->RowOf("d"), -1);  // the older version does not see later rows
  std::vector<int64_t> rows;
  two->RowsOf({"e", "a", "zz", "c"}, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{4, 0, -1, 2}));
  EXPECT_EQ(testing::RowsToString(testing::Rows(*two->rows())),
            testing::RowsToString({{S("a"), I(1)}, {S("b"), I(2)}, {S("c"), I(3)}, {S("d"), I(4)}, {S("e"), I(5)}}));
  EXPECT_EQ(two->ids().GetView(3), "d");
  EXPECT_EQ(one->num_rows(), 3);
}

// A version derived from an indexed derived version copies that index and
// hashes only its own rows; forks of one base and bases already dropped
// must give the same rows as a full rebuild.
TEST(TableDataTest, DerivedVersionsExtendTheIndexOfTheirBase) {
  SchemaPtr schema = PersonSchema();
  auto stored = std::make_shared<const TableData>(MakeBatch(schema, {{S("a"), I(1)}}));
  TableDataPtr one = TableData::Append(stored, {MakeBatch(schema, {{S("b"), I(2)}})});
  EXPECT_EQ(one->RowOf("b"), 1);  // builds one's index
  TableDataPtr left = TableData::Append(one, {MakeBatch(schema, {{S("c"), I(3)}})});
  TableDataPtr right = TableData::Append(one, {MakeBatch(schema, {{S("d"), I(4)}}), MakeBatch(schema, {{S("c"), I(5)}})});
  EXPECT_EQ(left->RowOf("c"), 2);
  EXPECT_EQ(left->RowOf("d"), -1);
  EXPECT_EQ(left->RowOf("b"), 1);
  EXPECT_EQ(left->RowOf("a"), 0);
  EXPECT_EQ(right->RowOf("c"), 3);
  EXPECT_EQ(right->RowOf("d"), 2);
  EXPECT_EQ(right->RowOf("b"), 1);
  EXPECT_EQ(one->RowOf("c"), -1);  // the base saw none of its forks' rows
  // Three generations, the middle one dropped before the last indexes.
  TableDataPtr next = TableData::Append(left, {MakeBatch(schema, {{S("e"), I(6)}})});
  TableDataPtr last = TableData::Append(next, {MakeBatch(schema, {{S("f"), I(7)}})});
  next.reset();
  std::vector<int64_t> rows;
  last->RowsOf({"f", "e", "c", "b", "a", "d"}, &rows);
  EXPECT_EQ(rows, (std::vector<int64_t>{4, 3, 2, 1, 0, -1}));
}

TEST(TableDataTest, AppendRefusesOtherColumnsAndMaterializesLongTails) {
  SchemaPtr schema = PersonSchema();
  auto base = std::make_shared<const TableData>(MakeBatch(schema, {{S("a"), I(1)}}));
  auto other = std::make_shared<const Schema>(Schema({Field("id", DataType::Utf8(), false)}));
  EXPECT_EQ(TableData::Append(base, {MakeBatch(other, {{S("x")}})}), nullptr);

  std::vector<testing::Row> many;
  for (int i = 0; i <= kMaxAppendedRows; ++i) many.push_back({S("n" + std::to_string(i)), I(i)});
  TableDataPtr big = TableData::Append(base, {MakeBatch(schema, many)});
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->num_rows(), kMaxAppendedRows + 2);
  EXPECT_EQ(big->RowOf("n0"), 1);
  EXPECT_EQ(big->RowOf("a"), 0);
  EXPECT_EQ(big->RowOf(fmt::format("n{}", kMaxAppendedRows)), kMaxAppendedRows + 1);
}

}  // namespace table_data_test
}  // namespace omnigraph::graph
