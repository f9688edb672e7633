#include "compiler/schema_parser.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "compiler/scanner.h"

namespace omnigraph::compiler {

using schema::Annotation;
using schema::AnnotationValue;
using schema::Constraint;
using schema::EdgeDecl;
using schema::InterfaceDecl;
using schema::NodeDecl;
using schema::PropertyDecl;
using schema::RangeBound;
using schema::SchemaFile;

bool IsReservedStorageColumn(std::string_view name) {
  return name == "_rowid" || name == "_rowaddr" || name == "_rowoffset" || name == "_row_created_at_version" ||
         name == "_row_last_updated_at_version";
}

namespace {

// One `c_arg` of a body constraint before it is interpreted.
struct ConstraintArg {
  enum class Kind { kRange, kLiteral, kIdent };
  Kind kind = Kind::kIdent;
  AnnotationValue literal;  // kLiteral
  std::string ident;        // kIdent
  std::optional<RangeBound> min, max;
  size_t offset = 0;
};

class SchemaParser {
 public:
  SchemaParser(std::string_view source, std::string_view file)
      : src_(source), file_(file), sc_(source, Scanner::Language::kSchema), lines_(source) {}

  Result<SchemaFile> Run() {
    SchemaFile file;
    while (true) {
      size_t saved = sc_.pos();
      if (!ParseDecl(&file)) {
        sc_.set_pos(saved);
        break;
      }
    }
    if (!sc_.AtEnd()) {
      return ParseErrorAt(file_, src_, lines_.Locate(sc_.furthest()), sc_.ExpectedMessage());
    }
    if (deferred_) return *deferred_;
    return file;
  }

 private:
  SourceLocation Loc(size_t offset) const { return lines_.Locate(offset); }

  // Grammar-layer semantic errors are reported only once the whole file is
  // syntactically valid (a syntax error anywhere wins, as upstream), and the
  // first one in source order wins.
  void Defer(size_t offset, std::string what) {
    if (deferred_offset_ != std::numeric_limits<size_t>::max() && offset >= deferred_offset_) return;
    deferred_offset_ = offset;
    deferred_ = ParseErrorAt(file_, src_, Loc(offset), what);
  }

  bool ParseDecl(SchemaFile* file) {
    size_t saved = sc_.pos();
    {
      InterfaceDecl decl;
      if (ParseInterface(&decl)) {
        file->order.push_back({schema::Declaration::Kind::kInterface, file->interfaces.size()});
        file->interfaces.push_back(std::move(decl));
        return true;
      }
      sc_.set_pos(saved);
    }
    {
      NodeDecl decl;
      if (ParseNode(&decl)) {
        file->order.push_back({schema::Declaration::Kind::kNode, file->nodes.size()});
        file->nodes.push_back(std::move(decl));
        return true;
      }
      sc_.set_pos(saved);
    }
    {
      EdgeDecl decl;
      if (ParseEdge(&decl)) {
        file->order.push_back({schema::Declaration::Kind::kEdge, file->edges.size()});
        file->edges.push_back(std::move(decl));
        return true;
      }
      sc_.set_pos(saved);
    }
    return false;
  }

  // interface_decl = "interface" TypeName "{" { prop_decl } "}"
  bool ParseInterface(InterfaceDecl* decl) {
    if (!sc_.Lit("interface")) return false;
    decl->location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&decl->name)) return false;
    if (!sc_.Lit("{")) return false;
    while (true) {
      size_t saved = sc_.pos();
      PropertyDecl prop;
      if (!ParseProperty(&prop)) {
        sc_.set_pos(saved);
        break;
      }
      decl->properties.push_back(std::move(prop));
    }
    return sc_.Lit("}");
  }

  // node_decl = "node" TypeName { annotation } [ implements ] "{" { prop_decl | body_constraint } "}"
  bool ParseNode(NodeDecl* decl) {
    if (!sc_.Lit("node")) return false;
    decl->location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&decl->name)) return false;
    ParseAnnotations(&decl->annotations);
    {
      size_t saved = sc_.pos();
      std::vector<std::pair<std::string, SourceLocation>> names;
      bool ok = sc_.Lit("implements");
      if (ok) {
        std::string name;
        SourceLocation loc = Loc(sc_.PeekTokenStart());
        ok = sc_.TypeName(&name);
        if (ok) names.emplace_back(name, loc);
        while (ok) {
          size_t item = sc_.pos();
          SourceLocation next_loc;
          if (!sc_.Lit(",")) break;
          next_loc = Loc(sc_.PeekTokenStart());
          if (!sc_.TypeName(&name)) {
            sc_.set_pos(item);
            break;
          }
          names.emplace_back(name, next_loc);
        }
      }
      if (ok) {
        decl->implements = std::move(names);
      } else {
        sc_.set_pos(saved);
      }
    }
    if (!sc_.Lit("{")) return false;
    ParseBody(&decl->properties, &decl->constraints);
    return sc_.Lit("}");
  }

  // edge_decl = "edge" TypeName ":" TypeName "->" TypeName [ cardinality ]
  //             { annotation } [ "{" { prop_decl | body_constraint } "}" ]
  bool ParseEdge(EdgeDecl* decl) {
    if (!sc_.Lit("edge")) return false;
    decl->location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&decl->name)) return false;
    if (!sc_.Lit(":")) return false;
    decl->from_location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&decl->from_type)) return false;
    if (!sc_.Lit("->")) return false;
    decl->to_location = Loc(sc_.PeekTokenStart());
    if (!sc_.TypeName(&decl->to_type)) return false;
    {
      size_t saved = sc_.pos();
      if (!ParseCardinality(decl)) sc_.set_pos(saved);
    }
    ParseAnnotations(&decl->annotations);
    {
      size_t saved = sc_.pos();
      bool ok = sc_.Lit("{");
      if (ok) {
        ParseBody(&decl->properties, &decl->constraints);
        ok = sc_.Lit("}");
      }
      if (!ok) {
        sc_.set_pos(saved);
        decl->properties.clear();
        decl->constraints.clear();
      }
    }
    return true;
  }

  // cardinality = "@card" "(" integer ".." [ integer ] ")"
  bool ParseCardinality(EdgeDecl* decl) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Lit("@card")) return false;
    if (!sc_.Lit("(")) return false;
    std::string min_text, max_text;
    size_t min_at = sc_.PeekTokenStart();
    if (!sc_.Integer(&min_text)) return false;
    if (!sc_.Lit("..")) return false;
    size_t max_at = 0;
    {
      size_t saved = sc_.pos();
      max_at = sc_.PeekTokenStart();
      if (!sc_.Integer(&max_text)) {
        sc_.set_pos(saved);
        max_text.clear();
      }
    }
    if (!sc_.Lit(")")) return false;
    decl->has_cardinality = true;
    decl->card_location = Loc(at);
    uint32_t min = 0;
    auto [p1, e1] = std::from_chars(min_text.data(), min_text.data() + min_text.size(), min);
    if (e1 != std::errc() || p1 != min_text.data() + min_text.size()) {
      Defer(min_at, fmt::format("invalid cardinality min: {}", min_text));
    }
    decl->card_min = min;
    if (!max_text.empty()) {
      uint32_t max = 0;
      auto [p2, e2] = std::from_chars(max_text.data(), max_text.data() + max_text.size(), max);
      if (e2 != std::errc() || p2 != max_text.data() + max_text.size()) {
        Defer(max_at, fmt::format("invalid cardinality max: {}", max_text));
      } else if (min > max) {
        Defer(at, fmt::format("cardinality min ({}) exceeds max ({})", min, max));
      }
      decl->card_max = max;
    }
    return true;
  }

  // { prop_decl | body_constraint }
  void ParseBody(std::vector<PropertyDecl>* props, std::vector<Constraint>* constraints) {
    while (true) {
      size_t saved = sc_.pos();
      PropertyDecl prop;
      if (ParseProperty(&prop)) {
        props->push_back(std::move(prop));
        continue;
      }
      sc_.set_pos(saved);
      Constraint constraint;
      if (ParseBodyConstraint(&constraint)) {
        constraints->push_back(std::move(constraint));
        continue;
      }
      sc_.set_pos(saved);
      return;
    }
  }

  // prop_decl = ident ":" type_ref { annotation }
  bool ParseProperty(PropertyDecl* prop) {
    size_t name_at = sc_.PeekTokenStart();
    if (!sc_.Ident(&prop->name, "property name")) return false;
    prop->location = Loc(name_at);
    if (!sc_.Lit(":")) return false;
    size_t type_at = sc_.PeekTokenStart();
    prop->type_location = Loc(type_at);
    if (!ParseTypeRef(&prop->type, type_at)) return false;
    ParseAnnotations(&prop->annotations);
    if (IsReservedStorageColumn(prop->name)) {
      Defer(name_at, fmt::format("property name '{}' is reserved for a virtual storage system column", prop->name));
    }
    return true;
  }

  // type_ref = core_type [ "?" ];
  // core_type = list_type | enum_type | vector_type | base_type
  bool ParseTypeRef(PropertyType* type, size_t type_at) {
    bool parsed = false;
    {
      // list_type = "[" base_type "]"
      size_t saved = sc_.pos();
      ScalarKind element;
      if (sc_.Lit("[") && sc_.BaseType(&element) && sc_.Lit("]")) {
        *type = PropertyType::List(element);
        if (element == ScalarKind::kBlob) Defer(type_at, "list of Blob is not supported");
        parsed = true;
      } else {
        sc_.set_pos(saved);
      }
    }
    if (!parsed) {
      // enum_type = "enum" "(" enum_value { "," enum_value } ")"
      size_t saved = sc_.pos();
      std::vector<std::string> values;
      std::string value;
      bool ok = sc_.Lit("enum") && sc_.Lit("(") && sc_.EnumValue(&value);
      if (ok) {
        values.push_back(value);
        while (true) {
          size_t item = sc_.pos();
          if (!sc_.Lit(",") || !sc_.EnumValue(&value)) {
            sc_.set_pos(item);
            break;
          }
          values.push_back(value);
        }
        ok = sc_.Lit(")");
      }
      if (ok) {
        size_t count = values.size();
        *type = PropertyType::Enum(std::move(values));
        if (type->enum_values.size() != count) Defer(type_at, "enum type cannot include duplicate values");
        parsed = true;
      } else {
        sc_.set_pos(saved);
      }
    }
    if (!parsed) {
      // vector_type = "Vector" "(" integer ")"
      size_t saved = sc_.pos();
      std::string digits;
      size_t dim_at = 0;
      bool ok = sc_.Lit("Vector") && sc_.Lit("(");
      if (ok) {
        dim_at = sc_.PeekTokenStart();
        ok = sc_.Integer(&digits) && sc_.Lit(")");
      }
      if (ok) {
        uint64_t dim = 0;
        auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), dim);
        if (ec != std::errc() || dim > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
          Defer(dim_at, fmt::format("Vector dimension {} exceeds maximum supported {}", digits,
                                    std::numeric_limits<int32_t>::max()));
          dim = 1;
        } else if (dim == 0) {
          Defer(dim_at, "Vector dimension must be greater than zero");
        }
        *type = PropertyType::Vector(static_cast<int32_t>(dim));
        parsed = true;
      } else {
        sc_.set_pos(saved);
      }
    }
    if (!parsed) {
      ScalarKind kind;
      if (!sc_.BaseType(&kind)) return false;
      *type = PropertyType::Scalar(kind);
    }
    {
      size_t saved = sc_.pos();
      if (sc_.Lit("?")) {
        type->nullable = true;
      } else {
        sc_.set_pos(saved);
      }
    }
    return true;
  }

  void ParseAnnotations(std::vector<Annotation>* out) {
    while (true) {
      size_t saved = sc_.pos();
      Annotation ann;
      if (!ParseAnnotation(&ann)) {
        sc_.set_pos(saved);
        return;
      }
      out->push_back(std::move(ann));
    }
  }

  // annotation = "@" !(constraint_name "(") ident [ "(" ann_arg { "," kwarg } ")" ]
  bool ParseAnnotation(Annotation* ann) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Lit("@")) return false;
    {
      size_t saved = sc_.pos();
      sc_.PushQuiet();
      bool constraint = ParseConstraintName(nullptr) && sc_.Lit("(");
      sc_.PopQuiet();
      sc_.set_pos(saved);
      if (constraint) return false;
    }
    ann->location = Loc(at);
    if (!sc_.Ident(&ann->name, "annotation name")) return false;
    size_t saved = sc_.pos();
    if (!sc_.Lit("(")) {
      sc_.set_pos(saved);
      return true;
    }
    AnnotationValue value;
    if (!ParseAnnotationArg(&value, /*allow_ident=*/true)) {
      sc_.set_pos(saved);
      return true;
    }
    std::vector<std::pair<std::string, AnnotationValue>> kwargs;
    while (true) {
      size_t item = sc_.pos();
      std::string key;
      AnnotationValue kw;
      if (!sc_.Lit(",") || !sc_.Ident(&key, "keyword argument") || !sc_.Lit("=") ||
          !ParseAnnotationArg(&kw, /*allow_ident=*/false)) {
        sc_.set_pos(item);
        break;
      }
      kwargs.emplace_back(std::move(key), std::move(kw));
    }
    if (!sc_.Lit(")")) {
      sc_.set_pos(saved);
      return true;
    }
    ann->value = std::move(value);
    ann->kwargs = std::move(kwargs);
    return true;
  }

  // literal = string | float | integer | bool  (ann_arg adds ident)
  bool ParseAnnotationArg(AnnotationValue* value, bool allow_ident) {
    size_t at = sc_.PeekTokenStart();
    value->location = Loc(at);
    std::string body;
    size_t start = 0;
    size_t saved = sc_.pos();
    if (sc_.StringLit(&body, &start)) {
      value->kind = AnnotationValue::Kind::kString;
      value->text = Decode(body, start);
      return true;
    }
    sc_.set_pos(saved);
    if (sc_.Float(&value->text)) {
      value->kind = AnnotationValue::Kind::kFloat;
      return true;
    }
    sc_.set_pos(saved);
    if (sc_.Integer(&value->text)) {
      value->kind = AnnotationValue::Kind::kInteger;
      return true;
    }
    sc_.set_pos(saved);
    if (sc_.Word("true")) {
      value->kind = AnnotationValue::Kind::kBool;
      value->text = "true";
      return true;
    }
    sc_.set_pos(saved);
    if (sc_.Word("false")) {
      value->kind = AnnotationValue::Kind::kBool;
      value->text = "false";
      return true;
    }
    sc_.set_pos(saved);
    if (allow_ident && sc_.Ident(&value->text)) {
      value->kind = AnnotationValue::Kind::kIdent;
      return true;
    }
    sc_.set_pos(saved);
    return false;
  }

  std::string Decode(const std::string& body, size_t quote_offset) {
    std::string out, error;
    size_t bad = 0;
    if (!DecodeStringBody(body, &out, &error, &bad)) Defer(quote_offset + 1 + bad, error);
    return out;
  }

  // constraint_name = "key" | "unique" | "index" | "range" | "check"
  bool ParseConstraintName(Constraint::Kind* kind) {
    static constexpr std::pair<std::string_view, Constraint::Kind> kNames[] = {
        {"key", Constraint::Kind::kKey},     {"unique", Constraint::Kind::kUnique},
        {"index", Constraint::Kind::kIndex}, {"range", Constraint::Kind::kRange},
        {"check", Constraint::Kind::kCheck}};
    size_t at = sc_.PeekTokenStart();
    sc_.PushQuiet();
    for (const auto& [name, k] : kNames) {
      if (sc_.Lit(name)) {
        sc_.PopQuiet();
        if (kind) *kind = k;
        return true;
      }
    }
    sc_.PopQuiet();
    sc_.Expect("constraint name", at);
    return false;
  }

  // body_constraint = "@" constraint_name "(" c_arg { "," c_arg } ")"
  bool ParseBodyConstraint(Constraint* constraint) {
    size_t at = sc_.PeekTokenStart();
    if (!sc_.Lit("@")) return false;
    if (!ParseConstraintName(&constraint->kind)) return false;
    if (!sc_.Lit("(")) return false;
    std::vector<ConstraintArg> args;
    ConstraintArg arg;
    if (!ParseConstraintArg(&arg)) return false;
    args.push_back(std::move(arg));
    while (true) {
      size_t item = sc_.pos();
      ConstraintArg next;
      if (!sc_.Lit(",") || !ParseConstraintArg(&next)) {
        sc_.set_pos(item);
        break;
      }
      args.push_back(std::move(next));
    }
    if (!sc_.Lit(")")) return false;
    constraint->location = Loc(at);
    InterpretConstraint(constraint, args, at);
    return true;
  }

  // c_arg = range_bound | literal | ident
  bool ParseConstraintArg(ConstraintArg* arg) {
    size_t saved = sc_.pos();
    arg->offset = sc_.PeekTokenStart();
    if (ParseRangeBound(arg)) {
      arg->kind = ConstraintArg::Kind::kRange;
      return true;
    }
    sc_.set_pos(saved);
    if (ParseAnnotationArg(&arg->literal, /*allow_ident=*/false)) {
      arg->kind = ConstraintArg::Kind::kLiteral;
      return true;
    }
    sc_.set_pos(saved);
    if (sc_.Ident(&arg->ident, "property name")) {
      arg->kind = ConstraintArg::Kind::kIdent;
      return true;
    }
    sc_.set_pos(saved);
    return false;
  }

  bool ParseSignedNum(RangeBound* bound) {
    size_t saved = sc_.pos();
    std::string text;
    if (sc_.SignedFloat(&text)) {
      bound->is_float = true;
      bound->float_value = std::strtod(text.c_str(), nullptr);
      bound->text = text;
      return true;
    }
    sc_.set_pos(saved);
    if (!sc_.SignedInteger(&text)) return false;
    bound->text = text;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    uint64_t unsigned_value = 0;
    if (ec == std::errc()) {
      bound->int_value = value;
    } else if (text[0] != '-' &&
               std::from_chars(text.data(), text.data() + text.size(), unsigned_value).ec == std::errc()) {
      // Within U64: kept exact, so a bound near 2^64 is not rounded.
      bound->is_unsigned = true;
      bound->uint_value = unsigned_value;
    } else {
      // Beyond u64: read as a float, as the upstream parser falls back to.
      bound->is_float = true;
      bound->float_value = std::strtod(text.c_str(), nullptr);
    }
    return true;
  }

  // range_bound = signed_num ".." [ signed_num ] | ".." signed_num
  bool ParseRangeBound(ConstraintArg* arg) {
    size_t saved = sc_.pos();
    RangeBound lo;
    if (ParseSignedNum(&lo) && sc_.Lit("..")) {
      arg->min = lo;
      size_t item = sc_.pos();
      RangeBound hi;
      if (ParseSignedNum(&hi)) {
        arg->max = hi;
      } else {
        sc_.set_pos(item);
      }
      return true;
    }
    sc_.set_pos(saved);
    RangeBound hi;
    if (sc_.Lit("..") && ParseSignedNum(&hi)) {
      arg->max = hi;
      return true;
    }
    sc_.set_pos(saved);
    return false;
  }

  void InterpretConstraint(Constraint* c, const std::vector<ConstraintArg>& args, size_t at) {
    auto ident_of = [&](const ConstraintArg& arg, std::string* out) {
      if (arg.kind == ConstraintArg::Kind::kIdent) {
        *out = arg.ident;
        return true;
      }
      Defer(arg.offset, "expected property name in constraint");
      return false;
    };
    switch (c->kind) {
      case Constraint::Kind::kKey:
      case Constraint::Kind::kUnique:
      case Constraint::Kind::kIndex:
        for (const ConstraintArg& arg : args) {
          std::string name;
          if (!ident_of(arg, &name)) return;
          c->columns.push_back(name);
          c->column_locations.push_back(Loc(arg.offset));
        }
        return;
      case Constraint::Kind::kRange: {
        if (args.size() != 2) {
          Defer(at, "@range requires property name and bounds: @range(prop, min..max)");
          return;
        }
        std::string name;
        if (!ident_of(args[0], &name)) return;
        c->columns.push_back(name);
        c->column_locations.push_back(Loc(args[0].offset));
        if (args[1].kind != ConstraintArg::Kind::kRange) {
          Defer(args[1].offset, "expected range bounds (min..max) in @range constraint");
          return;
        }
        c->min = args[1].min;
        c->max = args[1].max;
        return;
      }
      case Constraint::Kind::kCheck: {
        if (args.size() != 2) {
          Defer(at, "@check requires property name and pattern: @check(prop, \"regex\")");
          return;
        }
        std::string name;
        if (!ident_of(args[0], &name)) return;
        c->columns.push_back(name);
        c->column_locations.push_back(Loc(args[0].offset));
        if (args[1].kind != ConstraintArg::Kind::kLiteral ||
            args[1].literal.kind != AnnotationValue::Kind::kString) {
          Defer(args[1].offset, "expected string argument in constraint");
          return;
        }
        c->pattern = args[1].literal.text;
        return;
      }
    }
  }

  std::string_view src_;
  std::string_view file_;
  Scanner sc_;
  LineIndex lines_;
  std::optional<Status> deferred_;
  size_t deferred_offset_ = std::numeric_limits<size_t>::max();
};

}  // namespace

Result<schema::SchemaFile> ParseSchema(std::string_view source, std::string_view file_name) {
  source = WithoutByteOrderMark(source);
  OG_RETURN_IF_ERROR(CheckUtf8Source(file_name, source));
  SchemaParser parser(source, file_name);
  return parser.Run();
}

}  // namespace omnigraph::compiler
