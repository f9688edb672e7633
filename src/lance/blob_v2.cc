#include "lance/blob_v2.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

namespace pb = ::lance::encodings21;

// Bytes of a descriptor row after its length prefix, without the URI:
// kind u8, position u64, size u64, blob_id u32, uri length u32.
constexpr uint64_t kFixedDescriptorBytes = 1 + 8 + 8 + 4 + 4;
constexpr int32_t kVarBinaryEncoding = 2;
constexpr int32_t kPlainEncoding = 1;

// Inline payloads of consecutive rows are fetched in one read while the
// gap between them stays below kPayloadGapBytes and the read below
// kPayloadSpanBytes.
constexpr uint64_t kPayloadGapBytes = 256 << 10;
constexpr uint64_t kPayloadSpanBytes = 64 << 20;

::lance::file::Field* AddProtoField(ProtoFields* out, std::string_view name, int32_t id, int32_t parent,
                                    std::string_view logical, bool nullable, int32_t encoding) {
  ::lance::file::Field* proto = out->Add();
  proto->set_name(std::string(name));
  proto->set_id(id);
  proto->set_parent_id(parent);
  proto->set_logical_type(std::string(logical));
  proto->set_nullable(nullable);
  if (encoding != 0) proto->set_encoding(encoding);
  return proto;
}

bool MetadataIs(const ::lance::file::Field& proto, std::string_view key, std::string_view value) {
  auto it = proto.metadata().find(std::string(key));
  return it != proto.metadata().end() && it->second == value;
}

// The variable_packed_struct of the descriptor: four flat fields and the
// u32-length-prefixed URI.
void SetDescriptorEncoding(pb::CompressiveEncoding* enc) {
  auto* vps = enc->mutable_variable_packed_struct();
  for (uint64_t bits : {8, 64, 64, 32}) {
    auto* field = vps->add_fields();
    field->mutable_value()->mutable_flat()->set_bits_per_value(bits);
    field->set_bits_per_value(bits);
  }
  auto* uri = vps->add_fields();
  uri->mutable_value()->mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(32);
  uri->set_bits_per_length(32);
}

// Whether `enc` is exactly the encoding SetDescriptorEncoding writes.
bool IsDescriptorEncoding(const pb::CompressiveEncoding& enc) {
  if (!enc.has_variable_packed_struct()) return false;
  const auto& fields = enc.variable_packed_struct().fields();
  if (fields.size() != 5) return false;
  const uint64_t widths[4] = {8, 64, 64, 32};
  for (int i = 0; i < 4; ++i) {
    const auto& f = fields.Get(i);
    if (f.layout_case() != pb::VariablePackedStruct::FieldEncoding::kBitsPerValue || f.bits_per_value() != widths[i] ||
        !f.value().has_flat() || f.value().flat().has_data() || f.value().flat().bits_per_value() != widths[i]) {
      return false;
    }
  }
  const auto& uri = fields.Get(4);
  if (uri.layout_case() != pb::VariablePackedStruct::FieldEncoding::kBitsPerLength || uri.bits_per_length() != 32 ||
      !uri.value().has_variable() || uri.value().variable().has_values()) {
    return false;
  }
  const pb::CompressiveEncoding& offsets = uri.value().variable().offsets();
  return offsets.has_flat() && !offsets.flat().has_data() && offsets.flat().bits_per_value() == 32;
}

// The cell of managed `bytes`, appended without a copy when no escape is
// needed.
void AppendManagedCell(std::string_view bytes, BinaryBuilder* out) {
  BlobCell plain = DecodeBlobCell(bytes);
  if (!plain.external && plain.payload.size() == bytes.size()) {
    out->Append(bytes);
  } else {
    out->Append(EncodeManagedBlobCell(bytes));
  }
}

std::string_view BlobKindName(BlobKind kind) {
  switch (kind) {
    case BlobKind::kInline: return "inline";
    case BlobKind::kPacked: return "packed";
    case BlobKind::kDedicated: return "dedicated";
    case BlobKind::kExternal: return "external";
  }
  return "unknown";
}

}  // namespace

// ---------------------------------------------------------------- schema

void AppendBlobV2Fields(const Field& field, bool data_file, ProtoFields* out) {
  ::lance::file::Field* blob = AddProtoField(out, field.name, field.id, -1, "struct", field.nullable, 0);
  if (data_file) {
    (*blob->mutable_metadata())[std::string(kBlobEncodingKey)] = "true";
    (*blob->mutable_metadata())[std::string(kPackedEncodingKey)] = "true";
    // Lance's descriptor form: the members follow as fields without ids.
    AddProtoField(out, "kind", -1, -1, "uint8", false, kPlainEncoding);
    AddProtoField(out, "position", -1, -1, "uint64", false, kPlainEncoding);
    AddProtoField(out, "size", -1, -1, "uint64", false, kPlainEncoding);
    AddProtoField(out, "blob_id", -1, -1, "uint32", false, kPlainEncoding);
    AddProtoField(out, "blob_uri", -1, -1, "string", false, kVarBinaryEncoding);
    return;
  }
  for (const auto& [key, value] : field.metadata) (*blob->mutable_metadata())[key] = value;
  blob->set_extension_name(std::string(kBlobV2ExtensionName));
  AddProtoField(out, "data", field.id + 1, field.id, "large_binary", true, kVarBinaryEncoding);
  AddProtoField(out, "uri", field.id + 2, field.id, "string", true, kVarBinaryEncoding);
}

bool IsBlobV2ManifestField(const ::lance::file::Field& proto) {
  return proto.logical_type() == "struct" &&
         (proto.extension_name() == kBlobV2ExtensionName || MetadataIs(proto, kArrowExtensionNameKey, kBlobV2ExtensionName));
}

bool IsBlobV2FileField(const ::lance::file::Field& proto) {
  return IsBlobV2ManifestField(proto) || (proto.logical_type() == "struct" && MetadataIs(proto, kBlobEncodingKey, "true"));
}

Result<Field> BlobV2FieldFromManifest(const ::lance::file::Field& proto,
                                      const std::vector<const ::lance::file::Field*>& children,
                                      std::string_view where) {
  auto child_is = [&](size_t i, std::string_view name, std::string_view logical) {
    return children.size() == 2 && children[i]->name() == name && children[i]->logical_type() == logical &&
           children[i]->id() == proto.id() + 1 + static_cast<int32_t>(i);
  };
  if (!child_is(0, "data", "large_binary") || !child_is(1, "uri", "string")) {
    return Unsupported(fmt::format("{}: blob v2 field '{}' (id {}) does not have exactly the children data "
                                   "(large_binary, id {}) and uri (string, id {})",
                                   where, proto.name(), proto.id(), proto.id() + 1, proto.id() + 2));
  }
  Metadata metadata;
  for (const auto& [key, value] : proto.metadata()) metadata[key] = value;
  Field field = MakeBlobV2Field(proto.name(), proto.nullable(), std::move(metadata));
  field.id = proto.id();
  return field;
}

// ---------------------------------------------------------------- writer

void BlobPageBuilder::AppendRow(BlobKind kind, uint64_t position, uint64_t size, std::string_view uri,
                                uint64_t checksum) {
  row_starts_.push_back(zipped_.size());
  checksums_.push_back(checksum);
  zipped_.push_back(0);  // def level: valid
  AppendLE<uint32_t>(&zipped_, static_cast<uint32_t>(kFixedDescriptorBytes + uri.size()));
  zipped_.push_back(static_cast<uint8_t>(kind));
  AppendLE<uint64_t>(&zipped_, position);
  AppendLE<uint64_t>(&zipped_, size);
  AppendLE<uint32_t>(&zipped_, 0);  // blob_id: only packed and dedicated blobs have one
  AppendLE<uint32_t>(&zipped_, static_cast<uint32_t>(uri.size()));
  AppendBytes(&zipped_, uri.data(), uri.size());
}

void BlobPageBuilder::AppendNull() {
  row_starts_.push_back(zipped_.size());
  checksums_.push_back(0);
  zipped_.push_back(1);  // def level: the struct is null
  any_null_ = true;
}

void BlobPageBuilder::AppendInline(uint64_t position, uint64_t size, uint64_t checksum) {
  AppendRow(BlobKind::kInline, position, size, {}, checksum);
}

void BlobPageBuilder::AppendExternal(std::string_view uri) { AppendRow(BlobKind::kExternal, 0, 0, uri, 0); }

void BlobPageBuilder::Finish(EncodedPage* out, std::vector<uint64_t>* checksums) {
  const uint64_t rows = row_starts_.size();
  out->buffers.resize(2);
  std::vector<uint8_t>& zipped = out->buffers[0];
  std::vector<uint8_t>& index = out->buffers[1];
  zipped.clear();
  index.clear();
  std::vector<uint64_t> starts;
  starts.reserve(rows + 1);
  if (any_null_) {
    zipped.swap(zipped_);
    starts = row_starts_;
  } else {
    // No null row: no def levels, so no control byte before each row.
    zipped.reserve(zipped_.size() - rows);
    for (uint64_t r = 0; r < rows; ++r) {
      starts.push_back(zipped.size());
      uint64_t begin = row_starts_[r] + 1;
      uint64_t end = r + 1 < rows ? row_starts_[r + 1] : zipped_.size();
      zipped.insert(zipped.end(), zipped_.begin() + static_cast<int64_t>(begin), zipped_.begin() + static_cast<int64_t>(end));
    }
  }
  const uint64_t total = zipped.size();
  starts.push_back(total);
  // Row-start index: the smallest of 1/2/4/8 bytes that holds the total.
  const uint64_t width = total < (1u << 8) ? 1 : total < (1u << 16) ? 2 : total < (uint64_t{1} << 32) ? 4 : 8;
  index.resize(starts.size() * width);
  for (size_t i = 0; i < starts.size(); ++i) std::memcpy(index.data() + i * width, &starts[i], width);

  pb::PageLayout layout;
  auto* fz = layout.mutable_full_zip_layout();
  if (any_null_) fz->set_bits_def(1);
  fz->set_bits_per_offset(32);
  fz->set_num_items(static_cast<uint32_t>(rows));
  fz->set_num_visible_items(static_cast<uint32_t>(rows));
  SetDescriptorEncoding(fz->mutable_value_compression());
  // Innermost first: the descriptor's members, then the struct itself.
  fz->add_layers(pb::REPDEF_ALL_VALID_ITEM);
  fz->add_layers(any_null_ ? pb::REPDEF_NULLABLE_ITEM : pb::REPDEF_ALL_VALID_ITEM);
  layout.SerializeToString(&out->layout);
  out->num_rows = rows;

  *checksums = std::move(checksums_);
  checksums_.clear();
  zipped_.clear();
  row_starts_.clear();
  any_null_ = false;
}

// ---------------------------------------------------------------- reader

Status DecodeBlobPage(const pb::PageLayout& layout, uint64_t num_rows, const std::vector<uint64_t>& buffer_sizes,
                      const PageBufferReader& read, std::vector<BlobDescriptor>* out, std::string_view where) {
  out->clear();
  if (layout.layout_case() != pb::PageLayout::kFullZipLayout) {
    return Unsupported(fmt::format("{}: blob v2 descriptor page in a layout other than full-zip", where));
  }
  const pb::FullZipLayout& fz = layout.full_zip_layout();
  if (!IsDescriptorEncoding(fz.value_compression())) {
    return Unsupported(fmt::format("{}: blob v2 descriptors encoded other than as a flat variable_packed_struct", where));
  }
  if (fz.bits_rep() != 0 || fz.bits_def() > 8) {
    return Unsupported(fmt::format("{}: blob v2 descriptor page with {} repetition and {} definition bits", where,
                                   fz.bits_rep(), fz.bits_def()));
  }
  if (fz.details_case() != pb::FullZipLayout::kBitsPerOffset || fz.bits_per_offset() != 32) {
    return Unsupported(fmt::format("{}: blob v2 descriptor rows without 32-bit length prefixes", where));
  }
  if (fz.layers_size() < 1 || fz.layers_size() > 2) {
    return Unsupported(fmt::format("{}: blob v2 descriptor page with {} layers", where, fz.layers_size()));
  }
  for (int layer : fz.layers()) {
    if (layer != pb::REPDEF_ALL_VALID_ITEM && layer != pb::REPDEF_NULLABLE_ITEM) {
      return CorruptData(fmt::format("{}: blob v2 descriptor page with a list layer", where));
    }
  }
  if (fz.num_items() != num_rows || fz.num_visible_items() != num_rows) {
    return CorruptData(fmt::format("{}: blob v2 descriptor page of {} rows declares {} items ({} visible)", where,
                                   num_rows, fz.num_items(), fz.num_visible_items()));
  }
  if (buffer_sizes.empty() || buffer_sizes.size() > 2) {
    return CorruptData(fmt::format("{}: blob v2 descriptor page has {} buffers", where, buffer_sizes.size()));
  }
  OG_ASSIGN_OR_RETURN(BufferPtr zipped, read(0));
  const uint8_t* p = zipped->data();
  const uint64_t size = zipped->size();
  const bool has_def = fz.bits_def() > 0;
  if (num_rows > size) return CorruptData(fmt::format("{}: {} descriptor rows cannot fit {} bytes", where, num_rows, size));
  out->resize(num_rows);
  uint64_t pos = 0;
  for (uint64_t r = 0; r < num_rows; ++r) {
    BlobDescriptor& d = (*out)[r];
    if (has_def) {
      if (pos >= size) return CorruptData(fmt::format("{}: descriptor data ends at row {}", where, r));
      if (p[pos++] != 0) continue;  // a null row is its def level alone
    }
    if (size - pos < 4) return CorruptData(fmt::format("{}: descriptor data ends at row {}", where, r));
    const uint64_t length = LoadLE<uint32_t>(p + pos);
    pos += 4;
    if (length < kFixedDescriptorBytes || length > size - pos) {
      return CorruptData(fmt::format("{}: descriptor row {} of {} bytes does not fit the page", where, r, length));
    }
    const uint8_t* row = p + pos;
    const uint8_t kind = row[0];
    if (kind > static_cast<uint8_t>(BlobKind::kExternal)) {
      return CorruptData(fmt::format("{}: descriptor row {} has unknown blob kind {}", where, r, kind));
    }
    const uint64_t uri_bytes = LoadLE<uint32_t>(row + 21);
    if (uri_bytes != length - kFixedDescriptorBytes) {
      return CorruptData(fmt::format("{}: descriptor row {} holds {} bytes but a {}-byte URI", where, r, length,
                                     uri_bytes));
    }
    d.valid = true;
    d.kind = static_cast<BlobKind>(kind);
    d.position = LoadLE<uint64_t>(row + 1);
    d.size = LoadLE<uint64_t>(row + 9);
    d.blob_id = LoadLE<uint32_t>(row + 17);
    d.uri.assign(reinterpret_cast<const char*>(row + kFixedDescriptorBytes), uri_bytes);
    pos += length;
  }
  if (pos != size) return CorruptData(fmt::format("{}: descriptor rows cover {} of {} bytes", where, pos, size));
  return Status::OK();
}

std::string BlobSidecarPath(std::string_view data_file_path, uint32_t blob_id) {
  std::string_view stem = data_file_path;
  if (stem.ends_with(".lance")) stem.remove_suffix(6);
  std::string path(stem);
  path += '/';
  for (int bit = 0; bit < 32; ++bit) path += (blob_id >> bit) & 1 ? '1' : '0';
  path += ".blob";
  return path;
}

std::string BlobSidecarOwner(std::string_view key) {
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return {};
  const std::string_view name = key.substr(slash + 1);
  if (name.size() != 32 + 5 || !name.ends_with(".blob")) return {};
  for (char c : name.substr(0, 32)) {
    if (c != '0' && c != '1') return {};
  }
  return std::string(key.substr(0, slash)) + ".lance";
}

Status AppendBlobCells(const std::vector<BlobDescriptor>& rows, size_t begin, size_t end,
                       const std::vector<uint64_t>& checksums, const BlobPayloadSource& source, BinaryBuilder* out,
                       std::string_view where) {
  auto verify = [&](size_t row, std::string_view bytes) -> Status {
    if (!checksums.empty() && Checksum64(bytes) != checksums[row]) {
      return CorruptData(fmt::format("{}: the inline payload of blob row {} does not match its checksum", where, row));
    }
    return Status::OK();
  };
  // Whether row `r` needs no bytes of the data file.
  auto bytes_free = [&](const BlobDescriptor& d) {
    return d.IsNull() || d.kind == BlobKind::kExternal || (d.kind == BlobKind::kInline && d.size == 0);
  };
  size_t i = begin;
  while (i < end) {
    const BlobDescriptor& d = rows[i];
    if (d.IsNull()) {
      out->AppendNull();
      ++i;
      continue;
    }
    if (d.kind == BlobKind::kExternal) {
      out->Append(EncodeExternalBlobCell(d.uri));
      ++i;
      continue;
    }
    if (d.kind == BlobKind::kPacked || d.kind == BlobKind::kDedicated) {
      if (!source.read_sidecar) {
        return Unsupported(fmt::format("{}: blob row {} is stored {} in a sidecar file, which this reader cannot open",
                                       where, i, BlobKindName(d.kind)));
      }
      if (d.size == 0) {
        out->Append(std::string_view());
      } else {
        OG_ASSIGN_OR_RETURN(BufferPtr bytes, source.read_sidecar(d.blob_id, d.position, d.size));
        if (bytes->size() != d.size) {
          return CorruptData(fmt::format("{}: blob row {} read {} of its {} sidecar bytes", where, i, bytes->size(), d.size));
        }
        AppendManagedCell(bytes->view(), out);
      }
      ++i;
      continue;
    }
    // Inline: gather the rows whose payloads one read of the file covers.
    uint64_t span_begin = 0, span_end = 0;
    bool any = false;
    size_t j = i;
    for (; j < end; ++j) {
      const BlobDescriptor& e = rows[j];
      if (bytes_free(e)) continue;
      if (e.kind != BlobKind::kInline) break;
      if (e.position > source.data_end || e.size > source.data_end - e.position) {
        return CorruptData(fmt::format("{}: inline payload [{}, +{}) of blob row {} lies outside the data region of {} "
                                       "bytes",
                                       where, e.position, e.size, j, source.data_end));
      }
      const uint64_t e_end = e.position + e.size;
      if (!any) {
        span_begin = e.position;
        span_end = e_end;
        any = true;
        continue;
      }
      if (e.position < span_end || e.position - span_end > kPayloadGapBytes || e_end - span_begin > kPayloadSpanBytes) {
        break;
      }
      span_end = e_end;
    }
    BufferPtr span;
    if (any) {
      OG_ASSIGN_OR_RETURN(span, source.read_file(span_begin, span_end - span_begin));
    }
    for (size_t r = i; r < j; ++r) {
      const BlobDescriptor& e = rows[r];
      if (e.IsNull()) {
        out->AppendNull();
      } else if (e.kind == BlobKind::kExternal) {
        out->Append(EncodeExternalBlobCell(e.uri));
      } else if (e.size == 0) {
        OG_RETURN_IF_ERROR(verify(r, {}));
        out->Append(std::string_view());
      } else {
        std::string_view bytes = span->view().substr(e.position - span_begin, e.size);
        OG_RETURN_IF_ERROR(verify(r, bytes));
        AppendManagedCell(bytes, out);
      }
    }
    i = j;
  }
  return Status::OK();
}

}  // namespace omnigraph::lance
