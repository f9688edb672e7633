// Insert latency as history grows, with optimize (spec/engine.md §8.1;
// design/architecture.md: one-node insert p50 flat as history grows to
// 10,000 commits, with optimize). A harness printing percentiles; figures
// and the command live in docs/benchmarks.md, "Optimize".
//
//   ./build/bench/optimize_bench [--inserts N] [--every K] [--base-persons P --base-knows E]
//                                [--cold-runs R] [--cli PATH]
//
// With a base, the inserts go on a graph first loaded with P Person rows
// and E Knows edges (--base-persons 100000 --base-knows 500000 --every 10000
// times one optimize of that graph after 10,000 small commits).
//
// N one-row insert mutations (default 10,000), each its own commit, with
// optimize after every K of them (default 1,000; 0 = never). Prints the
// p50/p90/p99 insert latency of each block of K inserts, each optimize's
// time, and the Person table's fragment count. Then the cold CLI 1-hop
// query on the result: `--cold-runs R` new `omnigraph query` processes
// (default 30; the binary from `--cli PATH`, default the build's
// src/cli/omnigraph beside this bench), p50/p90 wall time each from spawn
// to exit, page cache warm. Scratch data goes to
// ./bench-scratch/optimize (override the parent with OMNIGRAPH_BENCH_DIR),
// on the repository's file system so fsyncs are real.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/omnigraph.h"

namespace omnigraph::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kSchema = R"(node Person { name: String @key  age: I32? }
edge Knows: Person -> Person
)";

constexpr std::string_view kInsert = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
)";

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t index = std::min(samples.size() - 1, static_cast<size_t>(p * static_cast<double>(samples.size())));
  return samples[index];
}

size_t PersonFragments(api::Omnigraph& g) {
  auto latest = g.store().Latest();
  if (!latest.ok()) return 0;
  const graph::TableEntry* entry = latest->FindTable("node:Person");
  auto ds = latest->OpenDataset(*entry);
  return ds.ok() ? ds->manifest().fragments.size() : 0;
}

// One overwrite load of `persons` Person rows ("b<i>") and `knows` Knows
// edges (b<i> -> b<(i * 7 + k) % persons>), the base graph the inserts go on.
Status LoadBase(api::Omnigraph& g, int persons, int knows) {
  if (persons <= 0) return Status::OK();
  std::string rows;
  for (int i = 0; i < persons; ++i) rows += fmt::format(R"({{"type":"Person","data":{{"name":"b{}","age":{}}}}})" "\n", i, i % 90);
  for (int k = 0; k < knows; ++k) {
    int from = k % persons, to = (from * 7 + k / persons + 1) % persons;
    rows += fmt::format(R"({{"edge":"Knows","from":"b{}","to":"b{}"}})" "\n", from, to);
  }
  return g.Load(rows, "base.jsonl", api::LoadMode::kOverwrite).status();
}

constexpr std::string_view kOneHop = R"(query friends($n: String) {
  match { $p: Person { name: $n }  $p knows $f }
  return { $f.name }
}
)";

// Wall time of one `argv` process from spawn to exit, its output discarded;
// a negative value when it could not run or failed.
double TimeProcess(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  auto start = Clock::now();
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return Ms(Clock::now() - start);
}

// The cold CLI 1-hop of the issue's benchmark: `runs` new processes.
int ColdQueries(const std::filesystem::path& dir, const std::string& cli, int runs, const std::string& name) {
  const std::filesystem::path query = dir / "one_hop.gq";
  std::ofstream(query) << kOneHop;
  const std::vector<std::string> argv = {cli, "query", "--store", (dir / "g").string(), "--query", query.string(),
                                         "--params", fmt::format(R"({{"n":"{}"}})", name)};
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    double ms = TimeProcess(argv);
    if (ms < 0) {
      fmt::print(stderr, "cold query: '{}' failed\n", cli);
      return 1;
    }
    samples.push_back(ms);
  }
  fmt::print("cold CLI 1-hop ({} processes): p50 {:.1f} ms  p90 {:.1f} ms\n", runs, Percentile(samples, 0.5),
             Percentile(samples, 0.9));
  return 0;
}

int Run(int inserts, int every, int base_persons, int base_knows, const std::string& cli, int cold_runs) {
  const char* parent = std::getenv("OMNIGRAPH_BENCH_DIR");
  std::filesystem::path dir = std::filesystem::absolute(parent && *parent ? parent : "bench-scratch") / "optimize";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto g = api::Omnigraph::Init((dir / "g").string(), kSchema);
  if (!g.ok()) {
    fmt::print(stderr, "init: {}\n", g.status().ToString());
    return 1;
  }
  if (Status loaded = LoadBase(**g, base_persons, base_knows); !loaded.ok()) {
    fmt::print(stderr, "base load: {}\n", loaded.ToString());
    return 1;
  }
  const int block = every > 0 ? every : 1000;
  std::vector<double> samples;
  fmt::print("inserts {} optimize every {}\n", inserts, every);
  fmt::print("{:>12} {:>8} {:>8} {:>8} {:>12} {:>10}\n", "block", "p50 ms", "p90 ms", "p99 ms", "optimize ms",
             "fragments");
  for (int i = 0; i < inserts; ++i) {
    std::string params = fmt::format(R"({{"name":"n{}","age":{}}})", i, i % 100);
    auto start = Clock::now();
    auto done = (*g)->Mutate(kInsert, "insert.gq", "add_person", params);
    samples.push_back(Ms(Clock::now() - start));
    if (!done.ok()) {
      fmt::print(stderr, "insert {}: {}\n", i, done.status().ToString());
      return 1;
    }
    if ((i + 1) % block != 0) continue;
    double optimize_ms = 0;
    if (every > 0) {
      auto opt_start = Clock::now();
      auto optimized = (*g)->Optimize();
      optimize_ms = Ms(Clock::now() - opt_start);
      if (!optimized.ok()) {
        fmt::print(stderr, "optimize: {}\n", optimized.status().ToString());
        return 1;
      }
    }
    fmt::print("{:>5}-{:<6} {:8.2f} {:8.2f} {:8.2f} {:12.1f} {:10}\n", i + 1 - block, i + 1,
               Percentile(samples, 0.5), Percentile(samples, 0.9), Percentile(samples, 0.99), optimize_ms,
               PersonFragments(**g));
    std::fflush(stdout);
    samples.clear();
  }
  if (cold_runs <= 0) return 0;
  return ColdQueries(dir, cli, cold_runs, base_persons > 0 ? "b1" : "n1");
}

}  // namespace
}  // namespace omnigraph::bench

int main(int argc, char** argv) {
  int inserts = 10'000;
  int every = 1'000;
  int base_persons = 0, base_knows = 0;
  int cold_runs = 30;
  std::string cli = (std::filesystem::canonical("/proc/self/exe").parent_path() / "../src/cli/omnigraph").string();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--inserts") inserts = std::atoi(argv[i + 1]);
    else if (flag == "--every") every = std::atoi(argv[i + 1]);
    else if (flag == "--base-persons") base_persons = std::atoi(argv[i + 1]);
    else if (flag == "--base-knows") base_knows = std::atoi(argv[i + 1]);
    else if (flag == "--cold-runs") cold_runs = std::atoi(argv[i + 1]);
    else if (flag == "--cli") cli = argv[i + 1];
  }
  return omnigraph::bench::Run(inserts, every, base_persons, base_knows, cli, cold_runs);
}
