// An open-addressing hash index from entity id to row number, for the id
// columns of decoded tables. Node-based maps (std::unordered_map) cost an
// allocation per entry and two dependent cache misses per probe; resolving
// every edge endpoint of a 500k-edge table against a 100k-node table made
// that the dominant cost of building a traversal topology. Here a probe
// touches one slot (hash, row) and then the id bytes themselves.
//
// Keys are views into caller-owned storage (an Arrow-layout Utf8 column)
// that must outlive the index. Ids are unique per table, so Insert keeps
// the first row of a duplicate.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace omnigraph::graph {

class IdIndex {
 public:
  IdIndex() = default;
  // Sized for `expected` entries without growing.
  explicit IdIndex(size_t expected) { Reserve(expected); }

  void Reserve(size_t expected);
  // Adds `id` -> `row` unless `id` is present. Returns whether it was added.
  bool Insert(std::string_view id, int64_t row) {
    bool inserted = false;
    FindOrInsert(id, row, &inserted);
    return inserted;
  }
  // The row stored for `id`, after adding `id` -> `row` when absent
  // (*inserted says which). The reference is valid until the next insert.
  int64_t& FindOrInsert(std::string_view id, int64_t row, bool* inserted);
  // Row of `id`, or -1.
  int64_t Find(std::string_view id) const;
  // rows[i] = Find(ids[i]) for every i. Probes are software-pipelined: the
  // slot of a key some steps ahead and the id bytes its slot names are
  // prefetched, so bulk lookups (topology builds) overlap their cache misses.
  void FindMany(const std::vector<std::string_view>& ids, std::vector<int64_t>* rows) const;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;  // nullptr marks an empty slot
    uint32_t length = 0;
    int64_t row = -1;
  };
  static uint64_t Hash(std::string_view id);
  void Grow();

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  size_t size_ = 0;
};

}  // namespace omnigraph::graph
