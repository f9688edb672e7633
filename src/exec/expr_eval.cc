#include "exec/expr_eval.h"

#include <cmath>
#include <cstring>

namespace omnigraph::exec {

namespace {

template <typename T>
int Sign(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareIntUInt(int64_t a, uint64_t b) {
  if (a < 0) return -1;
  return Sign(static_cast<uint64_t>(a), b);
}

double AsDouble(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kInt: return static_cast<double>(c.i);
    case Cell::Kind::kUInt: return static_cast<double>(c.u);
    case Cell::Kind::kDouble: return c.d;
    default: return std::nan("");
  }
}

template <typename T>
void AppendRaw(const T& value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

}  // namespace

Cell Cell::ListElement(int64_t k) const {
  if (list_scalar) return CellOf((*list_scalar)[static_cast<size_t>(k)]);
  return CellOf(list_child, list_begin + k);
}

Cell CellOf(const Array* array, int64_t row) {
  Cell c;
  if (array == nullptr || array->IsNull(row)) return c;
  switch (array->type_id()) {
    case TypeId::kBool:
      c.kind = Cell::Kind::kBool;
      c.b = array->BoolValue(row);
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      c.kind = Cell::Kind::kInt;
      c.i = array->raw_values<int32_t>()[row];
      break;
    case TypeId::kInt64:
    case TypeId::kDate64:
      c.kind = Cell::Kind::kInt;
      c.i = array->raw_values<int64_t>()[row];
      break;
    case TypeId::kUInt32:
      c.kind = Cell::Kind::kUInt;
      c.u = array->raw_values<uint32_t>()[row];
      break;
    case TypeId::kUInt64:
      c.kind = Cell::Kind::kUInt;
      c.u = array->raw_values<uint64_t>()[row];
      break;
    case TypeId::kFloat32:
      c.kind = Cell::Kind::kDouble;
      c.d = array->raw_values<float>()[row];
      break;
    case TypeId::kFloat64:
      c.kind = Cell::Kind::kDouble;
      c.d = array->raw_values<double>()[row];
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeBinary:
      c.kind = Cell::Kind::kString;
      c.s = array->GetView(row);
      break;
    case TypeId::kList:
      c.kind = Cell::Kind::kList;
      c.list_child = array->child(0).get();
      c.list_begin = array->ValueOffset(row);
      c.list_end = array->ValueOffset(row + 1);
      break;
    case TypeId::kFixedSizeList: {
      int64_t n = array->type()->list_size();
      c.kind = Cell::Kind::kList;
      c.list_child = array->child(0).get();
      c.list_begin = row * n;
      c.list_end = (row + 1) * n;
      break;
    }
    case TypeId::kStruct:
      break;  // never a property type; reads as NULL
  }
  return c;
}

Cell CellOf(const Scalar& value) {
  Cell c;
  if (value.is_bool()) {
    c.kind = Cell::Kind::kBool;
    c.b = value.bool_value();
  } else if (value.is_int()) {
    c.kind = Cell::Kind::kInt;
    c.i = value.int_value();
  } else if (value.is_uint()) {
    c.kind = Cell::Kind::kUInt;
    c.u = value.uint_value();
  } else if (value.is_double()) {
    c.kind = Cell::Kind::kDouble;
    c.d = value.double_value();
  } else if (value.is_string()) {
    c.kind = Cell::Kind::kString;
    c.s = value.string_value();
  } else if (value.is_nested()) {
    c.kind = Cell::Kind::kList;
    c.list_scalar = &value.nested();
  }
  return c;
}

std::optional<int> CompareCells(const Cell& a, const Cell& b) {
  using K = Cell::Kind;
  if (a.kind == K::kNull || b.kind == K::kNull) return std::nullopt;
  if (a.kind == K::kString && b.kind == K::kString) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.kind == K::kInt && b.kind == K::kInt) return Sign(a.i, b.i);
  if (a.kind == K::kUInt && b.kind == K::kUInt) return Sign(a.u, b.u);
  if (a.kind == K::kInt && b.kind == K::kUInt) return CompareIntUInt(a.i, b.u);
  if (a.kind == K::kUInt && b.kind == K::kInt) return -CompareIntUInt(b.i, a.u);
  if (a.is_numeric() && b.is_numeric()) {
    double x = AsDouble(a), y = AsDouble(b);
    if (std::isnan(x) || std::isnan(y)) return Sign<int>(std::isnan(x), std::isnan(y));
    // One side is a double here: compare exactly, without rounding the integer.
    if (a.kind == K::kInt) return CompareIntegerToDouble(a.i, y);
    if (a.kind == K::kUInt) return CompareIntegerToDouble(a.u, y);
    if (b.kind == K::kInt) return -CompareIntegerToDouble(b.i, x);
    if (b.kind == K::kUInt) return -CompareIntegerToDouble(b.u, x);
    return Sign(x, y);
  }
  if (a.kind == K::kBool && b.kind == K::kBool) return Sign<int>(a.b, b.b);
  return std::nullopt;
}

bool ListContains(const Cell& list, const Cell& value) {
  if (list.kind != Cell::Kind::kList || value.is_null()) return false;
  int64_t n = list.list_size();
  for (int64_t k = 0; k < n; ++k) {
    if (CellsEqual(list.ListElement(k), value)) return true;
  }
  return false;
}

bool CompareOpHolds(compiler::ir::CompareOp op, int c) {
  switch (op) {
    case compiler::ir::CompareOp::kEq: return c == 0;
    case compiler::ir::CompareOp::kNe: return c != 0;
    case compiler::ir::CompareOp::kLt: return c < 0;
    case compiler::ir::CompareOp::kLe: return c <= 0;
    case compiler::ir::CompareOp::kGt: return c > 0;
    case compiler::ir::CompareOp::kGe: return c >= 0;
  }
  return false;
}

namespace {

// One loop per (column type, op): `compare(i)` gives the three-way order of
// the value at position i against the constant.
template <typename Compare>
void FilterLoop(const Array& array, const uint32_t* rows, size_t n, bool constant_on_left,
                compiler::ir::CompareOp op, Compare&& compare, std::vector<uint32_t>* out) {
  const bool has_nulls = array.null_count() > 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t row = rows ? rows[i] : static_cast<int64_t>(i);
    if (has_nulls && array.IsNull(row)) continue;
    int c = compare(row);
    if (CompareOpHolds(op, constant_on_left ? -c : c)) out->push_back(static_cast<uint32_t>(i));
  }
}

template <typename T, typename K>
void FilterIntegers(const Array& array, const uint32_t* rows, size_t n, K constant, bool constant_on_left,
                    compiler::ir::CompareOp op, std::vector<uint32_t>* out) {
  const T* values = array.raw_values<T>();
  FilterLoop(array, rows, n, constant_on_left, op,
             [&](int64_t row) { return Sign<K>(static_cast<K>(values[row]), constant); }, out);
}

template <typename T>
void FilterFloats(const Array& array, const uint32_t* rows, size_t n, double constant, bool constant_on_left,
                  compiler::ir::CompareOp op, std::vector<uint32_t>* out) {
  const T* values = array.raw_values<T>();
  const bool constant_nan = std::isnan(constant);
  FilterLoop(array, rows, n, constant_on_left, op,
             [&](int64_t row) {
               double x = static_cast<double>(values[row]);
               if (constant_nan || std::isnan(x)) return Sign<int>(std::isnan(x), constant_nan);
               return Sign(x, constant);
             },
             out);
}

}  // namespace

bool FilterColumnAgainstConstant(const Array& array, const uint32_t* rows, size_t n, const Cell& constant,
                                 bool constant_on_left, compiler::ir::CompareOp op, std::vector<uint32_t>* out) {
  if (constant.is_null()) return true;  // NULL never matches: nothing passes
  switch (array.type_id()) {
    case TypeId::kInt32:
    case TypeId::kDate32:
      if (constant.kind != Cell::Kind::kInt) return false;
      FilterIntegers<int32_t, int64_t>(array, rows, n, constant.i, constant_on_left, op, out);
      return true;
    case TypeId::kInt64:
    case TypeId::kDate64:
      if (constant.kind != Cell::Kind::kInt) return false;
      FilterIntegers<int64_t, int64_t>(array, rows, n, constant.i, constant_on_left, op, out);
      return true;
    case TypeId::kUInt32:
      if (constant.kind != Cell::Kind::kUInt) return false;
      FilterIntegers<uint32_t, uint64_t>(array, rows, n, constant.u, constant_on_left, op, out);
      return true;
    case TypeId::kUInt64:
      if (constant.kind != Cell::Kind::kUInt) return false;
      FilterIntegers<uint64_t, uint64_t>(array, rows, n, constant.u, constant_on_left, op, out);
      return true;
    case TypeId::kFloat32:
      if (constant.kind != Cell::Kind::kDouble) return false;
      FilterFloats<float>(array, rows, n, constant.d, constant_on_left, op, out);
      return true;
    case TypeId::kFloat64:
      if (constant.kind != Cell::Kind::kDouble) return false;
      FilterFloats<double>(array, rows, n, constant.d, constant_on_left, op, out);
      return true;
    case TypeId::kUtf8: {
      if (constant.kind != Cell::Kind::kString) return false;
      const std::string_view needle = constant.s;
      if (array.length() == 0) return true;
      const int32_t* offsets = reinterpret_cast<const int32_t*>(array.offsets()->data());
      const char* bytes = array.values() ? reinterpret_cast<const char*>(array.values()->data()) : "";
      if (op == compiler::ir::CompareOp::kEq) {
        // Equality: compare lengths first (the common key/name lookup).
        const bool has_nulls = array.null_count() > 0;
        for (size_t i = 0; i < n; ++i) {
          const int64_t row = rows ? rows[i] : static_cast<int64_t>(i);
          const int32_t start = offsets[row];
          const size_t len = static_cast<size_t>(offsets[row + 1] - start);
          if (len != needle.size() || (has_nulls && array.IsNull(row))) continue;
          if (std::memcmp(bytes + start, needle.data(), len) == 0) out->push_back(static_cast<uint32_t>(i));
        }
        return true;
      }
      FilterLoop(array, rows, n, constant_on_left, op,
                 [&](int64_t row) {
                   std::string_view v(bytes + offsets[row], static_cast<size_t>(offsets[row + 1] - offsets[row]));
                   int c = v.compare(needle);
                   return c < 0 ? -1 : (c > 0 ? 1 : 0);
                 },
                 out);
      return true;
    }
    default: return false;
  }
}

Scalar CellToScalar(const Cell& cell) {
  switch (cell.kind) {
    case Cell::Kind::kNull: return Scalar::Null();
    case Cell::Kind::kBool: return Scalar::Bool(cell.b);
    case Cell::Kind::kInt: return Scalar::Int(cell.i);
    case Cell::Kind::kUInt: return Scalar::UInt(cell.u);
    case Cell::Kind::kDouble: return Scalar::Double(cell.d);
    case Cell::Kind::kString: return Scalar::String(std::string(cell.s));
    case Cell::Kind::kList: {
      Scalar::List items;
      for (int64_t k = 0; k < cell.list_size(); ++k) items.push_back(CellToScalar(cell.ListElement(k)));
      return Scalar::Nested(std::move(items));
    }
  }
  return Scalar::Null();
}

void AppendGroupKey(const Cell& cell, std::string* out) {
  out->push_back(static_cast<char>(cell.kind));
  switch (cell.kind) {
    case Cell::Kind::kNull: break;
    case Cell::Kind::kBool: out->push_back(cell.b ? 1 : 0); break;
    case Cell::Kind::kInt: AppendRaw(cell.i, out); break;
    case Cell::Kind::kUInt: AppendRaw(cell.u, out); break;
    case Cell::Kind::kDouble: {
      double d = cell.d;
      if (d == 0) d = 0;                     // -0 groups with +0
      if (std::isnan(d)) d = std::nan("");  // one NaN group
      AppendRaw(d, out);
      break;
    }
    case Cell::Kind::kString:
      AppendRaw(static_cast<uint64_t>(cell.s.size()), out);
      out->append(cell.s);
      break;
    case Cell::Kind::kList: {
      int64_t n = cell.list_size();
      AppendRaw(n, out);
      for (int64_t k = 0; k < n; ++k) AppendGroupKey(cell.ListElement(k), out);
      break;
    }
  }
}

}  // namespace omnigraph::exec
