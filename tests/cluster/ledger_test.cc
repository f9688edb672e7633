// The cluster state ledger and its lock (spec/cluster.md §2.2–§2.4, §4.7):
// exact file bytes, strict decoding with the spec's codes, and the
// compare-and-swap and create-if-absent rules every command relies on.
#include <gtest/gtest.h>

#include "cluster/state.h"
#include "cluster/state_lock.h"
#include "io/local_store.h"
#include "support/temp_dir.h"

namespace omnigraph::testing {
namespace ledger_test {

using cluster::ClusterState;

std::string CodeOf(const Status& status) { return cluster::ClusterCodeOf(status); }

ClusterState SampleState() {
  ClusterState state;
  state.state_revision = 3;
  state.config_digest = "c0ffee";
  state.resources["graph.spike"] = {"d1", std::nullopt, std::string("openai"), std::nullopt,
                                    std::string(R"({"allow":[{"base":"s3://b/p/"}]})")};
  state.resources["policy.readers"] = {"d2", std::vector<std::string>{"spike"}, std::nullopt, std::nullopt,
                                       std::nullopt};
  state.resource_statuses["graph.spike"] = {"applied", {}, std::nullopt};
  state.resource_statuses["policy.readers"] = {"blocked", {"approval_required"}, std::string("needs approval")};
  state.approval_records["01J0000000000000000000000A"] = {"2026-12-02T10:00:00Z", "apply"};
  state.recovery_records["01J0000000000000000000000B"] = {"graph_create", "spike", "rolled_forward",
                                                          "2026-12-02T10:01:00Z", std::string("andrew")};
  cluster::Observation graph;
  graph.kind = "graph";
  graph.address = "graph.spike";
  graph.graph_uri = "/r/graphs/spike.omni";
  graph.exists = true;
  graph.graph_manifest_version = 7;
  graph.schema_matches_desired = true;
  state.observations["graph.spike"] = graph;
  cluster::Observation tombstone;
  tombstone.kind = "tombstone";
  tombstone.deleted_at = "2026-12-02T10:02:00Z";
  state.observations["graph.old"] = tombstone;
  return state;
}

TEST(ClusterLedger, AnEmptyStateIsWrittenPrettyWithEveryMap) {
  EXPECT_EQ(cluster::SerializeState(ClusterState{}),
            "{\n"
            "  \"version\": 1,\n"
            "  \"state_revision\": 0,\n"
            "  \"applied_revision\": {\n"
            "    \"config_digest\": null,\n"
            "    \"resources\": {}\n"
            "  },\n"
            "  \"resource_statuses\": {},\n"
            "  \"approval_records\": {},\n"
            "  \"recovery_records\": {},\n"
            "  \"observations\": {}\n"
            "}\n");
}

TEST(ClusterLedger, EveryFieldRoundTripsAndOptionalOnesAreOmittedOrNull) {
  const std::string bytes = cluster::SerializeState(SampleState());
  auto back = cluster::ParseState(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, SampleState());
  EXPECT_EQ(cluster::SerializeState(*back), bytes);
  // An applied status has no conditions or message; the graph observation
  // writes every key, nulls included; the tombstone only its own.
  EXPECT_NE(bytes.find("\"graph.spike\": {\n      \"status\": \"applied\"\n    }"), std::string::npos) << bytes;
  EXPECT_NE(bytes.find("\"observed_at\": null"), std::string::npos);
  EXPECT_NE(bytes.find("\"error\": null"), std::string::npos);
  EXPECT_NE(bytes.find("\"external_blob_policy\": {\n          \"allow\": ["), std::string::npos) << bytes;
  EXPECT_EQ(bytes.find("\"embedding_profile\""), std::string::npos);
  EXPECT_EQ(cluster::StateCas("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ClusterLedger, DecodingIsStrictAndNamesThePath) {
  struct Case {
    std::string json, code, message;
  };
  const std::vector<Case> cases = {
      {"not json", "invalid_state_json", "invalid state.json: not valid JSON"},
      {R"({"version":1,"extra":0})", "invalid_state_json", "invalid state.json: $: unknown field `extra`"},
      {R"({"version":2})", "unsupported_state_version",
       "unsupported state.json version 2; this build supports version 1"},
      {R"({"state_revision":1})", "invalid_state_json", "invalid state.json: $: missing field `version`"},
      {R"({"version":1,"applied_revision":{"config_digest":null,"resources":{"graph.g":{"digest":"d","uri":"x"}}}})",
       "invalid_state_json", "invalid state.json: applied_revision.resources.graph.g: unknown field `uri`"},
      {R"({"version":1,"resource_statuses":{"graph.g":{"status":"sleeping"}}})", "invalid_state_json",
       "invalid state.json: resource_statuses.graph.g.status: unknown status `sleeping`"},
      {R"({"version":1,"observations":{"graph.g":{"kind":"ghost"}}})", "invalid_state_json",
       "invalid state.json: observations.graph.g.kind: unknown kind `ghost`"},
      {R"({"version":1,"state_revision":-1})", "invalid_state_json",
       "invalid state.json: state_revision: expected an unsigned integer"},
      {R"({"version":1,"observations":{"graph.g":{"kind":"graph","address":"graph.g","manifest_version":3,)"
       R"("graph_manifest_version":4}}})",
       "conflicting_graph_manifest_observation",
       "invalid state.json: observations.graph.g: `manifest_version` and `graph_manifest_version` disagree"},
  };
  for (const Case& c : cases) {
    auto parsed = cluster::ParseState(c.json);
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(CodeOf(parsed.status()), c.code) << c.json;
    EXPECT_EQ(parsed.status().message(), c.message) << c.json;
  }
}

TEST(ClusterLedger, TheLegacyManifestVersionKeyReadsAsGraphManifestVersion) {
  auto parsed = cluster::ParseState(
      R"({"version":1,"observations":{"graph.g":{"kind":"graph","address":"graph.g","manifest_version":3}}})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->observations.at("graph.g").graph_manifest_version, 3u);
  EXPECT_NE(cluster::SerializeState(*parsed).find("\"graph_manifest_version\": 3"), std::string::npos);
}

TEST(ClusterLedger, WritesAreACompareAndSwapOnTheFileBytes) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  auto none = cluster::ReadState(*store, "root");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->state.has_value());
  EXPECT_FALSE(none->cas.has_value());

  ClusterState first = SampleState();
  auto created = cluster::WriteState(*store, "root", first, std::nullopt);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, cluster::StateCas(cluster::SerializeState(first)));
  // A second creator expected it absent.
  auto raced = cluster::WriteState(*store, "root", ClusterState{}, std::nullopt);
  EXPECT_EQ(CodeOf(raced.status()), "state_cas_mismatch");
  EXPECT_EQ(raced.status().message(),
            "state.json changed while the command was running; re-run the command against the latest state");

  auto read = cluster::ReadState(*store, "root");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read->state, first);
  EXPECT_EQ(*read->cas, *created);
  ClusterState second = first;
  second.state_revision = 4;
  auto replaced = cluster::WriteState(*store, "root", second, read->cas);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  // The first CAS is stale now: refused, and the file is the second state.
  auto stale = cluster::WriteState(*store, "root", first, read->cas);
  EXPECT_EQ(CodeOf(stale.status()), "state_cas_mismatch");
  EXPECT_EQ(cluster::ReadState(*store, "root")->state->state_revision, 4u);

  ASSERT_TRUE(store->Put("root/__cluster/state.json", "{\"version\":9}").ok());
  EXPECT_EQ(CodeOf(cluster::ReadState(*store, "root").status()), "unsupported_state_version");
}

TEST(ClusterLedger, TimesAreRfc3339Utc) {
  EXPECT_EQ(cluster::FormatRfc3339(1'764'669'723'456), "2025-12-02T10:02:03Z");
  EXPECT_EQ(cluster::ParseRfc3339("2025-12-02T10:02:03Z"), 1'764'669'723'000);
  EXPECT_EQ(cluster::ParseRfc3339("2025-12-02 10:02:03"), std::nullopt);
}

TEST(ClusterStateLock, OneHolderAtATimeAndOnlyTheExactIdUnlocks) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  auto lock = cluster::AcquireLock(*store, "r", "apply", 1'764'669'723'000, 4242);
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_EQ(lock->lock_id.size(), 26u);
  auto bytes = store->Get("r/__cluster/lock.json");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((*bytes)->view(), "{\n  \"version\": 1,\n  \"lock_id\": \"" + lock->lock_id +
                                  "\",\n  \"operation\": \"apply\",\n  \"created_at\": \"2025-12-02T10:02:03Z\",\n"
                                  "  \"pid\": 4242\n}\n");

  auto second = cluster::AcquireLock(*store, "r", "plan", 1'764'669'724'000, 1);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(CodeOf(second.status()), "state_lock_held");
  EXPECT_EQ(second.status().message(), "cluster state lock already exists (lock id " + lock->lock_id +
                                           "); run `omnigraph cluster force-unlock " + lock->lock_id +
                                           "` only after confirming no cluster operation is active");
  EXPECT_EQ(second.status().details().at("lock_operation"), "apply");
  EXPECT_EQ(second.status().details().at("lock_pid"), "4242");

  // Release with another id leaves the lock; force-unlock needs the exact id.
  ASSERT_TRUE(cluster::ReleaseLock(*store, "r", "01J00000000000000000000000").ok());
  EXPECT_TRUE(cluster::ReadLock(*store, "r")->has_value());
  Status mismatch = cluster::ForceUnlock(*store, "r", "01J00000000000000000000000");
  EXPECT_EQ(CodeOf(mismatch), "state_lock_id_mismatch");
  EXPECT_EQ(mismatch.message(), "lock id mismatch: held lock is " + lock->lock_id +
                                    ", refusing to remove (pass the exact id from `cluster status`)");
  ASSERT_TRUE(cluster::ReleaseLock(*store, "r", lock->lock_id).ok());
  EXPECT_FALSE(cluster::ReadLock(*store, "r")->has_value());
  EXPECT_EQ(CodeOf(cluster::ForceUnlock(*store, "r", lock->lock_id)), "state_lock_missing");

  auto again = cluster::AcquireLock(*store, "r", "import", 0, 7);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(cluster::ForceUnlock(*store, "r", again->lock_id).ok());
  EXPECT_FALSE(cluster::ReadLock(*store, "r")->has_value());
}

TEST(ClusterStateLock, ADamagedLockIsTypedAndKept) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  const std::string extra =
      R"({"version":1,"lock_id":"a","operation":"apply","created_at":"x","pid":1,"host":"h"})";
  ASSERT_TRUE(store->Put("r/__cluster/lock.json", extra).ok());
  EXPECT_EQ(CodeOf(cluster::ReadLock(*store, "r").status()), "invalid_state_lock");
  EXPECT_EQ(cluster::ReadLock(*store, "r").status().message(), "invalid cluster state lock: $: unknown field `host`");
  EXPECT_EQ(CodeOf(cluster::ForceUnlock(*store, "r", "a")), "invalid_state_lock");
  EXPECT_TRUE(store->Get("r/__cluster/lock.json").ok());
  ASSERT_TRUE(store->Put("r/__cluster/lock.json",
                         R"({"version":2,"lock_id":"a","operation":"apply","created_at":"x","pid":1})")
                  .ok());
  EXPECT_EQ(CodeOf(cluster::ReadLock(*store, "r").status()), "unsupported_state_lock_version");
  ASSERT_TRUE(store->Put("r/__cluster/lock.json",
                         R"({"version":1,"lock_id":"a","operation":"serve","created_at":"x","pid":1})")
                  .ok());
  EXPECT_EQ(cluster::ReadLock(*store, "r").status().message(),
            "invalid cluster state lock: operation: unknown operation `serve`");
  // A lock held elsewhere still refuses a new one, whatever its bytes.
  EXPECT_EQ(CodeOf(cluster::AcquireLock(*store, "r", "plan", 0, 1).status()), "state_lock_held");
}

}  // namespace ledger_test
}  // namespace omnigraph::testing
