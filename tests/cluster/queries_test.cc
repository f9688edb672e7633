// Query discovery and per-query checks (spec/cluster.md §1.3).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/cluster_dir.h"
#include "cluster/desired.h"
#include "cluster/digest.h"

namespace omnigraph::cluster {
namespace queries_test {

using testing::ClusterDir;
using testing::Describe;

constexpr std::string_view kTwoQueries =
    "query all_people() {\n"
    "    match { $p: Person }\n"
    "    return { $p.name }\n"
    "}\n"
    "query count_people() {\n"
    "    match { $p: Person }\n"
    "    return { count($p) }\n"
    "}\n";

std::string GraphWithQueries(const std::string& queries) {
  return "version: 1\ngraphs:\n  knowledge:\n    schema: people.pg\n    queries: " + queries + "\n";
}

std::vector<std::string> QueryAddresses(const DesiredCluster& desired) {
  std::vector<std::string> addresses;
  for (const ResourceSummary& resource : desired.resources) {
    if (resource.kind == "query") addresses.push_back(resource.address);
  }
  return addresses;
}

void ExpectError(const LoadOutcome& outcome, const std::string& code, const std::string& path,
                 const std::string& message) {
  const Diagnostics found = testing::WithCode(outcome, code);
  ASSERT_EQ(found.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(found[0].severity, Severity::kError);
  EXPECT_EQ(found[0].path, path);
  EXPECT_EQ(found[0].message, message);
}

TEST(ClusterQueries, DirectoryDiscoversEveryDeclarationOfTopLevelGqFiles) {
  ClusterDir dir;
  dir.Write("queries/people.gq", testing::kFindPerson);
  dir.Write("queries/more.gq", kTwoQueries);
  dir.Write("queries/notes.txt", "not a query file");
  dir.Write("queries/nested/ignored.gq", "query nested_query() { match { $p: Person } return { $p.name } }\n");
  for (const char* spelling : {"queries/", "queries", "[queries/]"}) {
    const LoadOutcome outcome = dir.Load(GraphWithQueries(spelling));
    ASSERT_TRUE(outcome.ok()) << spelling << "\n" << Describe(outcome.diagnostics);
    const std::vector<std::string> expected = {"query.knowledge.all_people", "query.knowledge.count_people",
                                               "query.knowledge.find_person"};
    EXPECT_EQ(QueryAddresses(*outcome.desired), expected) << spelling;
    const DesiredGraph& graph = outcome.desired->graphs.at(0);
    const std::string declared_dir = std::string(spelling) == "queries" ? "queries" : "queries/";
    EXPECT_EQ(graph.query_files.at("all_people"), (std::filesystem::path(declared_dir) / "more.gq").string());
    // Each query's digest is the whole file's, so both queries of more.gq share it.
    EXPECT_EQ(outcome.desired->resource_digests.at("query.knowledge.all_people"), Sha256Hex(kTwoQueries));
    EXPECT_EQ(outcome.desired->resource_digests.at("query.knowledge.count_people"), Sha256Hex(kTwoQueries));
  }
}

TEST(ClusterQueries, SingleFileAndListSpellings) {
  ClusterDir dir;
  dir.Write("more.gq", kTwoQueries);
  LoadOutcome outcome = dir.Load(GraphWithQueries("more.gq"));
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  EXPECT_EQ(QueryAddresses(*outcome.desired),
            (std::vector<std::string>{"query.knowledge.all_people", "query.knowledge.count_people"}));
  outcome = dir.Load(GraphWithQueries("[people.gq, more.gq]"));
  ASSERT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  EXPECT_EQ(QueryAddresses(*outcome.desired).size(), 3u);
  EXPECT_EQ(outcome.desired->graphs.at(0).query_files.at("find_person"), "people.gq");
}

TEST(ClusterQueries, EmptyDirectoryWarns) {
  ClusterDir dir;
  std::filesystem::create_directories(dir.Resolved("empty"));
  const LoadOutcome outcome = dir.Load(GraphWithQueries("empty"));
  EXPECT_TRUE(outcome.ok()) << Describe(outcome.diagnostics);
  const Diagnostics found = testing::WithCode(outcome, "query_dir_empty");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], WarningDiagnostic("query_dir_empty", "graphs.knowledge.queries",
                                        "query directory '" + dir.Resolved("empty") + "' contains no .gq files"));
}

TEST(ClusterQueries, DuplicateQueryNameKeepsTheFirstFile) {
  ClusterDir dir;
  dir.Write("queries/a.gq", testing::kFindPerson);
  dir.Write("queries/b.gq", testing::kFindPerson);
  const LoadOutcome outcome = dir.Load(GraphWithQueries("queries"));
  ExpectError(outcome, "duplicate_query_name", "graphs.knowledge.queries.find_person",
              "query 'find_person' is declared in both 'queries/a.gq' and 'queries/b.gq'");
  EXPECT_EQ(outcome.desired->graphs.at(0).query_files.at("find_person"), "queries/a.gq");
}

TEST(ClusterQueries, DiscoveredParseErrorAndMissingFile) {
  ClusterDir dir;
  dir.Write("queries/bad.gq", "query broken( {\n");
  LoadOutcome outcome = dir.Load(GraphWithQueries("queries"));
  const Diagnostics parse = testing::WithCode(outcome, "query_parse_error");
  ASSERT_EQ(parse.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(parse[0].path, "graphs.knowledge.queries");
  const std::string prefix = "'" + dir.Resolved("queries/bad.gq") + "' does not parse: parse error: ";
  EXPECT_EQ(parse[0].message.rfind(prefix, 0), 0u) << parse[0].message;

  outcome = dir.Load(GraphWithQueries("[absent.gq]"));
  ExpectError(outcome, "query_file_missing", "graphs.knowledge.queries",
              "could not read query file '" + dir.Resolved("absent.gq") + "': No such file or directory");
}

TEST(ClusterQueries, ExplicitMapFileMissingAndParseError) {
  ClusterDir dir;
  LoadOutcome outcome = dir.Load(GraphWithQueries("{find_person: {file: absent.gq}}"));
  ExpectError(outcome, "query_file_missing", "graphs.knowledge.queries.find_person.file",
              "could not read query file '" + dir.Resolved("absent.gq") + "': No such file or directory");
  EXPECT_FALSE(outcome.desired->resource_digests.contains("query.knowledge.find_person"));
  dir.Write("bad.gq", "query broken( {\n");
  outcome = dir.Load(GraphWithQueries("{broken: {file: bad.gq}}"));
  const Diagnostics parse = testing::WithCode(outcome, "query_parse_error");
  ASSERT_EQ(parse.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(parse[0].path, "graphs.knowledge.queries.broken");
  EXPECT_EQ(parse[0].message.rfind("parse error: ", 0), 0u);
}

TEST(ClusterQueries, QueryKeyMismatch) {
  ClusterDir dir;
  ExpectError(dir.Load(GraphWithQueries("{lookup: {file: people.gq}}")), "query_key_mismatch",
              "graphs.knowledge.queries.lookup", "no `query lookup` declaration found in the referenced .gq file");
}

TEST(ClusterQueries, TypecheckErrorAgainstTheDesiredSchema) {
  ClusterDir dir;
  dir.Write("wrong.gq", "query wrong() {\n    match { $c: Company }\n    return { $c.name }\n}\n");
  const LoadOutcome outcome = dir.Load(GraphWithQueries("{wrong: {file: wrong.gq}}"));
  const Diagnostics found = testing::WithCode(outcome, "query_typecheck_error");
  ASSERT_EQ(found.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(found[0].path, "graphs.knowledge.queries.wrong");
  EXPECT_EQ(found[0].message.rfind("type error: ", 0), 0u) << found[0].message;
}

TEST(ClusterQueries, TypecheckSkippedWhenTheSchemaIsInvalid) {
  ClusterDir dir;
  dir.Write("broken.pg", "node {\n");
  const LoadOutcome outcome =
      dir.Load("version: 1\ngraphs:\n  knowledge:\n    schema: broken.pg\n    queries: people.gq\n");
  const Diagnostics found = testing::WithCode(outcome, "query_typecheck_skipped");
  ASSERT_EQ(found.size(), 1u) << Describe(outcome.diagnostics);
  EXPECT_EQ(found[0], WarningDiagnostic("query_typecheck_skipped", "graphs.knowledge.queries.find_person",
                                        "query parsed, but type-check was skipped because the graph schema is "
                                        "invalid"));
}

}  // namespace queries_test
}  // namespace omnigraph::cluster
