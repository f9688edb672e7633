#include "lance/versioning.h"

#include <gtest/gtest.h>

namespace omnigraph::lance {
namespace versioning_test {

TEST(Versioning, V2NamesCountDownFromU64Max) {
  EXPECT_EQ(ManifestFileName(1), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(4), "18446744073709551611.manifest");
  auto parsed = ParseManifestFileName("18446744073709551611.manifest");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->version, 4u);
  EXPECT_EQ(parsed->naming, ManifestNaming::kV2);
}

TEST(Versioning, DetachedVersionsUseDPrefix) {
  uint64_t v = 9223372036854775901ULL;
  EXPECT_TRUE(IsDetachedVersion(v));
  EXPECT_EQ(ManifestFileName(v), "d9223372036854775901.manifest");
  auto parsed = ParseManifestFileName("d9223372036854775901.manifest");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->version, v);
  EXPECT_EQ(parsed->naming, ManifestNaming::kDetached);
  // A d-name without the top bit is not a detached version.
  EXPECT_FALSE(ParseManifestFileName("d12.manifest"));
}

TEST(Versioning, NewDetachedVersionsHaveTheTopBitAndDiffer) {
  uint64_t a = NewDetachedVersion(), b = NewDetachedVersion();
  EXPECT_TRUE(IsDetachedVersion(a));
  EXPECT_TRUE(IsDetachedVersion(b));
  EXPECT_NE(a, b);
}

TEST(Versioning, NonManifestNamesAreSkipped) {
  EXPECT_FALSE(ParseManifestFileName("latest_version_hint.json"));
  EXPECT_FALSE(ParseManifestFileName(".tmp_abc"));
  EXPECT_FALSE(ParseManifestFileName("18446744073709551611.manifest-8a14edb3"));
  EXPECT_FALSE(ParseManifestFileName(".manifest"));
  auto v1 = ParseManifestFileName("5.manifest");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->version, 5u);
  EXPECT_EQ(v1->naming, ManifestNaming::kV1);
}

}  // namespace versioning_test
}  // namespace omnigraph::lance
