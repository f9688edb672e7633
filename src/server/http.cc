#include "server/http.h"

#include <cctype>

#include "util/hex.h"

namespace omnigraph::server {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::optional<std::string> HeaderFields::Find(std::string_view name) const {
  for (const auto& [field, value] : fields_) {
    if (EqualsIgnoringCase(field, name)) return value;
  }
  return std::nullopt;
}

std::vector<std::string> HeaderFields::FindAll(std::string_view name) const {
  std::vector<std::string> values;
  for (const auto& [field, value] : fields_) {
    if (EqualsIgnoringCase(field, name)) values.push_back(value);
  }
  return values;
}

std::optional<std::string> HttpRequest::QueryParam(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int high = HexDigitValue(text[i + 1]), low = HexDigitValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool SplitTarget(std::string_view target, HttpRequest* request) {
  size_t question = target.find('?');
  request->path = std::string(target.substr(0, question));
  request->query.clear();
  if (question == std::string_view::npos) return true;
  std::string_view rest = target.substr(question + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    size_t equals = pair.find('=');
    auto key = PercentDecode(pair.substr(0, equals), /*plus_is_space=*/true);
    auto value = PercentDecode(equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1),
                               /*plus_is_space=*/true);
    if (!key || !value) return false;
    request->query.emplace_back(std::move(*key), std::move(*value));
  }
  return true;
}

}  // namespace omnigraph::server
