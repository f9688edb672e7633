// @check patterns use Rust `regex` syntax (surface §1.4), matched with RE2.
#include "exec/rust_regex.h"

#include <re2/re2.h>

#include <gtest/gtest.h>

namespace omnigraph::exec {
namespace rust_regex_test {

// Whether Rust pattern `pattern` finds a match in `text` (unanchored, as
// @check searches).
bool Finds(std::string_view pattern, std::string_view text) {
  auto translated = RustRegexToRe2(pattern);
  EXPECT_TRUE(translated.ok()) << pattern << ": " << translated.status().ToString();
  if (!translated.ok()) return false;
  RE2 re(*translated, RE2::Quiet);
  EXPECT_TRUE(re.ok()) << pattern << " -> " << *translated << ": " << re.error();
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

TEST(RustRegex, PerlClassesAreUnicodeAware) {
  EXPECT_TRUE(Finds(R"(^\d$)", "٣"));         // ARABIC-INDIC DIGIT THREE
  EXPECT_TRUE(Finds(R"(^\d+$)", "１２"));      // fullwidth digits
  EXPECT_FALSE(Finds(R"(^\d$)", "x"));
  EXPECT_TRUE(Finds(R"(^\w$)", "é"));
  EXPECT_TRUE(Finds(R"(^\w+$)", "naïve_Ω9"));
  EXPECT_FALSE(Finds(R"(^\w$)", "-"));
  EXPECT_TRUE(Finds(R"(^\W$)", "-"));
  EXPECT_FALSE(Finds(R"(^\W$)", "é"));
  EXPECT_TRUE(Finds("^\\s$", "\xC2\xA0"));  // NO-BREAK SPACE
  EXPECT_TRUE(Finds(R"(^\s$)", "\t"));
  EXPECT_FALSE(Finds(R"(^\S$)", "\xE3\x80\x80"));  // IDEOGRAPHIC SPACE
  EXPECT_TRUE(Finds(R"(^\D$)", "a"));
  // Inside brackets too.
  EXPECT_TRUE(Finds(R"(^[\d.]+$)", "٣.٤"));
  EXPECT_TRUE(Finds(R"(^[\w-]+$)", "é-x"));
  EXPECT_TRUE(Finds(R"(^[^\s]+$)", "ab"));
  EXPECT_FALSE(Finds(R"(^[^\s]+$)", "a\xC2\xA0" "b"));
  // (?-u) keeps them ASCII.
  EXPECT_FALSE(Finds(R"((?-u)^\d$)", "٣"));
  EXPECT_TRUE(Finds(R"((?-u)^\d$)", "3"));
}

TEST(RustRegex, EscapesNamedGroupsAndVerboseMode) {
  EXPECT_TRUE(Finds(R"(^\u0041$)", "A"));
  EXPECT_TRUE(Finds(R"(^\u{1F600}$)", "\xF0\x9F\x98\x80"));
  EXPECT_TRUE(Finds(R"(^\U00000042$)", "B"));
  EXPECT_TRUE(Finds(R"(^\x41\x{42}$)", "AB"));
  EXPECT_TRUE(Finds(R"(^(?<n>a)(?P<m>b)$)", "ab"));
  EXPECT_TRUE(Finds("(?x) ^ a  b  # the letters\n c $", "abc"));
  EXPECT_FALSE(Finds("(?x) ^ a b $", "a b"));
  EXPECT_TRUE(Finds(R"((?x) ^ a \  b $)", "a b"));
  EXPECT_TRUE(Finds("(?ix) ^ A B $", "ab"));
  EXPECT_TRUE(Finds("(?x: a b )c", "abc"));
  EXPECT_FALSE(Finds("(?x)^[a ]$", " "));  // whitespace is insignificant inside brackets too
  EXPECT_TRUE(Finds(R"((?x)^[a\ ]$)", " "));
  EXPECT_TRUE(Finds("(?i)^abc$", "ABC"));
  EXPECT_TRUE(Finds("(?i:a)B", "AB"));
  EXPECT_FALSE(Finds("(?i:a)B", "Ab"));
  EXPECT_TRUE(Finds(R"(^[]a]+$)", "]a"));
  EXPECT_TRUE(Finds(R"(^[[:alpha:]]+$)", "abc"));
  EXPECT_TRUE(Finds(R"(^a-b--c$)", "a-b--c"));  // outside brackets, `--` is literal
}

TEST(RustRegex, ConstructsRe2CannotExpressAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"^[a-z--c]$", "the bracket set operation `--` is not supported"},
      {"^[a&&b]$", "the bracket set operation `&&` is not supported"},
      {"^[a~~b]$", "the bracket set operation `~~` is not supported"},
      {"^[a[bc]]$", "a nested bracket class (`[…[…]…]`) is not supported"},
      {R"(^[\W]$)", "`\\W` inside brackets is not supported"},
      {R"(\b{start}a)", "`\\b{…}` is not supported"},
      {R"(\<a)", "`\\<` is not supported"},
      {"(?R)a", "the `R` flag is not supported"},
      {R"(\u12)", "incomplete escape `\\u12`"},
      {R"(\u{zz})", "invalid escape `\\u{zz}`"},
  };
  for (const auto& [pattern, message] : cases) {
    auto r = RustRegexToRe2(pattern);
    ASSERT_FALSE(r.ok()) << pattern;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << pattern;
    EXPECT_EQ(r.status().message(), message) << pattern;
  }
}

}  // namespace rust_regex_test
}  // namespace omnigraph::exec
