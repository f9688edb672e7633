// What the collector reads before it decides anything (collector.h "plan"):
// the ref view, every `__manifest` tree with its decoded versions, and
// every table dataset with its manifests and the files they name. Nothing
// here deletes; every path is a store key (relative to the store root).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/graph_store.h"
#include "graph/proposals.h"

namespace omnigraph::graph::collector {

// The branch records and tags of `__manifest`: the view a plan is made
// against and checked against again before the first deletion.
struct RefView {
  std::vector<table::BranchInfo> branches;  // sorted by name
  std::vector<table::TagInfo> tags;         // sorted by name
  bool operator==(const RefView& other) const;
};
// Errors: IoError, CorruptData.
Result<RefView> ReadRefView(GraphStore& graph);

// One `__manifest` version (linear or detached) as the collector sees it.
struct ManifestVersionFacts {
  uint64_t version = 0;
  bool detached = false;
  std::shared_ptr<const GraphState> state;  // its rows (pins, head)
  int64_t timestamp_nanos = 0;
  std::string manifest_key;
  std::vector<std::string> files;           // data and transaction files it names
  std::optional<ProposalRecipe> recipe;     // detached: the proposal recipe it carries
};

// One tree of `__manifest`: main's root or `tree/{ref}`.
struct ManifestTree {
  std::string ref;   // "main" or the native ref name
  std::string dir;   // store key of the tree's root
  std::map<uint64_t, ManifestVersionFacts> versions;  // linear and detached
  std::map<std::string, uint64_t> files;               // every file under it, with its size
  std::optional<uint64_t> head() const;                 // newest linear version
};

// Every tree: main's and each directory under `__manifest/tree/` holding
// `_versions`. Errors: storage errors; CorruptData for a version that
// cannot be decoded.
Result<std::vector<ManifestTree>> ReadManifestTrees(GraphStore& graph);

// One table manifest.
struct TableVersionFacts {
  uint64_t version = 0;
  bool detached = false;
  std::string manifest_key;
  uint64_t read_version = 0;
  std::map<std::string, std::string> properties;  // of its transaction
  // complete: every data, deletion, transaction and deleted-id file the
  // manifest names. Otherwise the files its transaction wrote (and any it
  // lists), read from the transaction alone: a detached version's manifest
  // repeats every fragment of the table, so reading all of a long chain's
  // manifests is quadratic, while its transactions are not. Everything
  // else the version names, its base version (read_version) names too.
  std::vector<std::string> files;
  bool complete = false;
};

// One table dataset directory.
struct TableDir {
  std::string location;  // relative to the graph root
  std::string dir;       // store key
  std::map<uint64_t, TableVersionFacts> versions;
  std::map<std::string, uint64_t> files;  // every file under it (manifests included), with its size
};

// Table locations present under `nodes/` and `edges/`, as "nodes/{id}".
// Errors: IoError.
Result<std::vector<std::string>> ListTableLocations(GraphStore& graph);

// Reads every version of the table at `location`: linear versions whole,
// detached ones from the transaction their manifest starts with (whole
// when it does not start with one, or when it names files through a base
// path). Errors: storage errors, CorruptData for a manifest or transaction
// that cannot be decoded.
Result<TableDir> ReadTableDir(GraphStore& graph, const std::string& location);

// Makes `version` of `table` complete (files = every file its manifest
// names). REQUIRES: `version` is in table->versions. Errors: those of
// opening the version.
Status CompleteTableVersion(GraphStore& graph, TableDir* table, uint64_t version);

// Modification time (Unix nanoseconds) of `key`, or nullopt when the store
// cannot tell (then a file no manifest names is never judged old).
std::optional<int64_t> ModifiedAt(ObjectStore& store, const std::string& key);

}  // namespace omnigraph::graph::collector
