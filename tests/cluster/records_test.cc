// Recovery sidecars and approval artifacts (spec/cluster.md §2.6, §2.7):
// exact bytes, strict decoding, and listings that report a bad file and
// leave it where it is.
#include <gtest/gtest.h>

#include "cluster/records.h"
#include "cluster/state.h"
#include "io/local_store.h"
#include "support/temp_dir.h"

namespace omnigraph::testing {
namespace records_test {

cluster::RecoverySidecar Sidecar(const std::string& id) {
  cluster::RecoverySidecar sidecar;
  sidecar.operation_id = id;
  sidecar.started_at = "2026-12-02T10:00:00Z";
  sidecar.actor = "andrew";
  sidecar.kind = "graph_create";
  sidecar.graph_id = "spike";
  sidecar.graph_uri = "/r/graphs/spike.omni";
  sidecar.expected_manifest_version = 1;
  sidecar.desired_schema_digest = "abc";
  return sidecar;
}

TEST(ClusterRecords, ARecoverySidecarIsWrittenWithEveryKeyAndReadBack) {
  const std::string bytes = cluster::SerializeRecoverySidecar(Sidecar("01JA"));
  EXPECT_EQ(bytes,
            "{\n"
            "  \"schema_version\": 1,\n"
            "  \"operation_id\": \"01JA\",\n"
            "  \"started_at\": \"2026-12-02T10:00:00Z\",\n"
            "  \"actor\": \"andrew\",\n"
            "  \"kind\": \"graph_create\",\n"
            "  \"graph_id\": \"spike\",\n"
            "  \"graph_uri\": \"/r/graphs/spike.omni\",\n"
            "  \"observed_manifest_version\": null,\n"
            "  \"expected_manifest_version\": 1,\n"
            "  \"desired_schema_digest\": \"abc\",\n"
            "  \"state_cas_base\": null,\n"
            "  \"approval_id\": null\n"
            "}\n");
  auto back = cluster::ParseRecoverySidecar(bytes, "x.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Sidecar("01JA"));
}

TEST(ClusterRecords, ListingsSortDecodeAndReportBadFilesWithoutTouchingThem) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  auto empty = cluster::ListRecoverySidecars(*store, "r");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->records.empty());
  EXPECT_TRUE(empty->problems.empty());

  ASSERT_TRUE(cluster::WriteRecoverySidecar(*store, "r", Sidecar("01JB")).ok());
  ASSERT_TRUE(cluster::WriteRecoverySidecar(*store, "r", Sidecar("01JA")).ok());
  std::string newer = cluster::SerializeRecoverySidecar(Sidecar("01JC"));
  newer.replace(newer.find("\"schema_version\": 1"), 19, "\"schema_version\": 2");
  ASSERT_TRUE(store->Put("r/__cluster/recoveries/01JC.json", newer).ok());
  std::string extra = cluster::SerializeRecoverySidecar(Sidecar("01JD"));
  extra.replace(extra.find("\"kind\""), 6, "\"host\": \"h\",\n  \"kind\"");
  ASSERT_TRUE(store->Put("r/__cluster/recoveries/01JD.json", extra).ok());
  ASSERT_TRUE(store->Put("r/__cluster/recoveries/notes.txt", "ignored").ok());

  auto listed = cluster::ListRecoverySidecars(*store, "r");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->records.size(), 2u);
  EXPECT_EQ(listed->records[0].operation_id, "01JA");
  EXPECT_EQ(listed->records[1].operation_id, "01JB");
  ASSERT_EQ(listed->problems.size(), 2u);
  EXPECT_EQ(cluster::ClusterCodeOf(listed->problems[0]), "unsupported_recovery_sidecar_version");
  EXPECT_EQ(listed->problems[0].message(),
            "r/__cluster/recoveries/01JC.json: unsupported recovery sidecar schema_version 2; this build supports 1");
  EXPECT_EQ(cluster::ClusterCodeOf(listed->problems[1]), "invalid_recovery_sidecar");
  EXPECT_EQ(listed->problems[1].message(),
            "invalid recovery sidecar r/__cluster/recoveries/01JD.json: $: unknown field `host`");
  EXPECT_TRUE(store->Get("r/__cluster/recoveries/01JC.json").ok());
  EXPECT_TRUE(store->Get("r/__cluster/recoveries/01JD.json").ok());
}

TEST(ClusterRecords, AnApprovalIsConsumedByRewritingItsFile) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  cluster::ApprovalArtifact approval;
  approval.approval_id = "01JE";
  approval.resource = "graph.old";
  approval.operation = "delete";
  approval.reason = "retired";
  approval.bound_config_digest = "cfg";
  approval.bound_before_digest = "before";
  approval.approved_by = "andrew";
  approval.created_at = "2026-12-02T10:00:00Z";
  ASSERT_TRUE(cluster::WriteApprovalArtifact(*store, "r", approval).ok());
  approval.consumed_at = "2026-12-02T11:00:00Z";
  approval.consumed_by_operation = "apply";
  ASSERT_TRUE(cluster::WriteApprovalArtifact(*store, "r", approval).ok());
  auto listed = cluster::ListApprovalArtifacts(*store, "r");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->records.size(), 1u);
  EXPECT_EQ(listed->records[0], approval);
  EXPECT_NE(cluster::SerializeApprovalArtifact(approval).find("\"bound_after_digest\": null"), std::string::npos);

  std::string renamed = cluster::SerializeApprovalArtifact(approval);
  renamed.replace(renamed.find("\"delete\""), 8, "\"rename\"");
  auto refused = cluster::ParseApprovalArtifact(renamed, "a.json");
  EXPECT_EQ(cluster::ClusterCodeOf(refused.status()), "invalid_approval_artifact");
  EXPECT_EQ(refused.status().message(), "invalid approval artifact a.json: operation: unknown operation `rename`");
  EXPECT_EQ(cluster::ClusterCodeOf(cluster::ParseApprovalArtifact("[]", "a.json").status()),
            "invalid_approval_artifact");
}

}  // namespace records_test
}  // namespace omnigraph::testing
