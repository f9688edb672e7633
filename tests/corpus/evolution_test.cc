// Schema evolution on a real graph (issue: "Schema apply on the corpus
// graphs"): ../shared/corpus/second-brain is loaded, then its schema is
// evolved by one apply that renames a type and a property, drops a populated
// property, adds a property and adds a node and an edge type. Afterwards
//   * every query file compiles against the evolved schema once the renamed
//     names are substituted, and the unsubstituted files fail exactly where
//     they name a retired name;
//   * every documented result of corpus/expected.json for the graph holds
//     on the evolved graph (through the substituted files), and the export
//     counts are unchanged.
// Runs whenever ../shared is present, as it always is in CI.
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler/typecheck.h"
#include "corpus/expected_json.h"
#include "support/shared_files.h"
#include "support/temp_dir.h"

namespace omnigraph::testing::corpus {
namespace evolution_test {

// The evolved schema: Habit -> Routine, Organization.website -> url, no
// Person.phone, a new Person.nickname, new Reminder and RemindsAbout types.
std::string Evolve(std::string schema) {
  schema = std::regex_replace(schema, std::regex(R"(\bHabit\b)"), "Routine");
  schema = std::regex_replace(schema, std::regex(R"(\bnode Routine \{)"), "node Routine @rename_from(\"Habit\") {");
  schema = std::regex_replace(schema, std::regex(R"(\bwebsite: String\?)"), "url: String? @rename_from(\"website\")");
  schema = std::regex_replace(schema, std::regex(R"(\n    phone: String\?)"), "\n    nickname: String?");
  return schema + "\nnode Reminder {\n    slug: String @key\n    text: String?\n}\nedge RemindsAbout: Reminder -> Person\n";
}

// A query text (or result column) in the evolved names.
std::string Rewrite(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\bHabit\b)"), "Routine");
  return std::regex_replace(text, std::regex(R"(\.website\b)"), ".url");
}

bool NamesRetiredName(const std::string& text) {
  return std::regex_search(text, std::regex(R"(\bHabit\b|\.website\b|\.phone\b|phone:)"));
}

TEST(CorpusEvolutionTest, SecondBrainEvolvesAndKeepsItsDocumentedResults) {
  const fs::path root = CorpusRoot();
  if (!fs::is_directory(root / "second-brain")) {
    std::cout << "[corpus] " << root.string() << " is not present: evolved 0 graphs\n";
    return;
  }
  const Json doc = Json::parse(ReadFileText(root / "expected.json"), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(doc.is_object());
  auto entry = ReadGraphEntry(root, "second-brain", doc["graphs"]["second-brain"]);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  TempDir dir;
  auto graph = LoadGraph(*entry, dir.path() + "/g");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  const std::string before = (*graph)->ListCommits()->front().id;

  const std::string evolved = Evolve(ReadFileText(entry->schema));
  auto applied = (*graph)->ApplySchema(evolved, "evolved.pg", /*allow_data_loss=*/true);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  std::multiset<std::string> steps;
  for (const auto& step : applied->plan.steps) steps.insert(step.Describe());
  EXPECT_EQ(steps, (std::multiset<std::string>{"rename node type Habit -> Routine",
                                               "rename property Organization.website -> url",
                                               "add property Person.nickname", "drop property Person.phone (hard)",
                                               "add node type Reminder", "add edge type RemindsAbout"}));
  EXPECT_TRUE(applied->applied);
  EXPECT_TRUE(CheckGraphCounts(**graph, *entry).ok());

  // Query files: the substituted text compiles; the original fails exactly
  // where it names a retired name.
  auto catalog = (*graph)->Catalog();
  ASSERT_TRUE(catalog.ok());
  int files = 0;
  for (const fs::path& gq : FilesUnder(root / "second-brain", ".gq")) {
    const std::string source = ReadFileText(gq);
    compiler::CompileOptions options;
    options.enforce_d2 = false;
    auto rewritten = compiler::CompileQueries(**catalog, Rewrite(source), gq.string(), options);
    EXPECT_TRUE(rewritten.ok()) << gq << ": " << rewritten.status().ToString();
    auto original = compiler::CompileQueries(**catalog, source, gq.string(), options);
    EXPECT_EQ(original.ok(), !NamesRetiredName(source)) << gq;
    ++files;
  }
  EXPECT_EQ(files, 8);

  // Every documented result still holds on the evolved graph.
  int checked = 0;
  for (size_t i = 0; i < doc["queries"].size(); ++i) {
    auto query = ReadQueryEntry(i, doc["queries"][i]);
    ASSERT_TRUE(query.ok()) << query.status().ToString();
    if (query->corpus != "second-brain") continue;
    for (std::string& column : query->expected.columns) column = Rewrite(column);
    Status verdict = CheckQueryEntry(**graph, root, *query, Rewrite);
    EXPECT_TRUE(verdict.ok()) << query->file << " " << query->name << ": " << verdict.ToString();
    ++checked;
  }
  EXPECT_EQ(checked, 12);

  // The graph as loaded reads under the evolved names, with its values.
  constexpr std::string_view kUrls =
      "query q() { match { $o: Organization } return { $o.slug, $o.url } order { $o.slug } }";
  auto now = (*graph)->Query(kUrls, "q.gq", "", "{}");
  auto old = (*graph)->Query(kUrls, "q.gq", "", "{}", api::ReadTarget{"main", before});
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->rows->ToString(), now->rows->ToString());
  EXPECT_EQ(old->rows->column(1)->length() - old->rows->column(1)->null_count(), 3);
}

}  // namespace evolution_test
}  // namespace omnigraph::testing::corpus
