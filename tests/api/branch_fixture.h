// The graph the branch tests run on (spec/branches.md Appendix A):
// ../shared/corpus/omnigraph-fixtures/test.pg + test.jsonl loaded on main
// (Persons Alice 30, Bob 25, Charlie 35, Diana 28; Knows edges), and
// helpers that read rows, heads, commit lists and branch lists exactly.
//
// The fixture files are read from ../shared whenever that folder is
// present (as it is in CI); a checkout without it uses the restated copy in
// support/changes_fixture.h, which the fixture checks byte for byte against
// the shared files when they exist, so the expected values below hold for
// both and no test is ever skipped.
#pragma once

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "exec/result_json.h"
#include "support/changes_fixture.h"
#include "support/shared_files.h"
#include "support/temp_dir.h"

namespace omnigraph::testing {

inline std::filesystem::path FixtureDir() {
  return std::filesystem::path(OMNIGRAPH_SHARED_DIR) / "corpus" / "omnigraph-fixtures";
}

// `name` (test.pg, test.jsonl) from ../shared when present, else the
// restated copy.
inline std::string FixtureText(const std::string& name, std::string_view restated) {
  std::filesystem::path file = FixtureDir() / name;
  if (!std::filesystem::is_regular_file(file)) return std::string(restated);
  std::string text = ReadFileText(file);
  EXPECT_EQ(text, restated) << file << " differs from the copy in support/changes_fixture.h";
  return text;
}

// Read queries over the fixture (get_person is test.gq's).
inline constexpr std::string_view kBranchQueries = R"(
query get_person($name: String) {
    match {
        $p: Person { name: $name }
    }
    return { $p.name, $p.age }
}
query people() {
    match { $p: Person }
    return { $p.name, $p.age }
    order { $p.name }
}
query person_count() {
    match { $p: Person }
    return { count($p) as n }
}
)";

// Each row of a read result as its cells' JSON joined by ",".
inline std::vector<std::string> RowsOf(const exec::QueryResult& result) {
  std::vector<std::string> rows;
  for (int64_t r = 0; r < result.row_count(); ++r) {
    std::string row;
    for (int c = 0; c < result.rows->num_columns(); ++c) {
      if (c > 0) row += ",";
      exec::AppendCellJson(&row, *result.rows->column(c), r);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

inline std::vector<std::string> IdsOf(const std::vector<graph::CommitRecord>& commits) {
  std::vector<std::string> ids;
  for (const auto& c : commits) ids.push_back(c.id);
  return ids;
}

// The four Persons of the fixture, as `people` returns them.
inline const std::vector<std::string> kFixturePeople = {R"("Alice",30)", R"("Bob",25)", R"("Charlie",35)",
                                                        R"("Diana",28)"};

// `people` plus one more row, in name order.
inline std::vector<std::string> PeopleWith(std::vector<std::string> rows, std::string extra) {
  rows.push_back(std::move(extra));
  std::sort(rows.begin(), rows.end());
  return rows;
}

// ChangesFixture's graph and helpers, initialised from the shared fixture
// files when they exist.
class BranchFixture : public ChangesFixture {
 protected:
  void SetUp() override {
    auto g = api::Omnigraph::Init(uri(), FixtureText("test.pg", kFixtureSchema), "test.pg");
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(FixtureText("test.jsonl", kFixtureData), "test.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_TRUE(loaded->commit.has_value());
    load_commit_ = *loaded->commit;
    auto commits = graph_->ListCommits();
    ASSERT_TRUE(commits.ok()) << commits.status().ToString();
    ASSERT_EQ(commits->size(), 2u);
    genesis_ = commits->back();
  }

  graph::CommitRecord InsertPerson(const std::string& name, int age, const std::string& branch = "main") {
    return Mutate("insert_person", R"({"name":")" + name + R"(","age":)" + std::to_string(age) + "}", branch);
  }
  graph::CommitRecord SetAge(const std::string& name, int age, const std::string& branch = "main") {
    return Mutate("set_age", R"({"name":")" + name + R"(","age":)" + std::to_string(age) + "}", branch);
  }

  void Create(const std::string& name, const std::string& from = "main") {
    auto created = graph_->BranchCreate(name, from);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    EXPECT_EQ(created->name, name);
    EXPECT_EQ(created->from, from);
  }
  // A merge that must succeed.
  api::BranchMergeReport Merge(const std::string& source, const std::string& target = "main",
                               const api::BranchMergeOptions& options = {}) {
    auto report = graph_->BranchMerge(source, target, options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : api::BranchMergeReport{};
  }

  // Rows of read query `name` of kBranchQueries against `target`.
  std::vector<std::string> Read(const std::string& name, const std::string& params = "{}",
                                const api::ReadTarget& target = {}) {
    auto result = graph_->Query(kBranchQueries, "queries.gq", name, params, target);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? RowsOf(*result) : std::vector<std::string>{"<error>"};
  }
  std::vector<std::string> People(const std::string& branch = "main") { return Read("people", "{}", {branch}); }
  std::vector<std::string> PeopleAt(const std::string& commit) {
    return Read("people", "{}", api::ReadTarget{"main", commit});
  }
  std::vector<std::string> GetPerson(const std::string& name, const std::string& branch = "main") {
    return Read("get_person", R"({"name":")" + name + R"("})", {branch});
  }

  uint64_t ManifestVersion(const std::string& branch = "main") {
    auto info = graph_->Snapshot(branch);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? info->graph_manifest_version : 0;
  }
  std::vector<graph::CommitRecord> Commits(const std::string& branch = "main") {
    auto commits = graph_->ListCommits(branch);
    EXPECT_TRUE(commits.ok()) << commits.status().ToString();
    return commits.ok() ? *commits : std::vector<graph::CommitRecord>{};
  }
  std::vector<std::string> Branches() {
    auto names = graph_->BranchList();
    EXPECT_TRUE(names.ok()) << names.status().ToString();
    return names.ok() ? *names : std::vector<std::string>{"<error>"};
  }
  std::string ExportOf(const std::string& branch = "main") {
    auto text = graph_->Export(branch, {});
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    return text.ok() ? *text : "<error>";
  }
  // Everything a reader can observe of a branch: its head, manifest
  // version, every row and its commit list.
  struct BranchState {
    std::string head;
    uint64_t version = 0;
    std::string rows;
    std::vector<std::string> commits;
    bool operator==(const BranchState&) const = default;
  };
  BranchState StateOf(const std::string& branch = "main") {
    return BranchState{Head(branch), ManifestVersion(branch), ExportOf(branch), IdsOf(Commits(branch))};
  }
};

}  // namespace omnigraph::testing
