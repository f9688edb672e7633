#include "lance/deletion_file.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <iterator>
#include <memory>

#include <fmt/format.h>
#include <roaring/roaring.h>

#include "lance/arrow_ipc.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

using RoaringPtr = std::unique_ptr<roaring_bitmap_t, void (*)(const roaring_bitmap_t*)>;

bool IsKnownKind(DeletionFileKind kind) {
  return kind == DeletionFileKind::kArrowArray || kind == DeletionFileKind::kBitmap;
}

Status UnknownKind(DeletionFileKind kind) {
  return InvalidArgument(fmt::format("unknown deletion file kind {}", static_cast<int>(kind)));
}

Result<std::string> EncodeBitmap(const std::vector<uint32_t>& offsets) {
  RoaringPtr bitmap(offsets.empty() ? roaring_bitmap_create() : roaring_bitmap_of_ptr(offsets.size(), offsets.data()),
                    roaring_bitmap_free);
  if (!bitmap) return Internal("cannot allocate a roaring bitmap");
  // Runs make contiguous deletions (the common "delete where id in range")
  // tiny; Lance's reader (roaring-rs) accepts run containers.
  roaring_bitmap_run_optimize(bitmap.get());
  std::string out(roaring_bitmap_portable_size_in_bytes(bitmap.get()), '\0');
  size_t written = roaring_bitmap_portable_serialize(bitmap.get(), out.data());
  if (written != out.size()) {
    return Internal(fmt::format("roaring serialization wrote {} bytes, expected {}", written, out.size()));
  }
  return out;
}

// Roaring portable format constants (RoaringFormatSpec).
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieWithRuns = 12347;
constexpr uint32_t kMaxContainers = 65536;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;
// With runs, the offset header is only written for this many containers or more.
constexpr uint32_t kNoOffsetThreshold = 4;

// Walks a portable Roaring serialization and checks everything a reader
// relies on: the cookie, container count, keys strictly increasing, the
// offset header (when present) matching the real positions, array values
// strictly increasing, bitset popcounts and run cardinalities equal to the
// header's, runs non-empty, ordered, non-overlapping and within 16 bits, and
// every byte consumed. CRoaring 0.2's deserialize_safe only bounds-checks
// sizes, and its iterators index run arrays without checking, so nothing
// reaches CRoaring before this passes. Returns the total cardinality, or a
// description of the first problem.
Result<uint64_t> ValidatePortableRoaring(std::string_view bytes) {
  size_t pos = 0;
  auto need = [&](size_t n) { return n <= bytes.size() - pos; };
  auto u16 = [&]() {
    uint16_t v = LoadLE<uint16_t>(bytes.data() + pos);
    pos += 2;
    return v;
  };
  auto u32 = [&]() {
    uint32_t v = LoadLE<uint32_t>(bytes.data() + pos);
    pos += 4;
    return v;
  };
  if (!need(4)) return CorruptData(fmt::format("{} bytes is too short for a Roaring bitmap", bytes.size()));
  const uint32_t cookie = u32();
  uint32_t count = 0;
  std::string_view run_flags;
  bool has_offsets = true;
  if ((cookie & 0xFFFF) == kCookieWithRuns) {
    count = (cookie >> 16) + 1;
    size_t flag_bytes = (count + 7) / 8;
    if (!need(flag_bytes)) return CorruptData("Roaring bitmap truncated in its run-container flags");
    run_flags = bytes.substr(pos, flag_bytes);
    pos += flag_bytes;
    has_offsets = count >= kNoOffsetThreshold;
  } else if (cookie == kCookieNoRuns) {
    if (!need(4)) return CorruptData("Roaring bitmap truncated in its container count");
    count = u32();
    if (count > kMaxContainers) {
      return CorruptData(fmt::format("Roaring bitmap claims {} containers (at most {})", count, kMaxContainers));
    }
  } else {
    return CorruptData(fmt::format("Roaring bitmap has unknown cookie {:#x}", cookie));
  }
  if (!need(size_t{count} * 4)) return CorruptData("Roaring bitmap truncated in its container headers");
  std::vector<uint16_t> keys(count);
  std::vector<uint32_t> cards(count);
  for (uint32_t i = 0; i < count; ++i) {
    keys[i] = u16();
    cards[i] = uint32_t{u16()} + 1;
    if (i > 0 && keys[i] <= keys[i - 1]) {
      return CorruptData(fmt::format("Roaring container keys are not increasing ({} after {})", keys[i], keys[i - 1]));
    }
  }
  std::vector<uint32_t> offsets;
  if (has_offsets) {
    if (!need(size_t{count} * 4)) return CorruptData("Roaring bitmap truncated in its offset header");
    offsets.resize(count);
    for (uint32_t i = 0; i < count; ++i) offsets[i] = u32();
  }
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (has_offsets && offsets[i] != pos) {
      return CorruptData(fmt::format("Roaring container {} is at byte {} but the offset header says {}", i, pos,
                                     offsets[i]));
    }
    const bool is_run = !run_flags.empty() && (static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1;
    if (is_run) {
      if (!need(2)) return CorruptData(fmt::format("Roaring run container {} is truncated", i));
      const uint32_t runs = u16();
      if (runs == 0) return CorruptData(fmt::format("Roaring run container {} has no runs", i));
      if (!need(size_t{runs} * 4)) return CorruptData(fmt::format("Roaring run container {} is truncated", i));
      uint32_t card = 0;
      int64_t previous_end = -1;
      for (uint32_t r = 0; r < runs; ++r) {
        const uint32_t start = u16();
        const uint32_t end = start + u16();  // inclusive
        if (end > 0xFFFF || int64_t{start} <= previous_end) {
          return CorruptData(fmt::format("Roaring run container {} has a run [{}, {}] that overlaps, is out of "
                                         "order or leaves the 16-bit range", i, start, end));
        }
        previous_end = end;
        card += end - start + 1;
      }
      if (card != cards[i]) {
        return CorruptData(fmt::format("Roaring run container {} holds {} values, its header says {}", i, card,
                                       cards[i]));
      }
    } else if (cards[i] > kMaxArrayCardinality) {
      if (!need(kBitsetBytes)) return CorruptData(fmt::format("Roaring bitset container {} is truncated", i));
      uint32_t card = 0;
      for (size_t w = 0; w < kBitsetBytes / 8; ++w) card += std::popcount(LoadLE<uint64_t>(bytes.data() + pos + w * 8));
      pos += kBitsetBytes;
      if (card != cards[i]) {
        return CorruptData(fmt::format("Roaring bitset container {} holds {} values, its header says {}", i, card,
                                       cards[i]));
      }
    } else {
      if (!need(size_t{cards[i]} * 2)) return CorruptData(fmt::format("Roaring array container {} is truncated", i));
      int32_t previous = -1;
      for (uint32_t k = 0; k < cards[i]; ++k) {
        const uint16_t v = u16();
        if (int32_t{v} <= previous) {
          return CorruptData(fmt::format("Roaring array container {} values are not increasing ({} after {})", i, v,
                                         previous));
        }
        previous = v;
      }
    }
    total += cards[i];
  }
  if (pos != bytes.size()) {
    return CorruptData(fmt::format("Roaring bitmap ends after {} of {} bytes", pos, bytes.size()));
  }
  return total;
}

Result<DeletionVector> DecodeBitmap(std::string_view bytes, std::string_view file_name) {
  Result<uint64_t> cardinality = ValidatePortableRoaring(bytes);
  if (!cardinality.ok()) {
    return CorruptData(fmt::format("deletion file '{}': {}", file_name, cardinality.status().message()));
  }
  RoaringPtr bitmap(roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size()), roaring_bitmap_free);
  if (!bitmap) return CorruptData(fmt::format("deletion file '{}': malformed Roaring bitmap", file_name));
  // Belt and braces: CRoaring must agree with the validation walk.
  if (roaring_bitmap_get_cardinality(bitmap.get()) != *cardinality) {
    return Internal(fmt::format("deletion file '{}': CRoaring disagrees with the validated bitmap", file_name));
  }
  std::vector<uint32_t> offsets(static_cast<size_t>(*cardinality));
  if (!offsets.empty()) roaring_bitmap_to_uint32_array(bitmap.get(), offsets.data());
  return DeletionVector::FromSorted(std::move(offsets));
}

Result<DeletionVector> DecodeArrow(std::string_view bytes, std::string_view file_name) {
  Result<std::vector<uint32_t>> values =
      arrow_ipc::ReadSingleUInt32Column(bytes, kDeletionRowIdColumn, file_name);
  if (!values.ok()) return values.status();
  std::vector<uint32_t> offsets = std::move(values).value();
  std::sort(offsets.begin(), offsets.end());
  auto dup = std::adjacent_find(offsets.begin(), offsets.end());
  if (dup != offsets.end()) {
    return CorruptData(fmt::format("deletion file '{}': row offset {} appears more than once", file_name, *dup));
  }
  return DeletionVector::FromSorted(std::move(offsets));
}

}  // namespace

DeletionVector DeletionVector::FromSorted(std::vector<uint32_t> offsets) {
  assert(std::adjacent_find(offsets.begin(), offsets.end(), std::greater_equal<uint32_t>()) == offsets.end());
  DeletionVector v;
  v.offsets_ = std::move(offsets);
  return v;
}

DeletionVector DeletionVector::FromUnsorted(std::vector<uint32_t> offsets) {
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return FromSorted(std::move(offsets));
}

bool DeletionVector::Contains(uint32_t offset) const {
  return std::binary_search(offsets_.begin(), offsets_.end(), offset);
}

DeletionVector DeletionVector::Union(const DeletionVector& other) const {
  std::vector<uint32_t> merged;
  merged.reserve(offsets_.size() + other.offsets_.size());
  std::set_union(offsets_.begin(), offsets_.end(), other.offsets_.begin(), other.offsets_.end(),
                 std::back_inserter(merged));
  return FromSorted(std::move(merged));
}

DeletionFileKind ChooseDeletionFileKind(const DeletionVector& vector, std::optional<DeletionFileKind> previous) {
  if (previous == DeletionFileKind::kBitmap) return DeletionFileKind::kBitmap;
  // A fresh vector is built from one exact-size batch: Lance's threshold test
  // there is ">=", while growing an existing set it is ">".
  const bool bitmap = previous.has_value() ? vector.size() > kMaxArrowDeletionRows
                                           : vector.size() >= kMaxArrowDeletionRows;
  return bitmap ? DeletionFileKind::kBitmap : DeletionFileKind::kArrowArray;
}

std::string DeletionFileName(uint64_t fragment_id, uint64_t read_version, uint64_t id, DeletionFileKind kind) {
  return fmt::format("{}-{}-{}.{}", fragment_id, read_version, id,
                     kind == DeletionFileKind::kBitmap ? "bin" : "arrow");
}

Result<std::string> EncodeDeletionFile(const DeletionVector& vector, DeletionFileKind kind) {
  if (!IsKnownKind(kind)) return UnknownKind(kind);
  if (kind == DeletionFileKind::kBitmap) return EncodeBitmap(vector.offsets());
  return arrow_ipc::WriteSingleUInt32Column(kDeletionRowIdColumn, vector.offsets());
}

Result<DeletionVector> DecodeDeletionFile(std::string_view bytes, DeletionFileKind kind, std::string_view file_name) {
  if (!IsKnownKind(kind)) return UnknownKind(kind);
  if (kind == DeletionFileKind::kBitmap) return DecodeBitmap(bytes, file_name);
  return DecodeArrow(bytes, file_name);
}

}  // namespace omnigraph::lance
