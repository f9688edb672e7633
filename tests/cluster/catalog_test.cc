// The payload catalog (spec/cluster.md §2.5): immutable objects at digest
// paths, refused when the source moved since it was planned.
#include <gtest/gtest.h>

#include "cluster/catalog.h"
#include "cluster/state.h"
#include "io/local_store.h"
#include "support/temp_dir.h"
#include "util/sha256.h"

namespace omnigraph::testing {
namespace catalog_test {

TEST(ClusterCatalog, PayloadsLiveAtTheirDigestAndAreNeverRewritten) {
  TempDir dir;
  auto store = LocalStore::Make(dir.path());
  const std::string source = "query q() { match { $p: Person } return { $p.name } }\n";
  const std::string digest = Sha256Hex(source);
  const std::string key = cluster::QueryPayloadKey("r", "spike", "q", digest);
  EXPECT_EQ(key, "r/__cluster/resources/query/spike/q/" + digest + ".gq");
  EXPECT_EQ(cluster::PolicyPayloadKey("r", "readers", "ab"), "r/__cluster/resources/policy/readers/ab.yaml");
  EXPECT_EQ(*cluster::CheckPayload(*store, key, digest), cluster::PayloadCheck::kMissing);
  ASSERT_TRUE(cluster::StorePayload(*store, key, digest, source).ok());
  EXPECT_EQ(*cluster::CheckPayload(*store, key, digest), cluster::PayloadCheck::kPresent);
  // An object already at the digest path is trusted untouched, even if the
  // caller's source moved on: the digest names those bytes.
  ASSERT_TRUE(cluster::StorePayload(*store, key, digest, "something else").ok());
  EXPECT_EQ((*store->Get(key))->view(), source);

  // A source edited since it was planned is refused, and nothing is written.
  const std::string other = cluster::QueryPayloadKey("r", "spike", "q", "00");
  Status moved = cluster::StorePayload(*store, other, "00", source);
  EXPECT_EQ(cluster::ClusterCodeOf(moved), "resource_content_changed");
  EXPECT_FALSE(store->Get(other).ok());
  const std::string latin1 = "caf\xe9";
  Status not_utf8 = cluster::StorePayload(*store, other, Sha256Hex(latin1), latin1);
  EXPECT_EQ(cluster::ClusterCodeOf(not_utf8), "resource_payload_write_error");
  EXPECT_EQ(not_utf8.message(), "the source of " + other + " is not UTF-8");

  // A payload whose bytes no longer hash to their digest is reported.
  ASSERT_TRUE(store->Put(key, "tampered").ok());
  EXPECT_EQ(*cluster::CheckPayload(*store, key, digest), cluster::PayloadCheck::kDigestMismatch);
}

TEST(ClusterCatalog, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace catalog_test
}  // namespace omnigraph::testing
