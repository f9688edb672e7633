// Reading `__manifest`: resolving a logical branch to the native ref of its
// live incarnation, finding a ref's latest version, and decoding versions
// (spec/engine.md §1.4, §1.6 step 1; spec/branches.md BR-1, BR-3).
//
// main is the dataset's main line. Every other branch life is one native
// Lance branch of `__manifest` named `{logical}.{ULID}`; it is live while
// its record `_refs/branches/{ref}.json` exists. Deleting a branch removes
// the record and keeps the ref's tree, so a snapshot of a deleted branch can
// still be read by its native ref until cleanup reclaims it.
//
// Decoded versions are immutable and cached by (native ref, version): a
// handle that published version M+1 itself never reads it back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "io/object_store.h"
#include "table/dataset.h"

namespace omnigraph::graph {

// One branch incarnation: its logical name and its native ref ("main" for main).
struct NativeRef {
  std::string branch;
  std::string name;

  // The main line's ref (main has no native ref of its own).
  static NativeRef Main() { return NativeRef{std::string(kMainBranch), std::string(kMainBranch)}; }
  bool is_main() const { return name == kMainBranch; }
  // The Lance branch of `__manifest` holding it (nullopt = main line).
  std::optional<std::string> lance_branch() const {
    return is_main() ? std::nullopt : std::optional<std::string>(name);
  }
  bool operator==(const NativeRef&) const = default;
};

// A live ref with the ref it was created from.
struct LiveRef {
  NativeRef ref;
  std::optional<std::string> parent_ref;  // native ref name; nullopt = main
  uint64_t parent_version = 0;
};

// "{logical}.{ULID}" for a new incarnation of `branch`.
std::string NewNativeRefName(std::string_view branch);
// The logical branch of a native ref name: the name without its
// ".{canonical ULID}" suffix (a legacy ref without one is its own name).
std::string LogicalBranchOf(std::string_view ref_name);

// One decoded __manifest version and the dataset handle a publication
// stages on.
struct ManifestVersion {
  table::Dataset dataset;
  std::shared_ptr<const GraphState> state;
};
using ManifestVersionPtr = std::shared_ptr<const ManifestVersion>;

class ManifestReader {
 public:
  ManifestReader(ObjectStorePtr store, std::string manifest_root)
      : store_(std::move(store)), root_(std::move(manifest_root)) {}

  const std::string& root() const { return root_; }

  // The live incarnation of `branch`. A warm resolution costs one Head of
  // the ref record (which tells a deleted or re-created branch).
  // Errors: NotFound (detail kind branch_not_found) when no ref of that name
  // is live; Conflict "branch '<b>' has N live native incarnations (…); run
  // cleanup before using it" (BR-3.4); IoError.
  Result<NativeRef> Resolve(std::string_view branch);
  // The ref this reader last resolved `branch` to, without confirming it
  // (no store call); Resolve's answer for a name it does not remember.
  // For a check that must not create anything for an unknown name, ahead
  // of a Resolve that confirms. Errors: those of Resolve.
  Result<NativeRef> ResolveRemembered(std::string_view branch);
  // Every live non-main ref, sorted by ref name. Errors: IoError, CorruptData.
  Result<std::vector<LiveRef>> ListLive();
  // OK while `ref`'s record exists (main always). NotFound (branch_not_found)
  // otherwise.
  Status CheckLive(const NativeRef& ref);
  // Drops what this reader remembers of `ref` (after deleting it).
  void Forget(const NativeRef& ref);

  // The latest version of `ref`. Versions are created strictly in sequence
  // (put-if-absent of n+1), so from the newest version this reader knows,
  // probing for the next one answers in one store call; a reader that knows
  // none, or is more than kMaxVersionProbes behind, lists instead.
  // `confirm_known`: first check, with one more Head, that the newest version
  // this reader knows of `ref` is still the object it read; when it is not
  // (the graph was deleted and created again at this path), every decoded
  // version of the ref is dropped and the versions are listed afresh. A
  // write's recheck, a moment after its capture confirmed it, skips this.
  // Errors: NotFound (no graph, or a ref without versions), IoError.
  Result<uint64_t> LatestVersion(const NativeRef& ref, bool confirm_known = true);

  // The decoded version `version` of `ref` (cached). The state's branch and
  // identity name `ref`. Errors: NotFound (no such version), Unsupported
  // (storage stamp), CorruptData.
  Result<ManifestVersionPtr> At(const NativeRef& ref, uint64_t version);
  // The version tag `tag` of `__manifest` names (a proposal's detached
  // version), decoded without caching. Its head may record another version
  // than the file's (a proposal's head records the version it would
  // occupy); the state's branch fields are left for the caller to set.
  // Errors: NotFound (no such tag or version), Unsupported (storage stamp),
  // CorruptData.
  Result<ManifestVersionPtr> AtTag(const std::string& tag);
  // Every tag of `__manifest` (empty when there is none). Errors: IoError,
  // CorruptData.
  Result<std::vector<table::TagInfo>> ListTags();

  // Caches a version this process committed.
  void Remember(const NativeRef& ref, uint64_t version, ManifestVersionPtr decoded);

 private:
  std::string RecordKey(const NativeRef& ref) const;

  ObjectStorePtr store_;
  std::string root_;
  std::mutex mutex_;
  struct Cached {
    ManifestVersionPtr decoded;
    uint64_t last_use = 0;
  };
  std::map<std::pair<std::string, uint64_t>, Cached> versions_;  // by (ref name, version)
  // Per ref: the newest version seen and the identity of its file when last
  // confirmed (trust on first use).
  std::map<std::string, std::pair<uint64_t, std::string>> confirmed_newest_;
  std::map<std::string, std::string, std::less<>> resolved_;  // logical -> ref name
  uint64_t clock_ = 0;
};

inline constexpr size_t kManifestCacheVersions = 64;
inline constexpr int kMaxVersionProbes = 4;
// Every this many versions a publication leaves `__manifest`'s version hint;
// a cold reader walks at most kVersionHintProbes successors from it (the
// interval, plus slack for writers racing the reader) before it lists.
inline constexpr uint64_t kVersionHintInterval = 16;
inline constexpr int kVersionHintProbes = static_cast<int>(kVersionHintInterval) + 4;

}  // namespace omnigraph::graph
