#include "compiler/query_parser.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "compiler/scanner.h"
#include "compiler/temporal.h"

namespace omnigraph::compiler {

using query::AggFunc;
using query::Assignment;
using query::Clause;
using query::CompareOp;
using query::Expr;
using query::Literal;
using query::MatchValue;
using query::MutationPredicate;
using query::MutationStmt;
using query::Ordering;
using query::Param;
using query::Projection;
using query::PropMatch;
using query::QueryDecl;
using query::QueryFile;

namespace {

class QueryParser {
 public:
  QueryParser(std::string_view source, std::string_view file)
      : src_(source), file_(file), sc_(source, Scanner::Language::kQuery), lines_(source) {}

  Result<QueryFile> Run() {
    QueryFile file;
    while (true) {
      size_t saved = sc_.pos();
      QueryDecl decl;
      if (!ParseQueryDecl(&decl)) {
        sc_.set_pos(saved);
        break;
      }
      file.queries.push_back(std::move(decl));
    }
    if (too_deep_) return *too_deep_;
    if (!sc_.AtEnd()) return ParseErrorAt(file_, src_, Loc(sc_.furthest()), sc_.ExpectedMessage());
    if (deferred_) return *deferred_;
    return file;
  }

 private:
  SourceLocation Loc(size_t offset) const { return lines_.Locate(offset); }

  void Defer(size_t offset, std::string what) {
    if (deferred_offset_ != std::numeric_limits<size_t>::max() && offset >= deferred_offset_) return;
    deferred_offset_ = offset;
    deferred_ = ParseErrorAt(file_, src_, Loc(offset), what);
  }

  // Bounds the recursion of nested constructs (`not { }`, expressions,
  // list literals) so hostile input gets an error instead of exhausting the
  // stack. Once the limit is hit every parse function fails and Run reports
  // the first place it was exceeded.
  class Nesting {
   public:
    explicit Nesting(QueryParser* parser) : parser_(parser) {
      if (++parser_->depth_ > kMaxNestingDepth && !parser_->too_deep_) {
        parser_->too_deep_ = ParseErrorAt(parser_->file_, parser_->src_, parser_->Loc(parser_->sc_.PeekTokenStart()),
                                          fmt::format("nesting deeper than {} levels", kMaxNestingDepth));
      }
    }
    ~Nesting() { --parser_->depth_; }
    bool ok() const { return !parser_->too_deep_; }

   private:
    QueryParser* parser_;
  };

  // Runs `fn` with failures at the construct's start reported as `what`.
  template <typename Fn>
  bool Labeled(const char* what, Fn&& fn) {
    sc_.PushLabel(sc_.PeekTokenStart(), what);
    bool ok = fn();
    sc_.PopLabel();
    return ok;
  }

  // Runs `fn`; restores the position when it fails.
  template <typename Fn>
  bool Try(Fn&& fn) {
    size_t saved = sc_.pos();
    if (fn()) return true;
    sc_.set_pos(saved);
    return false;
  }

  // query_decl = "query" ident "(" [ param { "," param } ] ")" { q_annotation }
  //              [ write_as ] "{" ( read_body | mutation_body ) "}"
  bool ParseQueryDecl(QueryDecl* q) {
    q->begin_offset = sc_.PeekTokenStart();
    if (!sc_.Lit("query")) return false;
    size_t name_at = sc_.PeekTokenStart();
    if (!sc_.Ident(&q->name, "query name")) return false;
    q->location = Loc(name_at);
    if (!sc_.Lit("(")) return false;
    Try([&] {
      Param p;
      if (!ParseParam(&p)) return false;
      q->params.push_back(std::move(p));
      while (Try([&] {
        Param next;
        if (!sc_.Lit(",") || !ParseParam(&next)) return false;
        q->params.push_back(std::move(next));
        return true;
      })) {
      }
      return true;
    });
    if (!sc_.Lit(")")) return false;
    while (Try([&] { return ParseQueryAnnotation(q); })) {
    }
    Try([&] { return ParseWriteAs(q); });
    if (!sc_.Lit("{")) return false;
    if (!Try([&] { return ParseReadBody(q); })) {
      q->match.clear();
      q->returns.clear();
      q->order.clear();
      q->limit.reset();
      if (!ParseMutationBody(q)) return false;
      q->is_mutation = true;
    }
    if (!sc_.Lit("}")) return false;
    q->end_offset = sc_.pos();
    if (q->write_as && !q->is_mutation) {
      Defer(q->write_as->offset,
            fmt::format("`{}` applies only to mutations; query {} is read-only",
                        q->write_as->kind == query::WriteAs::Kind::kCommit ? "as commit" : "as unattached branch",
                        q->name));
    }
    return true;
  }

  // write_as = "as" "commit" | "as" "unattached" "branch" [ "on" string ]
  bool ParseWriteAs(QueryDecl* q) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Lit("as")) return false;
    query::WriteAs clause;
    clause.location = Loc(at);
    clause.offset = at;
    if (Try([&] { return sc_.Lit("commit"); })) {
      clause.kind = query::WriteAs::Kind::kCommit;
    } else {
      if (!sc_.Lit("unattached") || !sc_.Lit("branch")) return false;
      clause.kind = query::WriteAs::Kind::kUnattachedBranch;
      std::string parent;
      if (Try([&] { return sc_.Lit("on") && ParseString(&parent); })) clause.on = std::move(parent);
    }
    q->write_as = std::move(clause);
    return true;
  }

  // q_annotation = "@description" "(" string ")" | "@instruction" "(" string ")"
  bool ParseQueryAnnotation(QueryDecl* q) {
    size_t at = sc_.PeekTokenStart();
    std::optional<std::string>* slot = nullptr;
    const char* name = nullptr;
    if (Try([&] { return sc_.Lit("@description"); })) {
      slot = &q->description;
      name = "description";
    } else if (Try([&] { return sc_.Lit("@instruction"); })) {
      slot = &q->instruction;
      name = "instruction";
    } else {
      return false;
    }
    std::string text;
    if (!sc_.Lit("(") || !ParseString(&text) || !sc_.Lit(")")) return false;
    if (slot->has_value()) Defer(at, fmt::format("duplicate @{} on query {}", name, q->name));
    *slot = text;
    return true;
  }

  // param = variable ":" p_type;
  // p_type = ( "[" base_type "]" | base_type | "Vector" "(" integer ")" ) [ "?" ]
  bool ParseParam(Param* p) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Variable(&p->name)) return false;
    p->location = Loc(at);
    if (!sc_.Lit(":")) return false;
    ScalarKind kind;
    if (Try([&] { return sc_.Lit("[") && sc_.BaseType(&kind) && sc_.Lit("]"); })) {
      p->type_text = "[" + std::string(ScalarKindName(kind)) + "]";
      p->type = PropertyType::List(kind);
      p->type_supported = kind != ScalarKind::kBlob;
    } else if (Try([&] { return sc_.BaseType(&kind); })) {
      p->type_text = std::string(ScalarKindName(kind));
      p->type = PropertyType::Scalar(kind);
    } else {
      std::string digits;
      if (!sc_.Lit("Vector") || !sc_.Lit("(") || !sc_.Integer(&digits) || !sc_.Lit(")")) return false;
      p->type_text = "Vector(" + digits + ")";
      uint64_t dim = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), dim);
      if (ec != std::errc() || dim == 0 || dim > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        p->type_supported = false;
        p->type = PropertyType::Vector(1);
      } else {
        p->type = PropertyType::Vector(static_cast<int32_t>(dim));
      }
    }
    if (Try([&] { return sc_.Lit("?"); })) p->type.nullable = true;
    return true;
  }

  // read_body = match_clause return_clause [ order_clause ] [ limit_clause ]
  bool ParseReadBody(QueryDecl* q) {
    if (!sc_.Lit("match") || !sc_.Lit("{")) return false;
    if (!ParseClauses(&q->match)) return false;
    if (!sc_.Lit("}")) return false;
    // return_clause = "return" "{" projection { projection } "}"
    if (!sc_.Lit("return") || !sc_.Lit("{")) return false;
    Projection first;
    if (!ParseProjection(&first)) return false;
    q->returns.push_back(std::move(first));
    while (true) {
      Projection next;
      if (!Try([&] { return ParseProjection(&next); })) break;
      q->returns.push_back(std::move(next));
    }
    if (!sc_.Lit("}")) return false;
    // order_clause = "order" "{" ordering { "," ordering } "}"
    Try([&] {
      std::vector<Ordering> keys;
      if (!sc_.Lit("order") || !sc_.Lit("{")) return false;
      Ordering o;
      if (!ParseOrdering(&o)) return false;
      keys.push_back(std::move(o));
      while (true) {
        Ordering next;
        if (!Try([&] { return sc_.Lit(",") && ParseOrdering(&next); })) break;
        keys.push_back(std::move(next));
      }
      if (!sc_.Lit("}")) return false;
      q->order = std::move(keys);
      return true;
    });
    // limit_clause = "limit" integer
    Try([&] {
      std::string digits;
      size_t at = 0;
      if (!sc_.Lit("limit")) return false;
      at = sc_.PeekTokenStart();
      if (!sc_.Integer(&digits)) return false;
      q->limit = ParseU64(digits, at);
      return true;
    });
    return true;
  }

  uint64_t ParseU64(const std::string& digits, size_t at) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc()) {
      Defer(at, fmt::format("integer literal {} is out of range", digits));
      return 0;
    }
    return v;
  }

  // clause { clause }
  bool ParseClauses(std::vector<Clause>* out) {
    Clause first;
    if (!ParseClause(&first)) return false;
    out->push_back(std::move(first));
    while (true) {
      Clause next;
      if (!Try([&] { return ParseClause(&next); })) break;
      out->push_back(std::move(next));
    }
    return true;
  }

  // clause = negation | binding | traversal | filter | text_search
  bool ParseClause(Clause* c) {
    return Labeled("match clause", [&] { return ParseClauseInner(c); });
  }

  bool ParseClauseInner(Clause* c) {
    size_t at = sc_.PeekTokenStart();
    using Alternative = bool (QueryParser::*)(Clause*);
    static constexpr Alternative kAlternatives[] = {&QueryParser::ParseNegation, &QueryParser::ParseBinding,
                                                    &QueryParser::ParseTraversal, &QueryParser::ParseFilter,
                                                    &QueryParser::ParseTextSearch};
    for (Alternative alt : kAlternatives) {
      Clause attempt;
      attempt.location = Loc(at);
      if (Try([&] { return (this->*alt)(&attempt); })) {
        *c = std::move(attempt);
        return true;
      }
    }
    return false;
  }

  bool ParseNegation(Clause* c) {
    if (!sc_.Lit("not") || !sc_.Lit("{")) return false;
    Nesting nesting(this);
    if (!nesting.ok()) return false;
    c->kind = Clause::Kind::kNegation;
    c->clauses.clear();
    if (!ParseClauses(&c->clauses)) return false;
    return sc_.Lit("}");
  }

  // binding = variable ":" TypeName [ "{" [ prop_match { "," prop_match } [ "," ] ] "}" ]
  // (empty braces accepted: a user-expected spelling, architecture §3.7)
  bool ParseBinding(Clause* c) {
    if (!sc_.Variable(&c->variable) || !sc_.Lit(":") || !sc_.TypeName(&c->type_name)) return false;
    c->kind = Clause::Kind::kBinding;
    c->props.clear();
    Try([&] {
      std::vector<PropMatch> props;
      if (!sc_.Lit("{")) return false;
      PropMatch pm;
      if (Try([&] { return ParsePropMatch(&pm); })) {
        props.push_back(std::move(pm));
        while (true) {
          PropMatch next;
          if (!Try([&] { return sc_.Lit(",") && ParsePropMatch(&next); })) break;
          props.push_back(std::move(next));
        }
        Try([&] { return sc_.Lit(","); });
      }
      if (!sc_.Lit("}")) return false;
      c->props = std::move(props);
      return true;
    });
    return true;
  }

  // prop_match = ident ":" match_value
  bool ParsePropMatch(PropMatch* pm) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Ident(&pm->property, "property name")) return false;
    pm->location = Loc(at);
    return sc_.Lit(":") && ParseMatchValue(&pm->value);
  }

  // match_value = literal | variable | "now" "(" ")"
  bool ParseMatchValue(MatchValue* v) {
    return Labeled("literal, variable or now()", [&] { return ParseMatchValueInner(v); });
  }

  bool ParseMatchValueInner(MatchValue* v) {
    size_t at = sc_.PeekTokenStart();
    v->location = Loc(at);
    if (Try([&] { return ParseLiteral(&v->literal); })) {
      v->kind = MatchValue::Kind::kLiteral;
      return true;
    }
    if (Try([&] { return sc_.Variable(&v->variable); })) {
      v->kind = MatchValue::Kind::kVariable;
      return true;
    }
    if (Try([&] { return sc_.Lit("now") && sc_.Lit("(") && sc_.Lit(")"); })) {
      v->kind = MatchValue::Kind::kNow;
      return true;
    }
    return false;
  }

  // edge_ident: an ident other than the word `not`.
  bool ParseEdgeIdent(std::string* out) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Ident(out, "edge name")) return false;
    if (*out == "not") {
      sc_.Expect("edge name", at);
      return false;
    }
    return true;
  }

  // traversal = variable [ variable ":" ] ( "<" edge_ident ">" | edge_ident )
  //             [ "{" integer "," [ integer ] "}" ] variable
  bool ParseTraversal(Clause* c) {
    if (!sc_.Variable(&c->src)) return false;
    c->kind = Clause::Kind::kTraversal;
    c->edge_variable.reset();
    Try([&] {
      std::string name;
      if (!sc_.Variable(&name) || !sc_.Lit(":")) return false;
      c->edge_variable = name;
      return true;
    });
    c->edge_location = Loc(sc_.PeekTokenStart());
    c->undirected = false;
    if (Try([&] { return sc_.Lit("<") && ParseEdgeIdent(&c->edge_name) && sc_.Lit(">"); })) {
      c->undirected = true;
    } else if (!ParseEdgeIdent(&c->edge_name)) {
      return false;
    }
    c->has_bounds = false;
    c->min_hops = 1;
    c->max_hops = 1;
    Try([&] {
      std::string lo, hi;
      size_t lo_at = 0, hi_at = 0;
      if (!sc_.Lit("{")) return false;
      lo_at = sc_.PeekTokenStart();
      if (!sc_.Integer(&lo) || !sc_.Lit(",")) return false;
      hi_at = sc_.PeekTokenStart();
      if (!Try([&] { return sc_.Integer(&hi); })) hi.clear();
      if (!sc_.Lit("}")) return false;
      c->has_bounds = true;
      c->min_hops = ParseHop(lo, lo_at);
      if (hi.empty()) {
        c->max_hops.reset();
      } else {
        c->max_hops = ParseHop(hi, hi_at);
      }
      return true;
    });
    return sc_.Variable(&c->dst);
  }

  uint32_t ParseHop(const std::string& digits, size_t at) {
    uint32_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc()) {
      Defer(at, fmt::format("hop bound {} is out of range", digits));
      return 1;
    }
    return v;
  }

  // filter = expr filter_op expr
  bool ParseFilter(Clause* c) {
    if (!ParseExpr(&c->left)) return false;
    if (!ParseFilterOp(&c->op)) return false;
    if (!ParseExpr(&c->right)) return false;
    c->kind = Clause::Kind::kFilter;
    return true;
  }

  // filter_op = "starts_with" | "contains" | ">=" | "<=" | "!=" | ">" | "<" | "="
  bool ParseFilterOp(CompareOp* op) {
    return Labeled("comparison operator", [&] { return ParseFilterOpInner(op); });
  }

  bool ParseFilterOpInner(CompareOp* op) {
    if (Try([&] { return sc_.Lit("starts_with"); })) {
      *op = CompareOp::kStartsWith;
      return true;
    }
    if (Try([&] { return sc_.Lit("contains"); })) {
      *op = CompareOp::kContains;
      return true;
    }
    return ParseCompOp(op);
  }

  // comp_op = ">=" | "<=" | "!=" | ">" | "<" | "="
  bool ParseCompOp(CompareOp* op) {
    static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
        {">=", CompareOp::kGe}, {"<=", CompareOp::kLe}, {"!=", CompareOp::kNe},
        {">", CompareOp::kGt},  {"<", CompareOp::kLt},  {"=", CompareOp::kEq}};
    size_t at = sc_.PeekTokenStart();
    sc_.PushQuiet();
    for (const auto& [text, value] : kOps) {
      if (Try([&] { return sc_.Lit(text); })) {
        sc_.PopQuiet();
        *op = value;
        return true;
      }
    }
    sc_.PopQuiet();
    sc_.Expect("comparison operator", at);
    return false;
  }

  // text_search = search_call | fuzzy_call | match_text_call
  bool ParseTextSearch(Clause* c) {
    size_t at = sc_.PeekTokenStart();
    c->left = Expr();
    c->left.location = Loc(at);
    if (Try([&] { return ParseSearchCall(&c->left); }) || Try([&] { return ParseFuzzyCall(&c->left); }) ||
        Try([&] { return ParseMatchTextCall(&c->left); })) {
      c->kind = Clause::Kind::kTextSearch;
      return true;
    }
    return false;
  }

  // projection = expr [ "as" ident ] [ "," ]
  bool ParseProjection(Projection* p) {
    p->location = Loc(sc_.PeekTokenStart());
    if (!ParseExpr(&p->expr)) return false;
    Try([&] {
      std::string alias;
      if (!sc_.Lit("as") || !sc_.Ident(&alias, "alias")) return false;
      p->alias = alias;
      return true;
    });
    Try([&] { return sc_.Lit(","); });
    return true;
  }

  // ordering = nearest_call | expr [ "asc" | "desc" ]
  bool ParseOrdering(Ordering* o) {
    return Labeled("order key", [&] { return ParseOrderingInner(o); });
  }

  bool ParseOrderingInner(Ordering* o) {
    o->location = Loc(sc_.PeekTokenStart());
    if (Try([&] {
          o->expr = Expr();
          o->expr.location = o->location;
          return ParseNearestCall(&o->expr);
        })) {
      o->is_nearest_form = true;
      return true;
    }
    if (!ParseExpr(&o->expr)) return false;
    if (Try([&] { return sc_.Lit("asc"); })) {
      o->descending = false;
    } else if (Try([&] { return sc_.Lit("desc"); })) {
      o->descending = true;
    }
    return true;
  }

  // expr = "now" "(" ")" | nearest_call | search_call | fuzzy_call | match_text_call
  //      | bm25_call | rrf_call | agg_call | variable "." ident | variable | literal | ident
  bool ParseExpr(Expr* e) {
    Nesting nesting(this);
    if (!nesting.ok()) return false;
    return Labeled("expression", [&] { return ParseExprInner(e); });
  }

  bool ParseExprInner(Expr* e) {
    size_t at = sc_.PeekTokenStart();
    *e = Expr();
    e->location = Loc(at);
    if (Try([&] { return sc_.Lit("now") && sc_.Lit("(") && sc_.Lit(")"); })) {
      e->kind = Expr::Kind::kNow;
      return true;
    }
    if (Try([&] { return ParseNearestCall(e); })) return true;
    if (Try([&] { return ParseSearchCall(e); })) return true;
    if (Try([&] { return ParseFuzzyCall(e); })) return true;
    if (Try([&] { return ParseMatchTextCall(e); })) return true;
    if (Try([&] { return ParseTwoArgCall("bm25", Expr::Kind::kBm25, e); })) return true;
    if (Try([&] { return ParseRrfCall(e); })) return true;
    if (Try([&] { return ParseAggCall(e); })) return true;
    if (Try([&] {
          std::string var, prop;
          if (!sc_.Variable(&var) || !sc_.Lit(".") || !sc_.Ident(&prop, "property name")) return false;
          e->kind = Expr::Kind::kPropAccess;
          e->variable = var;
          e->name = prop;
          return true;
        })) {
      return true;
    }
    if (Try([&] {
          std::string var;
          if (!sc_.Variable(&var)) return false;
          e->kind = Expr::Kind::kVariable;
          e->variable = var;
          return true;
        })) {
      return true;
    }
    if (Try([&] { return ParseLiteral(&e->literal); })) {
      e->kind = Expr::Kind::kLiteral;
      return true;
    }
    std::string ident;
    if (!sc_.Ident(&ident)) return false;
    e->kind = Expr::Kind::kAliasRef;
    e->name = ident;
    return true;
  }

  // nearest_call = "nearest" "(" variable "." ident "," expr ")"
  bool ParseNearestCall(Expr* e) {
    std::string var, prop;
    if (!sc_.Lit("nearest") || !sc_.Lit("(") || !sc_.Variable(&var) || !sc_.Lit(".") ||
        !sc_.Ident(&prop, "property name") || !sc_.Lit(",")) {
      return false;
    }
    Expr q;
    if (!ParseExpr(&q) || !sc_.Lit(")")) return false;
    e->kind = Expr::Kind::kNearest;
    e->variable = var;
    e->name = prop;
    e->args = {std::move(q)};
    return true;
  }

  bool ParseTwoArgCall(std::string_view keyword, Expr::Kind kind, Expr* e) {
    Expr a, b;
    if (!sc_.Lit(keyword) || !sc_.Lit("(") || !ParseExpr(&a) || !sc_.Lit(",") || !ParseExpr(&b) || !sc_.Lit(")")) {
      return false;
    }
    e->kind = kind;
    e->args = {std::move(a), std::move(b)};
    return true;
  }

  bool ParseSearchCall(Expr* e) { return ParseTwoArgCall("search", Expr::Kind::kSearch, e); }
  bool ParseMatchTextCall(Expr* e) { return ParseTwoArgCall("match_text", Expr::Kind::kMatchText, e); }

  // fuzzy_call = "fuzzy" "(" expr "," expr [ "," expr ] ")"
  bool ParseFuzzyCall(Expr* e) {
    Expr a, b, c;
    if (!sc_.Lit("fuzzy") || !sc_.Lit("(") || !ParseExpr(&a) || !sc_.Lit(",") || !ParseExpr(&b)) return false;
    bool has_c = Try([&] { return sc_.Lit(",") && ParseExpr(&c); });
    if (!sc_.Lit(")")) return false;
    e->kind = Expr::Kind::kFuzzy;
    e->args = {std::move(a), std::move(b)};
    if (has_c) e->args.push_back(std::move(c));
    return true;
  }

  // rank = nearest_call | bm25_call
  bool ParseRank(Expr* e) {
    size_t at = sc_.PeekTokenStart();
    *e = Expr();
    e->location = Loc(at);
    if (Try([&] { return ParseNearestCall(e); })) return true;
    return ParseTwoArgCall("bm25", Expr::Kind::kBm25, e);
  }

  // rrf_call = "rrf" "(" rank "," rank [ "," expr ] ")"
  bool ParseRrfCall(Expr* e) {
    Expr a, b, k;
    if (!sc_.Lit("rrf") || !sc_.Lit("(") || !ParseRank(&a) || !sc_.Lit(",") || !ParseRank(&b)) return false;
    bool has_k = Try([&] { return sc_.Lit(",") && ParseExpr(&k); });
    if (!sc_.Lit(")")) return false;
    e->kind = Expr::Kind::kRrf;
    e->args = {std::move(a), std::move(b)};
    if (has_k) e->args.push_back(std::move(k));
    return true;
  }

  // agg_call = ( "count" | "sum" | "avg" | "min" | "max" ) "(" expr ")"
  bool ParseAggCall(Expr* e) {
    static constexpr std::pair<std::string_view, AggFunc> kFuncs[] = {{"count", AggFunc::kCount},
                                                                     {"sum", AggFunc::kSum},
                                                                     {"avg", AggFunc::kAvg},
                                                                     {"min", AggFunc::kMin},
                                                                     {"max", AggFunc::kMax}};
    for (const auto& [name, func] : kFuncs) {
      Expr arg;
      if (Try([&] { return sc_.Lit(name) && sc_.Lit("(") && ParseExpr(&arg) && sc_.Lit(")"); })) {
        e->kind = Expr::Kind::kAggregate;
        e->agg = func;
        e->args = {std::move(arg)};
        return true;
      }
    }
    return false;
  }

  bool ParseString(std::string* out) {
    std::string body;
    size_t start = 0;
    if (!sc_.StringLit(&body, &start)) return false;
    std::string error;
    size_t bad = 0;
    if (!DecodeStringBody(body, out, &error, &bad)) Defer(start + 1 + bad, error);
    return true;
  }

  // literal = list | datetime("…") | date("…") | string | float | integer | bool
  bool ParseLiteral(Literal* lit) {
    Nesting nesting(this);
    if (!nesting.ok()) return false;
    return Labeled("literal", [&] { return ParseLiteralInner(lit); });
  }

  bool ParseLiteralInner(Literal* lit) {
    size_t at = sc_.PeekTokenStart();
    *lit = Literal();
    lit->location = Loc(at);
    if (Try([&] {
          if (!sc_.Lit("[")) return false;
          std::vector<Literal> items;
          Try([&] {
            Literal first;
            if (!ParseLiteral(&first)) return false;
            items.push_back(std::move(first));
            while (true) {
              Literal next;
              if (!Try([&] { return sc_.Lit(",") && ParseLiteral(&next); })) break;
              items.push_back(std::move(next));
            }
            return true;
          });
          if (!sc_.Lit("]")) return false;
          lit->kind = Literal::Kind::kList;
          lit->items = std::move(items);
          return true;
        })) {
      return true;
    }
    if (Try([&] { return ParseTemporal("datetime", Literal::Kind::kDateTime, lit); })) return true;
    if (Try([&] { return ParseTemporal("date", Literal::Kind::kDate, lit); })) return true;
    if (Try([&] { return ParseString(&lit->text); })) {
      lit->kind = Literal::Kind::kString;
      return true;
    }
    if (Try([&] { return sc_.Float(&lit->text); })) {
      lit->kind = Literal::Kind::kFloat;
      lit->float_value = std::strtod(lit->text.c_str(), nullptr);
      return true;
    }
    if (Try([&] { return sc_.Integer(&lit->text); })) {
      lit->kind = Literal::Kind::kInteger;
      lit->int_value = ParseU64(lit->text, at);
      return true;
    }
    if (Try([&] { return sc_.Word("true"); })) {
      lit->kind = Literal::Kind::kBool;
      lit->bool_value = true;
      lit->text = "true";
      return true;
    }
    if (Try([&] { return sc_.Word("false"); })) {
      lit->kind = Literal::Kind::kBool;
      lit->bool_value = false;
      lit->text = "false";
      return true;
    }
    return false;
  }

  bool ParseTemporal(std::string_view keyword, Literal::Kind kind, Literal* lit) {
    if (!sc_.Lit(keyword) || !sc_.Lit("(")) return false;
    size_t at = sc_.PeekTokenStart();
    std::string text;
    if (!ParseString(&text) || !sc_.Lit(")")) return false;
    lit->kind = kind;
    lit->text = text;
    if (kind == Literal::Kind::kDate) {
      std::optional<int32_t> days = ParseDate(text);
      if (!days) {
        Defer(at, fmt::format("invalid date literal \"{}\"", text));
      } else {
        lit->temporal = *days;
      }
    } else {
      std::optional<int64_t> ms = ParseDateTime(text);
      if (!ms) {
        Defer(at, fmt::format("invalid datetime literal \"{}\"", text));
      } else {
        lit->temporal = *ms;
      }
    }
    return true;
  }

  // mutation_body = mutation_stmt { mutation_stmt }
  bool ParseMutationBody(QueryDecl* q) {
    MutationStmt first;
    if (!ParseMutationStmt(&first)) return false;
    q->mutations.push_back(std::move(first));
    while (true) {
      MutationStmt next;
      if (!Try([&] { return ParseMutationStmt(&next); })) break;
      q->mutations.push_back(std::move(next));
    }
    return true;
  }

  // mutation_stmt = "insert" TypeName "{" assignment { assignment } "}"
  //   | "update" TypeName "set" "{" assignment { assignment } "}" "where" predicate
  //   | "delete" TypeName "where" predicate
  bool ParseMutationStmt(MutationStmt* m) {
    size_t at = sc_.PeekTokenStart();
    m->location = Loc(at);
    if (Try([&] {
          if (!sc_.Lit("insert")) return false;
          m->type_location = Loc(sc_.PeekTokenStart());
          if (!sc_.TypeName(&m->type_name) || !sc_.Lit("{")) return false;
          if (!ParseAssignments(&m->assignments)) return false;
          if (!sc_.Lit("}")) return false;
          m->kind = MutationStmt::Kind::kInsert;
          return true;
        })) {
      return true;
    }
    m->assignments.clear();
    if (Try([&] {
          if (!sc_.Lit("update")) return false;
          m->type_location = Loc(sc_.PeekTokenStart());
          if (!sc_.TypeName(&m->type_name) || !sc_.Lit("set") || !sc_.Lit("{")) return false;
          if (!ParseAssignments(&m->assignments)) return false;
          if (!sc_.Lit("}") || !sc_.Lit("where")) return false;
          MutationPredicate p;
          if (!ParsePredicate(&p)) return false;
          m->where = std::move(p);
          m->kind = MutationStmt::Kind::kUpdate;
          return true;
        })) {
      return true;
    }
    m->assignments.clear();
    m->where.reset();
    if (!sc_.Lit("delete")) return false;
    m->type_location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&m->type_name) || !sc_.Lit("where")) return false;
    MutationPredicate p;
    if (!ParsePredicate(&p)) return false;
    m->where = std::move(p);
    m->kind = MutationStmt::Kind::kDelete;
    return true;
  }

  // assignment { assignment }; assignment = ident ":" match_value [ "," ]
  bool ParseAssignments(std::vector<Assignment>* out) {
    auto one = [&](Assignment* a) {
      size_t at = sc_.PeekTokenStart();
      if (!sc_.Ident(&a->property, "property name")) return false;
      a->location = Loc(at);
      if (!sc_.Lit(":") || !ParseMatchValue(&a->value)) return false;
      Try([&] { return sc_.Lit(","); });
      return true;
    };
    Assignment first;
    if (!one(&first)) return false;
    out->push_back(std::move(first));
    while (true) {
      Assignment next;
      if (!Try([&] { return one(&next); })) break;
      out->push_back(std::move(next));
    }
    return true;
  }

  // predicate = ident comp_op match_value
  bool ParsePredicate(MutationPredicate* p) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Ident(&p->property, "property name")) return false;
    p->location = Loc(at);
    return ParseCompOp(&p->op) && ParseMatchValue(&p->value);
  }

  std::string_view src_;
  std::string_view file_;
  Scanner sc_;
  LineIndex lines_;
  std::optional<Status> deferred_;
  size_t deferred_offset_ = std::numeric_limits<size_t>::max();
  int depth_ = 0;
  std::optional<Status> too_deep_;
};

}  // namespace

Result<query::QueryFile> ParseQueries(std::string_view source, std::string_view file_name) {
  source = WithoutByteOrderMark(source);
  OG_RETURN_IF_ERROR(CheckUtf8Source(file_name, source));
  QueryParser parser(source, file_name);
  return parser.Run();
}

namespace query {

const char* AggFuncName(AggFunc f) {
  switch (f) {
    case AggFunc::kCount: return "count";
    case AggFunc::kSum: return "sum";
    case AggFunc::kAvg: return "avg";
    case AggFunc::kMin: return "min";
    case AggFunc::kMax: return "max";
  }
  return "?";
}

const char* CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
    case CompareOp::kContains: return "contains";
    case CompareOp::kStartsWith: return "starts_with";
  }
  return "?";
}

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string Literal::ToString() const {
  switch (kind) {
    case Kind::kString: return Quote(text);
    case Kind::kInteger:
    case Kind::kFloat:
    case Kind::kBool: return text;
    case Kind::kDate: return "date(" + Quote(text) + ")";
    case Kind::kDateTime: return "datetime(" + Quote(text) + ")";
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += items[i].ToString();
      }
      return out + "]";
    }
  }
  return text;
}

std::string Expr::ToString() const {
  auto call = [&](const char* name) {
    std::string out = std::string(name) + "(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out += ", ";
      out += args[i].ToString();
    }
    return out + ")";
  };
  switch (kind) {
    case Kind::kNow: return "now()";
    case Kind::kNearest: return "nearest($" + variable + "." + name + ", " + args.at(0).ToString() + ")";
    case Kind::kSearch: return call("search");
    case Kind::kFuzzy: return call("fuzzy");
    case Kind::kMatchText: return call("match_text");
    case Kind::kBm25: return call("bm25");
    case Kind::kRrf: return call("rrf");
    case Kind::kAggregate: return call(AggFuncName(agg));
    case Kind::kPropAccess: return "$" + variable + "." + name;
    case Kind::kVariable: return "$" + variable;
    case Kind::kLiteral: return literal.ToString();
    case Kind::kAliasRef: return name;
  }
  return "?";
}

}  // namespace query

}  // namespace omnigraph::compiler
