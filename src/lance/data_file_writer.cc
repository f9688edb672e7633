// DataFileWriter: shreds record batches into leaf columns, cuts pages per
// column by size and row count, encodes them (page_encoder.h) and streams
// the buffers to the object store; Finish() appends the FileDescriptor,
// column metadata, offset tables and footer (docs/lance-file-encoding.md §1).
// A blob v2 field is one descriptor column whose payloads are streamed to
// the file as its rows arrive (blob_v2.h).

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "columnar/blob_cell.h"
#include "encodings21.pb.h"
#include "file.pb.h"
#include "file2.pb.h"
#include "lance/blob_v2.h"
#include "lance/data_file.h"
#include "lance/data_file_format.h"
#include "lance/page_encoder.h"
#include "lance/proto_convert.h"
#include "lance/repdef.h"
#include "util/endian.h"

namespace omnigraph::lance {
namespace {

// Pages of one leaf column written so far.
struct PageRecord {
  std::vector<uint64_t> offsets;
  std::vector<uint64_t> sizes;
  uint64_t num_rows = 0;
  uint64_t first_row = 0;
  std::string layout;
  uint64_t checksum = 0;  // PageChecksum of the buffers
  std::vector<uint64_t> blob_checksums;  // blob pages: one per row
};

struct LeafColumn {
  LeafPath path;
  int top_index = 0;  // column of the record batch
  std::string name;   // for messages
  std::unique_ptr<ShreddedPage> page;
  std::vector<PageRecord> pages;
  uint64_t rows_flushed = 0;
  // A blob v2 field's descriptor column (then `path` is unused).
  bool blob = false;
  int32_t field_id = -1;
  bool nullable = true;
  std::unique_ptr<BlobPageBuilder> blob_page;
};

std::string SerializeEncoding(std::string_view type_url, const std::string& value) {
  ::lance::wire::Any any;
  any.set_type_url(std::string(type_url));
  any.set_value(value);
  ::lance::file::v2::Encoding encoding;
  encoding.mutable_direct()->set_encoding(any.SerializeAsString());
  return encoding.SerializeAsString();
}

class DataFileWriterImpl final : public DataFileWriter {
 public:
  DataFileWriterImpl(std::string path, SchemaPtr schema, DataFileWriterOptions options,
                     std::unique_ptr<ObjectWriter> out, std::vector<LeafColumn> columns, std::string descriptor_schema)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        options_(options),
        out_(std::move(out)),
        columns_(std::move(columns)),
        descriptor_schema_(std::move(descriptor_schema)) {
    for (LeafColumn& c : columns_) {
      if (c.blob) {
        c.blob_page = std::make_unique<BlobPageBuilder>();
      } else {
        c.page = std::make_unique<ShreddedPage>(&c.path);
      }
    }
    // The column encoding is the same for every column (§1.2).
    ::lance::encodings21::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    column_encoding_ = SerializeEncoding(kColumnEncodingTypeUrl, column_encoding.SerializeAsString());
  }

  Status Write(const RecordBatch& batch) override {
    OG_RETURN_IF_ERROR(CheckUsable());
    if (batch.num_columns() != schema_->num_fields() || !batch.schema()->Equals(*schema_, /*compare_ids=*/false)) {
      return InvalidArgument(fmt::format("data file '{}': batch schema {} does not match the file schema {}", path_,
                                         batch.schema()->ToString(), schema_->ToString()));
    }
    if (batch.num_rows() == 0) return Status::OK();
    for (int c = 0; c < batch.num_columns(); ++c) {
      const ArrayPtr& array = batch.column(c);
      if (!array || array->length() != batch.num_rows()) {
        return InvalidArgument(fmt::format("data file '{}': column '{}' does not hold {} rows", path_,
                                           schema_->field(c).name, batch.num_rows()));
      }
    }
    for (LeafColumn& column : columns_) {
      Status st = Feed(&column, *batch.column(column.top_index));
      if (!st.ok()) {
        // Some columns may hold rows of this batch already: refuse more use.
        failed_ = st;
        return st;
      }
    }
    rows_written_ += static_cast<uint64_t>(batch.num_rows());
    return Status::OK();
  }

  uint64_t rows_written() const override { return rows_written_; }

  Result<WrittenDataFile> Finish() override {
    OG_RETURN_IF_ERROR(CheckUsable());
    finished_ = true;
    Status st = FinishImpl();
    if (!st.ok()) {
      failed_ = st;
      return st;
    }
    WrittenDataFile result;
    result.path = path_;
    result.num_rows = rows_written_;
    result.file_size_bytes = position_;
    for (size_t i = 0; i < columns_.size(); ++i) {
      result.fields.push_back(columns_[i].blob ? columns_[i].field_id : columns_[i].path.leaf_field_id);
      result.column_indices.push_back(static_cast<int32_t>(i));
    }
    result.file_minor_version = FileMinorVersion(options_.version);
    return result;
  }

 private:
  Status CheckUsable() const {
    if (!failed_.ok()) return failed_;
    if (finished_) return InvalidArgument(fmt::format("data file '{}' is already finished", path_));
    return Status::OK();
  }

  // Writes the payloads of all rows of blob column `array` to the file and
  // records their descriptors, cutting pages on the way.
  Status FeedBlob(LeafColumn* column, const Array& array) {
    BlobPageBuilder& page = *column->blob_page;
    for (int64_t i = 0; i < array.length(); ++i) {
      if (page.num_rows() > 0 &&
          (page.num_rows() >= options_.max_rows_per_page || page.buffered_bytes() >= options_.page_bytes)) {
        OG_RETURN_IF_ERROR(FlushPage(column));
      }
      if (array.IsNull(i)) {
        if (!column->nullable) {
          return InvalidArgument(fmt::format("data file '{}': column '{}' is not nullable but holds a null", path_,
                                             column->name));
        }
        page.AppendNull();
        continue;
      }
      BlobCell cell = DecodeBlobCell(array.GetView(i));
      if (cell.external) {
        page.AppendExternal(cell.payload);
        continue;
      }
      // Lance reads an inline descriptor at position 0 with size 0 as NULL:
      // an empty payload never points at the first byte of the file.
      const uint64_t position = cell.payload.empty() ? std::max<uint64_t>(position_, 1) : position_;
      OG_RETURN_IF_ERROR(WriteRaw(cell.payload.data(), cell.payload.size()));
      page.AppendInline(position, cell.payload.size(), Checksum64(cell.payload));
    }
    return Status::OK();
  }

  // Shreds all rows of `array` into the column, cutting pages on the way.
  Status Feed(LeafColumn* column, const Array& array) {
    if (column->blob) return FeedBlob(column, array);
    ShreddedPage& page = *column->page;
    const int64_t rows = array.length();
    int64_t at = 0;
    while (at < rows) {
      uint64_t buffered = page.buffered_bytes();
      uint64_t room_rows =
          options_.max_rows_per_page > page.num_rows() ? options_.max_rows_per_page - page.num_rows() : 0;
      if (room_rows == 0 || (page.num_rows() > 0 && buffered >= options_.page_bytes)) {
        OG_RETURN_IF_ERROR(FlushPage(column));
        continue;
      }
      uint64_t room_bytes = options_.page_bytes > buffered ? options_.page_bytes - buffered : 0;
      int64_t take = static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(rows - at), room_rows));
      if (page.EstimateBytes(array, at, at + take) > room_bytes) {
        // Largest row count that still fits the page.
        int64_t lo = 0, hi = take;
        while (lo < hi) {
          int64_t mid = lo + (hi - lo + 1) / 2;
          if (page.EstimateBytes(array, at, at + mid) <= room_bytes) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        if (lo == 0) {
          if (page.num_rows() > 0) {
            OG_RETURN_IF_ERROR(FlushPage(column));
            continue;
          }
          lo = 1;  // a single row larger than a page gets a page of its own
        }
        take = lo;
      }
      OG_RETURN_IF_ERROR(page.Append(array, at, take, column->name));
      at += take;
      if (page.num_rows() >= options_.max_rows_per_page || page.buffered_bytes() >= options_.page_bytes) {
        OG_RETURN_IF_ERROR(FlushPage(column));
      }
    }
    return Status::OK();
  }

  Status FlushPage(LeafColumn* column) {
    if (column->blob) {
      if (column->blob_page->num_rows() == 0) return Status::OK();
      encoded_.resize(1);
      std::vector<uint64_t> checksums;
      column->blob_page->Finish(&encoded_[0], &checksums);
      return WritePages(column, std::move(checksums));
    }
    ShreddedPage& page = *column->page;
    if (page.num_rows() == 0) return Status::OK();
    page.Finalize();
    PageInput input;
    input.path = &column->path;
    input.layers = &page.layers();
    input.rep = page.rep().empty() ? nullptr : page.rep().data();
    input.def = page.def().empty() ? nullptr : page.def().data();
    input.level_begin = 0;
    input.level_end = page.num_levels();
    input.values = &page.values();
    input.value_begin = 0;
    input.value_end = page.values().count();
    input.num_rows = page.num_rows();
    input.non_null_values = page.non_null_values();
    input.version = options_.version;
    OG_RETURN_IF_ERROR(EncodePage(input, &encoded_, column->name));
    OG_RETURN_IF_ERROR(WritePages(column, {}));
    page.Clear();
    return Status::OK();
  }

  // Writes the buffers of the pages in encoded_ and records them.
  Status WritePages(LeafColumn* column, std::vector<uint64_t> blob_checksums) {
    for (EncodedPage& e : encoded_) {
      PageRecord record;
      record.num_rows = e.num_rows;
      record.first_row = column->rows_flushed;
      record.layout = e.layout;
      std::vector<std::string_view> views;
      for (const std::vector<uint8_t>& buffer : e.buffers) {
        OG_ASSIGN_OR_RETURN(uint64_t offset, WriteAligned(buffer.data(), buffer.size()));
        record.offsets.push_back(offset);
        record.sizes.push_back(buffer.size());
        views.emplace_back(reinterpret_cast<const char*>(buffer.data()), buffer.size());
      }
      record.checksum = PageChecksum(views);
      record.blob_checksums = std::move(blob_checksums);
      column->rows_flushed += e.num_rows;
      column->pages.push_back(std::move(record));
    }
    return Status::OK();
  }

  Status WriteRaw(const void* data, size_t size) {
    if (size == 0) return Status::OK();
    Status st = out_->Write(data, size);
    if (!st.ok()) return st.WithContext(fmt::format("data file '{}'", path_));
    position_ += size;
    return Status::OK();
  }

  // Pads with zeros to the next 64-byte boundary, then writes; returns the
  // buffer's offset (aligned even for empty buffers).
  Result<uint64_t> WriteAligned(const void* data, size_t size) {
    static const uint8_t kZeros[kBufferAlignment] = {};
    uint64_t pad = (kBufferAlignment - position_ % kBufferAlignment) % kBufferAlignment;
    OG_RETURN_IF_ERROR(WriteRaw(kZeros, pad));
    uint64_t offset = position_;
    OG_RETURN_IF_ERROR(WriteRaw(data, size));
    return offset;
  }

  Status FinishImpl() {
    for (LeafColumn& column : columns_) OG_RETURN_IF_ERROR(FlushPage(&column));

    // Global buffer 0: the FileDescriptor.
    std::string descriptor = descriptor_schema_;
    {
      ::lance::file::FileDescriptor length_only;
      length_only.set_length(rows_written_);
      // Fields of one message may be serialized in any order; appending the
      // length after the schema bytes is a valid FileDescriptor encoding.
      descriptor += length_only.SerializeAsString();
      AppendChecksumField(&descriptor, 0, DataFileChecksumSeed(path_));
    }
    OG_ASSIGN_OR_RETURN(uint64_t descriptor_pos, WriteAligned(descriptor.data(), descriptor.size()));

    // Column metadata, back to back.
    uint64_t column_meta_start = position_;
    std::vector<std::pair<uint64_t, uint64_t>> column_positions;
    for (LeafColumn& column : columns_) {
      ::lance::file::v2::ColumnMetadata meta;
      if (!meta.mutable_encoding()->ParseFromString(column_encoding_)) return Internal("bad column encoding");
      for (PageRecord& record : column.pages) {
        auto* page = meta.add_pages();
        for (uint64_t o : record.offsets) page->add_buffer_offsets(o);
        for (uint64_t s : record.sizes) page->add_buffer_sizes(s);
        page->set_length(record.num_rows);
        if (!page->mutable_encoding()->ParseFromString(SerializeEncoding(kPageLayoutTypeUrl, record.layout))) {
          return Internal("bad page encoding");
        }
        page->set_priority(record.first_row);
        for (uint64_t c : record.blob_checksums) page->add_blob_payload_checksums(c);
        page->set_checksum(record.checksum);
      }
      std::string bytes = meta.SerializeAsString();
      AppendChecksumField(&bytes);
      column_positions.emplace_back(position_, bytes.size());
      OG_RETURN_IF_ERROR(WriteRaw(bytes.data(), bytes.size()));
      column.pages.clear();
    }

    std::vector<uint8_t> tail;
    uint64_t cmo_pos = position_;
    for (const auto& [pos, size] : column_positions) {
      AppendLE<uint64_t>(&tail, pos);
      AppendLE<uint64_t>(&tail, size);
    }
    uint64_t gbo_pos = cmo_pos + tail.size();
    AppendLE<uint64_t>(&tail, descriptor_pos);
    AppendLE<uint64_t>(&tail, descriptor.size());
    AppendLE<uint64_t>(&tail, column_meta_start);
    AppendLE<uint64_t>(&tail, cmo_pos);
    AppendLE<uint64_t>(&tail, gbo_pos);
    AppendLE<uint32_t>(&tail, 1);
    AppendLE<uint32_t>(&tail, static_cast<uint32_t>(columns_.size()));
    AppendLE<uint16_t>(&tail, kFormatMajor);
    AppendLE<uint16_t>(&tail, static_cast<uint16_t>(FileMinorVersion(options_.version)));
    AppendBytes(&tail, kFileMagic.data(), kFileMagic.size());
    OG_RETURN_IF_ERROR(WriteRaw(tail.data(), tail.size()));
    Status st = out_->Finish();
    if (!st.ok()) return st.WithContext(fmt::format("data file '{}'", path_));
    return Status::OK();
  }

  std::string path_;
  SchemaPtr schema_;
  DataFileWriterOptions options_;
  std::unique_ptr<ObjectWriter> out_;
  std::vector<LeafColumn> columns_;
  std::string descriptor_schema_;     // serialized FileDescriptor holding only the schema
  std::string column_encoding_;       // serialized Encoding of every column
  std::vector<EncodedPage> encoded_;  // reused across pages (buffer capacity)
  uint64_t position_ = 0;
  uint64_t rows_written_ = 0;
  Status failed_;
  bool finished_ = false;
};

}  // namespace

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(ObjectStore* store, const std::string& path,
                                                             SchemaPtr schema, DataFileWriterOptions options) {
  if (store == nullptr || !schema) return InvalidArgument(fmt::format("data file '{}': no store or schema", path));
  if (options.page_bytes == 0 || options.max_rows_per_page == 0) {
    return InvalidArgument(fmt::format("data file '{}': page limits must be positive", path));
  }
  ::lance::file::FileDescriptor descriptor;
  Status st = SchemaToProto(*schema, descriptor.mutable_schema()->mutable_fields(),
                            descriptor.mutable_schema()->mutable_metadata(), SchemaForm::kDataFile);
  if (!st.ok()) return st.WithContext(fmt::format("data file '{}'", path));
  std::vector<LeafColumn> columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    const Field& field = schema->field(i);
    if (IsBlobV2Field(field)) {
      if (options.version != FileVersion::kV2_2) {
        return InvalidArgument(
            fmt::format("data file '{}': blob field '{}' needs Lance file format 2.2", path, field.name));
      }
      LeafColumn column;
      column.blob = true;
      column.top_index = i;
      column.name = field.name;
      column.field_id = field.id;
      column.nullable = field.nullable;
      columns.push_back(std::move(column));
      continue;
    }
    std::vector<LeafPath> paths;
    st = CollectLeafPaths(field, &paths);
    if (!st.ok()) return st.WithContext(fmt::format("data file '{}'", path));
    for (LeafPath& leaf : paths) {
      LeafColumn column;
      column.path = std::move(leaf);
      column.top_index = i;
      column.name = field.name;
      columns.push_back(std::move(column));
    }
  }
  OG_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> out, store->OpenWriter(path, options.write));
  return std::unique_ptr<DataFileWriter>(new DataFileWriterImpl(path, std::move(schema), options, std::move(out),
                                                                std::move(columns), descriptor.SerializeAsString()));
}

}  // namespace omnigraph::lance
