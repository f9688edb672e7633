// Crash tests of schema apply (spec/engine.md §5.2 row "Schema apply";
// design/write-path.md), one case per schema-apply cell of the crash matrix
// (crash_matrix.h), generated from the failpoint registry. A forked child
// applies a schema that renames a property, adds one, drops a populated one,
// renames a type and adds a type, and is SIGKILLed at the cell's hit.
// Afterwards the graph opens with no recovery step and reads exactly as
// before the apply (a kill before the CAS landed) or as the complete apply
// left an untouched copy (after); the same apply then succeeds where it had
// not landed, and the next write uses the evolved schema.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "crash/crash_matrix.h"
#include "support/temp_dir.h"
#include "util/failpoint.h"

namespace omnigraph::crash {
namespace schema_apply_crash_test {

using api::LoadMode;
using api::Omnigraph;

constexpr std::string_view kBefore = R"(node Person {
    name: String @key
    age: I32?
    city: String?
}
node Company { name: String @key }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kAfter = R"(node Person {
    name: String @key
    years: I32? @rename_from("age")
    email: String?
}
node Org @rename_from("Company") { name: String @key }
node Tag { label: String @key }
edge WorksAt: Person -> Org
)";

constexpr std::string_view kSeed = R"({"type":"Person","data":{"name":"alice","age":30,"city":"paris"}}
{"type":"Person","data":{"name":"bob","age":25}}
{"type":"Company","data":{"name":"acme"}}
{"edge":"WorksAt","from":"alice","to":"acme"}
)";

Status Apply(Omnigraph& g) { return g.ApplySchema(kAfter, "after.pg", /*allow_data_loss=*/true).status(); }

// What a reader sees: the accepted schema, main's export and commit count.
Result<std::string> Describe(Omnigraph& g) {
  OG_ASSIGN_OR_RETURN(std::string schema, g.SchemaSource());
  OG_ASSIGN_OR_RETURN(std::string rows, g.Export("main", {}));
  OG_ASSIGN_OR_RETURN(std::vector<graph::CommitRecord> commits, g.ListCommits());
  return fmt::format("{}== {} commits\n{}", schema, commits.size(), rows);
}

class SchemaApplyCrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(SchemaApplyCrashTest, TheGraphIsEitherAsBeforeOrHoldsTheCompleteApply) {
  const CrashCase& c = GetParam();
  testing::TempDir dir;
  const std::string uri = dir.path() + "/g";
  const std::string reference = dir.path() + "/reference";
  {
    auto g = Omnigraph::Init(uri, kBefore);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE((*g)->Load(kSeed, "seed.jsonl", LoadMode::kOverwrite).ok());
  }
  std::filesystem::copy(uri, reference, std::filesystem::copy_options::recursive);
  std::string before, complete;
  {
    auto g = Omnigraph::Open(uri);
    ASSERT_TRUE(g.ok());
    before = Describe(**g).value();
    auto r = Omnigraph::Open(reference);
    ASSERT_TRUE(r.ok());
    Status applied = Apply(**r);
    ASSERT_TRUE(applied.ok()) << applied.ToString();
    complete = Describe(**r).value();
  }
  ASSERT_NE(before, complete);

  ASSERT_TRUE(KilledAt(c.cell, [&] {
    auto g = Omnigraph::Open(uri);
    if (g.ok()) (void)Apply(**g);
  }));

  const bool landed = c.cell.outcome != Outcome::kUnchanged;
  auto g = Omnigraph::Open(uri);  // no recovery step
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(Describe(**g).value(), landed ? complete : before);
  if (!landed) {
    Status again = Apply(**g);
    ASSERT_TRUE(again.ok()) << again.ToString();
    EXPECT_EQ(Describe(**g).value(), complete);
  }
  // The next write uses the evolved schema.
  auto wrote = (*g)->Mutate("query q() { insert Person { name: \"carol\", years: 41, email: \"c@x\" } }", "q.gq", "",
                            "{}");
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  auto tagged = (*g)->Mutate("query t() { insert Tag { label: \"x\" } }", "t.gq", "", "{}");
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  auto people = (*g)->Query("query q() { match { $p: Person } return { $p.name, $p.years } order { $p.name } }",
                            "q.gq", "", "{}");
  ASSERT_TRUE(people.ok()) << people.status().ToString();
  EXPECT_EQ(people->row_count(), 3);
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, SchemaApplyCrashTest,
                         ::testing::ValuesIn(CrashMatrix(failpoint::AllNames(), {Write::kSchemaApply})),
                         [](const ::testing::TestParamInfo<CrashCase>& info) { return CaseName(info.param); });

}  // namespace schema_apply_crash_test
}  // namespace omnigraph::crash
