#include "lance/value_decoders.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "lance/bitpacking.h"
#include "lance/fsst_decode.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

namespace pb = ::lance::encodings21;
using Enc = pb::CompressiveEncoding;

bool IsIntegerWidth(uint64_t bits) {
  return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

template <typename T>
Status DecodeBitpacked(const Enc& enc, ByteSpan buffer, uint64_t n, uint8_t* out, std::string_view where) {
  T* dst = reinterpret_cast<T*>(out);
  if (enc.has_inline_bitpacking()) {
    // A group header precedes every 1024 values.
    uint64_t groups = (n + kFastLanesBlock - 1) / kFastLanesBlock;
    if (groups > buffer.size / sizeof(T)) {
      return CorruptData(fmt::format("{}: {} bytes cannot hold {} bit-packed values", where, buffer.size, n));
    }
    if (reinterpret_cast<uintptr_t>(out) % alignof(T) != 0) {
      std::vector<T> tmp(n);
      OG_RETURN_IF_ERROR(DecodeInlineBitpacked<T>(buffer.data, buffer.size, n, tmp.data(), where));
      std::memcpy(out, tmp.data(), n * sizeof(T));
      return Status::OK();
    }
    return DecodeInlineBitpacked<T>(buffer.data, buffer.size, n, dst, where);
  }
  const auto& ool = enc.out_of_line_bitpacking();
  uint64_t bw = ool.values().flat().bits_per_value();
  if (reinterpret_cast<uintptr_t>(out) % alignof(T) != 0) {
    std::vector<T> tmp(n);
    OG_RETURN_IF_ERROR(
        DecodeOutOfLineBitpacked<T>(buffer.data, buffer.size, static_cast<unsigned>(bw), n, tmp.data(), where));
    std::memcpy(out, tmp.data(), n * sizeof(T));
    return Status::OK();
  }
  return DecodeOutOfLineBitpacked<T>(buffer.data, buffer.size, static_cast<unsigned>(bw), n, dst, where);
}

// Copies `n` values of `width` bytes per run from rle buffers.
Status ExpandRle(const Enc& enc, const ByteSpan* buffers, size_t num_buffers, uint64_t n, uint8_t* out,
                 std::string_view where) {
  if (num_buffers != 2) {
    return CorruptData(fmt::format("{}: rle needs 2 buffers (values, run lengths), chunk has {}", where, num_buffers));
  }
  const auto& rle = enc.rle();
  if (!rle.run_lengths().has_flat() || rle.run_lengths().flat().bits_per_value() != 8 ||
      rle.run_lengths().flat().has_data()) {
    return Unsupported(fmt::format("{}: rle run lengths encoded as {}", where, EncodingName(rle.run_lengths())));
  }
  uint64_t width = rle.values().flat().bits_per_value() / 8;
  uint64_t runs = buffers[1].size;
  if (runs > buffers[0].size / width) {
    return CorruptData(fmt::format("{}: rle has {} runs but {} bytes of run values", where, runs, buffers[0].size));
  }
  // Lance 8 sometimes lets the last run of a chunk cover more values than
  // the chunk holds (observed: 1025 for a 1024-value chunk); the extra
  // values are not part of the chunk.
  uint64_t done = 0;
  for (uint64_t r = 0; r < runs && done < n; ++r) {
    uint64_t length = std::min<uint64_t>(buffers[1].data[r], n - done);
    const uint8_t* value = buffers[0].data + r * width;
    uint8_t* dst = out + done * width;
    for (uint64_t i = 0; i < length; ++i) std::memcpy(dst + i * width, value, width);
    done += length;
  }
  if (done != n) return CorruptData(fmt::format("{}: rle runs hold {} values, the chunk has {}", where, done, n));
  return Status::OK();
}

// Appends the `n` strings of a `variable` buffer: (n+1) offsets measured from
// the buffer start, then the bytes.
Status DecodeVariable(const Enc& enc, ByteSpan buffer, uint64_t n, LeafValues* out, std::string_view where) {
  const auto& var = enc.variable();
  if (var.has_values()) return Unsupported(fmt::format("{}: variable values with buffer compression", where));
  if (!var.offsets().has_flat() || var.offsets().flat().has_data()) {
    return Unsupported(fmt::format("{}: variable offsets encoded as {}", where, EncodingName(var.offsets())));
  }
  uint64_t bits = var.offsets().flat().bits_per_value();
  if (bits != 32 && bits != 64) return Unsupported(fmt::format("{}: {}-bit string offsets", where, bits));
  uint64_t width = bits / 8;
  if (n + 1 > buffer.size / width) {
    return CorruptData(fmt::format("{}: {} bytes cannot hold {} string offsets", where, buffer.size, n + 1));
  }
  auto offset = [&](uint64_t i) -> uint64_t {
    return width == 4 ? LoadLE<uint32_t>(buffer.data + 4 * i) : LoadLE<uint64_t>(buffer.data + 8 * i);
  };
  uint64_t first = offset(0);
  uint64_t last = offset(n);
  if (first < (n + 1) * width || first > last || last > buffer.size) {
    return CorruptData(
        fmt::format("{}: string offsets [{}, {}] fall outside the {}-byte buffer", where, first, last, buffer.size));
  }
  std::vector<uint8_t>& data = out->mutable_data();
  std::vector<uint64_t>& offsets = out->mutable_offsets();
  uint64_t base = data.size();
  size_t at = offsets.size();
  offsets.resize(at + n);
  uint64_t prev = first;
  for (uint64_t i = 1; i <= n; ++i) {
    uint64_t o = offset(i);
    if (o < prev || o > last) {
      offsets.resize(at);
      return CorruptData(fmt::format("{}: string offsets are not increasing at value {}", where, i));
    }
    offsets[at + i - 1] = base + (o - first);
    prev = o;
  }
  data.insert(data.end(), buffer.data + first, buffer.data + last);
  out->CommitAppended(n);
  return Status::OK();
}

// Appends the `n` strings of a variable or fsst{variable} chunk buffer.
Status DecodeStrings(const Enc& enc, ByteSpan buffer, uint64_t n, LeafValues* out, std::string_view where) {
  if (enc.has_variable()) return DecodeVariable(enc, buffer, n, out, where);
  if (!enc.has_fsst()) {
    return Unsupported(fmt::format("{}: string values encoded as {}", where, EncodingName(enc)));
  }
  const auto& fsst = enc.fsst();
  if (!fsst.values().has_variable()) {
    return Unsupported(fmt::format("{}: fsst over {}", where, EncodingName(fsst.values())));
  }
  OG_ASSIGN_OR_RETURN(FsstSymbolTable table, FsstSymbolTable::Parse(fsst.symbol_table(), where));
  LeafValues compressed(out->shape());
  OG_RETURN_IF_ERROR(DecodeVariable(fsst.values(), buffer, n, &compressed, where));
  std::vector<uint8_t>& data = out->mutable_data();
  std::vector<uint64_t>& offsets = out->mutable_offsets();
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t begin = compressed.offsets()[i];
    OG_RETURN_IF_ERROR(
        table.Decode(compressed.data().data() + begin, compressed.offsets()[i + 1] - begin, &data, where));
    offsets.push_back(data.size());
  }
  out->CommitAppended(n);
  return Status::OK();
}

// Decodes `n` integer-encoded fixed-width values straight into `out`.
Status DecodeFixed(const Enc& enc, const ByteSpan* buffers, size_t num_buffers, uint64_t n, LeafValues* out,
                   std::string_view where) {
  const LeafShape& shape = out->shape();
  OG_ASSIGN_OR_RETURN(int bits, IntegerBits(enc, where));
  if (bits != 8 * shape.value_bytes) {
    return CorruptData(fmt::format("{}: {}-bit values in a column of {}-byte values", where, bits, shape.value_bytes));
  }
  if (enc.has_flat()) {
    // The common case: one memcpy from the chunk.
    if (num_buffers != 1) return CorruptData(fmt::format("{}: flat values in {} buffers", where, num_buffers));
    if (buffers[0].size / static_cast<uint64_t>(shape.value_bytes) < n) {
      return CorruptData(fmt::format("{}: {} bytes cannot hold {} values of {} bits", where, buffers[0].size, n, bits));
    }
    out->AppendFixedBytes(buffers[0].data, n);
    return Status::OK();
  }
  std::vector<uint8_t>& data = out->mutable_data();
  size_t at = data.size();
  data.resize(at + n * static_cast<uint64_t>(shape.value_bytes));
  Status st = DecodeIntegers(enc, buffers, num_buffers, n, data.data() + at, where);
  if (!st.ok()) {
    data.resize(at);
    return st;
  }
  out->CommitAppended(n);
  return Status::OK();
}

Status DecodeFsl(const Enc& enc, const ByteSpan* buffers, size_t num_buffers, uint64_t n, LeafValues* out,
                 std::string_view where) {
  const LeafShape& shape = out->shape();
  if (!enc.has_fixed_size_list()) {
    return Unsupported(fmt::format("{}: fixed-size list values encoded as {}", where, EncodingName(enc)));
  }
  const auto& fsl = enc.fixed_size_list();
  if (fsl.items_per_value() != static_cast<uint64_t>(shape.list_size)) {
    return CorruptData(fmt::format("{}: {} items per value in a fixed-size list of {}", where, fsl.items_per_value(),
                                   shape.list_size));
  }
  if (!fsl.values().has_flat() || fsl.values().flat().has_data()) {
    return Unsupported(fmt::format("{}: fixed-size list items encoded as {}", where, EncodingName(fsl.values())));
  }
  if (fsl.values().flat().bits_per_value() != 8 * static_cast<uint64_t>(shape.item_bytes)) {
    return CorruptData(fmt::format("{}: {}-bit items in a fixed-size list of {}-byte items", where,
                                   fsl.values().flat().bits_per_value(), shape.item_bytes));
  }
  size_t expected = fsl.has_validity() ? 2 : 1;
  if (num_buffers != expected) {
    return CorruptData(
        fmt::format("{}: fixed-size list chunk has {} buffers, expected {}", where, num_buffers, expected));
  }
  const ByteSpan& values = buffers[expected - 1];
  if (values.size / static_cast<uint64_t>(shape.value_bytes) < n) {
    return CorruptData(fmt::format("{}: {} bytes cannot hold {} fixed-size lists", where, values.size, n));
  }
  const uint8_t* validity = nullptr;
  if (fsl.has_validity()) {
    uint64_t items = n * static_cast<uint64_t>(shape.list_size);
    if (buffers[0].size < (items + 7) / 8) {
      return CorruptData(fmt::format("{}: item validity of {} bytes for {} items", where, buffers[0].size, items));
    }
    validity = buffers[0].data;
  }
  out->AppendFixedBytes(values.data, n, validity, 0);
  return Status::OK();
}

}  // namespace

std::string_view EncodingName(const Enc& enc) {
  switch (enc.compression_case()) {
    case Enc::kFlat: return "flat";
    case Enc::kVariable: return "variable";
    case Enc::kConstant: return "constant";
    case Enc::kOutOfLineBitpacking: return "out_of_line_bitpacking";
    case Enc::kInlineBitpacking: return "inline_bitpacking";
    case Enc::kFsst: return "fsst";
    case Enc::kDictionary: return "dictionary";
    case Enc::kRle: return "rle";
    case Enc::kByteStreamSplit: return "byte_stream_split";
    case Enc::kGeneral: return "general";
    case Enc::kFixedSizeList: return "fixed_size_list";
    case Enc::kPackedStruct: return "packed_struct";
    case Enc::kVariablePackedStruct: return "variable_packed_struct";
    case Enc::COMPRESSION_NOT_SET: return "no encoding";
  }
  return "unknown encoding";
}

Result<int> IntegerBits(const Enc& enc, std::string_view where) {
  uint64_t bits = 0;
  switch (enc.compression_case()) {
    case Enc::kFlat:
      if (enc.flat().has_data()) return Unsupported(fmt::format("{}: flat values with buffer compression", where));
      bits = enc.flat().bits_per_value();
      break;
    case Enc::kInlineBitpacking:
      if (enc.inline_bitpacking().has_values()) {
        return Unsupported(fmt::format("{}: inline bit-packing with buffer compression", where));
      }
      bits = enc.inline_bitpacking().uncompressed_bits_per_value();
      break;
    case Enc::kOutOfLineBitpacking: {
      const auto& ool = enc.out_of_line_bitpacking();
      if (!ool.values().has_flat() || ool.values().flat().has_data()) {
        return Unsupported(fmt::format("{}: out-of-line bit-packing over {}", where, EncodingName(ool.values())));
      }
      bits = ool.uncompressed_bits_per_value();
      if (ool.values().flat().bits_per_value() > bits) {
        return CorruptData(
            fmt::format("{}: bit width {} exceeds {} bits", where, ool.values().flat().bits_per_value(), bits));
      }
      break;
    }
    case Enc::kRle:
      if (!enc.rle().values().has_flat() || enc.rle().values().flat().has_data()) {
        return Unsupported(fmt::format("{}: rle values encoded as {}", where, EncodingName(enc.rle().values())));
      }
      bits = enc.rle().values().flat().bits_per_value();
      break;
    default: return Unsupported(fmt::format("{}: encoding '{}' is not supported here", where, EncodingName(enc)));
  }
  if (!IsIntegerWidth(bits))
    return Unsupported(fmt::format("{}: {} with {}-bit values", where, EncodingName(enc), bits));
  return static_cast<int>(bits);
}

Status DecodeIntegers(const Enc& enc, const ByteSpan* buffers, size_t num_buffers, uint64_t n, uint8_t* out,
                      std::string_view where) {
  OG_ASSIGN_OR_RETURN(int bits, IntegerBits(enc, where));
  const uint64_t width = static_cast<uint64_t>(bits) / 8;
  if (n == 0) return Status::OK();
  if (enc.has_rle()) return ExpandRle(enc, buffers, num_buffers, n, out, where);
  if (num_buffers != 1) {
    return CorruptData(fmt::format("{}: {} expects 1 buffer, chunk has {}", where, EncodingName(enc), num_buffers));
  }
  if (enc.has_flat()) {
    if (buffers[0].size / width < n) {
      return CorruptData(fmt::format("{}: {} bytes cannot hold {} values of {} bits", where, buffers[0].size, n, bits));
    }
    std::memcpy(out, buffers[0].data, n * width);
    return Status::OK();
  }
  switch (bits) {
    case 8: return DecodeBitpacked<uint8_t>(enc, buffers[0], n, out, where);
    case 16: return DecodeBitpacked<uint16_t>(enc, buffers[0], n, out, where);
    case 32: return DecodeBitpacked<uint32_t>(enc, buffers[0], n, out, where);
    default: return DecodeBitpacked<uint64_t>(enc, buffers[0], n, out, where);
  }
}

Status DecodeLevels(const Enc& enc, ByteSpan buffer, uint64_t n, uint16_t* out, std::string_view where) {
  OG_ASSIGN_OR_RETURN(int bits, IntegerBits(enc, where));
  if (bits == 16) return DecodeIntegers(enc, &buffer, 1, n, reinterpret_cast<uint8_t*>(out), where);
  if (bits != 8) return Unsupported(fmt::format("{}: {}-bit rep/def levels", where, bits));
  std::vector<uint8_t> narrow(n);
  OG_RETURN_IF_ERROR(DecodeIntegers(enc, &buffer, 1, n, narrow.data(), where));
  for (uint64_t i = 0; i < n; ++i) out[i] = narrow[i];
  return Status::OK();
}

Status DecodeChunkValues(const Enc& enc, const ByteSpan* buffers, size_t num_buffers, uint64_t n,
                         const LeafValues* dictionary, LeafValues* out, std::string_view where) {
  const LeafShape& shape = out->shape();
  if (dictionary != nullptr) {
    OG_ASSIGN_OR_RETURN(int bits, IntegerBits(enc, where));
    const uint64_t width = static_cast<uint64_t>(bits) / 8;
    std::vector<uint8_t> raw(n * width);
    OG_RETURN_IF_ERROR(DecodeIntegers(enc, buffers, num_buffers, n, raw.data(), where));
    const uint64_t items = dictionary->count();
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t index = 0;
      std::memcpy(&index, raw.data() + i * width, width);
      if (index >= items) {
        return CorruptData(fmt::format("{}: dictionary index {} with {} items", where, index, items));
      }
      out->AppendRange(*dictionary, index, 1);
    }
    return Status::OK();
  }
  switch (shape.kind) {
    case LeafKind::kBool:
      if (!enc.has_flat() || enc.flat().bits_per_value() != 1 || enc.flat().has_data()) {
        return Unsupported(fmt::format("{}: boolean values encoded as {}", where, EncodingName(enc)));
      }
      if (num_buffers != 1) return CorruptData(fmt::format("{}: boolean chunk has {} buffers", where, num_buffers));
      if (buffers[0].size < (n + 7) / 8) {
        return CorruptData(fmt::format("{}: {} bytes cannot hold {} booleans", where, buffers[0].size, n));
      }
      out->AppendBoolBits(buffers[0].data, 0, n);
      return Status::OK();
    case LeafKind::kFixed: return DecodeFixed(enc, buffers, num_buffers, n, out, where);
    case LeafKind::kVar:
      if (num_buffers != 1) return CorruptData(fmt::format("{}: string chunk has {} buffers", where, num_buffers));
      return DecodeStrings(enc, buffers[0], n, out, where);
    case LeafKind::kFsl: return DecodeFsl(enc, buffers, num_buffers, n, out, where);
  }
  return Status::OK();
}

Status DecodeDictionaryItems(const Enc& enc, ByteSpan buffer, uint64_t n, LeafValues* out, std::string_view where) {
  const LeafShape& shape = out->shape();
  if (shape.kind == LeafKind::kFixed) {
    return DecodeFixed(enc, &buffer, 1, n, out, where);
  }
  if (shape.kind != LeafKind::kVar) {
    return Unsupported(fmt::format("{}: dictionary of a non-string, non-fixed-width column", where));
  }
  const Enc* inner = &enc;
  const pb::Fsst* fsst = nullptr;
  if (enc.has_fsst()) {
    fsst = &enc.fsst();
    inner = &enc.fsst().values();
  }
  if (!inner->has_variable()) {
    return Unsupported(fmt::format("{}: dictionary items encoded as {}", where, EncodingName(enc)));
  }
  // Block form: [W bits_per_offset][W data start][(n+1) offsets of W bytes][data].
  if (buffer.size < 4) return CorruptData(fmt::format("{}: dictionary block of {} bytes", where, buffer.size));
  uint32_t bits = LoadLE<uint32_t>(buffer.data);
  if (bits != 32 && bits != 64) return CorruptData(fmt::format("{}: dictionary offsets of {} bits", where, bits));
  const uint64_t width = bits / 8;
  if (buffer.size < 2 * width || n + 1 > (buffer.size - 2 * width) / width) {
    return CorruptData(fmt::format("{}: dictionary block of {} bytes cannot hold {} items", where, buffer.size, n));
  }
  auto word = [&](uint64_t i) -> uint64_t {
    return width == 4 ? LoadLE<uint32_t>(buffer.data + 4 * i) : LoadLE<uint64_t>(buffer.data + 8 * i);
  };
  uint64_t start = word(1);
  if (start < 2 * width + (n + 1) * width || start > buffer.size) {
    return CorruptData(fmt::format("{}: dictionary data starts at {} in a {}-byte block", where, start, buffer.size));
  }
  const uint8_t* bytes = buffer.data + start;
  const uint64_t available = buffer.size - start;
  std::unique_ptr<FsstSymbolTable> table;
  if (fsst != nullptr) {
    OG_ASSIGN_OR_RETURN(FsstSymbolTable parsed, FsstSymbolTable::Parse(fsst->symbol_table(), where));
    table = std::make_unique<FsstSymbolTable>(parsed);
  }
  std::vector<uint8_t>& data = out->mutable_data();
  std::vector<uint64_t>& offsets = out->mutable_offsets();
  uint64_t prev = word(2);
  for (uint64_t i = 1; i <= n; ++i) {
    uint64_t end = word(2 + i);
    if (end < prev || end > available) {
      return CorruptData(
          fmt::format("{}: dictionary item {} spans [{}, {}) of {} bytes", where, i - 1, prev, end, available));
    }
    if (table) {
      OG_RETURN_IF_ERROR(table->Decode(bytes + prev, end - prev, &data, where));
    } else {
      data.insert(data.end(), bytes + prev, bytes + end);
    }
    offsets.push_back(data.size());
    prev = end;
  }
  out->CommitAppended(n);
  return Status::OK();
}

Status DecompressGeneral(const pb::BufferCompression& compression, ByteSpan in, std::vector<uint8_t>* out,
                         std::string_view where) {
  if (in.size < 8) return CorruptData(fmt::format("{}: compressed value of {} bytes has no length", where, in.size));
  const uint64_t declared = LoadLE<uint64_t>(in.data);
  const uint8_t* src = in.data + 8;
  const size_t src_size = in.size - 8;
  out->clear();
  switch (compression.scheme()) {
    case pb::COMPRESSION_ALGORITHM_ZSTD: {
      // Stream into a buffer that grows with the real output, so a corrupt
      // length cannot make us allocate more than the frame produces.
      std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
      if (!ctx) return Internal("cannot create a zstd context");
      ZSTD_inBuffer input{src, src_size, 0};
      size_t produced = 0;
      out->resize(static_cast<size_t>(std::min<uint64_t>(declared, uint64_t{1} << 16)));
      while (true) {
        if (produced == out->size() && out->size() < declared) {
          out->resize(static_cast<size_t>(std::min<uint64_t>(declared, std::max<uint64_t>(out->size() * 2, 1 << 16))));
        }
        // One spare byte detects frames longer than declared.
        uint8_t spare = 0;
        bool use_spare = produced == out->size();
        ZSTD_outBuffer output{use_spare ? &spare : out->data(), use_spare ? 1 : out->size(), use_spare ? 0 : produced};
        size_t ret = ZSTD_decompressStream(ctx.get(), &output, &input);
        if (ZSTD_isError(ret)) {
          return CorruptData(fmt::format("{}: zstd: {}", where, ZSTD_getErrorName(ret)));
        }
        if (use_spare) {
          if (output.pos > 0) {
            return CorruptData(fmt::format("{}: zstd value is longer than its declared {} bytes", where, declared));
          }
        } else {
          produced = output.pos;
        }
        if (ret == 0) break;
        if (input.pos == input.size && (use_spare || output.pos < output.size)) {
          return CorruptData(fmt::format("{}: zstd frame is truncated", where));
        }
      }
      if (produced != declared) {
        return CorruptData(fmt::format("{}: zstd value has {} bytes, declared {}", where, produced, declared));
      }
      out->resize(produced);
      return Status::OK();
    }
    case pb::COMPRESSION_ALGORITHM_LZ4: {
      // LZ4 expands at most ~255x.
      if (declared > 255 * static_cast<uint64_t>(src_size) + 64 || declared > static_cast<uint64_t>(INT32_MAX) ||
          src_size > static_cast<size_t>(INT32_MAX)) {
        return CorruptData(fmt::format("{}: lz4 value declares {} bytes from {}", where, declared, src_size));
      }
      out->resize(static_cast<size_t>(declared));
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out->data()),
                                    static_cast<int>(src_size), static_cast<int>(declared));
      if (got < 0 || static_cast<uint64_t>(got) != declared) {
        return CorruptData(fmt::format("{}: lz4 block does not decode to its declared {} bytes", where, declared));
      }
      return Status::OK();
    }
    default:
      return Unsupported(
          fmt::format("{}: general compression scheme {}", where, static_cast<int>(compression.scheme())));
  }
}

}  // namespace omnigraph::lance
