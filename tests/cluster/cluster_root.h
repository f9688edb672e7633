// A cluster config dir that is also its storage root, for the tests of the
// storage-touching cluster commands (spec/cluster.md §2–§4, §6, §7): the
// fixture F of cluster_dir.h plus direct access to the ledger, the lock,
// the sidecars and the graph roots under it.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "cluster/command.h"
#include "cluster/digest.h"
#include "cluster/records.h"
#include "cluster/state.h"
#include "io/local_store.h"
#include "cluster/cluster_dir.h"
#include "util/sha256.h"

namespace omnigraph::cluster::testing {

class ClusterRoot : public ClusterDir {
 public:
  // Writes F's cluster.yaml.
  ClusterRoot() { Write("cluster.yaml", kMinimalCluster); }

  // Options for a command on this dir, acting as `actor`.
  CommandOptions Options(std::optional<std::string> actor = std::string("tester")) const {
    CommandOptions options;
    options.config_dir = path();
    options.actor = std::move(actor);
    return options;
  }

  ObjectStore& store() const { return *store_; }

  // <root>/<relative>.
  std::string At(const std::string& relative) const { return Resolved(relative); }
  bool Exists(const std::string& relative) const { return std::filesystem::exists(At(relative)); }
  std::string Read(const std::string& relative) const {
    std::ifstream in(At(relative), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string LedgerBytes() const { return Read(std::string(kStateKey)); }
  ClusterState Ledger() const {
    auto state = ParseState(LedgerBytes());
    EXPECT_TRUE(state.ok()) << state.status().ToString();
    return state.ok() ? *state : ClusterState{};
  }
  void WriteLedger(const ClusterState& state) const { Write(std::string(kStateKey), SerializeState(state)); }

  // The digest of a file of the config dir.
  std::string DigestOf(const std::string& relative) const { return Sha256Hex(Read(relative)); }

  // §7 "Seeded": graph.knowledge (schema-only composite) + schema.knowledge
  // (the desired digest), revision 1, no graph root.
  ClusterState Seed() const {
    ClusterState state;
    state.state_revision = 1;
    const std::string schema = DigestOf("people.pg");
    state.resources["schema.knowledge"] = StateResource{.digest = schema};
    state.resources["graph.knowledge"] =
        StateResource{.digest = GraphCompositeDigest(GraphDigestInputs{.graph_id = "knowledge", .schema_digest = schema})};
    WriteLedger(state);
    return state;
  }

  // The recovery sidecars under the root.
  std::vector<RecoverySidecar> Sidecars() const {
    auto listing = ListRecoverySidecars(*store_, "");
    EXPECT_TRUE(listing.ok());
    return listing.ok() ? listing->records : std::vector<RecoverySidecar>{};
  }
  std::vector<ApprovalArtifact> Approvals() const {
    auto listing = ListApprovalArtifacts(*store_, "");
    EXPECT_TRUE(listing.ok());
    return listing.ok() ? listing->records : std::vector<ApprovalArtifact>{};
  }

 private:
  std::shared_ptr<LocalStore> store_ = LocalStore::Make(path());
};

// The codes of `diagnostics`, in order.
inline std::vector<std::string> Codes(const Diagnostics& diagnostics) {
  std::vector<std::string> codes;
  for (const Diagnostic& diagnostic : diagnostics) codes.push_back(diagnostic.code);
  return codes;
}

inline bool HasCode(const Diagnostics& diagnostics, std::string_view code) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.code == code) return true;
  }
  return false;
}

inline const Diagnostic* FindCode(const Diagnostics& diagnostics, std::string_view code) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.code == code) return &diagnostic;
  }
  return nullptr;
}

}  // namespace omnigraph::cluster::testing
