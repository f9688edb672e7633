// `cleanup`, the tracing collector (spec/engine.md §8.2; surface.md §5.2;
// branches.md BR-7, BR-9.3, BR-11.5, BR-14.6; Appendix A rows 28 and 32
// with a real cleanup): what it removes, to the version and the byte, and
// what stays readable.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/branch_fixture.h"
#include "api/omnigraph.h"
#include "graph/maintenance/collector.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"

namespace omnigraph::testing {
namespace cleanup_test {

namespace fs = std::filesystem;

// Every regular file under `root` with its size (lock files excluded: a
// confirmed run takes the branches' writers locks, which creates them).
std::map<std::string, uint64_t> Files(const std::string& root) {
  std::map<std::string, uint64_t> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), root).string();
    if (rel.rfind("_locks/", 0) == 0) continue;
    files[rel] = entry.file_size();
  }
  return files;
}

// Bytes of the files of `before` that `after` lacks.
uint64_t BytesGone(const std::map<std::string, uint64_t>& before, const std::map<std::string, uint64_t>& after) {
  uint64_t bytes = 0;
  for (const auto& [path, size] : before) {
    if (!after.count(path)) bytes += size;
  }
  return bytes;
}

class CleanupTest : public BranchFixture {
 protected:
  graph::CleanupReport Clean(std::optional<uint64_t> keep, std::optional<uint64_t> older_than = std::nullopt,
                             bool confirm = true, int64_t now = 0) {
    graph::CleanupPolicy policy;
    policy.keep_versions = keep;
    policy.older_than_secs = older_than;
    policy.confirm = confirm;
    policy.now_unix_nanos = now;
    auto report = db().Cleanup(policy);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : graph::CleanupReport{};
  }
  const graph::DatasetCleanup& Dataset(const graph::CleanupReport& report, const std::string& type_key) {
    for (const graph::DatasetCleanup& d : report.datasets) {
      if (d.type_key == type_key) return d;
    }
    static const graph::DatasetCleanup kNone{"<none>"};
    ADD_FAILURE() << "no dataset " << type_key;
    return kNone;
  }
  // Versions removed per dataset, for exact comparison.
  std::map<std::string, uint64_t> Removed(const graph::CleanupReport& report) {
    std::map<std::string, uint64_t> removed;
    for (const graph::DatasetCleanup& d : report.datasets) {
      EXPECT_FALSE(d.error.has_value()) << d.type_key << ": " << *d.error;
      if (d.manifests_removed > 0) removed[d.type_key] = d.manifests_removed;
    }
    return removed;
  }
  // A fresh handle (this one caches decoded versions it already read).
  std::unique_ptr<api::Omnigraph> Fresh() {
    auto g = api::Omnigraph::Open(uri());
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? std::move(*g) : nullptr;
  }
  Status ReadAt(api::Omnigraph& g, const std::string& commit) {
    return g.Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", commit}).status();
  }
  int64_t NowNanos() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

TEST_F(CleanupTest, WithoutAPolicyItIsRefusedAndNothingChanges) {
  InsertPerson("Eve", 22);
  auto before = Files(uri());
  graph::CleanupPolicy none;
  none.confirm = true;
  auto refused = db().Cleanup(none);
  ASSERT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "cleanup requires a retention policy: --keep N and/or --older-than DUR");
  graph::CleanupPolicy zero;
  zero.keep_versions = 0;
  zero.confirm = true;
  EXPECT_EQ(db().Cleanup(zero).status().message(), "--keep must be at least 1");
  EXPECT_EQ(Files(uri()), before);
}

TEST_F(CleanupTest, APreviewReportsThePlanAndDeletesNothing) {
  InsertPerson("Eve", 22);
  InsertPerson("Fay", 23);
  auto before = Files(uri());
  graph::CleanupReport preview = Clean(1, std::nullopt, /*confirm=*/false);
  EXPECT_FALSE(preview.confirmed);
  EXPECT_EQ(Removed(preview), (std::map<std::string, uint64_t>{{"__manifest", 3}, {"node:Person", 2}}));
  EXPECT_EQ(Files(uri()), before);
  // The confirmed run removes exactly what the preview announced.
  graph::CleanupReport done = Clean(1);
  EXPECT_TRUE(done.confirmed);
  EXPECT_EQ(Removed(done), Removed(preview));
  EXPECT_EQ(done.bytes_removed(), preview.bytes_removed());
  EXPECT_EQ(done.bytes_removed(), BytesGone(before, Files(uri())));
}

// Row 28 with a real cleanup, and the exact accounting of a linear history.
TEST_F(CleanupTest, KeepOneRemovesEveryOlderVersionAndTheirReadsAreTyped) {
  const uint64_t v_load = load_commit_.manifest_version;  // 2 (genesis is 1)
  ASSERT_EQ(v_load, 2u);
  graph::CommitRecord eve = InsertPerson("Eve", 22);
  graph::CommitRecord fay = InsertPerson("Fay", 23);
  graph::CommitRecord gus = InsertPerson("Gus", 24);
  const std::vector<std::string> head_rows = Read("people");
  const std::vector<std::string> commits = IdsOf(Commits());
  auto before = Files(uri());

  graph::CleanupReport report = Clean(1);
  // __manifest: versions 1..4 of main (5 is the head); Person: the
  // detached versions the load, Eve and Fay published (Gus's is the head's pin).
  EXPECT_EQ(Removed(report), (std::map<std::string, uint64_t>{{"__manifest", 4}, {"node:Person", 3}}));
  EXPECT_EQ(report.versions_removed(), 7u);
  EXPECT_EQ(report.datasets_touched(), 2u);
  EXPECT_EQ(report.bytes_removed(), BytesGone(before, Files(uri())));
  EXPECT_GT(report.bytes_removed(), 0u);
  EXPECT_EQ(Dataset(report, "node:Person").unpublished_manifests, 0u);
  EXPECT_EQ(Dataset(report, "node:Person").foreign_versions, 0u);
  EXPECT_EQ(report.datasets.size(), 5u);  // __manifest and four tables
  EXPECT_EQ(report.released_tags, std::vector<std::string>{});

  auto fresh = Fresh();
  ASSERT_TRUE(fresh);
  // The head reads; history is intact.
  auto head = fresh->Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(RowsOf(*head), head_rows);
  auto listed = fresh->ListCommits();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(IdsOf(*listed), commits);
  auto shown = fresh->ShowCommit(eve.id);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  EXPECT_EQ(shown->id, eve.id);
  // Reclaimed versions answer VersionReclaimed (BR-7), by commit and by version.
  for (const std::string& id : {load_commit_.id, eve.id, fay.id}) {
    Status read = ReadAt(*fresh, id);
    EXPECT_EQ(read.code(), ErrorCode::kVersionReclaimed) << id << ": " << read.ToString();
  }
  Status reclaimed = ReadAt(*fresh, eve.id);
  EXPECT_EQ(reclaimed.message(),
            "historical published dataset version " + std::to_string(eve.manifest_version) + " was reclaimed");
  EXPECT_EQ(reclaimed.http_status(), 500);
  auto entity = fresh->EntityAt("main", "node:Person", "Alice", v_load);
  EXPECT_EQ(entity.status().code(), ErrorCode::kVersionReclaimed) << entity.status().ToString();
  EXPECT_EQ(fresh->SnapshotAt("main", 99).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(ReadAt(*fresh, gus.id).ok());

  // A second run finds nothing more.
  graph::CleanupReport again = Clean(1);
  EXPECT_EQ(again.versions_removed(), 0u);
  EXPECT_EQ(again.bytes_removed(), 0u);
  // Writes go on.
  InsertPerson("Hal", 25);
  EXPECT_EQ(Read("people").size(), head_rows.size() + 1);
}

// The collector reads a swept version's files from its transaction alone
// (graph/maintenance/inventory.h) unless its base version is gone. Here
// the first run reclaims the bases of the versions the second run sweeps:
// the fragments only those bases wrote are still named by the swept
// versions and must go with them, not linger as orphans for a week.
TEST_F(CleanupTest, AVersionWhoseBaseAnEarlierRunReclaimedTakesItsInheritedFilesAlong) {
  const auto loaded = Files(uri());
  for (const char* name : {"Eve", "Fay", "Gus", "Hal"}) InsertPerson(name, 30);
  // Person's table directory: the one the inserts wrote data files into.
  std::string person;
  for (const auto& [path, size] : Files(uri())) {
    size_t data = path.find("/data/");
    if (path.rfind("nodes/", 0) == 0 && data != std::string::npos && !loaded.count(path)) {
      person = path.substr(0, data);
    }
  }
  ASSERT_FALSE(person.empty());
  auto data_files = [&] {
    size_t n = 0;
    for (const auto& [path, size] : Files(uri())) n += path.rfind(person + "/data/", 0) == 0 ? 1 : 0;
    return n;
  };
  // The load's fragment and one per insert.
  ASSERT_EQ(data_files(), 5u);
  Clean(2);  // keeps the versions Gus and Hal published: every fragment stays named
  EXPECT_EQ(data_files(), 5u);
  ASSERT_TRUE(db().Optimize().ok());
  EXPECT_EQ(data_files(), 6u);  // the compacted fragment beside the five it replaced
  auto before = Files(uri());
  graph::CleanupReport report = Clean(1);
  EXPECT_EQ(report.bytes_removed(), BytesGone(before, Files(uri())));
  EXPECT_EQ(data_files(), 1u);
  const std::vector<std::string> head_rows = Read("people");
  auto fresh = Fresh();
  ASSERT_TRUE(fresh);
  auto head = fresh->Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(RowsOf(*head), head_rows);
  EXPECT_EQ(head_rows.size(), 8u);
}

TEST_F(CleanupTest, OlderThanKeepsYoungVersionsAndBothPoliciesKeepTheUnion) {
  InsertPerson("Eve", 22);
  InsertPerson("Fay", 23);
  // Everything is younger than an hour: nothing goes.
  EXPECT_EQ(Clean(std::nullopt, 3600).versions_removed(), 0u);
  // With keep 1 too, a version goes only outside both: still nothing.
  EXPECT_EQ(Clean(1, 3600).versions_removed(), 0u);
  // An hour later everything but the head is old.
  const int64_t later = NowNanos() + int64_t{3601} * 1'000'000'000;
  graph::CleanupReport old = Clean(std::nullopt, 3600, true, later);
  EXPECT_EQ(Removed(old), (std::map<std::string, uint64_t>{{"__manifest", 3}, {"node:Person", 2}}));
  EXPECT_EQ(People(), PeopleWith(PeopleWith(kFixturePeople, R"("Eve",22)"), R"("Fay",23)"));
}

// BR-9.3, BR-9.10, B27: a branch's creation point and the merge base of
// every pair of live heads survive any window.
TEST_F(CleanupTest, BranchHeadsCreationPointsAndMergeBasesSurvive) {
  Create("feature");  // at the load's version
  graph::CommitRecord m1 = InsertPerson("Eve", 22);
  InsertPerson("Fay", 23);
  graph::CommitRecord f1 = InsertPerson("Zed", 40, "feature");
  const std::vector<std::string> main_rows = People();
  const std::vector<std::string> feature_rows = People("feature");

  graph::CleanupReport report = Clean(1);
  // main: genesis and Eve's version go; the load's (feature's creation
  // point and the merge base) and the head stay. feature: its creation
  // version stays (its own tree). Person: Eve's version only.
  EXPECT_EQ(Removed(report), (std::map<std::string, uint64_t>{{"__manifest", 2}, {"node:Person", 1}}));
  auto fresh = Fresh();
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(ReadAt(*fresh, load_commit_.id).ok());
  EXPECT_TRUE(ReadAt(*fresh, f1.id).ok());
  EXPECT_EQ(ReadAt(*fresh, m1.id).code(), ErrorCode::kVersionReclaimed);
  EXPECT_EQ(ReadAt(*fresh, genesis_.id).code(), ErrorCode::kVersionReclaimed);
  EXPECT_EQ(People(), main_rows);
  EXPECT_EQ(People("feature"), feature_rows);
  // The merge finds and opens its base.
  auto merged = fresh->BranchMerge("feature", "main");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, "merged");
  auto rows = fresh->Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(RowsOf(*rows), PeopleWith(main_rows, R"("Zed",40)"));
}

// A cold reader trusts `__manifest`'s version hint when the versions above
// it are contiguous (a handful of Heads instead of a listing); a sweep that
// opens a gap above a hint left on a retained old version would make it
// read that old version, so the collector names the head first.
TEST_F(CleanupTest, AHintLeftOnARetainedVersionNeverHidesTheHead) {
  Create("feature");  // retains the load's version as its creation point
  InsertPerson("Eve", 22);
  graph::CommitRecord head = InsertPerson("Fay", 23);
  const std::vector<std::string> main_rows = People();
  const std::string hint_path = uri() + "/__manifest/_versions/latest_version_hint.json";
  auto read_hint = [&] {
    std::ifstream in(hint_path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // Publications leave it every kVersionHintInterval versions; here it
  // names the load's version, which cleanup keeps.
  {
    std::ofstream out(hint_path, std::ios::trunc);
    out << fmt::format("{{\"version\":{}}}", load_commit_.manifest_version);
  }
  auto before = Fresh();
  ASSERT_TRUE(before);
  auto rows = before->Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(RowsOf(*rows), main_rows);

  Clean(1);  // removes Eve's version: a gap right above the load's
  EXPECT_EQ(read_hint(), fmt::format("{{\"version\":{}}}", head.manifest_version));
  auto after = Fresh();
  ASSERT_TRUE(after);
  rows = after->Query(kBranchQueries, "q.gq", "people", "{}");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(RowsOf(*rows), main_rows);
}

// BR-9.3: a merge base whose snapshot cannot be opened (cleanup keeps it;
// here its __manifest version is removed by hand) is a 410 history gap.
TEST_F(CleanupTest, AMergeBaseThatCannotBeOpenedIsAHistoryGap) {
  Create("feature");
  InsertPerson("Eve", 22);
  InsertPerson("Zed", 40, "feature");
  ASSERT_EQ(load_commit_.manifest_version, 2u);
  // V2 naming: version v is the file (2^64 - 1 - v).manifest.
  ASSERT_TRUE(fs::remove(fs::path(uri()) / "__manifest" / "_versions" / "18446744073709551613.manifest"));
  auto fresh = Fresh();
  ASSERT_TRUE(fresh);
  auto merged = fresh->BranchMerge("feature", "main");
  ASSERT_EQ(merged.status().code(), ErrorCode::kHistoryGap) << merged.status().ToString();
  EXPECT_EQ(merged.status().http_status(), 410);
  EXPECT_EQ(merged.status().message(), "history gap at commits '" + load_commit_.id + "'");
}

// BR-3.3: a deleted branch's tree is reclaimed once nothing needs it; its
// commits then read as a history gap (BR-7).
TEST_F(CleanupTest, ADeletedBranchsTreeIsReclaimed) {
  Create("feature");
  graph::CommitRecord f1 = InsertPerson("Zed", 40, "feature");
  graph::CommitRecord f2 = InsertPerson("Yan", 41, "feature");
  ASSERT_TRUE(db().BranchDelete("feature").ok());
  // Within the grace a retired tree stays whole (a create in another
  // process may be about to write its record).
  graph::CleanupReport young = Clean(1);
  EXPECT_EQ(Removed(young), (std::map<std::string, uint64_t>{{"__manifest", 1}}));  // main's genesis
  const int64_t later = NowNanos() + (graph::kRetiredTreeGraceSeconds + 5) * int64_t{1'000'000'000};
  graph::CleanupReport old = Clean(1, std::nullopt, true, later);
  // feature's three versions (creation, Zed, Yan) and both Person versions.
  EXPECT_EQ(Removed(old), (std::map<std::string, uint64_t>{{"__manifest", 3}, {"node:Person", 2}}));
  size_t left = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(uri()) / "__manifest" / "tree")) {
    left += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(left, 0u);
  EXPECT_EQ(People(), kFixturePeople);
  // Its commits were never merged anywhere: unknown now.
  EXPECT_EQ(ReadAt(*Fresh(), f1.id).code(), ErrorCode::kNotFound);
  (void)f2;
}

// BR-11.5: a live proposal and what it reads stay; once the head moves
// past it, cleanup releases its tag and reclaims it.
TEST_F(CleanupTest, LiveProposalsStayAndExpiredOnesAreReleased) {
  constexpr std::string_view kPropose = "query propose_person($n: String) as commit { insert Person { name: $n } }";
  auto proposed = db().Mutate(kPropose, "p.gq", "propose_person", R"({"n":"Pia"})");
  ASSERT_TRUE(proposed.ok() && proposed->commit) << proposed.status().ToString();
  const std::string pia = proposed->commit->id;
  graph::CleanupReport live = Clean(1);
  EXPECT_EQ(live.released_tags, std::vector<std::string>{});
  // genesis only: the load's version is the head the proposal captured.
  EXPECT_EQ(Removed(live), (std::map<std::string, uint64_t>{{"__manifest", 1}}));
  EXPECT_EQ(Read("people", "{}", api::ReadTarget{"main", pia}), PeopleWith(kFixturePeople, R"("Pia",null)"));

  InsertPerson("Eve", 22);  // the head moves past the captured one: expired
  graph::CleanupReport expired = Clean(1);
  EXPECT_EQ(expired.released_tags, std::vector<std::string>{"unpublished_" + pia});
  // __manifest: the load's version and the proposal's detached version;
  // Person: the load's version and the proposal's.
  EXPECT_EQ(Removed(expired), (std::map<std::string, uint64_t>{{"__manifest", 2}, {"node:Person", 2}}));
  EXPECT_EQ(Dataset(expired, "__manifest").unpublished_manifests, 1u);
  EXPECT_EQ(db().CommitPublish(pia).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(People(), PeopleWith(kFixturePeople, R"("Eve",22)"));
}

// Unpublished staging: a write that failed before its publication leaves
// detached versions; they stay while the head they were staged against is
// the head, and go once it moved past.
TEST_F(CleanupTest, DeadStagingIsReclaimedOnlyOnceTheHeadMovedPast) {
  // A writer killed just before its publication leaves its detached
  // version behind (a failed write in a live process deletes its own).
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    failpoint::Set(failpoint::kGraphBeforeCas, failpoint::Action::kCrash);
    auto g = api::Omnigraph::Open(uri());
    if (g.ok()) (void)(*g)->Mutate(kFixtureMutations, "m.gq", "insert_person", R"({"name":"Eve","age":22})");
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  graph::CleanupReport idle = Clean(1);
  EXPECT_EQ(Dataset(idle, "node:Person").unpublished_manifests, 0u);
  EXPECT_EQ(Removed(idle), (std::map<std::string, uint64_t>{{"__manifest", 1}}));

  InsertPerson("Fay", 23);
  auto before = Files(uri());
  graph::CleanupReport moved = Clean(1);
  const graph::DatasetCleanup& person = Dataset(moved, "node:Person");
  // The load's version (published, no longer a root) and Eve's staging.
  EXPECT_EQ(person.manifests_removed, 2u);
  EXPECT_EQ(person.unpublished_manifests, 1u);
  EXPECT_GT(person.unpublished_bytes, 0u);
  EXPECT_LT(person.unpublished_bytes, person.bytes_removed);
  EXPECT_EQ(moved.bytes_removed(), BytesGone(before, Files(uri())));
  EXPECT_EQ(People(), PeopleWith(kFixturePeople, R"("Fay",23)"));
}

// Files no manifest names go only after seven days (mtime).
TEST_F(CleanupTest, OrphanFilesGoOnlyWhenOlderThanSevenDays) {
  auto snapshot = db().store().Latest("main");
  ASSERT_TRUE(snapshot.ok());
  const std::string location = snapshot->FindTable("node:Person")->location;
  const fs::path old_file = fs::path(uri()) / location / "data" / "orphan-old.lance";
  const fs::path new_file = fs::path(uri()) / location / "data" / "orphan-new.lance";
  // Blob sidecars (which Lance writes next to a data file, and no manifest
  // names) live as long as their data file.
  fs::path named_data_file;
  for (const auto& e : fs::directory_iterator(fs::path(uri()) / location / "data")) {
    if (e.path().extension() == ".lance") named_data_file = e.path();
  }
  ASSERT_FALSE(named_data_file.empty());
  const std::string bits = "10000000000000000000000000000000.blob";
  const fs::path kept_sidecar = named_data_file.parent_path() / named_data_file.stem() / bits;
  const fs::path orphan_sidecar = fs::path(uri()) / location / "data" / "gone" / bits;
  fs::create_directories(kept_sidecar.parent_path());
  fs::create_directories(orphan_sidecar.parent_path());
  std::ofstream(old_file) << "0123456789";
  std::ofstream(new_file) << "01234";
  std::ofstream(kept_sidecar) << "sidecar";
  std::ofstream(orphan_sidecar) << "abc";
  for (const fs::path& f : {old_file, kept_sidecar, orphan_sidecar}) {
    fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::hours(24 * 8));
  }
  graph::CleanupReport report = Clean(1);
  const graph::DatasetCleanup& person = Dataset(report, "node:Person");
  EXPECT_EQ(person.orphan_files_removed, 2u);
  EXPECT_EQ(person.bytes_removed, 13u);
  EXPECT_FALSE(fs::exists(old_file));
  EXPECT_TRUE(fs::exists(new_file));
  EXPECT_TRUE(fs::exists(kept_sidecar));
  EXPECT_FALSE(fs::exists(orphan_sidecar));
  EXPECT_EQ(People(), kFixturePeople);
}

// Row 32 with a real cleanup: the feed reports the gap, and a baseline
// resumes it exactly.
TEST_F(CleanupTest, AFeedOverReclaimedCommitsIsAGapAndABaselineResumes) {
  exec::FeedPosition now;
  now.start = "now";
  auto first = db().ChangesPoll("main", now);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->cursor.has_value());
  const std::string c0 = *first->cursor;
  graph::CommitRecord a = LoadRows(R"({"type":"Person","data":{"name":"gap-a","age":1}})");
  graph::CommitRecord b = LoadRows(R"({"type":"Person","data":{"name":"gap-b","age":2}})");
  Clean(1);
  auto fresh = Fresh();
  ASSERT_TRUE(fresh);
  exec::FeedPosition from_c0;
  from_c0.cursor = c0;
  auto gap = fresh->ChangesPoll("main", from_c0);
  ASSERT_EQ(gap.status().code(), ErrorCode::kChangeFeedGap) << gap.status().ToString();
  EXPECT_EQ(gap.status().http_status(), 410);
  EXPECT_EQ(gap.status().details().at("first_unreadable_commit_id"), a.id);
  EXPECT_EQ(fresh->CommitChanges(a.id).status().code(), ErrorCode::kChangeFeedGap);
  auto baseline = fresh->ChangesBaseline("main");
  ASSERT_TRUE(baseline.ok()) << baseline.status().ToString();
  EXPECT_EQ(baseline->snapshot_commit_id, b.id);
  graph::CommitRecord post = LoadRows(R"({"type":"Person","data":{"name":"post","age":3}})");
  exec::FeedPosition resume;
  resume.cursor = baseline->resume_cursor;
  auto resumed = fresh->ChangesPoll("main", resume);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  ASSERT_EQ(resumed->blocks.size(), 1u);
  EXPECT_EQ(resumed->blocks[0].cause.graph_commit_id, post.id);
}

// Archived history: every 32 commits the buffer becomes a segment, and a
// segment absorbs its parent while the parent's level is not higher, so a
// linear history of 200 commits wrote segments that a later merge copied.
// Once the versions naming them are gone, cleanup removes exactly those
// duplicates; the commit list, from this handle and a new one, is unchanged.
TEST_F(CleanupTest, SupersededHistorySegmentsGoAndTheHistoryStaysWhole) {
  for (int i = 0; i < 200; ++i) InsertPerson("p" + std::to_string(i), i % 90);
  auto before = db().ListCommits();
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->size(), 202u);  // genesis, the fixture load, 200 inserts
  const fs::path segments = fs::path(uri()) / "__history" / "segments";
  const auto count_segments = [&] {
    return static_cast<size_t>(std::distance(fs::directory_iterator(segments), fs::directory_iterator()));
  };
  const size_t written = count_segments();
  graph::CleanupReport report = Clean(1);
  const graph::DatasetCleanup& manifest = Dataset(report, "__manifest");
  EXPECT_GT(manifest.history_segments_removed, 0u);
  EXPECT_EQ(count_segments(), written - manifest.history_segments_removed);
  EXPECT_EQ(IdsOf(*db().ListCommits()), IdsOf(*before));
  auto reopened = api::Omnigraph::Open(uri());
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(IdsOf(*(*reopened)->ListCommits()), IdsOf(*before));
  // A second run finds nothing more to remove.
  EXPECT_EQ(Dataset(Clean(1), "__manifest").history_segments_removed, 0u);
}

}  // namespace cleanup_test
}  // namespace omnigraph::testing
