// Schema apply benchmark (spec/surface.md §1.9; design/write-path.md: apply
// is metadata only). Figures and the command live in docs/benchmarks.md,
// "Schema evolution and maintenance".
//
//   ./build/bench/schema_bench [--benchmark_filter=...]
//
// A graph of 100k Person rows (one overwrite load) on the repository's file
// system so fsyncs are real (./bench-scratch/schema; override the parent
// with OMNIGRAPH_BENCH_DIR). Each iteration applies a schema that adds one
// more nullable property to Person and checks that no data file was
// written (the run fails otherwise).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "api/omnigraph.h"

namespace omnigraph::bench {
namespace {

constexpr int kRows = 100'000;

std::string SchemaWith(int extra_properties) {
  std::string schema = "node Person {\n    name: String @key\n    age: I32?\n";
  for (int i = 0; i < extra_properties; ++i) schema += fmt::format("    extra{}: String?\n", i);
  return schema + "}\nedge Knows: Person -> Person\n";
}

std::string ScratchDir() {
  const char* parent = std::getenv("OMNIGRAPH_BENCH_DIR");
  return (std::filesystem::path(parent ? parent : "bench-scratch") / "schema").string();
}

size_t DataFiles(const std::string& uri) {
  size_t files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(uri + "/nodes")) {
    if (e.path().extension() == ".lance") ++files;
  }
  return files;
}

void BM_SchemaApplyAddProperty(benchmark::State& state) {
  const std::string uri = ScratchDir();
  std::filesystem::remove_all(uri);
  std::filesystem::create_directories(std::filesystem::path(uri).parent_path());
  auto graph = api::Omnigraph::Init(uri, SchemaWith(0));
  if (!graph.ok()) return state.SkipWithError(graph.status().ToString().c_str());
  std::string rows;
  for (int i = 0; i < kRows; ++i) rows += fmt::format(R"({{"type":"Person","data":{{"name":"p{}","age":{}}}}})", i, i % 90) + "\n";
  if (auto loaded = (*graph)->Load(rows, "people.jsonl", api::LoadMode::kOverwrite); !loaded.ok()) {
    return state.SkipWithError(loaded.status().ToString().c_str());
  }
  const size_t files = DataFiles(uri);
  std::vector<double> ms;
  int added = 0;
  for (auto _ : state) {
    std::string schema = SchemaWith(++added);
    auto start = std::chrono::steady_clock::now();
    auto applied = (*graph)->ApplySchema(schema, "schema.pg", false);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!applied.ok() || !applied->applied) return state.SkipWithError("schema apply failed");
    if (DataFiles(uri) != files) return state.SkipWithError("schema apply wrote a data file");
  }
  std::sort(ms.begin(), ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
  state.counters["max_ms"] = ms.back();
  state.counters["rows"] = kRows;
}
BENCHMARK(BM_SchemaApplyAddProperty)->Iterations(20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace omnigraph::bench

BENCHMARK_MAIN();
