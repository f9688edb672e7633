// The wire error body (api/wire/error_json.h): message, closed code and
// the one detail object each kind of error carries (server.md §1.5,
// surface.md §6.3, branches.md BR-8).
#include "api/wire/error_json.h"

#include <gtest/gtest.h>

namespace omnigraph::api::wire {
namespace error_json_test {

TEST(ErrorJson, APreconditionFailureHasItsDetailAndNoCode) {
  Status lost(ErrorCode::kPreconditionFailed,
              "precondition failed on branch 'main': expected head 'A' but current is B",
              {{"branch", "main"}, {"expected", "A"}, {"actual", "B"}});
  EXPECT_EQ(ErrorJson(lost).dump(),
            R"({"error":"precondition failed on branch 'main': expected head 'A' but current is B",)"
            R"("precondition_failure":{"expected":"A","actual":"B"}})");
  // An unknown current head is omitted, not null (`actual?`).
  Status unknown(ErrorCode::kPreconditionFailed, "m", {{"branch", "main"}, {"expected", "A"}});
  EXPECT_EQ(ErrorJson(unknown).dump(), R"({"error":"m","precondition_failure":{"expected":"A"}})");
}

TEST(ErrorJson, ConflictsCarryTheirStructuredDetail) {
  Status moved(ErrorCode::kReadSetChanged, "read set changed",
               {{"member", "graph_head:main"}, {"expected", "A"}, {"actual", "B"}});
  EXPECT_EQ(ErrorJson(moved).dump(),
            R"({"error":"read set changed","code":"conflict",)"
            R"("read_set_conflict":{"member":"graph_head:main","expected":"A","actual":"B"}})");
  Status key(ErrorCode::kKeyConflict, "taken", {{"entity_kind", "node"}, {"type_name", "Person"}, {"entity_id", "ann"}});
  EXPECT_EQ(ErrorJson(key).dump(),
            R"({"error":"taken","code":"conflict",)"
            R"("key_conflict":{"entity_kind":"node","type_name":"Person","entity_id":"ann"}})");
  // A table-level key conflict names no entity type: no detail object.
  Status table_key(ErrorCode::kKeyConflict, "taken", {{"column", "id"}, {"key", "ann"}});
  EXPECT_EQ(ErrorJson(table_key).dump(), R"({"error":"taken","code":"conflict"})");
}

// BR-12.4: publishing an unattached snapshot is a conflict with its refusal.
TEST(ErrorJson, AnUnattachedSnapshotsRefusalNamesItsReason) {
  Status refused(ErrorCode::kConflict, "commit 'C' is an unattached snapshot and cannot be published",
                 {{"commit_refusal", "unattached_cannot_publish"}, {"graph_commit_id", "C"}});
  EXPECT_EQ(ErrorJson(refused).dump(),
            R"({"error":"commit 'C' is an unattached snapshot and cannot be published","code":"conflict",)"
            R"("commit_refusal":{"reason":"unattached_cannot_publish","graph_commit_id":"C"}})");
  // Other conflicts carry no such object.
  Status published(ErrorCode::kConflict, "commit 'C' is published and cannot be dropped",
                   {{"kind", "manifest_conflict"}});
  EXPECT_EQ(ErrorJson(published).dump(),
            R"({"error":"commit 'C' is published and cannot be dropped","code":"conflict"})");
}

TEST(ErrorJson, AResourceLimitHasNumericBounds) {
  Status limit = ResourceLimitExceeded("keyed write entities for node:Person", 8192, 8193);
  EXPECT_EQ(ErrorJson(limit).dump(),
            R"({"error":")" + limit.message() + R"(","code":"bad_request",)"
            R"("resource_limit":{"resource":"keyed write entities for node:Person","limit":8192,"actual":8193}})");
}

TEST(ErrorJson, OtherErrorsAreAMessageAndACode) {
  EXPECT_EQ(ErrorJson(InvalidArgument("bad")).dump(), R"({"error":"bad","code":"bad_request"})");
  EXPECT_EQ(ErrorJson(NotFound("gone")).dump(), R"({"error":"gone","code":"not_found"})");
  EXPECT_EQ(ErrorJson(IoError("disk")).dump(), R"({"error":"disk","code":"internal"})");
  EXPECT_EQ(ErrorJson(Status(ErrorCode::kVersionReclaimed, "reclaimed")).dump(), R"({"error":"reclaimed","code":"internal"})");
}

TEST(ErrorJson, EveryErrorCodeMapsToTheClosedSetOrNone) {
  for (uint16_t raw = 0; raw <= static_cast<uint16_t>(ErrorCode::kInternal); ++raw) {
    auto code = WireErrorCode(static_cast<ErrorCode>(raw));
    if (!code) continue;
    EXPECT_TRUE(*code == "bad_request" || *code == "not_found" || *code == "conflict" || *code == "internal") << *code;
  }
}

}  // namespace error_json_test
}  // namespace omnigraph::api::wire
