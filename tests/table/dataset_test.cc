#include <filesystem>

#include "lance/versioning.h"
#include "table_fixture.h"

namespace omnigraph::table {
namespace dataset_test {

using testing::D;
using testing::I;
using testing::N;
using testing::S;

TEST_F(TableTest, CreateWritesVersionOneWithExactRows) {
  Dataset ds = CreatePeople(3);
  EXPECT_EQ(ds.version(), 1u);
  EXPECT_FALSE(ds.is_detached());
  EXPECT_EQ(ds.CountRows(), 3u);
  EXPECT_EQ(testing::RowsToString(ReadAll(ds)), "[\"p0\", 0, null]\n[\"p1\", 1, 0.5]\n[\"p2\", 2, 1]\n");
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/people.lance/_versions/18446744073709551614.manifest"));
  // Field ids were assigned and the primary-key marker persisted.
  auto reopened = Dataset::Open(store_, "people.lance");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->schema()->field(2).id, 2);
  EXPECT_TRUE(reopened->schema()->field(0).unenforced_primary_key);
  auto again = Dataset::Create(store_, "people.lance", PeopleSchema(), {});
  EXPECT_EQ(again.status().code(), ErrorCode::kAlreadyExists);
}

// A cold reader finds the latest version from the hint a commit leaves,
// with a few Heads instead of a listing, and answers nullopt (list instead)
// whenever the hint does not settle it.
TEST_F(TableTest, TheVersionHintFindsTheLatestVersionOrDefersToAListing) {
  Dataset ds = CreatePeople(1);
  for (int i = 0; i < 3; ++i) {
    auto staged = StageAppend(ds, {People(10 + i, 1)});
    ASSERT_TRUE(staged.ok()) << staged.status().ToString();
    auto next = CommitLinear(*staged);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ds = *next;
  }
  ASSERT_EQ(ds.version(), 4u);
  auto found = [&](int max_probes) {
    auto latest = Dataset::LatestVersionFromHint(store_.get(), "people.lance", std::nullopt, max_probes);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    return latest.ok() ? *latest : std::optional<uint64_t>(999);
  };
  auto write_hint = [&](std::string_view text) {
    ASSERT_TRUE(store_->Put("people.lance/_versions/latest_version_hint.json", text, WriteOptions{false}).ok());
  };
  EXPECT_EQ(found(0), std::optional<uint64_t>(4));  // each commit left its own version
  write_hint(R"({"version":2})");  // two commits whose hints never landed
  EXPECT_EQ(found(2), std::optional<uint64_t>(4));
  EXPECT_EQ(found(1), std::nullopt);  // further behind than allowed
  ASSERT_TRUE(Dataset::WriteVersionHint(store_.get(), "people.lance", 3, /*durable=*/true).ok());
  EXPECT_EQ(found(1), std::optional<uint64_t>(4));
  write_hint(R"({"version":9})");  // names no version
  EXPECT_EQ(found(4), std::nullopt);
  write_hint(R"({"version":"4"})");
  EXPECT_EQ(found(4), std::nullopt);
  write_hint("");
  EXPECT_EQ(found(4), std::nullopt);
  ASSERT_TRUE(store_->Delete("people.lance/_versions/latest_version_hint.json").ok());
  EXPECT_EQ(found(4), std::nullopt);
  EXPECT_EQ(*Dataset::LatestVersion(store_.get(), "people.lance"), 4u);
}

TEST_F(TableTest, OpenMissingDatasetIsNotFound) {
  auto ds = Dataset::Open(store_, "nothing.lance");
  EXPECT_EQ(ds.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(ds.status().message(), "no dataset at 'nothing.lance'");
}

TEST_F(TableTest, EmptyDatasetHasNoFragments) {
  auto ds = Dataset::Create(store_, "empty.lance", PeopleSchema());
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ds->CountRows(), 0u);
  EXPECT_TRUE(ds->manifest().fragments.empty());
  EXPECT_TRUE(ReadAll(*ds).empty());
}

class SplitReadTest : public TableTest {
 protected:
  // 3,000 people in one fragment, then 40 more in one-row fragments: enough
  // estimated cost for Dataset::ToBatch to split the read into balanced
  // halves.
  Result<Dataset> ManyFragments() {
    Dataset v1 = CreatePeople(3000);
    StageOptions one_row_files;
    one_row_files.max_rows_per_file = 1;
    OG_ASSIGN_OR_RETURN(auto staged, StageAppend(v1, {People(3000, 40)}, one_row_files));
    return CommitLinear(staged);
  }
};

// A whole-table read of many fragments is split across two threads
// (Dataset::ToBatch); the rows must come back exactly as one scan returns
// them, in manifest order.
TEST_F(SplitReadTest, WholeTableReadsOfManyFragmentsKeepRowOrder) {
  auto v2 = ManyFragments();
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  ASSERT_EQ(v2->manifest().fragments.size(), 41u);
  auto whole = v2->ToBatch({});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ((*whole)->num_rows(), 3040);
  const Array& ids = *(*whole)->GetColumn("id");
  for (int64_t r = 0; r < 3040; ++r) ASSERT_EQ(ids.GetView(r), "p" + std::to_string(r)) << r;
  // The same rows as one sequential scan (naming every fragment keeps the
  // read on one thread), projections included.
  ScanOptions every_fragment;
  for (const lance::Fragment& f : v2->manifest().fragments) every_fragment.fragment_ids.push_back(f.id);
  EXPECT_EQ(testing::RowsToString(testing::Rows(**whole)), testing::RowsToString(ReadAll(*v2, every_fragment)));
  ScanOptions names;
  names.columns = {"age"};
  auto projected = v2->ToBatch(names);
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ((*projected)->num_columns(), 1);
  EXPECT_EQ((*projected)->num_rows(), 3040);
}

// A damaged file in either half of a split read fails the read with the
// file's error; nothing is returned half-read.
TEST_F(SplitReadTest, SplitReadsReportDamageInEitherHalf) {
  auto v2 = ManyFragments();
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  for (size_t damaged : {size_t{1}, v2->manifest().fragments.size() - 1}) {
    const std::string key = v2->root() + "/data/" + v2->manifest().fragments[damaged].files[0].path;
    auto original = store_->Get(key);
    ASSERT_TRUE(original.ok());
    ASSERT_TRUE(store_->Put(key, "not a lance file").ok());
    auto whole = v2->ToBatch({});
    EXPECT_FALSE(whole.ok()) << damaged;
    EXPECT_EQ(whole.status().code(), ErrorCode::kCorruptData) << whole.status().ToString();
    ASSERT_TRUE(store_->Put(key, (*original)->view()).ok());
  }
  auto restored = v2->ToBatch({});
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ((*restored)->num_rows(), 3040);
}

TEST_F(TableTest, LinearAppendsAddVersionsAndKeepHistory) {
  Dataset v1 = CreatePeople(2);
  auto staged = StageAppend(v1, {People(2, 2)});
  ASSERT_TRUE(staged.ok()) << staged.status().ToString();
  // Staging changes nothing visible.
  EXPECT_EQ(Dataset::Open(store_, "people.lance")->version(), 1u);
  auto v2 = CommitLinear(*staged);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->version(), 2u);
  EXPECT_EQ(Ids(*v2), (std::vector<std::string>{"p0", "p1", "p2", "p3"}));
  EXPECT_EQ(v2->manifest().fragments.size(), 2u);
  EXPECT_EQ(v2->manifest().fragments[1].id, 1u);
  EXPECT_EQ(Dataset::Open(store_, "people.lance")->version(), 2u);
  auto old = Dataset::Open(store_, "people.lance", VersionRef::Version(1));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(Ids(*old), (std::vector<std::string>{"p0", "p1"}));
  auto versions = v2->ListVersions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].version, 1u);
  EXPECT_EQ((*versions)[1].version, 2u);
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Version(3)).status().message(),
            "version 3 of dataset 'people.lance' does not exist");
}

TEST_F(TableTest, LosingTheLinearRaceIsATypedConflictAndChangesNothing) {
  Dataset v1 = CreatePeople(1);
  auto a = StageAppend(v1, {People(10, 1)});
  auto b = StageAppend(v1, {People(20, 1)});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(CommitLinear(*a).ok());
  auto lost = CommitLinear(*b);
  ASSERT_EQ(lost.status().code(), ErrorCode::kCommitConflict);
  EXPECT_EQ(lost.status().details().at("version"), "2");
  auto latest = Dataset::Open(store_, "people.lance");
  EXPECT_EQ(latest->version(), 2u);
  EXPECT_EQ(Ids(*latest), (std::vector<std::string>{"p0", "p10"}));
}

TEST_F(TableTest, TransactionUuidAndPropertiesArePersisted) {
  Dataset v1 = CreatePeople(1);
  StageOptions options;
  options.transaction_uuid = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0";
  options.properties = {{"omnigraph.staged_against_graph_head", "hb1.0.7.x"},
                        {"omnigraph.staged_against_branch_incarnation", "main"}};
  auto staged = StageAppend(v1, {People(1, 1)}, options);
  ASSERT_TRUE(staged.ok());
  auto v2 = CommitDetached(*staged);
  ASSERT_TRUE(v2.ok());
  auto txn = v2->ReadTransaction();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  EXPECT_EQ(txn->uuid, options.transaction_uuid);
  EXPECT_EQ(txn->read_version, 1u);
  EXPECT_EQ(txn->properties, options.properties);
  EXPECT_EQ(txn->OperationName(), "Append");
  // Detached versions keep the transaction inline in the manifest only.
  EXPECT_TRUE(v2->manifest().transaction_file.empty());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/people.lance/_transactions/1-" + options.transaction_uuid + ".txn"));
  // Linear versions also write `_transactions/{read_version}-{uuid}.txn`.
  StageOptions linear = options;
  linear.transaction_uuid = "1f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0";
  auto v2_linear = CommitLinear(*StageAppend(v1, {People(1, 1)}, linear));
  ASSERT_TRUE(v2_linear.ok());
  EXPECT_EQ(v2_linear->manifest().transaction_file, "1-" + linear.transaction_uuid + ".txn");
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/people.lance/_transactions/1-" + linear.transaction_uuid + ".txn"));
  auto reopened = Dataset::Open(store_, "people.lance", VersionRef::Version(2));
  EXPECT_EQ(reopened->ReadTransaction()->properties, options.properties);
  StageOptions bad;
  bad.transaction_uuid = "not-a-uuid";
  EXPECT_EQ(StageAppend(v1, {People(1, 1)}, bad).status().code(), ErrorCode::kInvalidArgument);
}

// The collector reads thousands of detached versions through their
// transactions alone (graph/maintenance/inventory.h).
TEST_F(TableTest, TheLeadingTransactionIsReadWithoutDecodingTheManifest) {
  Dataset v1 = CreatePeople(1);
  StageOptions options;
  options.transaction_uuid = "2f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0";
  options.properties = {{"omnigraph.staged_against_graph_head", "hb1.0.9.y"}};
  auto d1 = CommitDetached(*StageAppend(v1, {People(1, 1)}, options));
  ASSERT_TRUE(d1.ok()) << d1.status().ToString();
  auto txn = Dataset::ReadLeadingTransaction(store_.get(), d1->manifest_path());
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  ASSERT_TRUE(txn->has_value());
  EXPECT_EQ((*txn)->uuid, options.transaction_uuid);
  EXPECT_EQ((*txn)->read_version, 1u);
  EXPECT_EQ((*txn)->properties, options.properties);
  const auto& appended = std::get<lance::AppendOperation>((*txn)->operation).fragments;
  ASSERT_EQ(appended.size(), 1u);
  EXPECT_EQ(appended[0].files.get()[0].path, d1->manifest().fragments.back().files.get()[0].path);

  // A manifest file that starts with no transaction: none inline, or an
  // index section first.
  ASSERT_TRUE(store_->Put("loose/bare.manifest", *lance::EncodeManifestFile(d1->manifest(), "")).ok());
  auto bare = Dataset::ReadLeadingTransaction(store_.get(), "loose/bare.manifest");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_FALSE(bare->has_value());
  lance::Manifest indexed = d1->manifest();
  indexed.index_section = std::string("\x0a\x00", 2);  // IndexSection{indices: [{}]}
  ASSERT_TRUE(store_->Put("loose/indexed.manifest", *lance::EncodeManifestFile(indexed, "")).ok());
  auto index_first = Dataset::ReadLeadingTransaction(store_.get(), "loose/indexed.manifest");
  ASSERT_TRUE(index_first.ok()) << index_first.status().ToString();
  EXPECT_FALSE(index_first->has_value());

  // Damage is typed.
  EXPECT_EQ(Dataset::ReadLeadingTransaction(store_.get(), "loose/missing.manifest").status().code(),
            ErrorCode::kNotFound);
  ASSERT_TRUE(store_->Put("loose/short.manifest", "LANC").ok());
  EXPECT_EQ(Dataset::ReadLeadingTransaction(store_.get(), "loose/short.manifest").status().code(),
            ErrorCode::kCorruptData);
  std::string bytes = *lance::EncodeManifestFile(d1->manifest(), *lance::EncodeTransaction(**txn));
  std::string overlong = bytes;
  overlong[3] = '\x7f';  // the first section's length now runs past the manifest
  ASSERT_TRUE(store_->Put("loose/overlong.manifest", overlong).ok());
  auto past = Dataset::ReadLeadingTransaction(store_.get(), "loose/overlong.manifest");
  EXPECT_EQ(past.status().code(), ErrorCode::kCorruptData);
  EXPECT_EQ(past.status().message().find("loose/overlong.manifest: the section at offset 0 claims"), 0u)
      << past.status().message();
}

TEST_F(TableTest, DetachedCommitsLeaveHeadAndChain) {
  Dataset v1 = CreatePeople(1);
  auto d1 = CommitDetached(*StageAppend(v1, {People(1, 1)}));
  ASSERT_TRUE(d1.ok()) << d1.status().ToString();
  EXPECT_TRUE(d1->is_detached());
  EXPECT_TRUE(lance::IsDetachedVersion(d1->version()));
  EXPECT_EQ(Dataset::Open(store_, "people.lance")->version(), 1u);  // HEAD did not move
  // Chain: a detached commit on a detached base.
  auto d2 = CommitDetached(*StageAppend(*d1, {People(2, 1)}));
  ASSERT_TRUE(d2.ok());
  EXPECT_NE(d2->version(), d1->version());
  EXPECT_EQ(d2->ReadTransaction()->read_version, d1->version());
  auto reopened = Dataset::Open(store_, "people.lance", VersionRef::Version(d2->version()));
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(Ids(*reopened), (std::vector<std::string>{"p0", "p1", "p2"}));
  EXPECT_EQ(Ids(*Dataset::Open(store_, "people.lance", VersionRef::Version(d1->version()))),
            (std::vector<std::string>{"p0", "p1"}));
  // Listing and latest ignore detached manifests.
  EXPECT_EQ(v1.ListVersions()->size(), 1u);
  // A linear commit on a detached base is refused.
  EXPECT_EQ(CommitLinear(*StageAppend(*d1, {People(3, 1)})).status().code(), ErrorCode::kInvalidArgument);
  // Linear history continues independently.
  auto v2 = CommitLinear(*StageAppend(v1, {People(9, 1)}));
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(Ids(*v2), (std::vector<std::string>{"p0", "p9"}));
}

TEST_F(TableTest, TagsPointAtLinearAndDetachedVersions) {
  Dataset v1 = CreatePeople(1);
  auto d = CommitDetached(*StageAppend(v1, {People(1, 1)}));
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(v1.CreateTag("first", 1).ok());
  ASSERT_TRUE(v1.CreateTag("staged", d->version()).ok());
  EXPECT_EQ(v1.CreateTag("first", 1).code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(v1.CreateTag("nope", 7).code(), ErrorCode::kNotFound);
  EXPECT_EQ(v1.CreateTag("bad name", 1).code(), ErrorCode::kInvalidArgument);
  auto via_tag = Dataset::Open(store_, "people.lance", VersionRef::Tag("staged"));
  ASSERT_TRUE(via_tag.ok());
  EXPECT_EQ(via_tag->version(), d->version());
  EXPECT_EQ(Ids(*via_tag), (std::vector<std::string>{"p0", "p1"}));
  auto tags = v1.ListTags();
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 2u);
  EXPECT_EQ((*tags)[0].name, "first");
  EXPECT_EQ((*tags)[1].version, d->version());
  ASSERT_TRUE(v1.DeleteTag("first").ok());
  EXPECT_EQ(v1.DeleteTag("first").code(), ErrorCode::kNotFound);
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Tag("first")).status().code(), ErrorCode::kNotFound);
}

TEST_F(TableTest, BranchesAreShallowClonesWithTheirOwnHistory) {
  Dataset v1 = CreatePeople(2);
  auto v2 = CommitLinear(*StageAppend(v1, {People(2, 1)}));
  ASSERT_TRUE(v2.ok());
  auto exp = v2->CreateBranch("exp", 2);
  ASSERT_TRUE(exp.ok()) << exp.status().ToString();
  EXPECT_EQ(exp->version(), 2u);
  EXPECT_EQ(exp->branch(), "exp");
  EXPECT_EQ(exp->branch_root(), "people.lance/tree/exp");
  ASSERT_EQ(exp->manifest().base_paths.size(), 1u);
  EXPECT_EQ(exp->manifest().base_paths[0].path, store_->Uri("people.lance"));
  EXPECT_EQ(exp->manifest().fragments[0].files[0].base_id, 0u);
  EXPECT_EQ(Ids(*exp), (std::vector<std::string>{"p0", "p1", "p2"}));
  // Writes on the branch.
  auto b3 = CommitLinear(*StageAppend(*exp, {People(100, 2)}));
  ASSERT_TRUE(b3.ok()) << b3.status().ToString();
  EXPECT_EQ(b3->version(), 3u);
  auto deleted = CommitLinear(*StageDelete(*b3, Predicate::Eq("id", S("p0"))));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(Ids(*deleted), (std::vector<std::string>{"p1", "p2", "p100", "p101"}));
  // Main is untouched.
  EXPECT_EQ(Dataset::Open(store_, "people.lance")->version(), 2u);
  EXPECT_EQ(Ids(*Dataset::Open(store_, "people.lance")), (std::vector<std::string>{"p0", "p1", "p2"}));
  // Open by branch and by branch + version.
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Branch("exp"))->version(), 4u);
  EXPECT_EQ(Ids(*Dataset::Open(store_, "people.lance", VersionRef::BranchVersion("exp", 3))),
            (std::vector<std::string>{"p0", "p1", "p2", "p100", "p101"}));
  // A branch of a branch.
  auto nested = deleted->CreateBranch("exp/deeper", 4, std::string("exp"));
  ASSERT_TRUE(nested.ok()) << nested.status().ToString();
  EXPECT_EQ(Ids(*nested), (std::vector<std::string>{"p1", "p2", "p100", "p101"}));
  auto branches = v1.ListBranches();
  ASSERT_TRUE(branches.ok());
  ASSERT_EQ(branches->size(), 2u);
  EXPECT_EQ((*branches)[0].name, "exp");
  EXPECT_EQ((*branches)[1].name, "exp/deeper");
  EXPECT_EQ((*branches)[1].parent_branch, "exp");
  EXPECT_EQ((*branches)[1].parent_version, 4u);
  EXPECT_EQ((*branches)[0].identifier.size(), 32u);
  EXPECT_EQ(v1.CreateBranch("exp", 1).status().code(), ErrorCode::kAlreadyExists);
  // A tag into a branch.
  ASSERT_TRUE(v1.CreateTag("exp-v3", 3, std::string("exp")).ok());
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Tag("exp-v3"))->CountRows(), 5u);
  // Deleting the parent branch keeps the nested one readable: it only
  // references files through base paths... of its parent, so delete the
  // leaf first as a user would.
  ASSERT_TRUE(v1.DeleteBranch("exp/deeper").ok());
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Branch("exp/deeper")).status().code(),
            ErrorCode::kNotFound);
  EXPECT_EQ(v1.DeleteBranch("exp/deeper").code(), ErrorCode::kNotFound);
  EXPECT_EQ(Dataset::Open(store_, "people.lance", VersionRef::Branch("exp"))->version(), 4u);
}

TEST_F(TableTest, BranchFromDetachedVersionIsRefused) {
  Dataset v1 = CreatePeople(1);
  auto d = CommitDetached(*StageAppend(v1, {People(1, 1)}));
  auto b = v1.CreateBranch("x", d->version());
  EXPECT_EQ(b.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace dataset_test
}  // namespace omnigraph::table
