#include "table/scanner.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "columnar/builder.h"
#include "lance/data_file.h"
#include "lance/versioning.h"
#include "table/internal.h"

namespace omnigraph::table {
namespace {

// Collects the ids of a field and all its descendants.
void CollectIds(const Field& field, std::vector<int32_t>* out) {
  out->push_back(field.id);
  if (field.type) {
    for (const Field& child : field.type->children()) CollectIds(child, out);
  }
}

// Same physical layout: type ids, list sizes and child layouts (names aside).
bool SameLayout(const DataType& a, const DataType& b) {
  if (a.id() != b.id() || a.list_size() != b.list_size() || a.children().size() != b.children().size()) return false;
  for (size_t i = 0; i < a.children().size(); ++i) {
    if (!SameLayout(*a.children()[i].type, *b.children()[i].type)) return false;
  }
  return true;
}

// Re-labels `array` with `type`, which has the same physical layout (names of
// nested fields may differ after a rename).
ArrayPtr Retype(const ArrayPtr& array, const DataTypePtr& type) {
  if (array->type() == type) return array;
  std::vector<ArrayPtr> children;
  for (size_t i = 0; i < array->children().size(); ++i) {
    children.push_back(Retype(array->child(static_cast<int>(i)), type->children()[i].type));
  }
  return std::make_shared<Array>(type, array->length(), array->null_count(), array->validity(), array->offsets(),
                                 array->values(), std::move(children));
}

class DatasetScanner final : public Scanner {
 public:
  DatasetScanner(const Dataset& dataset, ScanOptions options, SchemaPtr output_schema, std::vector<Field> read_fields,
                 std::vector<const lance::Fragment*> fragments)
      : dataset_(dataset),
        options_(std::move(options)),
        output_schema_(std::move(output_schema)),
        read_fields_(std::move(read_fields)),
        read_schema_(std::make_shared<const Schema>(read_fields_)),
        fragments_(std::move(fragments)) {}

  const SchemaPtr& schema() const override { return output_schema_; }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (options_.limit && emitted_ >= *options_.limit) return RecordBatchPtr();
      if (!fragment_open_) {
        if (fragment_index_ >= fragments_.size()) return RecordBatchPtr();
        OG_RETURN_IF_ERROR(OpenFragment(*fragments_[fragment_index_]));
      }
      const lance::Fragment& fragment = *fragments_[fragment_index_];
      if (position_ >= fragment.physical_rows) {
        CloseFragment();
        ++fragment_index_;
        continue;
      }
      uint64_t count = std::min<uint64_t>(options_.batch_rows, fragment.physical_rows - position_);
      OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, ReadRange(fragment, position_, count));
      position_ += count;
      if (batch && batch->num_rows() > 0) {
        emitted_ += static_cast<uint64_t>(batch->num_rows());
        if (options_.limit && emitted_ > *options_.limit) {
          int64_t keep = batch->num_rows() - static_cast<int64_t>(emitted_ - *options_.limit);
          emitted_ = *options_.limit;
          return batch->Slice(0, keep);
        }
        return batch;
      }
    }
  }

 private:
  struct Source {
    int file_index = -1;  // data file holding the field, -1 = absent (nulls)
  };

  Status OpenFragment(const lance::Fragment& fragment) {
    readers_.clear();
    readers_.resize(fragment.files.size());
    sources_.assign(read_fields_.size(), Source{});
    for (size_t f = 0; f < read_fields_.size(); ++f) {
      std::vector<int32_t> ids;
      CollectIds(read_fields_[f], &ids);
      // Later data files win: a column rewritten into a new file supersedes
      // the tombstoned copy.
      for (size_t k = fragment.files.size(); k-- > 0;) {
        const auto& stored = fragment.files[k].fields;
        if (std::any_of(ids.begin(), ids.end(),
                        [&](int32_t id) { return std::find(stored.begin(), stored.end(), id) != stored.end(); })) {
          sources_[f].file_index = static_cast<int>(k);
          break;
        }
      }
    }
    deleted_.clear();
    if (fragment.deletion_file) {
      OG_ASSIGN_OR_RETURN(deleted_, internal::ReadDeletedOffsets(dataset_, fragment));
    }
    deleted_cursor_ = 0;
    position_ = 0;
    fragment_open_ = true;
    return Status::OK();
  }

  void CloseFragment() {
    readers_.clear();
    fragment_open_ = false;
  }

  Result<lance::DataFileReader*> Reader(const lance::Fragment& fragment, int file_index) {
    if (!readers_[file_index]) {
      const lance::DataFile& file = fragment.files[file_index];
      OG_ASSIGN_OR_RETURN(std::string path, dataset_.ResolveFilePath(lance::kDataDir, file.path, file.base_id));
      OG_ASSIGN_OR_RETURN(auto object, dataset_.store()->OpenForRead(path));
      OG_ASSIGN_OR_RETURN(readers_[file_index],
                          lance::DataFileReader::Open(std::move(object), dataset_.store().get(), path));
      if (readers_[file_index]->num_rows() != fragment.physical_rows) {
        return CorruptData(fmt::format("{}: holds {} rows, fragment {} has {}", path, readers_[file_index]->num_rows(),
                                       fragment.id, fragment.physical_rows));
      }
    }
    return readers_[file_index].get();
  }

  Result<RecordBatchPtr> ReadRange(const lance::Fragment& fragment, uint64_t start, uint64_t count) {
    // Live rows in [start, start + count): skip deleted offsets. A window
    // without deletions leaves `live` empty and `all_live` set, so a plain
    // read never builds a row list as long as the window.
    while (deleted_cursor_ < deleted_.size() && deleted_[deleted_cursor_] < start) ++deleted_cursor_;
    const bool all_live = deleted_cursor_ == deleted_.size() || deleted_[deleted_cursor_] >= start + count;
    std::vector<int64_t> live;
    if (!all_live || !options_.filter.is_true()) {
      live.reserve(count);
      size_t cursor = deleted_cursor_;
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t offset = start + i;
        if (cursor < deleted_.size() && deleted_[cursor] == offset) {
          ++cursor;
          continue;
        }
        live.push_back(static_cast<int64_t>(i));
      }
      deleted_cursor_ = cursor;
      if (live.empty()) return RecordBatchPtr();
    }

    std::vector<ArrayPtr> columns;
    columns.reserve(read_fields_.size());
    for (size_t f = 0; f < read_fields_.size(); ++f) {
      const Field& field = read_fields_[f];
      if (sources_[f].file_index < 0) {
        columns.push_back(MakeNullArray(field.type, static_cast<int64_t>(count)));
        continue;
      }
      OG_ASSIGN_OR_RETURN(lance::DataFileReader * reader, Reader(fragment, sources_[f].file_index));
      auto array = reader->ReadField(field.id, start, count);
      if (!array.ok() && array.status().code() == ErrorCode::kNotFound) {
        // The manifest says this file holds the field: its absence is damage
        // to the file (or the wrong file under its name), not a missing object.
        return CorruptData(fmt::format("fragment {}: the data file lacks field '{}', which the manifest lists ({})",
                                       fragment.id, field.name, array.status().message()));
      }
      if (!array.ok()) return array.status();
      if (!SameLayout(*(*array)->type(), *field.type) || (*array)->length() != static_cast<int64_t>(count)) {
        return CorruptData(fmt::format("fragment {}: field '{}' reads as {} x {}, expected {} x {}", fragment.id,
                                       field.name, (*array)->length(), (*array)->type()->ToString(), count,
                                       field.type->ToString()));
      }
      columns.push_back(Retype(*array, field.type));
    }
    auto full = std::make_shared<const RecordBatch>(read_schema_, static_cast<int64_t>(count), std::move(columns));

    std::vector<int64_t> selected;
    if (options_.filter.is_true()) {
      if (all_live) {
        std::vector<ArrayPtr> out;
        for (int index : output_columns_) out.push_back(full->column(index));
        if (options_.with_row_address) out.push_back(RowAddresses(fragment.id, start, count, nullptr));
        return std::make_shared<const RecordBatch>(output_schema_, static_cast<int64_t>(count), std::move(out));
      }
      selected = std::move(live);
    } else {
      RecordBatchPtr live_batch = live.size() == count ? full : full->Take(live);
      OG_ASSIGN_OR_RETURN(std::vector<int64_t> picked, options_.filter.Select(*live_batch));
      selected.reserve(picked.size());
      for (int64_t p : picked) selected.push_back(live[p]);
    }
    if (selected.empty()) return RecordBatchPtr();

    std::vector<ArrayPtr> out;
    bool all = selected.size() == count;
    for (int index : output_columns_) {
      out.push_back(all ? full->column(index) : TakeArray(*full->column(index), selected));
    }
    if (options_.with_row_address) out.push_back(RowAddresses(fragment.id, start, count, &selected));
    return std::make_shared<const RecordBatch>(output_schema_, static_cast<int64_t>(selected.size()), std::move(out));
  }

  // Row addresses (fragment id << 32 | offset) of the window's rows
  // `selected` (window-relative), or of all `count` rows when null.
  static ArrayPtr RowAddresses(uint64_t fragment_id, uint64_t start, uint64_t count,
                               const std::vector<int64_t>* selected) {
    UInt64Builder addresses(DataType::UInt64());
    addresses.Reserve(static_cast<int64_t>(selected ? selected->size() : count));
    if (selected == nullptr) {
      for (uint64_t i = 0; i < count; ++i) addresses.Append((fragment_id << 32) | (start + i));
    } else {
      for (int64_t s : *selected) addresses.Append((fragment_id << 32) | (start + static_cast<uint64_t>(s)));
    }
    return addresses.Finish();
  }

 public:
  // Indices into read_fields_ of the projected output columns.
  std::vector<int> output_columns_;

 private:
  Dataset dataset_;
  ScanOptions options_;
  SchemaPtr output_schema_;
  std::vector<Field> read_fields_;
  SchemaPtr read_schema_;
  std::vector<const lance::Fragment*> fragments_;
  size_t fragment_index_ = 0;
  bool fragment_open_ = false;
  uint64_t position_ = 0;
  std::vector<std::unique_ptr<lance::DataFileReader>> readers_;
  std::vector<Source> sources_;
  std::vector<uint32_t> deleted_;
  size_t deleted_cursor_ = 0;
  uint64_t emitted_ = 0;
};

}  // namespace

Result<std::unique_ptr<Scanner>> MakeScanner(const Dataset& dataset, const ScanOptions& options) {
  const Schema& schema = *dataset.schema();
  if (options.batch_rows <= 0) return InvalidArgument("batch_rows must be positive");
  OG_RETURN_IF_ERROR(options.filter.Validate(schema));

  std::vector<Field> output_fields;
  if (options.columns.empty()) {
    output_fields = schema.fields();
  } else {
    for (const std::string& name : options.columns) {
      const Field* field = schema.FindField(name);
      if (field == nullptr) {
        return InvalidArgument(fmt::format("column '{}' does not exist in '{}'", name, dataset.root()));
      }
      output_fields.push_back(*field);
    }
  }
  // Read the projected columns plus any predicate column not projected.
  std::vector<Field> read_fields = output_fields;
  for (const std::string& name : options.filter.Columns()) {
    bool present = std::any_of(read_fields.begin(), read_fields.end(), [&](const Field& f) { return f.name == name; });
    if (!present) read_fields.push_back(*schema.FindField(name));
  }
  std::vector<const lance::Fragment*> fragments;
  for (const lance::Fragment& f : dataset.manifest().fragments) {
    if (options.fragment_ids.empty() ||
        std::find(options.fragment_ids.begin(), options.fragment_ids.end(), f.id) != options.fragment_ids.end()) {
      fragments.push_back(&f);
    }
  }
  if (!options.fragment_ids.empty() && fragments.size() != options.fragment_ids.size()) {
    return NotFound(fmt::format("scan of '{}' names fragments that are not in version {}", dataset.root(),
                                dataset.version()));
  }
  if (options.with_row_address) output_fields.emplace_back(std::string(kRowAddressColumn), DataType::UInt64(), false);
  auto output_schema = std::make_shared<const Schema>(output_fields, schema.metadata());
  size_t projected = options.columns.empty() ? schema.fields().size() : options.columns.size();
  auto scanner = std::make_unique<DatasetScanner>(dataset, options, std::move(output_schema), std::move(read_fields),
                                                  std::move(fragments));
  for (size_t i = 0; i < projected; ++i) scanner->output_columns_.push_back(static_cast<int>(i));
  return std::unique_ptr<Scanner>(std::move(scanner));
}

}  // namespace omnigraph::table
