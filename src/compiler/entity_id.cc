#include "compiler/entity_id.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "util/ulid.h"

namespace omnigraph::compiler {

namespace {

// Positional rendering of a scientific to_chars result ("d.ddde±xx").
std::string Positional(std::string_view sci) {
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string_view mantissa = sci.substr(0, e);
  int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  int len = static_cast<int>(digits.size());
  if (exponent >= len - 1) {
    out = digits + std::string(static_cast<size_t>(exponent - (len - 1)), '0');
  } else if (exponent >= 0) {
    out = digits.substr(0, static_cast<size_t>(exponent + 1)) + "." + digits.substr(static_cast<size_t>(exponent + 1));
  } else {
    out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  }
  return negative ? "-" + out : out;
}

}  // namespace

std::optional<std::string> FormatFloatShortest(double value, bool is_f32) {
  if (std::isnan(value) || std::isinf(value)) return std::nullopt;
  char buf[64];
  std::to_chars_result r;
  if (is_f32) {
    float f = static_cast<float>(value);
    if (std::isinf(f)) return std::nullopt;
    if (f == 0.0f) return std::string("0");
    r = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific);
  } else {
    if (value == 0.0) return std::string("0");
    r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  }
  return Positional(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

Result<std::string> CanonicalScalarText(const PropertyType& type, const Scalar& value) {
  if (value.is_null()) return InvalidArgument("a null value is not a valid key");
  if (type.is_enum()) {
    if (!value.is_string()) return InvalidArgument(fmt::format("expected a string for {}", type.ToString()));
    return value.string_value();
  }
  if (!type.is_scalar() || type.scalar == ScalarKind::kBlob) {
    return InvalidArgument(fmt::format("{} values cannot form an entity id", type.ToString()));
  }
  switch (type.scalar) {
    case ScalarKind::kString:
      if (!value.is_string()) break;
      return value.string_value();
    case ScalarKind::kBool:
      if (!value.is_bool()) break;
      return std::string(value.bool_value() ? "true" : "false");
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64:
    case ScalarKind::kDate:
    case ScalarKind::kDateTime:
      if (value.is_int()) return std::to_string(value.int_value());
      if (value.is_uint()) return std::to_string(value.uint_value());
      break;
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      if (!value.is_numeric()) break;
      std::optional<std::string> text = FormatFloatShortest(value.AsDouble(), type.scalar == ScalarKind::kF32);
      if (!text) {
        std::string shown = std::isnan(value.AsDouble()) ? "NaN" : value.ToString();
        return InvalidArgument(fmt::format("key value {} is not a valid key", shown));
      }
      return *text;
    }
    case ScalarKind::kBlob: break;
  }
  return InvalidArgument(fmt::format("value {} does not match key type {}", value.ToString(), type.ToString()));
}

std::string CompositeKeyJson(const std::vector<std::string>& parts) {
  std::string out = "[";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char ch : parts[i]) {
      unsigned char c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) {
            out += fmt::format("\\u{:04x}", c);
          } else {
            out += ch;
          }
      }
    }
    out += '"';
  }
  out += ']';
  return out;
}

Result<std::string> DeriveKeyId(const NodeType& node, const std::vector<Scalar>& key_values) {
  if (!node.keyed()) return InvalidArgument(fmt::format("node type {} has no @key", node.name));
  if (key_values.size() != node.key.size()) {
    return InvalidArgument(
        fmt::format("node {} key has {} properties, got {} values", node.name, node.key.size(), key_values.size()));
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < node.key.size(); ++i) {
    const Property* prop = node.FindProperty(node.key[i]);
    if (!prop) return Internal(fmt::format("key property {}.{} is missing", node.name, node.key[i]));
    if (key_values[i].is_null()) {
      return InvalidArgument(fmt::format("node {} is missing a non-null @key value", node.name));
    }
    OG_ASSIGN_OR_RETURN(std::string part, CanonicalScalarText(prop->type, key_values[i]));
    parts.push_back(std::move(part));
  }
  if (parts.size() == 1) return parts[0];
  return CompositeKeyJson(parts);
}

std::string NewEntityId() { return Ulid::New().ToString(); }

}  // namespace omnigraph::compiler
