#include "table/staging.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "columnar/blob_cell.h"
#include "io/unpublished_objects.h"
#include "lance/deletion_file.h"
#include "lance/versioning.h"
#include "table/internal.h"
#include "table/scanner.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/checksum.h"
#include "util/random.h"

namespace omnigraph::table {
namespace {

using BatchSource = std::function<Result<RecordBatchPtr>()>;

// Predicate texts above this size are not recorded in Delete transactions
// (the text only helps Lance's own conflict checks).
constexpr size_t kMaxRecordedPredicateBytes = 64 * 1024;

Result<lance::Transaction> MakeTransaction(const Dataset& base, const StageOptions& options, lance::Operation op) {
  lance::Transaction txn;
  txn.read_version = base.version();
  if (options.transaction_uuid.empty()) {
    txn.uuid = Uuid::Random().ToString();
  } else {
    Uuid parsed;
    if (!Uuid::Parse(options.transaction_uuid, &parsed)) {
      return InvalidArgument(fmt::format("transaction uuid '{}' is not a canonical UUID", options.transaction_uuid));
    }
    txn.uuid = parsed.ToString();
  }
  txn.properties = options.properties;
  txn.operation = std::move(op);
  return txn;
}

// The staged transaction takes over `written` (until then, a failure
// deletes those files).
Result<StagedTransaction> Finish(const Dataset& base, const StageOptions& options, lance::Operation op,
                                 Schema new_schema, UnpublishedObjects& written) {
  OG_ASSIGN_OR_RETURN(lance::Transaction txn, MakeTransaction(base, options, std::move(op)));
  return StagedTransaction{base, std::move(txn), std::move(new_schema), written.Keep()};
}

Result<std::vector<lance::Fragment>> WriteFragmentsFrom(ObjectStore* store, const std::string& branch_root,
                                                        const SchemaPtr& schema, const BatchSource& next,
                                                        uint64_t max_rows_per_file,
                                                        const lance::DataFileWriterOptions& file_options,
                                                        lance::FileVersion version, std::vector<std::string>* written) {
  if (max_rows_per_file == 0) return InvalidArgument("max_rows_per_file must be positive");
  lance::DataFileWriterOptions writer_options = file_options;
  writer_options.write = internal::kDeferredWrite;
  writer_options.version = version;
  std::vector<lance::Fragment> fragments;
  std::unique_ptr<lance::DataFileWriter> writer;
  std::string key;
  auto close = [&]() -> Status {
    OG_ASSIGN_OR_RETURN(lance::WrittenDataFile file, writer->Finish());
    writer.reset();
    written->push_back(key);
    lance::Fragment fragment;
    fragment.physical_rows = file.num_rows;
    lance::DataFile data_file;
    data_file.path = key.substr(key.rfind('/') + 1);
    data_file.fields = std::move(file.fields);
    data_file.column_indices = std::move(file.column_indices);
    data_file.file_size_bytes = file.file_size_bytes;
    data_file.file_major_version = file.file_major_version;
    data_file.file_minor_version = file.file_minor_version;
    fragment.files.push_back(std::move(data_file));
    fragments.push_back(std::move(fragment));
    return Status::OK();
  };
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, next());
    if (!batch) break;
    int64_t offset = 0;
    while (offset < batch->num_rows()) {
      if (!writer) {
        key = JoinPath(JoinPath(branch_root, lance::kDataDir), internal::NewDataFileName());
        OG_ASSIGN_OR_RETURN(writer, lance::DataFileWriter::Open(store, key, schema, writer_options));
      }
      uint64_t room = max_rows_per_file - writer->rows_written();
      int64_t take = std::min<int64_t>(batch->num_rows() - offset, static_cast<int64_t>(room));
      if (offset == 0 && take == batch->num_rows()) {
        OG_RETURN_IF_ERROR(writer->Write(*batch));
      } else {
        OG_RETURN_IF_ERROR(writer->Write(*batch->Slice(offset, take)));
      }
      offset += take;
      if (writer->rows_written() >= max_rows_per_file) OG_RETURN_IF_ERROR(close());
    }
  }
  if (writer && writer->rows_written() > 0) OG_RETURN_IF_ERROR(close());
  OG_FAILPOINT(failpoint::kStageAfterDataFiles);
  return fragments;
}

BatchSource FromVector(const std::vector<RecordBatchPtr>& batches) {
  auto index = std::make_shared<size_t>(0);
  return [&batches, index]() -> Result<RecordBatchPtr> {
    while (*index < batches.size()) {
      const RecordBatchPtr& b = batches[(*index)++];
      if (b && b->num_rows() > 0) return b;
    }
    return RecordBatchPtr();
  };
}

// Rebinds a batch to `schema` (same names and types; carries field ids).
Result<RecordBatchPtr> Conform(const RecordBatchPtr& batch, const SchemaPtr& schema) {
  OG_RETURN_IF_ERROR(internal::CheckBatchMatchesSchema(*batch, *schema));
  return std::make_shared<const RecordBatch>(schema, batch->num_rows(), batch->columns());
}

Status CheckBatches(const std::vector<RecordBatchPtr>& batches, const Schema& schema) {
  for (size_t i = 0; i < batches.size(); ++i) {
    Status st = internal::CheckBatchMatchesSchema(*batches[i], schema);
    if (!st.ok()) return st.WithContext(fmt::format("batch {}", i));
  }
  return Status::OK();
}

std::vector<RecordBatchPtr> ConformAll(const std::vector<RecordBatchPtr>& batches, const SchemaPtr& schema) {
  std::vector<RecordBatchPtr> out;
  for (const RecordBatchPtr& b : batches) out.push_back(std::make_shared<const RecordBatch>(schema, b->num_rows(), b->columns()));
  return out;
}

// Row offsets to delete, per fragment id.
using DeletionPlan = std::map<uint64_t, std::vector<uint32_t>>;

// Writes the deletion files of `plan` and returns the updated fragments and
// the ids of fragments that lose every row.
Status WriteDeletions(const Dataset& base, const DeletionPlan& plan, std::vector<lance::Fragment>* updated,
                      std::vector<uint64_t>* removed, std::vector<std::string>* written) {
  for (const auto& [fragment_id, offsets] : plan) {
    const lance::Fragment* fragment = base.manifest().FindFragment(fragment_id);
    if (fragment == nullptr) return Internal(fmt::format("deletion plan names unknown fragment {}", fragment_id));
    lance::DeletionVector vector = lance::DeletionVector::FromUnsorted(offsets);
    std::optional<lance::DeletionFileKind> previous_kind;
    if (fragment->deletion_file) {
      OG_ASSIGN_OR_RETURN(std::vector<uint32_t> existing, internal::ReadDeletedOffsets(base, *fragment));
      previous_kind = fragment->deletion_file->kind;
      vector = lance::DeletionVector::FromSorted(std::move(existing)).Union(vector);
    }
    if (vector.size() >= fragment->physical_rows) {
      removed->push_back(fragment_id);
      continue;
    }
    lance::DeletionFile file;
    file.kind = lance::ChooseDeletionFileKind(vector, previous_kind);
    file.read_version = base.version();
    file.id = RandomU64();
    file.num_deleted_rows = vector.size();
    OG_ASSIGN_OR_RETURN(std::string bytes, lance::EncodeDeletionFile(vector, file.kind));
    file.checksum = Checksum64(bytes);
    std::string key = JoinPath(JoinPath(base.branch_root(), lance::kDeletionsDir), file.FileName(fragment_id));
    OG_RETURN_IF_ERROR(base.store()->PutIfAbsent(key, bytes, internal::kDeferredWrite));
    written->push_back(key);
    lance::Fragment changed = *fragment;
    changed.deletion_file = file;
    updated->push_back(std::move(changed));
  }
  OG_FAILPOINT(failpoint::kStageAfterDeletionFiles);
  return Status::OK();
}

// Scans `predicate` and groups the matching live rows by fragment.
Result<DeletionPlan> PlanDeletion(const Dataset& base, const Predicate& predicate) {
  ScanOptions scan;
  for (const std::string& c : predicate.Columns()) scan.columns.push_back(c);
  if (scan.columns.empty()) scan.columns.push_back(base.schema()->field(0).name);
  scan.filter = predicate;
  scan.with_row_address = true;
  OG_ASSIGN_OR_RETURN(auto scanner, base.Scan(scan));
  DeletionPlan plan;
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
    if (!batch) break;
    const Array& addresses = *batch->column(batch->num_columns() - 1);
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      uint64_t address = addresses.Value<uint64_t>(i);
      plan[address >> 32].push_back(static_cast<uint32_t>(address & 0xffffffffu));
    }
  }
  return plan;
}

// A hashable, type-tagged encoding of a key cell.
std::string KeyBytes(const Array& column, int64_t i) {
  switch (column.type_id()) {
    case TypeId::kUtf8:
    case TypeId::kLargeBinary: return std::string(column.GetView(i));
    case TypeId::kInt32: return std::to_string(column.Value<int32_t>(i));
    case TypeId::kInt64: return std::to_string(column.Value<int64_t>(i));
    case TypeId::kUInt32: return std::to_string(column.Value<uint32_t>(i));
    case TypeId::kUInt64: return std::to_string(column.Value<uint64_t>(i));
    default: return "";
  }
}

bool IsKeyType(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeBinary || id == TypeId::kInt32 || id == TypeId::kInt64 ||
         id == TypeId::kUInt32 || id == TypeId::kUInt64;
}

// `field` with every id (its own and its children's) cleared.
Field WithoutIds(Field field) {
  field.id = -1;
  if (field.type && field.type->is_nested()) {
    std::vector<Field> children;
    for (const Field& c : field.type->children()) children.push_back(WithoutIds(c));
    switch (field.type->id()) {
      case TypeId::kList: field.type = DataType::List(std::move(children.front())); break;
      case TypeId::kFixedSizeList: field.type = DataType::FixedSizeList(std::move(children.front()), field.type->list_size()); break;
      default: field.type = DataType::Struct(std::move(children)); break;
    }
  }
  return field;
}

// Highest field id used by the schema or by any data file of any fragment.
int32_t MaxUsedFieldId(const lance::Manifest& manifest) {
  int32_t max_id = manifest.schema.MaxFieldId();
  for (const lance::Fragment& f : manifest.fragments) {
    for (const lance::DataFile& file : f.files) {
      for (int32_t id : file.fields) max_id = std::max(max_id, id);
    }
  }
  return max_id;
}

}  // namespace

namespace internal {

Result<std::vector<uint32_t>> ReadDeletedOffsets(const Dataset& dataset, const lance::Fragment& fragment) {
  const lance::DeletionFile& d = *fragment.deletion_file;
  OG_ASSIGN_OR_RETURN(std::string path, dataset.ResolveFilePath(lance::kDeletionsDir, d.FileName(fragment.id), d.base_id));
  OG_ASSIGN_OR_RETURN(BufferPtr bytes, dataset.store()->Get(path));
  if (d.checksum && Checksum64(bytes->view()) != *d.checksum) {
    return CorruptData(fmt::format("{}: checksum does not match the manifest's record of this deletion file", path));
  }
  OG_ASSIGN_OR_RETURN(lance::DeletionVector vector, lance::DecodeDeletionFile(bytes->view(), d.kind, path));
  if (vector.size() != d.num_deleted_rows) {
    return CorruptData(fmt::format("{}: holds {} deleted rows, the manifest says {}", path, vector.size(),
                                   d.num_deleted_rows));
  }
  if (!vector.empty() && vector.offsets().back() >= fragment.physical_rows) {
    return CorruptData(fmt::format("{}: deletes row {} of a {}-row fragment", path, vector.offsets().back(),
                                   fragment.physical_rows));
  }
  return std::vector<uint32_t>(vector.offsets());
}

std::string NewDataFileName() { return Uuid::Random().ToHex() + ".lance"; }

Status CheckBatchMatchesSchema(const RecordBatch& batch, const Schema& schema) {
  const Schema& actual = *batch.schema();
  if (actual.num_fields() != schema.num_fields()) {
    return InvalidArgument(fmt::format("batch has {} columns, the dataset has {}", actual.num_fields(), schema.num_fields()));
  }
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& want = schema.field(i);
    const Field& got = actual.field(i);
    if (want.name != got.name) {
      return InvalidArgument(fmt::format("batch column {} is named '{}', the dataset column is '{}'", i, got.name, want.name));
    }
    if (!want.type->Equals(*batch.column(i)->type())) {
      return InvalidArgument(fmt::format("column '{}' has type {}, the dataset expects {}", want.name,
                                         batch.column(i)->type()->ToString(), want.type->ToString()));
    }
    if (!want.nullable && batch.column(i)->null_count() > 0) {
      return InvalidArgument(fmt::format("column '{}' is not nullable but the batch holds {} nulls", want.name,
                                         batch.column(i)->null_count()));
    }
  }
  return Status::OK();
}

Result<std::vector<lance::Fragment>> WriteFragments(ObjectStore* store, const std::string& branch_root,
                                                    const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                                                    uint64_t max_rows_per_file,
                                                    const lance::DataFileWriterOptions& file_options,
                                                    lance::FileVersion version, std::vector<std::string>* written) {
  std::vector<RecordBatchPtr> conformed = ConformAll(batches, schema);
  return WriteFragmentsFrom(store, branch_root, schema, FromVector(conformed), max_rows_per_file, file_options,
                            version, written);
}

lance::FileVersion TableFileVersion(const lance::Manifest& base, const Schema& schema) {
  if (base.data_format_version == "2.2" || HasBlobV2Field(schema)) return lance::FileVersion::kV2_2;
  return lance::FileVersion::kV2_1;
}

std::string DataFormatVersionString(lance::FileVersion version) {
  return version == lance::FileVersion::kV2_2 ? "2.2" : "2.1";
}

}  // namespace internal

Result<StagedTransaction> StageAppend(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                      const StageOptions& options) {
  OG_RETURN_IF_ERROR(CheckBatches(batches, *base.schema()));
  UnpublishedObjects written(base.store().get());
  OG_ASSIGN_OR_RETURN(auto fragments,
                      internal::WriteFragments(base.store().get(), base.branch_root(), base.schema(), batches,
                                               options.max_rows_per_file, options.file_options,
                                               internal::TableFileVersion(base.manifest(), *base.schema()),
                                               written.keys()));
  uint64_t rows = 0;
  for (const auto& f : fragments) rows += f.physical_rows;
  OG_ASSIGN_OR_RETURN(auto staged, Finish(base, options, lance::AppendOperation{std::move(fragments)},
                                          *base.schema(), written));
  staged.rows_inserted = rows;
  return staged;
}

Result<StagedTransaction> StageOverwrite(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                         const std::optional<Schema>& schema, const StageOptions& options) {
  Schema new_schema = schema ? *schema : *base.schema();
  if (new_schema.num_fields() == 0) return InvalidArgument("a dataset needs at least one column");
  if (schema) {
    // A replacement schema gets ids above every id the dataset used, so old
    // data files can never be mistaken for the new columns.
    Schema fresh;
    for (Field f : new_schema.fields()) fresh.mutable_fields().push_back(WithoutIds(std::move(f)));
    fresh.mutable_metadata() = new_schema.metadata();
    fresh.AssignMissingFieldIds(MaxUsedFieldId(base.manifest()) + 1);
    new_schema = std::move(fresh);
  }
  OG_RETURN_IF_ERROR(CheckBatches(batches, new_schema));
  auto shared = std::make_shared<const Schema>(new_schema);
  UnpublishedObjects written(base.store().get());
  OG_ASSIGN_OR_RETURN(auto fragments,
                      internal::WriteFragments(base.store().get(), base.branch_root(), shared, batches,
                                               options.max_rows_per_file, options.file_options,
                                               internal::TableFileVersion(base.manifest(), new_schema), written.keys()));
  uint64_t rows = 0;
  for (const auto& f : fragments) rows += f.physical_rows;
  OG_ASSIGN_OR_RETURN(auto staged, Finish(base, options, lance::OverwriteOperation{std::move(fragments), new_schema, {}},
                                          new_schema, written));
  staged.rows_inserted = rows;
  staged.rows_deleted = base.CountRows();
  return staged;
}

Result<StagedTransaction> StageDelete(const Dataset& base, const Predicate& predicate, const StageOptions& options) {
  OG_RETURN_IF_ERROR(predicate.Validate(*base.schema()));
  OG_ASSIGN_OR_RETURN(DeletionPlan plan, PlanDeletion(base, predicate));
  lance::DeleteOperation op;
  UnpublishedObjects written(base.store().get());
  OG_RETURN_IF_ERROR(WriteDeletions(base, plan, &op.updated_fragments, &op.deleted_fragment_ids, written.keys()));
  std::string text = predicate.ToString();
  if (text.size() <= kMaxRecordedPredicateBytes) op.predicate = std::move(text);
  uint64_t matched = 0;
  for (const auto& [id, offsets] : plan) matched += offsets.size();
  OG_ASSIGN_OR_RETURN(auto staged, Finish(base, options, std::move(op), *base.schema(), written));
  staged.rows_deleted = matched;
  return staged;
}

Result<StagedTransaction> StageDeleteIds(const Dataset& base, const std::string& column, const std::vector<Scalar>& ids,
                                         const StageOptions& options) {
  return StageDelete(base, Predicate::In(column, ids), options);
}

Result<StagedTransaction> StageMergeInsert(const Dataset& base, const std::vector<RecordBatchPtr>& batches,
                                           const MergeInsertOptions& merge_options, const StageOptions& options) {
  const Schema& schema = *base.schema();
  OG_RETURN_IF_ERROR(CheckBatches(batches, schema));
  std::string key_column = merge_options.key_column;
  if (key_column.empty()) {
    for (const Field& f : schema.fields()) {
      if (f.unenforced_primary_key) {
        key_column = f.name;
        break;
      }
    }
    if (key_column.empty()) {
      return InvalidArgument(fmt::format("merge-insert into '{}' needs a key column: the schema has no primary key",
                                         base.root()));
    }
  }
  int key_index = schema.FieldIndex(key_column);
  if (key_index < 0) return InvalidArgument(fmt::format("merge-insert key column '{}' does not exist", key_column));
  if (!IsKeyType(schema.field(key_index).type->id())) {
    return InvalidArgument(fmt::format("merge-insert key column '{}' has type {}, which cannot be a key", key_column,
                                       schema.field(key_index).type->ToString()));
  }

  // Every input key, once.
  std::unordered_map<std::string, int64_t> input_keys;
  uint64_t input_rows = 0;
  for (const RecordBatchPtr& batch : batches) {
    const Array& keys = *batch->column(key_index);
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      if (keys.IsNull(i)) {
        return InvalidArgument(fmt::format("merge-insert input row {} has a null key in column '{}'", input_rows + i,
                                           key_column));
      }
      if (!input_keys.emplace(KeyBytes(keys, i), static_cast<int64_t>(input_rows + i)).second) {
        return InvalidArgument(fmt::format("merge-insert input repeats key '{}' in column '{}'", KeyBytes(keys, i),
                                           key_column));
      }
    }
    input_rows += static_cast<uint64_t>(batch->num_rows());
  }

  // Find the existing rows with those keys.
  ScanOptions scan;
  scan.columns = {key_column};
  scan.with_row_address = true;
  OG_ASSIGN_OR_RETURN(auto scanner, base.Scan(scan));
  DeletionPlan matched;
  uint64_t matches = 0;
  while (true) {
    OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
    if (!batch) break;
    const Array& keys = *batch->column(0);
    const Array& addresses = *batch->column(1);
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      if (keys.IsNull(i)) continue;
      std::string key = KeyBytes(keys, i);
      if (input_keys.count(key) == 0) continue;
      if (merge_options.mode == MergeInsertMode::kStrictInsert) {
        return Status(ErrorCode::kKeyConflict,
                      fmt::format("key '{}' already exists in column '{}' of '{}'", key, key_column, base.root()),
                      {{"column", key_column}, {"key", key}});
      }
      uint64_t address = addresses.Value<uint64_t>(i);
      matched[address >> 32].push_back(static_cast<uint32_t>(address & 0xffffffffu));
      ++matches;
    }
  }

  lance::UpdateOperation op;
  UnpublishedObjects written(base.store().get());
  OG_RETURN_IF_ERROR(WriteDeletions(base, matched, &op.updated_fragments, &op.removed_fragment_ids, written.keys()));
  OG_ASSIGN_OR_RETURN(op.new_fragments,
                      internal::WriteFragments(base.store().get(), base.branch_root(), base.schema(), batches,
                                               options.max_rows_per_file, options.file_options,
                                               internal::TableFileVersion(base.manifest(), schema), written.keys()));
  if (matches > 0) {
    for (const Field& f : schema.fields()) op.fields_modified.push_back(static_cast<uint32_t>(f.id));
  }
  OG_ASSIGN_OR_RETURN(auto staged, Finish(base, options, std::move(op), schema, written));
  staged.rows_updated = matches;
  staged.rows_inserted = input_rows - matches;
  return staged;
}

Result<StagedTransaction> StageAddColumns(const Dataset& base, const std::vector<Field>& fields,
                                          const StageOptions& options) {
  if (fields.empty()) return InvalidArgument("no columns to add");
  Schema schema = *base.schema();
  int32_t next_id = MaxUsedFieldId(base.manifest()) + 1;
  const bool has_files = std::any_of(base.manifest().fragments.begin(), base.manifest().fragments.end(),
                                     [](const lance::Fragment& f) { return !f.files.empty(); });
  for (Field field : fields) {
    if (IsBlobV2Field(field) && has_files &&
        internal::TableFileVersion(base.manifest(), *base.schema()) != lance::FileVersion::kV2_2) {
      // The blob column would make the table 2.2 over its 2.1 data files,
      // and Lance refuses a table mixing both versions.
      return Unsupported(fmt::format("cannot add blob column '{}' to '{}': its data files are Lance file format 2.1 "
                                     "and a blob column needs 2.2",
                                     field.name, base.root()));
    }
    if (!field.nullable) {
      return InvalidArgument(fmt::format("new column '{}' must be nullable: existing rows have no value", field.name));
    }
    if (field.name.empty() || schema.FindField(field.name) != nullptr) {
      return InvalidArgument(fmt::format("column name '{}' is empty or already in use", field.name));
    }
    if (!field.type) return InvalidArgument(fmt::format("new column '{}' has no type", field.name));
    schema.mutable_fields().push_back(WithoutIds(std::move(field)));
  }
  schema.AssignMissingFieldIds(next_id);
  lance::MergeOperation op{base.manifest().fragments, schema};
  UnpublishedObjects none(base.store().get());
  return Finish(base, options, std::move(op), schema, none);
}

Result<StagedTransaction> StageProject(const Dataset& base, const std::map<std::string, std::string>& renames,
                                       const std::vector<std::string>& drops, const StageOptions& options,
                                       const std::vector<std::string>& column_order) {
  const Schema& old = *base.schema();
  std::set<std::string> drop_set(drops.begin(), drops.end());
  for (const std::string& name : drop_set) {
    const Field* f = old.FindField(name);
    if (f == nullptr) return InvalidArgument(fmt::format("cannot drop unknown column '{}'", name));
    if (f->unenforced_primary_key) return InvalidArgument(fmt::format("cannot drop primary-key column '{}'", name));
  }
  for (const auto& [from, to] : renames) {
    if (old.FindField(from) == nullptr) return InvalidArgument(fmt::format("cannot rename unknown column '{}'", from));
    if (drop_set.count(from)) return InvalidArgument(fmt::format("column '{}' is both renamed and dropped", from));
    if (to.empty()) return InvalidArgument(fmt::format("cannot rename column '{}' to an empty name", from));
  }
  Schema schema;
  schema.mutable_metadata() = old.metadata();
  std::set<std::string> names;
  for (const Field& f : old.fields()) {
    if (drop_set.count(f.name)) continue;
    Field kept = f;
    if (auto it = renames.find(f.name); it != renames.end()) kept.name = it->second;
    if (!names.insert(kept.name).second) {
      return InvalidArgument(fmt::format("projection gives two columns the name '{}'", kept.name));
    }
    schema.mutable_fields().push_back(std::move(kept));
  }
  if (schema.num_fields() == 0) return InvalidArgument("cannot drop every column");
  if (!column_order.empty()) {
    std::vector<Field> ordered;
    for (const std::string& name : column_order) {
      const Field* f = schema.FindField(name);
      if (f == nullptr) return InvalidArgument(fmt::format("column order names unknown column '{}'", name));
      ordered.push_back(*f);
    }
    if (ordered.size() != static_cast<size_t>(schema.num_fields()) ||
        std::set<std::string>(column_order.begin(), column_order.end()).size() != ordered.size()) {
      return InvalidArgument("column order must list every remaining column once");
    }
    schema.mutable_fields() = std::move(ordered);
  }
  UnpublishedObjects none(base.store().get());
  return Finish(base, options, lance::ProjectOperation{schema}, schema, none);
}

Result<StagedTransaction> StageRewrite(const Dataset& base, const std::vector<uint64_t>& fragment_ids,
                                       const StageOptions& options) {
  std::vector<uint64_t> ids = fragment_ids;
  if (ids.empty()) {
    for (const lance::Fragment& f : base.manifest().fragments) ids.push_back(f.id);
  }
  if (ids.empty()) return InvalidArgument(fmt::format("'{}' has no fragments to rewrite", base.root()));
  return StageRewriteGroups(base, {ids}, options);
}

Result<StagedTransaction> StageRewriteGroups(const Dataset& base, const std::vector<std::vector<uint64_t>>& groups,
                                             const StageOptions& options) {
  if (groups.empty()) return InvalidArgument(fmt::format("rewrite of '{}' names no fragment group", base.root()));
  std::set<uint64_t> seen;
  lance::RewriteOperation op;
  SchemaPtr schema = base.schema();
  UnpublishedObjects written(base.store().get());
  for (const std::vector<uint64_t>& ids : groups) {
    if (ids.empty()) return InvalidArgument(fmt::format("rewrite of '{}' names an empty fragment group", base.root()));
    lance::RewriteGroup group;
    for (uint64_t id : ids) {
      if (!seen.insert(id).second) {
        return InvalidArgument(fmt::format("rewrite of '{}' names fragment {} twice", base.root(), id));
      }
    }
    // In the base's order: the scan reads them so, and the new fragments
    // replace the first of them (commit.cc).
    for (const lance::Fragment& f : base.manifest().fragments) {
      if (std::find(ids.begin(), ids.end(), f.id) != ids.end()) group.old_fragments.push_back(f);
    }
    if (group.old_fragments.size() != ids.size()) {
      return NotFound(fmt::format("rewrite of '{}' names fragments that are not in version {}", base.root(),
                                  base.version()));
    }
    // The scan reads the current schema only: a dropped column's values
    // stay behind, and a column a fragment lacks (added by a metadata-only
    // Merge) reads, and is written, as nulls.
    ScanOptions scan;
    for (const lance::Fragment& f : group.old_fragments) scan.fragment_ids.push_back(f.id);
    OG_ASSIGN_OR_RETURN(auto scanner, base.Scan(scan));
    BatchSource next = [&]() -> Result<RecordBatchPtr> {
      OG_ASSIGN_OR_RETURN(RecordBatchPtr batch, scanner->Next());
      if (!batch) return batch;
      return Conform(batch, schema);
    };
    OG_ASSIGN_OR_RETURN(group.new_fragments,
                        WriteFragmentsFrom(base.store().get(), base.branch_root(), schema, next,
                                           options.max_rows_per_file, options.file_options,
                                           internal::TableFileVersion(base.manifest(), *schema), written.keys()));
    op.groups.push_back(std::move(group));
  }
  return Finish(base, options, std::move(op), *schema, written);
}

}  // namespace omnigraph::table
