// Bad input to the branch, merge and history entry points of the embedded
// API (spec/branches.md BR-2, BR-3, BR-6.2, BR-7, BR-9.1; Appendix A row
// 17): each is refused with its typed error and HTTP status, and leaves the
// graph exactly as it was (no branch, no commit, no file).
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/branch_fixture.h"
#include "api/omnigraph.h"

namespace omnigraph::testing {
namespace branch_bad_input_test {

namespace fs = std::filesystem;

class BranchBadInputTest : public BranchFixture {
 protected:
  // Every path under __manifest (refs and branch trees included).
  std::set<std::string> ManifestFiles() {
    std::set<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(fs::path(uri()) / "__manifest")) {
      files.insert(fs::relative(e.path(), uri()).string());
    }
    return files;
  }
  struct GraphState {
    std::vector<std::string> branches;
    BranchState main;
    std::set<std::string> files;
    bool operator==(const GraphState&) const = default;
  };
  GraphState Everything() { return GraphState{Branches(), StateOf("main"), ManifestFiles()}; }

  void ExpectRefused(const Status& st, ErrorCode code, int http, const std::string& message) {
    EXPECT_EQ(st.code(), code) << st.ToString();
    EXPECT_EQ(st.http_status(), http) << st.ToString();
    EXPECT_EQ(st.message(), message);
  }
};

// BR-2 steps 1, 3 and 4: empty, reserved and malformed names (400), and
// `main` (row 17). A refused name leaves no trace on disk.
TEST_F(BranchBadInputTest, InvalidAndReservedNamesAreRefusedWithoutATrace) {
  const GraphState before = Everything();
  struct Case {
    std::string name;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "branch name cannot be empty"},
      {" \t ", "branch name cannot be empty"},
      {"main", "cannot create branch 'main'"},
      {" main ", "cannot create branch 'main'"},
      {"__schema_apply_lock__", "branch_create does not allow internal system ref '__schema_apply_lock__'"},
      {"/__schema_apply_lock__", "branch_create does not allow internal system ref '/__schema_apply_lock__'"},
      {"__mine", "branch_create does not allow internal system ref '__mine'"},
      {"__a/b", "branch_create does not allow internal system ref '__a/b'"},
      {"bad branch", "Branch segment 'bad branch' contains invalid characters. Only alphanumeric, '.', '-', '_' are "
                     "allowed."},
      {"ok/bad segment", "Branch segment 'bad segment' contains invalid characters. Only alphanumeric, '.', '-', '_' "
                         "are allowed."},
      {"a:b", "Branch segment 'a:b' contains invalid characters. Only alphanumeric, '.', '-', '_' are allowed."},
      {"/lead", "branch name '/lead' must not start or end with '/'"},
      {"trail/", "branch name 'trail/' must not start or end with '/'"},
      {"a//b", "branch name 'a//b' contains '//'"},
      {"a..b", "branch name 'a..b' contains '..'"},
      {"a\\b", "branch name 'a\\b' contains '\\'"},
      {"x.lock", "branch name 'x.lock' must not end with '.lock'"},
      {"feature.01ARZ3NDEKTSV4RRFFQ69G5FAV",
       "branch name 'feature.01ARZ3NDEKTSV4RRFFQ69G5FAV' contains an incarnation-shaped suffix; choose another name"},
      {"a/b.01ARZ3NDEKTSV4RRFFQ69G5FAV/c",
       "branch name 'a/b.01ARZ3NDEKTSV4RRFFQ69G5FAV/c' contains an incarnation-shaped suffix; choose another name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("name '" + c.name + "'");
    auto created = db().BranchCreate(c.name);
    ExpectRefused(created.status(), ErrorCode::kInvalidArgument, 400, c.message);
  }
  EXPECT_EQ(Everything(), before);
  // Lower-case Crockford or a shorter tail is no incarnation suffix; Unicode
  // letters and digits are allowed.
  for (const char* name : {"v.01arz3ndektsv4rrffq69g5fav", "release.1.2", "Ünïcode-٣_x"}) {
    auto created = db().BranchCreate(name);
    EXPECT_TRUE(created.ok()) << name << ": " << created.status().ToString();
  }
}

// BR-2 step 5, BR-3.1: existing names, path-prefix collisions both ways,
// missing sources and snapshot sources.
TEST_F(BranchBadInputTest, NamespaceCollisionsAndBadSourcesAreRefused) {
  Create("review");
  Create("team/a");
  const GraphState before = Everything();
  ExpectRefused(db().BranchCreate("review").status(), ErrorCode::kConflict, 409, "branch 'review' already exists");
  ExpectRefused(db().BranchCreate(" review ").status(), ErrorCode::kConflict, 409, "branch 'review' already exists");
  ExpectRefused(db().BranchCreate("review/x").status(), ErrorCode::kConflict, 409,
                "cannot create branch 'review/x' while live branch 'review' shares its physical Lance path; live "
                "graph branch names may not be ancestors or descendants");
  ExpectRefused(db().BranchCreate("team").status(), ErrorCode::kConflict, 409,
                "cannot create branch 'team' while live branch 'team/a' shares its physical Lance path; live graph "
                "branch names may not be ancestors or descendants");
  ExpectRefused(db().BranchCreate("x", "nope").status(), ErrorCode::kNotFound, 404, "branch 'nope' not found");
  ExpectRefused(db().BranchCreate("x", load_commit_.id).status(), ErrorCode::kInvalidArgument, 400,
                "branch creation from pinned snapshots is not supported yet");
  ExpectRefused(db().BranchCreate("x", genesis_.id).status(), ErrorCode::kInvalidArgument, 400,
                "branch creation from pinned snapshots is not supported yet");
  ExpectRefused(db().BranchCreate("x", "__schema_apply_lock__").status(), ErrorCode::kInvalidArgument, 400,
                "branch_create does not allow internal system ref '__schema_apply_lock__'");
  EXPECT_EQ(Everything(), before);
  // Names that merely share a prefix without a '/' are disjoint.
  Create("reviews");
  Create("team-b");
  EXPECT_EQ(Branches(), (std::vector<std::string>{"main", "review", "reviews", "team-b", "team/a"}));
}

// BR-3.3 (row 17): main, unknown and reserved names, a parent, the active
// branch.
TEST_F(BranchBadInputTest, DeleteRefusalsInTheirOrder) {
  Create("feature");
  Create("child", "feature");
  const GraphState before = Everything();
  ExpectRefused(db().BranchDelete("main"), ErrorCode::kInvalidArgument, 400, "cannot delete branch 'main'");
  ExpectRefused(db().BranchDelete(" main"), ErrorCode::kInvalidArgument, 400, "cannot delete branch 'main'");
  ExpectRefused(db().BranchDelete(""), ErrorCode::kInvalidArgument, 400, "branch name cannot be empty");
  ExpectRefused(db().BranchDelete("__schema_apply_lock__"), ErrorCode::kInvalidArgument, 400,
                "branch_delete does not allow internal system ref '__schema_apply_lock__'");
  ExpectRefused(db().BranchDelete("nope"), ErrorCode::kNotFound, 404, "branch 'nope' not found");
  ExpectRefused(db().BranchDelete("feature"), ErrorCode::kConflict, 409,
                "cannot delete branch 'feature' because descendant branch 'child' still depends on it");
  db().set_bound_branch("child");
  ExpectRefused(db().BranchDelete("child"), ErrorCode::kConflict, 409, "cannot delete currently active branch 'child'");
  // The descendant check comes before the active-branch check.
  db().set_bound_branch("feature");
  ExpectRefused(db().BranchDelete("feature"), ErrorCode::kConflict, 409,
                "cannot delete branch 'feature' because descendant branch 'child' still depends on it");
  EXPECT_EQ(Everything(), before);
  // Another handle (bound to main) may delete it.
  db().set_bound_branch("main");
  EXPECT_TRUE(db().BranchDelete("child").ok());
  EXPECT_TRUE(db().BranchDelete("feature").ok());
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

// BR-9.1 (row 17): same branch, internal refs, unknown sides.
TEST_F(BranchBadInputTest, MergeRefusalsChangeNothing) {
  Create("feature");
  InsertPerson("Eve", 22, "feature");
  const GraphState before = Everything();
  const BranchState feature = StateOf("feature");
  ExpectRefused(db().BranchMerge("main", "main").status(), ErrorCode::kInvalidArgument, 400,
                "branch_merge requires distinct source and target branches");
  ExpectRefused(db().BranchMerge(" feature", "feature ").status(), ErrorCode::kInvalidArgument, 400,
                "branch_merge requires distinct source and target branches");
  ExpectRefused(db().BranchMerge("__schema_apply_lock__", "main").status(), ErrorCode::kInvalidArgument, 400,
                "branch_merge does not allow internal system refs ('__schema_apply_lock__' -> 'main')");
  ExpectRefused(db().BranchMerge("feature", "__x").status(), ErrorCode::kInvalidArgument, 400,
                "branch_merge does not allow internal system refs ('feature' -> '__x')");
  ExpectRefused(db().BranchMerge("nope", "main").status(), ErrorCode::kNotFound, 404, "branch 'nope' not found");
  ExpectRefused(db().BranchMerge("feature", "nope").status(), ErrorCode::kNotFound, 404, "branch 'nope' not found");
  ExpectRefused(db().BranchMerge("", "main").status(), ErrorCode::kInvalidArgument, 400,
                "branch name cannot be empty");
  // A commit id is no branch.
  ExpectRefused(db().BranchMerge(load_commit_.id, "main").status(), ErrorCode::kNotFound, 404,
                "branch '" + load_commit_.id + "' not found");
  EXPECT_EQ(Everything(), before);
  EXPECT_EQ(StateOf("feature"), feature);
}

// BR-6.2, BR-7: unknown and malformed commit ids.
TEST_F(BranchBadInputTest, UnknownAndMalformedCommitIds) {
  const GraphState before = Everything();
  const std::string unknown_ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  const std::string unknown_hb1 = "hb1.01ARZ3NDEKTSV4RRFFQ69G5FAV.1.01ARZ3NDEKTSV4RRFFQ69G5FAW";
  for (const std::string& id : {unknown_ulid, unknown_hb1, std::string("no-such-commit"),
                                std::string("manifest:main:v1"), std::string("manifest:main:v1:etag:x")}) {
    SCOPED_TRACE(id);
    const std::string message = "commit '" + id + "' not found";
    ExpectRefused(db().ShowCommit(id).status(), ErrorCode::kNotFound, 404, message);
    ExpectRefused(db().Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", id}).status(),
                  ErrorCode::kNotFound, 404, message);
    ExpectRefused(db().Export(api::ReadTarget{"main", id}, {}).status(), ErrorCode::kNotFound, 404, message);
  }
  struct Malformed {
    std::string id;
    std::string why;
  };
  const std::vector<Malformed> malformed = {
      {"hb1.", "it does not have four dot-separated parts"},
      {"hb1.x.1.y", "the block is not a canonical ULID"},
      {"hb1.01ARZ3NDEKTSV4RRFFQ69G5FAV.1.nonce", "the nonce is not a canonical ULID"},
      {"hb1.01ARZ3NDEKTSV4RRFFQ69G5FAV.01.01ARZ3NDEKTSV4RRFFQ69G5FAV",
       "the slot must be a decimal number below 16384 without leading zeros"},
      {"hb1.01ARZ3NDEKTSV4RRFFQ69G5FAV.16384.01ARZ3NDEKTSV4RRFFQ69G5FAV",
       "the slot must be a decimal number below 16384 without leading zeros"},
  };
  for (const Malformed& m : malformed) {
    SCOPED_TRACE(m.id);
    const std::string message =
        "invalid canonical history-block commit id '" + m.id + "': " + m.why + " (expected hb1.<block>.<slot>.<nonce>)";
    ExpectRefused(db().ShowCommit(m.id).status(), ErrorCode::kInvalidArgument, 400, message);
    ExpectRefused(db().Query(kBranchQueries, "q.gq", "people", "{}", api::ReadTarget{"main", m.id}).status(),
                  ErrorCode::kInvalidArgument, 400, message);
    ExpectRefused(db().CommitChanges(m.id).status(), ErrorCode::kInvalidArgument, 400, message);
  }
  EXPECT_EQ(Everything(), before);
}

}  // namespace branch_bad_input_test
}  // namespace omnigraph::testing
