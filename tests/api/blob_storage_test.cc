// How Blob properties are stored (spec/engine.md §1.2, surface.md §1.3):
// a type with a Blob property is a Lance table of file format 2.2 whose
// Blob column is a blob v2 column, other types' tables stay 2.1; payloads
// survive many small writes and compaction byte for byte, with NULL and
// empty distinct; and `schema apply` refuses to add a Blob to an existing
// type whose table is 2.1 (Lance refuses tables mixing file versions).
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "columnar/blob_cell.h"
#include "io/local_store.h"
#include "lance/manifest.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace blob_storage_test {

constexpr std::string_view kSchema = R"(
node Doc {
    slug: String @key
    body: Blob?
    tags: [String]?
}
node Tag {
    label: String @key
}
)";

constexpr std::string_view kMutations = R"(
query put($slug: String, $body: Blob?) {
    insert Doc { slug: $slug, body: $body }
}
query set_body($slug: String, $body: Blob?) {
    update Doc set { body: $body } where slug = $slug
}
query tag($label: String) {
    insert Tag { label: $label }
}
)";

std::string Base64(std::string_view bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kAlphabet[(v >> k) & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::string Pattern(size_t size, int seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 17 + static_cast<size_t>(seed) * 31 + i / 251) & 0xFF);
  return s;
}

// Every manifest of every table under `graph`, by the table's directory.
std::map<std::string, std::vector<lance::Manifest>> TableManifests(const std::string& graph) {
  std::map<std::string, std::vector<lance::Manifest>> out;
  auto store = LocalStore::Make(graph);
  for (const char* kind : {"nodes", "edges"}) {
    if (!std::filesystem::exists(graph + "/" + kind)) continue;
    for (auto& table : std::filesystem::directory_iterator(graph + "/" + kind)) {
      for (auto& file : std::filesystem::directory_iterator(table.path() / "_versions")) {
        if (file.path().extension() != ".manifest") continue;
        auto key = std::filesystem::relative(file.path(), graph).string();
        auto bytes = store->Get(key);
        EXPECT_TRUE(bytes.ok()) << key;
        auto decoded = lance::DecodeManifestFile((*bytes)->view(), key);
        EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
        if (decoded.ok()) out[table.path().filename().string()].push_back(decoded->manifest);
      }
    }
  }
  return out;
}

// The data format and data-file versions of every manifest of the tables
// holding a field named `field` (true) or not (false). With `blob`, that
// field must be a blob v2 field.
std::map<bool, std::set<std::string>> Formats(const std::string& graph, const std::string& field, bool blob = true) {
  std::map<bool, std::set<std::string>> formats;
  for (const auto& [dir, manifests] : TableManifests(graph)) {
    for (const lance::Manifest& m : manifests) {
      const Field* f = m.schema.FindField(field);
      const bool has = f != nullptr;
      if (has) {
        EXPECT_EQ(IsBlobV2Field(*f), blob) << dir;
      }
      formats[has].insert("manifest " + m.data_format_version);
      for (const lance::Fragment& fragment : m.fragments) {
        for (const lance::DataFile& file : fragment.files) {
          formats[has].insert(fmt::format("file {}.{}", file.file_major_version, file.file_minor_version));
        }
      }
    }
  }
  return formats;
}

class BlobStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(Uri(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }
  std::string Uri() const { return dir_.path() + "/g"; }
  void Put(const std::string& slug, std::optional<std::string> body) {
    std::string params = body ? fmt::format(R"({{"slug":"{}","body":"base64:{}"}})", slug, Base64(*body))
                              : fmt::format(R"({{"slug":"{}","body":null}})", slug);
    auto done = graph_->Mutate(kMutations, "m.gq", "put", params);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
  }
  Result<BlobBytes> Get(const std::string& slug, uint64_t offset = 0, std::optional<uint64_t> length = {}) {
    return graph_->BlobGet(exec::BlobSelector{"node", "Doc", slug, "body"}, {}, exec::BlobRangeRequest{offset, length});
  }
  // The whole value, read in ranges of at most 4 MiB.
  std::string Whole(const std::string& slug) {
    std::string out;
    while (true) {
      auto part = Get(slug, out.size());
      EXPECT_TRUE(part.ok()) << part.status().ToString();
      if (!part.ok()) return out;
      out += part->bytes;
      if (part->end >= *part->info.size) return out;
    }
  }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

TEST_F(BlobStorageTest, ATypeWithABlobIsAFormat22TableAndOthersStay21) {
  Put("a", std::string("hello"));
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "tag", R"({"label":"x"})").ok());
  auto formats = Formats(Uri(), "body");
  EXPECT_EQ(formats[true], (std::set<std::string>{"manifest 2.2", "file 2.2"}));
  EXPECT_EQ(formats[false], (std::set<std::string>{"manifest 2.1", "file 2.1"}));
  ASSERT_TRUE(graph_->Optimize().ok());
  formats = Formats(Uri(), "body");
  EXPECT_EQ(formats[true], (std::set<std::string>{"manifest 2.2", "file 2.2"}));
  EXPECT_EQ(formats[false], (std::set<std::string>{"manifest 2.1", "file 2.1"}));
}

TEST_F(BlobStorageTest, PayloadsSurviveSmallWritesAndCompactionByteForByte) {
  const std::map<std::string, std::optional<std::string>> values = {
      {"big", Pattern(5 * 1024 * 1024 + 77, 1)},   // above 4 MiB: read in two ranges
      {"mid", Pattern(70 * 1024, 2)},              // above Lance's 64 KiB inline threshold
      {"bytes", Pattern(256, 3)},
      {"empty", std::string()},
      {"null", std::nullopt},
      {"marker", EncodeExternalBlobCell("s3://bucket/k")},  // managed bytes that look like a reference
  };
  for (const auto& [slug, body] : values) Put(slug, body);  // one fragment each
  // Rewrites: "bytes" becomes empty, "empty" becomes NULL, "null" gets bytes.
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"bytes","body":"base64:"})").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"empty","body":null})").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"null","body":"base64:AAEC"})").ok());
  auto check = [&](const std::string& stage) {
    EXPECT_EQ(Whole("big"), *values.at("big")) << stage;
    EXPECT_EQ(Whole("mid"), *values.at("mid")) << stage;
    EXPECT_EQ(Whole("marker"), *values.at("marker")) << stage;
    EXPECT_EQ(Get("marker")->info.external, false) << stage;
    EXPECT_EQ(Whole("null"), std::string("\0\1\2", 3)) << stage;
    auto empty = Get("bytes");
    ASSERT_TRUE(empty.ok()) << stage << empty.status().ToString();
    EXPECT_EQ(*empty->info.size, 0u) << stage;
    EXPECT_EQ(Get("empty").status().code(), ErrorCode::kNotFound) << stage;
    // A range in the middle of the big value.
    auto range = Get("big", 4 * 1024 * 1024 - 3, 10);
    ASSERT_TRUE(range.ok()) << stage;
    EXPECT_EQ(range->bytes, values.at("big")->substr(4 * 1024 * 1024 - 3, 10)) << stage;
  };
  check("before optimize");
  auto optimized = graph_->Optimize();
  ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
  check("after optimize");
  // Compaction left one fragment of 2.2 files holding every row.
  for (const auto& [dir, manifests] : TableManifests(Uri())) {
    for (const lance::Manifest& m : manifests) {
      if (m.schema.FindField("body") == nullptr) continue;
      for (const lance::Fragment& f : m.fragments) {
        for (const lance::DataFile& file : f.files) EXPECT_EQ(file.file_minor_version, 2u);
      }
    }
  }
}

TEST_F(BlobStorageTest, SchemaApplyRefusesABlobOnAnExistingTypeWithoutOne) {
  Put("a", std::string("x"));
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "tag", R"({"label":"t"})").ok());
  // Tag (a 2.1 table) gains a Blob: refused with the reason, nothing changes.
  const std::string tag_blob = std::string(kSchema).replace(std::string(kSchema).find("label: String @key"),
                                                            18, "label: String @key\n    icon: Blob?");
  auto plan = graph_->PlanSchema(tag_blob, "v2.pg", false);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_FALSE(plan->plan.supported);
  ASSERT_EQ(plan->plan.steps.size(), 1u);
  EXPECT_EQ(plan->plan.steps[0].kind, "unsupported_change");
  EXPECT_EQ(plan->plan.steps[0].Describe(),
            "unsupported change on Tag.icon: adding Blob property 'icon' to existing node type 'Tag' is not "
            "supported: its table stores Lance file format 2.1, a Blob column needs format 2.2, and Lance refuses "
            "a table mixing both; declare Blob properties when the type is created (or add a new type)");
  auto applied = graph_->ApplySchema(tag_blob, "v2.pg", false);
  ASSERT_EQ(applied.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(applied.status().message().find("adding Blob property 'icon'"), std::string::npos);
  EXPECT_EQ(graph_->SchemaSource().value(), kSchema);

  // A second Blob on Doc (already 2.2) and a new type with a Blob are fine.
  std::string more = std::string(kSchema).replace(std::string(kSchema).find("tags: [String]?"), 15,
                                                  "tags: [String]?\n    thumb: Blob?");
  more += "node Img {\n    name: String @key\n    data: Blob\n}\n";
  auto ok = graph_->ApplySchema(more, "v3.pg", false);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ok->applied);
  const std::string queries = R"(
query thumb($slug: String, $t: Blob?) { update Doc set { thumb: $t } where slug = $slug }
query img($name: String, $d: Blob) { insert Img { name: $name, data: $d } }
)";
  ASSERT_TRUE(graph_->Mutate(queries, "q.gq", "thumb", R"({"slug":"a","t":"base64:dGh1bWI="})").ok());
  ASSERT_TRUE(graph_->Mutate(queries, "q.gq", "img", R"({"name":"i","d":"base64:"})").ok());
  EXPECT_EQ(graph_->BlobGet(exec::BlobSelector{"node", "Doc", "a", "thumb"})->bytes, "thumb");
  EXPECT_EQ(graph_->BlobGet(exec::BlobSelector{"node", "Doc", "a", "body"})->bytes, "x");
  EXPECT_EQ(*graph_->BlobStat(exec::BlobSelector{"node", "Img", "i", "data"})->size, 0u);
  auto formats = Formats(Uri(), "label", /*blob=*/false);
  EXPECT_EQ(formats[true], (std::set<std::string>{"manifest 2.1", "file 2.1"}));  // Tag
  ASSERT_TRUE(graph_->Optimize().ok());
  EXPECT_EQ(graph_->BlobGet(exec::BlobSelector{"node", "Doc", "a", "thumb"})->bytes, "thumb");
}

}  // namespace blob_storage_test
}  // namespace omnigraph::api
