#include "lance/manifest.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "lance/proto_convert.h"
#include "table.pb.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

constexpr std::string_view kMagic = "LANC";
constexpr size_t kTrailerBytes = kManifestTrailerBytes;
constexpr int16_t kManifestMajor = 0;
constexpr int16_t kManifestMinor = 2;
constexpr std::string_view kWriterLibrary = "omnigraph";

void AppendSection(std::string* out, std::string_view message) {
  uint32_t length = static_cast<uint32_t>(message.size());
  out->append(reinterpret_cast<const char*>(&length), 4);
  out->append(message);
}

// Reads a [u32 len | bytes] section at `pos`; the section must end at or
// before `limit`.
Result<std::string_view> ReadSection(std::string_view bytes, uint64_t pos, uint64_t limit, std::string_view what,
                                     std::string_view path) {
  if (pos > limit || limit - pos < 4) {
    return CorruptData(fmt::format("{}: {} section at offset {} lies outside the file", path, what, pos));
  }
  uint32_t length = LoadLE<uint32_t>(bytes.data() + pos);
  if (length > limit - pos - 4) {
    return CorruptData(fmt::format("{}: {} section at offset {} claims {} bytes, past the end", path, what, pos, length));
  }
  return bytes.substr(pos + 4, length);
}

}  // namespace

std::vector<DataFile>& DataFileList::Mutable() {
  if (files_ == nullptr) {
    files_ = std::make_shared<std::vector<DataFile>>();
  } else if (files_.use_count() > 1) {
    files_ = std::make_shared<std::vector<DataFile>>(*files_);
  }
  return *files_;
}

const std::vector<DataFile>& DataFileList::Empty() {
  static const std::vector<DataFile> empty;
  return empty;
}

std::string DeletionFile::FileName(uint64_t fragment_id) const {
  return fmt::format("{}-{}-{}.{}", fragment_id, read_version, id, kind == DeletionFileKind::kBitmap ? "bin" : "arrow");
}

uint64_t Manifest::NumRows() const {
  uint64_t rows = 0;
  for (const Fragment& f : fragments) rows += f.num_rows();
  return rows;
}

const Fragment* Manifest::FindFragment(uint64_t id) const {
  for (const Fragment& f : fragments) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const BasePath* Manifest::FindBasePath(uint32_t id) const {
  for (const BasePath& b : base_paths) {
    if (b.id == id) return &b;
  }
  return nullptr;
}

void Manifest::RecomputeFeatureFlags() {
  bool deletions = std::any_of(fragments.begin(), fragments.end(),
                               [](const Fragment& f) { return f.deletion_file.has_value(); });
  uint64_t set = (deletions ? kFlagDeletionFiles : 0) | (base_paths.empty() ? 0 : kFlagBasePaths) |
                 (config.empty() ? 0 : kFlagTableConfig);
  uint64_t managed = kFlagDeletionFiles | kFlagBasePaths | kFlagTableConfig;
  reader_feature_flags = (reader_feature_flags & ~managed) | set;
  writer_feature_flags = (writer_feature_flags & ~managed) | set;
}

namespace {

std::string EncodeFragment(const Fragment& fragment) {
  ::lance::table::DataFragment proto;
  FragmentToProto(fragment, &proto);
  return proto.SerializeAsString();
}

// Appends `bytes` as field 2 (Manifest.fragments), length-delimited.
void AppendFragmentField(std::string* out, std::string_view bytes) {
  out->push_back(static_cast<char>((2 << 3) | 2));
  uint64_t length = bytes.size();
  while (length >= 0x80) {
    out->push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  out->push_back(static_cast<char>(length));
  out->append(bytes);
}

// The cached encoding of `fragment`, made afresh when it is missing or was
// made from a different value.
const std::string& CachedEncoding(Fragment* fragment) {
  if (fragment->encoding == nullptr || !(fragment->encoding->fragment == *fragment)) {
    auto encoding = std::make_shared<FragmentEncoding>();
    encoding->fragment = *fragment;
    encoding->fragment.encoding.reset();
    encoding->bytes = EncodeFragment(*fragment);
    fragment->encoding = std::move(encoding);
  }
  return fragment->encoding->bytes;
}

// The manifest file bytes. `encodings_current`: every fragment's cached
// encoding is known to match it, so it is used without comparing.
Result<std::string> EncodeManifestBytes(const Manifest& manifest, std::string_view transaction, bool encodings_current) {
  std::string out;
  // The message is serialized in three parts so that fragments (field 2) can
  // be copied from their cached encodings: `fields` (field 1), every
  // fragment, then every other field. Concatenation is the protobuf
  // encoding of the whole message, in field-number order as protobuf
  // writes it.
  ::lance::table::Manifest fields;
  ::lance::table::Manifest proto;
  if (!transaction.empty()) {
    proto.set_transaction_section(out.size());
    AppendSection(&out, transaction);
  }
  if (!manifest.index_section.empty()) {
    proto.set_index_section(out.size());
    AppendSection(&out, manifest.index_section);
  }
  OG_RETURN_IF_ERROR(SchemaToProto(manifest.schema, fields.mutable_fields(), proto.mutable_schema_metadata()));
  proto.set_version(manifest.version);
  proto.mutable_timestamp()->set_seconds(manifest.timestamp_nanos / 1'000'000'000);
  proto.mutable_timestamp()->set_nanos(static_cast<int32_t>(manifest.timestamp_nanos % 1'000'000'000));
  proto.set_reader_feature_flags(manifest.reader_feature_flags);
  proto.set_writer_feature_flags(manifest.writer_feature_flags);
  if (manifest.max_fragment_id) proto.set_max_fragment_id(*manifest.max_fragment_id);
  proto.set_transaction_file(manifest.transaction_file);
  proto.mutable_writer_version()->set_library(manifest.writer_library);
  proto.mutable_writer_version()->set_version(manifest.writer_version);
  proto.set_next_row_id(manifest.next_row_id);
  proto.mutable_data_format()->set_file_format("lance");
  proto.mutable_data_format()->set_version(manifest.data_format_version);
  for (const auto& [k, v] : manifest.config) (*proto.mutable_config())[k] = v;
  for (const auto& [k, v] : manifest.table_metadata) (*proto.mutable_table_metadata())[k] = v;
  for (const BasePath& base : manifest.base_paths) {
    auto* b = proto.add_base_paths();
    b->set_id(base.id);
    if (base.name) b->set_name(*base.name);
    b->set_is_dataset_root(base.is_dataset_root);
    b->set_path(base.path);
  }
  if (manifest.branch) proto.set_branch(*manifest.branch);

  // The manifest section is built in place after a length placeholder: a
  // manifest of many fragments is mostly their cached bytes, copied once.
  int64_t position = static_cast<int64_t>(out.size());
  size_t fragment_bytes = 0;
  for (const Fragment& fragment : manifest.fragments) {
    if (fragment.encoding != nullptr) fragment_bytes += fragment.encoding->bytes.size() + 11;
  }
  out.reserve(out.size() + 4 + fragment_bytes + 4096);
  out.append(4, '\0');
  const size_t message_start = out.size();
  fields.AppendToString(&out);
  for (const Fragment& fragment : manifest.fragments) {
    // Two branches, not `cached ? bytes : EncodeFragment(…)`: that
    // expression is a new string, a copy of every cached encoding.
    if (fragment.encoding != nullptr && (encodings_current || fragment.encoding->fragment == fragment)) {
      AppendFragmentField(&out, fragment.encoding->bytes);
    } else {
      AppendFragmentField(&out, EncodeFragment(fragment));
    }
  }
  proto.AppendToString(&out);
  AppendChecksumField(&out, message_start);
  const uint32_t length = static_cast<uint32_t>(out.size() - message_start);
  std::memcpy(out.data() + message_start - 4, &length, 4);
  out.append(reinterpret_cast<const char*>(&position), 8);
  out.append(reinterpret_cast<const char*>(&kManifestMajor), 2);
  out.append(reinterpret_cast<const char*>(&kManifestMinor), 2);
  out.append(kMagic);
  return out;
}

}  // namespace

Result<std::string> EncodeManifestFile(const Manifest& manifest, std::string_view transaction) {
  return EncodeManifestBytes(manifest, transaction, /*encodings_current=*/false);
}

void CacheFragmentEncodings(Manifest* manifest) {
  for (Fragment& fragment : manifest->fragments) (void)CachedEncoding(&fragment);
}

Result<std::string> EncodeManifestFile(Manifest* manifest, std::string_view transaction) {
  CacheFragmentEncodings(manifest);
  return EncodeManifestBytes(*manifest, transaction, /*encodings_current=*/true);
}

Result<uint64_t> ManifestPositionFromTrailer(std::string_view trailer, uint64_t file_size, std::string_view path) {
  if (file_size < kTrailerBytes + 4 || trailer.size() != kTrailerBytes) {
    return CorruptData(fmt::format("{}: {} bytes is too short for a manifest", path, file_size));
  }
  if (trailer.substr(kTrailerBytes - 4) != kMagic) {
    return CorruptData(fmt::format("{}: missing LANC magic at the end of the manifest", path));
  }
  int64_t position = LoadLE<int64_t>(trailer.data());
  if (position < 0 || static_cast<uint64_t>(position) > file_size - kTrailerBytes) {
    return CorruptData(fmt::format("{}: manifest position {} is outside the file", path, position));
  }
  return static_cast<uint64_t>(position);
}

bool IsTransactionSection(std::string_view section) {
  constexpr char kReadVersionTag = (1 << 3) | 0;  // field 1, varint
  constexpr char kUuidTag = (2 << 3) | 2;         // field 2, length-delimited
  return !section.empty() && (section[0] == kReadVersionTag || section[0] == kUuidTag);
}

Result<ManifestFile> DecodeManifestFile(std::string_view bytes, std::string_view path) {
  if (bytes.size() < kTrailerBytes + 4) {
    return CorruptData(fmt::format("{}: {} bytes is too short for a manifest", path, bytes.size()));
  }
  OG_ASSIGN_OR_RETURN(uint64_t position,
                      ManifestPositionFromTrailer(bytes.substr(bytes.size() - kTrailerBytes), bytes.size(), path));
  uint64_t body_end = bytes.size() - kTrailerBytes;
  OG_ASSIGN_OR_RETURN(std::string_view message, ReadSection(bytes, position, body_end, "manifest", path));
  if (position + 4 + message.size() != body_end) {
    return CorruptData(fmt::format("{}: manifest section does not end at the trailer", path));
  }
  ChecksumState checksum = CheckTrailingChecksum(message);
  if (checksum == ChecksumState::kMismatch) {
    return CorruptData(fmt::format("{}: manifest checksum does not match its bytes", path));
  }
  ::lance::table::Manifest proto;
  if (!ParseMessage(message, &proto)) {
    return CorruptData(fmt::format("{}: manifest protobuf does not decode", path));
  }
  if (checksum == ChecksumState::kAbsent && proto.writer_version().library() == kWriterLibrary) {
    return CorruptData(fmt::format("{}: manifest written by {} lacks its checksum", path, kWriterLibrary));
  }

  ManifestFile file;
  file.file_size = bytes.size();
  Manifest& m = file.manifest;
  m.version = proto.version();
  m.reader_feature_flags = proto.reader_feature_flags();
  m.writer_feature_flags = proto.writer_feature_flags();
  if (uint64_t unknown = m.reader_feature_flags & ~kSupportedReaderFlags; unknown != 0) {
    return Unsupported(fmt::format("{}: reader feature flags {:#x} are not supported (supported: {:#x})", path, unknown,
                                   kSupportedReaderFlags));
  }
  const std::string& format = proto.data_format().file_format();
  const std::string& format_version = proto.data_format().version();
  if (!format.empty() && format != "lance") {
    return Unsupported(fmt::format("{}: data file format '{}' is not supported", path, format));
  }
  m.data_format_version = format_version.empty() ? "2.0" : format_version;
  if (m.data_format_version != "2.0" && m.data_format_version != "2.1" && m.data_format_version != "2.2") {
    return Unsupported(fmt::format("{}: data storage version {} is not supported (2.0, 2.1 and 2.2 are)", path,
                                   m.data_format_version));
  }
  OG_ASSIGN_OR_RETURN(m.schema, SchemaFromProto(proto.fields(), proto.schema_metadata(), path));
  std::set<uint64_t> fragment_ids;
  for (const auto& fragment_proto : proto.fragments()) {
    OG_ASSIGN_OR_RETURN(Fragment fragment, FragmentFromProto(fragment_proto, path));
    if (!fragment_ids.insert(fragment.id).second) {
      return CorruptData(fmt::format("{}: fragment id {} appears twice", path, fragment.id));
    }
    for (const DataFile& df : fragment.files) {
      if (df.base_id && std::none_of(proto.base_paths().begin(), proto.base_paths().end(),
                                     [&](const auto& b) { return b.id() == *df.base_id; })) {
        return CorruptData(fmt::format("{}: data file '{}' names unknown base path {}", path, df.path, *df.base_id));
      }
    }
    m.fragments.push_back(std::move(fragment));
  }
  if (proto.has_max_fragment_id()) m.max_fragment_id = proto.max_fragment_id();
  if (!m.fragments.empty() && m.max_fragment_id && *fragment_ids.rbegin() > *m.max_fragment_id) {
    return CorruptData(fmt::format("{}: fragment id {} is above max_fragment_id {}", path, *fragment_ids.rbegin(),
                                   *m.max_fragment_id));
  }
  m.transaction_file = proto.transaction_file();
  m.timestamp_nanos = proto.timestamp().seconds() * 1'000'000'000 + proto.timestamp().nanos();
  m.writer_library = proto.writer_version().library();
  m.writer_version = proto.writer_version().version();
  m.next_row_id = proto.next_row_id();
  m.config.insert(proto.config().begin(), proto.config().end());
  m.table_metadata.insert(proto.table_metadata().begin(), proto.table_metadata().end());
  for (const auto& b : proto.base_paths()) {
    BasePath base;
    base.id = b.id();
    if (b.has_name()) base.name = b.name();
    base.is_dataset_root = b.is_dataset_root();
    base.path = b.path();
    m.base_paths.push_back(std::move(base));
  }
  if (proto.has_branch()) m.branch = proto.branch();

  if (proto.has_index_section()) {
    OG_ASSIGN_OR_RETURN(std::string_view section,
                        ReadSection(bytes, proto.index_section(), position, "index", path));
    m.index_section = std::string(section);
  }
  if (proto.has_transaction_section()) {
    OG_ASSIGN_OR_RETURN(std::string_view section,
                        ReadSection(bytes, proto.transaction_section(), position, "transaction", path));
    file.transaction_section = std::string(section);
  }
  return file;
}

Status CheckWriterFlags(const Manifest& manifest, std::string_view path) {
  if (uint64_t unknown = manifest.writer_feature_flags & ~kSupportedWriterFlags; unknown != 0) {
    return Unsupported(fmt::format("{}: writer feature flags {:#x} are not supported; refusing to commit", path, unknown));
  }
  return Status::OK();
}

}  // namespace omnigraph::lance
