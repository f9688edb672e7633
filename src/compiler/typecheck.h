// Type checking of `.gq` queries and lowering to the IR (query_ir.h).
//
// Checks run in the precedence order of spec/surface.md §2.9 and the first
// error wins: parameters (reserved name, unknown types), then match clauses
// in source order (bindings T1/T2/T3, traversals T4/T15/T22/T23/T5,
// filters T6/T7/T19/T20/T23/T24, negations T9), then return projections
// (T24, T8, ...), then order keys, then limit rules (T21 before T17, then
// T18), then aggregate grouping (T9). Mutation statements are checked in
// order (T10–T16, T3/T7/T14 for values). Messages are
// "type error: T<n>: <what>" (or "type error: <what>" for the uncoded
// errors of §6.2); details carry code, query, line and column (source.h),
// plus file when compiled through CompileQuery / CompileQueries. The D2
// error's line and column are those of the query name.
//
// Beyond the T-codes, these are rejected at compile time because they could
// only fail (or silently misbehave) at run time:
//   * declaring one parameter twice; a binding or edge binding reusing a
//     parameter's name;
//   * search/fuzzy/match_text outside a match clause; nearest/bm25/rrf
//     outside return/order; aggregates outside return (or order keys equal
//     to an aggregate projection); a search function after the first order
//     key;
//   * order keys that are neither a property access, a return alias, nor an
//     expression identical to a projection; in aggregate queries, property
//     keys that are not group keys;
//   * bare identifiers (alias references) outside order;
//   * two projections with the same result column name;
//   * `update` assigning a @key property ("cannot update @key property 'p' —
//     delete and re-insert instead", details code=key_update);
//   * a mutation mixing insert/update with delete (the D2 rule, §3.2;
//     details code=mutation_mix), unless CompileOptions says otherwise.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/catalog.h"
#include "compiler/query_ast.h"
#include "compiler/query_ir.h"
#include "util/status.h"

namespace omnigraph::compiler {

struct CompileOptions {
  // Reject mutations that mix insert/update with delete (§3.2 D2).
  bool enforce_d2 = true;
};

// Type checks one parsed query against `catalog` and lowers it to the IR.
Result<ir::QueryIR> TypeCheck(const Catalog& catalog, const query::QueryDecl& query,
                              const CompileOptions& options = {});

// The D2 rule on a checked mutation: kInvalidArgument "mutation '<name>' on
// the same query mixes inserts/updates and deletes; split into separate
// mutations: (1) inserts and updates, then (2) deletes. ..." when it mixes.
Status CheckMutationKinds(const ir::QueryIR& query);

// Parses `source` and type checks every query in it (first error wins).
Result<std::vector<ir::QueryIR>> CompileQueries(const Catalog& catalog, std::string_view source,
                                                std::string_view file_name, const CompileOptions& options = {});

// Parses `source` and type checks the query called `name`; with an empty
// `name` the file must hold exactly one query. Errors: parse/type errors;
// kNotFound "query 'x' not found"; kInvalidArgument "query file contains
// multiple queries; pass --name" / "query file contains no queries".
Result<ir::QueryIR> CompileQuery(const Catalog& catalog, std::string_view source, std::string_view file_name,
                                 std::string_view name, const CompileOptions& options = {});

}  // namespace omnigraph::compiler
