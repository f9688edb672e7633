// The graph the change tests run on: spec/branches.md Appendix A's fixture
// (corpus/omnigraph-fixtures/test.pg + test.jsonl, restated here so the
// expected values sit next to the data) loaded on main, and builders for
// the changes it produces.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "exec/changes/change.h"
#include "support/change_printers.h"
#include "support/temp_dir.h"

namespace omnigraph::testing {

inline constexpr std::string_view kFixtureSchema = R"(node Person {
    name: String @key
    age: I32?
}

node Company {
    name: String @key
}

edge Knows: Person -> Person {
    since: Date?
}

edge WorksAt: Person -> Company
)";

inline constexpr std::string_view kFixtureData = R"({"type": "Person", "data": {"name": "Alice", "age": 30}}
{"type": "Person", "data": {"name": "Bob", "age": 25}}
{"type": "Person", "data": {"name": "Charlie", "age": 35}}
{"type": "Person", "data": {"name": "Diana", "age": 28}}
{"type": "Company", "data": {"name": "Acme"}}
{"type": "Company", "data": {"name": "Globex"}}
{"edge": "Knows", "from": "Alice", "to": "Bob"}
{"edge": "Knows", "from": "Alice", "to": "Charlie"}
{"edge": "Knows", "from": "Bob", "to": "Diana"}
{"edge": "WorksAt", "from": "Alice", "to": "Acme"}
{"edge": "WorksAt", "from": "Bob", "to": "Globex"}
)";

inline constexpr std::string_view kFixtureMutations = R"(
query insert_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query set_age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query remove_person($name: String) { delete Person where name = $name }
)";

// Type ids of the fixture: stable ids number node types, then edge types,
// each in lexical order of their names (compiler/catalog.cc).
inline constexpr std::string_view kCompanyId = "0000000000000001";
inline constexpr std::string_view kPersonId = "0000000000000002";
inline constexpr std::string_view kKnowsId = "0000000000000003";
inline constexpr std::string_view kWorksAtId = "0000000000000004";

inline std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// Images of the fixture's types: user properties in table column order
// (properties are stored by name, so Person's `age` precedes `name`),
// values as export JSON.
inline exec::EntityImage PersonImage(const std::string& name, std::optional<int> age) {
  return exec::EntityImage{{{"age", age ? std::to_string(*age) : "null"}, {"name", Quoted(name)}}, std::nullopt};
}
inline exec::EntityImage CompanyImage(const std::string& name) {
  return exec::EntityImage{{{"name", Quoted(name)}}, std::nullopt};
}
inline exec::EntityImage KnowsImage(const std::string& from, const std::string& to) {
  return exec::EntityImage{{{"since", "null"}}, exec::Endpoints{from, to}};
}
inline exec::EntityImage WorksAtImage(const std::string& from, const std::string& to) {
  return exec::EntityImage{{}, exec::Endpoints{from, to}};
}

inline exec::EntityChange Change(exec::EntityKind kind, std::string_view type_id, std::string type_name, std::string id,
                                 exec::ChangeOp op, std::optional<exec::EntityImage> before,
                                 std::optional<exec::EntityImage> after) {
  return exec::EntityChange{kind,
                            exec::EntityType{std::string(type_id), std::move(type_name)},
                            std::move(id),
                            op,
                            std::move(before),
                            std::move(after)};
}
inline exec::EntityChange PersonInserted(const std::string& name, std::optional<int> age) {
  return Change(exec::EntityKind::kNode, kPersonId, "Person", name, exec::ChangeOp::kInsert, std::nullopt,
                PersonImage(name, age));
}

// Ids of the changes, in order.
inline std::vector<std::string> IdsOf(const std::vector<exec::EntityChange>& changes) {
  std::vector<std::string> ids;
  for (const auto& c : changes) ids.push_back(c.id);
  return ids;
}

class ChangesFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = api::Omnigraph::Init(uri(), kFixtureSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(kFixtureData, "test.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ASSERT_TRUE(loaded->commit.has_value());
    load_commit_ = *loaded->commit;
    auto commits = graph_->ListCommits();
    ASSERT_TRUE(commits.ok() && commits->size() == 2);
    genesis_ = commits->back();
  }

  std::string uri() const { return dir_.path() + "/g"; }
  api::Omnigraph& db() { return *graph_; }

  // A mutation that must publish a commit.
  graph::CommitRecord Mutate(const std::string& name, const std::string& params, const std::string& branch = "main") {
    auto report = graph_->Mutate(kFixtureMutations, "mutations.gq", name, params, branch);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok() || !report->commit) {
      ADD_FAILURE() << name << " published no commit";
      return {};
    }
    return *report->commit;
  }
  // A merge load that must publish a commit.
  graph::CommitRecord LoadRows(std::string_view rows, const std::string& branch = "main") {
    auto report = graph_->Load(rows, "rows.jsonl", api::LoadMode::kMerge, branch);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok() || !report->commit) {
      ADD_FAILURE() << "the load published no commit";
      return {};
    }
    return *report->commit;
  }
  std::string Head(const std::string& branch = "main") {
    auto info = graph_->Snapshot(branch);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? info->head_commit_id : "";
  }
  // The id of the `type` edge from `from` to `to` on `branch` (edge ids
  // are minted ULIDs).
  std::string EdgeId(const std::string& type, const std::string& from, const std::string& to,
                     const std::string& branch = "main") {
    auto snapshot = graph_->store().Latest(branch);
    EXPECT_TRUE(snapshot.ok());
    const graph::TableEntry* table = snapshot->FindTable("edge:" + type);
    auto rows = snapshot->CachedRows(*table);
    EXPECT_TRUE(rows.ok());
    const Array* src = (*rows)->Column("src");
    const Array* dst = (*rows)->Column("dst");
    for (int64_t r = 0; r < (*rows)->num_rows(); ++r) {
      if (src->GetView(r) == from && dst->GetView(r) == to) return std::string((*rows)->ids().GetView(r));
    }
    ADD_FAILURE() << "no " << type << " edge " << from << " -> " << to;
    return "";
  }

  TempDir dir_;
  std::unique_ptr<api::Omnigraph> graph_;
  graph::CommitRecord load_commit_;
  graph::CommitRecord genesis_;
};

}  // namespace omnigraph::testing
