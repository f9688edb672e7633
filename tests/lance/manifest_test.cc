#include "lance/manifest.h"

#include <gtest/gtest.h>

#include "lance/transaction.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace manifest_test {

Schema SampleSchema() {
  Field id("id", DataType::Utf8(), false);
  id.unenforced_primary_key = true;
  id.metadata["omnigraph.stable_property_id"] = "7";
  Schema schema({id, Field("age", DataType::Int64()), Field("tags", DataType::List(DataType::Utf8())),
                 Field("vec", DataType::FixedSizeList(DataType::Float32(), 8)),
                 Field("addr", DataType::Struct({Field("city", DataType::Utf8()), Field("zip", DataType::Int32())})),
                 Field("born", DataType::Date32()), Field("seen", DataType::Date64()),
                 Field("blob", DataType::LargeBinary()), Field("n", DataType::UInt64()), Field("ok", DataType::Bool())});
  schema.mutable_metadata()["owner"] = "graph";
  schema.AssignMissingFieldIds();
  return schema;
}

Manifest SampleManifest() {
  Manifest m;
  m.schema = SampleSchema();
  m.version = 3;
  Fragment f0;
  f0.id = 0;
  f0.physical_rows = 10;
  f0.files.push_back(DataFile{"a.lance", {0, 1, 3, 4, 6, 7, 8, 9, 10, 11, 12}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2, 1, 4096, std::nullopt});
  f0.deletion_file = DeletionFile{DeletionFileKind::kArrowArray, 2, 77, 3, std::nullopt};
  Fragment f1;
  f1.id = 4;
  f1.physical_rows = 5;
  f1.files.push_back(DataFile{"b.lance", {0}, {0}, 2, 1, 100, 0u});
  m.fragments = {f0, f1};
  m.max_fragment_id = 4;
  m.base_paths.push_back(BasePath{0, std::string("origin"), true, "/data/t.lance"});
  m.branch = "exp";
  m.config["k"] = "v";
  m.timestamp_nanos = 1'795'980'199'790'863'237;
  m.RecomputeFeatureFlags();
  return m;
}

TEST(Manifest, SchemaIdsArePreOrder) {
  Schema s = SampleSchema();
  EXPECT_EQ(s.field(0).id, 0);
  EXPECT_EQ(s.field(2).id, 2);                       // tags (list)
  EXPECT_EQ(s.field(2).type->item().id, 3);          // tags.item
  EXPECT_EQ(s.field(3).id, 4);                       // vec: one leaf, its item has no id
  EXPECT_EQ(s.field(3).type->item().id, -1);
  EXPECT_EQ(s.field(4).id, 5);                       // addr
  EXPECT_EQ(s.field(4).type->children()[1].id, 7);   // addr.zip
  EXPECT_EQ(s.field(9).id, 12);
  EXPECT_EQ(s.MaxFieldId(), 12);
}

// A schema that cannot be written (here a field without an id) fails the
// encoding, instead of writing a manifest or transaction missing the field.
TEST(Manifest, ASchemaThatCannotBeEncodedIsAnError) {
  Manifest m = SampleManifest();
  m.schema = Schema({Field("id", DataType::Utf8(), false)});
  auto manifest = EncodeManifestFile(m, "");
  ASSERT_EQ(manifest.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(manifest.status().message(), "field 'id' has no field id");
  Transaction t;
  t.operation = OverwriteOperation{{}, m.schema, {}};
  EXPECT_EQ(EncodeTransaction(t).status().code(), ErrorCode::kInvalidArgument);
  t.operation = ProjectOperation{m.schema};
  EXPECT_EQ(EncodeTransaction(t).status().code(), ErrorCode::kInvalidArgument);
}

// Bytes that fail to decode are a typed error and nothing else: protobuf
// itself would print a line to stderr for invalid UTF-8 in a string field.
TEST(Manifest, UndecodableStringsAreReportedWithoutPrintingAnything) {
  Transaction t;
  t.uuid = "8a14edb3-25a3-4c4a-87c7-29d44068332d";
  t.operation = AppendOperation{};
  std::string bytes = *EncodeTransaction(t);
  bytes.resize(bytes.size() - 10);  // without the checksum field, as Lance writes it
  size_t at = bytes.find("8a14edb3");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 4, "\xff\xfe\xfd\xfc");
  ::testing::internal::CaptureStderr();
  auto decoded = DecodeTransaction(bytes, "t.txn");
  std::string printed = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(decoded.status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(decoded.status().message(), "t.txn: transaction protobuf does not decode");
  EXPECT_EQ(printed, "");
}

TEST(Manifest, RoundTripsEveryField) {
  Manifest m = SampleManifest();
  EXPECT_EQ(m.reader_feature_flags, kFlagDeletionFiles | kFlagBasePaths | kFlagTableConfig);
  std::string bytes = *EncodeManifestFile(m, "");
  auto decoded = DecodeManifestFile(bytes, "m.manifest");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const Manifest& d = decoded->manifest;
  EXPECT_TRUE(d.schema.Equals(m.schema, /*compare_ids=*/true)) << d.schema.ToString();
  EXPECT_EQ(d.fragments, m.fragments);
  EXPECT_EQ(d.version, 3u);
  EXPECT_EQ(d.max_fragment_id, 4u);
  EXPECT_EQ(d.base_paths, m.base_paths);
  EXPECT_EQ(d.branch, "exp");
  EXPECT_EQ(d.config.at("k"), "v");
  EXPECT_EQ(d.timestamp_nanos, m.timestamp_nanos);
  EXPECT_EQ(d.NumRows(), 12u);
  EXPECT_EQ(d.NextFragmentId(), 5u);
  EXPECT_EQ(d.schema.metadata().at("owner"), "graph");
  EXPECT_TRUE(d.schema.field(0).unenforced_primary_key);
  EXPECT_EQ(d.schema.field(0).metadata.at("omnigraph.stable_property_id"), "7");
  EXPECT_EQ(decoded->transaction_section, "");
  EXPECT_EQ(decoded->file_size, bytes.size());
}

// Cached fragment encodings give the same bytes as fresh encoding, and a
// fragment changed after caching is encoded from its new value.
TEST(Manifest, CachedFragmentEncodingsNeverServeAStaleFragment) {
  Manifest m = SampleManifest();
  const std::string fresh = *EncodeManifestFile(m, "txn");
  CacheFragmentEncodings(&m);
  ASSERT_NE(m.fragments[0].encoding, nullptr);
  EXPECT_EQ(*EncodeManifestFile(m, "txn"), fresh);
  Manifest next = m;  // shares the encodings, as a commit's copy does
  next.fragments[1].deletion_file = DeletionFile{DeletionFileKind::kBitmap, 4, 9, 2, std::nullopt, 0x1234u};
  next.fragments[0].files.Mutable()[0].file_size_bytes = 5000;
  next.RecomputeFeatureFlags();
  auto decoded = DecodeManifestFile(*EncodeManifestFile(next, ""), "m.manifest");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->manifest.fragments, next.fragments);
  EXPECT_EQ(decoded->manifest.fragments[1].num_deleted_rows(), 2u);
  EXPECT_EQ(decoded->manifest.fragments[0].files[0].file_size_bytes, 5000u);
  EXPECT_EQ(decoded->manifest.NumRows(), 10u);
  const std::string expected = *EncodeManifestFile(Manifest(decoded->manifest), "");
  EXPECT_EQ(*EncodeManifestFile(&next, ""), expected);  // re-caches the two changed fragments
  EXPECT_NE(next.fragments[1].encoding, m.fragments[1].encoding);
  EXPECT_EQ(next.fragments[1].encoding->fragment, next.fragments[1]);
  EXPECT_EQ(*EncodeManifestFile(next, ""), expected);
}

// A fragment copy shares its data-file list until one side writes to it;
// the writer gets its own list and the other copy keeps the old value.
TEST(Manifest, DataFileListsAreCopyOnWrite) {
  Fragment a;
  a.files.push_back(DataFile{"a.lance", {0}, {0}, 2, 1, 10, std::nullopt});
  Fragment b = a;
  EXPECT_EQ(&a.files[0], &b.files[0]);  // shared, not copied
  EXPECT_EQ(a, b);
  b.files.Mutable()[0].path = "b.lance";
  EXPECT_NE(&a.files[0], &b.files[0]);
  EXPECT_EQ(a.files[0].path, "a.lance");
  EXPECT_EQ(b.files[0].path, "b.lance");
  EXPECT_NE(a, b);
  // Equal values in separate lists still compare equal.
  Fragment c;
  c.files = {DataFile{"a.lance", {0}, {0}, 2, 1, 10, std::nullopt}};
  EXPECT_EQ(a, c);
  EXPECT_TRUE(Fragment{}.files.empty());
  EXPECT_EQ(Fragment{}.files, DataFileList(std::vector<DataFile>{}));
}

TEST(Manifest, TrailerAndInlineTransactionFraming) {
  Transaction t;
  t.read_version = 2;
  t.uuid = "8a14edb3-25a3-4c4a-87c7-29d44068332d";
  t.properties["omnigraph.staged_against_graph_head"] = "hb1.0.1.abc";
  t.operation = AppendOperation{};
  std::string txn = *EncodeTransaction(t);
  std::string bytes = *EncodeManifestFile(SampleManifest(), txn);
  // Transaction at offset 0, manifest after it, 16-byte trailer.
  EXPECT_EQ(LoadLE<uint32_t>(bytes.data()), txn.size());
  EXPECT_EQ(bytes.substr(4, txn.size()), txn);
  EXPECT_EQ(LoadLE<int64_t>(bytes.data() + bytes.size() - 16), static_cast<int64_t>(4 + txn.size()));
  EXPECT_EQ(LoadLE<int16_t>(bytes.data() + bytes.size() - 8), 0);
  EXPECT_EQ(LoadLE<int16_t>(bytes.data() + bytes.size() - 6), 2);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
  auto decoded = DecodeManifestFile(bytes, "m");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->transaction_section, txn);
  auto back = DecodeTransaction(decoded->transaction_section, "m");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->properties.at("omnigraph.staged_against_graph_head"), "hb1.0.1.abc");
  EXPECT_EQ(back->FileName(), "2-8a14edb3-25a3-4c4a-87c7-29d44068332d.txn");
}

TEST(Manifest, TheFirstSectionIsRecognizedAsATransactionByItsFirstTag) {
  Transaction t;
  t.uuid = "8a14edb3-25a3-4c4a-87c7-29d44068332d";
  t.operation = AppendOperation{};
  t.read_version = 0;  // proto3 omits it: the uuid comes first
  EXPECT_TRUE(IsTransactionSection(*EncodeTransaction(t)));
  t.read_version = 7;
  EXPECT_TRUE(IsTransactionSection(*EncodeTransaction(t)));
  EXPECT_FALSE(IsTransactionSection(std::string("\x0a\x00", 2)));  // an IndexSection
  EXPECT_FALSE(IsTransactionSection(""));

  std::string bytes = *EncodeManifestFile(SampleManifest(), *EncodeTransaction(t));
  auto position = ManifestPositionFromTrailer(bytes.substr(bytes.size() - 16), bytes.size(), "m");
  ASSERT_TRUE(position.ok()) << position.status().ToString();
  EXPECT_EQ(*position, 4 + EncodeTransaction(t)->size());
  std::string no_magic = bytes.substr(bytes.size() - 16);
  no_magic.back() = 'X';
  EXPECT_EQ(ManifestPositionFromTrailer(no_magic, bytes.size(), "m").status().message(),
            "m: missing LANC magic at the end of the manifest");
  std::string far = bytes.substr(bytes.size() - 16);
  far[7] = '\x01';  // a position of 2^56
  EXPECT_EQ(ManifestPositionFromTrailer(far, bytes.size(), "m").status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(ManifestPositionFromTrailer(bytes.substr(bytes.size() - 16), 19, "m").status().message(),
            "m: 19 bytes is too short for a manifest");
}

TEST(Manifest, RefusesUnknownReaderFlags) {
  Manifest m = SampleManifest();
  m.reader_feature_flags |= 64;  // data overlays
  auto decoded = DecodeManifestFile(*EncodeManifestFile(m, ""), "m.manifest");
  ASSERT_EQ(decoded.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(decoded.status().message(), "m.manifest: reader feature flags 0x40 are not supported (supported: 0x19)");
  m.reader_feature_flags = kFlagStableRowIds;
  EXPECT_EQ(DecodeManifestFile(*EncodeManifestFile(m, ""), "m").status().code(), ErrorCode::kUnsupported);
}

TEST(Manifest, RefusesUnknownWriterFlagsOnCommit) {
  Manifest m = SampleManifest();
  EXPECT_TRUE(CheckWriterFlags(m, "m").ok());
  m.writer_feature_flags |= 2048;
  EXPECT_EQ(CheckWriterFlags(m, "m").code(), ErrorCode::kUnsupported);
}

TEST(Manifest, CorruptFramingIsTypedNeverACrash) {
  std::string good = *EncodeManifestFile(SampleManifest(), "");
  EXPECT_EQ(DecodeManifestFile("", "m").status().code(), ErrorCode::kCorruptData);
  std::string bad_magic = good;
  bad_magic.back() = 'X';
  EXPECT_EQ(DecodeManifestFile(bad_magic, "m").status().message(), "m: missing LANC magic at the end of the manifest");
  // Every truncation and every single-byte flip is rejected or decodes;
  // none crashes.
  for (size_t len = 0; len < good.size(); ++len) {
    auto r = DecodeManifestFile(std::string_view(good).substr(0, len), "m");
    EXPECT_FALSE(r.ok());
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::string flipped = good;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    auto r = DecodeManifestFile(flipped, "m");
    if (!r.ok()) {
      EXPECT_TRUE(r.status().code() == ErrorCode::kCorruptData || r.status().code() == ErrorCode::kUnsupported)
          << r.status().ToString();
    }
  }
}

TEST(Manifest, SchemaTreeErrors) {
  Manifest m = SampleManifest();
  // Duplicate ids are corrupt.
  m.schema.mutable_fields()[1].id = 0;
  auto r = DecodeManifestFile(*EncodeManifestFile(m, ""), "m");
  EXPECT_EQ(r.status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(r.status().message(), "m: field id 0 is used twice");
}

TEST(Transaction, RoundTripsEveryOperation) {
  Fragment f;
  f.id = 3;
  f.physical_rows = 9;
  f.files.push_back(DataFile{"x.lance", {0, 1}, {0, 1}, 2, 1, 10, std::nullopt});
  std::vector<Operation> ops = {
      AppendOperation{{f}},
      DeleteOperation{{f}, {1, 2}, "id < 3"},
      OverwriteOperation{{f}, SampleSchema(), {{"a", "b"}}},
      UpdateOperation{{5}, {f}, {f}, {0, 1}},
      MergeOperation{{f}, SampleSchema()},
      ProjectOperation{SampleSchema()},
      RewriteOperation{{RewriteGroup{{f}, {f}}}},
      CloneOperation{true, std::string("main"), 3, "/x/t.lance", std::string("exp")},
      RestoreOperation{2},
  };
  for (const Operation& op : ops) {
    Transaction t;
    t.read_version = 9223372036854775901ULL;
    t.uuid = "8a14edb3-25a3-4c4a-87c7-29d44068332d";
    t.properties = {{"omnigraph.deleted_ids", "[\"a\"]"}};
    t.operation = op;
    auto back = DecodeTransaction(*EncodeTransaction(t), "t.txn");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->operation.index(), op.index());
    EXPECT_EQ(back->read_version, t.read_version);
    EXPECT_EQ(back->OperationName(), t.OperationName());
    EXPECT_EQ(back->properties, t.properties);
  }
  Transaction del;
  del.operation = DeleteOperation{{f}, {1, 2}, "id < 3"};
  auto back = DecodeTransaction(*EncodeTransaction(del), "t");
  const auto& d = std::get<DeleteOperation>(back->operation);
  EXPECT_EQ(d.deleted_fragment_ids, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(d.predicate, "id < 3");
  EXPECT_EQ(d.updated_fragments.front(), f);
}

// The uuid alone, read past every other field undecoded, equals the full
// decode's; a damaged transaction is as corrupt as for the full decode.
TEST(Transaction, TheUuidAloneMatchesTheFullDecode) {
  Fragment f;
  f.id = 4;
  f.physical_rows = 10;
  f.files.push_back(DataFile{"a.lance", {0}, {0}, 2, 1, 10, std::nullopt});
  Transaction t;
  t.read_version = 7;
  t.uuid = "8a14edb3-25a3-4c4a-87c7-29d44068332d";
  t.properties = {{"k", "v"}};
  t.operation = RewriteOperation{{RewriteGroup{std::vector<Fragment>(50, f), {f}}}};
  std::string bytes = *EncodeTransaction(t);
  EXPECT_EQ(*DecodeTransactionUuid(bytes, "t.txn"), t.uuid);
  EXPECT_EQ(*DecodeTransactionUuid(bytes.substr(0, bytes.size() - 10), "t.txn"), t.uuid);  // as Lance writes it
  Transaction unnamed;
  unnamed.operation = AppendOperation{};
  EXPECT_EQ(*DecodeTransactionUuid(*EncodeTransaction(unnamed), "t.txn"), "");
  std::string damaged = bytes;
  damaged[damaged.find("8a14edb3")] = '9';
  EXPECT_EQ(DecodeTransactionUuid(damaged, "t.txn").status().message(),
            "t.txn: transaction checksum does not match its bytes");
  EXPECT_EQ(DecodeTransactionUuid("\xff\xff\xff", "t").status().message(), "t: transaction protobuf does not decode");
  EXPECT_EQ(DecodeTransactionUuid(bytes.substr(0, 20), "t").status().code(), ErrorCode::kCorruptData);
}

TEST(Transaction, EmptyOrGarbageIsCorrupt) {
  EXPECT_EQ(DecodeTransaction("", "t").status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(DecodeTransaction("\xff\xff\xff", "t").status().code(), ErrorCode::kCorruptData);
}

}  // namespace manifest_test
}  // namespace omnigraph::lance
