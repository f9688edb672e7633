// `blob get` / `blob stat` through the binary (spec/surface.md §5.2): raw
// bytes on stdout or durably in a file, ranges, the stat document, and
// the refusals (exit codes and messages). The CLI has no external-blob
// allow-list, so every URI is refused by load and mutate.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/omnigraph.h"
#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace blob_cli_test {

using testing::CliRun;

constexpr std::string_view kSchema =
    "node Item {\n  sku: String @key\n  grp: I32\n  doc: Blob?\n}\nedge Next: Item -> Item\n";
constexpr std::string_view kData =
    "{\"type\":\"Item\",\"data\":{\"sku\":\"i000\",\"grp\":0}}\n"
    "{\"type\":\"Item\",\"data\":{\"sku\":\"i001\",\"grp\":1,\"doc\":\"base64:\"}}\n"
    "{\"type\":\"Item\",\"data\":{\"sku\":\"i002\",\"grp\":2,\"doc\":\"base64:aGk=\"}}\n"
    "{\"type\":\"Item\",\"data\":{\"sku\":\"i003\",\"grp\":0,\"doc\":null}}\n"
    "{\"type\":\"Item\",\"data\":{\"sku\":\"i004\",\"grp\":1,\"doc\":\"base64:aGVsbG8gd29ybGQ=\"}}\n";

class BlobCliTest : public testing::CliGraphTest {
 protected:
  void SetUp() override {
    Write("schema.pg", kSchema);
    Write("data.jsonl", kData);
    InitGraph("schema.pg", "data.jsonl", "overwrite");
  }
  std::string ReadFile(const std::string& name) {
    std::ifstream in(dir_.path() + "/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

TEST_F(BlobCliTest, StatPrintsTheDocumentOfB15) {
  CliRun empty = Run("blob stat node Item i001 doc --store g --json");
  ASSERT_EQ(empty.rc, 0) << empty.err;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(empty.out);
  EXPECT_EQ(doc["selector"].dump(), R"({"entity":"node","type":"Item","id":"i001","property":"doc"})");
  EXPECT_EQ(doc["kind"], "managed");
  EXPECT_EQ(doc["size"], 0);
  EXPECT_TRUE(doc["etag"].is_string());
  EXPECT_FALSE(doc.contains("uri"));
  const std::string head = Head();
  EXPECT_EQ(doc["target"].dump(), R"({"branch":"main","resolved_snapshot":")" + head + R"("})");
  // Members in the spec's order.
  std::vector<std::string> keys;
  for (auto& [key, value] : doc.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"selector", "kind", "size", "etag", "target"}));

  CliRun hi = Run("blob stat node Item i002 doc --store g --json");
  ASSERT_EQ(hi.rc, 0) << hi.err;
  EXPECT_EQ(nlohmann::json::parse(hi.out)["size"], 2);

  CliRun null = Run("blob stat node Item i003 doc --store g --json");
  EXPECT_EQ(null.rc, 1);
  EXPECT_EQ(null.out, "");
  EXPECT_EQ(null.err, "error: blob property 'Item.doc' of node 'i003' is null\n");

  CliRun human = Run("blob stat node Item i002 doc --store g");
  ASSERT_EQ(human.rc, 0) << human.err;
  EXPECT_EQ(human.out.rfind("kind: managed\nsize: 2\netag: \"", 0), 0u) << human.out;
  EXPECT_NE(human.out.find("\nresolved_snapshot: " + head + "\n"), std::string::npos) << human.out;

  CliRun snapshot = Run("blob stat node Item i002 doc --store g --snapshot " + head + " --json");
  ASSERT_EQ(snapshot.rc, 0) << snapshot.err;
  EXPECT_EQ(nlohmann::ordered_json::parse(snapshot.out)["target"].dump(),
            R"({"snapshot":")" + head + R"(","resolved_snapshot":")" + head + R"("})");
}

TEST_F(BlobCliTest, GetStreamsBytesAndRanges) {
  CliRun whole = Run("blob get node Item i004 doc --store g");
  ASSERT_EQ(whole.rc, 0) << whole.err;
  EXPECT_EQ(whole.out, "hello world");
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --offset 6").out, "world");
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --offset 2 --length 3").out, "llo");
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --offset 8 --length 100").out, "rld");
  CliRun empty = Run("blob get node Item i001 doc --store g");
  EXPECT_EQ(empty.rc, 0) << empty.err;
  EXPECT_EQ(empty.out, "");

  CliRun to_file = Run("blob get node Item i004 doc --store g --length 5 --out part.bin");
  ASSERT_EQ(to_file.rc, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(ReadFile("part.bin"), "hello");
}

TEST_F(BlobCliTest, GetRefusesBadRangesAndMissingValues) {
  CliRun zero = Run("blob get node Item i004 doc --store g --length 0");
  EXPECT_EQ(zero.rc, 2);
  EXPECT_EQ(zero.err, "error: --length must be positive\n");
  CliRun overflow = Run("blob get node Item i004 doc --store g --offset 10 --length 18446744073709551615");
  EXPECT_EQ(overflow.rc, 2);
  EXPECT_EQ(overflow.err, "error: --offset 10 + --length 18446744073709551615 overflows\n");
  CliRun too_big = Run("blob get node Item i004 doc --store g --length 18446744073709551616");
  EXPECT_EQ(too_big.rc, 2) << too_big.err;
  EXPECT_EQ(too_big.err, "error: --length must be a whole number of bytes below 2^64, got '18446744073709551616'\n");
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --offset -1").rc, 2);
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --length 1x").rc, 2);

  CliRun past = Run("blob get node Item i004 doc --store g --offset 11");
  EXPECT_EQ(past.rc, 1);
  EXPECT_EQ(past.out, "");
  EXPECT_EQ(past.err, "error: blob range [11, 11) is not satisfiable: the value holds 11 bytes\n");

  CliRun null = Run("blob get node Item i003 doc --store g --out never.bin");
  EXPECT_EQ(null.rc, 1);
  EXPECT_EQ(null.err, "error: blob property 'Item.doc' of node 'i003' is null\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/never.bin"));

  EXPECT_EQ(Run("blob get node Item i999 doc --store g").err, "error: node Item 'i999' not found\n");
  EXPECT_EQ(Run("blob get node Item i004 grp --store g").err, "error: property 'Item.grp' is I32, not Blob\n");
  EXPECT_EQ(Run("blob get node Item i004 nope --store g").err, "error: node type 'Item' has no property 'nope'\n");
  EXPECT_EQ(Run("blob get node Thing i004 doc --store g").err, "error: unknown node type 'Thing'\n");
  EXPECT_EQ(Run("blob get vertex Item i004 doc --store g").rc, 1);
  // --branch and --snapshot exclude each other; get has no --json.
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --branch main --snapshot x").rc, 2);
  EXPECT_EQ(Run("blob get node Item i004 doc --store g --json").rc, 2);
}

TEST_F(BlobCliTest, TheCliAdmitsNoExternalUris) {
  const std::string head = Head();
  Write("ext.jsonl", "{\"type\":\"Item\",\"data\":{\"sku\":\"i009\",\"grp\":0,\"doc\":\"file:///etc/passwd\"}}\n");
  CliRun load = Run("load --store g --data ext.jsonl --mode merge --quiet");
  EXPECT_EQ(load.rc, 1);
  EXPECT_EQ(load.err,
            "error: ext.jsonl:1: blob property 'doc': external Blob URIs are denied by the graph's "
            "ExternalBlobPolicy (use base64: data)\n");
  EXPECT_EQ(Head(), head);
  // Export keeps NULL and empty apart.
  CliRun exported = Run("export --store g --type Item");
  ASSERT_EQ(exported.rc, 0) << exported.err;
  EXPECT_NE(exported.out.find("\"doc\":\"base64:\""), std::string::npos);
  EXPECT_NE(exported.out.find("\"doc\":\"base64:aGk=\""), std::string::npos);
  EXPECT_NE(exported.out.find("\"doc\":null"), std::string::npos);
}

// An external value (admitted through the embedded API, which has an
// allow-list): stat names its URI; get prints the URI and exits non-zero.
TEST_F(BlobCliTest, AnExternalBlobIsStattedAndRefusedByGet) {
  {
    auto graph = api::Omnigraph::Open(dir_.path() + "/g");
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    auto policy = exec::ExternalBlobPolicy::Allow({{"s3://assets/k", exec::ExternalBlobScope::kServerSafe}});
    ASSERT_TRUE(policy.ok());
    (*graph)->set_external_blob_policy(*policy);
    auto loaded = (*graph)->Load("{\"type\":\"Item\",\"data\":{\"sku\":\"i005\",\"grp\":2,\"doc\":\"s3://assets/k/a.pdf\"}}\n",
                                 "ext.jsonl", api::LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  CliRun stat = Run("blob stat node Item i005 doc --store g --json");
  ASSERT_EQ(stat.rc, 0) << stat.err;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(stat.out);
  EXPECT_EQ(doc["kind"], "external");
  EXPECT_EQ(doc["uri"], "s3://assets/k/a.pdf");
  EXPECT_FALSE(doc.contains("size"));
  EXPECT_FALSE(doc.contains("etag"));

  CliRun get = Run("blob get node Item i005 doc --store g --out never.bin");
  EXPECT_EQ(get.rc, 1);
  EXPECT_EQ(get.out, "s3://assets/k/a.pdf\n");
  EXPECT_EQ(get.err,
            "error: blob property 'Item.doc' of node 'i005' is an external blob; its bytes are at s3://assets/k/a.pdf\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/never.bin"));
  // Export writes the URI.
  EXPECT_NE(Run("export --store g --type Item").out.find("\"doc\":\"s3://assets/k/a.pdf\""), std::string::npos);
}

}  // namespace blob_cli_test
}  // namespace omnigraph::cli
