#include <malloc.h>

#include "table_fixture.h"

namespace omnigraph::table {
namespace scan_test {

using testing::B;
using testing::D;
using testing::I;
using testing::L;
using testing::N;
using testing::S;

class ScanTest : public TableTest {
 protected:
  // name: utf8?, n: int64?, f: float32?, ok: bool?, tags: list<utf8>?
  Dataset MakeMixed() {
    Schema schema({Field("name", DataType::Utf8()), Field("n", DataType::Int64()), Field("f", DataType::Float32()),
                   Field("ok", DataType::Bool()), Field("tags", DataType::List(DataType::Utf8()))});
    schema.AssignMissingFieldIds();
    auto ptr = std::make_shared<const Schema>(schema);
    auto batch = testing::MakeBatch(ptr, {
                                             {S("alice"), I(30), D(1.5), B(true), L({S("a")})},
                                             {S("bob"), N(), D(2.5), B(false), L({})},
                                             {N(), I(10), N(), N(), N()},
                                             {S("alfred"), I(-5), D(-1), B(true), L({S("x"), S("y")})},
                                             {S(""), I(30), D(0), B(false), L({N()})},
                                         });
    return *Dataset::Create(store_, "mixed.lance", schema, {batch});
  }
  std::string Names(const Dataset& ds, Predicate p) {
    ScanOptions options;
    options.columns = {"name"};
    options.filter = std::move(p);
    return testing::RowsToString(ReadAll(ds, options));
  }
};

TEST_F(ScanTest, ComparisonsFollowSqlNullSemantics) {
  Dataset ds = MakeMixed();
  EXPECT_EQ(Names(ds, Predicate::Eq("n", I(30))), "[\"alice\"]\n[\"\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Ne("n", I(30))), "[null]\n[\"alfred\"]\n");  // bob's null n is unknown
  EXPECT_EQ(Names(ds, Predicate::Lt("n", I(10))), "[\"alfred\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Le("n", I(10))), "[null]\n[\"alfred\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Gt("f", D(1.5))), "[\"bob\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Ge("f", I(0))), "[\"alice\"]\n[\"bob\"]\n[\"\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Eq("ok", B(true))), "[\"alice\"]\n[\"alfred\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Gt("name", S("alfred"))), "[\"alice\"]\n[\"bob\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Eq("n", N())), "");  // = NULL is never true
  EXPECT_EQ(Names(ds, Predicate::IsNull("n")), "[\"bob\"]\n");
  EXPECT_EQ(Names(ds, Predicate::IsNull("tags")), "[null]\n");
  EXPECT_EQ(Names(ds, Predicate::IsNotNull("name")), "[\"alice\"]\n[\"bob\"]\n[\"alfred\"]\n[\"\"]\n");
}

TEST_F(ScanTest, InStartsWithAndBooleanCombinations) {
  Dataset ds = MakeMixed();
  EXPECT_EQ(Names(ds, Predicate::In("n", {I(10), I(-5), N()})), "[null]\n[\"alfred\"]\n");
  EXPECT_EQ(Names(ds, Predicate::In("name", {S("bob"), S("")})), "[\"bob\"]\n[\"\"]\n");
  EXPECT_EQ(Names(ds, Predicate::StartsWith("name", "al")), "[\"alice\"]\n[\"alfred\"]\n");
  EXPECT_EQ(Names(ds, Predicate::And(Predicate::StartsWith("name", "al"), Predicate::Gt("n", I(0)))), "[\"alice\"]\n");
  EXPECT_EQ(Names(ds, Predicate::Or(Predicate::IsNull("n"), Predicate::Lt("f", I(0)))), "[\"bob\"]\n[\"alfred\"]\n");
  // NOT of unknown stays unknown.
  EXPECT_EQ(Names(ds, Predicate::Not(Predicate::Eq("n", I(30)))), "[null]\n[\"alfred\"]\n");
  // Unknown OR true is true; unknown AND false is false.
  EXPECT_EQ(Names(ds, Predicate::Or(Predicate::Eq("n", I(1)), Predicate::Eq("name", S("bob")))), "[\"bob\"]\n");
  EXPECT_EQ(Predicate::And(Predicate::Eq("n", I(1)), Predicate::StartsWith("name", "o'k")).ToString(),
            "(n = 1 AND starts_with(name, 'o''k'))");
}

TEST_F(ScanTest, ProjectionOrderLimitRowAddressesAndBatches) {
  Dataset ds = MakeMixed();
  ScanOptions options;
  options.columns = {"n", "name"};
  options.with_row_address = true;
  options.batch_rows = 2;
  auto scanner = ds.Scan(options);
  ASSERT_TRUE(scanner.ok());
  EXPECT_EQ((*scanner)->schema()->field(0).name, "n");
  EXPECT_EQ((*scanner)->schema()->field(2).name, "_rowaddr");
  std::vector<int64_t> sizes;
  std::string all;
  while (true) {
    auto batch = (*scanner)->Next();
    ASSERT_TRUE(batch.ok());
    if (!*batch) break;
    sizes.push_back((*batch)->num_rows());
    all += testing::RowsToString(testing::Rows(**batch));
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(all, "[30, \"alice\", 0]\n[null, \"bob\", 1]\n[10, null, 2]\n[-5, \"alfred\", 3]\n[30, \"\", 4]\n");
  options.limit = 3;
  options.with_row_address = false;
  EXPECT_EQ(ReadAll(ds, options).size(), 3u);
  options.columns = {"missing"};
  EXPECT_EQ(ds.Scan(options).status().message(), "column 'missing' does not exist in 'mixed.lance'");
}

TEST_F(ScanTest, ScansRespectDeletionsAcrossFragments) {
  Dataset v1 = CreatePeople(3);
  Dataset v2 = *CommitLinear(*StageAppend(v1, {People(3, 3)}));
  Dataset v3 = *CommitLinear(*StageDelete(v2, Predicate::In("id", {S("p1"), S("p4")})));
  ScanOptions options;
  options.columns = {"id"};
  options.with_row_address = true;
  EXPECT_EQ(testing::RowsToString(ReadAll(v3, options)),
            "[\"p0\", 0]\n[\"p2\", 2]\n[\"p3\", 4294967296]\n[\"p5\", 4294967298]\n");
  options.fragment_ids = {1};
  EXPECT_EQ(ReadAll(v3, options).size(), 2u);
}

TEST_F(ScanTest, TenMillionRowScanStaysWithinBoundedMemory) {
  Schema schema({Field("v", DataType::Int64(), false)});
  schema.AssignMissingFieldIds();
  auto ptr = std::make_shared<const Schema>(schema);
  auto ds = Dataset::Create(store_, "big.lance", schema);
  ASSERT_TRUE(ds.ok());
  constexpr int64_t kRows = 10'000'000;
  constexpr int64_t kBatch = 1'000'000;
  std::vector<RecordBatchPtr> batches;
  Dataset current = *ds;
  for (int64_t start = 0; start < kRows; start += kBatch) {
    Int64Builder b(DataType::Int64());
    b.Reserve(kBatch);
    for (int64_t i = start; i < start + kBatch; ++i) b.Append(i);
    auto batch = *RecordBatch::Make(ptr, {b.Finish()});
    StageOptions options;
    options.max_rows_per_file = 5'000'000;
    current = *CommitLinear(*StageAppend(current, {batch}, options));
  }
  ASSERT_EQ(current.CountRows(), static_cast<uint64_t>(kRows));
  // Live heap bytes (not RSS, which keeps freed pages): what the scan holds.
  auto heap_in_use = [] {
    struct mallinfo2 info = mallinfo2();
    return static_cast<int64_t>(info.uordblks + info.hblkhd);
  };
  int64_t baseline = heap_in_use();
  int64_t peak = baseline;
  ScanOptions options;
  options.batch_rows = 64 * 1024;
  auto scanner = current.Scan(options);
  ASSERT_TRUE(scanner.ok());
  int64_t rows = 0, sum_check = 0;
  while (true) {
    auto batch = (*scanner)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    const int64_t* v = (*batch)->column(0)->raw_values<int64_t>();
    for (int64_t i = 0; i < (*batch)->num_rows(); ++i) sum_check += (v[i] == rows + i) ? 0 : 1;
    rows += (*batch)->num_rows();
    peak = std::max(peak, heap_in_use());
  }
  EXPECT_EQ(rows, kRows);
  EXPECT_EQ(sum_check, 0);
  // 10M rows are 80 MB of values; the scan may hold a few pages and batches
  // but never the whole column.
  EXPECT_LT(peak - baseline, 48 << 20) << "bytes of heap held by the scan";
}

TEST(Predicate, ValidateRejectsTypeMismatches) {
  Schema schema({Field("n", DataType::Int64()), Field("s", DataType::Utf8()),
                 Field("l", DataType::List(DataType::Int32()))});
  EXPECT_TRUE(Predicate::Eq("n", I(1)).Validate(schema).ok());
  EXPECT_TRUE(Predicate::Eq("n", D(1.5)).Validate(schema).ok());
  EXPECT_EQ(Predicate::Eq("n", S("1")).Validate(schema).message(), "cannot compare column 'n' of type int64 with \"1\"");
  EXPECT_EQ(Predicate::StartsWith("n", "1").Validate(schema).message(), "starts_with needs a string column, 'n' is int64");
  EXPECT_FALSE(Predicate::Eq("l", I(1)).Validate(schema).ok());
  EXPECT_FALSE(Predicate::In("s", {I(1)}).Validate(schema).ok());
  EXPECT_TRUE(Predicate::IsNull("l").Validate(schema).ok());
}

// Numbers compare by exact value across kinds: an integer literal is not
// rounded to the double nearest to it (2^53 + 1 is not the double 2^53),
// and an IN list holds each number at its exact value.
TEST(Predicate, NumbersCompareByExactValueAcrossKinds) {
  Schema schema({Field("d", DataType::Float64()), Field("u", DataType::UInt64()), Field("i", DataType::Int32())});
  schema.AssignMissingFieldIds();
  auto ptr = std::make_shared<const Schema>(schema);
  auto batch = testing::MakeBatch(ptr, {
                                           {D(9007199254740992.0), Scalar::UInt(10000000000000000000ULL), I(2)},
                                           {D(2.5), Scalar::UInt(3), I(3)},
                                       });
  auto selected = [&](const Predicate& p) {
    Result<std::vector<int64_t>> rows = p.Select(*batch);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<int64_t>{-1};
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(selected(Predicate::Eq("d", I(9007199254740993))), V{});
  EXPECT_EQ(selected(Predicate::Lt("d", I(9007199254740993))), (V{0, 1}));
  EXPECT_EQ(selected(Predicate::Eq("d", I(9007199254740992))), V{0});
  EXPECT_EQ(selected(Predicate::In("d", {I(9007199254740993)})), V{});
  EXPECT_EQ(selected(Predicate::In("d", {I(9007199254740992), D(2.5)})), (V{0, 1}));
  EXPECT_EQ(selected(Predicate::In("u", {D(1e19)})), V{0});
  EXPECT_EQ(selected(Predicate::In("u", {D(3.5), I(-3)})), V{});
  EXPECT_EQ(selected(Predicate::Eq("i", D(2.5))), V{});
  EXPECT_EQ(selected(Predicate::Lt("i", D(2.5))), V{0});
  EXPECT_EQ(selected(Predicate::Eq("i", I(4294967298))), V{});
  EXPECT_EQ(selected(Predicate::In("i", {D(3.0)})), V{1});
}

}  // namespace scan_test
}  // namespace omnigraph::table
