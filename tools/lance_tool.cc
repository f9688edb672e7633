// lance-tool: writes the C++ -> Lance interop fixtures and dumps datasets as
// JSON lines, for the interop tests in tests/interop/ (issue: table store,
// "Interop with real Lance").
//
//   lance-tool write-fixtures DIR        datasets DIR/*.lance + DIR/expected.json
//   lance-tool write-blobs DIR           DIR/blobs.lance (a blob v2 column) + DIR/blobs.json
//   lance-tool dump DIR NAME [--version V] [--tag T] [--branch B] [--count]
//                                        rows of DIR/NAME.lance as JSON lines
//
// JSON conventions match what apache-arrow JS gives for the same values:
// int64/uint64 as decimal strings, Date32/Date64 as epoch milliseconds,
// LargeBinary as lower-case hex, FixedSizeList/List as arrays, Struct as an
// object. Exit status: 0 success, 3 typed error (stderr "error: <code>: ..."),
// 2 usage.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/blob_cell.h"
#include "columnar/builder.h"
#include "columnar/scalar.h"
#include "io/local_store.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/scanner.h"
#include "table/staging.h"

namespace omnigraph::tools {
namespace {

using nlohmann::json;
using table::Dataset;
using table::Predicate;
using table::VersionRef;

// ---------------------------------------------------------------- JSON of values

json CellJson(const Array& array, int64_t i) {
  if (array.IsNull(i)) return nullptr;
  switch (array.type_id()) {
    case TypeId::kBool: return array.BoolValue(i);
    case TypeId::kInt32: return array.Value<int32_t>(i);
    case TypeId::kUInt32: return array.Value<uint32_t>(i);
    case TypeId::kInt64: return std::to_string(array.Value<int64_t>(i));
    case TypeId::kUInt64: return std::to_string(array.Value<uint64_t>(i));
    case TypeId::kFloat32: return static_cast<double>(array.Value<float>(i));
    case TypeId::kFloat64: return array.Value<double>(i);
    case TypeId::kDate32: return static_cast<int64_t>(array.Value<int32_t>(i)) * 86'400'000;
    case TypeId::kDate64: return array.Value<int64_t>(i);
    case TypeId::kUtf8: return std::string(array.GetView(i));
    case TypeId::kLargeBinary: {
      std::string hex;
      for (unsigned char c : array.GetView(i)) hex += fmt::format("{:02x}", c);
      return hex;
    }
    case TypeId::kList: {
      json items = json::array();
      for (int64_t k = array.ValueOffset(i); k < array.ValueOffset(i + 1); ++k) items.push_back(CellJson(*array.child(0), k));
      return items;
    }
    case TypeId::kFixedSizeList: {
      json items = json::array();
      int64_t n = array.type()->list_size();
      for (int64_t k = i * n; k < (i + 1) * n; ++k) items.push_back(CellJson(*array.child(0), k));
      return items;
    }
    case TypeId::kStruct: {
      json object = json::object();
      for (size_t c = 0; c < array.children().size(); ++c) {
        object[array.type()->children()[c].name] = CellJson(*array.child(static_cast<int>(c)), i);
      }
      return object;
    }
  }
  return nullptr;
}

json RowJson(const RecordBatch& batch, int64_t r) {
  json row = json::object();
  for (int c = 0; c < batch.num_columns(); ++c) row[batch.schema()->field(c).name] = CellJson(*batch.column(c), r);
  return row;
}

Result<json> AllRows(const Dataset& ds) {
  OG_ASSIGN_OR_RETURN(auto scanner, ds.Scan({}));
  json rows = json::array();
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows(); ++r) rows.push_back(RowJson(*batch, r));
  }
  return rows;
}

// ---------------------------------------------------------------- fixtures

// A column of every supported type; row i's values are a function of i.
Schema TypesSchema() {
  Field id("id", DataType::Int64(), false);
  id.unenforced_primary_key = true;
  return Schema({id,
                 Field("b", DataType::Bool()),
                 Field("i32", DataType::Int32()),
                 Field("u32", DataType::UInt32()),
                 Field("u64", DataType::UInt64()),
                 Field("f32", DataType::Float32()),
                 Field("f64", DataType::Float64()),
                 Field("s", DataType::Utf8()),
                 Field("bin", DataType::LargeBinary()),
                 Field("d32", DataType::Date32()),
                 Field("d64", DataType::Date64()),
                 Field("tags", DataType::List(DataType::Int32())),
                 Field("names", DataType::List(DataType::Utf8())),
                 Field("vec", DataType::FixedSizeList(DataType::Float32(), 8)),
                 Field("st", DataType::Struct({Field("x", DataType::Int32()), Field("y", DataType::Utf8())}))});
}

std::vector<Scalar> TypesRow(int64_t i) {
  auto maybe = [](bool null, Scalar v) { return null ? Scalar() : std::move(v); };
  Scalar::List tags;
  for (int64_t k = 0; k < i % 4; ++k) tags.push_back(Scalar::Int(i * 10 + k));
  Scalar::List names;
  if (i % 4 != 1) {
    names.push_back(Scalar::String("a" + std::to_string(i)));
    names.push_back(i % 3 == 0 ? Scalar() : Scalar::String("b"));
  }
  Scalar::List vec;
  for (int k = 0; k < 8; ++k) vec.push_back(Scalar::Double(static_cast<double>(i) + k / 8.0));
  std::string bin = {static_cast<char>(i % 256), static_cast<char>((i * 7) % 256)};
  return {
      Scalar::Int(i),
      maybe(i % 11 == 0, Scalar::Bool(i % 2 == 0)),
      maybe(i % 7 == 0, Scalar::Int(i * 3 - 1000)),
      maybe(i % 13 == 0, Scalar::UInt(static_cast<uint64_t>(i) * 7)),
      maybe(i % 3 == 0, Scalar::UInt((uint64_t{1} << 63) + static_cast<uint64_t>(i))),
      maybe(i % 5 == 0, Scalar::Double(static_cast<double>(i) * 0.25)),
      maybe(i % 3 == 1, Scalar::Double(static_cast<double>(i) / 3.0)),
      maybe(i % 7 == 3, Scalar::String(i % 17 == 0 ? "" : "node-" + std::to_string(i))),
      maybe(i % 9 == 0, Scalar::String(bin)),
      maybe(i % 4 == 0, Scalar::Int(19000 + i)),
      maybe(i % 6 == 0, Scalar::Int(1'700'000'000'000 + i * 1000)),
      maybe(i % 5 == 0, Scalar::Nested(tags)),
      maybe(i % 6 == 0, Scalar::Nested(names)),
      maybe(i % 10 == 0, Scalar::Nested(vec)),
      maybe(i % 8 == 0, Scalar::Nested({i % 3 == 0 ? Scalar() : Scalar::Int(i), Scalar::String("y" + std::to_string(i))})),
  };
}

Result<RecordBatchPtr> TypesBatch(const SchemaPtr& schema, int64_t start, int64_t count) {
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const Field& f : schema->fields()) builders.push_back(ArrayBuilder::Make(f.type));
  for (int64_t i = start; i < start + count; ++i) {
    std::vector<Scalar> row = TypesRow(i);
    for (size_t c = 0; c < row.size(); ++c) OG_RETURN_IF_ERROR(builders[c]->AppendScalar(row[c]));
  }
  std::vector<ArrayPtr> columns;
  for (auto& b : builders) columns.push_back(b->Finish());
  return RecordBatch::Make(schema, std::move(columns));
}

json Check(std::string label, json ref, json rows) {
  return json{{"label", std::move(label)}, {"ref", std::move(ref)}, {"rows", std::move(rows)}};
}

Result<json> CheckOf(const Dataset& ds, std::string label, json ref) {
  OG_ASSIGN_OR_RETURN(json rows, AllRows(ds));
  return Check(std::move(label), std::move(ref), std::move(rows));
}

// types: several versions, both deletion kinds, a tag, a branch with its own
// appends, and a detached version reached through a tag.
Result<json> WriteTypes(const ObjectStorePtr& store) {
  const std::string root = "types.lance";
  OG_ASSIGN_OR_RETURN(Dataset v1, Dataset::Create(store, root, TypesSchema()));
  SchemaPtr schema = v1.schema();
  json checks = json::array();
  OG_ASSIGN_OR_RETURN(RecordBatchPtr first, TypesBatch(schema, 0, 6000));
  OG_ASSIGN_OR_RETURN(auto s2, table::StageAppend(v1, {first}));
  OG_ASSIGN_OR_RETURN(Dataset v2, table::CommitLinear(s2));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr second, TypesBatch(schema, 6000, 100));
  OG_ASSIGN_OR_RETURN(auto s3, table::StageAppend(v2, {second}));
  OG_ASSIGN_OR_RETURN(Dataset v3, table::CommitLinear(s3));
  // Few deletions: Arrow IPC deletion file.
  OG_ASSIGN_OR_RETURN(auto s4, table::StageDelete(v3, Predicate::Lt("id", Scalar::Int(3))));
  OG_ASSIGN_OR_RETURN(Dataset v4, table::CommitLinear(s4));
  // Many deletions in one fragment: roaring bitmap.
  OG_ASSIGN_OR_RETURN(auto s5, table::StageDelete(v4, Predicate::And(Predicate::Ge("id", Scalar::Int(100)),
                                                                      Predicate::Lt("id", Scalar::Int(5200)))));
  OG_ASSIGN_OR_RETURN(Dataset v5, table::CommitLinear(s5));
  for (const Dataset* ds : {&v1, &v2, &v3, &v4, &v5}) {
    OG_ASSIGN_OR_RETURN(json check, CheckOf(*ds, fmt::format("version {}", ds->version()), json{{"version", ds->version()}}));
    checks.push_back(std::move(check));
  }
  OG_RETURN_IF_ERROR(v5.CreateTag("after_append", 3));
  OG_ASSIGN_OR_RETURN(json tagged, CheckOf(v3, "tag after_append", json{{"tag", "after_append"}}));
  checks.push_back(std::move(tagged));
  // Branch from version 4 with its own append and delete.
  OG_ASSIGN_OR_RETURN(Dataset exp4, v5.CreateBranch("exp", 4));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr branch_rows, TypesBatch(schema, 20000, 50));
  OG_ASSIGN_OR_RETURN(auto b5, table::StageAppend(exp4, {branch_rows}));
  OG_ASSIGN_OR_RETURN(Dataset exp5, table::CommitLinear(b5));
  OG_ASSIGN_OR_RETURN(auto b6, table::StageDelete(exp5, Predicate::Eq("id", Scalar::Int(20001))));
  OG_ASSIGN_OR_RETURN(Dataset exp6, table::CommitLinear(b6));
  OG_ASSIGN_OR_RETURN(json branch_latest, CheckOf(exp6, "branch exp latest", json{{"branch", "exp"}}));
  checks.push_back(std::move(branch_latest));
  OG_ASSIGN_OR_RETURN(json branch_v5, CheckOf(exp5, "branch exp version 5", json{{"branch", "exp"}, {"version", 5}}));
  checks.push_back(std::move(branch_v5));
  // A detached version on top of the latest, reached through a tag.
  OG_ASSIGN_OR_RETURN(RecordBatchPtr staged_rows, TypesBatch(schema, 30000, 10));
  table::StageOptions options;
  options.properties = {{"omnigraph.staged_against_graph_head", "interop"}};
  OG_ASSIGN_OR_RETURN(auto d, table::StageAppend(v5, {staged_rows}, options));
  OG_ASSIGN_OR_RETURN(Dataset detached, table::CommitDetached(d));
  OG_RETURN_IF_ERROR(v5.CreateTag("staged", detached.version()));
  OG_ASSIGN_OR_RETURN(json staged, CheckOf(detached, "detached version via tag staged", json{{"tag", "staged"}}));
  checks.push_back(std::move(staged));
  OG_ASSIGN_OR_RETURN(json latest, CheckOf(v5, "latest", json::object()));
  checks.push_back(std::move(latest));
  return json{{"name", "types"}, {"checks", checks}, {"lance_writes_on_top", true},
              {"latest_version", v5.version()}, {"detached_version", std::to_string(detached.version())}};
}

// evolve: schema evolution and keyed writes (Merge, Project, Update, Rewrite).
Result<json> WriteEvolve(const ObjectStorePtr& store) {
  Field id("id", DataType::Utf8(), false);
  id.unenforced_primary_key = true;
  Schema schema({id, Field("n", DataType::Int64()), Field("old", DataType::Utf8())});
  auto make = [](const SchemaPtr& s, int start, int count) -> Result<RecordBatchPtr> {
    BinaryBuilder ids(DataType::Utf8());
    Int64Builder n(DataType::Int64());
    BinaryBuilder old(DataType::Utf8());
    for (int i = start; i < start + count; ++i) {
      ids.Append("k" + std::to_string(i));
      n.Append(i);
      old.Append("old" + std::to_string(i));
    }
    return RecordBatch::Make(s, {ids.Finish(), n.Finish(), old.Finish()});
  };
  OG_ASSIGN_OR_RETURN(Dataset v1, Dataset::Create(store, "evolve.lance", schema));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, make(v1.schema(), 0, 20));
  OG_ASSIGN_OR_RETURN(auto s2, table::StageAppend(v1, {rows}));
  OG_ASSIGN_OR_RETURN(Dataset v2, table::CommitLinear(s2));
  OG_ASSIGN_OR_RETURN(auto s3, table::StageAddColumns(v2, {Field("extra", DataType::Float64())}));
  OG_ASSIGN_OR_RETURN(Dataset v3, table::CommitLinear(s3));
  OG_ASSIGN_OR_RETURN(auto s4, table::StageProject(v3, {{"n", "number"}}, {"old"}));
  OG_ASSIGN_OR_RETURN(Dataset v4, table::CommitLinear(s4));
  // Upsert: k5 changes, k100 is new.
  BinaryBuilder ids(DataType::Utf8());
  Int64Builder n(DataType::Int64());
  Float64Builder extra(DataType::Float64());
  ids.Append("k5");
  n.Append(500);
  extra.Append(0.5);
  ids.Append("k100");
  n.Append(100);
  extra.AppendNull();
  OG_ASSIGN_OR_RETURN(RecordBatchPtr upsert, RecordBatch::Make(v4.schema(), {ids.Finish(), n.Finish(), extra.Finish()}));
  OG_ASSIGN_OR_RETURN(auto s5, table::StageMergeInsert(v4, {upsert}, {}));
  OG_ASSIGN_OR_RETURN(Dataset v5, table::CommitLinear(s5));
  OG_ASSIGN_OR_RETURN(auto s6, table::StageRewrite(v5));
  OG_ASSIGN_OR_RETURN(Dataset v6, table::CommitLinear(s6));
  json checks = json::array();
  for (const Dataset* ds : {&v2, &v3, &v4, &v5, &v6}) {
    OG_ASSIGN_OR_RETURN(json check, CheckOf(*ds, fmt::format("version {}", ds->version()), json{{"version", ds->version()}}));
    checks.push_back(std::move(check));
  }
  return json{{"name", "evolve"}, {"checks", checks}, {"lance_writes_on_top", true}, {"latest_version", v6.version()}};
}

// multipage: one column spread over many pages, plus wide values that need
// full-zip pages.
Result<json> WriteMultipage(const ObjectStorePtr& store) {
  Schema schema({Field("id", DataType::Int64(), false), Field("s", DataType::Utf8()), Field("blob", DataType::LargeBinary())});
  OG_ASSIGN_OR_RETURN(Dataset v1, Dataset::Create(store, "multipage.lance", schema));
  Int64Builder ids(DataType::Int64());
  BinaryBuilder s(DataType::Utf8());
  BinaryBuilder blob(DataType::LargeBinary());
  constexpr int kRows = 60000;
  for (int i = 0; i < kRows; ++i) {
    ids.Append(i);
    if (i % 10 == 0) s.AppendNull(); else s.Append(fmt::format("value-{}-{}", i, std::string(i % 13, 'x')));
    // Every 20000th row holds a 100 KB value, too wide for a mini-block chunk.
    if (i % 20000 == 7) blob.Append(std::string(100'000, static_cast<char>('a' + i % 26)));
    else if (i % 3 == 0) blob.AppendNull();
    else blob.Append(std::string(1, static_cast<char>(i % 256)));
  }
  OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, RecordBatch::Make(v1.schema(), {ids.Finish(), s.Finish(), blob.Finish()}));
  table::StageOptions options;
  options.file_options.page_bytes = 64 * 1024;
  OG_ASSIGN_OR_RETURN(auto s2, table::StageAppend(v1, {batch}, options));
  OG_ASSIGN_OR_RETURN(Dataset v2, table::CommitLinear(s2));
  OG_ASSIGN_OR_RETURN(json check, CheckOf(v2, "latest", json::object()));
  return json{{"name", "multipage"}, {"checks", json::array({check})}, {"lance_writes_on_top", false}};
}

// million: 1M rows in one fragment; checked by aggregates.
Result<json> WriteMillion(const ObjectStorePtr& store) {
  Schema schema({Field("id", DataType::Int64(), false), Field("x", DataType::Float64())});
  OG_ASSIGN_OR_RETURN(Dataset v1, Dataset::Create(store, "million.lance", schema));
  constexpr int64_t kRows = 1'000'000;
  Int64Builder ids(DataType::Int64());
  Float64Builder x(DataType::Float64());
  ids.Reserve(kRows);
  x.Reserve(kRows);
  for (int64_t i = 0; i < kRows; ++i) {
    ids.Append(i * 3);
    x.Append(static_cast<double>(i % 1000) / 8.0);
  }
  OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, RecordBatch::Make(v1.schema(), {ids.Finish(), x.Finish()}));
  OG_ASSIGN_OR_RETURN(auto s2, table::StageAppend(v1, {batch}));
  OG_ASSIGN_OR_RETURN(Dataset v2, table::CommitLinear(s2));
  // Sum of ids = 3 * (n-1) n / 2; sum of x = 1000 * sum(k/8, k < 1000) per 1000 rows.
  json aggregate = {{"count", kRows},
                    {"sum_id", std::to_string(3 * (kRows - 1) * kRows / 2)},
                    {"sum_x", 1000.0 * (999.0 * 1000.0 / 2.0) / 8.0},
                    {"row_123456", json{{"id", std::to_string(123456 * 3)}, {"x", 456 / 8.0}}}};
  return json{{"name", "million"},
              {"checks", json::array({json{{"label", "latest"}, {"ref", json::object()}, {"aggregate", aggregate}}})},
              {"lance_writes_on_top", true},
              {"latest_version", v2.version()}};
}

// blobs: a blob v2 column (bytes, empty, NULL, an external URI, 100 KiB, a
// managed value that looks like a reference) over two fragments of many
// pages; blobs.json lists each row's id, cell (hex, as `dump` prints it),
// and the descriptor Lance should report: kind, size, uri.
Result<json> WriteBlobs(const ObjectStorePtr& store) {
  Field id("id", DataType::Int64(), false);
  id.unenforced_primary_key = true;
  Schema schema({id, MakeBlobV2Field("payload", true), Field("n", DataType::Int32())});
  OG_ASSIGN_OR_RETURN(Dataset v1, Dataset::Create(store, "blobs.lance", schema));
  struct Row {
    std::optional<std::string> cell;
    int kind;  // -1 for NULL
    uint64_t size;
    std::string uri;
  };
  std::vector<Row> rows;
  auto managed = [&](std::string bytes) { rows.push_back({EncodeManagedBlobCell(bytes), 0, bytes.size(), ""}); };
  managed("hello");
  managed("");
  rows.push_back({std::nullopt, -1, 0, ""});
  rows.push_back({EncodeExternalBlobCell("s3://bucket/dir/x.bin"), 3, 0, "s3://bucket/dir/x.bin"});
  std::string big(100 * 1024, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 13 + 5) & 0xFF);
  managed(big);
  managed(EncodeExternalBlobCell("s3://b/k"));
  for (int i = 0; i < 40; ++i) {
    if (i % 4 == 0) {
      rows.push_back({std::nullopt, -1, 0, ""});
    } else {
      managed(std::string(static_cast<size_t>(i), static_cast<char>('a' + i % 26)));
    }
  }
  json expected = json::array();
  auto batch_of = [&](size_t begin, size_t end) -> Result<RecordBatchPtr> {
    Int64Builder ids(DataType::Int64());
    BinaryBuilder cells(DataType::LargeBinary());
    Int32Builder n(DataType::Int32());
    for (size_t r = begin; r < end; ++r) {
      ids.Append(static_cast<int64_t>(r));
      if (rows[r].cell) cells.Append(*rows[r].cell); else cells.AppendNull();
      n.Append(static_cast<int32_t>(r));
      std::string hex;
      if (rows[r].cell) {
        for (unsigned char c : *rows[r].cell) hex += fmt::format("{:02x}", c);
      }
      expected.push_back(json{{"id", std::to_string(r)},
                              {"cell", rows[r].cell ? json(hex) : json(nullptr)},
                              {"kind", rows[r].kind},
                              {"size", std::to_string(rows[r].size)},
                              {"uri", rows[r].uri}});
    }
    return RecordBatch::Make(v1.schema(), {ids.Finish(), cells.Finish(), n.Finish()});
  };
  table::StageOptions options;
  options.file_options.max_rows_per_page = 8;
  OG_ASSIGN_OR_RETURN(RecordBatchPtr first, batch_of(0, 20));
  OG_ASSIGN_OR_RETURN(auto s2, table::StageAppend(v1, {first}, options));
  OG_ASSIGN_OR_RETURN(Dataset v2, table::CommitLinear(s2));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr second, batch_of(20, rows.size()));
  OG_ASSIGN_OR_RETURN(auto s3, table::StageAppend(v2, {second}, options));
  OG_ASSIGN_OR_RETURN(Dataset v3, table::CommitLinear(s3));
  return json{{"rows", expected}, {"version", v3.version()}, {"data_format", v3.manifest().data_format_version}};
}

int Fail(const Status& st) {
  std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return 3;
}

int WriteFixtures(const std::string& dir) {
  auto store = LocalStore::Make(dir);
  json datasets = json::array();
  for (auto writer : {WriteTypes, WriteEvolve, WriteMultipage, WriteMillion}) {
    auto result = writer(store);
    if (!result.ok()) return Fail(result.status());
    datasets.push_back(std::move(result).value());
  }
  Status st = store->Put("expected.json", json{{"datasets", datasets}}.dump());
  if (!st.ok()) return Fail(st);
  return 0;
}

int WriteBlobFixture(const std::string& dir) {
  auto store = LocalStore::Make(dir);
  auto result = WriteBlobs(store);
  if (!result.ok()) return Fail(result.status());
  Status st = store->Put("blobs.json", result->dump());
  if (!st.ok()) return Fail(st);
  return 0;
}

int Dump(const std::string& dir, const std::string& name, int argc, char** argv) {
  VersionRef ref = VersionRef::Latest();
  std::optional<std::string> branch, tag;
  std::optional<uint64_t> version;
  bool count_only = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--count") {
      count_only = true;
    } else if (i + 1 < argc && arg == "--version") {
      version = std::stoull(argv[++i]);
    } else if (i + 1 < argc && arg == "--tag") {
      tag = argv[++i];
    } else if (i + 1 < argc && arg == "--branch") {
      branch = argv[++i];
    } else {
      std::fprintf(stderr, "unknown dump option '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (tag) ref = VersionRef::Tag(*tag);
  else if (branch && version) ref = VersionRef::BranchVersion(*branch, *version);
  else if (branch) ref = VersionRef::Branch(*branch);
  else if (version) ref = VersionRef::Version(*version);
  auto ds = Dataset::Open(LocalStore::Make(dir), name + ".lance", ref);
  if (!ds.ok()) return Fail(ds.status());
  if (count_only) {
    std::printf("%llu\n", static_cast<unsigned long long>(ds->CountRows()));
    return 0;
  }
  auto scanner = ds->Scan({});
  if (!scanner.ok()) return Fail(scanner.status());
  std::string out;
  while (true) {
    auto batch = (*scanner)->Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!*batch) break;
    for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
      out += RowJson(**batch, r).dump();
      out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  }
  return 0;
}

}  // namespace
}  // namespace omnigraph::tools

int main(int argc, char** argv) {
  using namespace omnigraph::tools;
  if (argc >= 3 && std::strcmp(argv[1], "write-fixtures") == 0) return WriteFixtures(argv[2]);
  if (argc >= 3 && std::strcmp(argv[1], "write-blobs") == 0) return WriteBlobFixture(argv[2]);
  if (argc >= 4 && std::strcmp(argv[1], "dump") == 0) return Dump(argv[2], argv[3], argc - 4, argv + 4);
  std::fprintf(stderr,
               "usage:\n  lance-tool write-fixtures DIR\n  lance-tool write-blobs DIR\n"
               "  lance-tool dump DIR NAME [--version V] [--tag T] [--branch B] [--count]\n");
  return 2;
}
