#include "exec/result_json.h"

#include "compiler/temporal.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace omnigraph::exec {
namespace {

template <typename T>
void AppendInteger(std::string* out, T value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, end);
}

// A finite float as serde_json spells it (the ryu crate's layout), from the
// shortest round-trip digits at the stored width (so a Float32 0.1 prints
// as 0.1, not 0.10000000149011612). With the digits d1..dn and the decimal
// point after `point` of them: positional while 0 < point <= 16 (and
// whole values keep ".0", so a float column never reads as an integer),
// "0.000ddd" while -5 < point <= 0, else "d.ddde<point-1>" with no "+"
// and no leading zeros in the exponent.
template <typename F>
void AppendFiniteFloat(std::string* out, F value) {
  if (std::signbit(value)) out->push_back('-');
  value = std::fabs(value);
  if (value == 0) {
    out->append("0.0");
    return;
  }
  char buffer[48];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<size_t>(end - buffer));  // "d.ddde±xx"
  size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::string_view exponent_text = text.substr(e + 1);
  if (exponent_text.front() == '+') exponent_text.remove_prefix(1);
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  const int length = static_cast<int>(digits.size());
  const int point = exponent + 1;
  constexpr int kMaxPositional = 16;
  if (point >= length && point <= kMaxPositional) {
    out->append(digits).append(static_cast<size_t>(point - length), '0').append(".0");
  } else if (point > 0 && point <= kMaxPositional) {
    out->append(digits, 0, static_cast<size_t>(point)).push_back('.');
    out->append(digits, static_cast<size_t>(point));
  } else if (point > -5 && point <= 0) {
    out->append("0.").append(static_cast<size_t>(-point), '0').append(digits);
  } else {
    out->push_back(digits[0]);
    if (length > 1) out->append(".").append(digits, 1);
    out->append(fmt::format("e{}", point - 1));
  }
}

template <typename F>
void AppendFloat(std::string* out, F value) {
  if (std::isnan(value)) {
    out->append("\"NaN\"");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    AppendFiniteFloat(out, value);
  }
}

}  // namespace


void AppendCellJson(std::string* out, const Array& array, int64_t row, TemporalEncoding temporal) {
  if (array.IsNull(row)) {
    out->append("null");
    return;
  }
  switch (array.type_id()) {
    case TypeId::kBool: out->append(array.BoolValue(row) ? "true" : "false"); return;
    case TypeId::kInt32: AppendInteger(out, array.Value<int32_t>(row)); return;
    case TypeId::kInt64: AppendInteger(out, array.Value<int64_t>(row)); return;
    case TypeId::kUInt32: AppendInteger(out, array.Value<uint32_t>(row)); return;
    case TypeId::kUInt64: AppendInteger(out, array.Value<uint64_t>(row)); return;
    case TypeId::kFloat32: AppendFloat(out, array.Value<float>(row)); return;
    case TypeId::kFloat64: AppendFloat(out, array.Value<double>(row)); return;
    case TypeId::kDate32:
      if (temporal == TemporalEncoding::kInteger) {
        AppendInteger(out, array.Value<int32_t>(row));
      } else {
        AppendJsonString(out, compiler::FormatDate(array.Value<int32_t>(row)));
      }
      return;
    case TypeId::kDate64:
      if (temporal == TemporalEncoding::kInteger) {
        AppendInteger(out, array.Value<int64_t>(row));
      } else {
        AppendJsonString(out, compiler::FormatDateTime(array.Value<int64_t>(row)));
      }
      return;
    case TypeId::kUtf8:
    case TypeId::kLargeBinary: AppendJsonString(out, array.GetView(row)); return;
    case TypeId::kList:
    case TypeId::kFixedSizeList: {
      int64_t begin, end;
      if (array.type_id() == TypeId::kList) {
        begin = array.ValueOffset(row);
        end = array.ValueOffset(row + 1);
      } else {
        begin = row * array.type()->list_size();
        end = begin + array.type()->list_size();
      }
      // Vector elements print as the f64 value of the stored f32 (§2.10),
      // so 0.1f reads 0.10000000149011612; it parses back to the same f32.
      const Array& items = *array.child(0);
      bool widen = array.type_id() == TypeId::kFixedSizeList && items.type_id() == TypeId::kFloat32;
      out->push_back('[');
      for (int64_t k = begin; k < end; ++k) {
        if (k > begin) out->push_back(',');
        if (widen && !items.IsNull(k)) {
          AppendFloat(out, static_cast<double>(items.Value<float>(k)));
        } else {
          AppendCellJson(out, items, k, temporal);
        }
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      for (size_t c = 0; c < array.children().size(); ++c) {
        if (c) out->push_back(',');
        AppendJsonString(out, array.type()->children()[c].name);
        out->push_back(':');
        AppendCellJson(out, *array.child(static_cast<int>(c)), row, temporal);
      }
      out->push_back('}');
      return;
    }
  }
}

std::string PrettyJson(std::string_view compact) {
  std::string out;
  out.reserve(compact.size() * 2);
  int depth = 0;
  auto newline = [&] {
    out.push_back('\n');
    out.append(static_cast<size_t>(depth) * 2, ' ');
  };
  for (size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    switch (c) {
      case '"': {
        // Copy the whole string literal, escapes included.
        size_t end = i + 1;
        while (end < compact.size() && compact[end] != '"') end += compact[end] == '\\' ? 2 : 1;
        out.append(compact.substr(i, end + 1 - i));
        i = end;
        break;
      }
      case '{':
      case '[': {
        const char close = c == '{' ? '}' : ']';
        if (i + 1 < compact.size() && compact[i + 1] == close) {
          out.push_back(c);
          out.push_back(close);
          ++i;
          break;
        }
        out.push_back(c);
        ++depth;
        newline();
        break;
      }
      case '}':
      case ']':
        --depth;
        newline();
        out.push_back(c);
        break;
      case ',':
        out.push_back(',');
        newline();
        break;
      case ':': out.append(": "); break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace omnigraph::exec
