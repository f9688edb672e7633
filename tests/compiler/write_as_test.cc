// The `as commit` / `as unattached branch [on "<id>"]` clause of a mutation
// declaration (spec/branches.md BR-11.1, BR-12.1): where it stands, what it
// compiles to, and the typed error a read-only declaration with it gets.
#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler/query_parser.h"
#include "compiler/typecheck.h"

namespace omnigraph::compiler {
namespace write_as_test {

using query::QueryFile;
using query::WriteAs;

QueryFile MustParse(std::string_view src) {
  Result<QueryFile> r = ParseQueries(src, "w.gq");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return QueryFile();
  return std::move(r).value();
}

TEST(WriteAsClause, AsCommitFollowsParametersAndAnnotations) {
  QueryFile f = MustParse(
      "query add($n: String) as commit { insert Person { name: $n } }\n"
      "query add2($n: String) @description(\"d\") as commit { insert Person { name: $n } }\n"
      "query plain($n: String) { insert Person { name: $n } }\n");
  ASSERT_EQ(f.queries.size(), 3u);
  ASSERT_TRUE(f.queries[0].write_as.has_value());
  EXPECT_EQ(f.queries[0].write_as->kind, WriteAs::Kind::kCommit);
  EXPECT_EQ(f.queries[0].write_as->on, std::nullopt);
  EXPECT_EQ(f.queries[0].write_as->location.line, 1u);
  EXPECT_EQ(f.queries[0].write_as->location.column, 23u);
  ASSERT_TRUE(f.queries[1].write_as.has_value());
  EXPECT_EQ(f.queries[1].description, "d");
  EXPECT_FALSE(f.queries[2].write_as.has_value());
}

TEST(WriteAsClause, UnattachedBranchWithAndWithoutParent) {
  QueryFile f = MustParse(
      "query root() as unattached branch { insert Person { name: \"x\" } }\n"
      "query child() as unattached branch on \"01ARZ3NDEKTSV4RRFFQ69G5FAV\" { insert Person { name: \"y\" } }\n");
  ASSERT_EQ(f.queries.size(), 2u);
  ASSERT_TRUE(f.queries[0].write_as.has_value());
  EXPECT_EQ(f.queries[0].write_as->kind, WriteAs::Kind::kUnattachedBranch);
  EXPECT_EQ(f.queries[0].write_as->on, std::nullopt);
  ASSERT_TRUE(f.queries[1].write_as.has_value());
  EXPECT_EQ(f.queries[1].write_as->kind, WriteAs::Kind::kUnattachedBranch);
  EXPECT_EQ(f.queries[1].write_as->on, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
}

TEST(WriteAsClause, AReadOnlyDeclarationWithTheClauseIsATypedErrorAtTheClause) {
  Result<QueryFile> r = ParseQueries("query q()\n  as commit { match { $p: Person } return { $p.name } }\n", "r.gq");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "parse error: r.gq:2:3: `as commit` applies only to mutations; query q is read-only\n"
            "2 |   as commit { match { $p: Person } return { $p.name } }\n"
            "  |   ^");
  EXPECT_EQ(r.status().details().at("line"), "2");
  EXPECT_EQ(r.status().details().at("column"), "3");

  Result<QueryFile> u = ParseQueries("query q() as unattached branch { match { $p: Person } return { 1 } }", "u.gq");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message().substr(0, u.status().message().find('\n')),
            "parse error: u.gq:1:11: `as unattached branch` applies only to mutations; query q is read-only");
}

TEST(WriteAsClause, MalformedClausesAreParseErrors) {
  EXPECT_FALSE(ParseQueries("query q() as { insert Person { name: \"x\" } }", "m.gq").ok());
  EXPECT_FALSE(ParseQueries("query q() as branch { insert Person { name: \"x\" } }", "m.gq").ok());
  EXPECT_FALSE(ParseQueries("query q() as unattached { insert Person { name: \"x\" } }", "m.gq").ok());
  EXPECT_FALSE(ParseQueries("query q() as unattached branch on { insert Person { name: \"x\" } }", "m.gq").ok());
  // After the body is too late.
  EXPECT_FALSE(ParseQueries("query q() { insert Person { name: \"x\" } } as commit", "m.gq").ok());
}

TEST(WriteAsClause, TheCompiledMutationCarriesItsWriteForm) {
  Result<Catalog> catalog = CompileSchema("node Person { name: String @key }\n", "s.pg");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  auto form_of = [&](std::string_view src) {
    Result<QueryFile> f = ParseQueries(src, "w.gq");
    EXPECT_TRUE(f.ok()) << f.status().message();
    Result<ir::QueryIR> q = TypeCheck(*catalog, f->queries[0]);
    EXPECT_TRUE(q.ok()) << q.status().message();
    return q.ok() ? q->write_form : ir::WriteForm{};
  };
  EXPECT_EQ(form_of("query a() { insert Person { name: \"x\" } }"), ir::WriteForm{});
  EXPECT_EQ(form_of("query a() as commit { insert Person { name: \"x\" } }"),
            (ir::WriteForm{ir::WriteForm::Kind::kCommit, std::nullopt}));
  EXPECT_EQ(form_of("query a() as unattached branch on \"P1\" { insert Person { name: \"x\" } }"),
            (ir::WriteForm{ir::WriteForm::Kind::kUnattachedBranch, "P1"}));
}

}  // namespace write_as_test
}  // namespace omnigraph::compiler
