#include "exec/text_search.h"

#include <libstemmer.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "util/utf8.h"

namespace omnigraph::exec {

namespace {

// Tokens of this many bytes or more are dropped (Lance's max_token_length).
constexpr size_t kMaxTokenBytes = 40;

// English stop words as Lance's tokenizer removes them: the classic Lucene
// list of 33 (checked against Lance 8 through the npm oracle,
// tests/interop/fts_oracle.mjs), sorted for binary search.
constexpr std::string_view kStopWords[] = {
    "a",  "an",   "and",   "are",  "as",    "at",    "be",   "but",  "by",   "for", "if",
    "in", "into", "is",    "it",   "no",    "not",   "of",   "on",   "or",   "such", "that",
    "the", "their", "then", "there", "these", "they", "this", "to",  "was",  "will", "with"};

bool IsStopWord(std::string_view token) {
  return std::binary_search(std::begin(kStopWords), std::end(kStopWords), token);
}

// ASCII spelling of a Latin-1 Supplement or Latin Extended-A letter
// (U+00C0..U+017F), or empty when `cp` is outside that range or is not a
// letter (× and ÷).
std::string_view FoldedLatin(char32_t cp) {
  static constexpr std::string_view kFolded[] = {
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",   // U+00C0
      "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "ss",   // U+00D0
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",   // U+00E0
      "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",    // U+00F0
      "a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d",    // U+0100
      "d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g",    // U+0110
      "g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i",    // U+0120
      "i", "i", "ij", "ij", "j", "j", "k", "k", "q", "l", "l", "l", "l", "l", "l", "l",  // U+0130
      "l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o",    // U+0140
      "o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s",  // U+0150
      "s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u",    // U+0160
      "u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s",    // U+0170
  };
  static_assert(std::size(kFolded) == 0x180 - 0xC0);
  if (cp < 0xC0 || cp >= 0x180) return {};
  return kFolded[cp - 0xC0];
}

// Snowball's English stemmer; one instance per thread (libstemmer's
// stemmers keep state between calls).
std::string Stem(const std::string& token) {
  struct Stemmer {
    sb_stemmer* handle = ::sb_stemmer_new("english", "UTF_8");
    ~Stemmer() {
      if (handle != nullptr) ::sb_stemmer_delete(handle);
    }
  };
  thread_local Stemmer stemmer;
  if (stemmer.handle == nullptr) return token;
  const sb_symbol* stemmed = ::sb_stemmer_stem(stemmer.handle, reinterpret_cast<const sb_symbol*>(token.data()),
                                               static_cast<int>(token.size()));
  if (stemmed == nullptr) return token;  // out of memory: keep the word
  return std::string(reinterpret_cast<const char*>(stemmed),
                     static_cast<size_t>(::sb_stemmer_length(stemmer.handle)));
}

// Steps 2-6 for one raw token (its original bytes).
void AnalyzeToken(std::string_view raw, std::vector<std::string>* out) {
  if (raw.size() >= kMaxTokenBytes) return;
  std::string lower;
  lower.reserve(raw.size());
  for (size_t i = 0; i < raw.size();) utf8::Append(utf8::ToLower(utf8::Next(raw, &i)), &lower);
  std::string stemmed = Stem(lower);
  if (IsStopWord(stemmed)) return;
  std::string folded;
  folded.reserve(stemmed.size());
  for (size_t i = 0; i < stemmed.size();) {
    const char32_t cp = utf8::Next(stemmed, &i);
    std::string_view ascii = FoldedLatin(cp);
    if (!ascii.empty()) {
      folded.append(ascii);
    } else {
      utf8::Append(cp, &folded);
    }
  }
  out->push_back(std::move(folded));
}

}  // namespace

void Tokenize(std::string_view text, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    if (!utf8::IsLetterOrDigit(utf8::Next(text, &i))) continue;
    size_t end = i;
    while (i < text.size()) {
      size_t next = i;
      if (!utf8::IsLetterOrDigit(utf8::Next(text, &next))) break;
      i = end = next;
    }
    AnalyzeToken(text.substr(start, end - start), out);
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

Status EmbeddingProviderUnavailable() {
  auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    std::string text = value == nullptr ? "" : value;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
    return text;
  };
  std::string provider = variable("OMNIGRAPH_EMBED_PROVIDER");
  if (provider.empty()) provider = "openai-compatible";
  std::vector<const char*> keys;
  if (provider == "openai-compatible") keys = {"OPENROUTER_API_KEY", "OPENAI_API_KEY"};
  else if (provider == "openai") keys = {"OPENAI_API_KEY"};
  else if (provider == "gemini") keys = {"GEMINI_API_KEY"};
  else {
    return InvalidArgument(fmt::format(
        "unknown embedding provider '{}' (expected openai-compatible|openai|gemini|mock)", provider));
  }
  bool have_key = false;
  for (const char* key : keys) have_key = have_key || !variable(key).empty();
  if (!have_key) {
    return Unsupported(fmt::format("{} is required for the {} embedding provider", fmt::join(keys, " or "), provider));
  }
  return Unsupported(fmt::format(
      "nearest with a String query needs the {} embedding provider, which this build has no client for; only "
      "mock embeddings (OMNIGRAPH_EMBEDDINGS_MOCK=1) are available",
      provider));
}

bool MockEmbeddingsEnabled() {
  if (const char* provider = std::getenv("OMNIGRAPH_EMBED_PROVIDER")) {
    std::string name(provider);
    name.erase(std::remove_if(name.begin(), name.end(), [](unsigned char c) { return std::isspace(c); }), name.end());
    if (name == "mock") return true;
  }
  const char* v = std::getenv("OMNIGRAPH_EMBEDDINGS_MOCK");
  if (v == nullptr) return false;
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return !(s.empty() || s == "0" || s == "false" || s == "no" || s == "off");
}

}  // namespace omnigraph::exec
