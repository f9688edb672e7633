// DataFileReader: footer and metadata (one tail read), lazily parsed column
// metadata, one cached decoded page per leaf column, and reassembly of leaf
// levels into the top-level field's Arrow array (docs/lance-file-encoding.md
// §1, §3.4); blob v2 columns decode their descriptors and fetch the payloads
// (blob_v2.h).

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <google/protobuf/arena.h>

#include "columnar/blob_cell.h"
#include "encodings21.pb.h"
#include "file.pb.h"
#include "file2.pb.h"
#include "lance/blob_v2.h"
#include "lance/data_file.h"
#include "lance/data_file_format.h"
#include "lance/file_layout.h"
#include "lance/page_decoder.h"
#include "lance/proto_convert.h"
#include "lance/repdef.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

namespace pb = ::lance::encodings21;

// First read: the last 64 KiB usually hold the footer, the offset tables,
// the column metadata and the FileDescriptor.
constexpr uint64_t kTailReadBytes = 64 * 1024;

struct PageRef {
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> sizes;
  uint64_t num_rows = 0;
  uint64_t first_row = 0;
  pb::PageLayout layout;
  std::optional<uint64_t> checksum;  // PageChecksum of the buffers (our files)
  std::vector<uint64_t> blob_checksums;  // blob descriptor pages of our files
};

struct Column {
  uint64_t meta_pos = 0, meta_size = 0;  // ColumnMetadata bytes in the file
  bool parsed = false;
  std::vector<PageRef> pages;
  int cached_page = -1;
  DecodedPage cached;
  std::vector<BlobDescriptor> blob_rows;  // the cached page of a blob column
};

// Parses a serialized google.protobuf.Any (1: type_url, 2: value) by hand:
// libprotobuf would log UTF-8 complaints for a corrupt type_url.
bool ParseAny(const std::string& bytes, std::string* type_url, std::string* value) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t size = bytes.size();
  size_t pos = 0;
  while (pos < size) {
    uint64_t key, n;
    if (!ReadProtoVarint(p, size, &pos, &key)) return false;
    if ((key & 7) != 2) {
      if (!SkipProtoField(p, size, &pos, key)) return false;
      continue;
    }
    if (!ReadProtoVarint(p, size, &pos, &n) || n > size - pos) return false;
    if (key >> 3 == 1) type_url->assign(bytes, pos, n);
    if (key >> 3 == 2) value->assign(bytes, pos, n);
    pos += n;
  }
  return true;
}

// `text` for an error message: at most 100 bytes, non-printable bytes as '?'.
std::string Printable(std::string_view text) {
  std::string out(text.substr(0, 100));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7E) c = '?';
  }
  return out;
}

class DataFileReaderImpl final : public DataFileReader {
 public:
  DataFileReaderImpl(std::unique_ptr<RandomAccessObject> file, ObjectStore* sidecars, std::string key)
      : file_(std::move(file)), sidecars_(sidecars), key_(std::move(key)) {
    where_ = fmt::format("data file '{}'", file_->path());
  }

  Status Open() {
    const uint64_t size = file_->size();
    if (size < kFooterBytes) {
      return CorruptData(fmt::format("{}: {} bytes is too short for a Lance file footer", where_, size));
    }
    uint64_t tail_start = size - std::min(size, kTailReadBytes);
    OG_ASSIGN_OR_RETURN(BufferPtr tail, file_->ReadAt(tail_start, size - tail_start));
    const uint8_t* footer = tail->data() + tail->size() - kFooterBytes;
    if (std::string_view(reinterpret_cast<const char*>(footer + 36), 4) != kFileMagic) {
      return CorruptData(fmt::format("{}: bad magic at the end of the file", where_));
    }
    uint64_t column_meta_start = LoadLE<uint64_t>(footer);
    uint64_t cmo_pos = LoadLE<uint64_t>(footer + 8);
    uint64_t gbo_pos = LoadLE<uint64_t>(footer + 16);
    uint32_t num_global = LoadLE<uint32_t>(footer + 24);
    uint32_t num_columns = LoadLE<uint32_t>(footer + 28);
    uint16_t major = LoadLE<uint16_t>(footer + 32);
    uint16_t minor = LoadLE<uint16_t>(footer + 34);
    if (major != kFormatMajor || minor < kFormatMinorMin || minor > kFormatMinorMax) {
      return Unsupported(
          fmt::format("{}: file format version {}.{} (only 2.1 and 2.2 are supported)", where_, major, minor));
    }
    const uint64_t body_end = size - kFooterBytes;
    if (num_global == 0) return CorruptData(fmt::format("{}: no global buffers", where_));
    if (gbo_pos > body_end || uint64_t{num_global} * 16 > body_end - gbo_pos) {
      return CorruptData(fmt::format("{}: global buffer table at {} runs past the footer", where_, gbo_pos));
    }
    if (cmo_pos > gbo_pos || uint64_t{num_columns} * 16 > gbo_pos - cmo_pos) {
      return CorruptData(
          fmt::format("{}: column metadata table at {} does not fit before {}", where_, cmo_pos, gbo_pos));
    }
    if (column_meta_start > cmo_pos) {
      return CorruptData(
          fmt::format("{}: column metadata starts at {}, after its table at {}", where_, column_meta_start, cmo_pos));
    }
    data_end_ = column_meta_start;
    // Metadata region: column metadata, tables, footer.
    if (column_meta_start < tail_start) {
      OG_ASSIGN_OR_RETURN(tail, file_->ReadAt(column_meta_start, size - column_meta_start));
      tail_start = column_meta_start;
    }
    meta_ = tail;
    meta_start_ = tail_start;

    // Column metadata positions.
    columns_.resize(num_columns);
    bool any_column_checksum = false;
    for (uint32_t c = 0; c < num_columns; ++c) {
      uint64_t pos = LoadLE<uint64_t>(Meta(cmo_pos + 16 * c));
      uint64_t length = LoadLE<uint64_t>(Meta(cmo_pos + 16 * c + 8));
      if (pos < column_meta_start || pos > cmo_pos || length > cmo_pos - pos) {
        return CorruptData(fmt::format("{}: column {} metadata [{}, +{}) lies outside [{}, {})", where_, c, pos, length,
                                       column_meta_start, cmo_pos));
      }
      columns_[c].meta_pos = pos;
      columns_[c].meta_size = length;
      if (!any_column_checksum) {
        std::string_view blob(reinterpret_cast<const char*>(Meta(pos)), length);
        any_column_checksum = CheckTrailingChecksum(blob) == ChecksumState::kValid;
      }
    }

    // Global buffer 0: the FileDescriptor.
    uint64_t gb_pos = LoadLE<uint64_t>(Meta(gbo_pos));
    uint64_t gb_size = LoadLE<uint64_t>(Meta(gbo_pos + 8));
    if (gb_pos > body_end || gb_size > body_end - gb_pos) {
      return CorruptData(fmt::format("{}: file descriptor [{}, +{}) lies outside the file", where_, gb_pos, gb_size));
    }
    BufferPtr descriptor_bytes;
    if (gb_pos >= meta_start_) {
      descriptor_bytes = meta_->Slice(gb_pos - meta_start_, gb_size);
    } else {
      OG_ASSIGN_OR_RETURN(descriptor_bytes, file_->ReadAt(gb_pos, gb_size));
    }
    // Our files carry checksums in the descriptor and every column metadata
    // blob; either being valid marks the file as ours, so damage to one
    // checksum field cannot switch verification off.
    ChecksumState descriptor_state =
        CheckTrailingChecksum(descriptor_bytes->view(), DataFileChecksumSeed(file_->path()));
    if (descriptor_state == ChecksumState::kMismatch &&
        CheckTrailingChecksum(descriptor_bytes->view()) == ChecksumState::kValid) {
      descriptor_state = ChecksumState::kValid;  // written before checksums were seeded by name
    }
    if (descriptor_state == ChecksumState::kMismatch) {
      return CorruptData(fmt::format(
          "{}: file descriptor checksum does not match its bytes (damaged, or another data file under this name)",
          where_));
    }
    ours_ = descriptor_state == ChecksumState::kValid || any_column_checksum;
    if (ours_ && descriptor_state != ChecksumState::kValid) {
      return CorruptData(fmt::format("{}: file descriptor lacks its checksum", where_));
    }
    OG_RETURN_IF_ERROR(ReadLayout(descriptor_bytes->view()));
    if (static_cast<uint64_t>(layout_->total_columns) != num_columns) {
      return CorruptData(fmt::format("{}: schema has {} leaf fields but the file has {} columns", where_,
                                     layout_->total_columns, num_columns));
    }
    return Status::OK();
  }

  uint64_t num_rows() const override { return num_rows_; }
  const SchemaPtr& schema() const override { return layout_->schema; }

  Result<ArrayPtr> ReadField(int32_t field_id, uint64_t start, uint64_t count) override {
    auto it = layout_->top_by_id.find(field_id);
    if (it == layout_->top_by_id.end()) {
      return NotFound(fmt::format("{}: no top-level field with id {}", where_, field_id));
    }
    const TopField& top = layout_->top_fields[static_cast<size_t>(it->second)];
    if (top.field == nullptr) return top.unsupported;
    if (start > num_rows_ || count > num_rows_ - start) {
      return InvalidArgument(
          fmt::format("{}: rows [{}, {}) are outside the file's {} rows", where_, start, start + count, num_rows_));
    }
    if (top.blob) return ReadBlob(top.first_column, start, count);
    std::vector<std::vector<StepArrays>> steps(static_cast<size_t>(top.num_columns));
    std::vector<LeafValues> values;
    values.reserve(static_cast<size_t>(top.num_columns));
    for (int i = 0; i < top.num_columns; ++i) {
      values.emplace_back(top.paths[static_cast<size_t>(i)].shape);
      LevelAssembler assembler(&top.paths[static_cast<size_t>(i)]);
      OG_RETURN_IF_ERROR(
          ReadLeaf(top.first_column + i, top.paths[static_cast<size_t>(i)], start, count, &assembler, &values.back()));
      steps[static_cast<size_t>(i)] = std::move(assembler.Finish());
    }
    Builder builder{this, &steps, &values};
    return builder.Build(*top.field, 0, 0, top.num_columns, static_cast<int64_t>(count));
  }

 private:
  const uint8_t* Meta(uint64_t file_offset) const { return meta_->data() + (file_offset - meta_start_); }

  // Bytes [offset, offset + length) of the file. The tail read at open
  // covers the whole of a small file (one fragment per inserted row, before
  // compaction), so its pages are served from memory instead of re-read.
  Result<BufferPtr> ReadBytes(uint64_t offset, uint64_t length) {
    if (offset >= meta_start_ && length <= meta_->size() && offset - meta_start_ <= meta_->size() - length) {
      return meta_->Slice(offset - meta_start_, length);
    }
    return file_->ReadAt(offset, length);
  }

  // Sets num_rows_ and layout_ from the serialized FileDescriptor.
  Status ReadLayout(std::string_view descriptor_bytes) {
    return ReadFileLayout(descriptor_bytes, where_, &num_rows_, &layout_);
  }
  Status ParseColumn(int index, Column* column) {
    // Formatted only for an error: a small file's columns are parsed once
    // each, and most reads never fail.
    auto where = [&] { return fmt::format("{}: column {}", where_, index); };
    std::string_view meta_bytes(reinterpret_cast<const char*>(Meta(column->meta_pos)), column->meta_size);
    ChecksumState state = CheckTrailingChecksum(meta_bytes);
    if (state == ChecksumState::kMismatch) {
      return CorruptData(fmt::format("{}: column metadata checksum does not match its bytes", where()));
    }
    if (state == ChecksumState::kAbsent && ours_) {
      return CorruptData(fmt::format("{}: column metadata lacks its checksum", where()));
    }
    // The parsed message is scratch: an arena frees its tree at once.
    alignas(8) char initial_block[4096];
    google::protobuf::ArenaOptions arena_options;
    arena_options.initial_block = initial_block;
    arena_options.initial_block_size = sizeof(initial_block);
    google::protobuf::Arena arena(arena_options);
    auto& meta = *google::protobuf::Arena::CreateMessage<::lance::file::v2::ColumnMetadata>(&arena);
    if (!ParseMessage(meta_bytes, &meta)) {
      return CorruptData(fmt::format("{}: undecodable column metadata", where()));
    }
    if (meta.has_encoding()) {
      const auto& encoding = meta.encoding();
      if (!encoding.has_direct()) return Unsupported(fmt::format("{}: deferred or empty column encoding", where()));
      std::string type_url, value;
      if (!ParseAny(encoding.direct().encoding(), &type_url, &value)) {
        return CorruptData(fmt::format("{}: undecodable column encoding", where()));
      }
      if (type_url != kColumnEncodingTypeUrl) {
        return Unsupported(fmt::format("{}: column encoding '{}'", where(), Printable(type_url)));
      }
      pb::ColumnEncoding column_encoding;
      if (!ParseMessage(value, &column_encoding)) {
        return CorruptData(fmt::format("{}: undecodable column encoding", where()));
      }
      if (column_encoding.column_encoding_case() == pb::ColumnEncoding::kBlob) {
        return Unsupported(fmt::format("{}: blob column encoding", where()));
      }
      if (column_encoding.column_encoding_case() == pb::ColumnEncoding::kZoneIndex) {
        return Unsupported(fmt::format("{}: zone-index column encoding", where()));
      }
    }
    uint64_t row = 0;
    column->pages.resize(static_cast<size_t>(meta.pages_size()));
    for (int p = 0; p < meta.pages_size(); ++p) {
      const auto& page = meta.pages(p);
      PageRef& ref = column->pages[static_cast<size_t>(p)];
      if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
        return CorruptData(fmt::format("{} page {}: {} buffer offsets but {} sizes", where(), p,
                                       page.buffer_offsets_size(), page.buffer_sizes_size()));
      }
      for (int b = 0; b < page.buffer_offsets_size(); ++b) {
        uint64_t offset = page.buffer_offsets(b), size = page.buffer_sizes(b);
        if (offset > data_end_ || size > data_end_ - offset) {
          return CorruptData(fmt::format("{} page {}: buffer {} [{}, +{}) lies outside the data region of {} bytes",
                                         where(), p, b, offset, size, data_end_));
        }
        ref.offsets.push_back(offset);
        ref.sizes.push_back(size);
      }
      if (page.has_checksum()) ref.checksum = page.checksum();
      ref.blob_checksums.assign(page.blob_payload_checksums().begin(), page.blob_payload_checksums().end());
      if (ours_ && !ref.checksum) return CorruptData(fmt::format("{} page {}: page lacks its checksum", where(), p));
      ref.num_rows = page.length();
      ref.first_row = row;
      if (ref.num_rows > num_rows_ - row) {
        return CorruptData(fmt::format("{}: pages hold more than the file's {} rows", where(), num_rows_));
      }
      row += ref.num_rows;
      if (!page.encoding().has_direct())
        return Unsupported(fmt::format("{} page {}: non-direct page encoding", where(), p));
      std::string type_url, value;
      if (!ParseAny(page.encoding().direct().encoding(), &type_url, &value)) {
        return CorruptData(fmt::format("{} page {}: undecodable page encoding", where(), p));
      }
      if (type_url != kPageLayoutTypeUrl) {
        return Unsupported(
            fmt::format("{} page {}: page encoding '{}' (not a 2.1 page layout)", where(), p, Printable(type_url)));
      }
      if (!ParseMessage(value, &ref.layout)) {
        return CorruptData(fmt::format("{} page {}: undecodable page layout", where(), p));
      }
    }
    if (row != num_rows_) {
      return CorruptData(fmt::format("{}: pages hold {} rows, the file has {}", where(), row, num_rows_));
    }
    // Empty pages hold no rows; dropping them keeps the page search simple.
    column->pages.erase(
        std::remove_if(column->pages.begin(), column->pages.end(), [](const PageRef& p) { return p.num_rows == 0; }),
        column->pages.end());
    column->parsed = true;
    return Status::OK();
  }

  Result<const DecodedPage*> Page(int column_index, const LeafPath& path, int page_index) {
    Column& column = columns_[static_cast<size_t>(column_index)];
    if (column.cached_page == page_index) return &column.cached;
    column.cached_page = -1;
    const PageRef& ref = column.pages[static_cast<size_t>(page_index)];
    std::string where = fmt::format("{}: column {} page {}", where_, column_index, page_index);
    const size_t count = ref.offsets.size();
    std::vector<BufferPtr> buffers(count);
    if (count > 1) {
      // Buffers of a page normally lie back to back: fetch them in one read.
      uint64_t begin = *std::min_element(ref.offsets.begin(), ref.offsets.end());
      uint64_t end = 0, total = 0;
      for (size_t b = 0; b < count; ++b) {
        end = std::max(end, ref.offsets[b] + ref.sizes[b]);
        total += ref.sizes[b];
      }
      if (end - begin <= total + kBufferAlignment * count) {
        OG_ASSIGN_OR_RETURN(BufferPtr span, ReadBytes(begin, end - begin));
        for (size_t b = 0; b < count; ++b) buffers[b] = span->Slice(ref.offsets[b] - begin, ref.sizes[b]);
      }
    }
    auto read = [&](size_t b) -> Result<BufferPtr> {
      if (b >= count) return CorruptData(fmt::format("{}: buffer {} is missing", where, b));
      if (!buffers[b]) {
        OG_ASSIGN_OR_RETURN(buffers[b], ReadBytes(ref.offsets[b], ref.sizes[b]));
      }
      return buffers[b];
    };
    if (ref.checksum) {
      std::vector<std::string_view> views;
      for (size_t b = 0; b < count; ++b) {
        OG_ASSIGN_OR_RETURN(BufferPtr buffer, read(b));
        views.push_back(buffer->view());
      }
      if (PageChecksum(views) != *ref.checksum) {
        return CorruptData(fmt::format("{}: page checksum does not match its bytes", where));
      }
    }
    OG_RETURN_IF_ERROR(DecodePage(ref.layout, path, ref.num_rows, ref.sizes, read, &column.cached, where));
    column.cached_page = page_index;
    return &column.cached;
  }

  // Rows [start, start + count) of the blob v2 descriptor column
  // `column_index` as cells (blob_v2.h).
  Result<ArrayPtr> ReadBlob(int column_index, uint64_t start, uint64_t count) {
    Column& column = columns_[static_cast<size_t>(column_index)];
    if (!column.parsed) OG_RETURN_IF_ERROR(ParseColumn(column_index, &column));
    BlobPayloadSource source;
    source.read_file = [this](uint64_t offset, uint64_t length) { return ReadBytes(offset, length); };
    if (sidecars_ != nullptr) {
      source.read_sidecar = [this](uint32_t blob_id, uint64_t offset, uint64_t length) -> Result<BufferPtr> {
        const std::string sidecar = BlobSidecarPath(key_, blob_id);
        auto bytes = sidecars_->GetRange(sidecar, offset, length);
        // A missing sidecar is damage to the dataset, not a missing field.
        if (!bytes.ok() && bytes.status().code() == ErrorCode::kNotFound) {
          return CorruptData(fmt::format("{}: blob sidecar '{}' is missing", where_, sidecar));
        }
        return bytes;
      };
    }
    source.data_end = data_end_;
    BinaryBuilder cells(DataType::LargeBinary());
    cells.Reserve(static_cast<int64_t>(count));
    uint64_t row = start;
    const uint64_t end = start + count;
    while (row < end) {
      auto it = std::upper_bound(column.pages.begin(), column.pages.end(), row,
                                 [](uint64_t r, const PageRef& p) { return r < p.first_row; });
      const int page_index = static_cast<int>(it - column.pages.begin()) - 1;
      const PageRef& ref = column.pages[static_cast<size_t>(page_index)];
      const std::string where = fmt::format("{}: column {} page {}", where_, column_index, page_index);
      if (column.cached_page != page_index) {
        column.cached_page = -1;
        std::vector<BufferPtr> buffers(ref.offsets.size());
        std::vector<std::string_view> views;
        for (size_t b = 0; b < buffers.size(); ++b) {
          OG_ASSIGN_OR_RETURN(buffers[b], ReadBytes(ref.offsets[b], ref.sizes[b]));
          views.push_back(buffers[b]->view());
        }
        if (ref.checksum && PageChecksum(views) != *ref.checksum) {
          return CorruptData(fmt::format("{}: page checksum does not match its bytes", where));
        }
        if (ours_ && ref.blob_checksums.size() != ref.num_rows) {
          return CorruptData(fmt::format("{}: blob page has {} payload checksums for {} rows", where,
                                         ref.blob_checksums.size(), ref.num_rows));
        }
        auto read = [&](size_t b) -> Result<BufferPtr> {
          if (b >= buffers.size()) return CorruptData(fmt::format("{}: buffer {} is missing", where, b));
          return buffers[b];
        };
        OG_RETURN_IF_ERROR(DecodeBlobPage(ref.layout, ref.num_rows, ref.sizes, read, &column.blob_rows, where));
        column.cached_page = page_index;
      }
      const uint64_t r0 = row - ref.first_row;
      const uint64_t r1 = std::min(ref.num_rows, end - ref.first_row);
      OG_RETURN_IF_ERROR(AppendBlobCells(column.blob_rows, r0, r1, ours_ ? ref.blob_checksums : std::vector<uint64_t>{},
                                         source, &cells, where));
      row += r1 - r0;
    }
    return cells.Finish();
  }

  // Feeds rows [start, start + count) of one leaf column to `assembler`
  // and its visible values to `values`.
  Status ReadLeaf(int column_index, const LeafPath& path, uint64_t start, uint64_t count, LevelAssembler* assembler,
                  LeafValues* values) {
    Column& column = columns_[static_cast<size_t>(column_index)];
    if (!column.parsed) OG_RETURN_IF_ERROR(ParseColumn(column_index, &column));
    uint64_t row = start;
    const uint64_t end = start + count;
    while (row < end) {
      auto it = std::upper_bound(column.pages.begin(), column.pages.end(), row,
                                 [](uint64_t r, const PageRef& p) { return r < p.first_row; });
      int page_index = static_cast<int>(it - column.pages.begin()) - 1;
      OG_ASSIGN_OR_RETURN(const DecodedPage* page, Page(column_index, path, page_index));
      const PageRef& ref = column.pages[static_cast<size_t>(page_index)];
      uint64_t r0 = row - ref.first_row;
      uint64_t r1 = std::min(ref.num_rows, end - ref.first_row);
      std::string_view where = where_;
      if (page->all_null_rows) {
        static const uint16_t kNull = 1;
        std::vector<uint16_t> def(r1 - r0, kNull);
        OG_ASSIGN_OR_RETURN(uint64_t slots, assembler->Consume(page->layers, nullptr, def.data(), def.size(), where));
        values->AppendNulls(slots);
      } else {
        uint64_t l0 = page->RowLevel(r0), l1 = page->RowLevel(r1);
        uint64_t v0 = page->RowValue(r0), v1 = page->RowValue(r1);
        const uint16_t* rep = page->rep.empty() ? nullptr : page->rep.data() + l0;
        const uint16_t* def = page->def.empty() ? nullptr : page->def.data() + l0;
        OG_ASSIGN_OR_RETURN(uint64_t slots, assembler->Consume(page->layers, rep, def, l1 - l0, where));
        if (slots != v1 - v0) {
          return CorruptData(fmt::format("{}: column {} rows [{}, {}) have {} leaf slots but {} values", where_,
                                         column_index, row, row + (r1 - r0), slots, v1 - v0));
        }
        if (values->count() == 0 && v0 == 0 && v1 == page->values.count()) {
          // The read takes the whole page: move its values instead of
          // copying them, and drop the page from the cache it leaves empty.
          std::swap(*values, column.cached.values);
          column.cached_page = -1;
        } else {
          values->AppendRange(page->values, v0, v1 - v0);
        }
      }
      row += r1 - r0;
    }
    return Status::OK();
  }

  // Assembles Arrow arrays top-down from the per-leaf step arrays.
  struct Builder {
    DataFileReaderImpl* reader;
    std::vector<std::vector<StepArrays>>* steps;
    std::vector<LeafValues>* values;

    static BufferPtr Validity(StepArrays& s) {
      if (s.null_count == 0) return nullptr;
      std::vector<uint8_t> bits = std::move(s.validity.mutable_bytes());
      bits.resize(static_cast<size_t>(BitmapBytes(s.length)), 0);
      return Buffer::FromVector(std::move(bits));
    }

    // `length` is the slot count of the parent, used only for structs
    // without leaves (which have no levels of their own).
    Result<ArrayPtr> Build(const Field& field, int step, int leaf_begin, int leaf_end, int64_t length) {
      const std::string& where = reader->where_;
      if (leaf_begin == leaf_end) {
        // Only structs without members (and lists of them) have no leaves,
        // so no levels: all-valid empty structs; such lists read as nulls.
        if (field.type->id() == TypeId::kStruct && field.type->children().empty()) {
          return std::make_shared<const Array>(field.type, length, 0, nullptr, nullptr, nullptr,
                                               std::vector<ArrayPtr>{});
        }
        return MakeNullArray(field.type, length);
      }
      StepArrays& s = (*steps)[static_cast<size_t>(leaf_begin)][static_cast<size_t>(step)];
      switch (field.type->id()) {
        case TypeId::kStruct: {
          std::vector<ArrayPtr> children;
          int leaf = leaf_begin;
          for (const Field& member : field.type->children()) {
            int n = CountLeaves(member);
            OG_ASSIGN_OR_RETURN(ArrayPtr child, Build(member, step + 1, leaf, leaf + n, s.length));
            if (child->length() != s.length) {
              return CorruptData(fmt::format("{}: struct '{}' has {} rows but member '{}' has {}", where, field.name,
                                             s.length, member.name, child->length()));
            }
            children.push_back(std::move(child));
            leaf += n;
          }
          int64_t nulls = s.null_count;
          return std::make_shared<const Array>(field.type, s.length, nulls, Validity(s), nullptr, nullptr,
                                               std::move(children));
        }
        case TypeId::kList: {
          OG_ASSIGN_OR_RETURN(ArrayPtr child, Build(field.type->item(), step + 1, leaf_begin, leaf_end, 0));
          if (s.offsets.size() != static_cast<size_t>(s.length) + 1 || s.offsets.back() != child->length()) {
            return CorruptData(
                fmt::format("{}: list '{}' offsets do not match its {} items", where, field.name, child->length()));
          }
          if (child->length() > std::numeric_limits<int32_t>::max()) {
            return InvalidArgument(fmt::format("{}: list '{}' window holds {} items, more than a List can address",
                                               where, field.name, child->length()));
          }
          std::vector<uint8_t> offsets(s.offsets.size() * 4);
          for (size_t i = 0; i < s.offsets.size(); ++i) {
            StoreLE<int32_t>(offsets.data() + 4 * i, static_cast<int32_t>(s.offsets[i]));
          }
          int64_t nulls = s.null_count;
          return std::make_shared<const Array>(field.type, s.length, nulls, Validity(s),
                                               Buffer::FromVector(std::move(offsets)), nullptr,
                                               std::vector<ArrayPtr>{std::move(child)});
        }
        default: {
          LeafValues& leaf_values = (*values)[static_cast<size_t>(leaf_begin)];
          if (leaf_values.count() != static_cast<uint64_t>(s.length)) {
            return CorruptData(fmt::format("{}: field '{}' has {} slots but {} values", where, field.name, s.length,
                                           leaf_values.count()));
          }
          int64_t nulls = s.null_count;
          return leaf_values.Finish(field.type, Validity(s), nulls);
        }
      }
    }
  };

  std::unique_ptr<RandomAccessObject> file_;
  ObjectStore* sidecars_ = nullptr;  // the store holding the file, for blob sidecars
  std::string key_;                   // the file's key in sidecars_
  std::string where_;
  uint64_t num_rows_ = 0;
  uint64_t data_end_ = 0;
  BufferPtr meta_;
  uint64_t meta_start_ = 0;
  FileLayoutPtr layout_;
  std::vector<Column> columns_;
  bool ours_ = false;  // the FileDescriptor carries a valid checksum
};

}  // namespace

uint64_t DataFileChecksumSeed(std::string_view path) {
  size_t slash = path.rfind('/');
  return Checksum64(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Result<std::unique_ptr<DataFileReader>> DataFileReader::Open(std::unique_ptr<RandomAccessObject> file,
                                                           ObjectStore* sidecars, std::string key) {
  if (!file) return InvalidArgument("DataFileReader::Open: no file");
  if (sidecars != nullptr && key.empty()) key = file->path();
  auto reader = std::make_unique<DataFileReaderImpl>(std::move(file), sidecars, std::move(key));
  OG_RETURN_IF_ERROR(reader->Open());
  return std::unique_ptr<DataFileReader>(std::move(reader));
}

}  // namespace omnigraph::lance
