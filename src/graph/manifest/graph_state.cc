#include "graph/manifest/graph_state.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/builder.h"
#include "util/json_text.h"

namespace omnigraph::graph {
namespace {

using nlohmann::json;

constexpr std::string_view kTableRow = "table";
constexpr std::string_view kCommitRow = "graph_commit";
constexpr std::string_view kContractRow = "schema_contract";
constexpr std::string_view kSettledRow = "settled_commit";
constexpr std::string_view kHistoryRow = "history";

enum Column {
  kObjectId,
  kObjectType,
  kLocation,
  kMetadata,
  kTableKey,
  kStableTableId,
  kIncarnationId,
  kTableVersion,
  kTableBranch,
  kRowCount,
  kSchemaSource,
  kSchemaIr,
  kColumnCount,
};

// One row under construction: every column nullable except the first two.
struct RowBuilders {
  explicit RowBuilders(const SchemaPtr& schema) {
    for (const Field& f : schema->fields()) builders.push_back(ArrayBuilder::Make(f.type));
  }
  BinaryBuilder& text(int c) { return static_cast<BinaryBuilder&>(*builders[c]); }
  UInt64Builder& u64(int c) { return static_cast<UInt64Builder&>(*builders[c]); }
  void SetText(int c, const std::optional<std::string>& v) { v ? text(c).Append(*v) : text(c).AppendNull(); }
  void SetU64(int c, const std::optional<uint64_t>& v) { v ? u64(c).Append(*v) : u64(c).AppendNull(); }
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
};

std::optional<std::string> OptionalString(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

Result<json> ParseMetadata(const Array& column, int64_t row, std::string_view where, std::string_view object_id) {
  if (column.IsNull(row)) return json::object();
  json doc = json::parse(column.GetView(row), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return CorruptData(fmt::format("{}: metadata of '{}' is not a JSON object", where, object_id));
  }
  return doc;
}

Result<uint64_t> RequireU64(const Array& column, int64_t row, std::string_view what, std::string_view where,
                            std::string_view object_id) {
  if (column.IsNull(row)) return CorruptData(fmt::format("{}: row '{}' has no {}", where, object_id, what));
  return column.Value<uint64_t>(row);
}

// Appends `"name":value` to the JSON object text in `*object`, opening it
// with `{` or separating with `,`. Callers add members in sorted key order
// (as nlohmann's default object writes them) and close with `}`.
void JsonMemberName(std::string* object, std::string_view name) {
  object->push_back(object->empty() ? '{' : ',');
  AppendJsonString(object, name);
  object->push_back(':');
}
void JsonMember(std::string* object, std::string_view name, std::string_view value) {
  JsonMemberName(object, name);
  AppendJsonString(object, value);
}
void JsonMember(std::string* object, std::string_view name, const char* value) {
  JsonMember(object, name, std::string_view(value));
}
void JsonMember(std::string* object, std::string_view name, const std::string& value) {
  JsonMember(object, name, std::string_view(value));
}
template <typename Integer>
  requires std::is_integral_v<Integer>
void JsonMember(std::string* object, std::string_view name, Integer value) {
  JsonMemberName(object, name);
  object->append(std::to_string(value));
}


// The metadata JSON of a commit row (head or settled): every record field
// the columns do not hold, keys in sorted order.
void CommitMetadata(const CommitRecord& commit, std::string* metadata) {
  metadata->clear();
  if (commit.actor_id) JsonMember(metadata, "actor_id", *commit.actor_id);
  JsonMember(metadata, "block", commit.block);
  JsonMember(metadata, "branch_identity", commit.NativeRef());
  JsonMember(metadata, "created_at", commit.created_at_us);
  JsonMember(metadata, "generation", commit.generation);
  if (commit.merged_parent_id) JsonMember(metadata, "merged_parent_commit_id", *commit.merged_parent_id);
  if (commit.parent_id) JsonMember(metadata, "parent_commit_id", *commit.parent_id);
  JsonMember(metadata, "slot", commit.slot);
  metadata->push_back('}');
}

void AppendCommitRow(RowBuilders& rows, std::string_view object_type, const CommitRecord& commit,
                     std::string* metadata) {
  CommitMetadata(commit, metadata);
  rows.text(kObjectId).Append(commit.id);
  rows.text(kObjectType).Append(object_type);
  rows.text(kLocation).AppendNull();
  rows.text(kMetadata).Append(*metadata);
  rows.text(kTableKey).AppendNull();
  rows.builders[kStableTableId]->AppendNull();
  rows.builders[kIncarnationId]->AppendNull();
  rows.u64(kTableVersion).Append(commit.manifest_version);
  rows.SetText(kTableBranch, commit.graph_branch);
  for (int c : {kRowCount, kSchemaSource, kSchemaIr}) rows.builders[c]->AppendNull();
}

Result<CommitRecord> DecodeCommitRow(const RecordBatch& rows, int64_t r, const json& metadata, std::string object_id,
                                     std::string_view where) {
  CommitRecord commit;
  commit.id = std::move(object_id);
  commit.parent_id = OptionalString(metadata, "parent_commit_id");
  commit.merged_parent_id = OptionalString(metadata, "merged_parent_commit_id");
  commit.actor_id = OptionalString(metadata, "actor_id");
  commit.created_at_us = metadata.value("created_at", int64_t{0});
  commit.generation = metadata.value("generation", uint64_t{0});
  commit.block = metadata.value("block", "");
  commit.slot = metadata.value("slot", uint32_t{0});
  std::string native = metadata.value("branch_identity", std::string(kMainBranch));
  if (native != kMainBranch) commit.native_branch = std::move(native);
  OG_ASSIGN_OR_RETURN(commit.manifest_version,
                      RequireU64(*rows.column(kTableVersion), r, "table_version", where, commit.id));
  if (!rows.column(kTableBranch)->IsNull(r)) commit.graph_branch = std::string(rows.column(kTableBranch)->GetView(r));
  return commit;
}

}  // namespace

std::string TableIdentity::ObjectId() const { return fmt::format("table:{:016x}:{:016x}", stable_id, incarnation_id); }

const TableEntry* GraphState::FindTable(std::string_view table_key) const {
  auto it = tables.find(std::string(table_key));
  return it == tables.end() ? nullptr : &it->second;
}

SchemaPtr ManifestSchema() {
  static const SchemaPtr schema = [] {
    Field object_id("object_id", DataType::Utf8(), false);
    object_id.unenforced_primary_key = true;
    Schema s({object_id, Field("object_type", DataType::Utf8(), false), Field("location", DataType::Utf8()),
              Field("metadata", DataType::Utf8()), Field("table_key", DataType::Utf8()),
              Field("stable_table_id", DataType::UInt64()), Field("table_incarnation_id", DataType::UInt64()),
              Field("table_version", DataType::UInt64()), Field("table_branch", DataType::Utf8()),
              Field("row_count", DataType::UInt64()), Field("schema_source", DataType::Utf8()),
              Field("schema_ir", DataType::Utf8())},
             {{std::string(kStampKey), std::to_string(kStorageStamp)}});
    s.AssignMissingFieldIds();
    return std::make_shared<const Schema>(std::move(s));
  }();
  return schema;
}

Result<RecordBatchPtr> EncodeGraphState(const GraphState& state) {
  SchemaPtr schema = ManifestSchema();
  RowBuilders rows(schema);
  auto empty_columns = [&](std::initializer_list<int> columns) {
    for (int c : columns) rows.builders[c]->AppendNull();
  };
  // Metadata JSON is written directly, keys in sorted order (every
  // publication writes one row per table, so a JSON document per row was
  // a measurable share of an insert).
  std::string metadata;
  for (const auto& [key, table] : state.tables) {
    metadata.clear();
    JsonMember(&metadata, "last_linear_version", table.pin.last_linear_version);
    JsonMember(&metadata, "manifest_path", table.pin.manifest_path);
    JsonMember(&metadata, "manifest_size", table.pin.manifest_size);
    JsonMember(&metadata, "naming_scheme", "V2");
    // Detached ids exceed 2^53: keep them exact as decimal text.
    if (table.pin.staged_version) JsonMember(&metadata, "staged_version", std::to_string(*table.pin.staged_version));
    JsonMember(&metadata, "state", "pinned");
    JsonMember(&metadata, "transaction_uuid", table.pin.transaction_uuid);
    metadata.push_back('}');
    rows.text(kObjectId).Append(table.identity.ObjectId());
    rows.text(kObjectType).Append(kTableRow);
    rows.text(kLocation).Append(table.location);
    rows.text(kMetadata).Append(metadata);
    rows.text(kTableKey).Append(table.table_key);
    rows.u64(kStableTableId).Append(table.identity.stable_id);
    rows.u64(kIncarnationId).Append(table.identity.incarnation_id);
    rows.u64(kTableVersion).Append(table.pin.published_version);
    rows.text(kTableBranch).AppendNull();
    rows.u64(kRowCount).Append(table.pin.row_count);
    empty_columns({kSchemaSource, kSchemaIr});
  }
  AppendCommitRow(rows, kCommitRow, state.head, &metadata);

  metadata.clear();
  JsonMember(&metadata, "schema_identity_domain", "omnigraph");
  JsonMember(&metadata, "schema_identity_version", 1);
  JsonMember(&metadata, "schema_ir_hash", state.schema.ir_hash);
  metadata.push_back('}');
  rows.text(kObjectId).Append(kContractRow);
  rows.text(kObjectType).Append(kContractRow);
  rows.text(kLocation).AppendNull();
  rows.text(kMetadata).Append(metadata);
  empty_columns({kTableKey, kStableTableId, kIncarnationId, kTableVersion, kTableBranch, kRowCount});
  rows.text(kSchemaSource).Append(state.schema.source);
  rows.text(kSchemaIr).Append(state.schema.ir);

  for (const CommitRecord& settled : state.settled) AppendCommitRow(rows, kSettledRow, settled, &metadata);
  if (!state.history_segments.empty()) {
    std::string segments = "[";
    for (const std::string& id : state.history_segments) {
      if (segments.size() > 1) segments.push_back(',');
      AppendJsonString(&segments, id);
    }
    segments.push_back(']');
    metadata = "{\"segments\":" + segments + "}";
    rows.text(kObjectId).Append(kHistoryRow);
    rows.text(kObjectType).Append(kHistoryRow);
    rows.text(kLocation).AppendNull();
    rows.text(kMetadata).Append(metadata);
    empty_columns({kTableKey, kStableTableId, kIncarnationId, kTableVersion, kTableBranch, kRowCount, kSchemaSource,
                   kSchemaIr});
  }

  std::vector<ArrayPtr> columns;
  for (auto& b : rows.builders) columns.push_back(b->Finish());
  return RecordBatch::Make(schema, std::move(columns));
}

Result<GraphState> DecodeGraphState(const RecordBatch& rows, std::string_view where) {
  if (rows.num_columns() != kColumnCount) {
    return CorruptData(fmt::format("{}: __manifest has {} columns, expected {}", where, rows.num_columns(),
                                   static_cast<int>(kColumnCount)));
  }
  for (int c = 0; c < kColumnCount; ++c) {
    if (!rows.column(c)->type()->Equals(*ManifestSchema()->field(c).type)) {
      return CorruptData(fmt::format("{}: __manifest column '{}' has type {}", where, rows.schema()->field(c).name,
                                     rows.column(c)->type()->ToString()));
    }
  }
  GraphState state;
  bool have_head = false, have_contract = false;
  const Array& ids = *rows.column(kObjectId);
  const Array& types = *rows.column(kObjectType);
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    std::string object_id(ids.GetView(r));
    std::string_view type = types.GetView(r);
    OG_ASSIGN_OR_RETURN(json metadata, ParseMetadata(*rows.column(kMetadata), r, where, object_id));
    if (type == kTableRow) {
      TableEntry table;
      OG_ASSIGN_OR_RETURN(table.identity.stable_id,
                          RequireU64(*rows.column(kStableTableId), r, "stable_table_id", where, object_id));
      OG_ASSIGN_OR_RETURN(table.identity.incarnation_id,
                          RequireU64(*rows.column(kIncarnationId), r, "table_incarnation_id", where, object_id));
      OG_ASSIGN_OR_RETURN(table.pin.published_version,
                          RequireU64(*rows.column(kTableVersion), r, "table_version", where, object_id));
      OG_ASSIGN_OR_RETURN(table.pin.row_count, RequireU64(*rows.column(kRowCount), r, "row_count", where, object_id));
      if (rows.column(kTableKey)->IsNull(r) || rows.column(kLocation)->IsNull(r)) {
        return CorruptData(fmt::format("{}: table row '{}' lacks its key or location", where, object_id));
      }
      table.table_key = std::string(rows.column(kTableKey)->GetView(r));
      table.location = std::string(rows.column(kLocation)->GetView(r));
      if (object_id != table.identity.ObjectId() || table.location != TableLocation(table.table_key, table.identity)) {
        return CorruptData(fmt::format("{}: table row '{}' does not match its identity-derived id and path", where,
                                       object_id));
      }
      if (metadata.value("state", "") != "pinned") continue;  // registered or dropped
      table.pin.transaction_uuid = metadata.value("transaction_uuid", "");
      table.pin.last_linear_version = metadata.value("last_linear_version", uint64_t{1});
      table.pin.manifest_path = metadata.value("manifest_path", "");
      table.pin.manifest_size = metadata.value("manifest_size", uint64_t{0});
      if (auto staged = OptionalString(metadata, "staged_version")) {
        try {
          table.pin.staged_version = std::stoull(*staged);
        } catch (...) {
          return CorruptData(fmt::format("{}: table row '{}' has staged version '{}'", where, object_id, *staged));
        }
      }
      if (!state.tables.emplace(table.table_key, table).second) {
        return CorruptData(fmt::format("{}: two pinned tables share the alias '{}'", where, table.table_key));
      }
    } else if (type == kCommitRow) {
      if (have_head) return CorruptData(fmt::format("{}: more than one head graph_commit row", where));
      have_head = true;
      OG_ASSIGN_OR_RETURN(state.head, DecodeCommitRow(rows, r, metadata, std::move(object_id), where));
    } else if (type == kSettledRow) {
      OG_ASSIGN_OR_RETURN(CommitRecord settled, DecodeCommitRow(rows, r, metadata, std::move(object_id), where));
      state.settled.push_back(std::move(settled));
    } else if (type == kHistoryRow) {
      auto segments = metadata.find("segments");
      if (segments == metadata.end() || !segments->is_array()) {
        return CorruptData(fmt::format("{}: history row lacks its segment list", where));
      }
      for (const json& id : *segments) {
        if (!id.is_string()) return CorruptData(fmt::format("{}: history row names a segment that is not text", where));
        state.history_segments.push_back(id.get<std::string>());
      }
    } else if (type == kContractRow) {
      have_contract = true;
      if (rows.column(kSchemaSource)->IsNull(r) || rows.column(kSchemaIr)->IsNull(r)) {
        return CorruptData(fmt::format("{}: schema_contract row lacks its source or IR", where));
      }
      state.schema.source = std::string(rows.column(kSchemaSource)->GetView(r));
      state.schema.ir = std::string(rows.column(kSchemaIr)->GetView(r));
      state.schema.ir_hash = metadata.value("schema_ir_hash", "");
    }
    // Unknown row kinds belong to newer writers' bookkeeping; the stamp
    // check refuses incompatible layouts before we get here.
  }
  if (!have_head) return CorruptData(fmt::format("{}: no head graph_commit row", where));
  if (!have_contract) return CorruptData(fmt::format("{}: no schema_contract row", where));
  // The buffer is written oldest first; order by generation in case a
  // writer appended imported records out of order.
  std::stable_sort(state.settled.begin(), state.settled.end(),
                   [](const CommitRecord& a, const CommitRecord& b) { return a.generation < b.generation; });
  state.branch = state.head.graph_branch.value_or(std::string(kMainBranch));
  state.branch_identity = std::string(state.head.NativeRef());
  state.manifest_version = state.head.manifest_version;
  return state;
}

}  // namespace omnigraph::graph
