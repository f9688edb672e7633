// Typed, executable IR of one `.gq` query (spec/surface.md §2, §3),
// produced by TypeCheck (typecheck.h). An executor runs it without
// re-deriving any type: every name is resolved against the catalog (edge
// names canonicalised), every literal is converted to the type it is
// compared with or assigned to, and match clauses are ordered so that each
// step's inputs are bound by earlier steps.
//
// ---------------------------------------------------------------------------
// Value representation (omnigraph::Scalar), used for literals here and for
// parameter values (params.h):
//   String, enum, Blob     Scalar::String (Blob: "base64:<data>" or a URI)
//   Bool                   Scalar::Bool
//   I32, I64               Scalar::Int
//   U32, U64               Scalar::UInt
//   F32, F64               Scalar::Double (F32 values already rounded to float)
//   Date                   Scalar::Int (days since 1970-01-01)
//   DateTime               Scalar::Int (milliseconds since the epoch, UTC)
//   [T]                    Scalar::Nested of T values
//   Vector(N)              Scalar::Nested of N Scalar::Double (float-rounded)
//   NULL                   Scalar::Null()
// Scalar::Compare gives the comparison semantics the spec asks for: numbers
// compare by exact value across Int/UInt/Double (any two numeric types mix;
// an integer is never rounded to a double), strings bytewise, NULL compares
// as unknown (never a match, also for `!=`).
//
// Numeric literals in comparisons (inline `{ p: v }`, filter operands,
// mutation where predicates) take the compared property's representation
// and type when a value of that type equals them exactly (2.0 against I32
// is Int 2: I32); otherwise they keep their own value and type (2.5 against
// I32 stays Double 2.5: F64, 4294967298 against I32 stays Int: I64,
// 9007199254740993 against F64 stays Int: I64), so they equal no stored
// value instead of being refused, wrapped or rounded. A float literal
// against F32 is taken at F32 width (0.1 is 0.1f). Assignments convert
// strictly: the value must fit the property (T3 otherwise).
//
// now(): lowered to the reserved parameter kNowParam (`__nanograph_now`,
// DateTime). The caller supplies it per request (BindParams does, for reads
// too — a deliberate fix of the upstream quirk of §2.8).
//
// Anonymous endpoints `$_` get distinct internal names "_#1", "_#2", ...
// (never valid user spellings) and `anonymous = true`; they are never
// projected and never part of tie-break ordering.
// ---------------------------------------------------------------------------
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/scalar.h"
#include "compiler/query_ast.h"
#include "compiler/types.h"

namespace omnigraph::compiler::ir {

// Reserved parameter name that now() lowers to (§1.8, §2.8).
inline constexpr std::string_view kNowParam = "__nanograph_now";

using query::AggFunc;

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
// "=", "!=", "<", "<=", ">", ">=".
const char* CompareOpName(CompareOp op);

// A constant or a parameter reference: inline binding values, mutation
// assignments and predicates.
struct Value {
  enum class Kind { kLiteral, kParam };
  Kind kind = Kind::kLiteral;
  // kLiteral: already converted to `type` (see the table above).
  Scalar literal;
  // kParam: parameter name (kNowParam for now()).
  std::string param;
  bool is_now = false;
  // kLiteral: the target type the literal was converted to (non-null), or
  // for a compared number no target value equals, the literal's own type
  // (see the table above); kParam: the declared parameter type (now():
  // DateTime, non-null). A nullable parameter may be NULL at run time.
  PropertyType type;

  std::string ToString() const;  // `30`, `"Alice"`, `$name`, `now()`
};

struct Expr {
  enum class Kind {
    kLiteral,    // `literal` of `type`
    kParam,      // `$param` (or now() with is_now); value from the bound params
    kProperty,   // `$variable.property` of a node (on_edge=false) or edge binding
    kNodeId,     // bare node variable `$variable`: its physical `id` (a String);
                 // type inference describes it as an object (§2.5)
    kAlias,      // a return alias (order keys only): projection `projection`
    kAggregate,  // agg(args[0]) — return projections only
    kNearest,    // vector distance: args[0] is the query (see below); F64
    kBm25,       // BM25 score of args[0] (kProperty) for query args[1]; F64
    kRrf,        // fused score of args[0], args[1] (kNearest/kBm25), k = args[2]; F64
    kSearch,     // token match of args[0] (kProperty) with args[1]; Bool
    kFuzzy,      // fuzzy token match: args[0] field, args[1] query, args[2] max_edits; Bool
    kMatchText,  // same as kSearch (phrase matching not implemented upstream); Bool
  };
  Kind kind = Kind::kLiteral;
  // Resolved result type. kNodeId: String (non-null). Aggregates: count →
  // I64 non-null; sum/avg → F64 nullable; min/max → the argument type,
  // nullable. Search functions: F64 (scores/distances) or Bool.
  PropertyType type;

  Scalar literal;            // kLiteral
  std::string param;         // kParam
  bool is_now = false;       // kParam: this is now()
  std::string variable;      // kProperty, kNodeId, kNearest: the bound variable
  std::string property;      // kProperty, kNearest: the property
  bool on_edge = false;      // kProperty: `variable` is an edge binding
  std::string type_name;     // kProperty/kNodeId/kNearest: node or edge type of `variable`
  int projection = -1;       // kAlias: index into ReadQuery::projections
  std::string alias;         // kAlias
  AggFunc agg = AggFunc::kCount;  // kAggregate
  std::vector<Expr> args;
  // kNearest: `args[0]` is a Vector(N) parameter, a Vector(N) literal
  // (Nested of N doubles), or a String (parameter/literal) to embed; for the
  // latter `embed_text` is true and `embed_model` holds the model the
  // property's @embed requires (if any).
  bool embed_text = false;
  std::optional<std::string> embed_model;
  // Default arguments are made explicit: fuzzy max_edits literal 2, rrf k
  // literal 60 (both I64); they may also be integer parameters.

  // Source spelling, e.g. `$p.name`, `count($f)`.
  std::string source;
};

// An equality (or list-membership) test from a binding's inline `{ p: v }`.
struct PropertyFilter {
  std::string property;
  PropertyType property_type;
  // Converted to the property type (for `membership` to its element type);
  // a number no value of that type equals keeps its own (see the top).
  Value value;
  // The property is a list: the row matches when `value` ∈ the list (§2.4).
  bool membership = false;
};

// A boolean filter over bound variables.
struct Filter {
  enum class Kind {
    kCompare,         // left op right (non-list, non-vector scalars)
    kListContains,    // left is a list; right (scalar, element-compatible) ∈ left
    kStringContains,  // left, right Strings: exact, case-sensitive substring (`%`, `_` literal)
    kStartsWith,      // left, right Strings: exact prefix
    kTextSearch,      // `left` is a kSearch / kFuzzy / kMatchText expression
  };
  Kind kind = Kind::kCompare;
  CompareOp op = CompareOp::kEq;  // kCompare only
  // Operands keep their written positions (§2.4: "a haystack" contains $p.name
  // asks whether the literal contains the name). A literal operand compared
  // with a property or parameter is converted to that operand's type when a
  // value of that type equals it (numbers: see the top; 16777217 against F32
  // stays I64, 2.5 against I32 stays F64).
  Expr left;
  Expr right;
  std::string source;
};

struct MatchStep;

// Scan all nodes of `type_name` into `variable` (a new binding), keeping
// those that pass every `filters` entry. `implicit`: no binding clause asked
// for the scan; a traversal with no bound endpoint needed a start (its
// `from` variable, typed from the edge).
struct NodeScan {
  std::string variable;
  std::string type_name;
  std::vector<PropertyFilter> filters;
  bool implicit = false;
  bool anonymous = false;
};

// Inline filters of a binding clause whose variable is already bound (a
// re-binding, or a binding that became a traversal destination, §2.4).
struct BindingCheck {
  std::string variable;
  std::string type_name;
  std::vector<PropertyFilter> filters;
};

// One traversal clause `$a [$w:] edge|<edge> [{min,max}] $b`.
struct Traverse {
  std::string edge_type;  // canonical name
  // As written: `written_src` is the variable left of the edge name.
  std::string written_src;
  std::string written_dst;
  // Where `written_src` sits on the edge: kForward = at the edge's src
  // column (it is a from-type node), kBackward = at dst, kUndirected = `<e>`.
  enum class Direction { kForward, kBackward, kUndirected };
  Direction direction = Direction::kForward;
  // Execution: expand from the bound `from_variable` to `to_variable`.
  std::string from_variable;
  std::string to_variable;
  std::string from_type;
  std::string to_type;
  // How to follow edges from `from_variable`: kSrcToDst = match the edge's
  // `src` column and reach `dst`; kDstToSrc = the reverse; kBoth = either
  // (undirected: a pair connected both ways, or a self-loop, yields one row
  // per source).
  enum class Follow { kSrcToDst, kDstToSrc, kBoth };
  Follow follow = Follow::kSrcToDst;
  // False when `to_variable` is already bound: keep the rows whose reached
  // node equals its id (cycle check, §2.4).
  bool to_is_new = true;
  bool from_anonymous = false;
  bool to_anonymous = false;
  // Hop bounds: 1 ≤ min_hops; max_hops is the effective maximum (capped to 1
  // for edges whose endpoint types differ, §2.4 rule 4; a step with
  // min_hops > max_hops matches nothing). Multi-hop follows the BFS of §2.4.
  uint32_t min_hops = 1;
  uint32_t max_hops = 1;
  uint32_t written_max_hops = 1;
  // `$w:` edge binding (only with {1,1}): one row per matching edge; the
  // edge's properties are readable as kProperty with on_edge = true. Empty
  // when absent: then the step has set-of-pairs semantics.
  std::string edge_variable;
};

// `not { ... }`: keep an outer row iff `steps`, seeded with the outer row's
// bindings, yield no row. Inner variables are local.
struct Negation {
  std::vector<MatchStep> steps;
  // Variables bound outside that the block references (at least one, T9).
  std::vector<std::string> outer_variables;
};

struct MatchStep {
  enum class Kind { kScan, kCheck, kTraverse, kFilter, kNegation };
  Kind kind = Kind::kScan;
  NodeScan scan;        // kScan
  BindingCheck check;   // kCheck
  Traverse traverse;    // kTraverse
  Filter filter;        // kFilter
  Negation negation;    // kNegation
};

struct Projection {
  Expr expr;
  // Runtime column name (§2.5): alias; `$x.p` → "x.p"; `$x` → "x"; `$param` →
  // "param"; literal → "literal"; now() → "now"; an unaliased aggregate takes
  // its argument's name (count($f) → "f"); search functions their name.
  // Never "?" (the empty-aggregate quirk of §2.5 is not reproduced).
  std::string column;
  // Name in the lint/type-inference descriptor (§6.4): alias, else property
  // name, else variable name, else function name (count, nearest, literal, now).
  std::string descriptor_name;
  std::optional<std::string> alias;
  bool is_aggregate = false;
};

struct OrderKey {
  enum class Kind {
    kProperty,    // sort by `expr` (kProperty) of each row, projected or not
    kProjection,  // sort by projection `projection` (alias or identical expression)
  };
  Kind kind = Kind::kProperty;
  Expr expr;
  int projection = -1;
  bool descending = false;  // NULLs first ascending, last descending (§2.6)
};

struct ReadQuery {
  // Executable order (every step's inputs are bound by earlier steps):
  // connected bindings are scanned once per component (first-declared
  // binding), the rest become BindingChecks after the hop that binds them;
  // filters and negations run as soon as their variables are bound.
  std::vector<MatchStep> steps;
  std::vector<Projection> projections;
  // True when any projection is an aggregate; then every other projection
  // is a group key (property access or variable; NULLs group together).
  bool aggregate = false;
  std::vector<int> group_keys;
  // When the first written order key is nearest/bm25/rrf (or an alias of
  // one), results come in search order: `search_order` holds that expression
  // (kNearest: ascending distance, limit nearest rows; kBm25: best score
  // first, only token-matching rows; kRrf: fused, §2.7) and `order` is empty
  // (later keys are ignored, §2.6).
  std::optional<Expr> search_order;
  // User order keys; the executor then tie-breaks by the ids of
  // `tie_break_variables` (ascending) unless the query aggregates.
  std::vector<OrderKey> order;
  std::optional<uint64_t> limit;
  // Non-anonymous node and edge variables bound by the top-level match, in
  // name order (§2.6 total order).
  std::vector<std::string> tie_break_variables;
};

struct Assignment {
  std::string property;
  PropertyType type;  // the property's type
  Value value;        // literal converted to `type`; or a parameter (may be NULL if nullable)
};

struct WherePredicate {
  // kProperty: a declared property; kSrc / kDst: an edge's `from` / `to`
  // (the physical src / dst column, a node id String).
  enum class Column { kProperty, kSrc, kDst };
  Column column = Column::kProperty;
  std::string property;  // as written (`from`/`to` for endpoints)
  PropertyType type;
  CompareOp op = CompareOp::kEq;
  // A comparison: a numeric literal keeps its exact value (see the top).
  Value value;
};

struct MutationStatement {
  enum class Kind { kInsert, kUpdate, kDelete };
  Kind kind = Kind::kInsert;
  bool on_edge = false;
  std::string type_name;  // canonical
  // Property assignments (edge `from`/`to` are in from/to, not here), in
  // source order. Insert: every non-nullable property is assigned, except
  // @embed vectors listed in `pending_embeddings`.
  std::vector<Assignment> assignments;
  std::optional<Value> from;  // edge insert: src node id (String)
  std::optional<Value> to;    // edge insert: dst node id (String)
  std::optional<WherePredicate> where;  // update / delete
  // Non-nullable @embed Vector properties omitted from an insert because
  // their source text property is assigned (T12 allows this, §3.1); the
  // executor must compute them or fail with "missing required property".
  std::vector<std::string> pending_embeddings;
};

struct ParamDecl {
  std::string name;
  PropertyType type;
  bool used = false;  // referenced by the query body
};

// A type the query may read or write (lint descriptor, §6.4).
struct TypeRef {
  bool is_edge = false;
  std::string type_name;
  bool operator==(const TypeRef&) const = default;
};

// How a mutation publishes (spec/branches.md BR-11.1, BR-12.1).
struct WriteForm {
  enum class Kind { kPublish, kCommit, kUnattachedBranch };
  Kind kind = Kind::kPublish;     // kPublish: an ordinary commit on the branch
  std::optional<std::string> on;  // kUnattachedBranch child: its parent snapshot
  bool operator==(const WriteForm&) const = default;
};

struct QueryIR {
  std::string name;
  bool is_mutation = false;
  WriteForm write_form;  // always kPublish for a read query
  std::optional<std::string> description;
  std::optional<std::string> instruction;
  std::vector<ParamDecl> params;  // declaration order
  bool uses_now = false;          // now() appears (needs kNowParam)
  ReadQuery read;                 // when !is_mutation
  // When is_mutation: statements in order; never both constructive
  // (insert/update) and destructive (delete) — the D2 rule (§3.2).
  std::vector<MutationStatement> statements;
  // Conservative access sets, sorted: nodes before edges, then by name.
  std::vector<TypeRef> reads;
  std::vector<TypeRef> writes;
};

// A readable, deterministic rendering of the IR for tests and debugging, e.g.
//   scan $p: Person {name = "Alice"}
//   traverse $p -> $f via Knows (forward, from $p src->dst, new, hops 1..1)
//   filter $f.age > 30
//   return p.name: String = $p.name
//   limit 3
std::string ToDebugString(const QueryIR& query);

}  // namespace omnigraph::compiler::ir
