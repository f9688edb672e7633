// Branch, merge and history benchmarks (spec/branches.md BR-3, BR-6, BR-7,
// BR-9). Figures and the command live in docs/benchmarks.md, "Branches,
// merges and history".
//
//   ./build/bench/branch_bench [--benchmark_filter=...]
//
// Two graphs, built on first use, on the repository's file system so fsyncs
// are real (./bench-scratch/branch; override the parent with
// OMNIGRAPH_BENCH_DIR):
//   * `work`: 10k Person rows on main; branch create, inserts on main and
//     on a branch (store calls counted), fast-forward and three-way merges.
//   * `history`: a main line of OMNIGRAPH_BENCH_COMMITS one-row commits
//     (default 10,000) with branch `side` forked half-way and given 100
//     commits of its own; commit listing, cold head and --snapshot reads,
//     merge base. It is kept between runs (rebuilt when the count changes).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "api/omnigraph.h"
#include "graph/history/commit_graph.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = R"(node Person { name: String @key  age: I32? }
)";

constexpr std::string_view kInsert = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
)";

constexpr std::string_view kCount = R"(
query people() { match { $p: Person } return { count($p) as n } }
)";

constexpr int kBaseRows = 10'000;
constexpr int kMergeRows = 10'000;
// append/merge loads carry at most 8,192 entities per type (§4.3).
constexpr int kLoadChunk = 5'000;
constexpr int kSideCommits = 100;

// Per-iteration wall times of the timed part, reported as p50/p90/p99
// counters in milliseconds (Google Benchmark itself reports the mean).
class Latencies {
 public:
  void Start() { start_ = std::chrono::steady_clock::now(); }
  void Stop() {
    samples_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
  }
  void Report(benchmark::State& state) {
    if (samples_.empty()) return;
    std::sort(samples_.begin(), samples_.end());
    auto at = [&](double q) { return samples_[std::min(samples_.size() - 1, static_cast<size_t>(q * samples_.size()))]; };
    state.counters["p50_ms"] = at(0.50);
    state.counters["p90_ms"] = at(0.90);
    state.counters["p99_ms"] = at(0.99);
  }

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> samples_;
};

// Object-store calls of the timed part, reported per iteration.
class StoreCalls {
 public:
  explicit StoreCalls(api::Omnigraph& g) : counters_(g.store().store()->counters()) {}
  void Start() { counters_.Reset(); }
  void Stop() {
    reads_ += counters_.reads;
    writes_ += counters_.writes;
    lists_ += counters_.lists;
    syncs_ += counters_.sync_calls;
    barriers_ += counters_.sync_barriers;
  }
  void Report(benchmark::State& state) {
    auto avg = [](uint64_t v) { return benchmark::Counter(static_cast<double>(v), benchmark::Counter::kAvgIterations); };
    state.counters["reads"] = avg(reads_);
    state.counters["writes"] = avg(writes_);
    state.counters["lists"] = avg(lists_);
    state.counters["fsyncs"] = avg(syncs_);
    state.counters["barriers"] = avg(barriers_);
  }

 private:
  StoreCounters& counters_;
  uint64_t reads_ = 0, writes_ = 0, lists_ = 0, syncs_ = 0, barriers_ = 0;
};

[[noreturn]] void Die(std::string_view what, const Status& status) {
  fmt::print(stderr, "branch_bench: {}: {}\n", what, status.ToString());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, std::string_view what) {
  if (!result.ok()) Die(what, result.status());
  return std::move(*result);
}

std::string ScratchDir() {
  const char* parent = std::getenv("OMNIGRAPH_BENCH_DIR");
  std::string dir = std::string(parent && *parent ? parent : "./bench-scratch") + "/branch";
  std::filesystem::create_directories(dir);
  return dir;
}

int HistoryCommits() {
  const char* text = std::getenv("OMNIGRAPH_BENCH_COMMITS");
  int n = text ? std::atoi(text) : 0;
  return n > 0 ? n : 10'000;
}

std::string PersonsJsonl(std::string_view prefix, int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    out += fmt::format(R"({{"type":"Person","data":{{"name":"{}{:06}","age":{}}}}})", prefix, i, 18 + i % 60);
    out += '\n';
  }
  return out;
}

// Loads `count` new Person rows onto `branch`, in chunks under the per-commit cap.
void LoadPersons(api::Omnigraph& g, const std::string& branch, std::string_view prefix, int count) {
  for (int first = 0; first < count; first += kLoadChunk) {
    Check(g.Load(PersonsJsonl(prefix, first, std::min(kLoadChunk, count - first)), "rows.jsonl",
                 api::LoadMode::kAppend, branch),
          "load");
  }
}

// ---- The `work` graph.

api::Omnigraph& Work() {
  static std::unique_ptr<api::Omnigraph> graph = [] {
    std::string uri = ScratchDir() + "/work";
    std::filesystem::remove_all(uri);
    auto g = Check(api::Omnigraph::Init(uri, kSchema), "init");
    Check(g->Load(PersonsJsonl("p", 0, kBaseRows), "base.jsonl", api::LoadMode::kOverwrite), "load");
    return g;
  }();
  return *graph;
}

int NextId() {
  static int id = 0;
  return ++id;
}

void BM_BranchCreate(benchmark::State& state) {
  api::Omnigraph& g = Work();
  Latencies latencies;
  StoreCalls calls(g);
  for (auto _ : state) {
    std::string name = fmt::format("c{}", NextId());
    calls.Start();
    latencies.Start();
    Check(g.BranchCreate(name, "main"), "branch create");
    latencies.Stop();
    calls.Stop();
    state.PauseTiming();
    if (Status st = g.BranchDelete(name); !st.ok()) Die("branch delete", st);
    state.ResumeTiming();
  }
  latencies.Report(state);
  calls.Report(state);
}
BENCHMARK(BM_BranchCreate)->Unit(benchmark::kMillisecond)->Iterations(100)->UseRealTime();

// One keyed one-row insert; arg 0 on main, 1 on a branch forked from main.
void BM_InsertOneRow(benchmark::State& state) {
  api::Omnigraph& g = Work();
  std::string branch = "main";
  if (state.range(0) == 1) {
    branch = fmt::format("ins{}", NextId());
    Check(g.BranchCreate(branch, "main"), "branch create");
  }
  state.SetLabel(branch == "main" ? "main" : "branch");
  Latencies latencies;
  StoreCalls calls(g);
  for (auto _ : state) {
    std::string params = fmt::format(R"({{"name":"i{}","age":7}})", NextId());
    calls.Start();
    latencies.Start();
    auto report = Check(g.Mutate(kInsert, "insert.gq", "add_person", params, branch), "mutate");
    latencies.Stop();
    calls.Stop();
    if (!report.commit) Die("mutate", Internal("insert made no commit"));
  }
  latencies.Report(state);
  calls.Report(state);
}
BENCHMARK(BM_InsertOneRow)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(200)->UseRealTime();

// Fast-forward of a branch holding 10k new rows (pointer switch).
void BM_MergeFastForward10k(benchmark::State& state) {
  api::Omnigraph& g = Work();
  Latencies latencies;
  StoreCalls calls(g);
  for (auto _ : state) {
    state.PauseTiming();
    std::string branch = fmt::format("ff{}", NextId());
    Check(g.BranchCreate(branch, "main"), "branch create");
    LoadPersons(g, branch, branch + "-", kMergeRows);
    state.ResumeTiming();
    calls.Start();
    latencies.Start();
    auto report = Check(g.BranchMerge(branch, "main"), "merge");
    latencies.Stop();
    calls.Stop();
    if (report.outcome != "fast_forward") Die("merge", Internal("expected fast_forward, got " + report.outcome));
  }
  latencies.Report(state);
  calls.Report(state);
}
BENCHMARK(BM_MergeFastForward10k)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

// Three-way merge: 10k new rows on the branch, 10k on main, one table.
void BM_MergeThreeWay10k10k(benchmark::State& state) {
  api::Omnigraph& g = Work();
  Latencies latencies;
  StoreCalls calls(g);
  for (auto _ : state) {
    state.PauseTiming();
    std::string branch = fmt::format("tw{}", NextId());
    Check(g.BranchCreate(branch, "main"), "branch create");
    LoadPersons(g, branch, branch + "-s-", kMergeRows);
    LoadPersons(g, "main", branch + "-t-", kMergeRows);
    state.ResumeTiming();
    calls.Start();
    latencies.Start();
    auto report = Check(g.BranchMerge(branch, "main"), "merge");
    latencies.Stop();
    calls.Stop();
    if (report.outcome != "merged") Die("merge", Internal("expected merged, got " + report.outcome));
  }
  latencies.Report(state);
  calls.Report(state);
  state.SetLabel(fmt::format("main ends at {} rows", Check(g.Snapshot("main"), "snapshot").datasets[0].entity_count));
}
BENCHMARK(BM_MergeThreeWay10k10k)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// ---- The `history` graph.

struct History {
  std::string uri;
  std::string old_commit;   // the 100th commit on main
  std::string head_commit;  // main's head
};

const History& HistoryGraph() {
  static History history = [] {
    const int commits = HistoryCommits();
    History h{ScratchDir() + "/history", ""};
    std::string marker = h.uri + "/../history.complete";
    std::string expected_marker = std::to_string(commits);
    std::ifstream in(marker);
    std::string found;
    std::getline(in, found);
    if (found != expected_marker) {
      std::filesystem::remove_all(h.uri);
      std::filesystem::remove(marker);
      fmt::print(stderr, "branch_bench: building a history of {} commits in {} (kept for later runs)\n", commits,
                 h.uri);
      auto g = Check(api::Omnigraph::Init(h.uri, kSchema), "init");
      for (int i = 1; i < commits; ++i) {  // genesis is the first commit
        if (i == commits / 2) Check(g->BranchCreate("side", "main"), "branch create");
        Check(g->Mutate(kInsert, "insert.gq", "add_person", fmt::format(R"({{"name":"h{}","age":1}})", i)),
              "mutate");
      }
      for (int i = 0; i < kSideCommits; ++i) {
        Check(g->Mutate(kInsert, "insert.gq", "add_person", fmt::format(R"({{"name":"s{}","age":2}})", i), "side"),
              "mutate");
      }
      std::ofstream(marker) << expected_marker << "\n";
    }
    auto g = Check(api::Omnigraph::Open(h.uri), "open");
    auto list = Check(g->ListCommits("main"), "commit list");
    if (list.size() != static_cast<size_t>(commits)) Die("history", Internal("unexpected commit count"));
    h.old_commit = list[list.size() - 100].id;
    h.head_commit = list.front().id;
    return h;
  }();
  return history;
}

void BM_CommitList(benchmark::State& state) {
  const History& h = HistoryGraph();
  auto warm = Check(api::Omnigraph::Open(h.uri), "open");
  size_t listed = 0;
  Latencies latencies;
  for (auto _ : state) {
    latencies.Start();
    if (state.range(0) == 0) {
      listed = Check(warm->ListCommits("main"), "commit list").size();
    } else {
      auto cold = Check(api::Omnigraph::Open(h.uri), "open");
      listed = Check(cold->ListCommits("main"), "commit list").size();
    }
    latencies.Stop();
  }
  latencies.Report(state);
  state.SetLabel(fmt::format("{} handle, {} commits", state.range(0) == 0 ? "warm" : "cold", listed));
}
BENCHMARK(BM_CommitList)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();

// A new handle (page cache warm) counting Person rows: arg 0 at main's
// head; arg 1 `--snapshot` of main's head commit (the same rows, so the
// difference is resolving a commit id); arg 2 `--snapshot` of the 100th
// commit (an old table version, its commit found in archived history).
void BM_ColdRead(benchmark::State& state) {
  const History& h = HistoryGraph();
  api::ReadTarget target;
  if (state.range(0) == 1) target.snapshot = h.head_commit;
  if (state.range(0) == 2) target.snapshot = h.old_commit;
  int64_t rows = 0;
  Latencies latencies;
  for (auto _ : state) {
    latencies.Start();
    auto g = Check(api::Omnigraph::Open(h.uri), "open");
    auto result = Check(g->Query(kCount, "count.gq", "people", "{}", target), "query");
    latencies.Stop();
    rows = result.row_count();
  }
  latencies.Report(state);
  const char* labels[] = {"head", "snapshot of the head commit", "snapshot of the 100th commit"};
  state.SetLabel(labels[state.range(0)]);
  if (rows != 1) Die("query", Internal("expected one row"));
}
BENCHMARK(BM_ColdRead)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(30)->UseRealTime();

// The merge base of `side` and main (BR-9.3) over their commit graphs;
// arg 0: the graphs already loaded, arg 1: loading both from a new handle.
void BM_MergeBase(benchmark::State& state) {
  const History& h = HistoryGraph();
  auto warm = Check(api::Omnigraph::Open(h.uri), "open");
  graph::CommitGraphPtr side = Check(warm->store().Commits(Check(warm->store().Latest("side"), "side")), "commits");
  graph::CommitGraphPtr main = Check(warm->store().Commits(Check(warm->store().Latest("main"), "main")), "commits");
  const graph::CommitRecord* base = nullptr;
  Latencies latencies;
  for (auto _ : state) {
    latencies.Start();
    if (state.range(0) == 0) {
      base = graph::MergeBase(*side, *main);
      benchmark::DoNotOptimize(base);
    } else {
      auto g = Check(api::Omnigraph::Open(h.uri), "open");
      auto s = Check(g->store().Commits(Check(g->store().Latest("side"), "side")), "commits");
      auto m = Check(g->store().Commits(Check(g->store().Latest("main"), "main")), "commits");
      base = graph::MergeBase(*s, *m);
      benchmark::DoNotOptimize(base);
    }
    latencies.Stop();
  }
  latencies.Report(state);
  if (base == nullptr) Die("merge base", Internal("no merge base"));
  state.SetLabel(fmt::format("{}, {} + {} commits", state.range(0) == 0 ? "loaded" : "load + base", side->size(),
                             main->size()));
}
BENCHMARK(BM_MergeBase)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();

}  // namespace
}  // namespace omnigraph::bench

BENCHMARK_MAIN();
