#include "exec/loader.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "columnar/builder.h"
#include "compiler/entity_id.h"
#include "exec/blob_value.h"
#include "exec/json_value.h"
#include "exec/legacy_records.h"
#include "util/ulid.h"
#include "util/utf8.h"
#include "graph/id_index.h"

namespace omnigraph::exec {
namespace {

using compiler::Catalog;
using compiler::EdgeType;
using compiler::NodeType;
using compiler::Property;

// Lance system column names, refused as input fields.
bool IsReservedName(std::string_view name) {
  static const std::set<std::string_view> kNames = {"_tombstone", "_rowid", "_rowaddr", "_rowoffset",
                                                    "_row_created_at_version", "_row_last_updated_at_version"};
  return name.starts_with('_') && kNames.count(name) > 0;  // every one starts with '_'
}

// Rows of one table accumulated from the file.
struct TableInput {
  const NodeType* node = nullptr;
  const EdgeType* edge = nullptr;
  std::string table_key;
  std::string type_name;
  SchemaPtr schema;  // physical
  std::vector<const Property*> properties;  // schema column -> property (nullptr for id/src/dst)
  std::vector<bool> is_key;                 // schema column -> part of the node's @key
  std::vector<std::unique_ptr<ArrayBuilder>> columns;
  std::vector<std::optional<std::string>> explicit_ids;
  std::vector<std::string> src, dst;
  std::vector<uint64_t> lines;
  // The rows that reach the delta and the input line of each (for errors
  // about a written row; looked up by id only on those error paths).
  RecordBatchPtr finished;
  std::vector<uint64_t> finished_lines;

  // Input line of the finished row with `id`, or 0.
  uint64_t LineOfId(std::string_view id) const {
    if (!finished) return 0;
    const Array& ids = *finished->GetColumn("id");
    for (int64_t r = 0; r < ids.length(); ++r) {
      if (ids.GetView(r) == id) return finished_lines[static_cast<size_t>(r)];
    }
    return 0;
  }
  uint64_t records = 0;

  int ColumnOf(std::string_view name) const { return schema->FieldIndex(name); }
};

class Loader {
 public:
  Loader(const graph::Snapshot& snapshot, const Catalog& catalog, std::string_view file,
         LoadMode mode, const LoadProgress& progress, const ExternalBlobPolicy& blob_policy, LoadSyntax syntax)
      : snapshot_(snapshot), base_(snapshot.state()), catalog_(catalog), file_(file), mode_(mode), progress_(progress),
        blobs_(blob_policy), legacy_(syntax == LoadSyntax::kLegacy) {}

  Result<LoadPlan> Run(std::string_view data) {
    if (legacy_) {
      OG_RETURN_IF_ERROR(ReadLegacyRecords(data, catalog_, [&](const LegacyRecord& record, uint64_t bytes_read) {
        OG_RETURN_IF_ERROR(LegacyRecordIn(record));
        if (progress_ && record.number % kLoadProgressLines == 0) progress_(bytes_read, data.size());
        return Status::OK();
      }));
      if (progress_) progress_(data.size(), data.size());
      return Finish();
    }
    uint64_t line_no = 0;
    size_t pos = 0;
    while (pos <= data.size()) {
      size_t end = data.find('\n', pos);
      if (end == std::string_view::npos) end = data.size();
      std::string_view line = data.substr(pos, end - pos);
      ++line_no;
      pos = end + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with(utf8::kByteOrderMark)) {
        // Editors may mark a whole UTF-8 file with a BOM; inside a file it
        // is stray bytes (files joined with `cat`), which JSON refuses.
        if (line_no != 1) {
          return LineError(line_no, "invalid JSON at column 1: a byte-order mark (U+FEFF) may only start the file");
        }
        line.remove_prefix(utf8::kByteOrderMark.size());
      }
      if (line.find_first_not_of(" \t\r\f") == std::string_view::npos) {
        if (end == data.size()) break;
        continue;
      }
      if (line.size() > kMaxLineBytes) {
        return ResourceLimitExceeded("graph_batch_line_bytes", kMaxLineBytes, line.size())
            .WithContext(Where(line_no));
      }
      Status st = Record(line, line_no);
      if (!st.ok()) return st;
      if (progress_ && line_no % kLoadProgressLines == 0) progress_(pos, data.size());
      if (end == data.size()) break;
    }
    if (progress_) progress_(data.size(), data.size());
    return Finish();
  }

 private:
  // Where record `n` is, in errors: "<file>:<line>", or "record <n>" for
  // the legacy syntax, whose records may span lines.
  std::string Where(uint64_t n) const {
    return legacy_ ? fmt::format("record {}", n) : fmt::format("{}:{}", file_, n);
  }

  Status LineError(uint64_t line, std::string_view what) const {
    return InvalidArgument(fmt::format("{}: {}", Where(line), what));
  }

  // The input of node (or edge) type `name`. Files run long stretches of
  // one type, so the last answer is kept.
  Result<TableInput*> InputOf(bool is_node, std::string_view name, uint64_t line_no) {
    if (last_input_ != nullptr && last_is_node_ == is_node && last_input_->type_name == name) return last_input_;
    TableInput* in = nullptr;
    if (is_node) {
      const NodeType* node = catalog_.FindNode(name);
      if (!node) return LineError(line_no, fmt::format("unknown node type '{}'", ShortenForMessage(name)));
      OG_ASSIGN_OR_RETURN(in, Input(node, nullptr));
    } else {
      const EdgeType* e = catalog_.FindEdge(name);
      if (!e) return LineError(line_no, fmt::format("unknown edge type '{}'", ShortenForMessage(name)));
      OG_ASSIGN_OR_RETURN(in, Input(nullptr, e));
    }
    last_is_node_ = is_node;
    last_input_ = in;
    return in;
  }

  Result<TableInput*> Input(const NodeType* node, const EdgeType* edge) {
    std::string key = node ? node->TableKey() : edge->TableKey();
    auto it = inputs_.find(key);
    if (it != inputs_.end()) return &it->second;
    TableInput& in = inputs_[key];
    in.node = node;
    in.edge = edge;
    in.table_key = key;
    in.type_name = node ? node->name : edge->name;
    Schema schema = node ? catalog_.NodeTableSchema(*node) : catalog_.EdgeTableSchema(*edge);
    schema.AssignMissingFieldIds();
    in.schema = std::make_shared<const Schema>(std::move(schema));
    for (const Field& f : in.schema->fields()) {
      in.columns.push_back(ArrayBuilder::Make(f.type));
      in.properties.push_back(node ? node->FindProperty(f.name) : edge->FindProperty(f.name));
      in.is_key.push_back(node != nullptr && std::find(node->key.begin(), node->key.end(), f.name) != node->key.end());
    }
    return &in;
  }

  Status Record(std::string_view line, uint64_t line_no) {
    auto parsed = JsonValue::ParseLine(line);
    if (!parsed.ok()) {
      if (parsed.status().code() == ErrorCode::kResourceLimitExceeded) {
        return parsed.status().WithContext(Where(line_no));
      }
      return LineError(line_no, parsed.status().message());
    }
    const JsonValue& record = *parsed;
    if (!record.is_object()) return LineError(line_no, "a graph batch line must be a JSON object");
    auto type = record.Get("type");
    auto edge = record.Get("edge");
    if (type.has_value() == edge.has_value()) {
      return LineError(line_no, "a graph batch record needs exactly one of 'type' (node) or 'edge'");
    }
    for (size_t m = 0; m < record.member_count(); ++m) {
      const auto [name, value] = record.Member(m);
      if (IsReservedName(name) || name == "id" || name == "src" || name == "dst") {
        return LineError(line_no, fmt::format("top-level field '{}' is reserved physical state", name));
      }
      bool allowed = type ? (name == "type" || name == "data")
                          : (name == "edge" || name == "from" || name == "to" || name == "data");
      if (!allowed) {
        return LineError(line_no, fmt::format("unknown top-level graph batch field '{}'", ShortenForMessage(name)));
      }
    }
    auto data = record.Get("data");
    if (data && !data->is_object()) return LineError(line_no, "'data' must be a JSON object");
    const JsonValue body = data ? *data : JsonValue();  // null: no members

    TableInput* in = nullptr;
    if (type) {
      if (!type->is_string()) return LineError(line_no, "'type' must be a string");
      OG_ASSIGN_OR_RETURN(in, InputOf(true, type->string(), line_no));
    } else {
      if (!edge->is_string()) return LineError(line_no, "'edge' must be a string");
      OG_ASSIGN_OR_RETURN(in, InputOf(false, edge->string(), line_no));
      auto from = record.Get("from");
      auto to = record.Get("to");
      if (!from || !from->is_string()) return LineError(line_no, "edge record needs a string 'from'");
      if (!to || !to->is_string()) return LineError(line_no, "edge record needs a string 'to'");
      in->src.emplace_back(from->string());
      in->dst.emplace_back(to->string());
    }

    // Validate member names before converting values.
    std::optional<std::string> explicit_id;
    std::vector<std::pair<std::string_view, JsonValue>>& members = member_values_scratch_;
    members.clear();
    for (size_t m = 0; m < body.member_count(); ++m) members.push_back(body.Member(m));
    // A line has a handful of fields: a scan per column beats a hash map.
    std::vector<std::pair<std::string_view, const JsonValue*>>& by_name = members_scratch_;
    by_name.clear();
    for (const auto& [name, value] : members) {
      if (name == "id") {
        if (!value.is_string()) return LineError(line_no, "'data.id' must be a string");
        explicit_id = std::string(value.string());
        continue;
      }
      if (IsReservedName(name)) {
        return LineError(line_no, fmt::format("input field '{}' is reserved physical state", name));
      }
      if (in->edge && (name == "src" || name == "dst")) {
        return LineError(line_no, fmt::format("edge data field '{}' is reserved structural state", name));
      }
      bool declared = in->node ? in->node->FindProperty(name) != nullptr : in->edge->FindProperty(name) != nullptr;
      if (!declared) {
        return LineError(line_no,
                         fmt::format("unknown input field '{}' for '{}'", ShortenForMessage(name), in->table_key));
      }
      by_name.emplace_back(name, &value);
    }
    OG_RETURN_IF_ERROR(AddRecord(in, by_name, std::move(explicit_id), line_no));
    // Release the line's document, so the next line can reuse it.
    members.clear();
    by_name.clear();
    return Status::OK();
  }

  // A legacy record (exec/legacy_records.h), already normalised: only
  // declared properties, values of the wrong JSON kind nulled.
  Status LegacyRecordIn(const LegacyRecord& record) {
    TableInput* in = nullptr;
    if (record.node) {
      OG_ASSIGN_OR_RETURN(in, InputOf(true, record.node->name, record.number));
    } else {
      OG_ASSIGN_OR_RETURN(in, InputOf(false, record.edge->name, record.number));
      in->src.emplace_back(record.from);
      in->dst.emplace_back(record.to);
    }
    std::vector<std::pair<std::string_view, const JsonValue*>>& by_name = members_scratch_;
    by_name.clear();
    for (const auto& [name, value] : record.fields) by_name.emplace_back(name, &value);
    Status st = AddRecord(in, by_name, record.explicit_id, record.number);
    by_name.clear();
    return st;
  }

  // Converts one record's properties (`by_name`: the declared properties
  // the record gives) into the columns of `in`, both syntaxes alike.
  // `line_no` is its line (strict) or record number (legacy).
  Status AddRecord(TableInput* in, const std::vector<std::pair<std::string_view, const JsonValue*>>& by_name,
                   std::optional<std::string> explicit_id, uint64_t line_no) {
    JsonValue null_value;  // default-constructed = null
    for (size_t c = 0; c < in->columns.size(); ++c) {
      const Property* property = in->properties[c];
      if (property == nullptr) continue;  // id / src / dst, filled at the end
      const JsonValue* found = &null_value;
      for (const auto& [name, value] : by_name) {
        if (name == property->name) found = value;
      }
      const JsonValue& value = *found;
      if (in->is_key[c] && value.is_null()) {
        // §4.2 words a missing key apart from other missing values.
        return LineError(line_no, fmt::format("node {} is missing a non-null @key value", in->type_name));
      }
      Status st = AppendJsonProperty(value, property->type, property->name, in->columns[c].get(), &blobs_);
      if (!st.ok()) {
        // A refused Blob URI or a Blob budget keeps its own code and details.
        if (st.code() != ErrorCode::kInvalidArgument) return st.WithContext(Where(line_no));
        return LineError(line_no, st.message());
      }
    }
    in->explicit_ids.push_back(std::move(explicit_id));
    in->lines.push_back(line_no);
    ++in->records;
    ++total_;
    return Status::OK();
  }

  // Builds the table's batch with ids, applying the mode's duplicate rules.
  Result<RecordBatchPtr> FinishTable(TableInput& in) {
    int64_t rows = static_cast<int64_t>(in.lines.size());
    std::vector<ArrayPtr> columns(in.columns.size());
    for (size_t c = 0; c < in.columns.size(); ++c) {
      if (in.properties[c]) columns[c] = in.columns[c]->Finish();
    }
    // Ids, built straight into the id column. A generated id (a fresh
    // ULID: time and 80 random bits) is unique by construction, so only
    // given and key-derived ids can repeat.
    BinaryBuilder id_builder(DataType::Utf8());
    id_builder.Reserve(rows);
    id_builder.ReserveBytes(rows * static_cast<int64_t>(Ulid::kTextLength));
    std::vector<bool> generated(static_cast<size_t>(rows), false);
    for (int64_t r = 0; r < rows; ++r) {
      if (in.node && in.node->keyed()) {
        std::vector<Scalar> key;
        for (const std::string& k : in.node->key) key.push_back(GetScalar(*columns[in.ColumnOf(k)], r));
        auto derived = compiler::DeriveKeyId(*in.node, key);
        if (!derived.ok()) return LineError(in.lines[r], derived.status().message());
        if (in.explicit_ids[r] && *in.explicit_ids[r] != *derived) {
          if (!legacy_ || !LegacyKeySpelling(in, key, *in.explicit_ids[r])) {
            return LineError(in.lines[r],
                             fmt::format("node {} explicit id '{}' does not match its canonical @key id '{}'",
                                         in.type_name, ShortenForMessage(*in.explicit_ids[r]),
                                         ShortenForMessage(*derived)));
          }
          OG_RETURN_IF_ERROR(RemapLegacyId(in, r, *in.explicit_ids[r], *derived));
        }
        id_builder.Append(*derived);
      } else if (in.explicit_ids[r]) {
        id_builder.Append(*in.explicit_ids[r]);
      } else {
        char text[Ulid::kTextLength];
        Ulid::New().Format(text);
        id_builder.Append(std::string_view(text, sizeof(text)));
        generated[static_cast<size_t>(r)] = true;
      }
    }
    const ArrayPtr id_column = id_builder.Finish();
    const Array& ids = *id_column;
    // Duplicates within the file.
    graph::IdIndex last(static_cast<size_t>(std::count(generated.begin(), generated.end(), false)));  // id -> last row
    std::vector<int64_t> keep;
    bool repeated = false;
    for (int64_t r = 0; r < rows; ++r) {
      if (generated[static_cast<size_t>(r)]) continue;
      bool inserted = false;
      int64_t& last_row = last.FindOrInsert(ids.GetView(r), r, &inserted);
      if (inserted) continue;
      repeated = true;
      const std::string id(ids.GetView(r));
      if (in.node && in.node->keyed()) {
        std::string cols = in.node->key.size() == 1 ? in.node->key.front()
                                                    : "(" + fmt::format("{}", fmt::join(in.node->key, ", ")) + ")";
        return LineError(in.lines[r], fmt::format("@unique violation on {}.{}: value '{}' held by '{}' and '{}' "
                                                  "({} {} and {})", in.type_name, cols, id, id, id,
                                                  legacy_ ? "records" : "lines",
                                                  in.lines[last_row], in.lines[r]));
      }
      if (mode_ != LoadMode::kMerge) {
        return Status(ErrorCode::kKeyConflict,
                      fmt::format("{}: {} type '{}' already has this id: '{}' (repeated in the file)",
                                  Where(in.lines[r]), in.node ? "node" : "edge", in.type_name, id),
                      {{"entity_kind", in.node ? "node" : "edge"}, {"type_name", in.type_name}, {"entity_id", id}});
      }
      last_row = r;  // merge: the last occurrence wins
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (repeated && !generated[static_cast<size_t>(r)] && last.Find(ids.GetView(r)) != r) continue;  // replaced
      keep.push_back(r);
      in.finished_lines.push_back(in.lines[r]);
    }
    columns[in.ColumnOf("id")] = id_column;
    if (in.edge) {
      BinaryBuilder src_builder(DataType::Utf8()), dst_builder(DataType::Utf8());
      for (int64_t r = 0; r < rows; ++r) {
        src_builder.Append(Endpoint(in.edge->from_type, in.src[r]));
        dst_builder.Append(Endpoint(in.edge->to_type, in.dst[r]));
      }
      columns[in.ColumnOf("src")] = src_builder.Finish();
      columns[in.ColumnOf("dst")] = dst_builder.Finish();
    }
    auto batch = std::make_shared<const RecordBatch>(in.schema, rows, std::move(columns));
    in.finished = static_cast<int64_t>(keep.size()) == rows ? RecordBatchPtr(batch) : batch->Take(keep);
    return in.finished;
  }

  Result<LoadPlan> Finish() {
    LoadPlan plan;
    plan.total_records = total_;
    if (legacy_) {
      // Nodes first: their legacy ids remap the edges' endpoints.
      for (auto& [key, in] : inputs_) {
        if (in.node) OG_RETURN_IF_ERROR(FinishTable(in).status());
      }
    }
    for (auto& [key, in] : inputs_) {
      (in.node ? plan.node_records : plan.edge_records)[in.type_name] = in.records;
      RecordBatchPtr rows = in.finished;
      if (!rows) {
        OG_ASSIGN_OR_RETURN(rows, FinishTable(in));
      }
      TableDelta delta;
      delta.table_key = key;
      delta.upserts = rows;
      switch (mode_) {
        case LoadMode::kOverwrite: delta.replace_all = true; break;
        case LoadMode::kMerge: delta.insert_kind = TableChange::Kind::kUpsert; break;
        case LoadMode::kAppend: {
          delta.insert_kind = TableChange::Kind::kStrictInsert;
          // Refuse existing ids before anything is staged.
          const graph::TableEntry* entry = base_.FindTable(key);
          if (entry == nullptr) return Internal(fmt::format("table '{}' is not in the snapshot", key));
          OG_ASSIGN_OR_RETURN(graph::TableDataPtr committed, snapshot_.CachedRows(*entry));
          const Array& ids = *rows->GetColumn("id");
          for (int64_t r = 0; r < ids.length(); ++r) {
            if (committed->RowOf(ids.GetView(r)) >= 0) {
              std::string id(ids.GetView(r));
              return Status(ErrorCode::kKeyConflict,
                            fmt::format("{}: {} type '{}' already has this id: '{}'", Where(in.LineOfId(id)),
                                        in.node ? "node" : "edge", in.type_name, id),
                            {{"entity_kind", in.node ? "node" : "edge"}, {"type_name", in.type_name}, {"entity_id", id}});
            }
          }
          break;
        }
      }
      plan.delta.emplace(key, std::move(delta));
    }
    // End-of-write validation here rather than only by the caller, so that a
    // violation caused by a record names its line like every other error.
    Status valid = ValidateWrite(snapshot_, catalog_, plan.delta);
    if (!valid.ok()) return AtLine(valid);
    return plan;
  }

  // Prefixes "<file>:<line>: " when the violation names a row of the file.
  Status AtLine(const Status& st) const {
    const Status::Details& details = st.details();
    auto table = details.find("table_key");
    auto id = details.find("entity_id");
    if (table == details.end() || id == details.end()) return st;
    auto in = inputs_.find(table->second);
    if (in == inputs_.end()) return st;
    uint64_t line = in->second.LineOfId(id->second);
    if (line == 0) return st;
    return Status(st.code(), fmt::format("{}: {}", Where(line), st.message()), details);
  }

  // True when `explicit_id` is the legacy spelling of one component of the
  // row's key (`key`, in NodeType::key order; §4.6).
  bool LegacyKeySpelling(const TableInput& in, const std::vector<Scalar>& key, std::string_view explicit_id) const {
    for (size_t k = 0; k < key.size(); ++k) {
      const Property* property = in.node->FindProperty(in.node->key[k]);
      if (property != nullptr && LegacySpellingMatches(explicit_id, property->type, key[k])) return true;
    }
    return false;
  }

  // Row `r` of `in` gave the legacy id `legacy` for canonical id `canonical`.
  Status RemapLegacyId(const TableInput& in, int64_t r, const std::string& legacy, const std::string& canonical) {
    auto [it, inserted] = legacy_ids_[in.type_name].emplace(legacy, canonical);
    if (!inserted && it->second != canonical) {
      return LineError(in.lines[r], fmt::format("node {} explicit id '{}' maps to both canonical @key ids '{}' and "
                                                "'{}'; refusing ambiguous edge endpoint remap",
                                                in.type_name, ShortenForMessage(legacy), ShortenForMessage(it->second),
                                                ShortenForMessage(canonical)));
    }
    return Status::OK();
  }

  // The id an edge endpoint of node type `type` names: `id`, or the
  // canonical id of a node this import gave `id` as its legacy id.
  const std::string& Endpoint(const std::string& type, const std::string& id) const {
    if (legacy_ids_.empty()) return id;
    auto by_type = legacy_ids_.find(type);
    if (by_type == legacy_ids_.end()) return id;
    auto it = by_type->second.find(id);
    return it == by_type->second.end() ? id : it->second;
  }

  const graph::Snapshot& snapshot_;
  const graph::GraphState& base_;
  const Catalog& catalog_;
  std::string file_;
  LoadMode mode_;
  const LoadProgress& progress_;
  BlobInput blobs_;  // admits and counts the file's external Blob URIs
  const bool legacy_;  // LoadSyntax::kLegacy
  // Legacy syntax: node type -> legacy id -> canonical id (RemapLegacyId).
  std::map<std::string, std::unordered_map<std::string, std::string>> legacy_ids_;
  std::map<std::string, TableInput> inputs_;
  uint64_t total_ = 0;
  TableInput* last_input_ = nullptr;  // see InputOf
  bool last_is_node_ = false;
  // The current line's data fields, reused from line to line.
  std::vector<std::pair<std::string_view, JsonValue>> member_values_scratch_;
  std::vector<std::pair<std::string_view, const JsonValue*>> members_scratch_;
};

}  // namespace

Result<LoadPlan> PlanLoad(const graph::Snapshot& base, const Catalog& catalog,
                          std::string_view data, std::string_view file_name, LoadMode mode,
                          const LoadProgress& progress, const ExternalBlobPolicy& blob_policy,
                          LoadSyntax syntax) {
  return Loader(base, catalog, file_name, mode, progress, blob_policy, syntax).Run(data);
}

}  // namespace omnigraph::exec
