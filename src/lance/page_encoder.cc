#include "lance/page_encoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "encodings21.pb.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

namespace pb = ::lance::encodings21;

inline uint64_t Pad8(uint64_t n) {
  return (n + 7) & ~uint64_t{7};
}
void ResetBuffers(EncodedPage* page, size_t count);
inline uint64_t Pad4(uint64_t n) {
  return (n + 3) & ~uint64_t{3};
}

void SetFlat(pb::CompressiveEncoding* enc, uint64_t bits) {
  enc->mutable_flat()->set_bits_per_value(bits);
}

// The CompressiveEncoding of a leaf's values (mini-block and full-zip alike).
void SetValueEncoding(const LeafShape& shape, bool item_validity, pb::CompressiveEncoding* enc) {
  switch (shape.kind) {
    case LeafKind::kFixed: SetFlat(enc, 8 * static_cast<uint64_t>(shape.value_bytes)); break;
    case LeafKind::kBool: SetFlat(enc, 1); break;
    case LeafKind::kVar: SetFlat(enc->mutable_variable()->mutable_offsets(), shape.large_offsets ? 64 : 32); break;
    case LeafKind::kFsl: {
      auto* fsl = enc->mutable_fixed_size_list();
      fsl->set_items_per_value(static_cast<uint64_t>(shape.list_size));
      SetFlat(fsl->mutable_values(), 8 * static_cast<uint64_t>(shape.item_bytes));
      if (item_validity) fsl->set_has_validity(true);
      break;
    }
  }
}

template <typename Layout>
void AddLayers(const std::vector<Layer>& layers, Layout* layout) {
  for (Layer layer : layers) layout->add_layers(static_cast<pb::RepDefLayer>(layer));
}

// True when the level at `i` is visible (owns a value slot).
inline bool Visible(const uint16_t* def, uint64_t i, int max_visible) {
  return def == nullptr || def[i] <= max_visible;
}

// ---------------------------------------------------------------- mini-block

struct ChunkPlan {
  uint64_t first_value, num_values;
  uint64_t first_level, end_level;
  uint64_t bytes;
  bool last;
};

class MiniBlockWriter {
 public:
  explicit MiniBlockWriter(const PageInput& in)
      : in_(in),
        values_(*in.values),
        shape_(in.values->shape()),
        info_(LayerInfo::Of(*in.layers)),
        item_validity_(shape_.kind == LeafKind::kFsl && values_.has_item_validity()) {
    num_buffers_ = item_validity_ ? 2 : 1;
    header_bytes_ = Pad8(2 + (in.rep ? 2 : 0) + (in.def ? 2 : 0) + 2 * num_buffers_);
    // Level index of every visible value, needed only when some level is
    // invisible (null or empty lists).
    if (in.rep != nullptr && in.def != nullptr) {
      bool any_invisible = false;
      for (uint64_t l = in.level_begin; l < in.level_end && !any_invisible; ++l) {
        any_invisible = in.def[l] > info_.max_visible;
      }
      if (any_invisible) {
        value_level_.reserve(in.value_end - in.value_begin);
        for (uint64_t l = in.level_begin; l < in.level_end; ++l) {
          if (in.def[l] <= info_.max_visible) value_level_.push_back(l);
        }
      }
    }
  }

  bool Encode(EncodedPage* out) {
    std::vector<ChunkPlan> plans;
    if (!Plan(&plans)) return false;
    uint64_t total = 0;
    for (const ChunkPlan& c : plans) total += c.bytes;
    ResetBuffers(out, in_.rep != nullptr ? 3 : 2);
    std::vector<uint8_t>& meta = out->buffers[0];
    std::vector<uint8_t>& data = out->buffers[1];
    meta.resize(plans.size() * 2);
    data.assign(total, 0);
    uint64_t at = 0;
    for (size_t c = 0; c < plans.size(); ++c) {
      const ChunkPlan& plan = plans[c];
      int log2 = plan.last ? 0 : __builtin_ctzll(plan.num_values);
      StoreLE<uint16_t>(meta.data() + 2 * c, static_cast<uint16_t>(((plan.bytes / 8 - 1) << 4) | log2));
      WriteChunk(plan, data.data() + at);
      at += plan.bytes;
    }
    if (in_.rep != nullptr) WriteRepetitionIndex(plans, &out->buffers[2]);

    pb::PageLayout layout;
    auto* mb = layout.mutable_mini_block_layout();
    if (in_.rep != nullptr) SetFlat(mb->mutable_rep_compression(), 16);
    if (in_.def != nullptr) SetFlat(mb->mutable_def_compression(), 16);
    SetValueEncoding(shape_, item_validity_, mb->mutable_value_compression());
    AddLayers(*in_.layers, mb);
    mb->set_num_buffers(num_buffers_);
    if (in_.rep != nullptr) mb->set_repetition_index_depth(1);
    mb->set_num_items(in_.value_end - in_.value_begin);
    layout.SerializeToString(&out->layout);
    out->num_rows = in_.num_rows;
    return true;
  }

 private:
  uint64_t LevelOfValue(uint64_t v) const {
    return value_level_.empty() ? in_.level_begin + (v - in_.value_begin) : value_level_[v - in_.value_begin];
  }

  // Unpadded size of each value buffer for values [first, first + n).
  void BufferSizes(uint64_t first, uint64_t n, uint64_t sizes[2]) const {
    switch (shape_.kind) {
      case LeafKind::kFixed: sizes[0] = n * static_cast<uint64_t>(shape_.value_bytes); break;
      case LeafKind::kBool: sizes[0] = (n + 7) / 8; break;
      case LeafKind::kVar: {
        uint64_t bytes = values_.offsets()[first + n] - values_.offsets()[first];
        sizes[0] = shape_.large_offsets ? Pad8(8 * (n + 1) + bytes) : Pad4(4 * (n + 1) + bytes);
        break;
      }
      case LeafKind::kFsl:
        if (item_validity_) {
          sizes[0] = (n * static_cast<uint64_t>(shape_.list_size) + 7) / 8;
          sizes[1] = n * static_cast<uint64_t>(shape_.value_bytes);
        } else {
          sizes[0] = n * static_cast<uint64_t>(shape_.value_bytes);
        }
        break;
    }
  }

  // Chunk of values [first, first + n); false if over the limits.
  bool Size(uint64_t first, uint64_t n, bool last, uint64_t first_level, ChunkPlan* plan) const {
    uint64_t end_level = last ? in_.level_end : LevelOfValue(first + n - 1) + 1;
    uint64_t levels = end_level - first_level;
    uint64_t bytes = header_bytes_;
    if (in_.rep != nullptr) bytes += Pad8(2 * levels);
    if (in_.def != nullptr) bytes += Pad8(2 * levels);
    uint64_t sizes[2] = {0, 0};
    BufferSizes(first, n, sizes);
    for (int b = 0; b < num_buffers_; ++b) bytes += Pad8(sizes[b]);
    *plan = ChunkPlan{first, n, first_level, end_level, bytes, last};
    return bytes <= kMiniBlockMaxChunkBytes && levels <= 0xFFFF;
  }

  bool Plan(std::vector<ChunkPlan>* plans) const {
    uint64_t first = in_.value_begin;
    uint64_t level = in_.level_begin;
    while (first < in_.value_end) {
      uint64_t remaining = in_.value_end - first;
      ChunkPlan plan;
      if (remaining <= kMiniBlockMaxChunkValues && Size(first, remaining, true, level, &plan)) {
        plans->push_back(plan);
        return true;
      }
      if (remaining == 1) return false;
      // Largest power of two that leaves at least one value for later chunks.
      uint64_t n = uint64_t{1} << (63 - __builtin_clzll(std::min(remaining - 1, kMiniBlockMaxChunkValues)));
      while (!Size(first, n, false, level, &plan)) {
        if (n == 1) return false;
        n /= 2;
      }
      plans->push_back(plan);
      first += n;
      level = plan.end_level;
    }
    return true;
  }

  void WriteChunk(const ChunkPlan& plan, uint8_t* dst) const {
    uint64_t levels = plan.end_level - plan.first_level;
    uint64_t sizes[2] = {0, 0};
    BufferSizes(plan.first_value, plan.num_values, sizes);
    uint8_t* p = dst;
    bool any_levels = in_.rep != nullptr || in_.def != nullptr;
    StoreLE<uint16_t>(p, static_cast<uint16_t>(any_levels ? levels : 0));
    p += 2;
    if (in_.rep != nullptr) StoreLE<uint16_t>(p, static_cast<uint16_t>(2 * levels)), p += 2;
    if (in_.def != nullptr) StoreLE<uint16_t>(p, static_cast<uint16_t>(2 * levels)), p += 2;
    for (int b = 0; b < num_buffers_; ++b) StoreLE<uint16_t>(p, static_cast<uint16_t>(sizes[b])), p += 2;
    p = dst + header_bytes_;
    if (in_.rep != nullptr) {
      CopyBytes(p, in_.rep + plan.first_level, 2 * levels);
      p += Pad8(2 * levels);
    }
    if (in_.def != nullptr) {
      CopyBytes(p, in_.def + plan.first_level, 2 * levels);
      p += Pad8(2 * levels);
    }
    const uint64_t first = plan.first_value, n = plan.num_values;
    switch (shape_.kind) {
      case LeafKind::kFixed:
        CopyBytes(p, values_.data().data() + first * static_cast<uint64_t>(shape_.value_bytes), sizes[0]);
        break;
      case LeafKind::kBool: CopyBits(values_.bits().data(), first, p, 0, n); break;
      case LeafKind::kVar: {
        const uint64_t* offsets = values_.offsets().data() + first;
        uint64_t base = offsets[0];
        uint64_t bytes = offsets[n] - base;
        if (shape_.large_offsets) {
          uint64_t start = 8 * (n + 1);
          for (uint64_t j = 0; j <= n; ++j) StoreLE<uint64_t>(p + 8 * j, start + (offsets[j] - base));
          CopyBytes(p + start, values_.data().data() + base, bytes);
        } else {
          uint32_t start = static_cast<uint32_t>(4 * (n + 1));
          for (uint64_t j = 0; j <= n; ++j)
            StoreLE<uint32_t>(p + 4 * j, start + static_cast<uint32_t>(offsets[j] - base));
          CopyBytes(p + start, values_.data().data() + base, bytes);
        }
        break;
      }
      case LeafKind::kFsl: {
        uint64_t items = static_cast<uint64_t>(shape_.list_size);
        if (item_validity_) {
          CopyBits(values_.item_validity().data(), first * items, p, 0, n * items);
          p += Pad8(sizes[0]);
        }
        CopyBytes(p, values_.data().data() + first * static_cast<uint64_t>(shape_.value_bytes),
                  n * static_cast<uint64_t>(shape_.value_bytes));
        break;
      }
    }
  }

  // Two u64 per chunk: rows that end in the chunk, and the levels of a row
  // that continues into the next chunk (§4.7).
  void WriteRepetitionIndex(const std::vector<ChunkPlan>& plans, std::vector<uint8_t>* out) const {
    const uint16_t max_rep = static_cast<uint16_t>(info_.max_rep);
    out->resize(plans.size() * 16);
    for (size_t c = 0; c < plans.size(); ++c) {
      const ChunkPlan& plan = plans[c];
      uint64_t starts = 0;
      uint64_t last_start = plan.first_level;
      bool any_start = false;
      for (uint64_t l = plan.first_level; l < plan.end_level; ++l) {
        if (in_.rep[l] == max_rep) {
          ++starts;
          last_start = l;
          any_start = true;
        }
      }
      bool continues = in_.rep[plan.first_level] != max_rep;
      bool partial = plan.end_level < in_.level_end && in_.rep[plan.end_level] != max_rep;
      uint64_t ended = starts + (continues ? 1 : 0) - (partial ? 1 : 0);
      uint64_t left = partial ? plan.end_level - (any_start ? last_start : plan.first_level) : 0;
      StoreLE<uint64_t>(out->data() + 16 * c, ended);
      StoreLE<uint64_t>(out->data() + 16 * c + 8, left);
    }
  }

  const PageInput& in_;
  const LeafValues& values_;
  const LeafShape& shape_;
  const LayerInfo info_;
  const bool item_validity_;
  int num_buffers_ = 1;
  uint64_t header_bytes_ = 8;
  std::vector<uint64_t> value_level_;
};

// Sets `page` to hold `count` empty buffers, keeping their capacity so a
// writer that reuses EncodedPages does not fault in fresh memory per page.
void ResetBuffers(EncodedPage* page, size_t count) {
  page->buffers.resize(count);
  for (std::vector<uint8_t>& b : page->buffers) b.clear();
}

uint64_t NonNullValues(const PageInput& in, uint64_t level_begin, uint64_t level_end) {
  if (in.def == nullptr) return level_end - level_begin;
  uint64_t n = 0;
  for (uint64_t l = level_begin; l < level_end; ++l) n += in.def[l] == 0 ? 1 : 0;
  return n;
}

}  // namespace

// ---------------------------------------------------------------- all-null

void EncodeAllNull(const PageInput& in, EncodedPage* out) {
  pb::PageLayout layout;
  auto* all_null = layout.mutable_all_null_layout();
  AddLayers(*in.layers, all_null);
  const bool simple = in.layers->size() == 1 && (*in.layers)[0] == Layer::kNullableItem;
  const uint64_t levels = in.level_end - in.level_begin;
  if (!simple && in.version == FileVersion::kV2_2) {
    // 2.2's constant layout (same slot, no inline value: every value null)
    // names the compression of its level buffers, as Lance 8 writes it.
    SetFlat(all_null->mutable_rep_compression(), 16);
    SetFlat(all_null->mutable_def_compression(), 16);
    all_null->set_num_rep_values(in.rep != nullptr ? levels : 0);
    all_null->set_num_def_values(levels);
  }
  layout.SerializeToString(&out->layout);
  out->num_rows = in.num_rows;
  ResetBuffers(out, simple ? 0 : 2);
  if (simple) return;
  if (in.rep != nullptr) {
    out->buffers[0].resize(2 * levels);
    CopyBytes(out->buffers[0].data(), in.rep + in.level_begin, 2 * levels);
  }
  out->buffers[1].resize(2 * levels);
  if (in.def != nullptr) CopyBytes(out->buffers[1].data(), in.def + in.level_begin, 2 * levels);
}

// ---------------------------------------------------------------- full-zip

void EncodeFullZip(const PageInput& in, EncodedPage* out) {
  const LeafValues& values = *in.values;
  const LeafShape& shape = values.shape();
  const LayerInfo info = LayerInfo::Of(*in.layers);
  const int bits_rep = in.rep != nullptr ? static_cast<int>(std::bit_width(static_cast<uint64_t>(info.max_rep))) : 0;
  const int bits_def = in.def != nullptr ? static_cast<int>(std::bit_width(static_cast<uint64_t>(info.max_def))) : 0;
  const int control_bits = bits_rep + bits_def;
  const uint64_t control_bytes = control_bits == 0 ? 0 : control_bits <= 8 ? 1 : control_bits <= 16 ? 2 : 4;
  const bool variable = shape.kind == LeafKind::kVar;
  const uint64_t offset_bytes = shape.large_offsets ? 8 : 4;
  const bool item_validity = shape.kind == LeafKind::kFsl && values.has_item_validity();
  const uint64_t items = static_cast<uint64_t>(shape.list_size);
  const uint64_t validity_bytes = item_validity ? (items + 7) / 8 : 0;
  const uint64_t fixed_bytes = variable ? 0 : validity_bytes + static_cast<uint64_t>(shape.value_bytes);
  const uint16_t max_rep = static_cast<uint16_t>(info.max_rep);

  // Size first, so the zipped buffer is allocated once.
  uint64_t total = 0;
  {
    uint64_t v = in.value_begin;
    for (uint64_t l = in.level_begin; l < in.level_end; ++l) {
      total += control_bytes;
      if (!Visible(in.def, l, info.max_visible)) continue;
      if (!variable) {
        total += fixed_bytes;
      } else if (in.def == nullptr || in.def[l] == 0) {
        total += offset_bytes + values.ValueBytes(v);
      }
      ++v;
    }
  }
  ResetBuffers(out, variable || in.rep != nullptr ? 2 : 1);
  std::vector<uint8_t>& zipped = out->buffers[0];
  zipped.assign(total, 0);
  std::vector<uint64_t> row_starts;
  row_starts.reserve(in.num_rows + 1);
  uint8_t* p = zipped.data();
  uint64_t v = in.value_begin;
  for (uint64_t l = in.level_begin; l < in.level_end; ++l) {
    uint16_t r = in.rep != nullptr ? in.rep[l] : 0;
    uint16_t d = in.def != nullptr ? in.def[l] : 0;
    if (in.rep == nullptr || r == max_rep) row_starts.push_back(static_cast<uint64_t>(p - zipped.data()));
    uint32_t control = (static_cast<uint32_t>(r) << bits_def) | d;
    if (control_bytes > 0) {
      std::memcpy(p, &control, control_bytes);  // little-endian
      p += control_bytes;
    }
    if (!Visible(in.def, l, info.max_visible)) continue;
    if (variable) {
      if (d == 0) {
        uint64_t size = values.ValueBytes(v);
        std::memcpy(p, &size, offset_bytes);
        p += offset_bytes;
        CopyBytes(p, values.data().data() + values.offsets()[v], size);
        p += size;
      }
    } else {
      if (item_validity) {
        CopyBits(values.item_validity().data(), v * items, p, 0, items);
        p += validity_bytes;
      }
      CopyBytes(p, values.data().data() + v * static_cast<uint64_t>(shape.value_bytes),
                static_cast<size_t>(shape.value_bytes));
      p += shape.value_bytes;
    }
    ++v;
  }
  row_starts.push_back(total);
  if (out->buffers.size() > 1) {
    // Row-start index: width is the smallest of 1/2/4/8 bytes that fits.
    uint64_t width = total < (1u << 8) ? 1 : total < (1u << 16) ? 2 : total < (uint64_t{1} << 32) ? 4 : 8;
    std::vector<uint8_t>& index = out->buffers[1];
    index.resize(row_starts.size() * width);
    for (size_t i = 0; i < row_starts.size(); ++i) std::memcpy(index.data() + i * width, &row_starts[i], width);
  }

  pb::PageLayout layout;
  auto* fz = layout.mutable_full_zip_layout();
  fz->set_bits_rep(static_cast<uint32_t>(bits_rep));
  fz->set_bits_def(static_cast<uint32_t>(bits_def));
  if (variable) {
    fz->set_bits_per_offset(static_cast<uint32_t>(8 * offset_bytes));
  } else {
    fz->set_bits_per_value(static_cast<uint32_t>(8 * fixed_bytes));
  }
  fz->set_num_items(static_cast<uint32_t>(in.level_end - in.level_begin));
  fz->set_num_visible_items(static_cast<uint32_t>(in.value_end - in.value_begin));
  SetValueEncoding(shape, item_validity, fz->mutable_value_compression());
  AddLayers(*in.layers, fz);
  layout.SerializeToString(&out->layout);
  out->num_rows = in.num_rows;
}

bool EncodeMiniBlock(const PageInput& in, EncodedPage* out) {
  return MiniBlockWriter(in).Encode(out);
}

namespace {

// Encodes `in` into (*out)[*used...], reusing existing elements.
Status EncodeInto(const PageInput& in, std::vector<EncodedPage>* out, size_t* used, std::string_view column) {
  if (*used == out->size()) out->emplace_back();
  EncodedPage& page = (*out)[*used];
  const LeafShape& shape = in.values->shape();
  const bool can_full_zip = shape.kind != LeafKind::kBool;
  // In 2.2 an all-null page of nested items without lists is a mini-block
  // page of null slots; one with lists may have no slots at all, so it
  // keeps the all-null slot with declared level compressions.
  const bool simple_null = in.layers->size() == 1 && (*in.layers)[0] == Layer::kNullableItem;
  if (in.non_null_values == 0 && (in.version == FileVersion::kV2_1 || simple_null || in.rep != nullptr)) {
    EncodeAllNull(in, &page);
  } else if (can_full_zip && in.values->max_value_bytes() > kMiniBlockMaxValueBytes) {
    EncodeFullZip(in, &page);
  } else if (!EncodeMiniBlock(in, &page)) {
    if (!can_full_zip) {
      // Booleans cannot use full-zip: split the rows in halves so long runs
      // of null or empty lists end up in pages of their own.
      if (in.num_rows <= 1) {
        return InvalidArgument(fmt::format("column '{}': a row has too many null or empty lists to encode", column));
      }
      const LayerInfo info = LayerInfo::Of(*in.layers);
      uint64_t half = in.num_rows / 2;
      uint64_t rows = 0, split_level = in.level_end, split_value = in.value_begin;
      for (uint64_t l = in.level_begin; l < in.level_end; ++l) {
        if (in.rep == nullptr || in.rep[l] == info.max_rep) {
          if (rows == half) {
            split_level = l;
            break;
          }
          ++rows;
        }
        if (Visible(in.def, l, info.max_visible)) ++split_value;
      }
      PageInput first = in, second = in;
      first.level_end = split_level;
      first.value_end = split_value;
      first.num_rows = half;
      first.non_null_values = NonNullValues(in, in.level_begin, split_level);
      second.level_begin = split_level;
      second.value_begin = split_value;
      second.num_rows = in.num_rows - half;
      second.non_null_values = NonNullValues(in, split_level, in.level_end);
      OG_RETURN_IF_ERROR(EncodeInto(first, out, used, column));
      return EncodeInto(second, out, used, column);
    }
    EncodeFullZip(in, &page);
  }
  ++*used;
  return Status::OK();
}

}  // namespace

Status EncodePage(const PageInput& in, std::vector<EncodedPage>* out, std::string_view column) {
  size_t used = 0;
  Status st = EncodeInto(in, out, &used, column);
  out->resize(st.ok() ? used : 0);
  return st;
}

}  // namespace omnigraph::lance
