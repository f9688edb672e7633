#include "compiler/params.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compiler/source.h"
#include "compiler/temporal.h"
#include "util/utf8.h"

namespace omnigraph::compiler {

namespace {

// A JSON value that keeps the exact text of every number.
struct JVal {
  enum class Type { kNull, kBool, kInteger, kFloat, kString, kArray, kObject };
  Type type = Type::kNull;
  bool b = false;
  // kInteger: exact value (negative when `negative`, magnitude in `u`).
  bool negative = false;
  uint64_t u = 0;
  // kFloat: value and the raw token; kString: the text.
  double d = 0;
  std::string text;
  std::vector<JVal> items;
  std::vector<std::pair<std::string, JVal>> members;

  const char* TypeName() const {
    switch (type) {
      case Type::kNull: return "null";
      case Type::kBool: return "boolean";
      case Type::kInteger:
      case Type::kFloat: return "number";
      case Type::kString: return "string";
      case Type::kArray: return "array";
      case Type::kObject: return "object";
    }
    return "value";
  }
  std::string NumberText() const {
    if (type == Type::kFloat) return text;
    return negative ? "-" + std::to_string(u) : std::to_string(u);
  }
};

using Json = nlohmann::json;

class Builder : public nlohmann::json_sax<Json> {
 public:
  JVal root;
  std::string error;

  bool null() override { return Put(JVal{}); }
  bool boolean(bool val) override {
    JVal v;
    v.type = JVal::Type::kBool;
    v.b = val;
    return Put(std::move(v));
  }
  bool number_integer(number_integer_t val) override {
    JVal v;
    v.type = JVal::Type::kInteger;
    v.negative = val < 0;
    v.u = val < 0 ? static_cast<uint64_t>(-(val + 1)) + 1 : static_cast<uint64_t>(val);
    return Put(std::move(v));
  }
  bool number_unsigned(number_unsigned_t val) override {
    JVal v;
    v.type = JVal::Type::kInteger;
    v.u = val;
    return Put(std::move(v));
  }
  bool number_float(number_float_t val, const string_t& s) override {
    JVal v;
    v.type = JVal::Type::kFloat;
    v.d = val;
    v.text = s;
    return Put(std::move(v));
  }
  bool string(string_t& val) override {
    JVal v;
    v.type = JVal::Type::kString;
    v.text = val;
    return Put(std::move(v));
  }
  bool binary(binary_t&) override { return Put(JVal{}); }
  bool start_object(std::size_t) override {
    JVal v;
    v.type = JVal::Type::kObject;
    return Open(std::move(v));
  }
  bool key(string_t& val) override {
    // Strict like graph input (§4.1): a repeated name is refused, not
    // resolved to its last value.
    if (!member_names_.back().insert(val).second) {
      duplicate = val;
      return false;
    }
    pending_key_ = val;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override {
    JVal v;
    v.type = JVal::Type::kArray;
    return Open(std::move(v));
  }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) override {
    // ex.what() is "[json.exception.<kind>.<id>] parse error at line L,
    // column C: <what>" (number overflow has no position); keep only <what>,
    // ParseJson names the line and column for both.
    std::string what = ex.what();
    size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    size_t colon = what.find(": ");
    if (what.rfind("parse error", 0) == 0 && colon != std::string::npos) what = what.substr(colon + 2);
    error = utf8::ShortenQuotedToken(EscapeForDisplay(what));  // "last read" quotes raw input bytes
    // A syntax error stops at the offending character; a number overflow
    // (406) only after the whole token, so point back at its first digit.
    error_position = ex.id == 406 && last_token.size() <= position ? position - last_token.size() + 1 : position;
    return false;
  }
  size_t error_position = 0;  // 1-based offset of the offending character
  std::string duplicate;      // a member name repeated in one object

 private:
  // Adds a finished value to the innermost open container (or the root).
  bool Put(JVal v) {
    if (stack_.empty()) {
      root = std::move(v);
      return true;
    }
    JVal* top = stack_.back();
    if (top->type == JVal::Type::kArray) {
      top->items.push_back(std::move(v));
    } else {
      top->members.emplace_back(pending_key_, std::move(v));
    }
    return true;
  }
  bool Open(JVal v) {
    member_names_.emplace_back();
    if (stack_.empty()) {
      root = std::move(v);
      stack_.push_back(&root);
      return true;
    }
    JVal* top = stack_.back();
    JVal* slot;
    if (top->type == JVal::Type::kArray) {
      top->items.push_back(std::move(v));
      slot = &top->items.back();
    } else {
      top->members.emplace_back(pending_key_, std::move(v));
      slot = &top->members.back().second;
    }
    stack_.push_back(slot);
    return true;
  }
  bool Close() {
    stack_.pop_back();
    member_names_.pop_back();
    return true;
  }

  // Pointers stay valid: a container is only appended to while it is the
  // innermost open one, and its children are finished by then.
  std::vector<JVal*> stack_;
  std::vector<std::set<std::string>> member_names_;  // per open container
  std::string pending_key_;
};

Result<JVal> ParseJson(std::string_view text) {
  Builder builder;
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const std::exception& e) {
    return InvalidArgument(fmt::format("invalid params JSON: {}", e.what()));
  }
  if (!ok && !builder.duplicate.empty()) {
    return InvalidArgument(fmt::format("invalid params JSON: duplicate member '{}'", builder.duplicate));
  }
  if (!ok) {
    // `at` is 0-based and equals text.size() for an unexpected end of input.
    size_t at = builder.error_position > 0 ? builder.error_position - 1 : 0;
    size_t before = std::min(at, text.size());
    size_t newline = before == 0 ? std::string_view::npos : text.rfind('\n', before - 1);
    size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + line_start, '\n'));
    return InvalidArgument(
        fmt::format("invalid params JSON: line {}, column {}: {}", line, at - line_start + 1, builder.error));
  }
  return std::move(builder.root);
}

constexpr uint64_t kJsSafe = 9007199254740991ULL;

Status Fail(std::string_view name, std::string what) {
  return InvalidArgument(fmt::format("parameter '{}': {}", name, what));
}

// An exact integer from a JSON integer, a float token that is integral
// text, or a decimal string. Returns (negative, magnitude).
struct ExactInt {
  bool negative = false;
  uint64_t magnitude = 0;
  std::string text;
  bool overflow = false;  // beyond ±(2^64-1)
};

std::optional<ExactInt> ParseDecimal(std::string_view s) {
  ExactInt out;
  out.text = std::string(s);
  size_t p = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    out.negative = s[0] == '-';
    p = 1;
  }
  if (p >= s.size()) return std::nullopt;
  for (size_t i = p; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  }
  auto [ptr, ec] = std::from_chars(s.data() + p, s.data() + s.size(), out.magnitude);
  if (ec == std::errc::result_out_of_range) {
    out.overflow = true;
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  if (out.magnitude == 0) out.negative = false;
  return out;
}

Result<Scalar> ToInteger(std::string_view name, ScalarKind kind, const JVal& v, const BindOptions& options) {
  ExactInt n;
  if (v.type == JVal::Type::kInteger) {
    n.negative = v.negative;
    n.magnitude = v.u;
    n.text = v.NumberText();
    if (options.js_safe_integers && n.magnitude > kJsSafe) {
      return Fail(name, fmt::format("integer {} is beyond the JavaScript safe range; pass it as a decimal string",
                                    n.text));
    }
  } else if (v.type == JVal::Type::kFloat) {
    // Integers beyond 64 bits arrive as float tokens; integral text is still
    // an integer (reported as out of range), anything else is not.
    std::optional<ExactInt> parsed = ParseDecimal(v.text);
    if (!parsed) return Fail(name, fmt::format("expects an integer for {}, got {}", ScalarKindName(kind), v.text));
    n = *parsed;
  } else if (v.type == JVal::Type::kString) {
    std::optional<ExactInt> parsed = ParseDecimal(v.text);
    if (!parsed) {
      return Fail(name, fmt::format("expects an integer for {}, got \"{}\"", ScalarKindName(kind), v.text));
    }
    n = *parsed;
  } else {
    return Fail(name, fmt::format("expects an integer for {}, got {}", ScalarKindName(kind), v.TypeName()));
  }
  auto exceeds = [&]() { return Fail(name, fmt::format("value {} exceeds {}", n.text, ScalarKindName(kind))); };
  if (n.overflow) return exceeds();
  switch (kind) {
    case ScalarKind::kI32:
      if (n.negative ? n.magnitude > 2147483648ULL : n.magnitude > 2147483647ULL) return exceeds();
      break;
    case ScalarKind::kI64:
      if (n.negative ? n.magnitude > 9223372036854775808ULL : n.magnitude > 9223372036854775807ULL) return exceeds();
      break;
    case ScalarKind::kU32:
      if (n.negative || n.magnitude > 4294967295ULL) return exceeds();
      return Scalar::UInt(n.magnitude);
    case ScalarKind::kU64:
      if (n.negative) return exceeds();
      return Scalar::UInt(n.magnitude);
    default: break;
  }
  if (n.negative) return Scalar::Int(n.magnitude == 9223372036854775808ULL ? INT64_MIN : -static_cast<int64_t>(n.magnitude));
  return Scalar::Int(static_cast<int64_t>(n.magnitude));
}

Result<double> ToFloat(std::string_view name, ScalarKind kind, const JVal& v) {
  double d;
  if (v.type == JVal::Type::kInteger) {
    d = static_cast<double>(v.u);
    if (v.negative) d = -d;
  } else if (v.type == JVal::Type::kFloat) {
    d = v.d;
  } else {
    return Fail(name, fmt::format("expects a number for {}, got {}", ScalarKindName(kind), v.TypeName()));
  }
  if (!std::isfinite(d)) return Fail(name, fmt::format("value {} exceeds {}", v.NumberText(), ScalarKindName(kind)));
  if (kind == ScalarKind::kF32) {
    float f = static_cast<float>(d);
    if (!std::isfinite(f)) return Fail(name, fmt::format("value {} exceeds F32", v.NumberText()));
    d = static_cast<double>(f);
  }
  return d;
}

Result<Scalar> ToScalar(std::string_view name, ScalarKind kind, const JVal& v, const BindOptions& options) {
  switch (kind) {
    case ScalarKind::kString:
    case ScalarKind::kBlob:
      if (v.type != JVal::Type::kString) {
        return Fail(name, fmt::format("expects {}, got {}", ScalarKindName(kind), v.TypeName()));
      }
      return Scalar::String(v.text);
    case ScalarKind::kBool:
      if (v.type != JVal::Type::kBool) return Fail(name, fmt::format("expects Bool, got {}", v.TypeName()));
      return Scalar::Bool(v.b);
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64: return ToInteger(name, kind, v, options);
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      OG_ASSIGN_OR_RETURN(double d, ToFloat(name, kind, v));
      return Scalar::Double(d);
    }
    case ScalarKind::kDate: {
      if (v.type == JVal::Type::kString) {
        std::optional<int32_t> days = ParseDate(v.text);
        if (!days) return Fail(name, fmt::format("invalid Date literal '{}'", v.text));
        return Scalar::Int(*days);
      }
      if (v.type == JVal::Type::kInteger) {
        OG_ASSIGN_OR_RETURN(Scalar d, ToInteger(name, ScalarKind::kI32, v, options));
        return d;
      }
      return Fail(name, fmt::format("expects a Date string, got {}", v.TypeName()));
    }
    case ScalarKind::kDateTime: {
      if (v.type == JVal::Type::kString) {
        std::optional<int64_t> ms = ParseDateTime(v.text);
        if (!ms) return Fail(name, fmt::format("invalid DateTime literal '{}'", v.text));
        return Scalar::Int(*ms);
      }
      if (v.type == JVal::Type::kInteger) return ToInteger(name, ScalarKind::kI64, v, options);
      return Fail(name, fmt::format("expects a DateTime string, got {}", v.TypeName()));
    }
  }
  return Internal("unreachable");
}

Result<Scalar> ToValue(std::string_view name, const PropertyType& type, const JVal& v, const BindOptions& options) {
  if (v.type == JVal::Type::kNull) {
    if (type.nullable) return Scalar::Null();
    return Fail(name, fmt::format("null is not allowed for non-nullable type {}", type.ToString()));
  }
  switch (type.shape) {
    case PropertyType::Shape::kScalar: return ToScalar(name, type.scalar, v, options);
    case PropertyType::Shape::kEnum: return ToScalar(name, ScalarKind::kString, v, options);
    case PropertyType::Shape::kList: {
      if (v.type != JVal::Type::kArray) return Fail(name, fmt::format("expects an array, got {}", v.TypeName()));
      Scalar::List items;
      for (const JVal& item : v.items) {
        if (item.type == JVal::Type::kNull) return Fail(name, "list elements must not be null");
        OG_ASSIGN_OR_RETURN(Scalar s, ToScalar(name, type.scalar, item, options));
        items.push_back(std::move(s));
      }
      return Scalar::Nested(std::move(items));
    }
    case PropertyType::Shape::kVector: {
      if (v.type != JVal::Type::kArray) return Fail(name, fmt::format("expects an array, got {}", v.TypeName()));
      if (v.items.size() != static_cast<size_t>(type.vector_dim)) {
        return Fail(name, fmt::format("expects {} dimensions, got {}", type.vector_dim, v.items.size()));
      }
      Scalar::List items;
      for (const JVal& item : v.items) {
        OG_ASSIGN_OR_RETURN(double d, ToFloat(name, ScalarKind::kF32, item));
        items.push_back(Scalar::Double(d));
      }
      return Scalar::Nested(std::move(items));
    }
  }
  return Internal("unreachable");
}

}  // namespace

Result<Scalar> ConvertParamValue(std::string_view name, const PropertyType& type, std::string_view value_json,
                                 const BindOptions& options) {
  OG_ASSIGN_OR_RETURN(JVal v, ParseJson(value_json));
  return ToValue(name, type, v, options);
}

Result<ParamMap> BindParams(const ir::QueryIR& query, std::string_view params_json, const BindOptions& options) {
  bool blank = std::all_of(params_json.begin(), params_json.end(),
                           [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
  JVal root;
  if (blank) {
    root.type = JVal::Type::kObject;
  } else {
    OG_ASSIGN_OR_RETURN(root, ParseJson(params_json));
  }
  if (root.type != JVal::Type::kObject) return InvalidArgument("params must be a JSON object");
  auto lookup = [&](std::string_view key) -> const JVal* {
    const JVal* found = nullptr;
    for (const auto& [k, v] : root.members) {
      if (k == key) found = &v;  // the last duplicate wins, as in most JSON readers
    }
    return found;
  };
  ParamMap out;
  for (const ir::ParamDecl& p : query.params) {
    const JVal* v = lookup(p.name);
    if (!v) {
      if (p.type.nullable) {
        out[p.name] = ParamValue{p.type, Scalar::Null()};
      } else if (p.used) {
        return InvalidArgument(fmt::format("parameter '{}' not provided", p.name));
      }
      continue;
    }
    OG_ASSIGN_OR_RETURN(Scalar s, ToValue(p.name, p.type, *v, options));
    out[p.name] = ParamValue{p.type, std::move(s)};
  }
  if (query.uses_now) {
    const PropertyType dt = PropertyType::Scalar(ScalarKind::kDateTime);
    const std::string now_name(ir::kNowParam);
    if (const JVal* v = options.now_ms ? nullptr : lookup(now_name)) {
      OG_ASSIGN_OR_RETURN(Scalar s, ToValue(now_name, dt, *v, options));
      out[now_name] = ParamValue{dt, std::move(s)};
    } else {
      int64_t ms = options.now_ms ? *options.now_ms
                                  : std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
      out[now_name] = ParamValue{dt, Scalar::Int(ms)};
    }
  }
  return out;
}

}  // namespace omnigraph::compiler
