// Objects a write has created that nothing references yet: staged data and
// deletion files, detached manifests, a staged `__manifest` version
// (design/write-path.md: "unpublished staging"). A write that fails before
// its publication could have landed deletes them at once, so that retries
// on a nearly full disk do not pile up garbage until cleanup's collector
// runs. Deletion is best effort and unsynced: an object whose delete fails
// or is lost in a crash stays unreferenced, for the collector, as before.
#pragma once

#include <string>
#include <vector>

#include "io/object_store.h"

namespace omnigraph {

// Deletes each key of `keys` from `store`, ignoring failures (an object may
// already be gone, or the store may refuse; either way nothing references it).
void DeleteUnpublished(ObjectStore* store, const std::vector<std::string>& keys);

// The objects one staging step has written so far. Unless Keep() hands them
// on (to the StagedTransaction that references them), they are deleted when
// this goes out of scope: a staging step that fails leaves nothing behind.
// Only for objects nothing can reference yet.
class UnpublishedObjects {
 public:
  explicit UnpublishedObjects(ObjectStore* store) : store_(store) {}
  ~UnpublishedObjects() { DeleteUnpublished(store_, keys_); }
  UnpublishedObjects(const UnpublishedObjects&) = delete;
  UnpublishedObjects& operator=(const UnpublishedObjects&) = delete;

  // The list writers append store keys to.
  std::vector<std::string>* keys() { return &keys_; }
  // Hands every key on; nothing is deleted afterwards.
  std::vector<std::string> Keep() {
    std::vector<std::string> kept;
    kept.swap(keys_);
    return kept;
  }

 private:
  ObjectStore* store_;
  std::vector<std::string> keys_;
};

}  // namespace omnigraph
