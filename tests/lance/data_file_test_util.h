// Helpers shared by the data-file tests: an in-memory RandomAccessObject,
// random column generators, and write/read round trips through LocalStore.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "columnar/builder.h"
#include "columnar/record_batch.h"
#include "columnar/scalar.h"
#include "io/local_store.h"
#include "lance/data_file.h"
#include "support/temp_dir.h"

namespace omnigraph::lance::testing {

// A file held in memory; ReadAt fails past the end like LocalStore.
class MemoryObject final : public RandomAccessObject {
 public:
  MemoryObject(std::string bytes, std::string path = "mem.lance") : bytes_(std::move(bytes)), path_(std::move(path)) {}
  uint64_t size() const override { return bytes_.size(); }
  const std::string& path() const override { return path_; }
  Result<BufferPtr> ReadAt(uint64_t offset, uint64_t length) override {
    ++reads_;
    if (offset > bytes_.size() || length > bytes_.size() - offset) {
      return CorruptData(fmt::format("'{}': range [{}, +{}) is past the end", path_, offset, length));
    }
    return BufferPtr(Buffer::FromString(std::string_view(bytes_).substr(offset, length)));
  }
  int reads() const { return reads_; }

 private:
  std::string bytes_;
  std::string path_;
  int reads_ = 0;
};

inline SchemaPtr MakeSchema(std::vector<Field> fields) {
  Schema schema(std::move(fields));
  schema.AssignMissingFieldIds();
  return std::make_shared<const Schema>(std::move(schema));
}

// Random scalars of `type`; nulls with probability `null_rate` where the
// field is nullable. Lists have 0..max_list items.
class RandomValues {
 public:
  explicit RandomValues(uint32_t seed) : rng_(seed) {}

  Scalar Value(const DataTypePtr& type, bool nullable, double null_rate, int max_list = 4) {
    if (nullable && Chance(null_rate)) return Scalar::Null();
    switch (type->id()) {
      case TypeId::kBool: return Scalar::Bool(rng_() & 1);
      case TypeId::kInt32: return Scalar::Int(static_cast<int32_t>(rng_()));
      case TypeId::kDate32: return Scalar::Int(static_cast<int32_t>(rng_() % 40000) - 10000);
      case TypeId::kInt64: return Scalar::Int(static_cast<int64_t>(rng_()));
      case TypeId::kDate64: return Scalar::Int(static_cast<int64_t>(rng_() % 4000000000000ull) - 1000000000000ll);
      case TypeId::kUInt32: return Scalar::UInt(static_cast<uint32_t>(rng_()));
      case TypeId::kUInt64: return Scalar::UInt(rng_());
      case TypeId::kFloat32:
        return Scalar::Double(static_cast<float>(static_cast<int64_t>(rng_() % 2000001) - 1000000) / 8.0f);
      case TypeId::kFloat64: return Scalar::Double(static_cast<double>(static_cast<int64_t>(rng_())) / 3.0);
      case TypeId::kUtf8:
      case TypeId::kLargeBinary: {
        size_t n = rng_() % 24;
        std::string s(n, ' ');
        for (char& c : s) c = static_cast<char>(type->id() == TypeId::kUtf8 ? 'a' + rng_() % 26 : rng_() & 0xFF);
        return Scalar::String(std::move(s));
      }
      case TypeId::kList: {
        int n = static_cast<int>(rng_() % static_cast<uint64_t>(max_list + 1));
        std::vector<Scalar> items;
        for (int i = 0; i < n; ++i)
          items.push_back(Value(type->item().type, type->item().nullable, null_rate, max_list));
        return Scalar::Nested(std::move(items));
      }
      case TypeId::kFixedSizeList: {
        std::vector<Scalar> items;
        for (int i = 0; i < type->list_size(); ++i) {
          items.push_back(Value(type->item().type, type->item().nullable, null_rate, max_list));
        }
        return Scalar::Nested(std::move(items));
      }
      case TypeId::kStruct: {
        std::vector<Scalar> members;
        for (const Field& f : type->children()) members.push_back(Value(f.type, f.nullable, null_rate, max_list));
        return Scalar::Nested(std::move(members));
      }
    }
    return Scalar::Null();
  }

  ArrayPtr Column(const Field& field, int64_t rows, double null_rate, int max_list = 4) {
    std::vector<Scalar> values;
    values.reserve(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) values.push_back(Value(field.type, field.nullable, null_rate, max_list));
    auto array = ArrayFromScalars(field.type, values);
    EXPECT_TRUE(array.ok()) << array.status().ToString();
    return *array;
  }

  RecordBatchPtr Batch(const SchemaPtr& schema, int64_t rows, double null_rate, int max_list = 4) {
    std::vector<ArrayPtr> columns;
    for (const Field& f : schema->fields()) columns.push_back(Column(f, rows, null_rate, max_list));
    return std::make_shared<const RecordBatch>(schema, rows, std::move(columns));
  }

  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

inline ArrayPtr FromScalars(const DataTypePtr& type, const std::vector<Scalar>& values) {
  auto array = ArrayFromScalars(type, values);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return array.ok() ? *array : nullptr;
}

// The name MemoryObject gives a file unless told otherwise.
inline constexpr const char* kMemoryFileName = "mem.lance";

// Writes `batches` to a data file named `name` (its descriptor checksum is
// seeded by the name, so it reads back only under that name) and returns
// its bytes.
inline std::string WriteBytes(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                              DataFileWriterOptions options = {}, WrittenDataFile* written = nullptr,
                              const std::string& name = kMemoryFileName) {
  omnigraph::testing::TempDir dir;
  LocalStore store(dir.path());
  auto writer = DataFileWriter::Open(&store, name, schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return {};
  for (const auto& batch : batches) {
    Status st = (*writer)->Write(*batch);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto done = (*writer)->Finish();
  EXPECT_TRUE(done.ok()) << done.status().ToString();
  if (written != nullptr && done.ok()) *written = *done;
  auto bytes = store.Get(name);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? std::string((*bytes)->view()) : std::string();
}

inline std::unique_ptr<DataFileReader> OpenBytes(const std::string& bytes) {
  auto reader = DataFileReader::Open(std::make_unique<MemoryObject>(bytes));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? std::move(*reader) : nullptr;
}

// Expects `actual` to equal `expected`, with readable output on failure.
inline void ExpectArraysEqual(const ArrayPtr& expected, const ArrayPtr& actual, const std::string& what) {
  ASSERT_TRUE(actual != nullptr) << what;
  ASSERT_EQ(expected->length(), actual->length()) << what;
  ASSERT_TRUE(expected->type()->Equals(*actual->type()))
      << what << ": " << expected->type()->ToString() << " vs " << actual->type()->ToString();
  if (!expected->Equals(*actual)) {
    for (int64_t i = 0; i < expected->length(); ++i) {
      Scalar e = GetScalar(*expected, i), a = GetScalar(*actual, i);
      if (!(e == a)) {
        FAIL() << what << ": first difference at row " << i << ": expected " << e.ToString() << ", got "
               << a.ToString();
      }
    }
    FAIL() << what << ": arrays differ (validity or values under nulls)";
  }
}

// Reads every top-level field of `reader` in one window and compares it
// with the concatenated batches.
inline void ExpectFileHolds(DataFileReader* reader, const SchemaPtr& schema,
                            const std::vector<RecordBatchPtr>& batches) {
  RecordBatchPtr all = ConcatBatches(schema, batches);
  ASSERT_EQ(reader->num_rows(), static_cast<uint64_t>(all->num_rows()));
  for (int c = 0; c < schema->num_fields(); ++c) {
    auto read = reader->ReadField(schema->field(c).id, 0, reader->num_rows());
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectArraysEqual(all->column(c), *read, "field " + schema->field(c).name);
  }
}

}  // namespace omnigraph::lance::testing
