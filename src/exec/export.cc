#include "exec/export.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "exec/blob_value.h"
#include "exec/result_json.h"
#include "table/scanner.h"

namespace omnigraph::exec {

std::string EncodeBase64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

void AppendExportValueJson(std::string* out, const Array& array, int64_t row) {
  if (!array.IsNull(row) && array.type_id() == TypeId::kLargeBinary) {
    // §4.5: managed bytes as "base64:…" (an empty blob is "base64:"),
    // an external blob as its URI; NULL stays null below.
    BlobCell cell = DecodeBlobCell(array.GetView(row));
    AppendJsonString(out, cell.external ? std::string(cell.payload) : "base64:" + EncodeBase64(cell.payload));
    return;
  }
  AppendCellJson(out, array, row, TemporalEncoding::kInteger);
}

Result<std::string> ExportGraph(const graph::Snapshot& snapshot, const std::vector<std::string>& types) {
  std::string out;
  OG_RETURN_IF_ERROR(ExportGraphTo(snapshot, types, [&out](std::string_view piece) {
    out += piece;
    return Status::OK();
  }));
  return out;
}

Result<std::string> ExportTables(const graph::Snapshot& snapshot,
                                 const std::function<bool(const graph::TableEntry&)>& include) {
  std::string out;
  OG_RETURN_IF_ERROR(ExportTablesTo(snapshot, include, [&out](std::string_view piece) {
    out += piece;
    return Status::OK();
  }));
  return out;
}

Status ExportGraphTo(const graph::Snapshot& snapshot, const std::vector<std::string>& types, const ExportSink& sink) {
  const graph::GraphState& state = snapshot.state();
  for (const std::string& type : types) {
    if (!state.FindTable("node:" + type) && !state.FindTable("edge:" + type)) {
      return InvalidArgument(fmt::format("unknown export type '{}'", type));
    }
  }
  return ExportTablesTo(
      snapshot,
      [&types](const graph::TableEntry& table) {
        return types.empty() || std::find(types.begin(), types.end(), table.type_name()) != types.end();
      },
      sink);
}

Status ExportTablesTo(const graph::Snapshot& snapshot, const std::function<bool(const graph::TableEntry&)>& include,
                      const ExportSink& sink) {
  std::string out;
  // std::map orders "edge:*" before "node:*", then by name.
  for (const auto& [key, table] : snapshot.state().tables) {
    if (!include(table)) continue;
    // Read once and not cached: an export visits every table one time.
    OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, snapshot.ReadAllRows(table));
    const Schema& schema = *rows->schema();
    int id_column = schema.FieldIndex("id");
    if (id_column < 0) return CorruptData(fmt::format("table '{}' has no id column", key));
    const Array& ids = *rows->column(id_column);
    std::vector<int64_t> order(rows->num_rows());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return ids.GetView(a) < ids.GetView(b); });
    bool is_edge = !table.is_node();
    int src = schema.FieldIndex("src"), dst = schema.FieldIndex("dst");
    for (int64_t r : order) {
      if (is_edge) {
        out += "{\"edge\":";
        AppendJsonString(&out, table.type_name());
        out += ",\"from\":";
        AppendJsonString(&out, rows->column(src)->GetView(r));
        out += ",\"to\":";
        AppendJsonString(&out, rows->column(dst)->GetView(r));
      } else {
        out += "{\"type\":";
        AppendJsonString(&out, table.type_name());
      }
      out += ",\"data\":{\"id\":";
      AppendJsonString(&out, ids.GetView(r));
      for (int c = 0; c < schema.num_fields(); ++c) {
        const std::string& name = schema.field(c).name;
        if (c == id_column || (is_edge && (c == src || c == dst))) continue;
        out += ',';
        AppendJsonString(&out, name);
        out += ':';
        AppendExportValueJson(&out, *rows->column(c), r);
      }
      out += "}}\n";
      if (out.size() >= kExportChunkBytes) {
        OG_RETURN_IF_ERROR(sink(out));
        out.clear();
      }
    }
  }
  if (!out.empty()) OG_RETURN_IF_ERROR(sink(out));
  return Status::OK();
}

}  // namespace omnigraph::exec
