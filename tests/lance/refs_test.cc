#include "lance/refs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace omnigraph::lance {
namespace refs_test {

TEST(Refs, TagRecordUsesLanceCamelCaseKeys) {
  TagRecord tag;
  tag.version = 9223372036854775901ULL;  // detached ids exceed 2^53: must stay exact
  tag.manifest_size = 654;
  tag.created_at = "2026-11-29T19:23:19.777752452Z";
  auto doc = nlohmann::json::parse(EncodeTagRecord(tag));
  EXPECT_TRUE(doc["branch"].is_null());
  EXPECT_EQ(doc["version"].get<uint64_t>(), 9223372036854775901ULL);
  EXPECT_EQ(doc["manifestSize"].get<uint64_t>(), 654u);
  EXPECT_EQ(doc["createdAt"], "2026-11-29T19:23:19.777752452Z");
  EXPECT_TRUE(doc["metadata"].is_object());
  auto back = DecodeTagRecord(EncodeTagRecord(tag), "t.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->version, tag.version);
  EXPECT_FALSE(back->branch.has_value());
}

TEST(Refs, DecodesWhatLance8Wrote) {
  auto tag = DecodeTagRecord(
      R"({"branch":null,"version":2,"createdAt":"2026-11-29T19:23:19.777752452Z","updatedAt":"2026-11-29T19:23:19.777752452Z","manifestSize":654,"metadata":{}})",
      "after_append.json");
  ASSERT_TRUE(tag.ok());
  EXPECT_EQ(tag->version, 2u);
  EXPECT_EQ(tag->manifest_size, 654u);
  auto branch = DecodeBranchRecord(
      R"({"parentBranch":null,"identifier":{"version_mapping":[[3,"c803931f34104070bc4c62ed7cd02c5c"]]},"parentVersion":3,"createAt":1795980199,"manifestSize":700,"metadata":{}})",
      "exp.json");
  ASSERT_TRUE(branch.ok());
  EXPECT_EQ(branch->parent_version, 3u);
  EXPECT_EQ(branch->create_at, 1795980199);
  EXPECT_EQ(branch->manifest_size, 700u);
  EXPECT_EQ(branch->identifier, "c803931f34104070bc4c62ed7cd02c5c");
  EXPECT_FALSE(branch->parent_branch.has_value());
}

TEST(Refs, MalformedRecordsAreCorruptData) {
  EXPECT_EQ(DecodeTagRecord("{", "x.json").status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(DecodeTagRecord("[]", "x.json").status().code(), ErrorCode::kCorruptData);
  auto missing = DecodeTagRecord(R"({"branch":null})", "x.json");
  EXPECT_EQ(missing.status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(missing.status().message(), "x.json: missing or non-numeric \"version\"");
  EXPECT_EQ(DecodeBranchRecord(R"({"parentVersion":"3"})", "b.json").status().code(), ErrorCode::kCorruptData);
}

TEST(Refs, NameRules) {
  EXPECT_TRUE(ValidateTagName("v1.0_rc-2").ok());
  EXPECT_FALSE(ValidateTagName("").ok());
  EXPECT_FALSE(ValidateTagName(".hidden").ok());
  EXPECT_FALSE(ValidateTagName("end.").ok());
  EXPECT_FALSE(ValidateTagName("a..b").ok());
  EXPECT_FALSE(ValidateTagName("x.lock").ok());
  EXPECT_FALSE(ValidateTagName("a/b").ok());
  EXPECT_EQ(ValidateTagName("sp ace").message(), "tag name 'sp ace' contains ' '");
  EXPECT_TRUE(ValidateBranchName("feature/x-1").ok());
  EXPECT_FALSE(ValidateBranchName("feature//x").ok());
  EXPECT_FALSE(ValidateBranchName("/x").ok());
}

TEST(Refs, BranchRecordPathsEncodeSlashes) {
  EXPECT_EQ(BranchRecordPath("feature/x"), "_refs/branches/feature%2Fx.json");
  EXPECT_EQ(TagRecordPath("first"), "_refs/tags/first.json");
  EXPECT_EQ(BranchNameFromRecordFile("feature%2Fx.json"), "feature/x");
  EXPECT_EQ(TagNameFromRecordFile("first.json"), "first");
  EXPECT_FALSE(TagNameFromRecordFile("first.txt"));
}

}  // namespace refs_test
}  // namespace omnigraph::lance
