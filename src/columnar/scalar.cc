#include "columnar/scalar.h"

#include <cmath>

#include <fmt/format.h>

namespace omnigraph {

double Scalar::AsDouble() const {
  if (is_int()) return static_cast<double>(int_value());
  if (is_uint()) return static_cast<double>(uint_value());
  if (is_double()) return double_value();
  return std::nan("");
}

namespace {

template <typename T>
int Sign(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Exact comparison of an int64 with a uint64.
int CompareIntUInt(int64_t a, uint64_t b) {
  if (a < 0) return -1;
  return Sign(static_cast<uint64_t>(a), b);
}

}  // namespace

int CompareIntegerToDouble(int64_t value, double d) {
  // Outside [-2^63, 2^63) every int64 is on one side; inside, the integer
  // part of d is an int64 and its fraction decides a tie.
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  const double whole = std::trunc(d);
  const int64_t integral = static_cast<int64_t>(whole);
  if (value != integral) return value < integral ? -1 : 1;
  return d > whole ? -1 : (d < whole ? 1 : 0);
}

int CompareIntegerToDouble(uint64_t value, double d) {
  if (d >= 18446744073709551616.0) return -1;
  if (d < 0) return 1;
  const double whole = std::trunc(d);
  const uint64_t integral = static_cast<uint64_t>(whole);
  if (value != integral) return value < integral ? -1 : 1;
  return d > whole ? -1 : 0;
}

std::optional<int64_t> Scalar::ExactInt64() const {
  if (is_int()) return int_value();
  if (is_uint()) {
    if (uint_value() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(uint_value());
  }
  if (!is_double()) return std::nullopt;
  const double d = double_value();
  // -2^63 and 2^63 are exact doubles; between them a whole double converts
  // exactly (NaN fails the range test).
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || std::trunc(d) != d) return std::nullopt;
  return static_cast<int64_t>(d);
}

std::optional<uint64_t> Scalar::ExactUInt64() const {
  if (is_uint()) return uint_value();
  if (is_int()) {
    if (int_value() < 0) return std::nullopt;
    return static_cast<uint64_t>(int_value());
  }
  if (!is_double()) return std::nullopt;
  const double d = double_value();
  if (!(d >= 0 && d < 18446744073709551616.0) || std::trunc(d) != d) return std::nullopt;
  return static_cast<uint64_t>(d);
}

std::optional<double> Scalar::ExactDouble() const {
  if (is_double()) return double_value();
  // An integer is exact as a double when the nearest double is the integer
  // itself (CompareIntegerToDouble never rounds the integer).
  if (is_int()) {
    const double d = static_cast<double>(int_value());
    if (CompareIntegerToDouble(int_value(), d) != 0) return std::nullopt;
    return d;
  }
  if (is_uint()) {
    const double d = static_cast<double>(uint_value());
    if (CompareIntegerToDouble(uint_value(), d) != 0) return std::nullopt;
    return d;
  }
  return std::nullopt;
}

std::optional<int> Scalar::Compare(const Scalar& a, const Scalar& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  if (a.is_int() && b.is_int()) return Sign(a.int_value(), b.int_value());
  if (a.is_uint() && b.is_uint()) return Sign(a.uint_value(), b.uint_value());
  if (a.is_int() && b.is_uint()) return CompareIntUInt(a.int_value(), b.uint_value());
  if (a.is_uint() && b.is_int()) return -CompareIntUInt(b.int_value(), a.uint_value());
  if (a.is_numeric() && b.is_numeric()) {
    double x = a.AsDouble(), y = b.AsDouble();
    if (std::isnan(x) || std::isnan(y)) {
      // NaN sorts above every number and equals itself, as in Lance/DataFusion.
      return Sign<int>(std::isnan(x), std::isnan(y));
    }
    if (a.is_int()) return CompareIntegerToDouble(a.int_value(), y);
    if (a.is_uint()) return CompareIntegerToDouble(a.uint_value(), y);
    if (b.is_int()) return -CompareIntegerToDouble(b.int_value(), x);
    if (b.is_uint()) return -CompareIntegerToDouble(b.uint_value(), x);
    return Sign(x, y);
  }
  if (a.is_string() && b.is_string()) {
    int c = a.string_value().compare(b.string_value());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_bool() && b.is_bool()) return Sign<int>(a.bool_value(), b.bool_value());
  if (a.is_nested() && b.is_nested()) {
    const List& x = a.nested();
    const List& y = b.nested();
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      if (x[i].is_null() || y[i].is_null()) {
        if (x[i].is_null() != y[i].is_null()) return x[i].is_null() ? -1 : 1;
        continue;
      }
      std::optional<int> c = Compare(x[i], y[i]);
      if (!c) return std::nullopt;
      if (*c != 0) return c;
    }
    return Sign(x.size(), y.size());
  }
  return std::nullopt;
}

bool Scalar::operator==(const Scalar& other) const {
  if (is_null() || other.is_null()) return is_null() && other.is_null();
  if (is_nested() != other.is_nested()) return false;
  if (is_nested()) {
    if (nested().size() != other.nested().size()) return false;
    for (size_t i = 0; i < nested().size(); ++i) {
      if (!(nested()[i] == other.nested()[i])) return false;
    }
    return true;
  }
  std::optional<int> c = Compare(*this, other);
  return c.has_value() && *c == 0;
}

std::string Scalar::ToString() const {
  if (is_null()) return "null";
  if (is_bool()) return bool_value() ? "true" : "false";
  if (is_int()) return std::to_string(int_value());
  if (is_uint()) return std::to_string(uint_value());
  if (is_double()) return fmt::format("{}", double_value());
  if (is_string()) return fmt::format("\"{}\"", string_value());
  std::string out = "[";
  for (size_t i = 0; i < nested().size(); ++i) {
    if (i) out += ", ";
    out += nested()[i].ToString();
  }
  return out + "]";
}

Scalar GetScalar(const Array& array, int64_t i) {
  if (array.IsNull(i)) return Scalar::Null();
  switch (array.type_id()) {
    case TypeId::kBool: return Scalar::Bool(array.BoolValue(i));
    case TypeId::kInt32:
    case TypeId::kDate32: return Scalar::Int(array.Value<int32_t>(i));
    case TypeId::kInt64:
    case TypeId::kDate64: return Scalar::Int(array.Value<int64_t>(i));
    case TypeId::kUInt32: return Scalar::UInt(array.Value<uint32_t>(i));
    case TypeId::kUInt64: return Scalar::UInt(array.Value<uint64_t>(i));
    case TypeId::kFloat32: return Scalar::Double(array.Value<float>(i));
    case TypeId::kFloat64: return Scalar::Double(array.Value<double>(i));
    case TypeId::kUtf8:
    case TypeId::kLargeBinary: return Scalar::String(std::string(array.GetView(i)));
    case TypeId::kList: {
      Scalar::List items;
      for (int64_t k = array.ValueOffset(i); k < array.ValueOffset(i + 1); ++k) items.push_back(GetScalar(*array.child(0), k));
      return Scalar::Nested(std::move(items));
    }
    case TypeId::kFixedSizeList: {
      Scalar::List items;
      int64_t n = array.type()->list_size();
      for (int64_t k = i * n; k < (i + 1) * n; ++k) items.push_back(GetScalar(*array.child(0), k));
      return Scalar::Nested(std::move(items));
    }
    case TypeId::kStruct: {
      Scalar::List members;
      for (const ArrayPtr& child : array.children()) members.push_back(GetScalar(*child, i));
      return Scalar::Nested(std::move(members));
    }
  }
  return Scalar::Null();
}

}  // namespace omnigraph
