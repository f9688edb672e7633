// Helpers shared by the compiler tests.
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler/query_ir.h"
#include "compiler/query_parser.h"
#include "compiler/schema_parser.h"
#include "compiler/typecheck.h"

namespace omnigraph::compiler::testing {

// The social schema of the upstream fixtures (spec/surface.md §8) plus a
// few extra property kinds used by the type-check tests.
inline constexpr std::string_view kSocialSchema = R"(
node Person {
  name: String @key
  age: I32?
  nick: String?
  tags: [String]?
  born: Date?
  seen: DateTime?
  score: F64?
  ratio: F32?
  status: enum(active, retired)?
  photo: Blob?
  embedding: Vector(3)?
}
node Company {
  name: String @key
  founded: I64?
}
edge Knows: Person -> Person {
  since: Date?
  note: String?
  payload: Blob?
}
edge WorksAt: Person -> Company {
  title: String?
}
)";

inline Catalog MustCompile(std::string_view source) {
  Result<Catalog> c = CompileSchema(source, "test.pg");
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return Catalog();
  return std::move(c).value();
}

// The message of a schema that must fail to compile ("" when it compiles).
inline std::string SchemaError(std::string_view source) {
  Result<Catalog> c = CompileSchema(source, "test.pg");
  if (c.ok()) return "";
  return c.status().message();
}

// The first line of a schema error message (without the caret diagnostic).
inline std::string SchemaErrorLine(std::string_view source) {
  std::string m = SchemaError(source);
  return m.substr(0, m.find('\n'));
}

inline const Catalog& Social() {
  static const Catalog* catalog = new Catalog(MustCompile(kSocialSchema));
  return *catalog;
}

// Compiles a single query; the error message or "" on success.
inline std::string QueryError(const Catalog& catalog, std::string_view gq) {
  Result<ir::QueryIR> r = CompileQuery(catalog, gq, "test.gq", "");
  return r.ok() ? "" : r.status().message();
}

inline ir::QueryIR MustCheck(const Catalog& catalog, std::string_view gq) {
  Result<ir::QueryIR> r = CompileQuery(catalog, gq, "test.gq", "");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return ir::QueryIR();
  return std::move(r).value();
}

// A one-query read: `query q(<params>) { match { <match> } return { <ret> } <tail> }`.
inline std::string ReadQuery(std::string_view match, std::string_view ret = "$p.name", std::string_view tail = "",
                             std::string_view params = "") {
  return "query q(" + std::string(params) + ") {\n  match { " + std::string(match) + " }\n  return { " +
         std::string(ret) + " }\n  " + std::string(tail) + "\n}\n";
}

inline std::string Plan(const Catalog& catalog, std::string_view gq) {
  return ir::ToDebugString(MustCheck(catalog, gq));
}

}  // namespace omnigraph::compiler::testing
