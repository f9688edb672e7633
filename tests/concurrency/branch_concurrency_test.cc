// Branch writes and merges from several processes at once
// (spec/branches.md BR-9; design/write-path.md: the conditional __manifest
// publication is the only cross-process serialization point).
//
// 4 forked processes share one graph for a bounded time
// (OMNIGRAPH_CONCURRENCY_SECONDS, default 30): two insert unique keys on
// branch `feature`, one inserts unique keys on main, one merges `feature`
// into main in a loop. Each logs, fsynced, every acknowledged write (key,
// commit id, times) and every refusal (error code). Afterwards the parent
// merges once more, alone, and checks:
//   * every refusal is typed (read_set_changed only: with unique keys no
//     key or merge conflict can arise);
//   * every acknowledged write is on its branch exactly once, with its
//     values, and each branch holds nothing else;
//   * every acknowledged commit is in its branch's history at its version;
//   * every feature write acknowledged before a merge started is in that
//     merge's captured source head, and so on main at the merge commit;
//   * every merge commit equals the three-way merge, recomputed here from
//     its parents (ShowCommit) and a merge base computed here by BR-9.3,
//     of the exports at those commits; its outcome matches that base.
// No assertion depends on timing: times are only compared with each other
// (one system-wide monotonic clock).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace branch_concurrency_test {

using nlohmann::json;

constexpr std::string_view kSchema = R"(
node Item { key: String @key  writer: String  seq: I32 }
)";

constexpr std::string_view kMutations = R"(
query add($key: String, $writer: String, $seq: I32) { insert Item { key: $key, writer: $writer, seq: $seq } }
)";

constexpr char kFeature[] = "feature";
constexpr int kDefaultSeconds = 30;
// Each writer keeps going past the deadline until it has this many
// acknowledged writes, so even a very short run checks something.
constexpr int kMinAcknowledged = 3;
constexpr int kMaxWritesPerWriter = 9999;  // keys have four digits

int RunSeconds() {
  const char* text = std::getenv("OMNIGRAPH_CONCURRENCY_SECONDS");
  if (text == nullptr || *text == '\0') return kDefaultSeconds;
  int seconds = std::atoi(text);
  return seconds > 0 ? seconds : kDefaultSeconds;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) _exit(3);
    done += static_cast<size_t>(n);
  }
}

void Log(int fd, const json& record) {
  WriteAll(fd, record.dump() + "\n");
  ::fsync(fd);
}

json RefusalOf(const Status& status) {
  return {{"ok", false},
          {"code", std::string(ErrorCodeName(status.code()))},
          {"http", status.http_status()},
          {"message", status.message()}};
}

enum class Role { kFeatureWriter1, kFeatureWriter2, kMainWriter, kMerger };

struct Child {
  Role role;
  std::string name;    // writer name and key prefix ("w1", "w2", "m"), or "merger"
  std::string branch;  // where its writes go
};

const std::vector<Child>& Children() {
  static const std::vector<Child> children = {
      {Role::kFeatureWriter1, "w1", kFeature},
      {Role::kFeatureWriter2, "w2", kFeature},
      {Role::kMainWriter, "m", "main"},
      {Role::kMerger, "merger", "main"},
  };
  return children;
}

std::string KeyOf(const std::string& writer, int seq) { return fmt::format("{}-{:04}", writer, seq); }

// The body of one child process: never returns.
[[noreturn]] void RunChild(const std::string& uri, const std::string& log_path, const Child& child, int go_fd,
                           int seconds) {
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log < 0) _exit(2);
  auto g = Omnigraph::Open(uri);
  if (!g.ok()) {
    Log(log, json{{"open_error", g.status().ToString()}});
    _exit(4);
  }
  char byte;
  while (::read(go_fd, &byte, 1) > 0) {
  }
  ::close(go_fd);
  const int64_t deadline = NowNs() + int64_t{seconds} * 1'000'000'000;

  if (child.role == Role::kMerger) {
    while (NowNs() < deadline) {
      json record = {{"op", "merge"}, {"start_ns", NowNs()}};
      auto r = (*g)->BranchMerge(kFeature, "main");
      record["end_ns"] = NowNs();
      if (r.ok()) {
        record["ok"] = true;
        record["outcome"] = r->outcome;
        if (r->commit) record["commit"] = r->commit->id;
      } else {
        record.update(RefusalOf(r.status()));
      }
      Log(log, record);
    }
    ::close(log);
    _exit(0);
  }

  int acknowledged = 0;
  for (int seq = 1; seq <= kMaxWritesPerWriter && (NowNs() < deadline || acknowledged < kMinAcknowledged); ++seq) {
    std::string key = KeyOf(child.name, seq);
    json record = {{"op", "insert"}, {"branch", child.branch}, {"key", key}, {"seq", seq}, {"start_ns", NowNs()}};
    auto r = (*g)->Mutate(kMutations, "mutations.gq", "add",
                          json{{"key", key}, {"writer", child.name}, {"seq", seq}}.dump(), child.branch);
    record["end_ns"] = NowNs();
    if (r.ok()) {
      ++acknowledged;
      record["ok"] = true;
      record["affected"] = r->affected_nodes;
      if (r->commit) {
        record["commit"] = r->commit->id;
        record["manifest_version"] = r->commit->manifest_version;
      }
    } else {
      record.update(RefusalOf(r.status()));
    }
    Log(log, record);
  }
  ::close(log);
  _exit(0);
}

std::vector<json> ReadLog(const std::string& path) {
  std::vector<json> records;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) records.push_back(json::parse(line));
  return records;
}

// One Item row: key -> (writer, seq).
using Rows = std::map<std::string, std::pair<std::string, int>>;

// The Items of an export, failing on a key present twice.
Rows RowsOf(const std::string& ndjson, const std::string& where) {
  Rows rows;
  std::istringstream lines(ndjson);
  for (std::string line; std::getline(lines, line);) {
    json row = json::parse(line);
    EXPECT_EQ(row["type"], "Item") << where;
    const json& data = row["data"];
    std::string key = data["key"];
    EXPECT_EQ(data["id"], key) << where;
    bool inserted = rows.emplace(key, std::make_pair(data["writer"].get<std::string>(), data["seq"].get<int>())).second;
    EXPECT_TRUE(inserted) << where << ": key " << key << " is present twice";
  }
  return rows;
}

Rows RowsAtCommit(Omnigraph& g, const std::string& commit) {
  ReadTarget target;
  target.snapshot = commit;
  auto exported = g.Export(target, {"Item"});
  EXPECT_TRUE(exported.ok()) << commit << ": " << exported.status().ToString();
  if (!exported.ok()) return {};
  return RowsOf(*exported, "commit " + commit);
}

// BR-9.6 over one table, rows matched by id (absence is a value). Returns
// the result and counts conflicts into `conflicts`.
Rows ThreeWayMerge(const Rows& base, const Rows& source, const Rows& target, int* conflicts) {
  std::set<std::string> ids;
  for (const Rows* rows : {&base, &source, &target}) {
    for (const auto& [key, value] : *rows) ids.insert(key);
  }
  auto lookup = [](const Rows& rows, const std::string& key) -> std::optional<std::pair<std::string, int>> {
    auto it = rows.find(key);
    if (it == rows.end()) return std::nullopt;
    return it->second;
  };
  Rows result;
  for (const std::string& key : ids) {
    auto b = lookup(base, key), s = lookup(source, key), t = lookup(target, key);
    std::optional<std::pair<std::string, int>> merged;
    if (s == b) {
      merged = t;
    } else if (t == b) {
      merged = s;
    } else if (s == t) {
      merged = t;
    } else {
      ++*conflicts;
      merged = t;
    }
    if (merged) result.emplace(key, *merged);
  }
  return result;
}

struct CommitGraph {
  std::map<std::string, graph::CommitRecord> commits;

  void Add(const std::vector<graph::CommitRecord>& records) {
    for (const graph::CommitRecord& c : records) commits.emplace(c.id, c);
  }
  std::vector<std::string> Parents(const std::string& id) const {
    std::vector<std::string> parents;
    auto it = commits.find(id);
    if (it == commits.end()) return parents;
    if (it->second.parent_id) parents.push_back(*it->second.parent_id);
    if (it->second.merged_parent_id) parents.push_back(*it->second.merged_parent_id);
    return parents;
  }
  // Shortest distance from `head` to each ancestor (itself included), over both parent links.
  std::map<std::string, int> Distances(const std::string& head) const {
    std::map<std::string, int> distance = {{head, 0}};
    std::deque<std::string> queue = {head};
    while (!queue.empty()) {
      std::string id = queue.front();
      queue.pop_front();
      for (const std::string& parent : Parents(id)) {
        if (distance.emplace(parent, distance[id] + 1).second) queue.push_back(parent);
      }
    }
    return distance;
  }
  // BR-9.3: the common ancestor with the smallest distance sum; ties to the
  // larger generation, then created_at, then id bytewise.
  std::optional<std::string> MergeBase(const std::string& source, const std::string& target) const {
    auto from_source = Distances(source), from_target = Distances(target);
    std::optional<std::string> best;
    std::tuple<int, int64_t, int64_t, std::string> best_rank;
    for (const auto& [id, ds] : from_source) {
      auto it = from_target.find(id);
      if (it == from_target.end()) continue;
      const graph::CommitRecord& c = commits.at(id);
      // Smaller is better: negate what the rule prefers larger.
      std::tuple<int, int64_t, int64_t, std::string> rank = {ds + it->second, -static_cast<int64_t>(c.generation),
                                                            -c.created_at_us, ""};
      if (!best || rank < best_rank || (rank == best_rank && id > *best)) {
        best = id;
        best_rank = rank;
      }
    }
    return best;
  }
};

TEST(BranchConcurrency, WritesOnBothBranchesAndMergesFromFourProcessesStayConsistent) {
  const int seconds = RunSeconds();
  RecordProperty("seconds", seconds);
  testing::TempDir dir;
  std::string uri = dir.path() + "/g";
  {
    auto g = Omnigraph::Init(uri, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto seed = (*g)->Mutate(kMutations, "mutations.gq", "add",
                             json{{"key", "seed"}, {"writer", "seed"}, {"seq", 0}}.dump());
    ASSERT_TRUE(seed.ok()) << seed.status().ToString();
    auto created = (*g)->BranchCreate(kFeature, "main");
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> pids;
  for (size_t c = 0; c < Children().size(); ++c) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      RunChild(uri, dir.path() + "/" + Children()[c].name + ".log", Children()[c], go[0], seconds);
    }
    pids.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);  // release the barrier
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " was killed by signal " << WTERMSIG(status);
    ASSERT_EQ(WEXITSTATUS(status), 0);
  }

  auto opened = Omnigraph::Open(uri);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Omnigraph& g = **opened;

  // Read the logs. Expected rows per branch from the acknowledged writes.
  Rows acked_feature, acked_main = {{"seed", {"seed", 0}}};
  std::map<std::string, json> feature_writes;  // key -> record
  std::vector<json> merges;
  std::map<std::string, int> refusals;  // code -> count
  std::set<std::string> refused_keys;
  for (const Child& child : Children()) {
    std::vector<json> records = ReadLog(dir.path() + "/" + child.name + ".log");
    int acknowledged = 0;
    for (const json& r : records) {
      SCOPED_TRACE(child.name + ": " + r.dump());
      ASSERT_TRUE(r.contains("ok")) << "the child could not run";
      if (!r["ok"]) {
        ++refusals[r["code"].get<std::string>()];
        // Keys are unique and nothing is deleted: a concurrent write or merge
        // can only lose its read set (409), never conflict on a key or row.
        EXPECT_EQ(r["code"], "read_set_changed");
        EXPECT_EQ(r["http"], 409);
        if (r["op"] == "insert") refused_keys.insert(r["key"].get<std::string>());
        continue;
      }
      ++acknowledged;
      if (r["op"] == "merge") {
        merges.push_back(r);
        continue;
      }
      EXPECT_EQ(r["affected"], 1);
      ASSERT_TRUE(r.contains("commit"));
      Rows& expected = child.branch == kFeature ? acked_feature : acked_main;
      EXPECT_TRUE(expected.emplace(r["key"].get<std::string>(), std::make_pair(child.name, r["seq"].get<int>())).second);
      if (child.branch == kFeature) feature_writes[r["key"].get<std::string>()] = r;
    }
    if (child.role != Role::kMerger) {
      EXPECT_GE(acknowledged, kMinAcknowledged) << child.name;
    }
    RecordProperty(child.name + "_acknowledged", acknowledged);
  }
  RecordProperty("refusals", static_cast<int>(refusals["read_set_changed"]));

  // One last merge, alone: main must then hold every acknowledged write.
  const int64_t final_start = NowNs();
  auto final_merge = g.BranchMerge(kFeature, "main");
  ASSERT_TRUE(final_merge.ok()) << final_merge.status().ToString();
  {
    json record = {{"op", "merge"}, {"ok", true}, {"start_ns", final_start}, {"outcome", final_merge->outcome}};
    if (final_merge->commit) record["commit"] = final_merge->commit->id;
    merges.push_back(record);
  }

  // Each branch holds exactly its acknowledged writes, each once; main also
  // holds every feature write (all merged by now).
  auto feature_export = g.Export(kFeature, {"Item"});
  ASSERT_TRUE(feature_export.ok()) << feature_export.status().ToString();
  Rows feature_rows = RowsOf(*feature_export, "feature head");
  Rows expected_feature = acked_feature;
  expected_feature.emplace("seed", std::make_pair("seed", 0));  // inherited from main at creation
  EXPECT_EQ(feature_rows, expected_feature);
  auto main_export = g.Export("main", {"Item"});
  ASSERT_TRUE(main_export.ok()) << main_export.status().ToString();
  Rows main_rows = RowsOf(*main_export, "main head");
  Rows expected_main = acked_main;
  expected_main.insert(acked_feature.begin(), acked_feature.end());
  EXPECT_EQ(main_rows, expected_main);
  for (const std::string& key : refused_keys) {
    EXPECT_EQ(feature_rows.count(key) + main_rows.count(key), 0u) << "refused key " << key << " is present";
  }

  // Histories: every acknowledged commit is in its branch's history, once, at
  // the manifest version it reported.
  CommitGraph history;
  std::map<std::string, std::map<std::string, uint64_t>> versions;  // branch -> commit -> manifest version
  for (const std::string& branch : {std::string("main"), std::string(kFeature)}) {
    auto commits = g.ListCommits(branch);
    ASSERT_TRUE(commits.ok()) << commits.status().ToString();
    history.Add(*commits);
    for (const graph::CommitRecord& c : *commits) {
      EXPECT_TRUE(versions[branch].emplace(c.id, c.manifest_version).second) << "duplicate commit " << c.id;
    }
  }
  for (const Child& child : Children()) {
    if (child.role == Role::kMerger) continue;
    for (const json& r : ReadLog(dir.path() + "/" + child.name + ".log")) {
      if (!r["ok"]) continue;
      SCOPED_TRACE(r.dump());
      std::string id = r["commit"];
      ASSERT_EQ(versions[child.branch].count(id), 1u) << "acknowledged commit missing from " << child.branch;
      EXPECT_EQ(versions[child.branch][id], r["manifest_version"].get<uint64_t>());
      auto shown = g.ShowCommit(id);
      ASSERT_TRUE(shown.ok()) << shown.status().ToString();
      EXPECT_EQ(shown->graph_branch.value_or("main"), child.branch);
    }
  }

  // Every merge: parents, outcome and rows recomputed from its parents.
  int merged = 0, fast_forwards = 0, up_to_date = 0;
  std::set<std::string> merge_commits;
  for (const json& m : merges) {
    SCOPED_TRACE(m.dump());
    if (m["outcome"] == "already_up_to_date") {
      ++up_to_date;
      EXPECT_FALSE(m.contains("commit"));
      continue;
    }
    ASSERT_TRUE(m.contains("commit"));
    std::string id = m["commit"];
    EXPECT_TRUE(merge_commits.insert(id).second) << "merge commit reported twice";
    ASSERT_EQ(versions["main"].count(id), 1u) << "merge commit missing from main's history";
    auto shown = g.ShowCommit(id);
    ASSERT_TRUE(shown.ok()) << shown.status().ToString();
    ASSERT_TRUE(shown->parent_id.has_value());
    ASSERT_TRUE(shown->merged_parent_id.has_value());
    EXPECT_FALSE(shown->graph_branch.has_value()) << "merge published off main";
    const std::string target = *shown->parent_id, source = *shown->merged_parent_id;
    EXPECT_EQ(versions[kFeature].count(source), 1u) << "source parent " << source << " is not a feature commit";
    EXPECT_EQ(versions["main"].count(target), 1u) << "target parent " << target << " is not on main";
    ASSERT_EQ(history.commits.count(source), 1u);
    ASSERT_EQ(history.commits.count(target), 1u);
    // The source head is a feature commit (a merge of feature's inherited
    // head publishes nothing); the target head was published on main.
    EXPECT_EQ(history.commits.at(source).graph_branch.value_or("main"), kFeature);
    EXPECT_FALSE(history.commits.at(target).graph_branch.has_value());
    EXPECT_EQ(shown->generation,
              std::max(history.commits.at(source).generation, history.commits.at(target).generation) + 1);
    auto base = history.MergeBase(source, target);
    ASSERT_TRUE(base.has_value()) << "no common ancestor of " << source << " and " << target;
    ASSERT_NE(*base, source) << "a merge of an included source published a commit";
    if (*base == target) {
      ++fast_forwards;
      EXPECT_EQ(m["outcome"], "fast_forward");
    } else {
      ++merged;
      EXPECT_EQ(m["outcome"], "merged");
    }
    int conflicts = 0;
    Rows recomputed = ThreeWayMerge(RowsAtCommit(g, *base), RowsAtCommit(g, source), RowsAtCommit(g, target),
                                    &conflicts);
    EXPECT_EQ(conflicts, 0);
    Rows at_merge = RowsAtCommit(g, id);
    EXPECT_EQ(at_merge, recomputed);

    // Every feature write acknowledged before the merge started is in its
    // captured source head, and every one in that head is on main here.
    const std::map<std::string, int> in_source = history.Distances(source);
    for (const auto& [key, w] : feature_writes) {
      bool included = in_source.count(w["commit"].get<std::string>()) != 0;
      if (w["end_ns"].get<int64_t>() < m["start_ns"].get<int64_t>()) {
        EXPECT_TRUE(included) << key << " was acknowledged before the merge started but its source head "
                              << source << " lacks it";
      }
      if (included) {
        EXPECT_EQ(at_merge.count(key), 1u) << key << " is in the source head but not merged";
      }
    }
  }
  RecordProperty("merged", merged);
  RecordProperty("fast_forwards", fast_forwards);
  RecordProperty("up_to_date", up_to_date);
  EXPECT_EQ(merged + fast_forwards, static_cast<int>(merge_commits.size()));
}

}  // namespace branch_concurrency_test
}  // namespace omnigraph::api
