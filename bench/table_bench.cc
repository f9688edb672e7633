// Table-store benchmarks (issue: table store, "Numbers"). Figures and the
// command that produced them live in docs/benchmarks.md.
//
//   ./build/bench/table_bench --benchmark_counters_tabular=true
//
// Latency benchmarks record every iteration and report p50/p90/p99 in
// microseconds as counters; throughput benchmarks report rows per second.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "columnar/builder.h"
#include "io/local_store.h"
#include "table/commit.h"
#include "table/dataset.h"
#include "table/scanner.h"
#include "table/staging.h"

namespace omnigraph::bench {
namespace {

using Clock = std::chrono::steady_clock;
using table::Dataset;

// A scratch directory on the same file system as the build (not tmpfs), so
// fsync costs are real.
std::string ScratchDir(const std::string& name) {
  const char* base = std::getenv("OMNIGRAPH_BENCH_DIR");
  std::filesystem::path dir = std::filesystem::path(base ? base : "bench-scratch") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void ReportPercentiles(benchmark::State& state, std::vector<double>* micros) {
  if (micros->empty()) return;
  std::sort(micros->begin(), micros->end());
  auto at = [&](double q) { return (*micros)[std::min(micros->size() - 1, static_cast<size_t>(q * micros->size()))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p90_us"] = at(0.90);
  state.counters["p99_us"] = at(0.99);
}

// (id Int64, name Utf8 ~20 bytes, score Float32, embedding FixedSizeList<Float32, 8>).
SchemaPtr WideSchema() {
  Schema schema({Field("id", DataType::Int64(), false), Field("name", DataType::Utf8()),
                 Field("score", DataType::Float32()), Field("embedding", DataType::FixedSizeList(DataType::Float32(), 8))});
  schema.AssignMissingFieldIds();
  return std::make_shared<const Schema>(schema);
}

RecordBatchPtr WideBatch(const SchemaPtr& schema, int64_t start, int64_t rows) {
  Int64Builder id(DataType::Int64());
  BinaryBuilder name(DataType::Utf8());
  Float32Builder score(DataType::Float32());
  FixedSizeListBuilder embedding(schema->field(3).type);
  id.Reserve(rows);
  name.Reserve(rows);
  name.ReserveBytes(rows * 20);
  score.Reserve(rows);
  float vec[8];
  char text[32];
  for (int64_t i = start; i < start + rows; ++i) {
    id.Append(i);
    int n = std::snprintf(text, sizeof(text), "person-%013lld", static_cast<long long>(i));
    name.Append(std::string_view(text, n));
    score.Append(static_cast<float>(i % 1000) * 0.5f);
    for (int k = 0; k < 8; ++k) vec[k] = static_cast<float>(i) + k;
    embedding.AppendFloats(vec);
  }
  return *RecordBatch::Make(schema, {id.Finish(), name.Finish(), score.Finish(), embedding.Finish()});
}

// Append 1M rows (one data file, every fsync) — target >= 2M rows/s.
void BM_Append1M(benchmark::State& state) {
  const int64_t rows = 1'000'000;
  SchemaPtr schema = WideSchema();
  RecordBatchPtr batch = WideBatch(schema, 0, rows);
  std::string dir = ScratchDir("append");
  auto store = LocalStore::Make(dir);
  int round = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string root = "t" + std::to_string(round++) + ".lance";
    Dataset base = *table::Dataset::Create(store, root, *schema);
    state.ResumeTiming();
    auto staged = table::StageAppend(base, {batch});
    auto committed = table::CommitLinear(*staged);
    if (!committed.ok()) state.SkipWithError(committed.status().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_Append1M)->Unit(benchmark::kMillisecond)->Iterations(5);

// Full scan of the Int64 column of that table — target >= 20M rows/s.
void BM_ScanInt64(benchmark::State& state) {
  const int64_t rows = 1'000'000;
  SchemaPtr schema = WideSchema();
  std::string dir = ScratchDir("scan");
  auto store = LocalStore::Make(dir);
  Dataset base = *table::Dataset::Create(store, "t.lance", *schema);
  Dataset ds = *table::CommitLinear(*table::StageAppend(base, {WideBatch(schema, 0, rows)}));
  table::ScanOptions options;
  options.columns = {"id"};
  options.batch_rows = 64 * 1024;
  int64_t checksum = 0;
  for (auto _ : state) {
    auto scanner = ds.Scan(options);
    while (true) {
      auto batch = (*scanner)->Next();
      if (!batch.ok() || !*batch) break;
      checksum += (*batch)->column(0)->raw_values<int64_t>()[0];
    }
  }
  benchmark::DoNotOptimize(checksum);
  state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_ScanInt64)->Unit(benchmark::kMillisecond);

// Stage + detached commit of a one-row append, fsyncs included — target p50 <= 1 ms.
void BM_DetachedCommitOneRow(benchmark::State& state) {
  SchemaPtr schema = WideSchema();
  std::string dir = ScratchDir("detached");
  auto store = LocalStore::Make(dir);
  Dataset base = *table::Dataset::Create(store, "t.lance", *schema, {WideBatch(schema, 0, 1000)});
  std::vector<double> micros;
  int64_t next = 1000;
  uint64_t syncs = 0, barriers = 0, writes = 0;
  for (auto _ : state) {
    RecordBatchPtr row = WideBatch(schema, next++, 1);
    store->counters().Reset();
    auto start = Clock::now();
    auto staged = table::StageAppend(base, {row});
    auto committed = table::CommitDetached(*staged);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!committed.ok()) state.SkipWithError(committed.status().ToString().c_str());
    syncs += store->counters().sync_calls;
    barriers += store->counters().sync_barriers;
    writes += store->counters().writes;
  }
  ReportPercentiles(state, &micros);
  state.counters["fsyncs"] = static_cast<double>(syncs) / state.iterations();
  state.counters["barriers"] = static_cast<double>(barriers) / state.iterations();
  state.counters["writes"] = static_cast<double>(writes) / state.iterations();
}
BENCHMARK(BM_DetachedCommitOneRow)->Unit(benchmark::kMicrosecond)->Iterations(300);

// Open a dataset at a pinned detached version and read one row, warm — target p50 <= 0.5 ms.
void BM_OpenDetachedReadOneRow(benchmark::State& state) {
  SchemaPtr schema = WideSchema();
  std::string dir = ScratchDir("open");
  auto store = LocalStore::Make(dir);
  Dataset base = *table::Dataset::Create(store, "t.lance", *schema, {WideBatch(schema, 0, 1000)});
  Dataset pinned = *table::CommitDetached(*table::StageAppend(base, {WideBatch(schema, 1000, 1)}));
  uint64_t version = pinned.version();
  table::ScanOptions options;
  options.fragment_ids = {1};
  std::vector<double> micros;
  for (auto _ : state) {
    auto start = Clock::now();
    auto ds = table::Dataset::Open(store, "t.lance", table::VersionRef::Version(version));
    auto scanner = ds->Scan(options);
    auto batch = (*scanner)->Next();
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!batch.ok() || !*batch || (*batch)->num_rows() != 1) state.SkipWithError("did not read the pinned row");
  }
  ReportPercentiles(state, &micros);
}
BENCHMARK(BM_OpenDetachedReadOneRow)->Unit(benchmark::kMicrosecond)->Iterations(2000);

// Open a table written by 256 one-row commits and read it whole, as a
// one-shot CLI process does before compaction: the cost is per data file
// (open, footer, descriptor, column metadata), not per row. The files are in
// the page cache; the process-wide caches are what a second read in one
// process would find.
void BM_ReadManySmallFragments(benchmark::State& state) {
  const int fragments = 256;
  SchemaPtr schema = WideSchema();
  std::string dir = ScratchDir("small-fragments");
  auto store = LocalStore::Make(dir);
  Dataset ds = *table::Dataset::Create(store, "t.lance", *schema, {WideBatch(schema, 0, 1)});
  for (int i = 1; i < fragments; ++i) ds = *table::CommitLinear(*table::StageAppend(ds, {WideBatch(schema, i, 1)}));
  std::vector<double> micros;
  for (auto _ : state) {
    auto start = Clock::now();
    auto opened = table::Dataset::Open(store, "t.lance", table::VersionRef::Latest());
    auto rows = opened->ToBatch({});
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!rows.ok() || (*rows)->num_rows() != fragments) state.SkipWithError("did not read every row");
  }
  ReportPercentiles(state, &micros);
  state.counters["us_per_fragment"] = micros.empty() ? 0 : micros[micros.size() / 2] / fragments;
}
BENCHMARK(BM_ReadManySmallFragments)->Unit(benchmark::kMicrosecond)->Iterations(200);

// The physical floor on this disk: write a 4 KiB file, fdatasync it, link it
// to a new name and fsync the directory (what any durable create-if-absent
// costs), for comparison with the commit benchmarks.
void BM_DurableCreateFloor(benchmark::State& state) {
  std::string dir = ScratchDir("floor");
  std::string data(4096, 'x');
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  std::vector<double> micros;
  int i = 0;
  for (auto _ : state) {
    std::string tmp = dir + "/tmp" + std::to_string(i), final_name = dir + "/f" + std::to_string(i);
    ++i;
    auto start = Clock::now();
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) state.SkipWithError("write");
    ::fdatasync(fd);
    ::close(fd);
    if (::link(tmp.c_str(), final_name.c_str()) != 0) state.SkipWithError("link");
    ::fsync(dir_fd);
    micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  ::close(dir_fd);
  ReportPercentiles(state, &micros);
}
BENCHMARK(BM_DurableCreateFloor)->Unit(benchmark::kMicrosecond)->Iterations(300);

}  // namespace
}  // namespace omnigraph::bench

BENCHMARK_MAIN();
