#include "exec/json_value.h"

#include <gtest/gtest.h>

namespace omnigraph::exec {
namespace json_value_test {

// Standard base64 with padding (§4.2 Blob `base64:` data), canonical only:
// bits below the last full byte must be zero, as the Rust engine requires,
// so one byte string has exactly one spelling.
TEST(DecodeBase64, AcceptsCanonicalPaddedTextOnly) {
  std::string out;
  ASSERT_TRUE(DecodeBase64("", &out));
  EXPECT_EQ(out, "");
  ASSERT_TRUE(DecodeBase64("QQ==", &out));
  EXPECT_EQ(out, "A");
  ASSERT_TRUE(DecodeBase64("QUI=", &out));
  EXPECT_EQ(out, "AB");
  ASSERT_TRUE(DecodeBase64("QUJD", &out));
  EXPECT_EQ(out, "ABC");
  ASSERT_TRUE(DecodeBase64("+/8=", &out));
  EXPECT_EQ(out, std::string("\xfb\xff", 2));
  for (const char* bad : {"QR==", "QUJ=", "QQ", "QQ=", "Q===", "QQ==QQ==", "QU=I", "QU I", "QUJ\n", "-_8="}) {
    EXPECT_FALSE(DecodeBase64(bad, &out)) << bad;
  }
}

}  // namespace json_value_test
}  // namespace omnigraph::exec
