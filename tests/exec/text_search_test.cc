// The full-text analyzer (exec/text_search.h), Lance's default pipeline.
#include "exec/text_search.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace omnigraph::exec {
namespace text_search_test {

std::vector<std::string> Tokens(std::string_view text) {
  std::vector<std::string> out;
  Tokenize(text, &out);
  return out;
}

using Words = std::vector<std::string>;

TEST(TextAnalyzerTest, LowerCasesStemsAndDropsStopWords) {
  EXPECT_EQ(Tokens("The quick brown foxes are running, naïvely!"), (Words{"quick", "brown", "fox", "run", "naiv"}));
  // Stop words are checked after stemming: "being" stems to "be", "its" to
  // "it"; "have" is not one.
  EXPECT_EQ(Tokens("Being its a Having"), Words{"have"});
  EXPECT_EQ(Tokens("networks NETWORKING networked"), (Words{"network", "network", "network"}));
}

TEST(TextAnalyzerTest, SplitsOnEveryNonLetterOrDigitCharacter) {
  // An em dash separates; CJK letters form a token; digits are kept.
  EXPECT_EQ(Tokens("alpha—beta 数据库 v2.0"), (Words{"alpha", "beta", "数据库", "v2", "0"}));
  // An invalid UTF-8 byte separates tokens too.
  EXPECT_EQ(Tokens("fox\xff"
                   "dog"),
            (Words{"fox", "dog"}));
  EXPECT_EQ(Tokens(""), Words{});
  EXPECT_EQ(Tokens(" \t,;!"), Words{});
}

TEST(TextAnalyzerTest, FoldsLatinLettersToAscii) {
  EXPECT_EQ(Tokens("Straße ÆSIR Œuvre Café Łódź"), (Words{"strasse", "aesir", "oeuvr", "cafe", "lodz"}));
}

TEST(TextAnalyzerTest, DropsTokensOfFortyBytesOrMore) {
  const std::string kept(39, 'x'), dropped(40, 'y');
  EXPECT_EQ(Tokens(kept + " " + dropped), Words{kept});
  // Bytes, not characters: 20 two-byte letters are 40 bytes.
  std::string wide;
  for (int i = 0; i < 20; ++i) wide += "é";
  EXPECT_EQ(Tokens(wide + " fox"), Words{"fox"});
}

TEST(TextAnalyzerTest, QueryAndDocumentMeetInTheAnalyzedForm) {
  EXPECT_TRUE(AnyTokenMatches(UniqueTokens("Café running the show"), UniqueTokens("cafe")));
  EXPECT_TRUE(AnyTokenMatches(UniqueTokens("Café running the show"), UniqueTokens("RUNS")));
  EXPECT_FALSE(AnyTokenMatches(UniqueTokens("Café running the show"), UniqueTokens("the")));
  Bm25Scorer scorer(UniqueTokens("network"));
  size_t doc = scorer.AddDocument("neural networks");
  size_t other = scorer.AddDocument("the show");
  EXPECT_TRUE(scorer.Matches(doc));
  EXPECT_FALSE(scorer.Matches(other));
  EXPECT_GT(scorer.Score(doc), 0);
}

}  // namespace text_search_test
}  // namespace omnigraph::exec
