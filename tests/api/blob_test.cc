// Blob properties end to end through the embedded API (spec/surface.md
// §1.3, §4.2, §4.5, §5.2 `blob get` / `blob stat`, §6.3; engine.md §5.3):
// ranged reads, stat, the ExternalBlobPolicy, and NULL staying distinct
// from an empty blob through load, export, merge and compaction.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/omnigraph.h"
#include "api/wire/blob_json.h"
#include "api/wire/error_json.h"
#include "exec/blob_value.h"
#include "support/temp_dir.h"

namespace omnigraph::api {
namespace blob_test {

using exec::BlobRangeRequest;
using exec::BlobSelector;

constexpr std::string_view kSchema = R"(
node Doc {
    slug: String @key
    body: Blob?
    rank: I32?
}

edge Cites: Doc -> Doc {
    note: Blob?
}
)";

// a: "hello world", b: empty, c: NULL, d: absent (NULL); a -> b carries "hi".
constexpr std::string_view kData =
    R"({"type":"Doc","data":{"slug":"a","body":"base64:aGVsbG8gd29ybGQ=","rank":1}}
{"type":"Doc","data":{"slug":"b","body":"base64:"}}
{"type":"Doc","data":{"slug":"c","body":null}}
{"type":"Doc","data":{"slug":"d"}}
{"edge":"Cites","from":"a","to":"b","data":{"id":"e1","note":"base64:aGk="}}
)";

constexpr std::string_view kMutations = R"(
query put($slug: String, $body: Blob?) {
    insert Doc { slug: $slug, body: $body }
}
query set_body($slug: String, $body: Blob?) {
    update Doc set { body: $body } where slug = $slug
}
)";

class BlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Omnigraph::Init(dir_.path() + "/g", kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
    auto loaded = graph_->Load(kData, "data.jsonl", LoadMode::kOverwrite);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }

  static BlobSelector Doc(const std::string& slug, const std::string& property = "body") {
    return BlobSelector{"node", "Doc", slug, property};
  }
  Result<BlobBytes> Get(const BlobSelector& selector, uint64_t offset = 0, std::optional<uint64_t> length = {}) {
    return graph_->BlobGet(selector, {}, BlobRangeRequest{offset, length});
  }
  // The Doc line of the export, without its id (keys are ids here).
  std::string ExportedDocs(Omnigraph& g, const std::string& branch = "main") {
    auto out = g.Export(branch, {"Doc"});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : "";
  }
  // Head commit and manifest version of main: unchanged after a refusal.
  std::pair<std::string, uint64_t> Head() {
    auto snapshot = graph_->Snapshot();
    EXPECT_TRUE(snapshot.ok());
    return {snapshot->head_commit_id, snapshot->graph_manifest_version};
  }
  // A directory that exists, for file:// bases.
  std::string MakeDir(const std::string& name) {
    std::filesystem::create_directories(dir_.path() + "/" + name);
    return dir_.path() + "/" + name;
  }

  testing::TempDir dir_;
  std::unique_ptr<Omnigraph> graph_;
};

TEST_F(BlobTest, GetReadsTheWholeValueAndRanges) {
  auto whole = Get(Doc("a"));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->bytes, "hello world");
  EXPECT_EQ(whole->start, 0u);
  EXPECT_EQ(whole->end, 11u);
  EXPECT_EQ(*whole->info.size, 11u);
  EXPECT_FALSE(whole->info.external);

  EXPECT_EQ(Get(Doc("a"), 6)->bytes, "world");
  EXPECT_EQ(Get(Doc("a"), 2, 3)->bytes, "llo");
  // The end is clamped to the value's end.
  auto clamped = Get(Doc("a"), 8, 100);
  ASSERT_TRUE(clamped.ok());
  EXPECT_EQ(clamped->bytes, "rld");
  EXPECT_EQ(clamped->end, 11u);
  EXPECT_EQ(Get(Doc("a"), 10, 1)->bytes, "d");
  // An edge Blob; edge type names are case-insensitive.
  auto note = graph_->BlobGet(BlobSelector{"edge", "cites", "e1", "note"});
  ASSERT_TRUE(note.ok()) << note.status().ToString();
  EXPECT_EQ(note->bytes, "hi");
  EXPECT_EQ(note->info.selector.type, "Cites");
}

TEST_F(BlobTest, AnEmptyBlobIsAValueAndNullIsNotFound) {
  auto empty = Get(Doc("b"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->bytes, "");
  EXPECT_EQ(*empty->info.size, 0u);
  // Any offset of an empty value reads nothing (only a non-empty value's
  // range can be unsatisfiable).
  EXPECT_EQ(Get(Doc("b"), 5, 1)->bytes, "");

  for (const char* slug : {"c", "d"}) {
    auto null = Get(Doc(slug));
    ASSERT_EQ(null.status().code(), ErrorCode::kNotFound) << slug;
    EXPECT_EQ(null.status().message(), fmt::format("blob property 'Doc.body' of node '{}' is null", slug));
    EXPECT_EQ(graph_->BlobStat(Doc(slug)).status().message(), null.status().message());
  }
}

TEST_F(BlobTest, BadRangesAreRefusedBeforeAnythingIsRead) {
  auto zero = Get(Doc("a"), 0, 0);
  EXPECT_EQ(zero.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "blob range length must be positive");
  auto overflow = Get(Doc("a"), 10, UINT64_MAX);
  EXPECT_EQ(overflow.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(overflow.status().message(), "blob range offset 10 + length 18446744073709551615 overflows");
  auto too_long = Get(Doc("a"), 0, (4u << 20) + 1);
  ASSERT_EQ(too_long.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(too_long.status().details().at("resource"), "Blob read range bytes");
  EXPECT_EQ(too_long.status().details().at("limit"), "4194304");
  // Refused up front: even for a selector that names nothing.
  EXPECT_EQ(Get(Doc("nobody"), 0, 0).status().code(), ErrorCode::kInvalidArgument);
  // Exactly 4 MiB is allowed.
  EXPECT_EQ(Get(Doc("a"), 0, 4u << 20)->bytes, "hello world");

  auto past = Get(Doc("a"), 11, 2);
  ASSERT_EQ(past.status().code(), ErrorCode::kBlobRangeNotSatisfiable);
  EXPECT_EQ(past.status().http_status(), 416);
  EXPECT_EQ(past.status().message(), "blob range [11, 13) is not satisfiable: the value holds 11 bytes");
  EXPECT_EQ(past.status().details().at("start"), "11");
  EXPECT_EQ(past.status().details().at("end"), "13");
  EXPECT_EQ(past.status().details().at("length"), "11");
  EXPECT_EQ(Get(Doc("a"), 50).status().code(), ErrorCode::kBlobRangeNotSatisfiable);
  // The wire body carries the range (surface.md §6.3 `blob_range`).
  EXPECT_EQ(wire::ErrorJson(past.status()).dump(),
            R"({"error":"blob range [11, 13) is not satisfiable: the value holds 11 bytes","code":"bad_request",)"
            R"("blob_range":{"start":11,"end":13,"length":11}})");
}

TEST_F(BlobTest, SelectorsNamingNoBlobAreRefusedClearly) {
  auto status_of = [&](BlobSelector s) { return graph_->BlobStat(s).status(); };
  EXPECT_EQ(status_of({"vertex", "Doc", "a", "body"}).message(), "blob entity must be 'node' or 'edge', got 'vertex'");
  EXPECT_EQ(status_of({"vertex", "Doc", "a", "body"}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(status_of({"node", "Page", "a", "body"}).message(), "unknown node type 'Page'");
  EXPECT_EQ(status_of({"node", "Page", "a", "body"}).code(), ErrorCode::kNotFound);
  EXPECT_EQ(status_of({"edge", "Links", "e1", "note"}).message(), "unknown edge type 'Links'");
  EXPECT_EQ(status_of({"node", "Doc", "a", "title"}).message(), "node type 'Doc' has no property 'title'");
  EXPECT_EQ(status_of({"node", "Doc", "a", "title"}).code(), ErrorCode::kNotFound);
  EXPECT_EQ(status_of({"node", "Doc", "a", "rank"}).message(), "property 'Doc.rank' is I32?, not Blob");
  EXPECT_EQ(status_of({"node", "Doc", "a", "rank"}).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(status_of({"node", "Doc", "zz", "body"}).message(), "node Doc 'zz' not found");
  EXPECT_EQ(status_of({"node", "Doc", "zz", "body"}).code(), ErrorCode::kNotFound);
  EXPECT_EQ(graph_->BlobStat(Doc("a"), ReadTarget{"nope", std::nullopt}).status().code(), ErrorCode::kNotFound);
}

TEST_F(BlobTest, StatReportsKindSizeTagAndTheSnapshotRead) {
  auto before = graph_->BlobStat(Doc("a"));
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_FALSE(before->external);
  EXPECT_EQ(*before->size, 11u);
  EXPECT_FALSE(before->uri.has_value());
  EXPECT_EQ(before->target.branch, "main");
  EXPECT_FALSE(before->target.snapshot.has_value());
  const std::string first_head = Head().first;
  EXPECT_EQ(before->target.resolved_snapshot, first_head);
  // The tag follows the content: equal bytes, equal tags.
  EXPECT_EQ(*before->etag, exec::BlobEtag("hello world"));
  EXPECT_NE(*before->etag, *graph_->BlobStat(Doc("b"))->etag);

  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"a","body":"base64:aGk="})").ok());
  auto after = graph_->BlobStat(Doc("a"));
  EXPECT_EQ(*after->size, 2u);
  EXPECT_EQ(*after->etag, exec::BlobEtag("hi"));
  EXPECT_NE(after->target.resolved_snapshot, first_head);
  // A snapshot target reads the past value and names the commit given.
  auto past = graph_->BlobGet(Doc("a"), ReadTarget{"main", first_head});
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(past->bytes, "hello world");
  EXPECT_EQ(past->info.target.snapshot, first_head);
  EXPECT_FALSE(past->info.target.branch.has_value());
  EXPECT_EQ(past->info.target.resolved_snapshot, first_head);
}

TEST_F(BlobTest, ExternalUrisAreDeniedByDefaultAndNothingChanges) {
  const auto head = Head();
  auto load = graph_->Load(R"({"type":"Doc","data":{"slug":"x","body":"base64:"}}
{"type":"Doc","data":{"slug":"y","body":"s3://bucket/key"}}
)", "ext.jsonl", LoadMode::kMerge);
  ASSERT_EQ(load.status().code(), ErrorCode::kExternalBlobPolicy);
  EXPECT_EQ(load.status().http_status(), 400);
  EXPECT_EQ(load.status().message(),
            "ext.jsonl:2: blob property 'body': external Blob URIs are denied by the graph's ExternalBlobPolicy "
            "(use base64: data)");
  EXPECT_EQ(load.status().details().at("uri"), "s3://bucket/key");
  EXPECT_EQ(wire::ErrorJson(load.status()).at("code"), "bad_request");
  auto mutate = graph_->Mutate(kMutations, "m.gq", "put", R"({"slug":"y","body":"file:///etc/passwd"})");
  ASSERT_EQ(mutate.status().code(), ErrorCode::kExternalBlobPolicy);
  EXPECT_EQ(mutate.status().message(),
            "parameter 'body': blob property 'body': external Blob URIs are denied by the graph's "
            "ExternalBlobPolicy (use base64: data)");
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(graph_->BlobStat(Doc("y")).status().message(), "node Doc 'y' not found");
}

TEST_F(BlobTest, AnAllowedExternalUriIsStoredAsAReference) {
  const std::string base = MakeDir("assets");
  auto policy = exec::ExternalBlobPolicy::Allow({{"FILE://" + base, exec::ExternalBlobScope::kEmbeddedOnly},
                                                 {"S3://Assets-Bucket/knowledge", exec::ExternalBlobScope::kServerSafe}});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  ASSERT_EQ(policy->bases().size(), 2u);
  EXPECT_EQ(policy->bases()[0].uri, "file://" + base + "/");
  EXPECT_EQ(policy->bases()[1].uri, "s3://assets-bucket/knowledge/");
  graph_->set_external_blob_policy(*policy);

  auto load = graph_->Load(fmt::format(R"({{"type":"Doc","data":{{"slug":"x","body":"file://{}/x.bin"}}}}
{{"type":"Doc","data":{{"slug":"y","body":"S3://Assets-Bucket/knowledge/y.pdf"}}}}
)", base), "ext.jsonl", LoadMode::kMerge);
  ASSERT_TRUE(load.ok()) << load.status().ToString();
  auto stat = graph_->BlobStat(Doc("x"));
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  EXPECT_TRUE(stat->external);
  EXPECT_EQ(*stat->uri, "file://" + base + "/x.bin");
  EXPECT_FALSE(stat->size.has_value());
  EXPECT_FALSE(stat->etag.has_value());
  EXPECT_EQ(wire::BlobStatJson(*stat).dump(),
            R"({"selector":{"entity":"node","type":"Doc","id":"x","property":"body"},"kind":"external","uri":"file://)" +
                base + R"(/x.bin","target":{"branch":"main","resolved_snapshot":")" + stat->target.resolved_snapshot +
                R"("}})");
  // The stored URI is the normalized one (scheme and bucket lower-cased).
  EXPECT_EQ(*graph_->BlobStat(Doc("y"))->uri, "s3://assets-bucket/knowledge/y.pdf");
  // get answers the URI and no bytes.
  auto get = Get(Doc("y"));
  ASSERT_TRUE(get.ok());
  EXPECT_TRUE(get->info.external);
  EXPECT_EQ(get->bytes, "");
  // Export writes the URI, which loads back as the same reference.
  std::string exported = ExportedDocs(*graph_);
  EXPECT_NE(exported.find(R"("body":"s3://assets-bucket/knowledge/y.pdf")"), std::string::npos) << exported;
  // A mutation parameter is admitted the same way.
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "put", R"({"slug":"z","body":"s3://assets-bucket/knowledge/z"})").ok());
  EXPECT_EQ(*graph_->BlobStat(Doc("z"))->uri, "s3://assets-bucket/knowledge/z");
  // Managed bytes that look like a stored reference stay managed bytes.
  const std::string lookalike = exec::EncodeExternalBlobCell("s3://assets-bucket/knowledge/y.pdf");
  EXPECT_EQ(exec::DecodeBlobCell(exec::EncodeManagedBlobCell(lookalike)).external, false);
  EXPECT_EQ(exec::DecodeBlobCell(exec::EncodeManagedBlobCell(lookalike)).payload, lookalike);
}

TEST_F(BlobTest, PolicyRefusalsNameTheLineOrParameterAndChangeNothing) {
  const std::string base = MakeDir("assets");
  MakeDir("secret");
  graph_->set_external_blob_policy(
      *exec::ExternalBlobPolicy::Allow({{"file://" + base, exec::ExternalBlobScope::kEmbeddedOnly},
                                        {"s3://assets-bucket/k", exec::ExternalBlobScope::kServerSafe}}));
  const auto head = Head();
  const std::string before = ExportedDocs(*graph_);
  struct Case {
    std::string uri;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"file://" + base + "/../secret/x", "dot segments ('.' or '..') are not allowed"},
      {"file://" + base + "/%2E%2e/secret/x", "dot segments ('.' or '..') are not allowed"},
      {"file://" + dir_.path() + "/secret/x", "it is under no allowed base of the graph's ExternalBlobPolicy"},
      {"file://" + base + "x/y", "it is under no allowed base of the graph's ExternalBlobPolicy"},
      {"http://example.com/x", "scheme 'http' is not approved (only file:// and s3://)"},
      {"s3://user:pw@assets-bucket/k/x", "credentials are not allowed"},
      {"s3://assets-bucket/k/x?versionId=1", "a query is not allowed"},
      {"file://host" + base + "/x", "a file:// URI must be host-less (file:///<absolute path>)"},
      {"just-a-name", "not an absolute URI (expected file:///<path> or s3://<bucket>/<key>)"},
      {"s3://assets-bucket/k/", "it names a directory, not a blob"},
  };
  for (const Case& c : cases) {
    // The refused URI is on line 2, after a valid line: nothing is written.
    auto load = graph_->Load(fmt::format("{{\"type\":\"Doc\",\"data\":{{\"slug\":\"n\"}}}}\n"
                                         "{{\"type\":\"Doc\",\"data\":{{\"slug\":\"m\",\"body\":\"{}\"}}}}\n",
                                         c.uri),
                             "ext.jsonl", LoadMode::kMerge);
    ASSERT_EQ(load.status().code(), ErrorCode::kExternalBlobPolicy) << c.uri << ": " << load.status().ToString();
    EXPECT_EQ(load.status().message(),
              fmt::format("ext.jsonl:2: blob property 'body': external Blob URI '{}' refused: {}", c.uri, c.reason));
    EXPECT_EQ(load.status().details().at("reason"), c.reason);
    auto mutate = graph_->Mutate(kMutations, "m.gq", "set_body", fmt::format(R"({{"slug":"a","body":"{}"}})", c.uri));
    ASSERT_EQ(mutate.status().code(), ErrorCode::kExternalBlobPolicy) << c.uri;
    EXPECT_EQ(mutate.status().message(),
              fmt::format("parameter 'body': blob property 'body': external Blob URI '{}' refused: {}", c.uri, c.reason));
  }
  // A URI above 64 KiB is a resource limit.
  auto huge = graph_->Mutate(kMutations, "m.gq", "set_body",
                             fmt::format(R"({{"slug":"a","body":"s3://assets-bucket/k/{}"}})", std::string(70000, 'x')));
  ASSERT_EQ(huge.status().code(), ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(huge.status().details().at("resource"), "external Blob URI bytes");
  EXPECT_EQ(Head(), head);
  EXPECT_EQ(ExportedDocs(*graph_), before);
}

TEST_F(BlobTest, AtMost8192NewUriCellsPerOperation) {
  graph_->set_external_blob_policy(
      *exec::ExternalBlobPolicy::Allow({{"s3://assets-bucket/k", exec::ExternalBlobScope::kServerSafe}}));
  const auto head = Head();
  // a and b stay (the committed edge e1 holds them), then 8,193 URI cells.
  std::string data = R"({"type":"Doc","data":{"slug":"a"}})" "\n" R"({"type":"Doc","data":{"slug":"b"}})" "\n";
  for (int i = 0; i < 8193; ++i) {
    data += fmt::format(R"({{"type":"Doc","data":{{"slug":"s{}","body":"s3://assets-bucket/k/{}"}}}})", i, i) + "\n";
  }
  auto over = graph_->Load(data, "many.jsonl", LoadMode::kOverwrite);
  ASSERT_EQ(over.status().code(), ErrorCode::kResourceLimitExceeded) << over.status().ToString();
  EXPECT_EQ(over.status().message(), "many.jsonl:8195: external Blob reference cells exceeds the limit: 8193 > 8192");
  EXPECT_EQ(over.status().details().at("resource"), "external Blob reference cells");
  EXPECT_EQ(over.status().details().at("limit"), "8192");
  EXPECT_EQ(over.status().details().at("actual"), "8193");
  EXPECT_EQ(Head(), head);
  // 8,192 is allowed.
  data.erase(data.rfind(R"({"type")"));
  auto ok = graph_->Load(data, "many.jsonl", LoadMode::kOverwrite);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*graph_->BlobStat(Doc("s8191"))->uri, "s3://assets-bucket/k/8191");
}

TEST_F(BlobTest, PolicyBasesAreValidated) {
  using exec::ExternalBlobPolicy;
  using exec::ExternalBlobScope;
  const std::string base = MakeDir("assets");
  EXPECT_TRUE(ExternalBlobPolicy::Allow({})->denies_all());
  EXPECT_EQ(ExternalBlobPolicy::Allow({{"file://" + base, ExternalBlobScope::kServerSafe}}).status().message(),
            fmt::format("invalid external blob base 'file://{}': a file:// base cannot be server_safe", base));
  EXPECT_EQ(ExternalBlobPolicy::Allow({{"file://" + base + "/missing", ExternalBlobScope::kEmbeddedOnly}})
                .status()
                .message(),
            fmt::format("invalid external blob base 'file://{}/missing': not an existing directory", base));
  EXPECT_EQ(ExternalBlobPolicy::Allow({{"s3://b/../c", ExternalBlobScope::kServerSafe}}).status().message(),
            "invalid external blob base 's3://b/../c': dot segments ('.' or '..') are not allowed");
  EXPECT_EQ(ExternalBlobPolicy::Allow({{"s3://b/k", ExternalBlobScope::kServerSafe},
                                       {"s3://b/k/sub", ExternalBlobScope::kServerSafe}})
                .status()
                .message(),
            "external blob bases 's3://b/k/' and 's3://b/k/sub/' overlap");
  // Sibling prefixes are not overlaps: a base ends with '/'.
  EXPECT_TRUE(ExternalBlobPolicy::Allow({{"s3://b/k", ExternalBlobScope::kServerSafe},
                                         {"s3://b/kk", ExternalBlobScope::kServerSafe}})
                  .ok());
}

// NULL and empty stay distinct through export -> load into another graph.
TEST_F(BlobTest, NullAndEmptyRoundTripThroughExportAndLoad) {
  const std::string exported = ExportedDocs(*graph_);
  EXPECT_EQ(exported,
            R"({"type":"Doc","data":{"id":"a","body":"base64:aGVsbG8gd29ybGQ=","rank":1,"slug":"a"}}
{"type":"Doc","data":{"id":"b","body":"base64:","rank":null,"slug":"b"}}
{"type":"Doc","data":{"id":"c","body":null,"rank":null,"slug":"c"}}
{"type":"Doc","data":{"id":"d","body":null,"rank":null,"slug":"d"}}
)");
  auto other = Omnigraph::Init(dir_.path() + "/g2", kSchema);
  ASSERT_TRUE(other.ok());
  auto all = graph_->Export("main", {});
  ASSERT_TRUE((*other)->Load(*all, "export.jsonl", LoadMode::kOverwrite).ok());
  EXPECT_EQ(ExportedDocs(**other), exported);
  EXPECT_EQ(*(*other)->BlobStat(Doc("b"))->size, 0u);
  EXPECT_EQ((*other)->BlobStat(Doc("c")).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ((*other)->BlobGet(BlobSelector{"edge", "Cites", "e1", "note"})->bytes, "hi");
}

// A three-way merge carries each side's Blob changes, NULL and empty
// included, and detects Blob changes by content.
TEST_F(BlobTest, NullAndEmptySurviveAThreeWayMerge) {
  ASSERT_TRUE(graph_->BranchCreate("feature").ok());
  // On the branch: a becomes empty, b becomes NULL.
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"a","body":"base64:"})", "feature").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"b","body":null})", "feature").ok());
  // On main meanwhile: c becomes "xy", so the merge is a true three-way one.
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"c","body":"base64:eHk="})").ok());
  auto merged = graph_->BranchMerge("feature", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "merged");
  EXPECT_EQ(ExportedDocs(*graph_),
            R"({"type":"Doc","data":{"id":"a","body":"base64:","rank":1,"slug":"a"}}
{"type":"Doc","data":{"id":"b","body":null,"rank":null,"slug":"b"}}
{"type":"Doc","data":{"id":"c","body":"base64:eHk=","rank":null,"slug":"c"}}
{"type":"Doc","data":{"id":"d","body":null,"rank":null,"slug":"d"}}
)");
  EXPECT_EQ(*graph_->BlobStat(Doc("a"))->size, 0u);
  EXPECT_EQ(graph_->BlobStat(Doc("b")).status().code(), ErrorCode::kNotFound);

  // Both sides setting a's blob differently conflict; setting it to NULL
  // on one side and empty on the other is a difference too.
  ASSERT_TRUE(graph_->BranchCreate("left").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"d","body":"base64:"})", "left").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"d","body":"base64:AA=="})").ok());
  auto conflict = graph_->BranchMerge("left", "main");
  EXPECT_EQ(conflict.status().code(), ErrorCode::kMergeConflicts) << conflict.status().ToString();
}

// A merged external reference stays a reference (engine.md §4.6: external
// blob references stay external).
TEST_F(BlobTest, AMergedExternalReferenceStaysExternal) {
  graph_->set_external_blob_policy(
      *exec::ExternalBlobPolicy::Allow({{"s3://assets-bucket/k", exec::ExternalBlobScope::kServerSafe}}));
  ASSERT_TRUE(graph_->BranchCreate("ext").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"c","body":"s3://assets-bucket/k/c"})", "ext").ok());
  ASSERT_TRUE(graph_->Mutate(kMutations, "m.gq", "set_body", R"({"slug":"d","body":"base64:"})").ok());
  auto merged = graph_->BranchMerge("ext", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "merged");
  auto stat = graph_->BlobStat(Doc("c"));
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  EXPECT_TRUE(stat->external);
  EXPECT_EQ(*stat->uri, "s3://assets-bucket/k/c");
  EXPECT_EQ(*graph_->BlobStat(Doc("d"))->size, 0u);
}

}  // namespace blob_test
}  // namespace omnigraph::api
