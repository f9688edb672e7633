// Bad input: truncated, bit-flipped and hand-edited manifests, data files,
// deletion files, transaction files and refs. Every mutation must give a
// typed error or exactly the original rows: never a crash, a hang or
// different values.
#include <filesystem>
#include <fstream>
#include <random>

#include "lance/data_file.h"
#include "lance/manifest.h"
#include "lance/versioning.h"
#include "table_fixture.h"

namespace omnigraph::table {
namespace corruption_test {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool IsTypedReadError(ErrorCode code) {
  return code == ErrorCode::kCorruptData || code == ErrorCode::kUnsupported || code == ErrorCode::kNotFound;
}

class CorruptionTest : public TableTest {
 protected:
  // A dataset whose latest version has two fragments, an Arrow deletion file,
  // a roaring deletion file, nested columns and a tag.
  void SetUp() override {
    TableTest::SetUp();
    Schema schema({Field("id", DataType::Int64(), false), Field("name", DataType::Utf8()),
                   Field("tags", DataType::List(DataType::Utf8())),
                   Field("vec", DataType::FixedSizeList(DataType::Float32(), 4)),
                   Field("st", DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Bool())}))});
    schema.AssignMissingFieldIds();
    auto ptr = std::make_shared<const Schema>(schema);
    auto rows = [&](int start, int count) {
      std::vector<testing::Row> out;
      for (int i = start; i < start + count; ++i) {
        out.push_back({testing::I(i), i % 4 == 0 ? testing::N() : testing::S("n" + std::to_string(i)),
                       i % 3 == 0 ? testing::L({}) : testing::L({testing::S("t"), testing::N()}),
                       testing::L({testing::D(i), testing::D(1), testing::D(2), testing::D(3)}),
                       i % 5 == 0 ? testing::N() : testing::L({testing::I(i), testing::B(i % 2 == 0)})});
      }
      return testing::MakeBatch(ptr, out);
    };
    Dataset v1 = *Dataset::Create(store_, "c.lance", schema, {rows(0, 6000)});
    Dataset v2 = *CommitLinear(*StageAppend(v1, {rows(6000, 300)}));
    Dataset v3 = *CommitLinear(*StageDelete(v2, Predicate::Lt("id", testing::I(5200))));  // bitmap
    Dataset v4 = *CommitLinear(*StageDelete(v3, Predicate::In("id", {testing::I(6001), testing::I(6007)})));  // arrow
    ASSERT_TRUE(v4.CreateTag("t", 4).ok());
    expected_ = testing::RowsToString(ReadAll(v4));
    ASSERT_EQ(v4.CountRows(), 6300u - 5200u - 2u);
  }

  // Opens the latest version (or the tag) and scans every row.
  Status ReadBack(std::string* rows) {
    auto ds = Dataset::Open(store_, "c.lance", use_tag_ ? VersionRef::Tag("t") : VersionRef::Latest());
    if (!ds.ok()) return ds.status();
    auto batch = ds->ToBatch({});
    if (!batch.ok()) return batch.status();
    auto txn = ds->ReadTransaction();
    if (!txn.ok()) return txn.status();
    *rows = testing::RowsToString(testing::Rows(**batch));
    return Status::OK();
  }

  // Applies `mutations` to `file` one at a time, restoring it after each.
  void Mutate(const fs::path& file, int flips, bool truncations) {
    std::string original = ReadFile(file);
    std::mt19937_64 rng(std::hash<std::string>()(file.filename().string()));
    std::vector<std::string> variants;
    if (truncations) {
      for (size_t len : {size_t{0}, size_t{1}, original.size() / 2, original.size() - 1, original.size() - 17}) {
        if (len < original.size()) variants.push_back(original.substr(0, len));
      }
    }
    for (int i = 0; i < flips; ++i) {
      std::string flipped = original;
      size_t at = rng() % flipped.size();
      flipped[at] = static_cast<char>(flipped[at] ^ (1u << (rng() % 8)));
      variants.push_back(std::move(flipped));
    }
    for (const std::string& bytes : variants) {
      WriteFile(file, bytes);
      std::string rows;
      Status st = ReadBack(&rows);
      if (st.ok()) {
        // Compare without printing megabytes of rows on failure.
        EXPECT_TRUE(rows == expected_) << "mutation of " << file << " changed the values without an error";
      } else {
        EXPECT_TRUE(IsTypedReadError(st.code())) << file << ": " << st.ToString();
        // Corruption names the damaged file; NotFound names the file that a
        // damaged reference pointed to.
        if (st.code() != ErrorCode::kNotFound) {
          EXPECT_NE(st.message().find(file.filename().string().substr(0, 8)), std::string::npos)
              << "error does not name the file " << file << ": " << st.ToString();
        }
      }
      ++mutations_;
    }
    WriteFile(file, original);
  }

  std::string expected_;
  bool use_tag_ = false;
  int mutations_ = 0;
};

TEST_F(CorruptionTest, HundredsOfMutationsGiveTypedErrorsOrExactRows) {
  fs::path root = fs::path(dir_.path()) / "c.lance";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string name = entry.path().filename().string();
    if (name == "latest_version_hint.json") continue;
    bool big = entry.file_size() > 4096;
    Mutate(entry.path(), big ? 40 : 25, true);
    ++files;
  }
  EXPECT_GE(files, 10);
  EXPECT_GE(mutations_, 300);
  std::string rows;
  ASSERT_TRUE(ReadBack(&rows).ok());
  EXPECT_EQ(rows, expected_);
}

TEST_F(CorruptionTest, TagRecordMutationsAreTyped) {
  use_tag_ = true;
  Mutate(fs::path(dir_.path()) / "c.lance/_refs/tags/t.json", 40, true);
  WriteFile(fs::path(dir_.path()) / "c.lance/_refs/tags/t.json", R"({"branch":null,"version":99})");
  std::string rows;
  Status st = ReadBack(&rows);
  EXPECT_EQ(st.code(), ErrorCode::kNotFound);
  EXPECT_EQ(st.message(), "version 99 of dataset 'c.lance' does not exist");
}

TEST_F(CorruptionTest, MissingFilesAreNotFoundNamingTheFile) {
  fs::path root = fs::path(dir_.path()) / "c.lance";
  for (const char* dir : {"data", "_deletions"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      fs::path moved = entry.path().string() + ".away";
      fs::rename(entry.path(), moved);
      std::string rows;
      Status st = ReadBack(&rows);
      EXPECT_EQ(st.code(), ErrorCode::kNotFound) << st.ToString();
      EXPECT_NE(st.message().find(entry.path().filename().string()), std::string::npos) << st.ToString();
      fs::rename(moved, entry.path());
    }
  }
}

// Two intact data files of the same shape, swapped: each would decode, but
// as the other fragment's rows. The descriptor checksum is seeded by the
// file's name, so each is refused under the other's name.
TEST_F(CorruptionTest, SwappedDataFilesAreCorruptNotAnotherFragmentsRows) {
  SchemaPtr schema = PeopleSchemaPtr();
  Dataset one = *Dataset::Create(store_, "s.lance", *schema, {People(1, 1)});
  ASSERT_TRUE(CommitLinear(*StageAppend(one, {People(2, 1)})).ok());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(dir_.path()) / "s.lance" / "data")) files.push_back(entry);
  ASSERT_EQ(files.size(), 2u);
  std::string first = ReadFile(files[0]), second = ReadFile(files[1]);
  ASSERT_EQ(first.size(), second.size());
  WriteFile(files[0], second);
  WriteFile(files[1], first);
  auto swapped = Dataset::Open(store_, "s.lance", VersionRef::Latest());
  ASSERT_TRUE(swapped.ok()) << swapped.status().ToString();
  auto rows = swapped->ToBatch({});
  ASSERT_EQ(rows.status().code(), ErrorCode::kCorruptData) << rows.status().ToString();
  EXPECT_NE(rows.status().message().find("another data file under this name"), std::string::npos)
      << rows.status().ToString();
}

// A data file under the right name but without a field the manifest says it
// holds (written by a faulty writer, say) is corrupt data, not a missing
// object: "not found" would be reported as a version reclaimed by cleanup.
TEST_F(CorruptionTest, ADataFileLackingAListedFieldIsCorrupt) {
  SchemaPtr schema = PeopleSchemaPtr();
  ASSERT_TRUE(Dataset::Create(store_, "m.lance", *schema, {People(1, 3)}).ok());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(dir_.path()) / "m.lance" / "data")) files.push_back(entry);
  ASSERT_EQ(files.size(), 1u);
  auto id_only = std::make_shared<const Schema>(std::vector<Field>{schema->field(0)});
  fs::remove(files[0]);
  auto writer = lance::DataFileWriter::Open(store_.get(), "m.lance/data/" + files[0].filename().string(), id_only);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Write(*testing::MakeBatch(id_only, {{testing::S("p1")}, {testing::S("p2")}, {testing::S("p3")}})).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto rows = Dataset::Open(store_, "m.lance", VersionRef::Latest())->ToBatch({});
  ASSERT_EQ(rows.status().code(), ErrorCode::kCorruptData) << rows.status().ToString();
  EXPECT_NE(rows.status().message().find("the data file lacks field 'age', which the manifest lists"),
            std::string::npos)
      << rows.status().ToString();
}

TEST_F(CorruptionTest, UnknownFeatureFlagsAreRefusedByName) {
  auto latest = Dataset::Open(store_, "c.lance");
  ASSERT_TRUE(latest.ok());
  lance::Manifest m = latest->manifest();
  m.version = 5;
  m.reader_feature_flags |= 2048;  // managed blobs
  std::string bytes = *lance::EncodeManifestFile(m, "");
  ASSERT_TRUE(store_->PutIfAbsent("c.lance/_versions/" + lance::ManifestFileName(5), bytes).ok());
  auto opened = Dataset::Open(store_, "c.lance");
  ASSERT_EQ(opened.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(opened.status().message().find("reader feature flags 0x800 are not supported"), std::string::npos);
  // Writer-only flags let readers in but stop commits.
  m.version = 6;
  m.reader_feature_flags &= ~uint64_t{2048};
  m.writer_feature_flags |= 4096;
  ASSERT_TRUE(store_->PutIfAbsent("c.lance/_versions/" + lance::ManifestFileName(6), *lance::EncodeManifestFile(m, "")).ok());
  auto v6 = Dataset::Open(store_, "c.lance");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  auto staged = StageDelete(*v6, Predicate::Eq("id", testing::I(6100)));
  ASSERT_TRUE(staged.ok());
  auto commit = CommitLinear(*staged);
  EXPECT_EQ(commit.status().code(), ErrorCode::kUnsupported);
}

}  // namespace corruption_test
}  // namespace omnigraph::table
