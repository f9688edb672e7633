#include "exec/mutation_executor.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "columnar/builder.h"
#include "compiler/entity_id.h"
#include "exec/blob_value.h"
#include "exec/json_value.h"

namespace omnigraph::exec {
namespace {

namespace ir = compiler::ir;
using compiler::Catalog;
using compiler::EdgeType;
using compiler::NodeType;

using RowImage = std::vector<Scalar>;  // one value per physical column

bool Holds(ir::CompareOp op, int c) {
  switch (op) {
    case ir::CompareOp::kEq: return c == 0;
    case ir::CompareOp::kNe: return c != 0;
    case ir::CompareOp::kLt: return c < 0;
    case ir::CompareOp::kLe: return c <= 0;
    case ir::CompareOp::kGt: return c > 0;
    case ir::CompareOp::kGe: return c >= 0;
  }
  return false;
}

// The pending effect on one table: full row images by id, and deletions.
struct PendingTable {
  std::string table_key;
  const NodeType* node = nullptr;
  const EdgeType* edge = nullptr;
  SchemaPtr schema;
  graph::TableDataPtr committed;
  std::map<std::string, RowImage> upserts;  // id -> image (ordered for deterministic staging)
  std::unordered_set<std::string> deleted;
  bool any_update = false;  // some image replaces a committed row

  int Column(std::string_view name) const { return schema->FieldIndex(name); }
  bool CommittedVisible(const std::string& id) const { return !upserts.count(id) && !deleted.count(id); }
};

class Planner {
 public:
  Planner(const graph::Snapshot& snapshot, const Catalog& catalog,
          const std::map<std::string, Scalar>& params, const ExternalBlobPolicy& blob_policy)
      : snapshot_(snapshot), base_(snapshot.state()), catalog_(catalog), params_(params), blobs_(blob_policy) {}

  Result<MutationPlan> Run(const ir::QueryIR& query) {
    for (const ir::MutationStatement& statement : query.statements) {
      switch (statement.kind) {
        case ir::MutationStatement::Kind::kInsert: OG_RETURN_IF_ERROR(Insert(statement)); break;
        case ir::MutationStatement::Kind::kUpdate: OG_RETURN_IF_ERROR(Update(statement)); break;
        case ir::MutationStatement::Kind::kDelete: OG_RETURN_IF_ERROR(Delete(statement)); break;
      }
    }
    return Finish();
  }

 private:
  Result<PendingTable*> Table(const std::string& table_key) {
    if (auto it = tables_.find(table_key); it != tables_.end()) return &it->second;
    const graph::TableEntry* entry = base_.FindTable(table_key);
    if (entry == nullptr) return Internal(fmt::format("table '{}' is not in the snapshot", table_key));
    PendingTable table;
    table.table_key = table_key;
    std::string name = table_key.substr(5);
    if (table_key.rfind("node:", 0) == 0) {
      table.node = catalog_.FindNode(name);
      Schema s = catalog_.NodeTableSchema(*table.node);
      s.AssignMissingFieldIds();
      table.schema = std::make_shared<const Schema>(std::move(s));
    } else {
      table.edge = catalog_.FindEdge(name);
      Schema s = catalog_.EdgeTableSchema(*table.edge);
      s.AssignMissingFieldIds();
      table.schema = std::make_shared<const Schema>(std::move(s));
    }
    OG_ASSIGN_OR_RETURN(table.committed, snapshot_.CachedRows(*entry));
    auto [it, inserted] = tables_.emplace(table_key, std::move(table));
    return &it->second;
  }

  Result<Scalar> Resolve(const ir::Value& value) const {
    if (value.kind == ir::Value::Kind::kLiteral) return value.literal;
    auto it = params_.find(value.param);
    if (it == params_.end()) {
      if (value.type.nullable) return Scalar::Null();
      return InvalidArgument(fmt::format("parameter '{}' not provided", value.param));
    }
    return it->second;
  }

  // Converts the value `v` of assignment `a` to what the column builder of
  // its type accepts: Blob values arrive as "base64:<data>" text or a URI
  // and are stored as their cell (exec/blob_value.h; a refused URI names the
  // parameter that carried it), and a float parameter stored in an integer
  // property must be a whole number (§3.1: numeric types are
  // inter-compatible; the builder checks the range).
  Result<Scalar> ForColumn(const ir::Assignment& a, const Scalar& value) {
    const compiler::PropertyType& type = a.type;
    if (value.is_double() && type.is_scalar() && compiler::IsInteger(type.scalar)) {
      return WholeNumber(value.double_value(), a.property);
    }
    if (value.is_null() || !type.is_blob()) return value;
    auto cell = blobs_.CellOf(value.string_value(), a.property);
    if (!cell.ok()) {
      if (a.value.kind != ir::Value::Kind::kParam) return cell.status();
      return cell.status().WithContext(fmt::format("parameter '{}'", a.value.param));
    }
    return Scalar::String(std::move(*cell));
  }

  static Result<Scalar> WholeNumber(double value, std::string_view property) {
    if (!std::isfinite(value) || std::trunc(value) != value) {
      return InvalidArgument(fmt::format("property '{}': value {} is not a whole number, and the property stores integers",
                                         property, Scalar::Double(value).ToString()));
    }
    // 2^63 and 2^64 are exact doubles; below them the conversion is exact.
    if (value >= -9223372036854775808.0 && value < 9223372036854775808.0) return Scalar::Int(static_cast<int64_t>(value));
    if (value > 0 && value < 18446744073709551616.0) return Scalar::UInt(static_cast<uint64_t>(value));
    return InvalidArgument(
        fmt::format("property '{}': value {} is outside every integer range", property, Scalar::Double(value).ToString()));
  }

  Result<RowImage> CommittedRow(const PendingTable& table, int64_t row) const {
    RowImage image;
    const RecordBatch& rows = *table.committed->rows();
    for (int c = 0; c < rows.num_columns(); ++c) image.push_back(GetScalar(*rows.column(c), row));
    return image;
  }

  Status Insert(const ir::MutationStatement& s) {
    OG_ASSIGN_OR_RETURN(PendingTable * table, Table((s.on_edge ? "edge:" : "node:") + s.type_name));
    if (!s.pending_embeddings.empty()) {
      return InvalidArgument(fmt::format("missing required property '{}': embeddings are not computed at insert "
                                         "time", s.pending_embeddings.front()));
    }
    RowImage image(table->schema->num_fields());
    for (const ir::Assignment& a : s.assignments) {
      OG_ASSIGN_OR_RETURN(Scalar v, Resolve(a.value));
      if (v.is_null() && !a.type.nullable) {
        bool is_key = table->node && std::find(table->node->key.begin(), table->node->key.end(), a.property) !=
                                         table->node->key.end();
        // §3.2 words a null key value as a missing one.
        if (is_key) return InvalidArgument(fmt::format("insert missing @key property '{}'", a.property));
        return InvalidArgument(fmt::format("missing required property '{}'", a.property));
      }
      OG_ASSIGN_OR_RETURN(image[table->Column(a.property)], ForColumn(a, v));
    }
    std::string id;
    if (table->node && table->node->keyed()) {
      std::vector<Scalar> key;
      for (const std::string& k : table->node->key) {
        const Scalar& v = image[table->Column(k)];
        if (v.is_null()) return InvalidArgument(fmt::format("insert missing @key property '{}'", k));
        key.push_back(v);
      }
      OG_ASSIGN_OR_RETURN(id, compiler::DeriveKeyId(*table->node, key));
      if (table->committed->RowOf(id) >= 0 || table->upserts.count(id)) table->any_update = true;
    } else {
      id = compiler::NewEntityId();
    }
    image[table->Column("id")] = Scalar::String(id);
    if (table->edge) {
      OG_ASSIGN_OR_RETURN(Scalar from, Resolve(*s.from));
      OG_ASSIGN_OR_RETURN(Scalar to, Resolve(*s.to));
      if (from.is_null() || to.is_null()) return InvalidArgument("edge insert needs non-null 'from' and 'to'");
      image[table->Column("src")] = from;
      image[table->Column("dst")] = to;
      ++affected_edges_;
    } else {
      ++affected_nodes_;
    }
    table->upserts[id] = std::move(image);
    return Status::OK();
  }

  // Whether row `image` satisfies the where-predicate (SQL NULL semantics).
  Result<bool> Matches(const PendingTable& table, const RowImage& image, const ir::WherePredicate& where) const {
    int column = where.column == ir::WherePredicate::Column::kSrc   ? table.Column("src")
                 : where.column == ir::WherePredicate::Column::kDst ? table.Column("dst")
                                                                    : table.Column(where.property);
    OG_ASSIGN_OR_RETURN(Scalar value, Resolve(where.value));
    std::optional<int> c = Scalar::Compare(image[column], value);
    return c.has_value() && Holds(where.op, *c);
  }

  // Visits every row visible to the statement (pending images first, then
  // committed survivors) that matches `where`.
  template <typename Visit>
  Status ForEachMatch(PendingTable& table, const ir::WherePredicate& where, Visit visit) {
    std::vector<std::pair<std::string, RowImage>> matched;
    for (const auto& [id, image] : table.upserts) {
      OG_ASSIGN_OR_RETURN(bool hit, Matches(table, image, where));
      if (hit) matched.emplace_back(id, image);
    }
    const RecordBatch& rows = *table.committed->rows();
    const Array& ids = table.committed->ids();
    int column = where.column == ir::WherePredicate::Column::kSrc   ? table.Column("src")
                 : where.column == ir::WherePredicate::Column::kDst ? table.Column("dst")
                                                                    : table.Column(where.property);
    OG_ASSIGN_OR_RETURN(Scalar value, Resolve(where.value));
    const Array& predicate_column = *rows.column(column);
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      std::optional<int> c = Scalar::Compare(GetScalar(predicate_column, r), value);
      if (!c || !Holds(where.op, *c)) continue;
      std::string id(ids.GetView(r));
      if (!table.CommittedVisible(id)) continue;
      OG_ASSIGN_OR_RETURN(RowImage image, CommittedRow(table, r));
      matched.emplace_back(std::move(id), std::move(image));
    }
    for (auto& [id, image] : matched) OG_RETURN_IF_ERROR(visit(id, image));
    return Status::OK();
  }

  Status Update(const ir::MutationStatement& s) {
    insert_only_ = false;
    OG_ASSIGN_OR_RETURN(PendingTable * table, Table("node:" + s.type_name));
    std::vector<std::pair<int, Scalar>> assigned;
    for (const ir::Assignment& a : s.assignments) {
      OG_ASSIGN_OR_RETURN(Scalar v, Resolve(a.value));
      if (v.is_null() && !a.type.nullable) {
        return InvalidArgument(fmt::format("non-nullable property '{}' cannot be set to null", a.property));
      }
      OG_ASSIGN_OR_RETURN(Scalar stored, ForColumn(a, v));
      assigned.emplace_back(table->Column(a.property), std::move(stored));
    }
    return ForEachMatch(*table, *s.where, [&](const std::string& id, RowImage image) -> Status {
      for (const auto& [column, value] : assigned) image[column] = value;
      table->upserts[id] = std::move(image);
      table->any_update = true;
      ++affected_nodes_;
      return Status::OK();
    });
  }

  Status Delete(const ir::MutationStatement& s) {
    insert_only_ = false;
    OG_ASSIGN_OR_RETURN(PendingTable * table, Table((s.on_edge ? "edge:" : "node:") + s.type_name));
    std::vector<std::string> removed;
    OG_RETURN_IF_ERROR(ForEachMatch(*table, *s.where, [&](const std::string& id, const RowImage&) -> Status {
      removed.push_back(id);
      return Status::OK();
    }));
    for (const std::string& id : removed) {
      table->upserts.erase(id);
      if (table->committed->RowOf(id) >= 0 && table->deleted.insert(id).second && table->edge) ++affected_edges_;
      if (table->node) ++affected_nodes_;
    }
    if (table->edge || removed.empty()) return Status::OK();
    // Cascade: every edge incident to a deleted node goes too; each edge is
    // counted once even when both endpoints are deleted.
    std::unordered_set<std::string> gone(removed.begin(), removed.end());
    for (const EdgeType* edge : catalog_.IncidentEdges(s.type_name)) {
      OG_ASSIGN_OR_RETURN(PendingTable * edges, Table(edge->TableKey()));
      bool src_side = edge->from_type == s.type_name, dst_side = edge->to_type == s.type_name;
      const RecordBatch& rows = *edges->committed->rows();
      const Array& ids = edges->committed->ids();
      const Array& src = *rows.GetColumn("src");
      const Array& dst = *rows.GetColumn("dst");
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        bool hit = (src_side && gone.count(std::string(src.GetView(r)))) ||
                   (dst_side && gone.count(std::string(dst.GetView(r))));
        if (!hit) continue;
        std::string id(ids.GetView(r));
        if (edges->upserts.count(id)) continue;
        if (edges->deleted.insert(id).second) ++affected_edges_;
      }
    }
    return Status::OK();
  }

  Result<MutationPlan> Finish() {
    MutationPlan plan;
    plan.affected_nodes = affected_nodes_;
    plan.affected_edges = affected_edges_;
    plan.insert_only = insert_only_;
    for (auto& [key, table] : tables_) {
      if (table.upserts.empty() && table.deleted.empty()) continue;
      TableDelta delta;
      delta.table_key = key;
      delta.deleted_ids.insert(table.deleted.begin(), table.deleted.end());
      if (!table.upserts.empty()) {
        std::vector<std::unique_ptr<ArrayBuilder>> builders;
        for (const Field& f : table.schema->fields()) builders.push_back(ArrayBuilder::Make(f.type));
        for (const auto& [id, image] : table.upserts) {
          for (size_t c = 0; c < builders.size(); ++c) {
            Status st = builders[c]->AppendScalar(image[c]);
            if (!st.ok()) {
              return InvalidArgument(fmt::format("property '{}' of {} '{}': {}", table.schema->field(c).name,
                                                 table.table_key, id, st.message()));
            }
          }
        }
        std::vector<ArrayPtr> columns;
        for (auto& b : builders) columns.push_back(b->Finish());
        OG_ASSIGN_OR_RETURN(delta.upserts, RecordBatch::Make(table.schema, std::move(columns)));
        bool keyed = table.node && table.node->keyed();
        delta.insert_kind = (keyed || table.any_update) ? TableChange::Kind::kUpsert : TableChange::Kind::kStrictInsert;
      }
      plan.delta.emplace(key, std::move(delta));
    }
    return plan;
  }

  const graph::Snapshot& snapshot_;
  const graph::GraphState& base_;
  const Catalog& catalog_;
  const std::map<std::string, Scalar>& params_;
  BlobInput blobs_;  // admits and counts the query's external Blob URIs
  std::map<std::string, PendingTable> tables_;
  uint64_t affected_nodes_ = 0;
  uint64_t affected_edges_ = 0;
  bool insert_only_ = true;
};

}  // namespace

Result<MutationPlan> PlanMutation(const graph::Snapshot& base, const Catalog& catalog,
                                  const ir::QueryIR& query, const std::map<std::string, Scalar>& params,
                                  const ExternalBlobPolicy& blob_policy) {
  if (!query.is_mutation) return InvalidArgument(fmt::format("query '{}' is not a mutation", query.name));
  return Planner(base, catalog, params, blob_policy).Run(query);
}

}  // namespace omnigraph::exec
