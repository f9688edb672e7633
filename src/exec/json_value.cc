#include "exec/json_value.h"

#include "exec/blob_value.h"

#include "compiler/source.h"
#include "compiler/temporal.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace omnigraph::exec {

using Json = nlohmann::ordered_json;

struct JsonValue::Node {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kDouble, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;            // kInt
  uint64_t unsigned_integer = 0;  // kUInt
  double number = 0;              // kDouble
  uint32_t text_begin = 0;        // kString: the value's bytes in the document's arena
  uint32_t text_size = 0;         // (also the spelling of an integer_literal)
  // A kDouble written as an integer too large for 64 bits: parsers keep it
  // as a double, but messages must speak of its range, not its type.
  bool integer_literal = false;
  uint32_t key_begin = 0;  // a member of an object: its name's bytes in the arena
  uint32_t key_size = 0;
  uint32_t first = 0;  // kArray / kObject: children are links[first, first + count)
  uint32_t count = 0;

  bool is_integer() const { return kind == Kind::kInt || kind == Kind::kUInt; }
  bool is_number() const { return is_integer() || kind == Kind::kDouble; }
  double AsDouble() const {
    return kind == Kind::kInt ? static_cast<double>(integer)
           : kind == Kind::kUInt ? static_cast<double>(unsigned_integer)
                                 : number;
  }
};

// Nodes in document order (node 0 is the line's value); every string and
// member name lives in one arena, so nodes are plain values.
struct JsonValue::Document {
  std::vector<Node> nodes;
  std::vector<uint32_t> links;
  std::string arena;

  // Appends `bytes` to the arena; returns where they start.
  uint32_t Store(std::string_view bytes) {
    const uint32_t begin = static_cast<uint32_t>(arena.size());
    arena.append(bytes);
    return begin;
  }
  std::string_view Text(const Node& n) const { return std::string_view(arena).substr(n.text_begin, n.text_size); }
  std::string_view Key(const Node& n) const { return std::string_view(arena).substr(n.key_begin, n.key_size); }
};

using Node = JsonValue::Node;
using Kind = JsonValue::Node::Kind;
using Document = JsonValue::Document;

namespace {

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

// Collects the spelling of every floating-point number of a valid line.
class FloatSpellings : public ErrorLocator {
 public:
  std::vector<std::string> spellings;
  bool number_float(number_float_t, const string_t& spelling) override {
    spellings.push_back(spelling);
    return true;
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

// JSON text of a value for an error message, shortened.
std::string Echo(const JsonValue& value) { return ShortenForMessage(value.Dump()); }

Status TypeMismatch(std::string_view property, std::string_view expected, const JsonValue& got) {
  return InvalidArgument(fmt::format("strict property '{}' expects {}, got {}", property, expected, Echo(got)));
}

template <typename T>
Status AppendInteger(const JsonValue& value, std::string_view property, std::string_view physical,
                     ArrayBuilder* builder) {
  const Node& v = value.node();
  if (v.integer_literal) {
    return InvalidArgument(fmt::format("property '{}' value {} exceeds {} range", property,
                                       ShortenForMessage(value.string()), physical));
  }
  if (!v.is_integer()) return TypeMismatch(property, physical, value);
  bool fits;
  T converted{};
  if (v.kind == Kind::kUInt) {
    uint64_t u = v.unsigned_integer;
    fits = u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    converted = static_cast<T>(u);
  } else {
    int64_t i = v.integer;
    fits = i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           (i < 0 || static_cast<uint64_t>(i) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
    converted = static_cast<T>(i);
  }
  if (!fits) {
    return InvalidArgument(fmt::format("property '{}' value {} exceeds {} range", property, value.Dump(), physical));
  }
  static_cast<NumericBuilder<T>*>(builder)->Append(converted);
  return Status::OK();
}

Status AppendScalarValue(const JsonValue& value, compiler::ScalarKind kind, std::string_view property,
                         ArrayBuilder* builder, BlobInput* blobs) {
  using compiler::ScalarKind;
  const Node& v = value.node();
  std::string_view physical = PhysicalName(kind);
  switch (kind) {
    case ScalarKind::kString:
      if (v.kind != Kind::kString) return TypeMismatch(property, physical, value);
      static_cast<BinaryBuilder*>(builder)->Append(value.string());
      return Status::OK();
    case ScalarKind::kBool:
      if (v.kind != Kind::kBool) return TypeMismatch(property, physical, value);
      static_cast<BoolBuilder*>(builder)->Append(v.boolean);
      return Status::OK();
    case ScalarKind::kI32: return AppendInteger<int32_t>(value, property, physical, builder);
    case ScalarKind::kI64: return AppendInteger<int64_t>(value, property, physical, builder);
    case ScalarKind::kU32: return AppendInteger<uint32_t>(value, property, physical, builder);
    case ScalarKind::kU64: return AppendInteger<uint64_t>(value, property, physical, builder);
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      if (!v.is_number()) return TypeMismatch(property, physical, value);
      double d = v.AsDouble();
      if (!std::isfinite(d)) {
        return InvalidArgument(fmt::format("property '{}' value {} is not finite", property, value.Dump()));
      }
      if (kind == ScalarKind::kF32) {
        float f = static_cast<float>(d);
        if (!std::isfinite(f)) {
          return InvalidArgument(fmt::format("property '{}' value {} exceeds Float32 range", property, value.Dump()));
        }
        static_cast<Float32Builder*>(builder)->Append(f);
      } else {
        static_cast<Float64Builder*>(builder)->Append(d);
      }
      return Status::OK();
    }
    case ScalarKind::kDate: {
      if (v.is_integer()) {
        return AppendInteger<int32_t>(value, property, physical, builder);
      }
      if (v.kind != Kind::kString) return TypeMismatch(property, physical, value);
      auto days = compiler::ParseDate(value.string());
      if (!days) return InvalidArgument(fmt::format("property '{}': invalid Date literal {}", property, Echo(value)));
      static_cast<Int32Builder*>(builder)->Append(*days);
      return Status::OK();
    }
    case ScalarKind::kDateTime: {
      if (v.is_integer()) {
        return AppendInteger<int64_t>(value, property, physical, builder);
      }
      if (v.kind != Kind::kString) return TypeMismatch(property, physical, value);
      auto ms = compiler::ParseDateTime(value.string());
      if (!ms) return InvalidArgument(fmt::format("property '{}': invalid DateTime literal {}", property, Echo(value)));
      static_cast<Int64Builder*>(builder)->Append(*ms);
      return Status::OK();
    }
    case ScalarKind::kBlob: {
      if (v.kind != Kind::kString) {
        return InvalidArgument(
            fmt::format("blob property '{}' must be a URI string or base64: prefixed data", property));
      }
      BlobInput deny(DenyExternalBlobs());
      OG_ASSIGN_OR_RETURN(std::string cell, (blobs ? blobs : &deny)->CellOf(value.string(), property));
      static_cast<BinaryBuilder*>(builder)->Append(cell);
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
    // Canonical form: the bits after the last whole byte are zero, so a
    // byte string has exactly one spelling (QR== is not A).
    if ((pad == 2 && (v[1] & 0x0f) != 0) || (pad == 1 && (v[2] & 0x03) != 0)) return false;
    uint32_t triple = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out->push_back(static_cast<char>(triple >> 16));
    if (pad < 2) out->push_back(static_cast<char>((triple >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(triple & 0xff));
  }
  return true;
}

namespace {

// Builds a Document from a parsed tree, rejecting duplicate members at any
// depth (the first in document order is reported, as a streaming parser
// would) and nesting deeper than kMaxJsonDepth. `Tree` adapts the parser.
template <typename Tree>
class DocumentBuilder {
 public:
  using Element = typename Tree::Element;

  explicit DocumentBuilder(Tree tree = Tree()) : tree_(std::move(tree)) {}

  Status Build(const Element& root, Document* doc) {
    doc_ = doc;
    doc_->nodes.reserve(8);
    doc_->links.reserve(8);
    Add(root, 1);
    if (too_deep_) return InvalidArgument(fmt::format("JSON nesting deeper than {} levels", kMaxJsonDepth));
    if (!duplicate_.empty()) return InvalidArgument(fmt::format("duplicate JSON member '{}'", ShortenForMessage(duplicate_)));
    return Status::OK();
  }

 private:
  // Adds `e` and its subtree; returns its node index. Children collect on
  // one stack shared by every level, so converting allocates nothing per
  // container.
  uint32_t Add(const Element& e, size_t depth) {
    const uint32_t index = static_cast<uint32_t>(doc_->nodes.size());
    doc_->nodes.emplace_back();
    tree_.Fill(e, &doc_->nodes.back(), doc_);
    const Kind kind = doc_->nodes.back().kind;
    if (kind != Kind::kArray && kind != Kind::kObject) return index;
    if (depth >= kMaxJsonDepth) {
      too_deep_ = true;
      return index;
    }
    const size_t base = children_.size();
    if (kind == Kind::kArray) {
      Tree::ForEachElement(e, [&](const Element& child) {
        if (!too_deep_) children_.push_back(Add(child, depth + 1));
      });
    } else {
      std::set<std::string_view> large;  // names, once the object is large
      Tree::ForEachMember(e, [&](std::string_view key, const Element& child) {
        if (too_deep_) return;
        if (!IsNewMember(key, base, &large) && duplicate_.empty()) duplicate_ = std::string(key);
        const uint32_t member = Add(child, depth + 1);
        Node& named = doc_->nodes[member];
        named.key_size = static_cast<uint32_t>(key.size());
        named.key_begin = doc_->Store(key);
        children_.push_back(member);
      });
    }
    Node& node = doc_->nodes[index];
    node.first = static_cast<uint32_t>(doc_->links.size());
    node.count = static_cast<uint32_t>(children_.size() - base);
    doc_->links.insert(doc_->links.end(), children_.begin() + static_cast<std::ptrdiff_t>(base), children_.end());
    children_.resize(base);
    return index;
  }

  // Whether `key` differs from the names of the members added since
  // `base`. Objects in graph lines have a handful of members, so a scan of
  // the siblings beats any set; beyond kLinearMembers names move to
  // `large` to stay O(n log n) on hostile input.
  bool IsNewMember(std::string_view key, size_t base, std::set<std::string_view>* large) const {
    static constexpr size_t kLinearMembers = 32;
    const size_t members = children_.size() - base;
    if (members < kLinearMembers) {
      for (size_t k = base; k < children_.size(); ++k) {
        if (doc_->Key(doc_->nodes[children_[k]]) == key) return false;
      }
      return true;
    }
    if (large->empty()) {
      for (size_t k = base; k < children_.size(); ++k) large->insert(doc_->Key(doc_->nodes[children_[k]]));
    }
    return large->insert(key).second;
  }

  Tree tree_;
  Document* doc_ = nullptr;
  std::vector<uint32_t> children_;  // children of the containers being added
  std::string duplicate_;
  bool too_deep_ = false;
};

void StoreText(std::string_view text, Node* node, Document* doc) {
  node->text_size = static_cast<uint32_t>(text.size());
  node->text_begin = doc->Store(text);
}

// simdjson's DOM: the fast path for every valid line.
struct SimdjsonTree {
  using Element = simdjson::dom::element;

  // Types are those e.type() reported, so the typed conversions never throw.
  static void Fill(const Element& e, Node* node, Document* doc) {
    switch (e.type()) {
      case simdjson::dom::element_type::ARRAY: node->kind = Kind::kArray; break;
      case simdjson::dom::element_type::OBJECT: node->kind = Kind::kObject; break;
      case simdjson::dom::element_type::INT64:
        node->kind = Kind::kInt;
        node->integer = int64_t(e);
        break;
      case simdjson::dom::element_type::UINT64:
        node->kind = Kind::kUInt;
        node->unsigned_integer = uint64_t(e);
        break;
      case simdjson::dom::element_type::DOUBLE:
        node->kind = Kind::kDouble;
        node->number = double(e);
        break;
      case simdjson::dom::element_type::STRING:
        node->kind = Kind::kString;
        StoreText(std::string_view(e), node, doc);
        break;
      case simdjson::dom::element_type::BOOL:
        node->kind = Kind::kBool;
        node->boolean = bool(e);
        break;
      case simdjson::dom::element_type::NULL_VALUE: node->kind = Kind::kNull; break;
    }
  }
  template <typename F>
  static void ForEachElement(const Element& e, F f) {
    simdjson::dom::array array;
    if (e.get_array().get(array) != simdjson::SUCCESS) return;
    for (Element child : array) f(child);
  }
  template <typename F>
  static void ForEachMember(const Element& e, F f) {
    simdjson::dom::object object;
    if (e.get_object().get(object) != simdjson::SUCCESS) return;
    for (simdjson::dom::key_value_pair member : object) f(member.key, member.value);
  }
};

// nlohmann's tree: only for lines simdjson refuses, so that errors keep
// their established wording and positions.
struct NlohmannTree {
  using Element = Json;

  // Spellings of the line's floating-point numbers in document order, the
  // order Fill sees them (FloatSpellings).
  std::vector<std::string> float_spellings;
  size_t next_float = 0;

  void Fill(const Json& e, Node* node, Document* doc) {
    switch (e.type()) {
      case Json::value_t::array: node->kind = Kind::kArray; break;
      case Json::value_t::object: node->kind = Kind::kObject; break;
      case Json::value_t::number_integer:
        node->kind = Kind::kInt;
        node->integer = e.get<int64_t>();
        break;
      case Json::value_t::number_unsigned:
        node->kind = Kind::kUInt;
        node->unsigned_integer = e.get<uint64_t>();
        break;
      case Json::value_t::number_float: {
        node->kind = Kind::kDouble;
        node->number = e.get<double>();
        if (next_float >= float_spellings.size()) break;
        const std::string& spelling = float_spellings[next_float++];
        if (spelling.find_first_of(".eE") == std::string::npos) {
          node->integer_literal = true;
          StoreText(spelling, node, doc);
        }
        break;
      }
      case Json::value_t::string:
        node->kind = Kind::kString;
        StoreText(e.get_ref<const std::string&>(), node, doc);
        break;
      case Json::value_t::boolean:
        node->kind = Kind::kBool;
        node->boolean = e.get<bool>();
        break;
      default: node->kind = Kind::kNull; break;
    }
  }
  template <typename F>
  static void ForEachElement(const Json& e, F f) {
    for (const Json& child : e) f(child);
  }
  template <typename F>
  static void ForEachMember(const Json& e, F f) {
    for (auto it = e.begin(); it != e.end(); ++it) f(std::string_view(it.key()), it.value());
  }
};

// The slow path: parses `line` with nlohmann, which names the column and
// cause of any error. Its tree keeps only the last of two equal members, so
// duplicates are caught while it parses.
Result<std::shared_ptr<Document>> ParseWithNlohmann(std::string_view line) {
  std::vector<std::set<std::string>> open_objects;  // member names per open object
  std::string duplicate;
  Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start: open_objects.emplace_back(); break;
      case Json::parse_event_t::object_end:
        if (!open_objects.empty()) open_objects.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open_objects.empty() && !open_objects.back().insert(parsed.get<std::string>()).second &&
            duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        break;
      default: break;
    }
    return true;
  };
  Json parsed;
  try {
    parsed = Json::parse(line.begin(), line.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column N:
    // <what>": keep <what> whole (it may itself hold ": ", as in "last
    // read: '…'"), and keep the message valid UTF-8.
    std::string what = e.what();
    size_t prefix = what.find(", column ");
    size_t colon = prefix == std::string::npos ? std::string::npos : what.find(": ", prefix);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return InvalidArgument(
        fmt::format("invalid JSON at column {}: {}", e.byte, utf8::ShortenQuotedToken(compiler::EscapeForDisplay(what))));
  } catch (const nlohmann::json::exception& e) {
    // Number overflow (1e400) and other value errors: the exception has no
    // position, so a second, event-free pass finds where parsing stopped.
    std::string what = e.what();
    size_t bracket = what.find("] ");
    ErrorLocator locator;
    Json::sax_parse(line.begin(), line.end(), &locator, nlohmann::json::input_format_t::json, false);
    return InvalidArgument(fmt::format("invalid JSON at column {}: {}", locator.position,
                                       utf8::ShortenQuotedToken(bracket == std::string::npos ? what : what.substr(bracket + 2))));
  }
  if (!duplicate.empty()) {
    return InvalidArgument(fmt::format("duplicate JSON member '{}'", ShortenForMessage(duplicate)));
  }
  FloatSpellings floats;
  Json::sax_parse(line.begin(), line.end(), &floats, nlohmann::json::input_format_t::json, false);
  auto doc = std::make_shared<Document>();
  OG_RETURN_IF_ERROR(DocumentBuilder<NlohmannTree>(NlohmannTree{std::move(floats.spellings)}).Build(parsed, doc.get()));
  return doc;
}

// The nlohmann value of node `index`, for its JSON spelling.
Json ToNlohmann(const Document& doc, uint32_t index) {
  const Node& node = doc.nodes[index];
  switch (node.kind) {
    case Kind::kNull: return nullptr;
    case Kind::kBool: return node.boolean;
    case Kind::kInt: return node.integer;
    case Kind::kUInt: return node.unsigned_integer;
    case Kind::kDouble: return node.number;
    case Kind::kString: return std::string(doc.Text(node));
    case Kind::kArray: {
      Json out = Json::array();
      for (uint32_t k = 0; k < node.count; ++k) out.push_back(ToNlohmann(doc, doc.links[node.first + k]));
      return out;
    }
    case Kind::kObject: {
      Json out = Json::object();
      for (uint32_t k = 0; k < node.count; ++k) {
        const uint32_t member = doc.links[node.first + k];
        out[std::string(doc.Key(doc.nodes[member]))] = ToNlohmann(doc, member);
      }
      return out;
    }
  }
  return nullptr;
}

const Node& NullNode() {
  static const Node* null = new Node();
  return *null;
}

}  // namespace

Result<JsonValue> JsonValue::ParseLine(std::string_view line) {
  // Every token is a byte, so only a line longer than the limit can exceed
  // it; counting every line cost 5% of a load.
  if (line.size() > kMaxStructuralTokens) {
    size_t tokens = CountStructuralTokens(line);
    if (tokens > kMaxStructuralTokens) {
      return ResourceLimitExceeded("graph_batch_json_structural_slots", kMaxStructuralTokens, tokens);
    }
  }
  // One parser per thread: it keeps its buffers from line to line.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  // simdjson stops at a NUL byte, so a line holding one (never valid JSON
  // outside a string, and never raw inside one) takes the slow path, which
  // reports it.
  const bool has_nul = std::memchr(line.data(), '\0', line.size()) != nullptr;
  if (!has_nul && parser.parse(line.data(), line.size()).get(root) == simdjson::SUCCESS) {
    // The previous line's document, once nothing else holds it, is reused
    // with its buffers: a load parses one line at a time.
    thread_local std::shared_ptr<Document> spare;
    std::shared_ptr<Document> doc;
    if (spare && spare.use_count() == 1) {
      doc = spare;
      doc->nodes.clear();
      doc->links.clear();
      doc->arena.clear();
    } else {
      doc = std::make_shared<Document>();
      spare = doc;
    }
    doc->arena.reserve(line.size());  // unescaped strings never outgrow the line
    OG_RETURN_IF_ERROR(DocumentBuilder<SimdjsonTree>().Build(root, doc.get()));
    return JsonValue(std::move(doc), 0);
  }
  OG_ASSIGN_OR_RETURN(std::shared_ptr<Document> doc, ParseWithNlohmann(line));
  if (has_nul) {
    // nlohmann, too, ends the input at a NUL byte: one after a complete
    // value would silently drop the rest of the line.
    const size_t column = static_cast<size_t>(
        static_cast<const char*>(std::memchr(line.data(), '\0', line.size())) - line.data() + 1);
    return InvalidArgument(fmt::format("invalid JSON at column {}: NUL byte after the value", column));
  }
  return JsonValue(std::move(doc), 0);
}

const JsonValue::Node& JsonValue::node() const { return document_ ? document_->nodes[node_] : NullNode(); }

bool JsonValue::is_null() const { return node().kind == Kind::kNull; }
bool JsonValue::is_object() const { return node().kind == Kind::kObject; }
bool JsonValue::is_string() const { return node().kind == Kind::kString; }
bool JsonValue::is_array() const { return node().kind == Kind::kArray; }
bool JsonValue::is_bool() const { return node().kind == Kind::kBool; }
bool JsonValue::is_number() const { return node().is_number(); }
bool JsonValue::is_integer() const { return node().is_integer(); }
std::string_view JsonValue::string() const { return document_ ? document_->Text(node()) : std::string_view(); }

std::string JsonValue::Dump() const {
  if (!document_) return "null";
  return ToNlohmann(*document_, node_).dump(-1, ' ', false, Json::error_handler_t::replace);
}

size_t JsonValue::member_count() const {
  const Node& n = node();
  return n.kind == Kind::kObject ? n.count : 0;
}

std::pair<std::string_view, JsonValue> JsonValue::Member(size_t i) const {
  const uint32_t member = document_->links[node().first + i];
  return {document_->Key(document_->nodes[member]), Child(member)};
}

std::optional<JsonValue> JsonValue::Get(std::string_view key) const {
  const Node& n = node();
  if (n.kind != Kind::kObject) return std::nullopt;
  // Lines hold a handful of members: a scan beats any index.
  for (uint32_t k = 0; k < n.count; ++k) {
    const uint32_t member = document_->links[n.first + k];
    if (document_->Key(document_->nodes[member]) == key) return Child(member);
  }
  return std::nullopt;
}

std::vector<JsonValue> JsonValue::Elements() const {
  std::vector<JsonValue> out;
  const Node& n = node();
  if (n.kind != Kind::kArray) return out;
  out.reserve(n.count);
  for (uint32_t k = 0; k < n.count; ++k) out.push_back(Child(document_->links[n.first + k]));
  return out;
}

bool JsonKindConvertsTo(const JsonValue& value, const compiler::PropertyType& type) {
  using compiler::ScalarKind;
  const Node& v = value.node();
  if (v.kind == Kind::kNull) return true;
  switch (type.shape) {
    case compiler::PropertyType::Shape::kList:
    case compiler::PropertyType::Shape::kVector: return v.kind == Kind::kArray;
    case compiler::PropertyType::Shape::kEnum: return v.kind == Kind::kString;
    case compiler::PropertyType::Shape::kScalar: break;
  }
  switch (type.scalar) {
    case ScalarKind::kString: return v.kind == Kind::kString;
    case ScalarKind::kBool: return v.kind == Kind::kBool;
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64: return v.is_integer() || v.integer_literal;
    case ScalarKind::kF32:
    case ScalarKind::kF64: return v.is_number();
    case ScalarKind::kDate:
    case ScalarKind::kDateTime: return v.kind == Kind::kString || v.is_integer() || v.integer_literal;
    case ScalarKind::kBlob: return v.kind == Kind::kString;
  }
  return true;
}

Status AppendJsonProperty(const JsonValue& value, const compiler::PropertyType& type, std::string_view property,
                          ArrayBuilder* builder, BlobInput* blobs) {
  const Node& v = value.node();
  if (v.kind == Kind::kNull) {
    if (!type.nullable) {
      return InvalidArgument(fmt::format("non-nullable property '{}' has null or invalid values", property));
    }
    builder->AppendNull();
    return Status::OK();
  }
  if (v.kind == Kind::kDouble && !std::isfinite(v.number)) {
    return InvalidArgument(fmt::format("property '{}' value is not a finite number", property));
  }
  switch (type.shape) {
    case compiler::PropertyType::Shape::kScalar:
    case compiler::PropertyType::Shape::kEnum:
      return AppendScalarValue(value, type.scalar, property, builder, blobs);
    case compiler::PropertyType::Shape::kList: {
      if (v.kind != Kind::kArray) {
        return TypeMismatch(property, fmt::format("a list of {}", PhysicalName(type.scalar)), value);
      }
      auto* list = static_cast<ListBuilder*>(builder);
      list->Append();
      for (const JsonValue& item : value.Elements()) {
        if (item.is_null()) {
          return InvalidArgument(fmt::format("strict list property '{}' contains a null or invalid item", property));
        }
        Status st = AppendScalarValue(item, type.scalar, property, list->child(), blobs);
        if (!st.ok()) {
          return InvalidArgument(fmt::format("strict list property '{}' contains a null or invalid item", property));
        }
      }
      return Status::OK();
    }
    case compiler::PropertyType::Shape::kVector: {
      if (v.kind != Kind::kArray) return TypeMismatch(property, fmt::format("Vector({})", type.vector_dim), value);
      if (static_cast<int64_t>(v.count) != type.vector_dim) {
        return InvalidArgument(fmt::format("vector property '{}' expects {} dimensions, got {}", property,
                                           type.vector_dim, v.count));
      }
      auto* fsl = static_cast<FixedSizeListBuilder*>(builder);
      std::vector<float> values;
      values.reserve(v.count);
      for (const JsonValue& element : value.Elements()) {
        const Node& item = element.node();
        if (!item.is_number() || !std::isfinite(item.AsDouble()) ||
            !std::isfinite(static_cast<float>(item.AsDouble()))) {
          return InvalidArgument(fmt::format("vector property '{}' holds a non-numeric or non-finite element", property));
        }
        values.push_back(static_cast<float>(item.AsDouble()));
      }
      fsl->AppendFloats(values.data());
      return Status::OK();
    }
  }
  return Internal("unknown property shape");
}

}  // namespace omnigraph::exec
