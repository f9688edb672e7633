#include "exec/changes/table_diff.h"

#include <algorithm>

#include <fmt/format.h>

#include "exec/export.h"

namespace omnigraph::exec {
namespace {

std::string ExportJson(const Array& column, int64_t row) {
  std::string out;
  AppendExportValueJson(&out, column, row);
  return out;
}

}  // namespace

Result<TableDiff::Version> TableDiff::Load(const Side& side, bool is_edge) {
  Version version;
  if (side.entry == nullptr) return version;
  OG_ASSIGN_OR_RETURN(version.data, side.snapshot->CachedRows(*side.entry));
  const Schema& schema = *version.data->rows()->schema();
  if (is_edge) {
    version.src = version.data->Column("src");
    version.dst = version.data->Column("dst");
    if (version.src == nullptr || version.dst == nullptr) {
      return CorruptData(fmt::format("edge table '{}' has no src/dst column", side.entry->table_key));
    }
  }
  for (int c = 0; c < schema.num_fields(); ++c) {
    const std::string& name = schema.field(c).name;
    if (name == "id" || (is_edge && (name == "src" || name == "dst"))) continue;
    version.properties.push_back(c);
  }
  return version;
}

Result<TableDiff> TableDiff::Compare(const Side& before, const Side& after, const ChangeFilter& filter) {
  const graph::TableEntry* any = after.entry ? after.entry : before.entry;
  TableDiff diff;
  diff.kind_ = any->is_node() ? EntityKind::kNode : EntityKind::kEdge;
  diff.type_ = EntityType{TypeIdOf(any->identity), any->type_name()};
  bool is_edge = diff.kind_ == EntityKind::kEdge;
  OG_ASSIGN_OR_RETURN(diff.before_, Load(before, is_edge));
  OG_ASSIGN_OR_RETURN(diff.after_, Load(after, is_edge));
  const graph::TableData* old_rows = diff.before_.data.get();
  const graph::TableData* new_rows = diff.after_.data.get();

  // User columns pair by name: within one schema contract both versions
  // have the same columns; across a contract change (the diff API may
  // compare any two snapshots) a column only one side has reads as null
  // on the other.
  if (old_rows != nullptr && new_rows != nullptr) {
    const Schema& old_schema = *old_rows->rows()->schema();
    const Schema& new_schema = *new_rows->rows()->schema();
    for (int c : diff.after_.properties) {
      diff.before_column_of_.push_back(old_schema.FieldIndex(new_schema.field(c).name));
    }
    for (int c : diff.before_.properties) {
      if (new_schema.FieldIndex(old_schema.field(c).name) < 0) diff.before_only_.push_back(c);
    }
  }

  if (new_rows != nullptr && (filter.AdmitsOp(ChangeOp::kInsert) || filter.AdmitsOp(ChangeOp::kUpdate))) {
    const Array& ids = new_rows->ids();
    for (int64_t a = 0; a < new_rows->num_rows(); ++a) {
      std::string_view id = ids.GetView(a);
      int64_t b = old_rows ? old_rows->RowOf(id) : -1;
      if (b < 0) {
        if (filter.AdmitsOp(ChangeOp::kInsert)) diff.rows_.push_back(Row{id, ChangeOp::kInsert, -1, a});
      } else if (filter.AdmitsOp(ChangeOp::kUpdate) && diff.Differs(b, a)) {
        diff.rows_.push_back(Row{id, ChangeOp::kUpdate, b, a});
      }
    }
  }
  if (old_rows != nullptr && filter.AdmitsOp(ChangeOp::kDelete)) {
    const Array& ids = old_rows->ids();
    for (int64_t b = 0; b < old_rows->num_rows(); ++b) {
      std::string_view id = ids.GetView(b);
      if (new_rows == nullptr || new_rows->RowOf(id) < 0) diff.rows_.push_back(Row{id, ChangeOp::kDelete, b, -1});
    }
  }
  // Ids are unique within a version, so each id has one change.
  std::sort(diff.rows_.begin(), diff.rows_.end(), [](const Row& x, const Row& y) { return x.id < y.id; });
  return diff;
}

bool TableDiff::Differs(int64_t b, int64_t a) const {
  if (kind_ == EntityKind::kEdge &&
      (before_.src->GetView(b) != after_.src->GetView(a) || before_.dst->GetView(b) != after_.dst->GetView(a))) {
    return true;
  }
  const RecordBatch& old_rows = *before_.data->rows();
  const RecordBatch& new_rows = *after_.data->rows();
  for (size_t k = 0; k < after_.properties.size(); ++k) {
    const Array& now = *new_rows.column(after_.properties[k]);
    int old_column = before_column_of_[k];
    if (old_column < 0) {
      if (now.IsValid(a)) return true;
      continue;
    }
    const Array& was = *old_rows.column(old_column);
    if (was.type()->Equals(*now.type())) {
      if (!ElementsEqual(was, b, now, a)) return true;
    } else if (ExportJson(was, b) != ExportJson(now, a)) {
      // A column whose type changed across a contract compares by value
      // as exported (an Int32 5 widened to Int64 5 is no change).
      return true;
    }
  }
  for (int c : before_only_) {
    if (old_rows.column(c)->IsValid(b)) return true;
  }
  return false;
}

EntityImage TableDiff::ImageOf(const Version& version, int64_t row) const {
  EntityImage image;
  const RecordBatch& rows = *version.data->rows();
  image.properties.reserve(version.properties.size());
  for (int c : version.properties) {
    image.properties.emplace_back(rows.schema()->field(c).name, ExportJson(*rows.column(c), row));
  }
  if (kind_ == EntityKind::kEdge) {
    image.endpoints = Endpoints{std::string(version.src->GetView(row)), std::string(version.dst->GetView(row))};
  }
  return image;
}

EntityChange TableDiff::Render(size_t i) const {
  const Row& row = rows_[i];
  EntityChange change;
  change.kind = kind_;
  change.type = type_;
  change.id = std::string(row.id);
  change.op = row.op;
  if (row.before >= 0) change.before = ImageOf(before_, row.before);
  if (row.after >= 0) change.after = ImageOf(after_, row.after);
  return change;
}

}  // namespace omnigraph::exec
