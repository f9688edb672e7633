#include "lance/page_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "lance/value_decoders.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

namespace pb = ::lance::encodings21;

// Values one mini-block chunk may claim (Lance writes at most 4096; its
// reader accepted 8192 booleans; levels are u16-counted anyway).
constexpr uint64_t kMaxChunkValues = 1 << 16;
// Decoded pages may not exceed this many times their encoded size (plus a
// floor), so corrupt counts in files without checksums cannot trigger huge
// allocations. Lance's integer encodings expand at most ~512x (bit width 0,
// 1024 int64 values per 16 bytes); only dictionaries of long strings go
// further, which the floor absorbs for pages of realistic size.
constexpr uint64_t kMaxExpansion = 1024;
constexpr uint64_t kExpansionFloor = 256ull << 20;

template <typename RepeatedLayers>
Status ParseLayers(const RepeatedLayers& proto, std::vector<Layer>* layers, std::string_view where) {
  layers->clear();
  for (int value : proto) {
    if (value < 1 || value > 6) return CorruptData(fmt::format("{}: unknown rep/def layer {}", where, value));
    layers->push_back(static_cast<Layer>(value));
  }
  return Status::OK();
}

// Fills row_level / row_value and checks the levels against the page's row
// count and visible values.
Status IndexRows(const LayerInfo& info, DecodedPage* page, std::string_view where) {
  if (info.max_rep == 0) {
    if (page->num_levels != page->num_rows) {
      return CorruptData(fmt::format("{}: page of {} rows holds {} levels", where, page->num_rows, page->num_levels));
    }
    if (page->values.count() != page->num_levels) {
      return CorruptData(
          fmt::format("{}: page of {} rows holds {} values", where, page->num_rows, page->values.count()));
    }
    return Status::OK();
  }
  if (page->rep.size() != page->num_levels) {
    return CorruptData(
        fmt::format("{}: {} repetition levels for {} levels", where, page->rep.size(), page->num_levels));
  }
  const uint16_t max_rep = static_cast<uint16_t>(info.max_rep);
  if (page->num_levels > 0 && page->rep[0] != max_rep) {
    return CorruptData(fmt::format("{}: page does not start at a row", where));
  }
  uint64_t rows = 0;
  for (uint16_t r : page->rep) rows += r == max_rep ? 1 : 0;
  if (rows != page->num_rows) {
    return CorruptData(fmt::format("{}: levels hold {} rows, the page declares {}", where, rows, page->num_rows));
  }
  page->row_level.resize(rows + 1);
  page->row_value.resize(rows + 1);
  const bool has_def = !page->def.empty();
  uint64_t row = 0, values = 0;
  for (uint64_t l = 0; l < page->num_levels; ++l) {
    if (page->rep[l] == max_rep) {
      page->row_level[row] = l;
      page->row_value[row] = values;
      ++row;
    }
    if (!has_def || page->def[l] <= info.max_visible) ++values;
  }
  page->row_level[rows] = page->num_levels;
  page->row_value[rows] = values;
  if (values != page->values.count()) {
    return CorruptData(
        fmt::format("{}: levels have {} visible values, the page holds {}", where, values, page->values.count()));
  }
  return Status::OK();
}

// Decodes `n` rep or def levels of one buffer into `out`: raw u16 without a
// compression (constant pages), else in `enc`; rle levels (written by Lance
// in 2.2 files, in mini-block chunks and constant pages alike) are one
// block: u64 byte count of the run values, the values, then u8 run lengths.
Status DecodeBlockLevels(const pb::CompressiveEncoding* enc, ByteSpan buffer, uint64_t n, uint16_t* out,
                         std::string_view where) {
  if (enc == nullptr) {
    if (buffer.size != 2 * n) {
      return CorruptData(fmt::format("{}: {} bytes of levels for {} levels", where, buffer.size, n));
    }
    CopyBytes(out, buffer.data, buffer.size);
    return Status::OK();
  }
  if (!enc->has_rle()) return DecodeLevels(*enc, buffer, n, out, where);
  OG_ASSIGN_OR_RETURN(int bits, IntegerBits(*enc, where));
  if (bits != 8 && bits != 16) return Unsupported(fmt::format("{}: {}-bit rep/def levels", where, bits));
  if (buffer.size < 8) return CorruptData(fmt::format("{}: rle level block of {} bytes", where, buffer.size));
  const uint64_t value_bytes = LoadLE<uint64_t>(buffer.data);
  if (value_bytes > buffer.size - 8) {
    return CorruptData(fmt::format("{}: rle level block claims {} value bytes", where, value_bytes));
  }
  const ByteSpan parts[2] = {{buffer.data + 8, static_cast<size_t>(value_bytes)},
                             {buffer.data + 8 + value_bytes, static_cast<size_t>(buffer.size - 8 - value_bytes)}};
  std::vector<uint8_t> raw(n * static_cast<uint64_t>(bits) / 8);
  OG_RETURN_IF_ERROR(DecodeIntegers(*enc, parts, 2, n, raw.data(), where));
  for (uint64_t i = 0; i < n; ++i) out[i] = bits == 8 ? raw[i] : LoadLE<uint16_t>(raw.data() + 2 * i);
  return Status::OK();
}

// ---------------------------------------------------------------- mini-block

Status DecodeMiniBlock(const pb::MiniBlockLayout& mb, const LeafPath& path, const std::vector<uint64_t>& sizes,
                       const PageBufferReader& read, DecodedPage* page, std::string_view where) {
  OG_RETURN_IF_ERROR(ParseLayers(mb.layers(), &page->layers, where));
  // Format 2.2 "large chunks": u32 chunk metadata words and u32 value
  // buffer sizes in the chunk header (level counts and sizes stay u16).
  const bool large = mb.has_large_chunk();
  const uint64_t word_bytes = large ? 4 : 2;
  OG_RETURN_IF_ERROR(CheckLayers(path, page->layers, where));
  const LayerInfo info = LayerInfo::Of(page->layers);
  const bool has_rep = mb.has_rep_compression();
  const bool has_def = mb.has_def_compression();
  if (has_rep != (info.max_rep > 0)) {
    return CorruptData(fmt::format("{}: repetition levels {} but the page has {} list layers", where,
                                   has_rep ? "present" : "absent", info.max_rep));
  }
  const uint64_t num_buffers = mb.num_buffers();
  if (num_buffers == 0 || num_buffers > 4) {
    return CorruptData(fmt::format("{}: mini-block page with {} value buffers", where, num_buffers));
  }
  size_t expected = 2 + (mb.has_dictionary() ? 1 : 0) + (mb.repetition_index_depth() > 0 ? 1 : 0);
  if (sizes.size() != expected) {
    return CorruptData(fmt::format("{}: mini-block page has {} buffers, expected {}", where, sizes.size(), expected));
  }
  uint64_t encoded_bytes = 0;
  for (uint64_t s : sizes) encoded_bytes += s;
  const uint64_t max_decoded = std::max(kExpansionFloor, kMaxExpansion * encoded_bytes);

  OG_ASSIGN_OR_RETURN(BufferPtr meta, read(0));
  OG_ASSIGN_OR_RETURN(BufferPtr data, read(1));
  if (meta->size() % word_bytes != 0) {
    return CorruptData(fmt::format("{}: chunk metadata of {} bytes is not a multiple of {}", where, meta->size(),
                                   word_bytes));
  }
  const uint64_t num_chunks = meta->size() / word_bytes;
  const uint64_t num_items = mb.num_items();
  if (num_items > num_chunks * kMaxChunkValues) {
    return CorruptData(fmt::format("{}: {} values in {} chunks", where, num_items, num_chunks));
  }

  LeafValues dictionary(path.shape);
  const LeafValues* dict = nullptr;
  if (mb.has_dictionary()) {
    OG_ASSIGN_OR_RETURN(BufferPtr items, read(2));
    uint64_t count = mb.num_dictionary_items();
    if (count > items->size() * 8 + 1) {
      return CorruptData(fmt::format("{}: {} dictionary items in {} bytes", where, count, items->size()));
    }
    OG_RETURN_IF_ERROR(
        DecodeDictionaryItems(mb.dictionary(), ByteSpan{items->data(), items->size()}, count, &dictionary, where));
    dict = &dictionary;
  }

  const uint8_t* bytes = data->data();
  const uint64_t size = data->size();
  uint64_t pos = 0, seen = 0;
  ByteSpan value_buffers[4];
  for (uint64_t c = 0; c < num_chunks; ++c) {
    uint32_t word = large ? LoadLE<uint32_t>(meta->data() + 4 * c) : LoadLE<uint16_t>(meta->data() + 2 * c);
    uint64_t chunk_bytes = (static_cast<uint64_t>(word >> 4) + 1) * 8;
    bool last = c + 1 == num_chunks;
    uint64_t n = last ? num_items - std::min(seen, num_items) : uint64_t{1} << (word & 0xF);
    if (seen + n > num_items || (last && seen > num_items)) {
      return CorruptData(fmt::format("{}: chunks hold more than the page's {} values", where, num_items));
    }
    if (n > kMaxChunkValues) return CorruptData(fmt::format("{}: chunk {} claims {} values", where, c, n));
    if (chunk_bytes > size - pos) {
      return CorruptData(
          fmt::format("{}: chunk {} of {} bytes runs past the {}-byte chunk buffer", where, c, chunk_bytes, size));
    }
    const uint8_t* chunk = bytes + pos;
    uint64_t header = 2 + (has_rep ? 2 : 0) + (has_def ? 2 : 0) + word_bytes * num_buffers;
    uint64_t at = (header + 7) & ~uint64_t{7};
    if (at > chunk_bytes) return CorruptData(fmt::format("{}: chunk {} is shorter than its header", where, c));
    uint64_t num_levels = LoadLE<uint16_t>(chunk);
    uint64_t h = 2;
    uint64_t rep_bytes = has_rep ? LoadLE<uint16_t>(chunk + h) : 0;
    h += has_rep ? 2 : 0;
    uint64_t def_bytes = has_def ? LoadLE<uint16_t>(chunk + h) : 0;
    h += has_def ? 2 : 0;
    auto take = [&](uint64_t length, ByteSpan* span) -> Status {
      if (length > chunk_bytes - at) {
        return CorruptData(fmt::format("{}: chunk {} buffer of {} bytes runs past the chunk", where, c, length));
      }
      *span = ByteSpan{chunk + at, static_cast<size_t>(length)};
      at = std::min(chunk_bytes, (at + length + 7) & ~uint64_t{7});
      return Status::OK();
    };
    ByteSpan rep_span, def_span;
    OG_RETURN_IF_ERROR(take(rep_bytes, &rep_span));
    OG_RETURN_IF_ERROR(take(def_bytes, &def_span));
    for (uint64_t b = 0; b < num_buffers; ++b) {
      const uint8_t* size_at = chunk + h + word_bytes * b;
      OG_RETURN_IF_ERROR(take(large ? LoadLE<uint32_t>(size_at) : LoadLE<uint16_t>(size_at), &value_buffers[b]));
    }
    if (has_rep || has_def) {
      if (!has_rep && num_levels != n) {
        return CorruptData(fmt::format("{}: chunk {} has {} levels for {} values", where, c, num_levels, n));
      }
      if (num_levels < n)
        return CorruptData(fmt::format("{}: chunk {} has {} levels for {} values", where, c, num_levels, n));
      if (has_rep) {
        size_t at_level = page->rep.size();
        page->rep.resize(at_level + num_levels);
        OG_RETURN_IF_ERROR(
            DecodeBlockLevels(&mb.rep_compression(), rep_span, num_levels, page->rep.data() + at_level, where));
      }
      if (has_def) {
        // Materialize zeros for earlier chunks lazily: def is all-or-nothing.
        page->def.resize(page->num_levels, 0);
        page->def.resize(page->num_levels + num_levels);
        OG_RETURN_IF_ERROR(DecodeBlockLevels(&mb.def_compression(), def_span, num_levels,
                                             page->def.data() + page->num_levels, where));
      }
      page->num_levels += num_levels;
    } else {
      page->num_levels += n;
    }
    OG_RETURN_IF_ERROR(DecodeChunkValues(mb.value_compression(), value_buffers, static_cast<size_t>(num_buffers), n,
                                         dict, &page->values, where));
    if (page->values.data_bytes() + 4 * page->num_levels > max_decoded) {
      return CorruptData(fmt::format("{}: page decodes to more than {} bytes", where, max_decoded));
    }
    pos += chunk_bytes;
    seen += n;
  }
  if (pos != size) {
    return CorruptData(fmt::format("{}: chunks cover {} of the {}-byte chunk buffer", where, pos, size));
  }
  if (seen != num_items) return CorruptData(fmt::format("{}: chunks hold {} of {} values", where, seen, num_items));
  // A def buffer of only zeros carries no information; drop it when the
  // layers have no definition levels at all.
  if (info.max_def == 0) page->def.clear();
  return IndexRows(info, page, where);
}

// ---------------------------------------------------------------- full-zip

Status DecodeFullZip(const pb::FullZipLayout& fz, const LeafPath& path, const std::vector<uint64_t>& sizes,
                     const PageBufferReader& read, DecodedPage* page, std::string_view where) {
  OG_RETURN_IF_ERROR(ParseLayers(fz.layers(), &page->layers, where));
  OG_RETURN_IF_ERROR(CheckLayers(path, page->layers, where));
  const LayerInfo info = LayerInfo::Of(page->layers);
  const LeafShape& shape = path.shape;
  const uint32_t bits_rep = fz.bits_rep(), bits_def = fz.bits_def();
  if (bits_rep > 16 || bits_def > 16 || bits_rep < static_cast<uint32_t>(std::bit_width(static_cast<uint64_t>(info.max_rep))) ||
      bits_def < static_cast<uint32_t>(std::bit_width(static_cast<uint64_t>(info.max_def)))) {
    return CorruptData(fmt::format("{}: full-zip control word of {}+{} bits for max rep {} and max def {}", where,
                                   bits_rep, bits_def, info.max_rep, info.max_def));
  }
  const uint32_t control_bits = bits_rep + bits_def;
  const uint64_t control_bytes = control_bits == 0 ? 0 : control_bits <= 8 ? 1 : control_bits <= 16 ? 2 : 4;
  if (sizes.empty() || sizes.size() > 2) {
    return CorruptData(fmt::format("{}: full-zip page has {} buffers", where, sizes.size()));
  }

  const pb::CompressiveEncoding& enc = fz.value_compression();
  const bool variable = fz.details_case() == pb::FullZipLayout::kBitsPerOffset;
  const pb::BufferCompression* general = nullptr;
  uint64_t offset_bytes = 0, fixed_bytes = 0, validity_bytes = 0;
  bool item_validity = false;
  if (variable) {
    if (shape.kind != LeafKind::kVar) {
      return CorruptData(fmt::format("{}: variable-width full-zip page in a fixed-width column", where));
    }
    uint32_t bits = fz.bits_per_offset();
    if (bits != 32 && bits != 64) return CorruptData(fmt::format("{}: full-zip {}-bit lengths", where, bits));
    offset_bytes = bits / 8;
    const pb::CompressiveEncoding* inner = &enc;
    if (enc.has_general()) {
      general = &enc.general().compression();
      inner = &enc.general().values();
    }
    if (!inner->has_variable()) {
      return Unsupported(fmt::format("{}: full-zip strings encoded as {}", where, EncodingName(*inner)));
    }
  } else if (fz.details_case() == pb::FullZipLayout::kBitsPerValue) {
    uint64_t bits = fz.bits_per_value();
    if (shape.kind == LeafKind::kFixed) {
      if (!enc.has_flat() || enc.flat().has_data() || enc.flat().bits_per_value() != bits ||
          bits != 8 * static_cast<uint64_t>(shape.value_bytes)) {
        return Unsupported(fmt::format("{}: full-zip values encoded as {} ({} bits) in a column of {}-byte values",
                                       where, EncodingName(enc), bits, shape.value_bytes));
      }
    } else if (shape.kind == LeafKind::kFsl) {
      if (!enc.has_fixed_size_list() || !enc.fixed_size_list().values().has_flat() ||
          enc.fixed_size_list().values().flat().has_data() ||
          enc.fixed_size_list().items_per_value() != static_cast<uint64_t>(shape.list_size) ||
          enc.fixed_size_list().values().flat().bits_per_value() != 8 * static_cast<uint64_t>(shape.item_bytes)) {
        return Unsupported(fmt::format("{}: full-zip fixed-size lists encoded as {}", where, EncodingName(enc)));
      }
      item_validity = enc.fixed_size_list().has_validity();
      validity_bytes = item_validity ? (static_cast<uint64_t>(shape.list_size) + 7) / 8 : 0;
      if (bits != 8 * (validity_bytes + static_cast<uint64_t>(shape.value_bytes))) {
        return CorruptData(fmt::format("{}: full-zip fixed-size list of {} bits per value", where, bits));
      }
    } else {
      return Unsupported(fmt::format("{}: full-zip page for a boolean column", where));
    }
    fixed_bytes = bits / 8;
  } else {
    return CorruptData(fmt::format("{}: full-zip layout without a value width", where));
  }

  OG_ASSIGN_OR_RETURN(BufferPtr zipped, read(0));
  const uint8_t* p = zipped->data();
  const uint64_t size = zipped->size();
  const uint64_t num_levels = fz.num_items();
  // Every level takes at least one byte (control word, length or value).
  if (num_levels > size) {
    return CorruptData(fmt::format("{}: {} levels cannot fit {} bytes", where, num_levels, size));
  }
  if (bits_rep > 0) page->rep.resize(num_levels);
  if (bits_def > 0) page->def.resize(num_levels);
  const uint32_t def_mask = (1u << bits_def) - 1;
  std::vector<uint8_t> scratch;
  uint64_t pos = 0;
  for (uint64_t l = 0; l < num_levels; ++l) {
    uint32_t control = 0;
    if (control_bytes > 0) {
      if (control_bytes > size - pos) return CorruptData(fmt::format("{}: full-zip data ends at level {}", where, l));
      std::memcpy(&control, p + pos, control_bytes);
      pos += control_bytes;
    }
    uint32_t r = control >> bits_def;
    uint32_t d = control & def_mask;
    if (r > static_cast<uint32_t>(info.max_rep) || d > static_cast<uint32_t>(info.max_def)) {
      return CorruptData(fmt::format("{}: level {} has rep {} def {}", where, l, r, d));
    }
    if (bits_rep > 0) page->rep[l] = static_cast<uint16_t>(r);
    if (bits_def > 0) page->def[l] = static_cast<uint16_t>(d);
    if (d > static_cast<uint32_t>(info.max_visible)) continue;  // invisible: control word only
    if (variable) {
      if (d != 0) {
        page->values.AppendNulls(1);
        continue;
      }
      if (offset_bytes > size - pos) return CorruptData(fmt::format("{}: full-zip data ends at level {}", where, l));
      uint64_t length = 0;
      std::memcpy(&length, p + pos, offset_bytes);
      pos += offset_bytes;
      if (length > size - pos) {
        return CorruptData(fmt::format("{}: value of {} bytes at level {} runs past the page", where, length, l));
      }
      if (general != nullptr) {
        OG_RETURN_IF_ERROR(
            DecompressGeneral(*general, ByteSpan{p + pos, static_cast<size_t>(length)}, &scratch, where));
        page->values.AppendVar(scratch.data(), scratch.size());
      } else {
        page->values.AppendVar(p + pos, length);
      }
      pos += length;
    } else {
      if (fixed_bytes > size - pos) return CorruptData(fmt::format("{}: full-zip data ends at level {}", where, l));
      if (item_validity) {
        page->values.AppendFixedBytes(p + pos + validity_bytes, 1, p + pos, 0);
      } else {
        page->values.AppendFixedBytes(p + pos, 1);
      }
      pos += fixed_bytes;
    }
  }
  if (pos != size) return CorruptData(fmt::format("{}: full-zip levels cover {} of {} bytes", where, pos, size));
  if (page->values.count() != fz.num_visible_items()) {
    return CorruptData(fmt::format("{}: full-zip page has {} visible values, declares {}", where, page->values.count(),
                                   fz.num_visible_items()));
  }
  page->num_levels = num_levels;
  if (info.max_def == 0) page->def.clear();
  if (info.max_rep == 0) page->rep.clear();
  return IndexRows(info, page, where);
}

// ---------------------------------------------------------------- constant

// Reads a constant page's value held in a buffer: a one-value array block
// [u32 buffer count][u32 size of each][buffers] whose buffers are the
// value's offsets (two, 32- or 64-bit) and bytes. Variable width only.
Status ConstantFromBlock(const BufferPtr& block, const LeafShape& shape, std::string* value, std::string_view where) {
  if (shape.kind != LeafKind::kVar) {
    return Unsupported(fmt::format("{}: constant page with a value buffer for fixed-width values", where));
  }
  const uint8_t* p = block->data();
  const uint64_t size = block->size();
  if (size < 12 || LoadLE<uint32_t>(p) != 2) {
    return CorruptData(fmt::format("{}: constant value block is not an offsets and bytes pair", where));
  }
  const uint64_t offsets_bytes = LoadLE<uint32_t>(p + 4), bytes = LoadLE<uint32_t>(p + 8);
  const uint64_t width = shape.large_offsets ? 8 : 4;
  if (offsets_bytes != 2 * width || 12 + offsets_bytes + bytes != size) {
    return CorruptData(fmt::format("{}: constant value block of {} bytes holds {} offset and {} value bytes", where,
                                   size, offsets_bytes, bytes));
  }
  const uint64_t begin = width == 8 ? LoadLE<uint64_t>(p + 12) : LoadLE<uint32_t>(p + 12);
  const uint64_t end = width == 8 ? LoadLE<uint64_t>(p + 12 + width) : LoadLE<uint32_t>(p + 12 + width);
  if (begin > end || end > bytes) return CorruptData(fmt::format("{}: constant value offsets [{}, {})", where, begin, end));
  value->assign(reinterpret_cast<const char*>(p + 12 + offsets_bytes + begin), end - begin);
  return Status::OK();
}

// PageLayout slot 2: 2.1's all-null layout and 2.2's constant layout. Every
// visible non-null level holds one value: `inline_value` (fixed width,
// booleans as one byte), the value block of the buffer after the levels
// (variable width), or none (every value null). Levels come from the first
// two buffers (rep, def: raw u16, or in the declared compressions), are
// implicit for a page without rep/def layers, or, for a single
// NULLABLE_ITEM layer without buffers, are all null.
Status DecodeConstant(const pb::AllNullLayout& cl, const LeafPath& path, uint64_t num_rows,
                      const std::vector<uint64_t>& sizes, const PageBufferReader& read, DecodedPage* page,
                      std::string_view where) {
  OG_RETURN_IF_ERROR(ParseLayers(cl.layers(), &page->layers, where));
  OG_RETURN_IF_ERROR(CheckLayers(path, page->layers, where));
  const LayerInfo info = LayerInfo::Of(page->layers);
  const LeafShape& shape = path.shape;
  const bool has_levels = info.max_rep > 0 || info.max_def > 0;
  const bool has_value = !cl.inline_value().empty() || sizes.size() > (has_levels ? 2u : 0u);
  if (sizes.empty() && has_levels) {
    if (page->layers.size() != 1 || page->layers[0] != Layer::kNullableItem || has_value) {
      return Unsupported(fmt::format("{}: constant page of a nested field without level buffers", where));
    }
    page->all_null_rows = true;
    return Status::OK();
  }
  size_t value_buffer = 0;
  if (has_levels) {
    if (sizes.size() < 2 || sizes.size() > 3) {
      return CorruptData(fmt::format("{}: constant page has {} buffers", where, sizes.size()));
    }
    OG_ASSIGN_OR_RETURN(BufferPtr rep, read(0));
    OG_ASSIGN_OR_RETURN(BufferPtr def, read(1));
    uint64_t levels = cl.has_def_compression() ? cl.num_def_values() : def->size() / 2;
    if (info.max_rep > 0) {
      uint64_t rep_levels = cl.has_rep_compression() ? cl.num_rep_values() : rep->size() / 2;
      if (info.max_def == 0) levels = rep_levels;
      if (rep_levels != levels) {
        return CorruptData(fmt::format("{}: constant page has {} rep and {} def levels", where, rep_levels, levels));
      }
      if (levels > kExpansionFloor) return CorruptData(fmt::format("{}: constant page of {} levels", where, levels));
      page->rep.resize(levels);
      OG_RETURN_IF_ERROR(DecodeBlockLevels(cl.has_rep_compression() ? &cl.rep_compression() : nullptr,
                                           ByteSpan{rep->data(), rep->size()}, levels, page->rep.data(), where));
    } else if (rep->size() != 0) {
      return CorruptData(fmt::format("{}: constant page without lists has {} rep bytes", where, rep->size()));
    }
    if (info.max_def > 0) {
      if (levels > kExpansionFloor) return CorruptData(fmt::format("{}: constant page of {} levels", where, levels));
      page->def.resize(levels);
      OG_RETURN_IF_ERROR(DecodeBlockLevels(cl.has_def_compression() ? &cl.def_compression() : nullptr,
                                           ByteSpan{def->data(), def->size()}, levels, page->def.data(), where));
    }
    page->num_levels = levels;
    value_buffer = 2;
  } else {
    if (sizes.size() > 1) return CorruptData(fmt::format("{}: constant page has {} buffers", where, sizes.size()));
    if (!has_value) return CorruptData(fmt::format("{}: constant page of valid rows holds no value", where));
    page->num_levels = num_rows;
  }
  std::string value;
  if (!cl.inline_value().empty()) {
    value = cl.inline_value();
    const uint64_t want = shape.kind == LeafKind::kBool ? 1 : static_cast<uint64_t>(shape.value_bytes);
    if (shape.kind == LeafKind::kVar || shape.kind == LeafKind::kFsl || value.size() != want) {
      return Unsupported(fmt::format("{}: constant page with a {}-byte inline value for this column", where,
                                     value.size()));
    }
  } else if (has_value) {
    OG_ASSIGN_OR_RETURN(BufferPtr block, read(value_buffer));
    OG_RETURN_IF_ERROR(ConstantFromBlock(block, shape, &value, where));
  }
  const bool has_def = !page->def.empty();
  for (uint64_t l = 0; l < page->num_levels; ++l) {
    const uint16_t d = has_def ? page->def[l] : 0;
    if (d > info.max_def) return CorruptData(fmt::format("{}: definition level {} exceeds {}", where, d, info.max_def));
    if (d > info.max_visible) continue;
    if (d != 0 || !has_value) {
      page->values.AppendNulls(1);
    } else if (shape.kind == LeafKind::kVar) {
      page->values.AppendVar(reinterpret_cast<const uint8_t*>(value.data()), value.size());
    } else if (shape.kind == LeafKind::kBool) {
      const uint8_t bit = value[0] != 0 ? 1 : 0;
      page->values.AppendBoolBits(&bit, 0, 1);
    } else {
      page->values.AppendFixedBytes(reinterpret_cast<const uint8_t*>(value.data()), 1);
    }
  }
  if (info.max_def == 0) page->def.clear();
  return IndexRows(info, page, where);
}

}  // namespace

Status DecodePage(const pb::PageLayout& layout, const LeafPath& path, uint64_t num_rows,
                  const std::vector<uint64_t>& buffer_sizes, const PageBufferReader& read, DecodedPage* out,
                  std::string_view where) {
  // Reuse the previous page's allocations: a scan decodes pages of one
  // column into the same DecodedPage.
  out->layers.clear();
  out->all_null_rows = false;
  out->rep.clear();
  out->def.clear();
  out->num_levels = 0;
  out->row_level.clear();
  out->row_value.clear();
  const LeafShape& old = out->values.shape();
  if (old.kind == path.shape.kind && old.value_bytes == path.shape.value_bytes &&
      old.list_size == path.shape.list_size && old.large_offsets == path.shape.large_offsets) {
    out->values.Clear();
  } else {
    out->values = LeafValues(path.shape);
  }
  out->num_rows = num_rows;
  // Sized once for the page: values grown by doubling cost a copy and fresh
  // pages per doubling. The page's bytes bound its uncompressed values.
  uint64_t page_bytes = 0;
  for (uint64_t size : buffer_sizes) page_bytes += size;
  out->values.Reserve(num_rows, page_bytes);
  switch (layout.layout_case()) {
    case pb::PageLayout::kMiniBlockLayout:
      return DecodeMiniBlock(layout.mini_block_layout(), path, buffer_sizes, read, out, where);
    case pb::PageLayout::kFullZipLayout:
      return DecodeFullZip(layout.full_zip_layout(), path, buffer_sizes, read, out, where);
    case pb::PageLayout::kAllNullLayout:
      return DecodeConstant(layout.all_null_layout(), path, num_rows, buffer_sizes, read, out, where);
    case pb::PageLayout::kBlobLayout: return Unsupported(fmt::format("{}: blob page layout", where));
    case pb::PageLayout::kSparseLayout: return Unsupported(fmt::format("{}: sparse page layout", where));
    default: return CorruptData(fmt::format("{}: page layout is missing or unknown", where));
  }
}

}  // namespace omnigraph::lance
