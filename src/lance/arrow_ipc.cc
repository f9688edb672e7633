#include "lance/arrow_ipc.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <flatbuffers/flatbuffers.h>
#include <lz4frame.h>
#include <zstd.h>

#include "arrow_ipc_generated.h"
#include "util/endian.h"

namespace omnigraph::lance::arrow_ipc {
namespace fb = ::omnigraph::lance::arrow_fb;

namespace {

constexpr std::string_view kMagic = "ARROW1";
constexpr uint32_t kContinuation = 0xFFFFFFFFu;
constexpr size_t kAlignment = 8;
// Leading magic plus its padding: the first message starts here.
constexpr int64_t kHeaderSize = 8;
// Trailing int32 footer size plus magic.
constexpr int64_t kTrailerSize = 4 + 6;
// First output allocation when decompressing; later ones double.
constexpr uint64_t kMinDecompressChunk = 64 * 1024;

// A copy of a flatbuffer in 8-byte-aligned storage. Flatbuffers inside an
// Arrow file sit at arbitrary offsets of the caller's bytes; the verifier
// checks alignment relative to the buffer start and the generated accessors
// load scalars through typed pointers, so both are only well defined on an
// aligned copy. Flatbuffers here are metadata (a few hundred bytes).
class AlignedCopy {
 public:
  explicit AlignedCopy(std::string_view bytes) : words_((bytes.size() + 7) / 8), size_(bytes.size()) {
    if (size_ != 0) std::memcpy(words_.data(), bytes.data(), size_);
  }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  size_t size() const { return size_; }

 private:
  std::vector<uint64_t> words_;
  size_t size_;
};

bool IsSupportedVersion(int16_t version) {
  return version == fb::MetadataVersion_V4 || version == fb::MetadataVersion_V5;
}

std::string VersionName(int16_t version) { return fmt::format("V{}", int{version} + 1); }

// Struct vectors (FieldNode, Buffer, Block) are read field by field with
// LoadLE from the raw vector bytes: the flatbuffers 2.0 verifier checks only
// the 4-byte alignment of a vector's length, so in a corrupt file its 8-byte
// structs may be misaligned and the generated accessors would be UB.
static_assert(sizeof(fb::FieldNode) == 16 && sizeof(fb::Buffer) == 16 && sizeof(fb::Block) == 24);

template <typename T>
const uint8_t* StructAt(const flatbuffers::Vector<const T*>& vec, size_t i) {
  return vec.Data() + i * sizeof(T);
}

// Grows `out` for streaming decompression: doubling, but never beyond
// declared + 1 bytes, so memory follows the bytes actually produced (a
// corrupt length prefix cannot force a huge allocation) and an overlong
// stream is still noticed.
Status GrowOutput(std::string* out, uint64_t produced, uint64_t declared) {
  if (produced > declared) {
    return CorruptData(fmt::format("decompresses to more than the declared {} bytes", declared));
  }
  uint64_t want = std::max<uint64_t>(kMinDecompressChunk, uint64_t{out->size()} * 2);
  out->resize(static_cast<size_t>(std::min<uint64_t>(declared + 1, want)));
  return Status::OK();
}

Result<std::string> ZstdDecompress(std::string_view in, uint64_t declared) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return Internal("cannot allocate a zstd decompression context");
  std::string out;
  uint64_t produced = 0;
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  while (true) {
    if (produced == out.size()) OG_RETURN_IF_ERROR(GrowOutput(&out, produced, declared));
    ZSTD_outBuffer dst{out.data(), out.size(), static_cast<size_t>(produced)};
    size_t consumed_before = src.pos;
    size_t ret = ZSTD_decompressStream(ctx.get(), &dst, &src);
    if (ZSTD_isError(ret)) return CorruptData(fmt::format("zstd: {}", ZSTD_getErrorName(ret)));
    bool progress = dst.pos != produced || src.pos != consumed_before;
    produced = dst.pos;
    // ret == 0: a frame ended. More input means another frame follows.
    if (ret == 0 && src.pos == src.size) break;
    if (!progress) return CorruptData("zstd data is truncated");
  }
  if (produced != declared) {
    return CorruptData(fmt::format("zstd data decompresses to {} bytes, not the declared {}", produced, declared));
  }
  out.resize(static_cast<size_t>(produced));
  return out;
}

Result<std::string> Lz4FrameDecompress(std::string_view in, uint64_t declared) {
  LZ4F_dctx* raw_ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw_ctx, LZ4F_VERSION))) {
    return Internal("cannot allocate an lz4 decompression context");
  }
  std::unique_ptr<LZ4F_dctx, LZ4F_errorCode_t (*)(LZ4F_dctx*)> ctx(raw_ctx, LZ4F_freeDecompressionContext);
  std::string out;
  uint64_t produced = 0;
  size_t pos = 0;
  while (true) {
    if (produced == out.size()) OG_RETURN_IF_ERROR(GrowOutput(&out, produced, declared));
    size_t dst_size = out.size() - static_cast<size_t>(produced);
    size_t src_size = in.size() - pos;
    size_t ret = LZ4F_decompress(ctx.get(), out.data() + produced, &dst_size, in.data() + pos, &src_size, nullptr);
    if (LZ4F_isError(ret)) return CorruptData(fmt::format("lz4: {}", LZ4F_getErrorName(ret)));
    pos += src_size;
    produced += dst_size;
    if (ret == 0) {
      // Arrow requires exactly one frame per buffer.
      if (pos != in.size()) return CorruptData(fmt::format("{} bytes follow the LZ4 frame", in.size() - pos));
      break;
    }
    if (src_size == 0 && dst_size == 0) return CorruptData("lz4 frame is truncated");
  }
  if (produced != declared) {
    return CorruptData(fmt::format("lz4 frame decompresses to {} bytes, not the declared {}", produced, declared));
  }
  out.resize(static_cast<size_t>(produced));
  return out;
}

// Decodes one body buffer of a compressed batch: int64 uncompressed length
// (-1 = raw), then the codec's bytes. An empty buffer stays empty (Arrow
// writers emit absent buffers without a prefix).
Result<std::string> DecodeCompressedBuffer(std::string_view raw, Compression codec) {
  if (raw.empty()) return std::string();
  if (raw.size() < 8) {
    return CorruptData(fmt::format("{} bytes, shorter than its 8-byte length prefix", raw.size()));
  }
  int64_t declared = LoadLE<int64_t>(raw.data());
  std::string_view payload = raw.substr(8);
  if (declared == -1) return std::string(payload);
  if (declared < 0) return CorruptData(fmt::format("negative uncompressed length {}", declared));
  if (codec == Compression::kZstd) return ZstdDecompress(payload, static_cast<uint64_t>(declared));
  return Lz4FrameDecompress(payload, static_cast<uint64_t>(declared));
}

Result<std::string> CompressBuffer(std::string_view raw, Compression codec) {
  std::string out;
  if (codec == Compression::kZstd) {
    out.resize(ZSTD_compressBound(raw.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), ZSTD_CLEVEL_DEFAULT);
    if (ZSTD_isError(n)) return Internal(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
    out.resize(n);
  } else {
    LZ4F_preferences_t prefs = LZ4F_INIT_PREFERENCES;
    prefs.frameInfo.contentSize = raw.size();
    out.resize(LZ4F_compressFrameBound(raw.size(), &prefs));
    size_t n = LZ4F_compressFrame(out.data(), out.size(), raw.data(), raw.size(), &prefs);
    if (LZ4F_isError(n)) return Internal(fmt::format("lz4 compression failed: {}", LZ4F_getErrorName(n)));
    out.resize(n);
  }
  return out;
}

// [0xFFFFFFFF][int32 metadata size][flatbuffer][zero padding to 8 bytes].
// The size counts the flatbuffer and its padding, so the body that follows
// starts 8-byte aligned.
void AppendEncapsulated(const flatbuffers::FlatBufferBuilder& builder, std::vector<uint8_t>* out) {
  size_t size = builder.GetSize();
  size_t padded = (8 + size + kAlignment - 1) / kAlignment * kAlignment - 8;
  AppendLE<uint32_t>(out, kContinuation);
  AppendLE<int32_t>(out, static_cast<int32_t>(padded));
  AppendBytes(out, builder.GetBufferPointer(), size);
  out->insert(out->end(), padded - size, 0);
}

flatbuffers::Offset<fb::Schema> BuildSchema(flatbuffers::FlatBufferBuilder* b, std::span<const Field> fields) {
  std::vector<flatbuffers::Offset<fb::Field>> offsets;
  for (const Field& field : fields) {
    auto name = b->CreateString(field.name);
    auto type = fb::CreateInt(*b, field.type.bit_width, field.type.is_signed);
    // An explicit empty children vector, as Arrow's own writers emit.
    auto children = b->CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{});
    fb::FieldBuilder fb_field(*b);
    fb_field.add_name(name);
    fb_field.add_nullable(field.nullable);
    fb_field.add_type_type(fb::Type_Int);
    fb_field.add_type(type.Union());
    fb_field.add_children(children);
    offsets.push_back(fb_field.Finish());
  }
  auto vec = b->CreateVector(offsets);
  return fb::CreateSchema(*b, fb::Endianness_Little, vec);
}

std::string_view TypeName(TypeId id) {
  switch (id) {
    case TypeId::kNone: return "NONE";
    case TypeId::kNull: return "Null";
    case TypeId::kInt: return "Int";
    case TypeId::kFloatingPoint: return "FloatingPoint";
    case TypeId::kBinary: return "Binary";
    case TypeId::kUtf8: return "Utf8";
    case TypeId::kBool: return "Bool";
    case TypeId::kDecimal: return "Decimal";
    case TypeId::kDate: return "Date";
    case TypeId::kTime: return "Time";
    case TypeId::kTimestamp: return "Timestamp";
    case TypeId::kInterval: return "Interval";
    case TypeId::kList: return "List";
    case TypeId::kStruct: return "Struct";
    case TypeId::kUnion: return "Union";
    case TypeId::kFixedSizeBinary: return "FixedSizeBinary";
    case TypeId::kFixedSizeList: return "FixedSizeList";
    case TypeId::kMap: return "Map";
    case TypeId::kDuration: return "Duration";
    case TypeId::kLargeBinary: return "LargeBinary";
    case TypeId::kLargeUtf8: return "LargeUtf8";
    case TypeId::kLargeList: return "LargeList";
    case TypeId::kRunEndEncoded: return "RunEndEncoded";
    case TypeId::kBinaryView: return "BinaryView";
    case TypeId::kUtf8View: return "Utf8View";
    case TypeId::kListView: return "ListView";
    case TypeId::kLargeListView: return "LargeListView";
  }
  return {};
}

}  // namespace

std::string DataType::ToString() const {
  if (id == TypeId::kInt) {
    if (bit_width == 8 || bit_width == 16 || bit_width == 32 || bit_width == 64) {
      return fmt::format("{}Int{}", is_signed ? "" : "U", bit_width);
    }
    return fmt::format("Int(bit_width={}, signed={})", bit_width, is_signed);
  }
  if (id == TypeId::kFloatingPoint) {
    switch (precision) {
      case 0: return "Float16";
      case 1: return "Float32";
      case 2: return "Float64";
      default: return fmt::format("FloatingPoint(precision={})", precision);
    }
  }
  std::string_view name = TypeName(id);
  if (name.empty()) return fmt::format("type #{}", static_cast<int>(id));
  return std::string(name);
}

// ---------------------------------------------------------------------------
// Writer

Result<std::string> WriteFile(std::span<const Field> fields, std::span<const RecordBatch> batches,
                              const WriteOptions& options) {
  for (const Field& field : fields) {
    const DataType& t = field.type;
    bool int_ok = t.id == TypeId::kInt && (t.bit_width == 8 || t.bit_width == 16 || t.bit_width == 32 ||
                                           t.bit_width == 64);
    if (!int_ok || field.num_children != 0 || field.dictionary_encoded) {
      return Unsupported(fmt::format("Arrow IPC writer: field '{}' of type {} (only flat integer columns are "
                                     "implemented)", field.name, t.ToString()));
    }
  }
  for (size_t i = 0; i < batches.size(); ++i) {
    const RecordBatch& batch = batches[i];
    if (batch.length < 0 || batch.nodes.size() != fields.size() || batch.buffers.size() != 2 * fields.size()) {
      return InvalidArgument(fmt::format("Arrow IPC writer: batch {} has length {}, {} nodes and {} buffers for {} "
                                         "fields (want 1 node and 2 buffers per field)",
                                         i, batch.length, batch.nodes.size(), batch.buffers.size(), fields.size()));
    }
    for (size_t f = 0; f < fields.size(); ++f) {
      const FieldNode& node = batch.nodes[f];
      if (node.length < 0 || node.null_count < 0 || node.null_count > node.length) {
        return InvalidArgument(fmt::format("Arrow IPC writer: batch {} node {} has length {} and null count {}", i,
                                           f, node.length, node.null_count));
      }
      uint64_t need = static_cast<uint64_t>(node.length) * static_cast<uint64_t>(fields[f].type.bit_width / 8);
      if (batch.buffers[2 * f + 1].size() < need) {
        return InvalidArgument(fmt::format("Arrow IPC writer: batch {} field '{}' has a {}-byte value buffer for {} "
                                           "values", i, fields[f].name, batch.buffers[2 * f + 1].size(),
                                           node.length));
      }
    }
  }

  std::vector<uint8_t> out;
  AppendBytes(&out, kMagic.data(), kMagic.size());
  PadTo(&out, kAlignment);

  {
    flatbuffers::FlatBufferBuilder b;
    auto schema = BuildSchema(&b, fields);
    b.Finish(fb::CreateMessage(b, fb::MetadataVersion_V5, fb::MessageHeader_Schema, schema.Union(), 0));
    AppendEncapsulated(b, &out);
  }

  std::vector<fb::Block> blocks;
  for (const RecordBatch& batch : batches) {
    std::vector<uint8_t> body;
    std::vector<fb::Buffer> buffers;
    for (const std::string& raw : batch.buffers) {
      size_t offset = body.size();
      if (options.compression == Compression::kNone || raw.empty()) {
        AppendBytes(&body, raw.data(), raw.size());
      } else {
        OG_ASSIGN_OR_RETURN(std::string packed, CompressBuffer(raw, options.compression));
        if (options.store_raw_if_not_smaller && packed.size() >= raw.size()) {
          AppendLE<int64_t>(&body, -1);
          AppendBytes(&body, raw.data(), raw.size());
        } else {
          AppendLE<int64_t>(&body, static_cast<int64_t>(raw.size()));
          AppendBytes(&body, packed.data(), packed.size());
        }
      }
      buffers.emplace_back(static_cast<int64_t>(offset), static_cast<int64_t>(body.size() - offset));
      PadTo(&body, kAlignment);
    }
    std::vector<fb::FieldNode> nodes;
    for (const FieldNode& node : batch.nodes) nodes.emplace_back(node.length, node.null_count);

    flatbuffers::FlatBufferBuilder b;
    auto nodes_vec = b.CreateVectorOfStructs(nodes);
    auto buffers_vec = b.CreateVectorOfStructs(buffers);
    flatbuffers::Offset<fb::BodyCompression> compression = 0;
    if (options.compression != Compression::kNone) {
      compression = fb::CreateBodyCompression(
          b, options.compression == Compression::kZstd ? fb::CompressionType_ZSTD : fb::CompressionType_LZ4_FRAME,
          fb::BodyCompressionMethod_BUFFER);
    }
    auto record_batch = fb::CreateRecordBatch(b, batch.length, nodes_vec, buffers_vec, compression);
    b.Finish(fb::CreateMessage(b, fb::MetadataVersion_V5, fb::MessageHeader_RecordBatch, record_batch.Union(),
                               static_cast<int64_t>(body.size())));
    int64_t block_offset = static_cast<int64_t>(out.size());
    AppendEncapsulated(b, &out);
    int32_t metadata_length = static_cast<int32_t>(out.size() - block_offset);
    AppendBytes(&out, body.data(), body.size());
    blocks.emplace_back(block_offset, metadata_length, static_cast<int64_t>(body.size()));
  }

  // End-of-stream marker, so the file also reads as a stream after its magic.
  AppendLE<uint32_t>(&out, kContinuation);
  AppendLE<int32_t>(&out, 0);

  flatbuffers::FlatBufferBuilder b;
  auto schema = BuildSchema(&b, fields);
  auto dictionaries = b.CreateVectorOfStructs(std::vector<fb::Block>{});
  auto record_batches = b.CreateVectorOfStructs(blocks);
  b.Finish(fb::CreateFooter(b, fb::MetadataVersion_V5, schema, dictionaries, record_batches));
  AppendBytes(&out, b.GetBufferPointer(), b.GetSize());
  AppendLE<int32_t>(&out, static_cast<int32_t>(b.GetSize()));
  AppendBytes(&out, kMagic.data(), kMagic.size());
  return std::string(out.begin(), out.end());
}

Result<std::string> WriteSingleUInt32Column(std::string_view column_name, std::span<const uint32_t> values,
                                            const WriteOptions& options) {
  Field field{std::string(column_name), /*nullable=*/false, DataType::UInt32()};
  RecordBatch batch;
  batch.length = static_cast<int64_t>(values.size());
  batch.nodes.push_back(FieldNode{batch.length, 0});
  batch.buffers.emplace_back();  // no validity bitmap: the column has no nulls
  batch.buffers.emplace_back(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(uint32_t));
  return WriteFile(std::span<const Field>(&field, 1), std::span<const RecordBatch>(&batch, 1), options);
}

// ---------------------------------------------------------------------------
// Reader

Status FileReader::Corrupt(std::string_view what) const {
  return CorruptData(fmt::format("Arrow IPC file '{}': {}", file_name_, what));
}

Result<FileReader> FileReader::Open(std::string_view bytes, std::string_view file_name) {
  FileReader reader;
  reader.bytes_ = bytes;
  reader.file_name_ = std::string(file_name);
  const int64_t size = static_cast<int64_t>(bytes.size());
  if (size < kHeaderSize + kTrailerSize) {
    return reader.Corrupt(fmt::format("{} bytes is too short for an Arrow IPC file", size));
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) return reader.Corrupt("missing leading ARROW1 magic");
  if (bytes.substr(bytes.size() - kMagic.size()) != kMagic) return reader.Corrupt("missing trailing ARROW1 magic");
  const int64_t footer_end = size - kTrailerSize;
  const int32_t footer_length = LoadLE<int32_t>(bytes.data() + footer_end);
  if (footer_length <= 0 || footer_length > footer_end - kHeaderSize) {
    return reader.Corrupt(fmt::format("footer length {} does not fit in a {}-byte file", footer_length, size));
  }
  const int64_t footer_start = footer_end - footer_length;
  AlignedCopy footer_bytes(bytes.substr(static_cast<size_t>(footer_start), static_cast<size_t>(footer_length)));
  flatbuffers::Verifier verifier(footer_bytes.data(), footer_bytes.size());
  if (!fb::VerifyFooterBuffer(verifier)) return reader.Corrupt("footer flatbuffer fails verification");
  const fb::Footer* footer = fb::GetFooter(footer_bytes.data());
  if (!IsSupportedVersion(footer->version())) {
    return Unsupported(fmt::format("Arrow IPC file '{}': metadata version {} (only V4 and V5 are supported)",
                                   file_name, VersionName(footer->version())));
  }
  const fb::Schema* schema = footer->schema();
  if (schema == nullptr) return reader.Corrupt("footer has no schema");
  if (schema->endianness() != fb::Endianness_Little) {
    return Unsupported(fmt::format("Arrow IPC file '{}': big-endian data", file_name));
  }
  if (schema->fields() != nullptr) {
    for (const fb::Field* f : *schema->fields()) {
      Field field;
      if (f->name() != nullptr) field.name = f->name()->str();
      field.nullable = f->nullable();
      field.type.id = static_cast<TypeId>(f->type_type());
      if (field.type.id == TypeId::kNone) return reader.Corrupt(fmt::format("field '{}' has no type", field.name));
      if (field.type.id == TypeId::kInt) {
        const fb::Int* t = f->type_as_Int();
        if (t == nullptr) {
          return reader.Corrupt(fmt::format("field '{}' has an Int type without its table", field.name));
        }
        field.type.bit_width = t->bit_width();
        field.type.is_signed = t->is_signed();
      } else if (field.type.id == TypeId::kFloatingPoint) {
        const fb::FloatingPoint* t = f->type_as_FloatingPoint();
        if (t != nullptr) field.type.precision = t->precision();
      }
      field.dictionary_encoded = f->dictionary() != nullptr;
      field.num_children = f->children() == nullptr ? 0 : static_cast<int32_t>(f->children()->size());
      if (field.dictionary_encoded) {
        return Unsupported(fmt::format("Arrow IPC file '{}': field '{}' is dictionary-encoded", file_name,
                                       field.name));
      }
      if (field.num_children != 0) {
        return Unsupported(fmt::format("Arrow IPC file '{}': field '{}' of type {} has child fields", file_name,
                                       field.name, field.type.ToString()));
      }
      reader.fields_.push_back(std::move(field));
    }
  }
  if (footer->dictionaries() != nullptr && footer->dictionaries()->size() != 0) {
    return reader.Corrupt(fmt::format("{} dictionary blocks but no dictionary-encoded field",
                                      footer->dictionaries()->size()));
  }
  if (footer->record_batches() != nullptr) {
    const auto& blocks = *footer->record_batches();
    for (size_t i = 0; i < blocks.size(); ++i) {
      const uint8_t* block = StructAt(blocks, i);
      reader.blocks_.push_back(Block{LoadLE<int64_t>(block), LoadLE<int32_t>(block + 8), LoadLE<int64_t>(block + 16)});
    }
  }
  reader.data_end_ = footer_start;
  return reader;
}

Result<RecordBatch> FileReader::ReadRecordBatch(int index) const {
  if (index < 0 || index >= num_record_batches()) {
    return InvalidArgument(fmt::format("Arrow IPC file '{}': record batch {} requested, the file has {}", file_name_,
                                       index, num_record_batches()));
  }
  const Block& block = blocks_[static_cast<size_t>(index)];
  // Overflow-safe: each term is checked against what is left before adding.
  if (block.offset < kHeaderSize || block.offset > data_end_ || block.metadata_length < 8 ||
      block.metadata_length > data_end_ - block.offset || block.body_length < 0 ||
      block.body_length > data_end_ - block.offset - block.metadata_length) {
    return Corrupt(fmt::format("record batch {} block (offset {}, metadata {} bytes, body {} bytes) lies outside "
                               "the {} bytes before the footer", index, block.offset, block.metadata_length,
                               block.body_length, data_end_));
  }
  const char* message_start = bytes_.data() + block.offset;
  int64_t prefix = 8;
  int32_t flatbuffer_length = LoadLE<int32_t>(message_start + 4);
  if (LoadLE<uint32_t>(message_start) != kContinuation) {
    // Pre-0.15 framing: the length comes without a continuation marker.
    prefix = 4;
    flatbuffer_length = LoadLE<int32_t>(message_start);
  }
  // The prefix's length counts the flatbuffer and its padding, so it and the
  // footer's metadata length must agree exactly: the body starts right after.
  if (flatbuffer_length <= 0 || flatbuffer_length != block.metadata_length - prefix) {
    return Corrupt(fmt::format("record batch {} message metadata length {} does not match its {}-byte block", index,
                               flatbuffer_length, block.metadata_length));
  }
  AlignedCopy message_bytes(bytes_.substr(static_cast<size_t>(block.offset + prefix),
                                          static_cast<size_t>(flatbuffer_length)));
  flatbuffers::Verifier verifier(message_bytes.data(), message_bytes.size());
  if (!verifier.VerifyBuffer<fb::Message>(nullptr)) {
    return Corrupt(fmt::format("record batch {} message flatbuffer fails verification", index));
  }
  const fb::Message* message = flatbuffers::GetRoot<fb::Message>(message_bytes.data());
  if (!IsSupportedVersion(message->version())) {
    return Unsupported(fmt::format("Arrow IPC file '{}': record batch {} has metadata version {} (only V4 and V5 "
                                   "are supported)", file_name_, index, VersionName(message->version())));
  }
  const fb::RecordBatch* rb = message->header_as_RecordBatch();
  if (rb == nullptr) {
    return Corrupt(fmt::format("block {} holds a message of header type {}, not a RecordBatch", index,
                               static_cast<int>(message->header_type())));
  }
  if (message->body_length() != block.body_length) {
    return Corrupt(fmt::format("record batch {} message says its body is {} bytes, the footer says {}", index,
                               message->body_length(), block.body_length));
  }
  if (rb->length() < 0) return Corrupt(fmt::format("record batch {} has negative length {}", index, rb->length()));
  if (rb->variadic_buffer_counts() != nullptr && rb->variadic_buffer_counts()->size() != 0) {
    return Unsupported(fmt::format("Arrow IPC file '{}': record batch {} has variadic buffers (view types)",
                                   file_name_, index));
  }
  Compression codec = Compression::kNone;
  if (const fb::BodyCompression* c = rb->compression(); c != nullptr) {
    if (c->codec() == fb::CompressionType_ZSTD) {
      codec = Compression::kZstd;
    } else if (c->codec() == fb::CompressionType_LZ4_FRAME) {
      codec = Compression::kLz4Frame;
    } else {
      return Unsupported(fmt::format("Arrow IPC file '{}': record batch {} uses unknown body compression codec {}",
                                     file_name_, index, static_cast<int>(c->codec())));
    }
    if (c->method() != fb::BodyCompressionMethod_BUFFER) {
      return Unsupported(fmt::format("Arrow IPC file '{}': record batch {} uses unknown body compression method {}",
                                     file_name_, index, static_cast<int>(c->method())));
    }
  }

  RecordBatch out;
  out.length = rb->length();
  if (rb->nodes() != nullptr) {
    const auto& nodes = *rb->nodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const FieldNode node{LoadLE<int64_t>(StructAt(nodes, i)), LoadLE<int64_t>(StructAt(nodes, i) + 8)};
      if (node.length < 0 || node.null_count < 0 || node.null_count > node.length) {
        return Corrupt(fmt::format("record batch {} has a field node with length {} and null count {}", index,
                                   node.length, node.null_count));
      }
      out.nodes.push_back(node);
    }
  }
  std::string_view body = bytes_.substr(static_cast<size_t>(block.offset + block.metadata_length),
                                        static_cast<size_t>(block.body_length));
  if (rb->buffers() != nullptr) {
    const auto& buffers = *rb->buffers();
    for (size_t buffer_index = 0; buffer_index < buffers.size(); ++buffer_index) {
      const int64_t offset = LoadLE<int64_t>(StructAt(buffers, buffer_index));
      const int64_t length = LoadLE<int64_t>(StructAt(buffers, buffer_index) + 8);
      if (offset < 0 || length < 0 || offset > block.body_length || length > block.body_length - offset) {
        return Corrupt(fmt::format("record batch {} buffer {} (offset {}, length {}) lies outside the {}-byte body",
                                   index, buffer_index, offset, length, block.body_length));
      }
      std::string_view raw = body.substr(static_cast<size_t>(offset), static_cast<size_t>(length));
      if (codec == Compression::kNone) {
        out.buffers.emplace_back(raw);
      } else {
        Result<std::string> decoded = DecodeCompressedBuffer(raw, codec);
        if (!decoded.ok()) {
          if (decoded.status().code() != ErrorCode::kCorruptData) return decoded.status();
          return Corrupt(fmt::format("record batch {} buffer {}: {}", index, buffer_index,
                                     decoded.status().message()));
        }
        out.buffers.push_back(std::move(decoded).value());
      }
    }
  }
  return out;
}

Result<std::vector<uint32_t>> ReadSingleUInt32Column(std::string_view bytes, std::string_view column_name,
                                                     std::string_view file_name) {
  OG_ASSIGN_OR_RETURN(FileReader reader, FileReader::Open(bytes, file_name));
  auto corrupt = [&](std::string_view what) {
    return CorruptData(fmt::format("Arrow IPC file '{}': {}", file_name, what));
  };
  if (reader.fields().size() != 1) {
    return corrupt(fmt::format("schema has {} fields, expected exactly one", reader.fields().size()));
  }
  const Field& field = reader.fields()[0];
  if (!(field.type == DataType::UInt32())) {
    return Unsupported(fmt::format("Arrow IPC file '{}': column '{}' has type {}, expected UInt32", file_name,
                                   field.name, field.type.ToString()));
  }
  if (field.name != column_name) {
    return corrupt(fmt::format("column is named '{}', expected '{}'", field.name, column_name));
  }
  if (field.nullable) return corrupt(fmt::format("column '{}' is nullable, expected non-nullable", field.name));
  if (reader.num_record_batches() != 1) {
    return corrupt(fmt::format("{} record batches, expected exactly one", reader.num_record_batches()));
  }
  OG_ASSIGN_OR_RETURN(RecordBatch batch, reader.ReadRecordBatch(0));
  if (batch.nodes.size() != 1 || batch.buffers.size() != 2) {
    return corrupt(fmt::format("record batch has {} field nodes and {} buffers, expected 1 and 2",
                               batch.nodes.size(), batch.buffers.size()));
  }
  const FieldNode& node = batch.nodes[0];
  if (node.length != batch.length) {
    return corrupt(fmt::format("column '{}' holds {} values but the record batch has {} rows", field.name,
                               node.length, batch.length));
  }
  if (node.null_count != 0) return corrupt(fmt::format("column '{}' holds {} nulls", field.name, node.null_count));
  const std::string& values = batch.buffers[1];
  if (static_cast<uint64_t>(batch.length) > values.size() / sizeof(uint32_t)) {
    return corrupt(fmt::format("value buffer of column '{}' is {} bytes, {} rows need {}", field.name,
                               values.size(), batch.length, static_cast<uint64_t>(batch.length) * 4));
  }
  std::vector<uint32_t> out(static_cast<size_t>(batch.length));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size() * sizeof(uint32_t));
  return out;
}

}  // namespace omnigraph::lance::arrow_ipc
