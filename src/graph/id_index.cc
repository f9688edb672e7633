#include "graph/id_index.h"

#include <bit>
#include <cstring>
#include <functional>

namespace omnigraph::graph {

uint64_t IdIndex::Hash(std::string_view id) {
  // libstdc++'s std::hash is MurmurHash-style: every byte reaches the low
  // bits the mask keeps.
  return std::hash<std::string_view>{}(id);
}

void IdIndex::Reserve(size_t expected) {
  size_t wanted = std::bit_ceil(std::max<size_t>(16, expected * 2));
  if (wanted <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(wanted, Slot{});
  size_ = 0;
  for (const Slot& s : old) {
    if (s.data != nullptr) Insert(std::string_view(s.data, s.length), s.row);
  }
}

void IdIndex::Grow() { Reserve(slots_.size()); }

int64_t& IdIndex::FindOrInsert(std::string_view id, int64_t row, bool* inserted) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  uint64_t hash = Hash(id);
  size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.data == nullptr) {
      // An empty id still needs a non-null marker pointer.
      s = Slot{hash, id.data() != nullptr ? id.data() : "", static_cast<uint32_t>(id.size()), row};
      ++size_;
      *inserted = true;
      return s.row;
    }
    if (s.hash == hash && s.length == id.size() && std::memcmp(s.data, id.data(), id.size()) == 0) {
      *inserted = false;
      return s.row;
    }
  }
}

int64_t IdIndex::Find(std::string_view id) const {
  if (slots_.empty()) return -1;
  uint64_t hash = Hash(id);
  size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.data == nullptr) return -1;
    if (s.hash == hash && s.length == id.size() && std::memcmp(s.data, id.data(), id.size()) == 0) return s.row;
  }
}

void IdIndex::FindMany(const std::vector<std::string_view>& ids, std::vector<int64_t>* rows) const {
  rows->assign(ids.size(), -1);
  if (slots_.empty()) return;
  constexpr size_t kSlotDistance = 16;  // keys ahead whose slot is prefetched
  constexpr size_t kDataDistance = 8;   // keys ahead whose id bytes are prefetched
  const size_t mask = slots_.size() - 1;
  std::vector<uint64_t> hashes(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) hashes[i] = Hash(ids[i]);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i + kSlotDistance < ids.size()) __builtin_prefetch(&slots_[hashes[i + kSlotDistance] & mask]);
    if (i + kDataDistance < ids.size()) {
      const Slot& ahead = slots_[hashes[i + kDataDistance] & mask];
      if (ahead.data != nullptr) __builtin_prefetch(ahead.data);
    }
    const std::string_view id = ids[i];
    for (size_t k = hashes[i] & mask;; k = (k + 1) & mask) {
      const Slot& slot = slots_[k];
      if (slot.data == nullptr) break;
      if (slot.hash == hashes[i] && slot.length == id.size() && std::memcmp(slot.data, id.data(), id.size()) == 0) {
        (*rows)[i] = slot.row;
        break;
      }
    }
  }
}

}  // namespace omnigraph::graph
