// Commit history outside the manifest (spec/engine.md §1.5; branches.md BR-5).
//
// Each branch's `__manifest` keeps its head commit and a small buffer of
// recent ancestors (`settled_commit` rows). When a publication would let the
// buffer grow past kHistoryBufferCommits records or kHistoryBufferBytes of
// encoded text, it archives the buffer as an immutable segment file under
// `__history/segments/` instead, and the manifest names the segment in its
// `history` row. Segments name their older segments, so a branch's whole
// history is its buffer plus the segments reachable from the ones its
// manifest names: listing commits, finding one or computing a merge base
// reads a few segment files, never the older `__manifest` versions, and a
// publication rewrites a bounded buffer, not the history.
//
// Segments are shared by every branch whose lineage holds them (a branch
// copies its parent's buffer and segment list; a merge adds the source's),
// and are kept logarithmic in number along a linear history: a new segment
// absorbs its single parent while that parent's level is not higher
// (levels as in a binary counter), up to kMaxSegmentRecords records.
//
// File format (one JSON document per line, text for anyone to read):
//   {"format":"omnigraph.history_segment.v1","id":…,"level":…,"parents":[…],"count":N}
//   N record lines {"graph_commit_id":…, … every CommitRecord field …}
//   {"checksum":"<16 hex digits: XXH3-64 of every byte before this line>"}
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "graph/manifest/graph_state.h"
#include "io/object_store.h"

namespace omnigraph::graph {

// Buffer bounds: the buffer is rewritten by every publication, so it stays
// small (a few KiB); archiving it costs one extra file every
// kHistoryBufferCommits commits.
inline constexpr size_t kHistoryBufferCommits = 32;
inline constexpr size_t kHistoryBufferBytes = 16 * 1024;
// Level merging stops at segments of this many records (~2 MiB of text), so
// no publication rewrites more history than that.
inline constexpr size_t kMaxSegmentRecords = 8192;
// A manifest names at most this many segments; a publication that would
// name more archives a segment whose parents are all of them.
inline constexpr size_t kMaxHistoryTips = 8;

struct HistorySegment {
  std::string id;  // ULID
  uint32_t level = 0;
  std::vector<std::string> parents;    // older segments of the lineage
  std::vector<CommitRecord> records;   // oldest first
};
using HistorySegmentPtr = std::shared_ptr<const HistorySegment>;

std::string EncodeHistorySegment(const HistorySegment& segment);
// Errors: CorruptData naming `where` (bad checksum, malformed line, a count
// that does not match).
Result<HistorySegment> DecodeHistorySegment(std::string_view bytes, std::string_view where);

// Reads and writes segments of one graph root; decoded segments are cached
// (they never change).
class HistoryStore {
 public:
  HistoryStore(ObjectStorePtr store, std::string root) : store_(std::move(store)), root_(std::move(root)) {}

  // Errors: VersionReclaimed (kind history_gap) when the file is gone,
  // CorruptData, IoError.
  Result<HistorySegmentPtr> Read(const std::string& id);
  // Writes `segment` put-if-absent, not yet durable: its key is appended to
  // `*unsynced` for the publication that names it to sync. Errors: IoError.
  Status Write(const HistorySegment& segment, std::vector<std::string>* unsynced);
  // Store key of a segment.
  std::string Key(std::string_view id) const;
  // Remembers a segment this process wrote (no read back).
  void Remember(HistorySegmentPtr segment);

 private:
  ObjectStorePtr store_;
  std::string root_;
  std::mutex mutex_;
  std::map<std::string, HistorySegmentPtr> cache_;
  static constexpr size_t kCachedSegments = 256;
};

// The buffer and segment list of a branch after one publication.
struct SettledHistory {
  std::vector<CommitRecord> settled;
  std::vector<std::string> segments;
  // The segment the publication must write (and sync) first, if any.
  std::shared_ptr<HistorySegment> new_segment;
};

// Moves `previous_head` (and `imported`: records of a merged lineage the
// branch does not hold yet, with the source's segment list `imported_segments`)
// into the history of `base`, archiving the buffer when it outgrows its
// bounds. Errors: those of HistoryStore::Read (level merging reads the parent
// segment).
Result<SettledHistory> SettleHistory(HistoryStore& history, const GraphState& base, const CommitRecord& previous_head,
                                     const std::vector<CommitRecord>& imported,
                                     const std::vector<std::string>& imported_segments);

}  // namespace omnigraph::graph
