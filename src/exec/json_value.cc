#include "exec/json_value.h"

#include "compiler/source.h"
#include "compiler/temporal.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace omnigraph::exec {

using Json = nlohmann::ordered_json;

// A node of a parsed document. Values handed out by Get/Members/Elements
// share the document instead of copying subtrees.
struct JsonValue::Impl {
  std::shared_ptr<const Json> document;
  const Json* node = nullptr;
  const Json& value() const { return *node; }
};

namespace {
const Json& NullJson() {
  static const Json* null = new Json();
  return *null;
}
}  // namespace

namespace {

// Member names of one open object. Objects in graph lines have a handful
// of members, so a linear scan of a reused vector avoids a node allocation
// per name; objects beyond kLinearMembers switch to a set to stay
// O(n log n) on hostile input.
class MemberNames {
 public:
  void Clear() {
    linear_.clear();
    large_.clear();
  }
  // False when `name` was already inserted.
  bool Insert(const std::string& name) {
    if (!large_.empty()) return large_.insert(name).second;
    for (const std::string& seen : linear_) {
      if (seen == name) return false;
    }
    if (linear_.size() < kLinearMembers) {
      linear_.push_back(name);
      return true;
    }
    large_.insert(linear_.begin(), linear_.end());
    linear_.clear();
    return large_.insert(name).second;
  }

 private:
  static constexpr size_t kLinearMembers = 32;
  std::vector<std::string> linear_;
  std::set<std::string> large_;
};

// Counts { } [ ] , : outside string literals.
size_t CountStructuralTokens(std::string_view text) {
  size_t count = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '{': case '}': case '[': case ']': case ',': case ':': ++count; break;
      default: break;
    }
  }
  return count;
}

// Accepts every event and remembers where parsing stopped: used only after
// a failed parse whose exception carries no position (number overflow).
class ErrorLocator : public nlohmann::json_sax<Json> {
 public:
  size_t position = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t at, const std::string& last_token, const nlohmann::detail::exception& ex) override {
    // A number overflow (406) is reported after the whole token: point back
    // at its first character.
    position = ex.id == 406 && last_token.size() <= at ? at - last_token.size() + 1 : at;
    return false;
  }
};

std::string_view PhysicalName(compiler::ScalarKind kind) {
  switch (kind) {
    case compiler::ScalarKind::kString: return "Utf8";
    case compiler::ScalarKind::kBool: return "Boolean";
    case compiler::ScalarKind::kI32: return "Int32";
    case compiler::ScalarKind::kI64: return "Int64";
    case compiler::ScalarKind::kU32: return "UInt32";
    case compiler::ScalarKind::kU64: return "UInt64";
    case compiler::ScalarKind::kF32: return "Float32";
    case compiler::ScalarKind::kF64: return "Float64";
    case compiler::ScalarKind::kDate: return "Date32";
    case compiler::ScalarKind::kDateTime: return "Date64";
    case compiler::ScalarKind::kBlob: return "LargeBinary";
  }
  return "?";
}

// JSON text of a value for an error message, cut after kMaxEchoBytes so a
// huge nested value does not become a huge message.
constexpr size_t kMaxEchoBytes = 120;
std::string Echo(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() <= kMaxEchoBytes) return text;
  size_t cut = kMaxEchoBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return text.substr(0, cut) + fmt::format("… ({} bytes)", text.size());
}

Status TypeMismatch(std::string_view property, std::string_view expected, const Json& got) {
  return InvalidArgument(fmt::format("strict property '{}' expects {}, got {}", property, expected, Echo(got)));
}

template <typename T>
Status AppendInteger(const Json& v, std::string_view property, std::string_view physical, ArrayBuilder* builder) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) return TypeMismatch(property, physical, v);
  bool fits;
  T converted{};
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    fits = u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    converted = static_cast<T>(u);
  } else {
    int64_t i = v.get<int64_t>();
    fits = i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           (i < 0 || static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
    converted = static_cast<T>(i);
  }
  if (!fits) return InvalidArgument(fmt::format("property '{}' value {} exceeds {} range", property, v.dump(), physical));
  static_cast<NumericBuilder<T>*>(builder)->Append(converted);
  return Status::OK();
}

Status AppendScalarValue(const Json& v, compiler::ScalarKind kind, std::string_view property, ArrayBuilder* builder) {
  using compiler::ScalarKind;
  std::string_view physical = PhysicalName(kind);
  switch (kind) {
    case ScalarKind::kString:
      if (!v.is_string()) return TypeMismatch(property, physical, v);
      static_cast<BinaryBuilder*>(builder)->Append(v.get_ref<const std::string&>());
      return Status::OK();
    case ScalarKind::kBool:
      if (!v.is_boolean()) return TypeMismatch(property, physical, v);
      static_cast<BoolBuilder*>(builder)->Append(v.get<bool>());
      return Status::OK();
    case ScalarKind::kI32: return AppendInteger<int32_t>(v, property, physical, builder);
    case ScalarKind::kI64: return AppendInteger<int64_t>(v, property, physical, builder);
    case ScalarKind::kU32: return AppendInteger<uint32_t>(v, property, physical, builder);
    case ScalarKind::kU64: return AppendInteger<uint64_t>(v, property, physical, builder);
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      if (!v.is_number()) return TypeMismatch(property, physical, v);
      double d = v.get<double>();
      if (!std::isfinite(d)) return InvalidArgument(fmt::format("property '{}' value {} is not finite", property, v.dump()));
      if (kind == ScalarKind::kF32) {
        float f = static_cast<float>(d);
        if (!std::isfinite(f)) {
          return InvalidArgument(fmt::format("property '{}' value {} exceeds Float32 range", property, v.dump()));
        }
        static_cast<Float32Builder*>(builder)->Append(f);
      } else {
        static_cast<Float64Builder*>(builder)->Append(d);
      }
      return Status::OK();
    }
    case ScalarKind::kDate: {
      if (v.is_number_integer() || v.is_number_unsigned()) {
        return AppendInteger<int32_t>(v, property, physical, builder);
      }
      if (!v.is_string()) return TypeMismatch(property, physical, v);
      auto days = compiler::ParseDate(v.get_ref<const std::string&>());
      if (!days) return InvalidArgument(fmt::format("property '{}': invalid Date literal {}", property, Echo(v)));
      static_cast<Int32Builder*>(builder)->Append(*days);
      return Status::OK();
    }
    case ScalarKind::kDateTime: {
      if (v.is_number_integer() || v.is_number_unsigned()) {
        return AppendInteger<int64_t>(v, property, physical, builder);
      }
      if (!v.is_string()) return TypeMismatch(property, physical, v);
      auto ms = compiler::ParseDateTime(v.get_ref<const std::string&>());
      if (!ms) return InvalidArgument(fmt::format("property '{}': invalid DateTime literal {}", property, Echo(v)));
      static_cast<Int64Builder*>(builder)->Append(*ms);
      return Status::OK();
    }
    case ScalarKind::kBlob: {
      if (!v.is_string()) {
        return InvalidArgument(
            fmt::format("blob property '{}' must be a URI string or base64: prefixed data", property));
      }
      const std::string& text = v.get_ref<const std::string&>();
      constexpr std::string_view kPrefix = "base64:";
      if (text.rfind(kPrefix, 0) != 0) {
        return InvalidArgument(fmt::format(
            "blob property '{}': external Blob URIs are denied by the graph's ExternalBlobPolicy (use base64: data)",
            property));
      }
      std::string decoded;
      if (!DecodeBase64(std::string_view(text).substr(kPrefix.size()), &decoded)) {
        return InvalidArgument(fmt::format("blob property '{}': invalid base64 blob data", property));
      }
      static_cast<BinaryBuilder*>(builder)->Append(decoded);
      return Status::OK();
    }
  }
  return Internal("unknown scalar kind");
}

}  // namespace

bool DecodeBase64(std::string_view text, std::string* out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return false;
  out->clear();
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        if (pad > 0) return false;
        v[k] = value(c);
        if (v[k] < 0) return false;
      }
    }
    uint32_t triple = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out->push_back(static_cast<char>(triple >> 16));
    if (pad < 2) out->push_back(static_cast<char>((triple >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(triple & 0xff));
  }
  return true;
}

JsonValue::JsonValue() : impl_(std::make_unique<Impl>(Impl{nullptr, &NullJson()})) {}
JsonValue::~JsonValue() = default;
JsonValue::JsonValue(JsonValue&&) noexcept = default;
JsonValue& JsonValue::operator=(JsonValue&&) noexcept = default;
JsonValue::JsonValue(const JsonValue& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
JsonValue& JsonValue::operator=(const JsonValue& other) {
  impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}

Result<JsonValue> JsonValue::ParseLine(std::string_view line) {
  size_t tokens = CountStructuralTokens(line);
  if (tokens > kMaxStructuralTokens) {
    return ResourceLimitExceeded("graph_batch_json_structural_slots", kMaxStructuralTokens, tokens);
  }
  // Track member names per open object to reject duplicates at any depth.
  std::vector<MemberNames> open_objects;
  size_t depth = 0;
  std::string duplicate;
  Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        if (open_objects.size() <= depth) open_objects.emplace_back();
        open_objects[depth++].Clear();
        break;
      case Json::parse_event_t::object_end:
        if (depth > 0) --depth;
        break;
      case Json::parse_event_t::key:
        if (depth > 0 && !open_objects[depth - 1].Insert(parsed.get_ref<const std::string&>()) &&
            duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default: break;
    }
    return true;
  };
  JsonValue out;
  try {
    auto document = std::make_shared<Json>(Json::parse(line.begin(), line.end(), callback));
    out.impl_->node = document.get();
    out.impl_->document = std::move(document);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column N:
    // <what>": keep <what> whole (it may itself hold ": ", as in "last
    // read: '…'"), and keep the message valid UTF-8.
    std::string what = e.what();
    size_t prefix = what.find(", column ");
    size_t colon = prefix == std::string::npos ? std::string::npos : what.find(": ", prefix);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return InvalidArgument(fmt::format("invalid JSON at column {}: {}", e.byte, compiler::EscapeInvalidUtf8(what)));
  } catch (const nlohmann::json::exception& e) {
    // Number overflow (1e400) and other value errors: the exception has no
    // position, so a second, event-free pass finds where parsing stopped.
    std::string what = e.what();
    size_t bracket = what.find("] ");
    ErrorLocator locator;
    Json::sax_parse(line.begin(), line.end(), &locator, nlohmann::json::input_format_t::json, false);
    return InvalidArgument(fmt::format("invalid JSON at column {}: {}", locator.position,
                                       bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  if (!duplicate.empty()) return InvalidArgument(fmt::format("duplicate JSON member '{}'", duplicate));
  return out;
}

bool JsonValue::is_null() const { return impl_->value().is_null(); }
bool JsonValue::is_object() const { return impl_->value().is_object(); }
bool JsonValue::is_string() const { return impl_->value().is_string(); }
bool JsonValue::is_array() const { return impl_->value().is_array(); }
bool JsonValue::is_bool() const { return impl_->value().is_boolean(); }
bool JsonValue::is_number() const { return impl_->value().is_number(); }
bool JsonValue::is_integer() const { return impl_->value().is_number_integer() || impl_->value().is_number_unsigned(); }
const std::string& JsonValue::string() const { return impl_->value().get_ref<const std::string&>(); }
std::string JsonValue::Dump() const { return impl_->value().dump(); }

JsonValue JsonValue::Child(const void* node) const {
  JsonValue v;
  v.impl_->document = impl_->document;
  v.impl_->node = static_cast<const Json*>(node);
  return v;
}

std::vector<std::pair<std::string, JsonValue>> JsonValue::Members() const {
  std::vector<std::pair<std::string, JsonValue>> out;
  const Json& value = impl_->value();
  for (auto it = value.begin(); it != value.end(); ++it) out.emplace_back(it.key(), Child(&it.value()));
  return out;
}

std::optional<JsonValue> JsonValue::Get(std::string_view key) const {
  const Json& value = impl_->value();
  if (!value.is_object()) return std::nullopt;
  // ordered_json keeps members in a vector; lines hold a handful of them.
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it.key() == key) return Child(&it.value());
  }
  return std::nullopt;
}

std::vector<JsonValue> JsonValue::Elements() const {
  std::vector<JsonValue> out;
  for (const Json& element : impl_->value()) out.push_back(Child(&element));
  return out;
}

Status AppendJsonProperty(const JsonValue& value, const compiler::PropertyType& type, std::string_view property,
                          ArrayBuilder* builder) {
  const Json& v = value.impl().value();
  if (v.is_null()) {
    if (!type.nullable) {
      return InvalidArgument(fmt::format("non-nullable property '{}' has null or invalid values", property));
    }
    builder->AppendNull();
    return Status::OK();
  }
  if (v.is_number_float() && !std::isfinite(v.get<double>())) {
    return InvalidArgument(fmt::format("property '{}' value is not a finite number", property));
  }
  switch (type.shape) {
    case compiler::PropertyType::Shape::kScalar:
    case compiler::PropertyType::Shape::kEnum:
      return AppendScalarValue(v, type.scalar, property, builder);
    case compiler::PropertyType::Shape::kList: {
      if (!v.is_array()) return TypeMismatch(property, fmt::format("a list of {}", PhysicalName(type.scalar)), v);
      auto* list = static_cast<ListBuilder*>(builder);
      list->Append();
      for (const Json& item : v) {
        if (item.is_null()) {
          return InvalidArgument(fmt::format("strict list property '{}' contains a null or invalid item", property));
        }
        Status st = AppendScalarValue(item, type.scalar, property, list->child());
        if (!st.ok()) {
          return InvalidArgument(fmt::format("strict list property '{}' contains a null or invalid item", property));
        }
      }
      return Status::OK();
    }
    case compiler::PropertyType::Shape::kVector: {
      if (!v.is_array()) return TypeMismatch(property, fmt::format("Vector({})", type.vector_dim), v);
      if (static_cast<int64_t>(v.size()) != type.vector_dim) {
        return InvalidArgument(fmt::format("vector property '{}' expects {} dimensions, got {}", property,
                                           type.vector_dim, v.size()));
      }
      auto* fsl = static_cast<FixedSizeListBuilder*>(builder);
      std::vector<float> values;
      values.reserve(v.size());
      for (const Json& item : v) {
        if (!item.is_number() || !std::isfinite(item.get<double>()) ||
            !std::isfinite(static_cast<float>(item.get<double>()))) {
          return InvalidArgument(fmt::format("vector property '{}' holds a non-numeric or non-finite element", property));
        }
        values.push_back(static_cast<float>(item.get<double>()));
      }
      fsl->AppendFloats(values.data());
      return Status::OK();
    }
  }
  return Internal("unknown property shape");
}

}  // namespace omnigraph::exec
