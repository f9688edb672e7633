// Query lint (spec/surface.md §6.4): results, Q000, L201, the hardcoded
// mutation warning, the JSON shape with the `operation` descriptor, and the
// human lines of §5.2.
#include <gtest/gtest.h>

#include "compiler/lint.h"
#include "compiler_test_util.h"

namespace omnigraph::compiler {
namespace lint_test {

using testing::MustCompile;

const char* kSchema = R"(
node Person {
  name: String @key
  age: I32?
  nick: String?
  bio: String?
  born: Date
  tags: [String]?
  v: Vector(2)? @embed(bio)
  seen: DateTime?
  score: F32?
  big: U64?
}
node Company { name: String @key }
edge WorksAt: Person -> Company { since: Date? }
)";

LintSchemaSource FileSource() { return {LintSchemaSource::Kind::kFile, "schema.pg"}; }

TEST(Lint, ParseFailureIsQ000) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(c, "query broken( { }", "q.gq", FileSource());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(r.queries_processed, 0u);
  EXPECT_TRUE(r.results.empty());
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "Q000");
  EXPECT_EQ(r.ToJson(false),
            R"({"status":"error","schema_source":{"kind":"file","path":"schema.pg"},"query_path":"q.gq",)"
            R"("queries_processed":0,"errors":1,"warnings":0,"infos":0,"results":[],"findings":[{"severity":"error",)"
            R"("code":"Q000","message":"parse error: q.gq:1:15: expected variable or `)`, found `{`\n)"
            R"(1 | query broken( { }\n  |               ^"}]})");
}

TEST(Lint, ResultsWithOperationDescriptors) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(
      c,
      "query people($min: I32) {\n"
      "  match { $p: Person $p.age >= $min $p worksAt $c }\n"
      "  return { $p.name, $p.age as years, $p, $p.tags, $p.v, $p.born, $p.seen, $p.score, $p.big, count($c) }\n"
      "}\n"
      "query hire($name: String, $co: String) { insert WorksAt { from: $name, to: $co } }\n",
      "q.gq", {LintSchemaSource::Kind::kGraph, "file:///tmp/g"});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.queries_processed, 2u);
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.ToJson(false),
            R"({"status":"ok","schema_source":{"kind":"graph","uri":"file:///tmp/g"},"query_path":"q.gq",)"
            R"("queries_processed":2,"errors":0,"warnings":0,"infos":0,"results":[{"name":"people","kind":"read",)"
            R"("status":"ok","operation":{"result":[{"name":"name","kind":"string","nullable":false},)"
            R"({"name":"years","kind":"int","nullable":true},{"name":"p","kind":"object","nullable":false},)"
            R"({"name":"tags","kind":"list","item_kind":"string","nullable":true},)"
            R"({"name":"v","kind":"vector","vector_dim":2,"nullable":true},)"
            R"({"name":"born","kind":"date","nullable":false},{"name":"seen","kind":"datetime","nullable":true},)"
            R"({"name":"score","kind":"float","nullable":true},{"name":"big","kind":"bigint","nullable":true},)"
            R"({"name":"count","kind":"bigint","nullable":false}],"reads":[{"kind":"node","type_name":"Company"},)"
            R"({"kind":"node","type_name":"Person"},{"kind":"edge","type_name":"WorksAt"}],"writes":[]}},)"
            R"({"name":"hire","kind":"mutation","status":"ok","operation":{"result":[],"reads":[)"
            R"({"kind":"node","type_name":"Company"},{"kind":"node","type_name":"Person"},)"
            R"({"kind":"edge","type_name":"WorksAt"}],"writes":[{"kind":"edge","type_name":"WorksAt"}]}}],)"
            R"("findings":[]})");
}

TEST(Lint, TypeErrorsWarningsAndL201) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(c,
                             "query bad() { match { $p: Nope } return { $p.name } }\n"
                             "query rename($n: String, $k: String) { update Person set { nick: $k } where name = $n }\n"
                             "query stamp() { update Person set { seen: now() } where name = \"x\" }\n"
                             "query cleanup() { delete Person where name = \"x\" }\n",
                             "q.gq", FileSource());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.errors, 1u);
  // Two hardcoded-mutation warnings + L201 for age, bio, big, score, tags
  // (nullable, not key, not @embed, not assigned); v is an @embed target,
  // born is required, name is the key.
  EXPECT_EQ(r.warnings, 7u);
  EXPECT_EQ(r.infos, 0u);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_FALSE(r.results[0].ok);
  EXPECT_EQ(*r.results[0].error, "type error: T1: unknown node type `Nope`");
  EXPECT_EQ(*r.results[0].error_location, "q.gq:1:23");
  EXPECT_FALSE(r.results[0].operation.has_value());
  EXPECT_TRUE(r.results[1].warnings.empty());
  EXPECT_EQ(r.results[2].warnings,
            std::vector<std::string>{"mutation declares no params; hardcoded mutations are easy to miss"});
  std::vector<std::string> messages;
  for (const LintFinding& f : r.findings) messages.push_back(f.code + " " + f.message);
  EXPECT_EQ(messages, (std::vector<std::string>{"L201 Person.age exists in schema but no update query sets it",
                                                "L201 Person.big exists in schema but no update query sets it",
                                                "L201 Person.bio exists in schema but no update query sets it",
                                                "L201 Person.score exists in schema but no update query sets it",
                                                "L201 Person.tags exists in schema but no update query sets it"}));
  EXPECT_EQ(*r.findings[0].type_name, "Person");
  EXPECT_EQ(*r.findings[0].property, "age");
  EXPECT_EQ(r.findings[0].query_names, (std::vector<std::string>{"rename", "stamp"}));
  EXPECT_EQ(r.ToHuman(),
            "ERROR query `bad`: type error: T1: unknown node type `Nope`\n"
            "  --> q.gq:1:23\n"
            "OK    query `rename` (mutation)\n"
            "OK    query `stamp` (mutation)\n"
            "WARN  query `stamp`: mutation declares no params; hardcoded mutations are easy to miss\n"
            "OK    query `cleanup` (mutation)\n"
            "WARN  query `cleanup`: mutation declares no params; hardcoded mutations are easy to miss\n"
            "WARN  Person.age exists in schema but no update query sets it\n"
            "WARN  Person.big exists in schema but no update query sets it\n"
            "WARN  Person.bio exists in schema but no update query sets it\n"
            "WARN  Person.score exists in schema but no update query sets it\n"
            "WARN  Person.tags exists in schema but no update query sets it\n"
            "INFO  Lint complete: 4 queries processed (1 error(s), 7 warning(s), 0 info item(s))\n");
  std::string json = r.ToJson(true);
  EXPECT_NE(json.find("  \"status\": \"error\",\n"), std::string::npos);
  EXPECT_NE(json.find("\"query_names\": [\n"), std::string::npos);
}

TEST(Lint, NoL201WithoutUpdatesOrWhenEverythingIsAssigned) {
  Catalog c = MustCompile("node P { k: String @key a: I32? b: String? }");
  EXPECT_TRUE(LintQueries(c, "query r() { match { $p: P } return { $p.k } }", "q.gq", FileSource()).findings.empty());
  LintReport all = LintQueries(c, "query u($x: I32, $y: String) { update P set { a: $x } where k = \"1\" }\n"
                                  "query w($y: String) { update P set { b: $y } where k = \"1\" }",
                               "q.gq", FileSource());
  EXPECT_TRUE(all.findings.empty());
  EXPECT_TRUE(all.ok);
  // Failing queries do not count as coverage.
  LintReport bad = LintQueries(c, "query u($x: I32) { update P set { a: $x, zz: 1 } where k = \"1\" }\n"
                                  "query w($y: String) { update P set { b: $y } where k = \"1\" }",
                               "q.gq", FileSource());
  ASSERT_EQ(bad.findings.size(), 1u);
  EXPECT_EQ(bad.findings[0].message, "P.a exists in schema but no update query sets it");
  EXPECT_EQ(bad.findings[0].query_names, std::vector<std::string>{"w"});
}

// The D2 rule is enforced by `mutate`, not by type checking (§3.2, §6.4):
// lint passes the query, describes it, and warns that it will be refused.
TEST(Lint, MixedMutationPassesWithAWarning) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(c, "query m($n: String) { insert Company { name: $n } delete Company where name = $n }",
                             "q.gq", FileSource());
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.warnings, 1u);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].ok);
  EXPECT_FALSE(r.results[0].error.has_value());
  ASSERT_TRUE(r.results[0].operation.has_value());
  EXPECT_EQ(r.results[0].warnings,
            std::vector<std::string>{"mixes inserts/updates and deletes, so `mutate` refuses it; split it into (1) "
                                     "inserts and updates, then (2) deletes"});
  EXPECT_EQ(r.ToHuman(),
            "OK    query `m` (mutation)\n"
            "WARN  query `m`: mixes inserts/updates and deletes, so `mutate` refuses it; split it into (1) inserts and "
            "updates, then (2) deletes\n"
            "INFO  Lint complete: 1 queries processed (0 error(s), 1 warning(s), 0 info item(s))\n");
}

TEST(Lint, ARepeatedQueryNameWarnsOnTheDeclarationThatCannotRun) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(c, "query a() { match { $c: Company } return { $c.name } }\n"
                                "query b() { match { $c: Company } return { $c.name } }\n"
                                "query a() { match { $c: Company } return { count($c) } }\n",
                             "q.gq", FileSource());
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.warnings, 1u);
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_TRUE(r.results[0].warnings.empty());
  EXPECT_EQ(r.results[2].warnings,
            std::vector<std::string>{"a query named `a` is already declared at line 1; this one can never run"});
}

TEST(Lint, EmptyFile) {
  Catalog c = MustCompile(kSchema);
  LintReport r = LintQueries(c, "", "empty.gq", FileSource());
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.ToHuman(), "INFO  Lint complete: 0 queries processed (0 error(s), 0 warning(s), 0 info item(s))\n");
}

TEST(Lint, OperationReadsNegationsAndCascadedEdges) {
  // Types read inside not {} count as reads; a node delete reads and writes
  // every incident edge type; an edge insert reads both endpoint types.
  Catalog c = MustCompile("node P { k: String @key n: String? }\nnode C { k: String @key }\n"
                          "edge W: P -> C\nedge K: P -> P\n");
  LintReport r = LintQueries(c,
                             "query idle() { match { $p: P not { $p w $_ } } return { $p, $p.n } }\n"
                             "query gone($k: String) { delete P where k = $k }\n",
                             "q.gq", FileSource());
  EXPECT_EQ(r.ToJson(false),
            R"({"status":"ok","schema_source":{"kind":"file","path":"schema.pg"},"query_path":"q.gq",)"
            R"("queries_processed":2,"errors":0,"warnings":0,"infos":0,"results":[{"name":"idle","kind":"read",)"
            R"("status":"ok","operation":{"result":[{"name":"p","kind":"object","nullable":false},)"
            R"({"name":"n","kind":"string","nullable":true}],"reads":[{"kind":"node","type_name":"C"},)"
            R"({"kind":"node","type_name":"P"},{"kind":"edge","type_name":"W"}],"writes":[]}},)"
            R"({"name":"gone","kind":"mutation","status":"ok","operation":{"result":[],"reads":[)"
            R"({"kind":"node","type_name":"P"},{"kind":"edge","type_name":"K"},{"kind":"edge","type_name":"W"}],)"
            R"("writes":[{"kind":"node","type_name":"P"},{"kind":"edge","type_name":"K"},)"
            R"({"kind":"edge","type_name":"W"}]}}],"findings":[]})");
}

TEST(Lint, DescribeOperationDirectly) {
  Catalog c = MustCompile(kSchema);
  ir::QueryIR q = testing::MustCheck(c, "query d($n: String) { delete Person where name = $n }");
  LintOperation op = DescribeOperation(q);
  EXPECT_TRUE(op.result.empty());
  ASSERT_EQ(op.writes.size(), 2u);
  EXPECT_EQ(op.writes[0].type_name, "Person");
  EXPECT_FALSE(op.writes[0].is_edge);
  EXPECT_EQ(op.writes[1].type_name, "WorksAt");
  EXPECT_TRUE(op.writes[1].is_edge);
}

}  // namespace lint_test
}  // namespace omnigraph::compiler
