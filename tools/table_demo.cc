// table-demo: the table store end to end on a small example, printing what
// happens. Run by scripts/example.sh until the graph engine replaces it.
//
//   table-demo DIR
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "columnar/builder.h"
#include "io/local_store.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/scanner.h"
#include "table/staging.h"

namespace omnigraph::tools {
namespace {

using table::Dataset;
using table::Predicate;

RecordBatchPtr People(const SchemaPtr& schema, const std::vector<std::tuple<std::string, int64_t, std::string>>& rows) {
  BinaryBuilder id(DataType::Utf8());
  Int64Builder age(DataType::Int64());
  BinaryBuilder city(DataType::Utf8());
  for (const auto& [i, a, c] : rows) {
    id.Append(i);
    age.Append(a);
    if (c.empty()) city.AppendNull(); else city.Append(c);
  }
  return *RecordBatch::Make(schema, {id.Finish(), age.Finish(), city.Finish()});
}

void Print(const std::string& title, const Dataset& ds, table::ScanOptions options = {}) {
  std::printf("\n%s  (version %s, %llu live rows)\n", title.c_str(),
              ds.is_detached() ? fmt::format("d{}", ds.version()).c_str() : std::to_string(ds.version()).c_str(),
              static_cast<unsigned long long>(ds.CountRows()));
  auto batch = ds.ToBatch(options);
  if (!batch.ok()) {
    std::printf("  error: %s\n", batch.status().ToString().c_str());
    return;
  }
  for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
    std::string line;
    for (int c = 0; c < (*batch)->num_columns(); ++c) {
      line += fmt::format("{}{}={}", c ? "  " : "  ", (*batch)->schema()->field(c).name,
                          GetScalar(*(*batch)->column(c), r).ToString());
    }
    std::printf("%s\n", line.c_str());
  }
}

template <typename T>
T Check(Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

void CheckStatus(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, st.ToString().c_str());
    std::exit(1);
  }
}

int Run(const std::string& dir) {
  auto store = LocalStore::Make(dir);
  (void)store->DeletePrefix("people.lance");
  Field id("id", DataType::Utf8(), false);
  id.unenforced_primary_key = true;
  Schema schema({id, Field("age", DataType::Int64()), Field("city", DataType::Utf8())});

  Dataset v1 = Check(Dataset::Create(store, "people.lance", schema), "create");
  SchemaPtr s = v1.schema();
  Dataset v2 = Check(table::CommitLinear(Check(table::StageAppend(v1, {People(s, {{"alice", 34, "Lisbon"},
                                                                                      {"bob", 27, "Oslo"},
                                                                                      {"carol", 41, ""}})}),
                                               "stage append")),
                     "commit");
  Print("people after the first append", v2);

  table::MergeInsertOptions strict;
  strict.mode = table::MergeInsertMode::kStrictInsert;
  auto conflict = table::StageMergeInsert(v2, {People(s, {{"bob", 99, "Rome"}})}, strict);
  std::printf("\nstrict insert of an existing key -> %s (HTTP %d)\n", conflict.status().ToString().c_str(),
              conflict.status().http_status());

  Dataset v3 = Check(table::CommitLinear(Check(table::StageMergeInsert(v2, {People(s, {{"bob", 28, "Bergen"},
                                                                                           {"dave", 19, "Porto"}})},
                                                                       {}),
                                               "stage upsert")),
                     "commit upsert");
  Print("after upserting bob and dave", v3);

  Dataset v4 = Check(table::CommitLinear(Check(table::StageDelete(v3, Predicate::Lt("age", Scalar::Int(20))),
                                               "stage delete")),
                     "commit delete");
  Print("after deleting everyone under 20", v4);

  // A detached commit leaves the linear history where it was.
  table::StageOptions options;
  options.properties = {{"omnigraph.staged_against_graph_head", "demo"}};
  Dataset staged = Check(table::CommitDetached(Check(table::StageAppend(v4, {People(s, {{"erin", 52, "Madrid"}})},
                                                                         options),
                                                     "stage detached")),
                         "commit detached");
  Print("detached version (not on the linear history)", staged);
  std::printf("linear latest is still version %llu\n",
              static_cast<unsigned long long>(Check(Dataset::Open(store, "people.lance"), "open").version()));

  CheckStatus(v4.CreateTag("reviewed", staged.version()), "tag");
  Print("opened through tag 'reviewed'", Check(Dataset::Open(store, "people.lance", table::VersionRef::Tag("reviewed")),
                                                "open tag"));

  Dataset branch = Check(v4.CreateBranch("what-if", v4.version()), "branch");
  Dataset b2 = Check(table::CommitLinear(Check(table::StageAddColumns(branch, {Field("email", DataType::Utf8())}),
                                               "stage add column")),
                     "commit add column");
  Print("branch 'what-if' with a new column", b2);
  table::ScanOptions filtered;
  filtered.columns = {"id", "city"};
  filtered.filter = Predicate::StartsWith("city", "L");
  Print("main, cities starting with L", Check(Dataset::Open(store, "people.lance"), "open"), filtered);
  return 0;
}

}  // namespace
}  // namespace omnigraph::tools

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: table-demo DIR\n");
    return 2;
  }
  return omnigraph::tools::Run(argv[1]);
}
