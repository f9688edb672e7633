// Several processes writing one graph at once (design/write-path.md: the
// single conditional __manifest publication is the only cross-process
// serialization point; spec/surface.md §3.2 "Concurrency").
//
// 4 forked processes each open the graph and run 25 mutations (keyed
// inserts with distinct keys, inserts of generated-id nodes, updates of a
// shared seed row and of their own rows). Every outcome is recorded by the
// child in its own fsynced log; the parent then checks that every
// acknowledged write is present exactly once, every refused one is absent,
// every refusal is typed, and the commit history holds exactly the
// acknowledged commits. Children start together behind a pipe barrier; no
// assertion depends on timing.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "compiler/entity_id.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace multi_process_write_test {

using nlohmann::json;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Note { body: String }
)";

constexpr std::string_view kMutations = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query note($body: String) { insert Note { body: $body } }
query set_age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
)";

constexpr std::string_view kReads = R"(
query age_of($name: String) { match { $p: Person { name: $name } } return { $p.age } }
)";

constexpr int kChildren = 4;
constexpr int kMutationsPerChild = 25;
constexpr int kSeedAge = 7;
constexpr size_t kSeedCommits = 1;  // the insert of the shared "seed" row

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) _exit(3);
    done += static_cast<size_t>(n);
  }
}

// The body of one child process: never returns.
[[noreturn]] void RunChild(const std::string& uri, const std::string& log_path, int child, int go_fd) {
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (log < 0) _exit(2);
  auto g = Omnigraph::Open(uri);
  if (!g.ok()) {
    WriteAll(log, json{{"open_error", g.status().ToString()}}.dump() + "\n");
    ::fsync(log);
    _exit(4);
  }
  // Barrier: every child opened the graph; start when the parent closes the pipe.
  char byte;
  while (::read(go_fd, &byte, 1) > 0) {
  }
  ::close(go_fd);

  std::string own_person;  // the last of this child's acknowledged keyed inserts
  for (int i = 0; i < kMutationsPerChild; ++i) {
    json record;
    std::string name, params;
    switch (i % 4) {
      case 0: {
        std::string key = "p" + std::to_string(child) + "_" + std::to_string(i);
        record = {{"op", "person"}, {"target", key}, {"value", i}};
        name = "add_person";
        params = json{{"name", key}, {"age", i}}.dump();
        break;
      }
      case 1: {
        std::string body = "n" + std::to_string(child) + "_" + std::to_string(i);
        record = {{"op", "note"}, {"target", body}};
        name = "note";
        params = json{{"body", body}}.dump();
        break;
      }
      default: {
        // i % 4 == 2: the shared seed row; i % 4 == 3: this child's own row.
        std::string target = (i % 4 == 3 && !own_person.empty()) ? own_person : "seed";
        int value = 1000 * (child + 1) + i;
        record = {{"op", "update"}, {"target", target}, {"value", value}};
        name = "set_age";
        params = json{{"name", target}, {"age", value}}.dump();
        break;
      }
    }
    auto r = (*g)->Mutate(kMutations, "mutations.gq", name, params);
    record["ok"] = r.ok();
    if (r.ok()) {
      record["affected"] = r->affected_nodes;
      if (r->commit) {
        record["commit"] = r->commit->id;
        record["manifest_version"] = r->commit->manifest_version;
      }
      if (record["op"] == "person") own_person = record["target"];
    } else {
      record["code"] = std::string(ErrorCodeName(r.status().code()));
      record["http"] = r.status().http_status();
      record["message"] = r.status().message();
    }
    WriteAll(log, record.dump() + "\n");
    ::fsync(log);
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

TEST(MultiProcessWrite, AcknowledgedWritesArePresentOnceAndRefusalsAreAbsentAndTyped) {
  testing::TempDir dir;
  std::string uri = dir.path() + "/g";
  {
    auto g = Omnigraph::Init(uri, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto seed = (*g)->Mutate(kMutations, "mutations.gq", "add_person",
                             json{{"name", "seed"}, {"age", kSeedAge}}.dump());
    ASSERT_TRUE(seed.ok()) << seed.status().ToString();
  }

  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      RunChild(uri, dir.path() + "/child" + std::to_string(c) + ".log", c, go[0]);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);  // release the barrier
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " was killed by signal " << WTERMSIG(status);
    ASSERT_EQ(WEXITSTATUS(status), 0);
  }

  auto g = Omnigraph::Open(uri);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto commits = (*g)->ListCommits();
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  std::map<std::string, uint64_t> commit_versions;  // id -> manifest version
  for (const graph::CommitRecord& c : *commits) {
    EXPECT_TRUE(commit_versions.emplace(c.id, c.manifest_version).second) << "duplicate commit id " << c.id;
  }

  // Final rows: name -> ages (one entry per row), note body -> row count.
  std::map<std::string, std::vector<json>> person_rows;
  std::map<std::string, int> note_rows;
  auto people = (*g)->Export("main", {"Person"});
  ASSERT_TRUE(people.ok()) << people.status().ToString();
  std::istringstream people_lines(*people);
  for (std::string line; std::getline(people_lines, line);) {
    json row = json::parse(line);
    person_rows[row["data"]["name"]].push_back(row["data"]["age"]);
  }
  auto notes = (*g)->Export("main", {"Note"});
  ASSERT_TRUE(notes.ok()) << notes.status().ToString();
  std::istringstream note_lines(*notes);
  std::set<std::string> note_ids;
  for (std::string line; std::getline(note_lines, line);) {
    json row = json::parse(line);
    ++note_rows[row["data"]["body"]];
    EXPECT_TRUE(note_ids.insert(row["data"]["id"].get<std::string>()).second) << line;
  }

  std::vector<json> acked_updates;
  size_t acknowledged = 0, refused = 0, logged = 0;
  std::set<std::string> acked_commits;
  std::set<std::string> expected_people = {"seed"}, expected_notes;
  std::map<std::string, int> expected_age = {{"seed", kSeedAge}};
  std::map<std::string, uint64_t> last_write = {{"seed", 0}};  // name -> manifest version of its last value
  for (int c = 0; c < kChildren; ++c) {
    std::vector<json> records = ReadLog(dir.path() + "/child" + std::to_string(c) + ".log");
    ASSERT_EQ(records.size(), static_cast<size_t>(kMutationsPerChild)) << "child " << c;
    uint64_t previous_version = 0;
    for (const json& r : records) {
      ++logged;
      SCOPED_TRACE(r.dump());
      const std::string op = r["op"], target = r["target"];
      if (r["ok"]) {
        ++acknowledged;
        // Every acknowledged mutation here changes exactly one row: one commit.
        EXPECT_EQ(r["affected"], 1);
        ASSERT_TRUE(r.contains("commit"));
        std::string id = r["commit"];
        uint64_t version = r["manifest_version"];
        EXPECT_TRUE(acked_commits.insert(id).second) << "commit acknowledged twice";
        ASSERT_EQ(commit_versions.count(id), 1u) << "acknowledged commit missing from ListCommits";
        EXPECT_EQ(commit_versions[id], version);
        EXPECT_GT(version, previous_version);  // one process's writes are sequential
        previous_version = version;
        if (op == "person") {
          expected_people.insert(target);
          expected_age[target] = r["value"];
          last_write[target] = version;
        } else if (op == "note") {
          expected_notes.insert(target);
        } else {
          acked_updates.push_back(r);
          ASSERT_EQ(last_write.count(target), 1u);
          if (version > last_write[target]) {
            last_write[target] = version;
            expected_age[target] = r["value"];
          }
        }
      } else {
        ++refused;
        // The only refusal a well-formed concurrent write may get.
        EXPECT_EQ(r["code"], "read_set_changed");
        EXPECT_EQ(r["http"], 409);
      }
    }
  }
  RecordProperty("acknowledged", static_cast<int>(acknowledged));
  RecordProperty("refused", static_cast<int>(refused));
  EXPECT_EQ(logged, static_cast<size_t>(kChildren * kMutationsPerChild));
  EXPECT_EQ(acknowledged + refused, logged);

  // Exactly the acknowledged rows, each once, with the last acknowledged value.
  std::set<std::string> present_people;
  for (const auto& [name, ages] : person_rows) {
    present_people.insert(name);
    EXPECT_EQ(ages.size(), 1u) << "person " << name << " is present " << ages.size() << " times";
    ASSERT_EQ(expected_age.count(name), 1u) << "person " << name << " was never acknowledged";
    EXPECT_EQ(ages.front(), expected_age[name]) << "person " << name;
  }
  EXPECT_EQ(present_people, expected_people);
  std::set<std::string> present_notes;
  for (const auto& [body, count] : note_rows) {
    present_notes.insert(body);
    EXPECT_EQ(count, 1) << "note " << body;
  }
  EXPECT_EQ(present_notes, expected_notes);

  // Each acknowledged update is what its own commit shows (time travel).
  for (const json& r : acked_updates) {
    SCOPED_TRACE(r.dump());
    ReadTarget at;
    at.snapshot = r["commit"].get<std::string>();
    auto read = (*g)->Query(kReads, "reads.gq", "age_of", json{{"name", r["target"]}}.dump(), at);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ(read->row_count(), 1);
    EXPECT_EQ(GetScalar(*read->rows->column(0), 0), Scalar::Int(r["value"].get<int64_t>()));
  }

  // History: genesis + seed + one commit per acknowledged mutation, nothing else.
  EXPECT_EQ(commits->size(), 1 + kSeedCommits + acknowledged);
  EXPECT_EQ(acked_commits.size(), acknowledged);
  EXPECT_EQ(commits->front().manifest_version, 1 + kSeedCommits + acknowledged);

  // The graph stays writable.
  auto next = (*g)->Mutate(kMutations, "mutations.gq", "set_age", json{{"name", "seed"}, {"age", 1}}.dump());
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ((*g)->ListCommits()->size(), 2 + kSeedCommits + acknowledged);
}

// Generated ids (unkeyed inserts) and intent nonces come from Ulid::New(),
// which is monotonic within a millisecond. A forked writer must not continue
// its parent's sequence: two children forked in the same millisecond would
// mint the same "fresh" entity id.
TEST(MultiProcessWrite, ForkedProcessesNeverRepeatGeneratedIds) {
  for (int round = 0; round < 200; ++round) {
    std::string parent_first = compiler::NewEntityId();
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    std::vector<pid_t> children;
    for (int c = 0; c < 3; ++c) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(out[0]);
        WriteAll(out[1], compiler::NewEntityId() + "\n");
        _exit(0);
      }
      children.push_back(pid);
    }
    ::close(out[1]);
    std::set<std::string> ids = {parent_first, compiler::NewEntityId()};
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    ::close(out[0]);
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    std::istringstream lines(text);
    size_t received = 0;
    for (std::string line; std::getline(lines, line); ++received) ids.insert(line);
    ASSERT_EQ(received, 3u);
    ASSERT_EQ(ids.size(), 5u) << "round " << round << ": a forked process repeated a generated id";
  }
}

}  // namespace multi_process_write_test
}  // namespace omnigraph::api
