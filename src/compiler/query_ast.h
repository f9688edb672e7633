// Syntax tree of a `.gq` query file (spec/surface.md §2.2, §3.1), as
// written. Produced by ParseQueries; TypeCheck (typecheck.h) turns one
// QueryDecl into the executable IR (query_ir.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/source.h"
#include "compiler/types.h"

namespace omnigraph::compiler::query {

// A literal (§2.1). There are no negative and no null literals.
struct Literal {
  enum class Kind { kString, kInteger, kFloat, kBool, kDate, kDateTime, kList };
  Kind kind = Kind::kString;
  std::string text;          // decoded string; digits as written; the date/datetime text
  uint64_t int_value = 0;    // kInteger (up to 2^64-1; typed I64 unless larger)
  double float_value = 0;    // kFloat
  bool bool_value = false;   // kBool
  int64_t temporal = 0;      // kDate: epoch days; kDateTime: epoch ms
  std::vector<Literal> items;  // kList (may be empty; nesting is a type error)
  SourceLocation location;

  // Source-like rendering: `"a"`, `5`, `2.5`, `true`, `date("2024-01-01")`, `[1, 2]`.
  std::string ToString() const;
};

enum class AggFunc { kCount, kSum, kAvg, kMin, kMax };
// "count", "sum", "avg", "min", "max".
const char* AggFuncName(AggFunc f);

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kContains, kStartsWith };
// "=", "!=", "<", "<=", ">", ">=", "contains", "starts_with".
const char* CompareOpName(CompareOp op);

struct Expr {
  enum class Kind {
    kNow,         // now()
    kNearest,     // nearest($variable.name, args[0])
    kSearch,      // search(args[0], args[1])
    kFuzzy,       // fuzzy(args[0], args[1] [, args[2]])
    kMatchText,   // match_text(args[0], args[1])
    kBm25,        // bm25(args[0], args[1])
    kRrf,         // rrf(args[0], args[1] [, args[2]]); args[0..1] are nearest/bm25
    kAggregate,   // agg(args[0])
    kPropAccess,  // $variable.name
    kVariable,    // $variable (a node/edge binding or a parameter)
    kLiteral,     // literal
    kAliasRef,    // a bare identifier `name`: a return alias
  };
  Kind kind = Kind::kLiteral;
  std::string variable;
  std::string name;
  Literal literal;
  AggFunc agg = AggFunc::kCount;
  std::vector<Expr> args;
  SourceLocation location;

  // Source-like rendering, e.g. `$p.name`, `count($f)`, `nearest($d.v, $q)`.
  std::string ToString() const;
  bool operator==(const Expr& other) const { return ToString() == other.ToString(); }
};

// `match_value = literal | variable | "now" "(" ")"` (inline binding values,
// assignments, mutation predicates).
struct MatchValue {
  enum class Kind { kLiteral, kVariable, kNow };
  Kind kind = Kind::kLiteral;
  Literal literal;
  std::string variable;
  SourceLocation location;
};

struct PropMatch {
  std::string property;
  MatchValue value;
  SourceLocation location;
};

struct Clause {
  enum class Kind { kBinding, kTraversal, kFilter, kNegation, kTextSearch };
  Kind kind = Kind::kBinding;
  SourceLocation location;

  // kBinding: `$variable: TypeName { prop: value, ... }`
  std::string variable;
  std::string type_name;
  std::vector<PropMatch> props;

  // kTraversal: `$src [$edge_variable:] [<]edge_name[>] [{min,max}] $dst`
  std::string src;
  std::string dst;
  std::optional<std::string> edge_variable;
  std::string edge_name;
  bool undirected = false;
  bool has_bounds = false;
  uint32_t min_hops = 1;
  std::optional<uint32_t> max_hops = 1;  // nullopt: `{n,}` (unbounded, rejected by T15)
  SourceLocation edge_location;

  // kFilter: `left op right`; kTextSearch: `left` is the search/fuzzy/match_text call.
  Expr left;
  CompareOp op = CompareOp::kEq;
  Expr right;

  // kNegation: `not { clauses }`
  std::vector<Clause> clauses;
};

struct Projection {
  Expr expr;
  std::optional<std::string> alias;
  SourceLocation location;
};

struct Ordering {
  Expr expr;
  std::optional<bool> descending;  // nullopt: no direction written (ascending)
  bool is_nearest_form = false;    // parsed by the `nearest_call` ordering alternative
  SourceLocation location;
};

struct Param {
  std::string name;       // without `$`
  std::string type_text;  // as written without `?`: `I32`, `[Date]`, `Vector(3)`
  PropertyType type;      // meaningful when type_supported
  bool type_supported = true;  // false for `[Blob]` and `Vector(0)` ("unknown parameter type")
  SourceLocation location;
};

struct Assignment {
  std::string property;
  MatchValue value;
  SourceLocation location;
};

struct MutationPredicate {
  std::string property;
  CompareOp op = CompareOp::kEq;
  MatchValue value;
  SourceLocation location;
};

struct MutationStmt {
  enum class Kind { kInsert, kUpdate, kDelete };
  Kind kind = Kind::kInsert;
  std::string type_name;
  std::vector<Assignment> assignments;      // insert / update
  std::optional<MutationPredicate> where;   // update / delete
  SourceLocation location;                  // of the keyword
  SourceLocation type_location;
};

// The clause after a declaration's parameters and annotations that turns a
// mutation's publication into an unpublished commit (`as commit`, spec
// branches.md BR-11.1) or an unattached snapshot (`as unattached branch
// [on "<id>"]`, BR-12.1).
struct WriteAs {
  enum class Kind { kCommit, kUnattachedBranch };
  Kind kind = Kind::kCommit;
  std::optional<std::string> on;  // unattached child: the parent snapshot's id
  SourceLocation location;         // of `as`
  size_t offset = 0;               // byte offset of `as`
};

struct QueryDecl {
  std::string name;
  std::vector<Param> params;
  std::optional<std::string> description;
  std::optional<std::string> instruction;
  bool is_mutation = false;
  std::optional<WriteAs> write_as;  // only on mutations (a parse error otherwise)
  // Read body.
  std::vector<Clause> match;
  std::vector<Projection> returns;
  std::vector<Ordering> order;
  std::optional<uint64_t> limit;
  // Mutation body.
  std::vector<MutationStmt> mutations;
  SourceLocation location;  // of the name
  // Byte range of the whole declaration in the file (for error context).
  size_t begin_offset = 0;
  size_t end_offset = 0;
};

struct QueryFile {
  std::vector<QueryDecl> queries;
};

}  // namespace omnigraph::compiler::query
