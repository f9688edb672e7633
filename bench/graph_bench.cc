// Graph-engine benchmarks (issue: graph engine, "Proof"). A harness that
// prints medians rather than a Google Benchmark program, because every
// figure shares one expensive fixture: a synthetic graph of 100k `Person`
// nodes and 500k `Knows` edges. Figures and the command live in
// docs/benchmarks.md.
//
//   ./build/bench/graph_bench [--persons N] [--knows N] [--iterations N]
//
// Scratch data goes to ./bench-scratch/graph (override the parent with
// OMNIGRAPH_BENCH_DIR), on the repository's file system so fsyncs are real.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/omnigraph.h"
#include "io/local_store.h"
#include "util/random.h"

extern char** environ;

namespace omnigraph::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kSchema = R"(node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { since: I32? }
)";

constexpr std::string_view kQueries = R"(
query neighbours($name: String) {
  match { $p: Person { name: $name }  $p knows $f }
  return { $f.name }
}
query two_hop_count($name: String) {
  match { $p: Person { name: $name }  $p knows{2,2} $f }
  return { count($f) as reachable }
}
)";

constexpr std::string_view kInsert = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
)";

struct Options {
  int persons = 100'000;
  int knows = 500'000;
  int iterations = 200;
  std::string cli;  // path of the omnigraph binary, for the cold-query figure
};

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};

Percentiles Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) { return samples[std::min(samples.size() - 1, static_cast<size_t>(q * samples.size()))]; };
  return {at(0.50), at(0.90), at(0.99)};
}

void PrintLatency(std::string_view name, const std::vector<double>& millis, std::string_view extra = "") {
  Percentiles p = Summarize(millis);
  fmt::print("{:<34} n={:<5} p50={:8.3f} ms  p90={:8.3f} ms  p99={:8.3f} ms {}\n", name, millis.size(), p.p50,
             p.p90, p.p99, extra);
}

[[noreturn]] void Die(std::string_view what, const Status& status) {
  fmt::print(stderr, "graph_bench: {}: {}\n", what, status.ToString());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, std::string_view what) {
  if (!result.ok()) Die(what, result.status());
  return std::move(*result);
}

void Check(const Status& status, std::string_view what) {
  if (!status.ok()) Die(what, status);
}

// Deterministic synthetic data: person i is "p{i}"; each edge joins two
// uniformly chosen persons (self loops skipped).
std::string SyntheticJsonl(const Options& options) {
  std::string out;
  out.reserve(static_cast<size_t>(options.persons) * 56 + static_cast<size_t>(options.knows) * 64);
  std::mt19937_64 random(42);
  for (int i = 0; i < options.persons; ++i) {
    out += fmt::format(R"({{"type":"Person","data":{{"name":"p{}","age":{}}}}})", i, 18 + i % 60);
    out += '\n';
  }
  std::uniform_int_distribution<int> pick(0, options.persons - 1);
  for (int written = 0; written < options.knows;) {
    int from = pick(random), to = pick(random);
    if (from == to) continue;
    out += fmt::format(R"({{"edge":"Knows","from":"p{}","to":"p{}","data":{{"since":{}}}}})", from, to,
                       2000 + written % 25);
    out += '\n';
    ++written;
  }
  return out;
}

// The scratch directory of this run, emptied of earlier runs' graphs
// without deleting them yet: they are moved aside and deleted by
// DeleteEarlierRuns() once every figure is taken. Deleting thousands of
// files just before the inserts would slow each file creation for the next
// half minute (ext4 without a journal scans recently freed inodes when it
// allocates one), a cost a real graph's writes do not pay.
std::filesystem::path ScratchParent() {
  const char* base = std::getenv("OMNIGRAPH_BENCH_DIR");
  return std::filesystem::absolute(base ? base : "bench-scratch");
}

constexpr std::string_view kEarlierRunPrefix = "graph.earlier-";

std::string ScratchDir() {
  std::filesystem::path dir = ScratchParent() / "graph";
  if (std::filesystem::exists(dir)) {
    std::filesystem::rename(dir, ScratchParent() / (std::string(kEarlierRunPrefix) + Uuid::Random().ToHex()));
  }
  std::filesystem::create_directories(dir);
  return dir.string();
}

void DeleteEarlierRuns() {
  for (const auto& entry : std::filesystem::directory_iterator(ScratchParent())) {
    if (entry.path().filename().string().starts_with(kEarlierRunPrefix)) std::filesystem::remove_all(entry.path());
  }
}

// The store-level floor of one insert's durable publication, without the
// engine: the same objects an insert creates (a data file, a detached
// manifest, a __manifest data file, a staged __manifest version) in the
// same number of directories, synced in one concurrent round of 4
// fdatasyncs and 3 directory fsyncs, then a put-if-absent rename and its
// directory fsync. Sampled alternately with the inserts, so both see the
// same disk; the difference between the two is the engine's own cost.
class PublicationFloor {
 public:
  explicit PublicationFloor(const std::string& dir) : store_(dir) {}

  double SampleMillis() {
    const WriteOptions deferred{/*durable=*/false, /*direct=*/true};
    std::string data(1063, 'd'), manifest(1838, 'm'), graph_rows(6126, 'g'), version(1349, 'v');
    Clock::time_point start = Clock::now();
    std::vector<std::string> sync = {"t/data/" + Uuid::Random().ToHex() + ".lance",
                                     "t/_versions/d" + Uuid::Random().ToHex() + ".manifest",
                                     "m/data/" + Uuid::Random().ToHex() + ".lance"};
    Check(store_.PutIfAbsent(sync[0], data, deferred), "floor data file");
    Check(store_.PutIfAbsent(sync[1], manifest, deferred), "floor manifest");
    Check(store_.PutIfAbsent(sync[2], graph_rows, deferred), "floor graph rows");
    std::string final_name = fmt::format("m/_versions/{}.manifest", ++version_);
    std::string staged = Check(store_.StageForPublish(final_name, version), "floor stage");
    sync.push_back(staged);
    Check(store_.Sync(sync), "floor sync");
    Check(store_.PublishIfAbsent(staged, final_name), "floor publish");
    return MillisSince(start);
  }

 private:
  LocalStore store_;
  uint64_t version_ = 0;
};

// Cache flushes the block device under `path` has completed, from
// /sys/dev/block/<major>:<minor>/stat (field 16, Linux 5.5+); nullopt when
// the file system has no such device (tmpfs, overlay) or the kernel does
// not count them. Each durable fsync ends in one flush unless concurrent
// ones are merged, so this is the barrier count the disk itself sees
// (other processes' flushes included).
std::optional<uint64_t> DeviceFlushes(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  std::string stat_path = fmt::format("/sys/dev/block/{}:{}/stat", major(st.st_dev), minor(st.st_dev));
  std::FILE* file = std::fopen(stat_path.c_str(), "r");
  if (file == nullptr) return std::nullopt;
  std::vector<unsigned long long> fields;
  unsigned long long value = 0;
  while (std::fscanf(file, "%llu", &value) == 1) fields.push_back(value);
  std::fclose(file);
  if (fields.size() < 17) return std::nullopt;
  return fields[15];
}

// Runs `argv` as a child process with stdout/stderr discarded; returns its
// wall time in ms, or a negative value when it failed.
double TimeProcess(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  Clock::time_point start = Clock::now();
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  double millis = MillisSince(start);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? millis : -1;
}

void Run(const Options& options) {
  std::string dir = ScratchDir();
  std::string uri = dir + "/bench.omni";
  std::string data = SyntheticJsonl(options);
  fmt::print("graph: {} Person, {} Knows ({:.1f} MiB of JSONL) in {}\n", options.persons, options.knows,
             data.size() / 1048576.0, uri);

  auto graph = Check(api::Omnigraph::Init(uri, kSchema), "init");

  // Load: one overwrite of the whole synthetic graph, every fsync included.
  Clock::time_point start = Clock::now();
  api::LoadReport report = Check(graph->Load(data, "bench.jsonl", api::LoadMode::kOverwrite), "load");
  double load_ms = MillisSince(start);
  fmt::print("{:<34} {:.0f} ms for {} entities ({:.2f}M entities/s)\n", "load (overwrite, fsynced)", load_ms,
             report.total_entities, report.total_entities / load_ms / 1000.0);
  data.clear();
  data.shrink_to_fit();

  // Cold CLI query: a new process opens the graph and runs one query (the
  // OS page cache stays warm; the process and its table cache are cold).
  // The first run builds and persists the traversal topology; it is
  // excluded, as it is once per table version. Measured right after the
  // load and again after the inserts below (each adds a fragment).
  std::mt19937_64 cold_random(11);
  std::uniform_int_distribution<int> cold_pick(0, options.persons - 1);
  auto cold_cli = [&](std::string_view label) {
    if (options.cli.empty()) return;
    std::string query_file = dir + "/bench.gq";
    std::FILE* file = std::fopen(query_file.c_str(), "w");
    std::fwrite(kQueries.data(), 1, kQueries.size(), file);
    std::fclose(file);
    std::vector<double> cold;
    for (int i = 0; i <= std::min(options.iterations, 30); ++i) {
      double millis = TimeProcess({options.cli, "query", "--store", uri, "--query", query_file, "neighbours",
                                   "--params", fmt::format(R"({{"name":"p{}"}})", cold_pick(cold_random)),
                                   "--format", "jsonl"});
      if (millis < 0) Die("cli query", Internal("omnigraph query failed"));
      if (i > 0) cold.push_back(millis);
      // The first run persisted the topology without fsync; flush it (and
      // the load's leftovers) so its writeback does not land in samples.
      if (i == 0) ::sync();
    }
    PrintLatency(label, cold);
  };
  cold_cli("cold CLI query neighbours (load)");

  // Reads on a warm handle: the tables are opened and cached by the first
  // query, later ones reuse them (keyed by exact physical identity).
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> pick(0, options.persons - 1);
  auto param = [&] { return fmt::format(R"({{"name":"p{}"}})", pick(random)); };
  for (std::string_view name : {"neighbours", "two_hop_count"}) {
    Check(graph->Query(kQueries, "bench.gq", std::string(name), param()), "warm-up query");
    std::vector<double> samples;
    uint64_t rows = 0;
    for (int i = 0; i < options.iterations; ++i) {
      std::string params = param();
      start = Clock::now();
      exec::QueryResult result = Check(graph->Query(kQueries, "bench.gq", std::string(name), params), "query");
      samples.push_back(MillisSince(start));
      rows += static_cast<uint64_t>(result.row_count());
    }
    PrintLatency(fmt::format("query {} (warm)", name), samples, fmt::format("rows={}", rows));
  }

  // One-node insert through the embedded API, every fsync included; object
  // store calls counted for each mutation.
  // Flush what earlier phases left dirty (the persisted topology is
  // written without fsync), so its writeback does not land in the samples.
  ::sync();
  StoreCounters& counters = graph->store().store()->counters();
  PublicationFloor floor(dir + "/floor");
  std::vector<double> samples, floor_samples;
  uint64_t reads = 0, writes = 0, lists = 0, deletes = 0, syncs = 0, barriers = 0, device_flushes = 0;
  bool flushes_known = true;
  for (int i = 0; i < options.iterations; ++i) {
    std::string params = fmt::format(R"({{"name":"new{}","age":{}}})", i, i % 90);
    floor_samples.push_back(floor.SampleMillis());
    counters.Reset();
    std::optional<uint64_t> flushes_before = DeviceFlushes(dir);
    start = Clock::now();
    api::MutationReport mutation = Check(graph->Mutate(kInsert, "insert.gq", "add_person", params), "mutate");
    samples.push_back(MillisSince(start));
    std::optional<uint64_t> flushes_after = DeviceFlushes(dir);
    if (!mutation.commit) Die("mutate", Internal("insert made no commit"));
    reads += counters.reads;
    writes += counters.writes;
    lists += counters.lists;
    deletes += counters.deletes;
    syncs += counters.sync_calls;
    barriers += counters.sync_barriers;
    if (flushes_before && flushes_after) {
      device_flushes += *flushes_after - *flushes_before;
    } else {
      flushes_known = false;
    }
  }
  double n = options.iterations;
  PrintLatency("mutate insert one Person", samples,
               fmt::format("store calls/op: reads={:.1f} writes={:.1f} lists={:.1f} deletes={:.1f} (total {:.1f}); "
                           "fsync calls/op={:.1f} in barriers/op={:.1f}; device flushes/op={}",
                           reads / n, writes / n, lists / n, deletes / n, (reads + writes + lists + deletes) / n,
                           syncs / n, barriers / n,
                           flushes_known ? fmt::format("{:.1f}", device_flushes / n) : std::string("n/a")));
  PrintLatency("  floor: same I/O, no engine", floor_samples, "(store calls only, sampled alternately)");

  cold_cli(fmt::format("cold CLI query neighbours (+{} ins)", options.iterations));

  // Cold CLI insert: a new `omnigraph mutate` process per keyed insert
  // (open, key check against the 100k persons, publication with every
  // fsync), on the graph as the inserts above left it.
  if (!options.cli.empty()) {
    std::string insert_file = dir + "/insert.gq";
    std::FILE* file = std::fopen(insert_file.c_str(), "w");
    std::fwrite(kInsert.data(), 1, kInsert.size(), file);
    std::fclose(file);
    std::vector<double> cold_inserts;
    for (int i = 0; i < std::min(options.iterations, 30); ++i) {
      double millis = TimeProcess({options.cli, "mutate", "--store", uri, "--query", insert_file, "add_person",
                                   "--params", fmt::format(R"({{"name":"cli{}","age":{}}})", i, i % 90)});
      if (millis < 0) Die("cli mutate", Internal("omnigraph mutate failed"));
      cold_inserts.push_back(millis);
    }
    PrintLatency("cold CLI insert one Person", cold_inserts);
  }
}

}  // namespace
}  // namespace omnigraph::bench

int main(int argc, char** argv) {
  omnigraph::bench::Options options;
  std::filesystem::path self = std::filesystem::absolute(argv[0]).parent_path();
  std::filesystem::path cli = self.parent_path() / "src" / "cli" / "omnigraph";
  if (std::filesystem::exists(cli)) options.cli = cli.string();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int value = std::atoi(argv[i + 1]);
    if (flag == "--persons") options.persons = value;
    else if (flag == "--knows") options.knows = value;
    else if (flag == "--iterations") options.iterations = value;
    else if (flag == "--cli") options.cli = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: graph_bench [--persons N] [--knows N] [--iterations N] [--cli PATH]\n");
      return 2;
    }
  }
  omnigraph::bench::Run(options);
  omnigraph::bench::DeleteEarlierRuns();
  return 0;
}
