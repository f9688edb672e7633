#include "compiler/typecheck.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "compiler/query_parser.h"

namespace omnigraph::compiler {

namespace {

using query::AggFunc;
using query::Clause;
using query::Literal;
using query::MatchValue;
using query::MutationStmt;
using QExpr = query::Expr;
using QCompareOp = query::CompareOp;

// ---------------------------------------------------------------------------
// Type helpers

// Two types compare or assign without error (§2.4): same list-ness; vectors
// of one dimension; String and enums together; any two numeric kinds;
// otherwise the same scalar kind.
bool Compatible(const PropertyType& a, const PropertyType& b) {
  if (a.is_list() != b.is_list()) return false;
  if (a.is_vector() || b.is_vector()) return a.is_vector() && b.is_vector() && a.vector_dim == b.vector_dim;
  bool a_text = a.is_enum() || a.scalar == ScalarKind::kString;
  bool b_text = b.is_enum() || b.scalar == ScalarKind::kString;
  if (a_text || b_text) return a_text && b_text;
  if (IsNumeric(a.scalar) && IsNumeric(b.scalar)) return true;
  return a.scalar == b.scalar;
}

bool IsIntegerScalar(const PropertyType& t) { return t.is_scalar() && IsInteger(t.scalar); }
bool IsFloatScalar(const PropertyType& t) {
  return t.is_scalar() && (t.scalar == ScalarKind::kF32 || t.scalar == ScalarKind::kF64);
}

struct IntRange {
  long double min, max;
};

IntRange RangeOf(ScalarKind k) {
  switch (k) {
    case ScalarKind::kI32: return {static_cast<long double>(INT32_MIN), static_cast<long double>(INT32_MAX)};
    case ScalarKind::kU32: return {0, static_cast<long double>(UINT32_MAX)};
    case ScalarKind::kU64: return {0, static_cast<long double>(UINT64_MAX)};
    default: return {static_cast<long double>(INT64_MIN), static_cast<long double>(INT64_MAX)};
  }
}

bool IntegerFits(uint64_t magnitude, ScalarKind k) {
  switch (k) {
    case ScalarKind::kI32: return magnitude <= static_cast<uint64_t>(INT32_MAX);
    case ScalarKind::kU32: return magnitude <= UINT32_MAX;
    case ScalarKind::kI64: return magnitude <= static_cast<uint64_t>(INT64_MAX);
    case ScalarKind::kU64: return true;
    default: return false;
  }
}

Scalar IntegerScalar(uint64_t magnitude, ScalarKind k) {
  if (k == ScalarKind::kU32 || k == ScalarKind::kU64) return Scalar::UInt(magnitude);
  return Scalar::Int(static_cast<int64_t>(magnitude));
}

double RoundTo(double v, ScalarKind k) { return k == ScalarKind::kF32 ? static_cast<double>(static_cast<float>(v)) : v; }

// The literal's own type: integers I64 (U64 above the I64 range), floats
// F64, lists of their first element's type ([String] when empty).
Result<PropertyType> LiteralType(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::kString: return PropertyType::Scalar(ScalarKind::kString);
    case Literal::Kind::kInteger:
      return PropertyType::Scalar(lit.int_value > static_cast<uint64_t>(INT64_MAX) ? ScalarKind::kU64 : ScalarKind::kI64);
    case Literal::Kind::kFloat: return PropertyType::Scalar(ScalarKind::kF64);
    case Literal::Kind::kBool: return PropertyType::Scalar(ScalarKind::kBool);
    case Literal::Kind::kDate: return PropertyType::Scalar(ScalarKind::kDate);
    case Literal::Kind::kDateTime: return PropertyType::Scalar(ScalarKind::kDateTime);
    case Literal::Kind::kList: {
      if (lit.items.empty()) return PropertyType::List(ScalarKind::kString);
      OG_ASSIGN_OR_RETURN(PropertyType first, LiteralType(lit.items[0]));
      if (first.is_list()) return TypeError("", "nested list literals are not supported", lit.location);
      // Numbers widen to the widest element: `[1, 2.5]` is a list of F64.
      ScalarKind element = first.scalar;
      for (size_t i = 1; i < lit.items.size(); ++i) {
        OG_ASSIGN_OR_RETURN(PropertyType t, LiteralType(lit.items[i]));
        if (t.is_list() || !Compatible(first, t)) {
          return TypeError("", "list literal elements must share a compatible scalar type", lit.items[i].location);
        }
        if (t.scalar == ScalarKind::kF64 || (t.scalar == ScalarKind::kU64 && element == ScalarKind::kI64)) {
          element = t.scalar;
        }
      }
      return PropertyType::List(element);
    }
  }
  return PropertyType();
}

// The literal as a value of its own type.
Scalar LiteralScalar(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::kString: return Scalar::String(lit.text);
    case Literal::Kind::kInteger:
      return lit.int_value > static_cast<uint64_t>(INT64_MAX) ? Scalar::UInt(lit.int_value)
                                                                : Scalar::Int(static_cast<int64_t>(lit.int_value));
    case Literal::Kind::kFloat: return Scalar::Double(lit.float_value);
    case Literal::Kind::kBool: return Scalar::Bool(lit.bool_value);
    case Literal::Kind::kDate:
    case Literal::Kind::kDateTime: return Scalar::Int(lit.temporal);
    case Literal::Kind::kList: {
      Scalar::List items;
      for (const Literal& item : lit.items) items.push_back(LiteralScalar(item));
      return Scalar::Nested(std::move(items));
    }
  }
  return Scalar();
}

bool IsNumericLiteral(const Literal& lit) {
  return lit.kind == Literal::Kind::kInteger || lit.kind == Literal::Kind::kFloat;
}

// A non-empty list literal of numbers: its length (a vector literal).
std::optional<size_t> VectorLiteralDim(const Literal& lit) {
  if (lit.kind != Literal::Kind::kList || lit.items.empty()) return std::nullopt;
  for (const Literal& item : lit.items) {
    if (!IsNumericLiteral(item)) return std::nullopt;
  }
  return lit.items.size();
}

Scalar VectorScalar(const Literal& lit) {
  Scalar::List items;
  for (const Literal& item : lit.items) {
    double v = item.kind == Literal::Kind::kInteger ? static_cast<double>(item.int_value) : item.float_value;
    items.push_back(Scalar::Double(RoundTo(v, ScalarKind::kF32)));
  }
  return Scalar::Nested(std::move(items));
}

// Converts a scalar (non-list) literal to `target` (a scalar or enum type).
// nullopt when the kinds do not fit; `*out_of_range` when they fit but the
// value does not.
std::optional<Scalar> ConvertScalarLiteral(const Literal& lit, const PropertyType& target, bool* out_of_range) {
  *out_of_range = false;
  switch (lit.kind) {
    case Literal::Kind::kString:
      // A String literal may name a Blob (a URI or base64: data), as a
      // String parameter may (§3.1); the user-expected spelling.
      if (target.is_text() || target.is_blob()) return Scalar::String(lit.text);
      return std::nullopt;
    case Literal::Kind::kInteger:
      if (IsIntegerScalar(target)) {
        if (!IntegerFits(lit.int_value, target.scalar)) {
          *out_of_range = true;
          return std::nullopt;
        }
        return IntegerScalar(lit.int_value, target.scalar);
      }
      // Integer literals for float properties convert (architecture §3.7).
      if (IsFloatScalar(target)) return Scalar::Double(RoundTo(static_cast<double>(lit.int_value), target.scalar));
      return std::nullopt;
    case Literal::Kind::kFloat:
      if (IsFloatScalar(target)) {
        double v = RoundTo(lit.float_value, target.scalar);
        if (std::isinf(v)) {
          *out_of_range = true;
          return std::nullopt;
        }
        return Scalar::Double(v);
      }
      if (IsIntegerScalar(target)) {
        // An integral float fits an integer property exactly; a fraction
        // does not (reported as a type mismatch).
        double v = lit.float_value;
        if (v != std::floor(v)) return std::nullopt;
        IntRange r = RangeOf(target.scalar);
        if (static_cast<long double>(v) < r.min || static_cast<long double>(v) > r.max) {
          *out_of_range = true;
          return std::nullopt;
        }
        return IntegerScalar(static_cast<uint64_t>(v), target.scalar);
      }
      return std::nullopt;
    case Literal::Kind::kBool:
      if (target.is_scalar() && target.scalar == ScalarKind::kBool) return Scalar::Bool(lit.bool_value);
      return std::nullopt;
    case Literal::Kind::kDate:
      if (target.is_scalar() && target.scalar == ScalarKind::kDate) return Scalar::Int(lit.temporal);
      return std::nullopt;
    case Literal::Kind::kDateTime:
      if (target.is_scalar() && target.scalar == ScalarKind::kDateTime) return Scalar::Int(lit.temporal);
      return std::nullopt;
    case Literal::Kind::kList: return std::nullopt;
  }
  return std::nullopt;
}

ir::Value LiteralValue(Scalar value, const PropertyType& type) {
  ir::Value out;
  out.kind = ir::Value::Kind::kLiteral;
  out.literal = std::move(value);
  out.type = type.WithNullable(false);
  return out;
}

// The value a numeric literal is compared as against a value of numeric
// type `target` (§2.4: any two numeric kinds compare, by value). It takes
// `target`'s representation when a value of that kind equals it exactly,
// so a column loop stays in the column's domain; otherwise it keeps its own
// exact value and type, which no value of `target` equals. So `count = 2.7`
// and `count = 4294967298` on an I32 property, or `d = 9007199254740993` on
// an F64 one, match no row rather than being refused, truncated, wrapped or
// rounded onto a stored neighbour. The one narrowing: a float literal
// against F32 is taken at F32 width, the value a load of the same decimal
// stores (`ratio = 0.1` finds the stored 0.1f).
ir::Value NumericComparand(const Literal& lit, const PropertyType& target) {
  if (lit.kind == Literal::Kind::kFloat && target.scalar == ScalarKind::kF32) {
    const double narrowed = RoundTo(lit.float_value, ScalarKind::kF32);
    if (!std::isinf(narrowed)) return LiteralValue(Scalar::Double(narrowed), target);
  }
  Scalar own = LiteralScalar(lit);
  if (std::optional<Scalar> exact = ExactNumericValue(own, target.scalar)) return LiteralValue(*exact, target);
  return LiteralValue(std::move(own), *LiteralType(lit));  // a number's type never fails
}

// A scalar literal compared with a value of scalar or enum type `target`
// (a list membership element, a filter operand): numbers by value
// (NumericComparand), other kinds converted to `target`. nullopt when the
// kinds do not compare.
std::optional<ir::Value> ComparedScalarLiteral(const Literal& lit, const PropertyType& target) {
  if (IsNumericLiteral(lit) && target.is_numeric()) return NumericComparand(lit, target);
  bool out_of_range = false;  // only numbers can be out of range
  std::optional<Scalar> v = ConvertScalarLiteral(lit, target, &out_of_range);
  if (!v) return std::nullopt;
  return LiteralValue(std::move(*v), target);
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

ir::CompareOp LowerOp(QCompareOp op) {
  switch (op) {
    case QCompareOp::kEq: return ir::CompareOp::kEq;
    case QCompareOp::kNe: return ir::CompareOp::kNe;
    case QCompareOp::kLt: return ir::CompareOp::kLt;
    case QCompareOp::kLe: return ir::CompareOp::kLe;
    case QCompareOp::kGt: return ir::CompareOp::kGt;
    case QCompareOp::kGe: return ir::CompareOp::kGe;
    default: return ir::CompareOp::kEq;
  }
}

const char* SearchName(QExpr::Kind k) {
  switch (k) {
    case QExpr::Kind::kNearest: return "nearest";
    case QExpr::Kind::kSearch: return "search";
    case QExpr::Kind::kFuzzy: return "fuzzy";
    case QExpr::Kind::kMatchText: return "match_text";
    case QExpr::Kind::kBm25: return "bm25";
    case QExpr::Kind::kRrf: return "rrf";
    default: return "?";
  }
}

bool IsRankKind(ir::Expr::Kind k) {
  return k == ir::Expr::Kind::kNearest || k == ir::Expr::Kind::kBm25 || k == ir::Expr::Kind::kRrf;
}

void CollectRefs(const ir::Expr& e, std::set<std::string>* out) {
  if (e.kind == ir::Expr::Kind::kProperty || e.kind == ir::Expr::Kind::kNodeId || e.kind == ir::Expr::Kind::kNearest) {
    out->insert(e.variable);
  }
  for (const ir::Expr& a : e.args) CollectRefs(a, out);
}

// ---------------------------------------------------------------------------
// Checked clauses (before planning)

struct Binding {
  bool is_edge = false;
  std::string type_name;
};
using Scope = std::map<std::string, Binding>;

struct CheckedClause {
  enum class Kind { kBinding, kTraversal, kFilter, kNegation };
  Kind kind = Kind::kBinding;
  // kBinding
  std::string variable;
  std::string type_name;
  std::vector<ir::PropertyFilter> filters;
  // kTraversal (Traverse with written fields filled; execution fields by the planner)
  ir::Traverse traverse;
  std::string src_type;
  std::string dst_type;
  // kFilter
  ir::Filter filter;
  // kNegation
  std::vector<CheckedClause> inner;
  std::vector<std::string> outer_variables;
  // Variables the clause reads (filters, negations).
  std::set<std::string> refs;
};

// Where an expression stands; decides which call kinds are allowed.
enum class Place { kFilter, kSearchClause, kReturn, kOrder, kArgument };

class Checker {
 public:
  Checker(const Catalog& catalog, const query::QueryDecl& q) : cat_(catalog), q_(q) {}

  Result<ir::QueryIR> Run() {
    ir::QueryIR out;
    out.name = q_.name;
    out.is_mutation = q_.is_mutation;
    if (q_.write_as) {
      out.write_form.kind = q_.write_as->kind == query::WriteAs::Kind::kCommit
                                ? ir::WriteForm::Kind::kCommit
                                : ir::WriteForm::Kind::kUnattachedBranch;
      out.write_form.on = q_.write_as->on;
    }
    out.description = q_.description;
    out.instruction = q_.instruction;
    OG_RETURN_IF_ERROR(CheckParams());
    if (q_.is_mutation) {
      OG_RETURN_IF_ERROR(CheckMutations(&out));
    } else {
      OG_RETURN_IF_ERROR(CheckRead(&out));
    }
    for (const query::Param& p : q_.params) {
      out.params.push_back({p.name, p.type, used_params_.count(p.name) > 0});
    }
    out.uses_now = uses_now_;
    std::sort(reads_.begin(), reads_.end(), TypeRefLess);
    reads_.erase(std::unique(reads_.begin(), reads_.end()), reads_.end());
    std::sort(writes_.begin(), writes_.end(), TypeRefLess);
    writes_.erase(std::unique(writes_.begin(), writes_.end()), writes_.end());
    out.reads = reads_;
    out.writes = writes_;
    return out;
  }

 private:
  static bool TypeRefLess(const ir::TypeRef& a, const ir::TypeRef& b) {
    if (a.is_edge != b.is_edge) return !a.is_edge;
    return a.type_name < b.type_name;
  }
  void ReadNode(const std::string& name) { reads_.push_back({false, name}); }
  void ReadEdge(const std::string& name) { reads_.push_back({true, name}); }

  // ---- parameters --------------------------------------------------------

  Status CheckParams() {
    for (const query::Param& p : q_.params) {
      if (p.name == ir::kNowParam) {
        return TypeError("", fmt::format("parameter name `${}` is reserved for runtime timestamp injection", p.name),
                         p.location);
      }
      if (!p.type_supported) {
        return TypeError("", fmt::format("unknown parameter type `{}` for `${}`", p.type_text, p.name), p.location);
      }
      if (params_.count(p.name)) {
        return TypeError("", fmt::format("duplicate parameter `${}`", p.name), p.location);
      }
      params_[p.name] = p.type;
    }
    return Status::OK();
  }

  const PropertyType* Param(const std::string& name) const {
    auto it = params_.find(name);
    return it == params_.end() ? nullptr : &it->second;
  }

  Status NotAParam(const std::string& name, SourceLocation loc) const {
    if (Param(name)) {
      return TypeError("", fmt::format("variable `${}` shadows the query parameter `${}`", name, name), loc);
    }
    return Status::OK();
  }

  ir::Value ParamValue(const std::string& name, const PropertyType& type) {
    used_params_.insert(name);
    ir::Value v;
    v.kind = ir::Value::Kind::kParam;
    v.param = name;
    v.type = type;
    return v;
  }

  ir::Value NowValue() {
    uses_now_ = true;
    ir::Value v;
    v.kind = ir::Value::Kind::kParam;
    v.param = std::string(ir::kNowParam);
    v.is_now = true;
    v.type = PropertyType::Scalar(ScalarKind::kDateTime);
    return v;
  }

  // ---- literal conversion ------------------------------------------------

  // Converts a literal to the type of property `prop` (T3 on mismatch).
  Result<Scalar> ConvertLiteral(const Literal& lit, const PropertyType& target, const std::string& prop) {
    if (target.is_vector()) {
      if (std::optional<size_t> dim = VectorLiteralDim(lit)) {
        if (*dim != static_cast<size_t>(target.vector_dim)) {
          return TypeError("T3",
                           fmt::format("property `{}` has type Vector({}) but got vector literal with {} elements", prop,
                                       target.vector_dim, *dim),
                           lit.location);
        }
        return VectorScalar(lit);
      }
    }
    OG_ASSIGN_OR_RETURN(PropertyType lit_type, LiteralType(lit));
    auto mismatch = [&]() {
      std::string message =
          fmt::format("property `{}` has type {} but got {}", prop, target.ToString(), lit_type.ToString());
      // A quoted date is the usual slip: temporal literals have their own
      // spelling (§2.1).
      if (lit.kind == Literal::Kind::kString && !target.is_list()) {
        if (target.scalar == ScalarKind::kDate) message += " (write a Date as date(\"YYYY-MM-DD\"))";
        if (target.scalar == ScalarKind::kDateTime) message += " (write a DateTime as datetime(\"...\"))";
      }
      // Stored values are never rounded to fit (§3.1): say why a number is
      // refused by a number-typed property.
      if (lit.kind == Literal::Kind::kFloat && IsIntegerScalar(target)) {
        message = fmt::format("property `{}` has type {} but got F64 literal {}, which is not a whole number; "
                              "integer properties are never rounded",
                              prop, target.ToString(), lit.text);
      }
      return TypeError("T3", message, lit.location);
    };
    auto out_of_range = [&](const Literal& l) {
      return TypeError("T3", fmt::format("property `{}` has type {} but literal {} is out of range", prop,
                                         target.ToString(), l.text),
                       l.location);
    };
    if (target.is_list()) {
      if (lit.kind != Literal::Kind::kList) return mismatch();
      PropertyType element = target.Element();
      Scalar::List items;
      for (const Literal& item : lit.items) {
        bool range = false;
        std::optional<Scalar> v = ConvertScalarLiteral(item, element, &range);
        if (range) return out_of_range(item);
        if (!v) return mismatch();
        items.push_back(std::move(*v));
      }
      return Scalar::Nested(std::move(items));
    }
    if (lit.kind == Literal::Kind::kList) return mismatch();
    bool range = false;
    std::optional<Scalar> v = ConvertScalarLiteral(lit, target, &range);
    if (range) return out_of_range(lit);
    if (!v) return mismatch();
    if (target.is_enum() && !std::binary_search(target.enum_values.begin(), target.enum_values.end(), lit.text)) {
      return TypeError("T3", fmt::format("property `{}` expects one of [{}], got '{}'", prop,
                                         Join(target.enum_values, ", "), lit.text),
                       lit.location);
    }
    return *v;
  }

  // A value assigned to property `prop` of type `target` in a mutation (T3
  // literals that do not fit, T14 undeclared, T7 incompatible); where
  // predicates go through PredicateValue.
  Result<ir::Value> MutationValue(const MatchValue& mv, const PropertyType& target, const std::string& prop) {
    switch (mv.kind) {
      case MatchValue::Kind::kLiteral: {
        OG_ASSIGN_OR_RETURN(Scalar v, ConvertLiteral(mv.literal, target, prop));
        return LiteralValue(std::move(v), target);
      }
      case MatchValue::Kind::kVariable: {
        const PropertyType* actual = Param(mv.variable);
        if (!actual) {
          return TypeError("T14", fmt::format("mutation variable `${}` must be a declared query parameter", mv.variable),
                           mv.location);
        }
        bool string_to_blob = actual->is_string() && target.is_blob();
        if (!string_to_blob && !Compatible(*actual, target)) {
          return TypeError("T7", fmt::format("cannot assign/compare {} with {} for property `{}`", actual->ToString(),
                                             target.ToString(), prop),
                           mv.location);
        }
        return ParamValue(mv.variable, *actual);
      }
      case MatchValue::Kind::kNow:
        if (!(target.is_scalar() && target.scalar == ScalarKind::kDateTime)) {
          return TypeError("T7", fmt::format("cannot assign/compare DateTime with {} for property `{}`",
                                             target.ToString(), prop),
                           mv.location);
        }
        return NowValue();
    }
    return Internal("unreachable");
  }

  // A literal compared with property `prop` of type `target` (an inline
  // match, a where predicate): a number by value (NumericComparand), any
  // other literal converted as an assignment converts it (T3 on mismatch).
  Result<ir::Value> ComparedLiteral(const Literal& lit, const PropertyType& target, const std::string& prop) {
    if (IsNumericLiteral(lit) && target.is_numeric()) return NumericComparand(lit, target);
    OG_ASSIGN_OR_RETURN(Scalar v, ConvertLiteral(lit, target, prop));
    return LiteralValue(std::move(v), target);
  }

  // The value of a mutation's where predicate: a comparison, so a literal
  // compares by value; parameters and now() as in MutationValue.
  Result<ir::Value> PredicateValue(const MatchValue& mv, const PropertyType& target, const std::string& prop) {
    if (mv.kind == MatchValue::Kind::kLiteral) return ComparedLiteral(mv.literal, target, prop);
    return MutationValue(mv, target, prop);
  }

  // ---- read queries ------------------------------------------------------

  Status CheckRead(ir::QueryIR* out) {
    Scope scope;
    std::vector<CheckedClause> clauses;
    OG_RETURN_IF_ERROR(CheckClauses(q_.match, &scope, &clauses));
    ir::ReadQuery& read = out->read;
    for (const auto& [name, b] : scope) {
      if (name.rfind("_#", 0) != 0) read.tie_break_variables.push_back(name);
    }
    OG_RETURN_IF_ERROR(CheckReturn(scope, &read));
    std::vector<PendingOrder> order;
    OG_RETURN_IF_ERROR(CheckOrder(scope, read, &order));
    OG_RETURN_IF_ERROR(CheckLimitRules(read, order));
    OG_RETURN_IF_ERROR(CheckGrouping(&read));
    OG_RETURN_IF_ERROR(FinishOrder(order, &read));
    read.steps = Plan(clauses, {});
    read.limit = q_.limit;
    return Status::OK();
  }

  Status CheckClauses(const std::vector<Clause>& clauses, Scope* scope, std::vector<CheckedClause>* out) {
    for (const Clause& c : clauses) {
      CheckedClause cc;
      switch (c.kind) {
        case Clause::Kind::kBinding: OG_RETURN_IF_ERROR(CheckBinding(c, scope, &cc)); break;
        case Clause::Kind::kTraversal: OG_RETURN_IF_ERROR(CheckTraversal(c, scope, &cc)); break;
        case Clause::Kind::kFilter: OG_RETURN_IF_ERROR(CheckFilter(c, *scope, &cc)); break;
        case Clause::Kind::kTextSearch: OG_RETURN_IF_ERROR(CheckTextSearch(c, *scope, &cc)); break;
        case Clause::Kind::kNegation: OG_RETURN_IF_ERROR(CheckNegation(c, *scope, &cc)); break;
      }
      out->push_back(std::move(cc));
    }
    return Status::OK();
  }

  // `$x: T { p: v, ... }` — T1, T23 (edge var rebound), T2, T3/T7, rebinding.
  Status CheckBinding(const Clause& c, Scope* scope, CheckedClause* out) {
    const NodeType* node = cat_.FindNode(c.type_name);
    if (!node) return TypeError("T1", fmt::format("unknown node type `{}`", c.type_name), c.location);
    if (c.variable == "_") {
      // §2.4: `$_` is never bound; traversals treat it as anonymous.
      return TypeError("", "`$_` is the anonymous endpoint and cannot be bound; give the binding a name", c.location);
    }
    auto existing = scope->find(c.variable);
    if (existing != scope->end() && existing->second.is_edge) {
      return TypeError("T23",
                       fmt::format("variable `${}` is already an edge binding; it cannot be rebound as a node",
                                   c.variable),
                       c.location);
    }
    OG_RETURN_IF_ERROR(NotAParam(c.variable, c.location));
    out->kind = CheckedClause::Kind::kBinding;
    out->variable = c.variable;
    out->type_name = node->name;
    for (const query::PropMatch& pm : c.props) {
      const Property* prop = node->FindProperty(pm.property);
      if (!prop) {
        return TypeError("T2", fmt::format("type `{}` has no property `{}`", node->name, pm.property), pm.location);
      }
      if (prop->type.is_blob()) {
        return TypeError("T3",
                         fmt::format("blob property `{}.{}` cannot be used in match patterns", node->name, prop->name),
                         pm.location);
      }
      OG_ASSIGN_OR_RETURN(ir::PropertyFilter f, BindingFilter(pm, *prop));
      out->filters.push_back(std::move(f));
    }
    if (existing != scope->end() && existing->second.type_name != node->name) {
      return TypeError("", fmt::format("variable `${}` already bound to type `{}`, cannot rebind to `{}`", c.variable,
                                       existing->second.type_name, node->name),
                       c.location);
    }
    (*scope)[c.variable] = Binding{false, node->name};
    ReadNode(node->name);
    return Status::OK();
  }

  Result<ir::PropertyFilter> BindingFilter(const query::PropMatch& pm, const Property& prop) {
    ir::PropertyFilter f;
    f.property = prop.name;
    f.property_type = prop.type;
    const PropertyType& t = prop.type;
    const MatchValue& mv = pm.value;
    switch (mv.kind) {
      case MatchValue::Kind::kLiteral: {
        if (t.is_list()) {
          f.membership = true;
          if (mv.literal.kind == Literal::Kind::kList) {
            return TypeError("T3",
                             fmt::format("list equality is not supported for property `{}`; use a scalar value to "
                                         "match list membership",
                                         prop.name),
                             mv.location);
          }
          OG_ASSIGN_OR_RETURN(PropertyType lt, LiteralType(mv.literal));
          std::optional<ir::Value> v = ComparedScalarLiteral(mv.literal, t.Element());
          if (!v) {
            return TypeError("T3", fmt::format("property `{}` has type {} but membership match got {}", prop.name,
                                               t.ToString(), lt.ToString()),
                             mv.location);
          }
          f.value = std::move(*v);
          return f;
        }
        OG_ASSIGN_OR_RETURN(f.value, ComparedLiteral(mv.literal, t, prop.name));
        return f;
      }
      case MatchValue::Kind::kVariable: {
        const PropertyType* actual = Param(mv.variable);
        if (!actual) {
          return TypeError("T3", fmt::format("match variable `${}` must be a declared query parameter", mv.variable),
                           mv.location);
        }
        if (t.is_list()) {
          f.membership = true;
          if (actual->is_list()) {
            return TypeError("T7",
                             fmt::format("list equality is not supported for property `{}`; use a scalar parameter "
                                         "for membership matching",
                                         prop.name),
                             mv.location);
          }
          if (!Compatible(*actual, t.Element())) {
            return TypeError("T7", fmt::format("cannot compare {} membership against {} for property `{}`",
                                               actual->ToString(), t.ToString(), prop.name),
                             mv.location);
          }
        } else if (!Compatible(*actual, t)) {
          return TypeError("T7", fmt::format("cannot assign/compare {} with {} for property `{}`", actual->ToString(),
                                             t.ToString(), prop.name),
                           mv.location);
        }
        f.value = ParamValue(mv.variable, *actual);
        return f;
      }
      case MatchValue::Kind::kNow:
        if (!(t.is_scalar() && t.scalar == ScalarKind::kDateTime)) {
          return TypeError("T7", fmt::format("cannot assign/compare DateTime with {} for property `{}`", t.ToString(),
                                             prop.name),
                           mv.location);
        }
        f.value = NowValue();
        return f;
    }
    return Internal("unreachable");
  }

  std::string AnonName() { return fmt::format("_#{}", ++anon_counter_); }

  // `$a [$w:] edge|<edge> [{min,max}] $b` — T4, T15, T22, T23, T5 (§2.4).
  Status CheckTraversal(const Clause& c, Scope* scope, CheckedClause* out) {
    const EdgeType* edge = cat_.FindEdge(c.edge_name);
    if (!edge) return TypeError("T4", fmt::format("unknown edge type `{}`", c.edge_name), c.edge_location);
    if (c.min_hops == 0) return TypeError("T15", "traversal min hop bound must be >= 1", c.edge_location);
    if (c.max_hops && *c.max_hops < c.min_hops) {
      return TypeError("T15",
                       fmt::format("invalid traversal bounds {{{},{}}}; max must be >= min", c.min_hops, *c.max_hops),
                       c.edge_location);
    }
    if (!c.max_hops) {
      return TypeError("T15", "unbounded traversal is disabled; use bounded traversal {min,max}", c.edge_location);
    }
    if (c.undirected && !edge->same_endpoints()) {
      return TypeError("T22",
                       fmt::format("undirected traversal `<{}>` requires a same-endpoint-type edge, but `{}: {} -> {}` "
                                   "is asymmetric; use the directional form",
                                   edge->name, edge->name, edge->from_type, edge->to_type),
                       c.edge_location);
    }
    std::string edge_var = c.edge_variable.value_or("");
    if (edge_var == "_") edge_var.clear();
    if (!edge_var.empty()) {
      if (c.min_hops != 1 || *c.max_hops != 1) {
        return TypeError("T23",
                         fmt::format("edge binding `${}` cannot be combined with traversal bounds; a multi-hop "
                                     "traversal matches a path of edges, not one edge",
                                     edge_var),
                         c.location);
      }
      if (edge_var == c.src || edge_var == c.dst) {
        return TypeError("T23",
                         fmt::format("edge binding `${}` cannot reuse a traversal endpoint name; edge bindings and node "
                                     "endpoints need distinct names",
                                     edge_var),
                         c.location);
      }
      auto it = scope->find(edge_var);
      if (it != scope->end()) {
        return TypeError("T23",
                         fmt::format("variable `${}` is already {} binding; an edge binding needs a fresh name",
                                     edge_var, it->second.is_edge ? "an edge" : "a node"),
                         c.location);
      }
      if (Param(edge_var)) {
        return TypeError("T23",
                         fmt::format("variable `${}` is already a query parameter; an edge binding needs a fresh name",
                                     edge_var),
                         c.location);
      }
    }
    const bool src_anon = c.src == "_";
    const bool dst_anon = c.dst == "_";
    const Binding* src_b = nullptr;
    const Binding* dst_b = nullptr;
    for (auto [name, anon, slot] : {std::tuple{&c.src, src_anon, &src_b}, std::tuple{&c.dst, dst_anon, &dst_b}}) {
      if (anon) continue;
      auto it = scope->find(*name);
      if (it == scope->end()) continue;
      if (it->second.is_edge) {
        return TypeError("T23",
                         fmt::format("edge binding `${}` cannot be used as a traversal endpoint; traversal endpoints "
                                     "must be node bindings",
                                     *name),
                         c.location);
      }
      *slot = &it->second;
    }
    if (!src_anon) OG_RETURN_IF_ERROR(NotAParam(c.src, c.location));
    if (!dst_anon) OG_RETURN_IF_ERROR(NotAParam(c.dst, c.location));

    auto not_endpoint = [&](const std::string& var, const std::string& type) {
      return TypeError("T5", fmt::format("variable `${}` has type `{}`, which is not an endpoint of edge `{}: {} -> {}`",
                                         var, type, edge->name, edge->from_type, edge->to_type),
                       c.location);
    };
    auto expects = [&](const std::string& var, const std::string& type, const std::string& expected) {
      return TypeError("T5", fmt::format("variable `${}` has type `{}` but edge `{}` expects `{}`", var, type,
                                         edge->name, expected),
                       c.location);
    };
    ir::Traverse::Direction direction;
    std::string src_type, dst_type;
    if (src_b) {
      if (src_b->type_name == edge->from_type) {
        direction = ir::Traverse::Direction::kForward;
      } else if (src_b->type_name == edge->to_type) {
        direction = ir::Traverse::Direction::kBackward;
      } else {
        return not_endpoint(c.src, src_b->type_name);
      }
    } else if (dst_b) {
      if (dst_b->type_name == edge->to_type) {
        direction = ir::Traverse::Direction::kForward;
      } else if (dst_b->type_name == edge->from_type) {
        direction = ir::Traverse::Direction::kBackward;
      } else {
        return not_endpoint(c.dst, dst_b->type_name);
      }
    } else {
      direction = ir::Traverse::Direction::kForward;
    }
    if (direction == ir::Traverse::Direction::kForward) {
      src_type = edge->from_type;
      dst_type = edge->to_type;
    } else {
      src_type = edge->to_type;
      dst_type = edge->from_type;
    }
    // The source endpoint decides the direction; the destination must agree.
    if (src_b && dst_b && dst_b->type_name != dst_type) return expects(c.dst, dst_b->type_name, dst_type);
    if (!src_b && !dst_b && !src_anon && !dst_anon && c.src == c.dst && src_type != dst_type) {
      return expects(c.dst, src_type, dst_type);
    }
    if (c.undirected) direction = ir::Traverse::Direction::kUndirected;

    out->kind = CheckedClause::Kind::kTraversal;
    ir::Traverse& t = out->traverse;
    t.edge_type = edge->name;
    t.written_src = src_anon ? AnonName() : c.src;
    t.written_dst = dst_anon ? AnonName() : c.dst;
    t.from_anonymous = src_anon;  // adjusted by the planner when expanding from dst
    t.to_anonymous = dst_anon;
    t.direction = direction;
    t.min_hops = c.min_hops;
    t.written_max_hops = *c.max_hops;
    t.max_hops = edge->same_endpoints() ? *c.max_hops : std::min<uint32_t>(*c.max_hops, 1);
    t.edge_variable = edge_var;
    out->src_type = src_type;
    out->dst_type = dst_type;
    if (!src_anon) (*scope)[c.src] = Binding{false, src_type};
    if (!dst_anon) (*scope)[c.dst] = Binding{false, dst_type};
    if (!edge_var.empty()) (*scope)[edge_var] = Binding{true, edge->name};
    ReadEdge(edge->name);
    ReadNode(edge->from_type);
    ReadNode(edge->to_type);
    return Status::OK();
  }

  // ---- expressions -------------------------------------------------------

  // T24 for Blob values read by a query (projection, order, aggregates).
  Status RejectBlobReadValue(const ir::Expr& e, SourceLocation loc) const {
    if (!e.type.is_blob()) return Status::OK();
    std::string subject;
    if (e.kind == ir::Expr::Kind::kParam) {
      subject = fmt::format("Blob parameter `${}`", e.param);
    } else if (e.kind == ir::Expr::Kind::kAlias) {
      subject = fmt::format("Blob alias `{}`", e.alias);
    } else if (e.kind == ir::Expr::Kind::kProperty) {
      subject = fmt::format("Blob property `${}.{}`", e.variable, e.property);
    } else {
      subject = "Blob expression";
    }
    return TypeError("T24",
                     fmt::format("{} is not available as a .gq read value; Blob values require a dedicated API", subject),
                     loc);
  }

  ir::Expr LiteralExpr(const Literal& lit, PropertyType type) const {
    ir::Expr e;
    e.kind = ir::Expr::Kind::kLiteral;
    e.type = std::move(type);
    e.literal = LiteralScalar(lit);
    return e;
  }

  // The property `prop` of a bound variable: T6 unbound / unknown, T24 Blob.
  Result<ir::Expr> ResolveProperty(const std::string& var, const std::string& prop, const Scope& scope,
                                   SourceLocation loc) {
    auto it = scope.find(var);
    if (it == scope.end()) return TypeError("T6", fmt::format("variable `${}` is not bound", var), loc);
    const Binding& b = it->second;
    const Property* p = nullptr;
    if (b.is_edge) {
      p = cat_.FindEdge(b.type_name)->FindProperty(prop);
    } else {
      p = cat_.FindNode(b.type_name)->FindProperty(prop);
    }
    if (!p) return TypeError("T6", fmt::format("type `{}` has no property `{}`", b.type_name, prop), loc);
    if (p->type.is_blob()) {
      return TypeError("T24",
                       fmt::format("Blob property `${}.{}` is not available as a .gq read value; Blob values require "
                                   "a dedicated API",
                                   var, prop),
                       loc);
    }
    ir::Expr e;
    e.kind = ir::Expr::Kind::kProperty;
    e.variable = var;
    e.property = prop;
    e.on_edge = b.is_edge;
    e.type_name = b.type_name;
    e.type = p->type;
    return e;
  }

  // A search function's field: a String property of a node binding.
  Result<ir::Expr> ResolveSearchField(const QExpr& field, const Scope& scope, const char* fn, const char* code) {
    if (field.kind == QExpr::Kind::kPropAccess) {
      auto it = scope.find(field.variable);
      if (it != scope.end() && it->second.is_edge) {
        return TypeError("T23",
                         fmt::format("{} cannot target edge binding `${}`; search functions only target node properties",
                                     fn, field.variable),
                         field.location);
      }
    }
    OG_ASSIGN_OR_RETURN(ir::Expr f, Resolve(field, scope, Place::kArgument));
    if (f.kind == ir::Expr::Kind::kNodeId) {
      return TypeError(code, fmt::format("{} field must be a scalar String expression", fn), field.location);
    }
    if (!f.type.is_text()) {
      return TypeError(code, fmt::format("{} field must be String, got {}", fn, f.type.ToString()), field.location);
    }
    if (f.kind != ir::Expr::Kind::kProperty) {
      return TypeError(code, fmt::format("{} field must be a String property of a node binding", fn), field.location);
    }
    return f;
  }

  Result<ir::Expr> ResolveStringArg(const QExpr& arg, const Scope& scope, const char* fn, const char* what,
                                    const char* code) {
    OG_ASSIGN_OR_RETURN(ir::Expr e, Resolve(arg, scope, Place::kArgument));
    if (e.kind == ir::Expr::Kind::kNodeId || e.kind == ir::Expr::Kind::kAggregate) {
      return TypeError(code, fmt::format("{} {} must be a scalar String expression", fn, what), arg.location);
    }
    if (!e.type.is_text()) {
      return TypeError(code, fmt::format("{} {} must be String, got {}", fn, what, e.type.ToString()), arg.location);
    }
    return e;
  }

  Result<ir::Expr> ResolveIntegerArg(const QExpr& arg, const Scope& scope, const std::string& what, const char* code) {
    OG_ASSIGN_OR_RETURN(ir::Expr e, Resolve(arg, scope, Place::kArgument));
    if (e.kind == ir::Expr::Kind::kNodeId || e.kind == ir::Expr::Kind::kAggregate) {
      return TypeError(code, fmt::format("{} must be an integer scalar expression", what), arg.location);
    }
    if (!IsIntegerScalar(e.type)) {
      return TypeError(code, fmt::format("{} must be an integer scalar, got {}", what, e.type.ToString()),
                       arg.location);
    }
    return e;
  }

  static ir::Expr IntLiteral(int64_t v) {
    ir::Expr e;
    e.kind = ir::Expr::Kind::kLiteral;
    e.type = PropertyType::Scalar(ScalarKind::kI64);
    e.literal = Scalar::Int(v);
    e.source = std::to_string(v);
    return e;
  }

  Result<ir::Expr> ResolveNearest(const QExpr& x, const Scope& scope) {
    auto it = scope.find(x.variable);
    if (it == scope.end()) return TypeError("T15", fmt::format("variable `${}` is not bound", x.variable), x.location);
    if (it->second.is_edge) {
      return TypeError("T23",
                       fmt::format("nearest cannot target edge binding `${}`; search functions only target node "
                                   "properties",
                                   x.variable),
                       x.location);
    }
    const NodeType* node = cat_.FindNode(it->second.type_name);
    const Property* p = node->FindProperty(x.name);
    if (!p) return TypeError("T15", fmt::format("type `{}` has no property `{}`", node->name, x.name), x.location);
    if (!p->type.is_vector()) {
      if (p->type.is_list()) {
        return TypeError("T15", "nearest does not support list-wrapped vectors", x.location);
      }
      return TypeError("T15", fmt::format("nearest requires a Vector property, got {}.{}: {}", node->name, x.name,
                                          p->type.ToString()),
                       x.location);
    }
    const int32_t dim = p->type.vector_dim;
    ir::Expr e;
    e.kind = ir::Expr::Kind::kNearest;
    e.variable = x.variable;
    e.property = x.name;
    e.type_name = node->name;
    e.type = PropertyType::Scalar(ScalarKind::kF64);
    const QExpr& q = x.args.at(0);
    if (q.kind == QExpr::Kind::kLiteral) {
      if (std::optional<size_t> n = VectorLiteralDim(q.literal)) {
        if (*n != static_cast<size_t>(dim)) {
          return TypeError("T15",
                           fmt::format("nearest vector dimension mismatch: property is Vector({}), query literal has {} "
                                       "elements",
                                       dim, *n),
                           q.location);
        }
        ir::Expr lit;
        lit.kind = ir::Expr::Kind::kLiteral;
        lit.type = PropertyType::Vector(dim);
        lit.literal = VectorScalar(q.literal);
        lit.source = q.ToString();
        e.args.push_back(std::move(lit));
        return e;
      }
    }
    OG_ASSIGN_OR_RETURN(ir::Expr qe, Resolve(q, scope, Place::kArgument));
    if (qe.kind == ir::Expr::Kind::kNodeId || qe.kind == ir::Expr::Kind::kAggregate) {
      return TypeError("T15", "nearest query must be a scalar expression", q.location);
    }
    if (qe.type.is_vector()) {
      if (qe.type.vector_dim != dim) {
        return TypeError("T15", fmt::format("nearest vector dimension mismatch: property is Vector({}), query is Vector({})",
                                            dim, qe.type.vector_dim),
                         q.location);
      }
    } else if (qe.type.is_string()) {
      e.embed_text = true;
      e.embed_model = p->embed_model;
    } else {
      return TypeError("T15", fmt::format("nearest query must be Vector({}) or String, got {}", dim, qe.type.ToString()),
                       q.location);
    }
    e.args.push_back(std::move(qe));
    return e;
  }

  // Resolves an expression in a read query. `place` decides which call
  // kinds are allowed (typecheck.h).
  Result<ir::Expr> Resolve(const QExpr& x, const Scope& scope, Place place) {
    ir::Expr e;
    switch (x.kind) {
      case QExpr::Kind::kNow: {
        ir::Value v = NowValue();
        e.kind = ir::Expr::Kind::kParam;
        e.param = v.param;
        e.is_now = true;
        e.type = v.type;
        break;
      }
      case QExpr::Kind::kPropAccess: {
        OG_ASSIGN_OR_RETURN(e, ResolveProperty(x.variable, x.name, scope, x.location));
        break;
      }
      case QExpr::Kind::kVariable: {
        if (const PropertyType* t = Param(x.variable)) {
          used_params_.insert(x.variable);
          e.kind = ir::Expr::Kind::kParam;
          e.param = x.variable;
          e.type = *t;
          break;
        }
        auto it = scope.find(x.variable);
        if (it == scope.end()) return TypeError("", fmt::format("variable `${}` is not bound", x.variable), x.location);
        if (it->second.is_edge) {
          return TypeError("T23",
                           fmt::format("edge binding `${}` cannot be used bare; access its properties as `${}.<property>`",
                                       x.variable, x.variable),
                           x.location);
        }
        e.kind = ir::Expr::Kind::kNodeId;
        e.variable = x.variable;
        e.type_name = it->second.type_name;
        e.type = PropertyType::Scalar(ScalarKind::kString);
        break;
      }
      case QExpr::Kind::kLiteral: {
        OG_ASSIGN_OR_RETURN(PropertyType t, LiteralType(x.literal));
        e = LiteralExpr(x.literal, t);
        break;
      }
      case QExpr::Kind::kAliasRef:
        return TypeError("", fmt::format("`{}` is not a variable or parameter (variables start with `$`); return "
                                         "aliases can only be referenced in order",
                                         x.name),
                         x.location);
      case QExpr::Kind::kAggregate: {
        if (place != Place::kReturn && place != Place::kOrder) {
          return TypeError("T7", fmt::format("aggregate `{}` can only be used in return", x.ToString()), x.location);
        }
        const QExpr& arg = x.args.at(0);
        if (arg.kind == QExpr::Kind::kAggregate) {
          return TypeError("T8", fmt::format("aggregate functions cannot be nested: `{}`", x.ToString()), x.location);
        }
        OG_ASSIGN_OR_RETURN(ir::Expr a, Resolve(arg, scope, Place::kArgument));
        OG_RETURN_IF_ERROR(RejectBlobReadValue(a, arg.location));
        const char* fn = query::AggFuncName(x.agg);
        e.kind = ir::Expr::Kind::kAggregate;
        e.agg = x.agg;
        std::string arg_type = a.kind == ir::Expr::Kind::kNodeId ? fmt::format("node `{}`", a.type_name)
                                                                  : a.type.ToString();
        switch (x.agg) {
          case AggFunc::kCount: e.type = PropertyType::Scalar(ScalarKind::kI64); break;
          case AggFunc::kSum:
          case AggFunc::kAvg:
            if (a.kind == ir::Expr::Kind::kNodeId || !a.type.is_numeric()) {
              return TypeError("T8", fmt::format("{} requires numeric type, got {}", fn, arg_type), x.location);
            }
            e.type = PropertyType::Scalar(ScalarKind::kF64, true);
            break;
          case AggFunc::kMin:
          case AggFunc::kMax:
            if (a.kind == ir::Expr::Kind::kNodeId || !(a.type.is_numeric() || a.type.is_text())) {
              return TypeError("T8", fmt::format("{} requires a numeric or String type, got {}", fn, arg_type),
                               x.location);
            }
            e.type = a.type.WithNullable(true);
            break;
        }
        e.args.push_back(std::move(a));
        break;
      }
      case QExpr::Kind::kNearest:
      case QExpr::Kind::kBm25:
      case QExpr::Kind::kRrf: {
        // In a filter the call is resolved (so its argument errors surface)
        // and then refused by CheckFilter with T7.
        bool allowed = place == Place::kReturn || place == Place::kOrder || place == Place::kFilter ||
                       (place == Place::kArgument && x.kind != QExpr::Kind::kRrf);
        if (!allowed) {
          return TypeError("", fmt::format("`{}` can only be used in return or order", SearchName(x.kind)), x.location);
        }
        if (x.kind == QExpr::Kind::kNearest) {
          OG_ASSIGN_OR_RETURN(e, ResolveNearest(x, scope));
        } else if (x.kind == QExpr::Kind::kBm25) {
          OG_ASSIGN_OR_RETURN(ir::Expr f, ResolveSearchField(x.args.at(0), scope, "bm25", "T20"));
          OG_ASSIGN_OR_RETURN(ir::Expr q, ResolveStringArg(x.args.at(1), scope, "bm25", "query", "T20"));
          e.kind = ir::Expr::Kind::kBm25;
          e.type = PropertyType::Scalar(ScalarKind::kF64);
          e.args = {std::move(f), std::move(q)};
        } else {
          for (int i = 0; i < 2; ++i) {
            const QExpr& arm = x.args.at(static_cast<size_t>(i));
            if (arm.kind != QExpr::Kind::kNearest && arm.kind != QExpr::Kind::kBm25) {
              return TypeError("T21", fmt::format("rrf {} expression must be nearest(...) or bm25(...)",
                                                  i == 0 ? "primary" : "secondary"),
                               arm.location);
            }
            OG_ASSIGN_OR_RETURN(ir::Expr a, Resolve(arm, scope, Place::kArgument));
            e.args.push_back(std::move(a));
          }
          if (x.args.size() > 2) {
            const QExpr& k = x.args[2];
            OG_ASSIGN_OR_RETURN(ir::Expr ke, ResolveIntegerArg(k, scope, "rrf k", "T21"));
            if (k.kind == QExpr::Kind::kLiteral && k.literal.int_value == 0) {
              return TypeError("T21", "rrf k must be greater than 0", k.location);
            }
            e.args.push_back(std::move(ke));
          } else {
            e.args.push_back(IntLiteral(60));
          }
          e.kind = ir::Expr::Kind::kRrf;
          e.type = PropertyType::Scalar(ScalarKind::kF64);
        }
        break;
      }
      case QExpr::Kind::kSearch:
      case QExpr::Kind::kFuzzy:
      case QExpr::Kind::kMatchText: {
        if (place != Place::kSearchClause) {
          return TypeError("",
                           fmt::format("`{}` is a match clause; it cannot be used as a value", SearchName(x.kind)),
                           x.location);
        }
        const char* fn = SearchName(x.kind);
        const char* code = x.kind == QExpr::Kind::kMatchText ? "T20" : "T19";
        OG_ASSIGN_OR_RETURN(ir::Expr f, ResolveSearchField(x.args.at(0), scope, fn, code));
        OG_ASSIGN_OR_RETURN(ir::Expr q, ResolveStringArg(x.args.at(1), scope, fn, "query", code));
        e.args = {std::move(f), std::move(q)};
        if (x.kind == QExpr::Kind::kFuzzy) {
          e.kind = ir::Expr::Kind::kFuzzy;
          if (x.args.size() > 2) {
            OG_ASSIGN_OR_RETURN(ir::Expr m, ResolveIntegerArg(x.args[2], scope, "fuzzy max_edits", "T19"));
            e.args.push_back(std::move(m));
          } else {
            e.args.push_back(IntLiteral(2));
          }
        } else {
          e.kind = x.kind == QExpr::Kind::kSearch ? ir::Expr::Kind::kSearch : ir::Expr::Kind::kMatchText;
        }
        e.type = PropertyType::Scalar(ScalarKind::kBool);
        break;
      }
    }
    e.source = x.ToString();
    return e;
  }

  // Converts a literal operand to the type of the other operand (a list's
  // element for membership) when that keeps its value, so comparisons
  // happen at the column's type; a number no value of that type equals
  // keeps its own value (NumericComparand, §2.4).
  static void CoerceLiteral(ir::Expr* lit, const PropertyType& other, const Literal& src) {
    if (lit->kind != ir::Expr::Kind::kLiteral || src.kind == Literal::Kind::kList) return;
    PropertyType target = other.is_list() ? other.Element() : other;
    if (!target.is_scalar() && !target.is_enum()) return;
    std::optional<ir::Value> v = ComparedScalarLiteral(src, target);
    if (!v) return;
    lit->literal = std::move(v->literal);
    lit->type = std::move(v->type);
  }

  // `left op right` (§2.4) — T6/T23/T24 from the operands, then T7.
  Status CheckFilter(const Clause& c, const Scope& scope, CheckedClause* out) {
    OG_ASSIGN_OR_RETURN(ir::Expr l, Resolve(c.left, scope, Place::kFilter));
    OG_ASSIGN_OR_RETURN(ir::Expr r, Resolve(c.right, scope, Place::kFilter));
    for (const ir::Expr* side : {&l, &r}) {
      if (side->kind == ir::Expr::Kind::kNodeId) {
        return TypeError("T7", fmt::format("filter comparisons require scalar operands, got node `{}`",
                                           side->type_name),
                         c.location);
      }
      if (IsRankKind(side->kind)) {
        return TypeError("T7", fmt::format("`{}` cannot be used in a match filter", side->source), c.location);
      }
    }
    if (l.type.is_blob() || r.type.is_blob() || (l.type.is_list() && l.type.scalar == ScalarKind::kBlob) ||
        (r.type.is_list() && r.type.scalar == ScalarKind::kBlob)) {
      return TypeError("T7", "blob comparisons in filters are not supported", c.location);
    }
    ir::Filter f;
    f.source = fmt::format("{} {} {}", c.left.ToString(), query::CompareOpName(c.op), c.right.ToString());
    const PropertyType& lt = l.type;
    const PropertyType& rt = r.type;
    if (c.op == QCompareOp::kContains) {
      if (lt.is_list()) {
        if (rt.is_list()) return TypeError("T7", "contains requires a scalar right operand", c.location);
        if (rt.is_vector()) return TypeError("T7", "vector membership filters are not supported", c.location);
        if (!Compatible(lt.Element(), rt)) {
          return TypeError("T7", fmt::format("cannot test membership of {} in {}", rt.ToString(), lt.ToString()),
                           c.location);
        }
        f.kind = ir::Filter::Kind::kListContains;
        CoerceLiteral(&r, lt, c.right.literal);
      } else if (lt.is_text()) {
        if (!rt.is_text()) {
          return TypeError("T7", fmt::format("string contains requires a String right operand, got {}", rt.ToString()),
                           c.location);
        }
        f.kind = ir::Filter::Kind::kStringContains;
      } else {
        return TypeError("T7",
                         fmt::format("contains requires a list property (membership) or a String property (substring) "
                                     "on the left, got {}",
                                     lt.ToString()),
                         c.location);
      }
    } else if (c.op == QCompareOp::kStartsWith) {
      if (!lt.is_text()) {
        return TypeError("T7", fmt::format("starts_with requires a String property on the left, got {}", lt.ToString()),
                         c.location);
      }
      if (!rt.is_text()) {
        return TypeError("T7", fmt::format("starts_with requires a String right operand, got {}", rt.ToString()),
                         c.location);
      }
      f.kind = ir::Filter::Kind::kStartsWith;
    } else {
      // A vector compared with a list literal is a vector comparison.
      if (lt.is_vector() || rt.is_vector()) {
        return TypeError("T7", "vector comparisons in filters are not supported", c.location);
      }
      if (lt.is_list() || rt.is_list()) {
        return TypeError("T7", "list comparisons in filters are not supported; use `contains` for list membership",
                         c.location);
      }
      if (!Compatible(lt, rt)) {
        return TypeError("T7", fmt::format("cannot compare {} with {}", lt.ToString(), rt.ToString()), c.location);
      }
      f.kind = ir::Filter::Kind::kCompare;
      f.op = LowerOp(c.op);
      if (r.kind == ir::Expr::Kind::kLiteral && l.kind != ir::Expr::Kind::kLiteral) {
        CoerceLiteral(&r, lt, c.right.literal);
      } else if (l.kind == ir::Expr::Kind::kLiteral && r.kind != ir::Expr::Kind::kLiteral) {
        CoerceLiteral(&l, rt, c.left.literal);
      }
    }
    out->kind = CheckedClause::Kind::kFilter;
    CollectRefs(l, &out->refs);
    CollectRefs(r, &out->refs);
    f.left = std::move(l);
    f.right = std::move(r);
    out->filter = std::move(f);
    return Status::OK();
  }

  Status CheckTextSearch(const Clause& c, const Scope& scope, CheckedClause* out) {
    OG_ASSIGN_OR_RETURN(ir::Expr e, Resolve(c.left, scope, Place::kSearchClause));
    out->kind = CheckedClause::Kind::kFilter;
    CollectRefs(e, &out->refs);
    out->filter.kind = ir::Filter::Kind::kTextSearch;
    out->filter.source = e.source;
    out->filter.left = std::move(e);
    return Status::OK();
  }

  static void CollectClauseRefs(const CheckedClause& c, std::set<std::string>* out) {
    switch (c.kind) {
      case CheckedClause::Kind::kBinding: out->insert(c.variable); break;
      case CheckedClause::Kind::kTraversal:
        out->insert(c.traverse.written_src);
        out->insert(c.traverse.written_dst);
        break;
      case CheckedClause::Kind::kFilter: out->insert(c.refs.begin(), c.refs.end()); break;
      case CheckedClause::Kind::kNegation:
        for (const CheckedClause& inner : c.inner) CollectClauseRefs(inner, out);
        break;
    }
  }

  // `not { ... }` — inner clauses in a copy of the scope, then T9.
  Status CheckNegation(const Clause& c, const Scope& scope, CheckedClause* out) {
    Scope inner = scope;
    OG_RETURN_IF_ERROR(CheckClauses(c.clauses, &inner, &out->inner));
    std::set<std::string> refs;
    for (const CheckedClause& cc : out->inner) CollectClauseRefs(cc, &refs);
    for (const std::string& name : refs) {
      if (scope.count(name)) out->outer_variables.push_back(name);
    }
    if (out->outer_variables.empty()) {
      return TypeError("T9", "negation block must reference at least one outer-bound variable", c.location);
    }
    out->kind = CheckedClause::Kind::kNegation;
    out->refs.insert(out->outer_variables.begin(), out->outer_variables.end());
    return Status::OK();
  }

  // ---- return / order / limit --------------------------------------------

  static std::string DescriptorName(const QExpr& x) {
    switch (x.kind) {
      case QExpr::Kind::kPropAccess: return x.name;
      case QExpr::Kind::kVariable: return x.variable;
      case QExpr::Kind::kLiteral: return "literal";
      case QExpr::Kind::kNow: return "now";
      case QExpr::Kind::kAggregate: return query::AggFuncName(x.agg);
      case QExpr::Kind::kAliasRef: return x.name;
      default: return SearchName(x.kind);
    }
  }

  static std::string ColumnName(const QExpr& x) {
    switch (x.kind) {
      case QExpr::Kind::kPropAccess: return x.variable + "." + x.name;
      case QExpr::Kind::kVariable: return x.variable;
      case QExpr::Kind::kLiteral: return "literal";
      case QExpr::Kind::kNow: return "now";
      case QExpr::Kind::kAggregate: return ColumnName(x.args.at(0));
      case QExpr::Kind::kAliasRef: return x.name;
      default: return SearchName(x.kind);
    }
  }

  Status CheckReturn(const Scope& scope, ir::ReadQuery* read) {
    std::set<std::string> columns;
    for (const query::Projection& p : q_.returns) {
      // §2.5: a bare name may reference an earlier projection's alias; the
      // new column repeats that projection's value.
      const ir::Projection* referenced = nullptr;
      if (p.expr.kind == QExpr::Kind::kAliasRef) {
        for (const ir::Projection& prev : read->projections) {
          if (prev.alias == p.expr.name) referenced = &prev;
        }
      }
      ir::Expr e;
      if (referenced != nullptr) {
        e = referenced->expr;
      } else {
        OG_ASSIGN_OR_RETURN(e, Resolve(p.expr, scope, Place::kReturn));
      }
      OG_RETURN_IF_ERROR(RejectBlobReadValue(e, p.expr.location));
      ir::Projection proj;
      proj.alias = p.alias;
      proj.column = p.alias ? *p.alias : ColumnName(p.expr);
      proj.descriptor_name = p.alias ? *p.alias : DescriptorName(p.expr);
      proj.is_aggregate = e.kind == ir::Expr::Kind::kAggregate;
      proj.expr = std::move(e);
      if (!columns.insert(proj.column).second) {
        return TypeError("",
                         fmt::format("result column `{}` is produced by more than one projection; give each projection "
                                     "its own alias",
                                     proj.column),
                         p.location);
      }
      read->projections.push_back(std::move(proj));
    }
    return Status::OK();
  }

  struct PendingOrder {
    const query::Ordering* source = nullptr;
    ir::Expr expr;
    bool is_alias = false;
    int projection = -1;
    // The key ranks by a search function (directly or through an alias).
    bool is_rank = false;
    bool is_nearest = false;  // standalone nearest (not inside rrf)
    bool is_rrf = false;
  };

  Status CheckOrder(const Scope& scope, const ir::ReadQuery& read, std::vector<PendingOrder>* out) {
    for (size_t i = 0; i < q_.order.size(); ++i) {
      const query::Ordering& o = q_.order[i];
      PendingOrder po;
      po.source = &o;
      if (o.expr.kind == QExpr::Kind::kAliasRef) {
        auto it = std::find_if(read.projections.begin(), read.projections.end(),
                               [&](const ir::Projection& p) { return p.alias == o.expr.name; });
        if (it == read.projections.end()) {
          return TypeError("", fmt::format("order key `{}` is not a return alias", o.expr.name), o.expr.location);
        }
        po.is_alias = true;
        po.projection = static_cast<int>(it - read.projections.begin());
        po.expr.kind = ir::Expr::Kind::kAlias;
        po.expr.alias = o.expr.name;
        po.expr.projection = po.projection;
        po.expr.type = it->expr.type;
        po.expr.source = o.expr.name;
        OG_RETURN_IF_ERROR(RejectBlobReadValue(po.expr, o.expr.location));
        const ir::Expr& target = it->expr;
        po.is_rank = IsRankKind(target.kind);
        po.is_nearest = target.kind == ir::Expr::Kind::kNearest;
        po.is_rrf = target.kind == ir::Expr::Kind::kRrf;
      } else {
        OG_ASSIGN_OR_RETURN(po.expr, Resolve(o.expr, scope, Place::kOrder));
        OG_RETURN_IF_ERROR(RejectBlobReadValue(po.expr, o.expr.location));
        po.is_rank = IsRankKind(po.expr.kind);
        po.is_nearest = po.expr.kind == ir::Expr::Kind::kNearest;
        po.is_rrf = po.expr.kind == ir::Expr::Kind::kRrf;
      }
      out->push_back(std::move(po));
    }
    return Status::OK();
  }

  Status CheckLimitRules(const ir::ReadQuery& read, const std::vector<PendingOrder>& order) {
    bool has_rrf = std::any_of(order.begin(), order.end(), [](const PendingOrder& o) { return o.is_rrf; });
    bool has_nearest = std::any_of(order.begin(), order.end(), [](const PendingOrder& o) { return o.is_nearest; });
    bool has_alias = std::any_of(order.begin(), order.end(), [](const PendingOrder& o) { return o.is_alias; });
    SourceLocation loc = q_.location;
    if (has_rrf && !q_.limit) return TypeError("T21", "rrf ordering requires a limit clause", loc);
    if (has_nearest && !q_.limit) return TypeError("T17", "nearest ordering requires a limit clause", loc);
    if (has_nearest && has_alias) {
      return TypeError("T18", "alias-based ordering is not supported together with nearest in phase 1", loc);
    }
    return Status::OK();
  }

  Status CheckGrouping(ir::ReadQuery* read) {
    read->aggregate = std::any_of(read->projections.begin(), read->projections.end(),
                                  [](const ir::Projection& p) { return p.is_aggregate; });
    if (!read->aggregate) return Status::OK();
    for (size_t i = 0; i < read->projections.size(); ++i) {
      const ir::Projection& p = read->projections[i];
      if (p.is_aggregate) continue;
      ir::Expr::Kind k = p.expr.kind;
      bool key = k == ir::Expr::Kind::kProperty || k == ir::Expr::Kind::kNodeId ||
                 (k == ir::Expr::Kind::kParam && !p.expr.is_now);
      if (!key) {
        return TypeError("T9", "non-aggregate expressions in an aggregate query must be property accesses or variables",
                         q_.returns[i].location);
      }
      read->group_keys.push_back(static_cast<int>(i));
    }
    return Status::OK();
  }

  Status FinishOrder(std::vector<PendingOrder>& order, ir::ReadQuery* read) {
    // Checked after the limit and grouping rules (§2.9): a search function
    // ranks only as the first key (upstream fails at run time).
    for (size_t i = 1; i < order.size(); ++i) {
      if (order[i].is_rank && !order[i].is_alias) {
        return TypeError("", fmt::format("search ordering `{}` must be the first order key", order[i].expr.source),
                         order[i].source->expr.location);
      }
    }
    if (!order.empty() && order[0].is_rank) {
      // Search order: the rank expression decides; later keys are ignored.
      read->search_order =
          order[0].is_alias ? read->projections[static_cast<size_t>(order[0].projection)].expr : order[0].expr;
      return Status::OK();
    }
    for (PendingOrder& po : order) {
      ir::OrderKey key;
      key.descending = po.source->descending.value_or(false);
      if (po.is_alias) {
        key.kind = ir::OrderKey::Kind::kProjection;
        key.projection = po.projection;
        key.expr = std::move(po.expr);
        read->order.push_back(std::move(key));
        continue;
      }
      // An expression identical to a projection sorts by that column.
      int match = -1;
      for (size_t i = 0; i < read->projections.size(); ++i) {
        if (q_.returns[i].expr == po.source->expr) {
          match = static_cast<int>(i);
          break;
        }
      }
      if (po.expr.kind == ir::Expr::Kind::kProperty && !read->aggregate) {
        key.kind = ir::OrderKey::Kind::kProperty;
        key.projection = match;
      } else if (match >= 0) {
        key.kind = ir::OrderKey::Kind::kProjection;
        key.projection = match;
      } else if (po.expr.kind == ir::Expr::Kind::kProperty) {
        return TypeError("", fmt::format("order key `{}` must be a grouped return value in an aggregate query",
                                         po.expr.source),
                         po.source->expr.location);
      } else {
        return TypeError("", fmt::format("unsupported ordering expression `{}`; order by a property access or a "
                                         "return alias",
                                         po.expr.source),
                         po.source->expr.location);
      }
      key.expr = std::move(po.expr);
      read->order.push_back(std::move(key));
    }
    return Status::OK();
  }

  // ---- planning ----------------------------------------------------------

  // Orders checked clauses into executable steps (query_ir.h ReadQuery).
  std::vector<ir::MatchStep> Plan(const std::vector<CheckedClause>& clauses, std::set<std::string> bound) {
    // Connected components over this block's traversals.
    std::map<std::string, std::string> parent;
    std::function<std::string(const std::string&)> find = [&](const std::string& v) -> std::string {
      auto it = parent.find(v);
      if (it == parent.end() || it->second == v) return v;
      std::string root = find(it->second);
      parent[v] = root;
      return root;
    };
    auto unite = [&](const std::string& a, const std::string& b) {
      std::string ra = find(a), rb = find(b);
      if (ra != rb) parent[ra] = rb;
    };
    for (const CheckedClause& c : clauses) {
      if (c.kind != CheckedClause::Kind::kTraversal) continue;
      unite(c.traverse.written_src, c.traverse.written_dst);
      if (!c.traverse.edge_variable.empty()) unite(c.traverse.edge_variable, c.traverse.written_src);
    }
    std::set<std::string> prebound_roots;
    for (const std::string& v : bound) prebound_roots.insert(find(v));
    // The first binding clause of each component without a bound variable
    // is its scan.
    std::set<size_t> scans;
    std::set<std::string> scanned_roots;
    for (size_t i = 0; i < clauses.size(); ++i) {
      const CheckedClause& c = clauses[i];
      if (c.kind != CheckedClause::Kind::kBinding || bound.count(c.variable)) continue;
      std::string root = find(c.variable);
      if (prebound_roots.count(root) || scanned_roots.count(root)) continue;
      scanned_roots.insert(root);
      scans.insert(i);
    }

    std::vector<ir::MatchStep> steps;
    std::vector<size_t> pending(clauses.size());
    for (size_t i = 0; i < clauses.size(); ++i) pending[i] = i;
    auto all_bound = [&](const auto& names) {
      return std::all_of(names.begin(), names.end(), [&](const std::string& n) { return bound.count(n) > 0; });
    };
    while (!pending.empty()) {
      bool progressed = false;
      for (size_t k = 0; k < pending.size(); ++k) {
        size_t i = pending[k];
        const CheckedClause& c = clauses[i];
        ir::MatchStep step;
        bool ready = false;
        bool emit = true;
        switch (c.kind) {
          case CheckedClause::Kind::kBinding:
            if (bound.count(c.variable)) {
              ready = true;
              emit = !c.filters.empty();
              step.kind = ir::MatchStep::Kind::kCheck;
              step.check = {c.variable, c.type_name, c.filters};
            } else if (scans.count(i)) {
              ready = true;
              step.kind = ir::MatchStep::Kind::kScan;
              step.scan.variable = c.variable;
              step.scan.type_name = c.type_name;
              step.scan.filters = c.filters;
              bound.insert(c.variable);
            }
            break;
          case CheckedClause::Kind::kTraversal: {
            const ir::Traverse& w = c.traverse;
            bool src_bound = bound.count(w.written_src) > 0;
            bool dst_bound = bound.count(w.written_dst) > 0;
            if (src_bound || dst_bound) {
              ready = true;
              step.kind = ir::MatchStep::Kind::kTraverse;
              step.traverse = Expand(c, /*from_src=*/src_bound, dst_bound && src_bound);
              bound.insert(w.written_src);
              bound.insert(w.written_dst);
              if (!w.edge_variable.empty()) bound.insert(w.edge_variable);
            }
            break;
          }
          case CheckedClause::Kind::kFilter:
            if (all_bound(c.refs)) {
              ready = true;
              step.kind = ir::MatchStep::Kind::kFilter;
              step.filter = c.filter;
            }
            break;
          case CheckedClause::Kind::kNegation:
            if (all_bound(c.outer_variables)) {
              ready = true;
              step.kind = ir::MatchStep::Kind::kNegation;
              step.negation.steps = Plan(c.inner, bound);
              step.negation.outer_variables = c.outer_variables;
            }
            break;
        }
        if (!ready) continue;
        if (emit) steps.push_back(std::move(step));
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
        progressed = true;
        break;  // restart from the first pending clause (source order first)
      }
      if (progressed) continue;
      // Nothing is ready: a traversal with no bound endpoint starts from an
      // implicit scan of its written source.
      for (size_t i : pending) {
        const CheckedClause& c = clauses[i];
        if (c.kind != CheckedClause::Kind::kTraversal) continue;
        ir::MatchStep step;
        step.kind = ir::MatchStep::Kind::kScan;
        step.scan.variable = c.traverse.written_src;
        step.scan.type_name = c.src_type;
        step.scan.implicit = true;
        step.scan.anonymous = c.traverse.from_anonymous;
        bound.insert(c.traverse.written_src);
        steps.push_back(std::move(step));
        progressed = true;
        break;
      }
      if (!progressed) break;  // unreachable: every component has a start
    }
    return steps;
  }

  // The execution fields of a traversal expanded from its written source
  // (`from_src`) or destination.
  static ir::Traverse Expand(const CheckedClause& c, bool from_src, bool both_bound) {
    ir::Traverse t = c.traverse;
    const bool src_anon = c.traverse.from_anonymous;
    const bool dst_anon = c.traverse.to_anonymous;
    if (from_src) {
      t.from_variable = t.written_src;
      t.to_variable = t.written_dst;
      t.from_type = c.src_type;
      t.to_type = c.dst_type;
      t.from_anonymous = src_anon;
      t.to_anonymous = dst_anon;
    } else {
      t.from_variable = t.written_dst;
      t.to_variable = t.written_src;
      t.from_type = c.dst_type;
      t.to_type = c.src_type;
      t.from_anonymous = dst_anon;
      t.to_anonymous = src_anon;
    }
    t.to_is_new = !both_bound;
    switch (t.direction) {
      case ir::Traverse::Direction::kUndirected: t.follow = ir::Traverse::Follow::kBoth; break;
      case ir::Traverse::Direction::kForward:
        t.follow = from_src ? ir::Traverse::Follow::kSrcToDst : ir::Traverse::Follow::kDstToSrc;
        break;
      case ir::Traverse::Direction::kBackward:
        t.follow = from_src ? ir::Traverse::Follow::kDstToSrc : ir::Traverse::Follow::kSrcToDst;
        break;
    }
    return t;
  }

  // ---- mutations ---------------------------------------------------------

  Status CheckMutations(ir::QueryIR* out) {
    for (const MutationStmt& m : q_.mutations) {
      ir::MutationStatement st;
      switch (m.kind) {
        case MutationStmt::Kind::kInsert: OG_RETURN_IF_ERROR(CheckInsert(m, &st)); break;
        case MutationStmt::Kind::kUpdate: OG_RETURN_IF_ERROR(CheckUpdate(m, &st)); break;
        case MutationStmt::Kind::kDelete: OG_RETURN_IF_ERROR(CheckDelete(m, &st)); break;
      }
      out->statements.push_back(std::move(st));
    }
    return Status::OK();
  }

  Status NoDuplicateAssignments(const MutationStmt& m) {
    std::set<std::string> seen;
    for (const query::Assignment& a : m.assignments) {
      if (!seen.insert(a.property).second) {
        return TypeError("T13", fmt::format("duplicate assignment for property `{}`", a.property), a.location);
      }
    }
    return Status::OK();
  }

  Status UnknownProperty(const std::string& type, const std::string& prop, SourceLocation loc) {
    return TypeError("T11", fmt::format("type `{}` has no property `{}`", type, prop), loc);
  }

  void WriteNode(const std::string& n) { writes_.push_back({false, n}); }
  void WriteEdge(const std::string& n) { writes_.push_back({true, n}); }

  Status CheckInsert(const MutationStmt& m, ir::MutationStatement* st) {
    if (m.assignments.empty()) {
      return TypeError("T10", "insert mutation requires at least one assignment", m.location);
    }
    OG_RETURN_IF_ERROR(NoDuplicateAssignments(m));
    st->kind = ir::MutationStatement::Kind::kInsert;
    std::set<std::string> assigned;
    for (const query::Assignment& a : m.assignments) assigned.insert(a.property);
    if (const NodeType* node = cat_.FindNode(m.type_name)) {
      st->type_name = node->name;
      for (const query::Assignment& a : m.assignments) {
        const Property* p = node->FindProperty(a.property);
        if (!p) return UnknownProperty(node->name, a.property, a.location);
        OG_ASSIGN_OR_RETURN(ir::Value v, MutationValue(a.value, p->type, p->name));
        st->assignments.push_back({p->name, p->type, std::move(v)});
      }
      for (const Property& p : node->properties) {  // lexical order
        if (p.type.nullable || assigned.count(p.name)) continue;
        if (p.embed_source) {
          if (assigned.count(*p.embed_source)) {
            st->pending_embeddings.push_back(p.name);
            continue;
          }
          return TypeError("T12", fmt::format("insert for `{}` must provide non-nullable property `{}` or @embed source `{}`",
                                              node->name, p.name, *p.embed_source),
                           m.location);
        }
        return TypeError("T12", fmt::format("insert for `{}` must provide non-nullable property `{}`", node->name,
                                            p.name),
                         m.location);
      }
      ReadNode(node->name);
      WriteNode(node->name);
      return Status::OK();
    }
    if (const EdgeType* edge = cat_.FindEdge(m.type_name)) {
      st->on_edge = true;
      st->type_name = edge->name;
      const PropertyType endpoint = PropertyType::Scalar(ScalarKind::kString);
      for (const query::Assignment& a : m.assignments) {
        if (a.property == "from" || a.property == "to") {
          OG_ASSIGN_OR_RETURN(ir::Value v, MutationValue(a.value, endpoint, a.property));
          (a.property == "from" ? st->from : st->to) = std::move(v);
          continue;
        }
        const Property* p = edge->FindProperty(a.property);
        if (!p) return UnknownProperty(edge->name, a.property, a.location);
        OG_ASSIGN_OR_RETURN(ir::Value v, MutationValue(a.value, p->type, p->name));
        st->assignments.push_back({p->name, p->type, std::move(v)});
      }
      if (!st->from) {
        return TypeError("T12", fmt::format("insert for `{}` must provide required endpoint `from`", edge->name),
                         m.location);
      }
      if (!st->to) {
        return TypeError("T12", fmt::format("insert for `{}` must provide required endpoint `to`", edge->name),
                         m.location);
      }
      for (const Property& p : edge->properties) {
        if (p.type.nullable || assigned.count(p.name)) continue;
        return TypeError("T12", fmt::format("insert for `{}` must provide non-nullable property `{}`", edge->name,
                                            p.name),
                         m.location);
      }
      ReadEdge(edge->name);
      WriteEdge(edge->name);
      ReadNode(edge->from_type);
      ReadNode(edge->to_type);
      return Status::OK();
    }
    return TypeError("T10", fmt::format("unknown node/edge type `{}`", m.type_name), m.type_location);
  }

  Result<ir::WherePredicate> CheckWhere(const query::MutationPredicate& p, const std::string& type_name,
                                       const std::vector<Property>& props, bool on_edge) {
    ir::WherePredicate w;
    w.property = p.property;
    w.op = LowerOp(p.op);
    if (on_edge && (p.property == "from" || p.property == "to")) {
      w.column = p.property == "from" ? ir::WherePredicate::Column::kSrc : ir::WherePredicate::Column::kDst;
      w.type = PropertyType::Scalar(ScalarKind::kString);
    } else {
      auto it = std::find_if(props.begin(), props.end(), [&](const Property& x) { return x.name == p.property; });
      if (it == props.end()) return UnknownProperty(type_name, p.property, p.location);
      if (it->type.is_blob()) {
        return TypeError("T11", fmt::format("blob property `{}` cannot be used in WHERE predicates", p.property),
                         p.location);
      }
      w.type = it->type;
    }
    OG_ASSIGN_OR_RETURN(w.value, PredicateValue(p.value, w.type, p.property));
    return w;
  }

  Status CheckUpdate(const MutationStmt& m, ir::MutationStatement* st) {
    const NodeType* node = cat_.FindNode(m.type_name);
    if (!node) {
      if (const EdgeType* edge = cat_.FindEdge(m.type_name)) {
        return TypeError("T16", fmt::format("update mutation for edge type `{}` is not supported", edge->name),
                         m.type_location);
      }
      return TypeError("T10", fmt::format("unknown node/edge type `{}`", m.type_name), m.type_location);
    }
    if (m.assignments.empty()) {
      return TypeError("T10", "update mutation requires at least one assignment", m.location);
    }
    OG_RETURN_IF_ERROR(NoDuplicateAssignments(m));
    st->kind = ir::MutationStatement::Kind::kUpdate;
    st->type_name = node->name;
    for (const query::Assignment& a : m.assignments) {
      const Property* p = node->FindProperty(a.property);
      if (!p) return UnknownProperty(node->name, a.property, a.location);
      OG_ASSIGN_OR_RETURN(ir::Value v, MutationValue(a.value, p->type, p->name));
      st->assignments.push_back({p->name, p->type, std::move(v)});
    }
    OG_ASSIGN_OR_RETURN(ir::WherePredicate w, CheckWhere(*m.where, node->name, node->properties, false));
    st->where = std::move(w);
    for (const query::Assignment& a : m.assignments) {
      if (node->IsKeyProperty(a.property)) {
        Status::Details details{{"code", "key_update"}};
        if (a.location.known()) {
          details["line"] = std::to_string(a.location.line);
          details["column"] = std::to_string(a.location.column);
        }
        return Status(ErrorCode::kInvalidArgument,
                      fmt::format("cannot update @key property '{}' — delete and re-insert instead", a.property),
                      std::move(details));
      }
    }
    ReadNode(node->name);
    WriteNode(node->name);
    return Status::OK();
  }

  Status CheckDelete(const MutationStmt& m, ir::MutationStatement* st) {
    st->kind = ir::MutationStatement::Kind::kDelete;
    if (const NodeType* node = cat_.FindNode(m.type_name)) {
      st->type_name = node->name;
      OG_ASSIGN_OR_RETURN(ir::WherePredicate w, CheckWhere(*m.where, node->name, node->properties, false));
      st->where = std::move(w);
      ReadNode(node->name);
      WriteNode(node->name);
      for (const EdgeType* e : cat_.IncidentEdges(node->name)) {
        ReadEdge(e->name);
        WriteEdge(e->name);
      }
      return Status::OK();
    }
    if (const EdgeType* edge = cat_.FindEdge(m.type_name)) {
      st->on_edge = true;
      st->type_name = edge->name;
      OG_ASSIGN_OR_RETURN(ir::WherePredicate w, CheckWhere(*m.where, edge->name, edge->properties, true));
      st->where = std::move(w);
      ReadEdge(edge->name);
      WriteEdge(edge->name);
      return Status::OK();
    }
    return TypeError("T10", fmt::format("unknown node/edge type `{}`", m.type_name), m.type_location);
  }

  const Catalog& cat_;
  const query::QueryDecl& q_;
  std::map<std::string, PropertyType> params_;
  std::set<std::string> used_params_;
  bool uses_now_ = false;
  int anon_counter_ = 0;
  std::vector<ir::TypeRef> reads_;
  std::vector<ir::TypeRef> writes_;
};

Status WithQuery(Status s, const std::string& name) {
  if (s.ok()) return s;
  return s.WithDetail("query", name);
}

// Type errors keep their contractual text without a position; the file
// joins the line and column in the details so front ends can point at it.
Status WithFile(Status s, std::string_view file_name) {
  if (s.ok() || s.details().count("file") || !s.details().count("line")) return s;
  return s.WithDetail("file", std::string(file_name));
}

}  // namespace

namespace ir {

const char* CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
  }
  return "?";
}

std::string Value::ToString() const {
  if (kind == Kind::kParam) return is_now ? "now()" : "$" + param;
  if (literal.is_string()) return "\"" + literal.string_value() + "\"";
  return literal.ToString();
}

}  // namespace ir

Status CheckMutationKinds(const ir::QueryIR& query) {
  bool constructive = false, destructive = false;
  for (const ir::MutationStatement& s : query.statements) {
    if (s.kind == ir::MutationStatement::Kind::kDelete) {
      destructive = true;
    } else {
      constructive = true;
    }
  }
  if (constructive && destructive) {
    return Status(ErrorCode::kInvalidArgument,
                  fmt::format("mutation '{}' on the same query mixes inserts/updates and deletes; split into separate "
                              "mutations: (1) inserts and updates, then (2) deletes. A query is deliberately "
                              "constructive or destructive, not both, so its read-your-writes stays unambiguous; run "
                              "the two on a branch and merge if you need them in one atomic commit.",
                              query.name),
                  {{"code", "mutation_mix"}, {"query", query.name}});
  }
  return Status::OK();
}

Result<ir::QueryIR> TypeCheck(const Catalog& catalog, const query::QueryDecl& query, const CompileOptions& options) {
  Checker checker(catalog, query);
  Result<ir::QueryIR> result = checker.Run();
  if (!result.ok()) return WithQuery(result.status(), query.name);
  if (options.enforce_d2 && result->is_mutation) {
    Status mixed = CheckMutationKinds(*result);
    // The D2 rule is about the whole query: point at its name.
    if (!mixed.ok() && query.location.known()) {
      return mixed.WithDetail("line", std::to_string(query.location.line))
          .WithDetail("column", std::to_string(query.location.column));
    }
    OG_RETURN_IF_ERROR(mixed);
  }
  return result;
}

Result<std::vector<ir::QueryIR>> CompileQueries(const Catalog& catalog, std::string_view source,
                                                std::string_view file_name, const CompileOptions& options) {
  OG_ASSIGN_OR_RETURN(query::QueryFile file, ParseQueries(source, file_name));
  std::vector<ir::QueryIR> out;
  for (const query::QueryDecl& q : file.queries) {
    Result<ir::QueryIR> ir = TypeCheck(catalog, q, options);
    if (!ir.ok()) return WithFile(ir.status(), file_name);
    out.push_back(std::move(ir).value());
  }
  return out;
}

Result<ir::QueryIR> CompileQuery(const Catalog& catalog, std::string_view source, std::string_view file_name,
                                 std::string_view name, const CompileOptions& options) {
  OG_ASSIGN_OR_RETURN(query::QueryFile file, ParseQueries(source, file_name));
  const query::QueryDecl* chosen = nullptr;
  if (name.empty()) {
    if (file.queries.empty()) return InvalidArgument("query file contains no queries");
    if (file.queries.size() > 1) return InvalidArgument("query file contains multiple queries; pass --name");
    chosen = &file.queries[0];
  } else {
    for (const query::QueryDecl& q : file.queries) {
      if (q.name == name) {
        chosen = &q;
        break;
      }
    }
    if (!chosen) return NotFound(fmt::format("query '{}' not found", name));
  }
  Result<ir::QueryIR> checked = TypeCheck(catalog, *chosen, options);
  if (!checked.ok()) return WithFile(checked.status(), file_name);
  return checked;
}

}  // namespace omnigraph::compiler
