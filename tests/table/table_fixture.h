// Shared fixture for table-layer tests: a temporary LocalStore and a small
// "people" dataset schema (id Utf8 primary key, age Int64?, score Float64?).
#pragma once

#include <gtest/gtest.h>

#include "io/local_store.h"
#include "support/batches.h"
#include "support/temp_dir.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/scanner.h"
#include "table/staging.h"

namespace omnigraph::table {

class TableTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = LocalStore::Make(dir_.path()); }

  static Schema PeopleSchema() {
    Field id("id", DataType::Utf8(), false);
    id.unenforced_primary_key = true;
    return Schema({id, Field("age", DataType::Int64()), Field("score", DataType::Float64())});
  }
  static SchemaPtr PeopleSchemaPtr() {
    Schema s = PeopleSchema();
    s.AssignMissingFieldIds();
    return std::make_shared<const Schema>(s);
  }
  // Rows p<start> .. p<start+count-1>, age = i, score = i / 2 (null when i % 5 == 0).
  static RecordBatchPtr People(int start, int count) {
    std::vector<testing::Row> rows;
    for (int i = start; i < start + count; ++i) {
      rows.push_back({testing::S("p" + std::to_string(i)), testing::I(i),
                      i % 5 == 0 ? testing::N() : testing::D(i / 2.0)});
    }
    return testing::MakeBatch(PeopleSchemaPtr(), rows);
  }

  Dataset CreatePeople(int count) {
    auto ds = Dataset::Create(store_, "people.lance", PeopleSchema(), {People(0, count)});
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return *ds;
  }

  // Every live row, all columns, in scan order.
  static std::vector<testing::Row> ReadAll(const Dataset& ds, ScanOptions options = {}) {
    auto batch = ds.ToBatch(options);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? testing::Rows(**batch) : std::vector<testing::Row>{};
  }
  static std::vector<std::string> Ids(const Dataset& ds, ScanOptions options = {}) {
    options.columns = {"id"};
    std::vector<std::string> ids;
    for (const auto& row : ReadAll(ds, options)) ids.push_back(row[0].string_value());
    return ids;
  }

  testing::TempDir dir_;
  std::shared_ptr<LocalStore> store_;
};

}  // namespace omnigraph::table
