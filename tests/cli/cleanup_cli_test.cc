// `omnigraph cleanup` (spec/surface.md §5.2): the policy it requires, the
// preview without --confirm, duration parsing, the human line and the
// JSON document.
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace omnigraph::testing {
namespace cleanup_cli_test {

namespace fs = std::filesystem;

constexpr std::string_view kSchema = "node Item {\n    sku: String @key\n    qty: I32\n}\n";
constexpr std::string_view kData = R"({"type":"Item","data":{"sku":"i1","qty":1}}
{"type":"Item","data":{"sku":"i2","qty":1}}
)";
constexpr std::string_view kMutations =
    "query set_qty($sku: String, $qty: I32) { update Item set { qty: $qty } where sku = $sku }\n";

class CleanupCliTest : public CliGraphTest {
 protected:
  void SetUp() override {
    Write("schema.pg", kSchema);
    Write("data.jsonl", kData);
    Write("m.gq", kMutations);
    InitGraph("schema.pg", "data.jsonl", "overwrite");
    for (int qty : {2, 3}) {
      CliRun r = Run("mutate set_qty --query m.gq --store g --params '{\"sku\":\"i1\",\"qty\":" + std::to_string(qty) +
                     "}'");
      ASSERT_EQ(r.rc, 0) << r.err;
    }
  }
  std::map<std::string, uint64_t> Files() {
    std::map<std::string, uint64_t> files;
    for (const auto& e : fs::recursive_directory_iterator(dir_.path() + "/g")) {
      std::string rel = fs::relative(e.path(), dir_.path() + "/g").string();
      if (e.is_regular_file() && rel.rfind("_locks/", 0) != 0) files[rel] = e.file_size();
    }
    return files;
  }
};

TEST_F(CleanupCliTest, WithoutAPolicyItIsRefused) {
  auto before = Files();
  CliRun r = Run("cleanup --store g --confirm");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("cleanup requires a retention policy: --keep N and/or --older-than DUR"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Files(), before);
}

TEST_F(CleanupCliTest, BadPolicyValuesAreUsageErrors) {
  auto before = Files();
  for (const char* args : {"--keep 0", "--keep -1", "--keep x", "--keep ''", "--older-than 5y", "--older-than ''",
                           "--older-than -3d", "--older-than 1.5h", "--older-than d",
                           "--older-than 99999999999999999999"}) {
    CliRun r = Run(std::string("cleanup --store g --confirm ") + args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_EQ(Files(), before);
  CliRun r = Run("cleanup --store g --confirm --older-than 5y");
  EXPECT_NE(r.err.find("--older-than '5y' is not a duration: expected <n>[s|m|h|d|w]"), std::string::npos) << r.err;
}

TEST_F(CleanupCliTest, WithoutConfirmItPreviewsAndDeletesNothing) {
  auto before = Files();
  CliRun r = Run("cleanup --store g --keep 1");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // genesis, load, the first update: 3 __manifest versions; Item: the
  // load's and the first update's versions.
  EXPECT_NE(r.err.find("cleanup preview g (keep 1) — would have removed 5 versions ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("across 2 datasets; nothing was deleted (pass --confirm)"), std::string::npos) << r.err;
  EXPECT_EQ(Files(), before);
}

TEST_F(CleanupCliTest, DurationsParseEveryUnit) {
  // Every version is younger than any of these: nothing goes, whatever the unit.
  for (const char* d : {"120", "120s", "3m", "2h", "1d", "1w"}) {
    CliRun r = Run(std::string("cleanup --store g --confirm --json --older-than ") + d);
    ASSERT_EQ(r.rc, 0) << d << ": " << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["versions_removed"], 0) << d;
  }
  const std::map<std::string, uint64_t> secs{{"120", 120}, {"120s", 120}, {"3m", 180},
                                             {"2h", 7200}, {"1d", 86400}, {"1w", 604800}};
  for (const auto& [text, expected] : secs) {
    CliRun r = Run("cleanup --store g --json --older-than " + text);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["older_than_secs"], expected) << text;
  }
}

TEST_F(CleanupCliTest, ConfirmedRunPrintsTheSummaryAndJson) {
  auto before = Files();
  CliRun r = Run("cleanup --store g --keep 1 --confirm --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["uri"], "g");
  EXPECT_EQ(doc["keep_versions"], 1);
  EXPECT_TRUE(doc["older_than_secs"].is_null());
  EXPECT_EQ(doc["confirmed"], true);
  EXPECT_EQ(doc["versions_removed"], 5);
  ASSERT_EQ(doc["datasets"].size(), 2u);
  const nlohmann::json& manifest = doc["datasets"][0];
  EXPECT_EQ(manifest["type_key"], "__manifest");
  EXPECT_EQ(manifest["old_versions_removed"], 3);
  EXPECT_EQ(manifest["manifests_removed"], 3);
  const nlohmann::json& item = doc["datasets"][1];
  EXPECT_EQ(item["type_key"], "node:Item");
  EXPECT_EQ(item["old_versions_removed"], 2);
  EXPECT_EQ(item["unpublished_manifests"], 0);
  EXPECT_EQ(item["unpublished_bytes"], 0);
  EXPECT_EQ(item["foreign_versions"], 0);
  EXPECT_TRUE(item["error"].is_null());
  uint64_t gone = 0;
  auto after = Files();
  for (const auto& [path, size] : before) gone += after.count(path) ? 0 : size;
  EXPECT_EQ(doc["bytes_removed"], gone);
  EXPECT_EQ(manifest["bytes_removed"].get<uint64_t>() + item["bytes_removed"].get<uint64_t>(), gone);

  CliRun again = Run("cleanup --store g --keep 1 --confirm");
  ASSERT_EQ(again.rc, 0) << again.err;
  EXPECT_EQ(again.out, "cleanup g (keep 1) — removed 0 versions (0 bytes) across 0 datasets\n");
  EXPECT_NE(again.err.find("omnigraph cleanup → g (direct, local)"), std::string::npos) << again.err;
  // The head still reads.
  Write("q.gq", "query items() { match { $i: Item } return { $i.sku, $i.qty } order { $i.sku } }\n");
  CliRun read = Run("query items --query q.gq --store g --format jsonl");
  ASSERT_EQ(read.rc, 0) << read.err;
  EXPECT_NE(read.out.find("{\"i.sku\":\"i1\",\"i.qty\":3}"), std::string::npos) << read.out;
}

}  // namespace cleanup_cli_test
}  // namespace omnigraph::testing
