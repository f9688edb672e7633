// A single value of any column type: literals in predicates, keys in
// merge-insert, cells in tests and JSON output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "columnar/array.h"

namespace omnigraph {

class Scalar {
 public:
  using List = std::vector<Scalar>;

  Scalar() = default;  // null
  static Scalar Null() { return Scalar(); }
  static Scalar Bool(bool v) { return Scalar(Storage(v)); }
  static Scalar Int(int64_t v) { return Scalar(Storage(v)); }
  static Scalar UInt(uint64_t v) { return Scalar(Storage(v)); }
  static Scalar Double(double v) { return Scalar(Storage(v)); }
  static Scalar String(std::string v) { return Scalar(Storage(std::move(v))); }
  // Elements of a List/FixedSizeList value, or the members of a Struct value.
  static Scalar Nested(List items) { return Scalar(Storage(std::make_shared<const List>(std::move(items)))); }

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_uint() const { return std::holds_alternative<uint64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_nested() const { return std::holds_alternative<std::shared_ptr<const List>>(v_); }
  bool is_numeric() const { return is_int() || is_uint() || is_double(); }

  bool bool_value() const { return std::get<bool>(v_); }
  int64_t int_value() const { return std::get<int64_t>(v_); }
  uint64_t uint_value() const { return std::get<uint64_t>(v_); }
  double double_value() const { return std::get<double>(v_); }
  const std::string& string_value() const { return std::get<std::string>(v_); }
  const List& nested() const { return *std::get<std::shared_ptr<const List>>(v_); }

  // Numeric value as double (ints converted).
  double AsDouble() const;
  // The number as an int64 / uint64 / double when it equals one exactly
  // (2.0 is the int64 2; 2.5 is none; 2^53 + 1 is no double); nullopt
  // otherwise and for non-numbers. Comparisons by value use them to stay in
  // a column's own domain only when that changes nothing.
  std::optional<int64_t> ExactInt64() const;
  std::optional<uint64_t> ExactUInt64() const;
  std::optional<double> ExactDouble() const;

  // Total order used by comparisons: numbers compare by exact value across
  // int, uint and double (NaN above every number, equal to itself); strings bytewise; bools false < true. Returns nullopt
  // when either side is null or the kinds are not comparable.
  static std::optional<int> Compare(const Scalar& a, const Scalar& b);

  bool operator==(const Scalar& other) const;
  // JSON-like rendering: null, true, 12, 1.5, "text", [1, 2].
  std::string ToString() const;

 private:
  using Storage = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, std::shared_ptr<const List>>;
  explicit Scalar(Storage v) : v_(std::move(v)) {}
  Storage v_;
};

// Exact three-way order of an integer and a double that is not NaN: no
// rounding of the integer to the nearest double (2^64 - 1 < 2^64, and
// 2^53 + 1 > 2^53 + 0.0). Used by every numeric comparison across kinds.
int CompareIntegerToDouble(int64_t value, double d);
int CompareIntegerToDouble(uint64_t value, double d);

// Element i of `array` as a Scalar: ints/dates as Int, unsigned as UInt,
// floats as Double, Utf8/LargeBinary as String, nested as Nested.
Scalar GetScalar(const Array& array, int64_t i);

}  // namespace omnigraph
