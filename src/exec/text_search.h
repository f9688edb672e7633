// Flat (index-free) text and vector search primitives for read queries
// (spec/surface.md §2.7).
//
// Text is analyzed as Lance's default full-text tokenizer does (§2.7;
// Lance's InvertedIndexParams defaults), in this order:
//   1. split on every character that is not a Unicode letter or digit;
//   2. drop tokens of 40 bytes or more;
//   3. lower-case;
//   4. stem with the Snowball English stemmer (libstemmer);
//   5. drop English stop words (Lucene's 33, checked after stemming);
//   6. fold accented Latin letters to ASCII ("café" -> "cafe").
// Folding covers Latin-1 Supplement and Latin Extended-A; other characters
// are kept as they are. Invalid UTF-8 bytes separate tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::exec {

// Analyzed tokens of `text` in order (duplicates kept), appended to `out`.
// Thread-safe.
void Tokenize(std::string_view text, std::vector<std::string>* out);

// Sorted, de-duplicated tokens of `text`.
std::vector<std::string> UniqueTokens(std::string_view text);

// Byte-level Levenshtein distance of `a` and `b` when it is <= `max_edits`,
// otherwise max_edits + 1 (the computation stops early).
uint32_t BoundedLevenshtein(std::string_view a, std::string_view b, uint32_t max_edits);

// `search` / `match_text`: some token of `field_tokens` equals some token of
// `query_tokens` (both sorted unique). An empty query matches nothing.
bool AnyTokenMatches(const std::vector<std::string>& field_tokens, const std::vector<std::string>& query_tokens);

// `fuzzy`: some field token is within `max_edits` edits of some query token.
bool AnyTokenFuzzyMatches(const std::vector<std::string>& field_tokens,
                          const std::vector<std::string>& query_tokens, uint32_t max_edits);

// BM25 over a fixed candidate set of documents (k1 = 1.2, b = 0.75,
// idf = ln(1 + (N - n + 0.5) / (n + 0.5)), N documents, n containing the
// term). Add every candidate document first, then Score.
class Bm25Scorer {
 public:
  explicit Bm25Scorer(std::vector<std::string> query_tokens);

  // Adds one document (its text) and returns its index. Callers leave NULL
  // fields out: they are not documents.
  size_t AddDocument(std::string_view text);
  // Score of document `doc`; 0 when it contains no query token.
  double Score(size_t doc) const;
  // Whether document `doc` contains at least one query token.
  bool Matches(size_t doc) const;

 private:
  std::vector<std::string> query_;              // sorted unique
  std::vector<std::vector<uint32_t>> term_freq_;  // per document, per query token
  std::vector<uint32_t> doc_len_;
  mutable std::vector<uint32_t> doc_freq_;
  mutable bool finalized_ = false;
  uint64_t total_len_ = 0;
};

// The deterministic mock embedding of §2.7 (OMNIGRAPH_EMBEDDINGS_MOCK):
// FNV-1a-64 seed of the UTF-8 text, xorshift64 per dimension, value =
// (seed / u64::MAX) * 2 - 1 as f32, then L2-normalised.
// Errors: InvalidArgument when the vector is all zeros or not finite.
Result<std::vector<float>> MockEmbedding(std::string_view text, int32_t dim);

// True when OMNIGRAPH_EMBEDDINGS_MOCK is set to a truthy value
// (anything but "", "0", "false", "no", "off"), or OMNIGRAPH_EMBED_PROVIDER
// names the `mock` provider.
bool MockEmbeddingsEnabled();

// Why a String `nearest` query cannot be embedded here (only mock
// embeddings exist in this build), in the words of the provider the
// environment selects (OMNIGRAPH_EMBED_PROVIDER: openai-compatible, the
// default; openai; gemini): when none of the provider's key variables is
// set, "<KEY>[ or <KEY>] is required for the <provider> embedding provider",
// as upstream says; otherwise that the provider has no client in this
// build. Unsupported either way; an unknown provider is InvalidArgument.
Status EmbeddingProviderUnavailable();

}  // namespace omnigraph::exec
