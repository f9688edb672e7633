#include "exec/text_search.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace omnigraph::exec {

namespace {

bool IsTokenByte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

}  // namespace

void Tokenize(std::string_view text, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsTokenByte(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    std::string token;
    while (i < text.size() && IsTokenByte(static_cast<unsigned char>(text[i]))) {
      char c = text[i++];
      token.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    out->push_back(std::move(token));
  }
}

std::vector<std::string> UniqueTokens(std::string_view text) {
  std::vector<std::string> tokens;
  Tokenize(text, &tokens);
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return tokens;
}

uint32_t BoundedLevenshtein(std::string_view a, std::string_view b, uint32_t max_edits) {
  size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > max_edits) return max_edits + 1;
  std::vector<uint32_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<uint32_t>(i);
    uint32_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      uint32_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > max_edits) return max_edits + 1;  // every later row only grows
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], max_edits + 1);
}

bool AnyTokenMatches(const std::vector<std::string>& field_tokens, const std::vector<std::string>& query_tokens) {
  // Both sorted: a merge walk.
  size_t i = 0, j = 0;
  while (i < field_tokens.size() && j < query_tokens.size()) {
    int c = field_tokens[i].compare(query_tokens[j]);
    if (c == 0) return true;
    if (c < 0) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

bool AnyTokenFuzzyMatches(const std::vector<std::string>& field_tokens,
                          const std::vector<std::string>& query_tokens, uint32_t max_edits) {
  for (const std::string& q : query_tokens) {
    for (const std::string& f : field_tokens) {
      if (BoundedLevenshtein(f, q, max_edits) <= max_edits) return true;
    }
  }
  return false;
}

Bm25Scorer::Bm25Scorer(std::vector<std::string> query_tokens) : query_(std::move(query_tokens)) {
  std::sort(query_.begin(), query_.end());
  query_.erase(std::unique(query_.begin(), query_.end()), query_.end());
}

size_t Bm25Scorer::AddDocument(std::string_view text) {
  std::vector<std::string> tokens;
  Tokenize(text, &tokens);
  std::vector<uint32_t> tf(query_.size(), 0);
  for (const std::string& t : tokens) {
    auto it = std::lower_bound(query_.begin(), query_.end(), t);
    if (it != query_.end() && *it == t) ++tf[static_cast<size_t>(it - query_.begin())];
  }
  term_freq_.push_back(std::move(tf));
  doc_len_.push_back(static_cast<uint32_t>(tokens.size()));
  total_len_ += tokens.size();
  finalized_ = false;
  return term_freq_.size() - 1;
}

bool Bm25Scorer::Matches(size_t doc) const {
  const std::vector<uint32_t>& tf = term_freq_[doc];
  return std::any_of(tf.begin(), tf.end(), [](uint32_t f) { return f > 0; });
}

double Bm25Scorer::Score(size_t doc) const {
  constexpr double kK1 = 1.2;
  constexpr double kB = 0.75;
  if (!finalized_) {
    doc_freq_.assign(query_.size(), 0);
    for (const auto& tf : term_freq_) {
      for (size_t t = 0; t < tf.size(); ++t) doc_freq_[t] += tf[t] > 0 ? 1 : 0;
    }
    finalized_ = true;
  }
  const double n_docs = static_cast<double>(term_freq_.size());
  const double avg_len = n_docs > 0 ? static_cast<double>(total_len_) / n_docs : 0;
  const double len = doc_len_[doc];
  double score = 0;
  for (size_t t = 0; t < query_.size(); ++t) {
    double tf = term_freq_[doc][t];
    if (tf == 0) continue;
    double df = doc_freq_[t];
    double idf = std::log(1 + (n_docs - df + 0.5) / (df + 0.5));
    double norm = avg_len > 0 ? len / avg_len : 0;
    score += idf * tf * (kK1 + 1) / (tf + kK1 * (1 - kB + kB * norm));
  }
  return score;
}

Result<std::vector<float>> MockEmbedding(std::string_view text, int32_t dim) {
  uint64_t seed = 14695981039346656037ull;
  for (unsigned char c : text) {
    seed ^= c;
    seed *= 1099511628211ull;
  }
  std::vector<float> v(static_cast<size_t>(dim));
  double norm = 0;
  for (int32_t i = 0; i < dim; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    float x = static_cast<float>((static_cast<double>(seed) / static_cast<double>(UINT64_MAX)) * 2.0 - 1.0);
    v[static_cast<size_t>(i)] = x;
    norm += static_cast<double>(x) * x;
  }
  if (!(norm > 0) || !std::isfinite(norm)) return InvalidArgument("mock embedding produced an invalid vector");
  float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& x : v) x *= inv;
  return v;
}

bool MockEmbeddingsEnabled() {
  const char* v = std::getenv("OMNIGRAPH_EMBEDDINGS_MOCK");
  if (v == nullptr) return false;
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return !(s.empty() || s == "0" || s == "false" || s == "no" || s == "off");
}

}  // namespace omnigraph::exec
