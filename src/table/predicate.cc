#include "table/predicate.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

namespace omnigraph::table {
namespace {

// Three-valued truth per row.
constexpr uint8_t kFalse = 0;
constexpr uint8_t kTrueValue = 1;
constexpr uint8_t kUnknown = 2;

std::string_view OpText(CompareOp op) {
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

bool Holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

std::string Quote(const Scalar& value) {
  if (value.is_string()) {
    std::string out = "'";
    for (char c : value.string_value()) {
      if (c == '\'') out += "''";
      else out += c;
    }
    return out + "'";
  }
  return value.ToString();
}

bool IsNumericColumn(TypeId id) {
  switch (id) {
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate32:
    case TypeId::kDate64: return true;
    default: return false;
  }
}

// Whether a literal can be compared with a column of type `id`.
bool Comparable(TypeId id, const Scalar& literal) {
  if (literal.is_null()) return true;
  if (IsNumericColumn(id)) return literal.is_numeric();
  if (id == TypeId::kUtf8 || id == TypeId::kLargeBinary) return literal.is_string();
  if (id == TypeId::kBool) return literal.is_bool();
  return false;
}

template <typename T>
void CompareNumeric(const Array& column, CompareOp op, const Scalar& literal, std::vector<uint8_t>* out) {
  const T* values = column.raw_values<T>();
  int64_t n = column.length();
  // Compare in the column's domain when the literal converts exactly, which is
  // the common case and keeps the loop branch-light. A literal that no T
  // equals (2^53 + 1 for a double column, 2.5 for an integer one) takes the
  // Scalar::Compare path instead of being rounded onto a neighbour.
  bool exact = false;
  T lit{};
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    std::optional<int64_t> v = literal.ExactInt64();
    exact = v && std::in_range<T>(*v);
    if (exact) lit = static_cast<T>(*v);
  } else if constexpr (std::is_integral_v<T>) {
    std::optional<uint64_t> v = literal.ExactUInt64();
    exact = v && std::in_range<T>(*v);
    if (exact) lit = static_cast<T>(*v);
  } else {
    std::optional<double> d = literal.ExactDouble();
    exact = d && !std::isnan(*d) && std::fabs(*d) <= std::numeric_limits<T>::max() &&
            static_cast<double>(static_cast<T>(*d)) == *d;
    if (exact) lit = static_cast<T>(*d);
  }
  for (int64_t i = 0; i < n; ++i) {
    if (column.IsNull(i)) {
      (*out)[i] = kUnknown;
      continue;
    }
    int c;
    if (exact) {
      c = values[i] < lit ? -1 : (lit < values[i] ? 1 : 0);
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(values[i])) c = 1;  // NaN sorts above every number
      }
    } else {
      Scalar cell;
      if constexpr (std::is_floating_point_v<T>) cell = Scalar::Double(values[i]);
      else if constexpr (std::is_signed_v<T>) cell = Scalar::Int(values[i]);
      else cell = Scalar::UInt(values[i]);
      c = *Scalar::Compare(cell, literal);
    }
    (*out)[i] = Holds(op, c) ? kTrueValue : kFalse;
  }
}

}  // namespace

struct Predicate::Node {
  Kind kind = Kind::kTrue;
  std::string column;
  CompareOp op = CompareOp::kEq;
  Scalar value;
  std::vector<Scalar> values;
  std::string prefix;
  std::vector<std::shared_ptr<const Node>> children;
  // IN lookup sets, built once at construction.
  std::unordered_set<std::string> string_set;
  std::unordered_set<int64_t> int_set;
  std::unordered_set<uint64_t> uint_set;
  std::unordered_set<double> double_set;
  bool has_bools[2] = {false, false};

  void Evaluate(const RecordBatch& batch, std::vector<uint8_t>* out) const;
  void EvaluateIn(const Array& column, std::vector<uint8_t>* out) const;
};

void Predicate::Node::EvaluateIn(const Array& column, std::vector<uint8_t>* out) const {
  int64_t n = column.length();
  for (int64_t i = 0; i < n; ++i) {
    if (column.IsNull(i)) {
      (*out)[i] = kUnknown;
      continue;
    }
    bool hit = false;
    switch (column.type_id()) {
      case TypeId::kInt32:
      case TypeId::kDate32: hit = int_set.count(column.Value<int32_t>(i)) > 0; break;
      case TypeId::kInt64:
      case TypeId::kDate64: hit = int_set.count(column.Value<int64_t>(i)) > 0; break;
      case TypeId::kUInt32: hit = int_set.count(column.Value<uint32_t>(i)) > 0; break;
      case TypeId::kUInt64: {
        uint64_t v = column.Value<uint64_t>(i);
        hit = v <= static_cast<uint64_t>(INT64_MAX) ? int_set.count(static_cast<int64_t>(v)) > 0 : uint_set.count(v) > 0;
        break;
      }
      case TypeId::kFloat32: hit = double_set.count(static_cast<double>(column.Value<float>(i))) > 0; break;
      case TypeId::kFloat64: hit = double_set.count(column.Value<double>(i)) > 0; break;
      case TypeId::kUtf8:
      case TypeId::kLargeBinary: hit = string_set.count(std::string(column.GetView(i))) > 0; break;
      case TypeId::kBool: hit = has_bools[column.BoolValue(i) ? 1 : 0]; break;
      default: break;
    }
    (*out)[i] = hit ? kTrueValue : kFalse;
  }
}

void Predicate::Node::Evaluate(const RecordBatch& batch, std::vector<uint8_t>* out) const {
  int64_t n = batch.num_rows();
  out->assign(n, kFalse);
  switch (kind) {
    case Kind::kTrue: std::fill(out->begin(), out->end(), kTrueValue); return;
    case Kind::kAnd:
    case Kind::kOr: {
      children[0]->Evaluate(batch, out);
      std::vector<uint8_t> right;
      children[1]->Evaluate(batch, &right);
      for (int64_t i = 0; i < n; ++i) {
        uint8_t a = (*out)[i], b = right[i];
        if (kind == Kind::kAnd) {
          (*out)[i] = (a == kFalse || b == kFalse) ? kFalse : (a == kUnknown || b == kUnknown) ? kUnknown : kTrueValue;
        } else {
          (*out)[i] = (a == kTrueValue || b == kTrueValue) ? kTrueValue
                      : (a == kUnknown || b == kUnknown)     ? kUnknown
                                                             : kFalse;
        }
      }
      return;
    }
    case Kind::kNot:
      children[0]->Evaluate(batch, out);
      for (auto& v : *out) v = v == kUnknown ? kUnknown : (v == kTrueValue ? kFalse : kTrueValue);
      return;
    default: break;
  }
  const Array& col = *batch.GetColumn(column);
  switch (kind) {
    case Kind::kIsNull:
    case Kind::kIsNotNull:
      for (int64_t i = 0; i < n; ++i) (*out)[i] = (col.IsNull(i) == (kind == Kind::kIsNull)) ? kTrueValue : kFalse;
      return;
    case Kind::kIn: EvaluateIn(col, out); return;
    case Kind::kStartsWith:
      for (int64_t i = 0; i < n; ++i) {
        if (col.IsNull(i)) {
          (*out)[i] = kUnknown;
        } else {
          std::string_view v = col.GetView(i);
          (*out)[i] = v.substr(0, prefix.size()) == prefix ? kTrueValue : kFalse;
        }
      }
      return;
    case Kind::kCompare:
      if (value.is_null()) {
        std::fill(out->begin(), out->end(), kUnknown);
        return;
      }
      switch (col.type_id()) {
        case TypeId::kInt32:
        case TypeId::kDate32: CompareNumeric<int32_t>(col, op, value, out); return;
        case TypeId::kInt64:
        case TypeId::kDate64: CompareNumeric<int64_t>(col, op, value, out); return;
        case TypeId::kUInt32: CompareNumeric<uint32_t>(col, op, value, out); return;
        case TypeId::kUInt64: CompareNumeric<uint64_t>(col, op, value, out); return;
        case TypeId::kFloat32: CompareNumeric<float>(col, op, value, out); return;
        case TypeId::kFloat64: CompareNumeric<double>(col, op, value, out); return;
        case TypeId::kUtf8:
        case TypeId::kLargeBinary: {
          std::string_view lit = value.string_value();
          for (int64_t i = 0; i < n; ++i) {
            if (col.IsNull(i)) {
              (*out)[i] = kUnknown;
              continue;
            }
            int c = col.GetView(i).compare(lit);
            (*out)[i] = Holds(op, c < 0 ? -1 : (c > 0 ? 1 : 0)) ? kTrueValue : kFalse;
          }
          return;
        }
        case TypeId::kBool:
          for (int64_t i = 0; i < n; ++i) {
            if (col.IsNull(i)) {
              (*out)[i] = kUnknown;
              continue;
            }
            int a = col.BoolValue(i), b = value.bool_value();
            (*out)[i] = Holds(op, a < b ? -1 : (a > b ? 1 : 0)) ? kTrueValue : kFalse;
          }
          return;
        default: return;  // rejected by Validate
      }
    default: return;
  }
}

Predicate::Predicate() : node_(std::make_shared<const Node>()) {}

Predicate::Kind Predicate::kind() const { return node_->kind; }

Predicate Predicate::Compare(std::string column, CompareOp op, Scalar value) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kCompare;
  node->column = std::move(column);
  node->op = op;
  node->value = std::move(value);
  return Predicate(std::move(node));
}

Predicate Predicate::IsNull(std::string column) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kIsNull;
  node->column = std::move(column);
  return Predicate(std::move(node));
}

Predicate Predicate::IsNotNull(std::string column) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kIsNotNull;
  node->column = std::move(column);
  return Predicate(std::move(node));
}

Predicate Predicate::In(std::string column, std::vector<Scalar> values) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kIn;
  node->column = std::move(column);
  for (const Scalar& v : values) {
    if (v.is_string()) node->string_set.insert(v.string_value());
    if (v.is_bool()) node->has_bools[v.bool_value() ? 1 : 0] = true;
    // A number joins each set whose domain holds it exactly, so a lookup
    // never meets a rounded neighbour (2^53 + 1 is not the double 2^53).
    // uint_set holds only the unsigned values above the int64 range.
    if (std::optional<int64_t> i = v.ExactInt64()) {
      node->int_set.insert(*i);
    } else if (std::optional<uint64_t> u = v.ExactUInt64()) {
      node->uint_set.insert(*u);
    }
    if (std::optional<double> d = v.ExactDouble()) node->double_set.insert(*d);
  }
  node->values = std::move(values);
  return Predicate(std::move(node));
}

Predicate Predicate::StartsWith(std::string column, std::string prefix) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kStartsWith;
  node->column = std::move(column);
  node->prefix = std::move(prefix);
  return Predicate(std::move(node));
}

Predicate Predicate::And(Predicate a, Predicate b) {
  if (a.is_true()) return b;
  if (b.is_true()) return a;
  auto node = std::make_shared<Node>();
  node->kind = Kind::kAnd;
  node->children = {a.node_, b.node_};
  return Predicate(std::move(node));
}

Predicate Predicate::Or(Predicate a, Predicate b) {
  if (a.is_true()) return a;
  if (b.is_true()) return b;
  auto node = std::make_shared<Node>();
  node->kind = Kind::kOr;
  node->children = {a.node_, b.node_};
  return Predicate(std::move(node));
}

Predicate Predicate::Not(Predicate a) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::kNot;
  node->children = {a.node_};
  return Predicate(std::move(node));
}

std::set<std::string> Predicate::Columns() const {
  std::set<std::string> out;
  std::vector<const Node*> stack = {node_.get()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!n->column.empty()) out.insert(n->column);
    for (const auto& c : n->children) stack.push_back(c.get());
  }
  return out;
}

Status Predicate::Validate(const Schema& schema) const {
  std::vector<const Node*> stack = {node_.get()};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const auto& c : n->children) stack.push_back(c.get());
    if (n->column.empty()) continue;
    const Field* field = schema.FindField(n->column);
    if (field == nullptr) return InvalidArgument(fmt::format("predicate names unknown column '{}'", n->column));
    TypeId id = field->type->id();
    switch (n->kind) {
      case Kind::kCompare:
        if (!Comparable(id, n->value)) {
          return InvalidArgument(fmt::format("cannot compare column '{}' of type {} with {}", n->column,
                                             field->type->ToString(), n->value.ToString()));
        }
        break;
      case Kind::kIn:
        for (const Scalar& v : n->values) {
          if (!Comparable(id, v)) {
            return InvalidArgument(fmt::format("IN list value {} does not match column '{}' of type {}", v.ToString(),
                                               n->column, field->type->ToString()));
          }
        }
        break;
      case Kind::kStartsWith:
        if (id != TypeId::kUtf8 && id != TypeId::kLargeBinary) {
          return InvalidArgument(fmt::format("starts_with needs a string column, '{}' is {}", n->column,
                                             field->type->ToString()));
        }
        break;
      default: break;
    }
  }
  return Status::OK();
}

Result<std::vector<int64_t>> Predicate::Select(const RecordBatch& batch) const {
  for (const std::string& column : Columns()) {
    if (!batch.GetColumn(column)) return InvalidArgument(fmt::format("predicate column '{}' is not in the batch", column));
  }
  std::vector<int64_t> selected;
  if (is_true()) {
    selected.resize(batch.num_rows());
    for (int64_t i = 0; i < batch.num_rows(); ++i) selected[i] = i;
    return selected;
  }
  std::vector<uint8_t> truth;
  node_->Evaluate(batch, &truth);
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    if (truth[i] == kTrueValue) selected.push_back(i);
  }
  return selected;
}

std::string Predicate::ToString() const {
  const Node& n = *node_;
  switch (n.kind) {
    case Kind::kTrue: return "true";
    case Kind::kCompare: return fmt::format("{} {} {}", n.column, OpText(n.op), Quote(n.value));
    case Kind::kIsNull: return fmt::format("{} IS NULL", n.column);
    case Kind::kIsNotNull: return fmt::format("{} IS NOT NULL", n.column);
    case Kind::kIn: {
      std::string list;
      for (const Scalar& v : n.values) list += (list.empty() ? "" : ", ") + Quote(v);
      return fmt::format("{} IN ({})", n.column, list);
    }
    case Kind::kStartsWith: return fmt::format("starts_with({}, {})", n.column, Quote(Scalar::String(n.prefix)));
    case Kind::kAnd:
      return fmt::format("({} AND {})", Predicate(n.children[0]).ToString(), Predicate(n.children[1]).ToString());
    case Kind::kOr:
      return fmt::format("({} OR {})", Predicate(n.children[0]).ToString(), Predicate(n.children[1]).ToString());
    case Kind::kNot: return fmt::format("NOT ({})", Predicate(n.children[0]).ToString());
  }
  return "?";
}

}  // namespace omnigraph::table
