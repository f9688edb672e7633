// Allocation-free value views for the read-query executor (spec/surface.md
// §2.4 filters, §2.5 aggregates, §2.6 ordering).
//
// A Cell is a borrowed view of one value: a column element of a cached
// TableData or a constant Scalar (literal or parameter). Strings are
// string_views into the owning buffer, lists refer to the owning child array
// or Scalar list, so reading a cell in a hot loop never allocates. A Cell is
// valid only while its owner (array or Scalar) is alive.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "columnar/array.h"
#include "columnar/scalar.h"
#include "compiler/query_ir.h"

namespace omnigraph::exec {

struct Cell {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kDouble, kString, kList };
  Kind kind = Kind::kNull;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
  };
  std::string_view s;  // kString
  // kList: elements [list_begin, list_end) of `list_child` (a List or
  // FixedSizeList column), or the elements of `list_scalar`.
  const Array* list_child = nullptr;
  int64_t list_begin = 0;
  int64_t list_end = 0;
  const Scalar::List* list_scalar = nullptr;

  Cell() : i(0) {}
  bool is_null() const { return kind == Kind::kNull; }
  bool is_numeric() const { return kind == Kind::kInt || kind == Kind::kUInt || kind == Kind::kDouble; }
  // Number of list elements (kList only).
  int64_t list_size() const {
    return list_scalar ? static_cast<int64_t>(list_scalar->size()) : list_end - list_begin;
  }
  // List element k (kList only).
  Cell ListElement(int64_t k) const;
};

// Element `row` of `array` (Date32/Date64 read as kInt, floats as kDouble,
// Utf8/LargeBinary as kString, List/FixedSizeList as kList). A null array
// pointer (a column absent from an older table version) reads as NULL.
Cell CellOf(const Array* array, int64_t row);
// A view of `value` (which must outlive the cell).
Cell CellOf(const Scalar& value);

// Scalar::Compare semantics on cells: numbers compare by value across
// Int/UInt/Double (exact between integer kinds, through double otherwise,
// NaN above every number and equal to itself), strings bytewise, false <
// true. nullopt when either side is NULL or the kinds are not comparable
// (lists included: whole-list comparisons are rejected by the compiler).
std::optional<int> CompareCells(const Cell& a, const Cell& b);

// SQL equality: false when either side is NULL.
inline bool CellsEqual(const Cell& a, const Cell& b) {
  std::optional<int> c = CompareCells(a, b);
  return c.has_value() && *c == 0;
}

// List membership (§2.4 `tags: "a"`, `$p.tags contains $x`): `list` holds an
// element equal to `value`. NULL list or value → false.
bool ListContains(const Cell& list, const Cell& value);

// Whether `op` holds for a three-way comparison result `c`.
bool CompareOpHolds(compiler::ir::CompareOp op, int c);

// Typed fast path of `value op constant` (or `constant op value` when
// `constant_on_left`) over positions i in [0, n) reading array[rows[i]]
// (array[i] when `rows` is null): appends the passing positions to `out`
// and returns true. Same semantics as CompareCells (NULL never passes).
// Returns false without touching `out` when the column/constant kinds have
// no typed loop (the caller then evaluates cells one by one).
bool FilterColumnAgainstConstant(const Array& array, const uint32_t* rows, size_t n, const Cell& constant,
                                 bool constant_on_left, compiler::ir::CompareOp op, std::vector<uint32_t>* out);

// The cell as an owning Scalar (for min/max results and error messages).
Scalar CellToScalar(const Cell& cell);

// Appends a self-delimiting encoding of `cell` to `out` such that two cells
// of one column encode equally iff they group together (§2.5: NULLs group
// together, -0 equals +0, all NaNs are one group).
void AppendGroupKey(const Cell& cell, std::string* out);

}  // namespace omnigraph::exec
