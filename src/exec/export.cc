#include "exec/export.h"

#include <algorithm>

#include <fmt/format.h>

#include "exec/blob_value.h"
#include "exec/ordered_lines.h"
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

Result<std::string> ExportGraph(const graph::Snapshot& snapshot, const std::vector<std::string>& types,
                                OrderedScanBudget* budget) {
  std::string out;
  OG_RETURN_IF_ERROR(ExportGraphTo(
      snapshot, types,
      [&out](std::string_view piece) {
        out += piece;
        return Status::OK();
      },
      budget));
  return out;
}

Result<std::string> ExportTables(const graph::Snapshot& snapshot,
                                 const std::function<bool(const graph::TableEntry&)>& include,
                                 OrderedScanBudget* budget) {
  std::string out;
  OG_RETURN_IF_ERROR(ExportTablesTo(
      snapshot, include,
      [&out](std::string_view piece) {
        out += piece;
        return Status::OK();
      },
      kOrderedRunBytes, budget));
  return out;
}

Status ExportGraphTo(const graph::Snapshot& snapshot, const std::vector<std::string>& types, const ExportSink& sink,
                     OrderedScanBudget* budget) {
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
      sink, kOrderedRunBytes, budget);
}

Status ExportTablesTo(const graph::Snapshot& snapshot, const std::function<bool(const graph::TableEntry&)>& include,
                      const ExportSink& sink, int64_t run_bytes, OrderedScanBudget* budget) {
  std::string out;
  auto emit = [&](std::string_view line) -> Status {
    out += line;
    if (out.size() >= kExportChunkBytes) {
      OG_RETURN_IF_ERROR(sink(out));
      out.clear();
    }
    return Status::OK();
  };
  // std::map orders "edge:*" before "node:*", then by name.
  for (const auto& [key, table] : snapshot.state().tables) {
    if (!include(table)) continue;
    // Scanned once, batch by batch, and not cached: an export visits every
    // table one time, and rows are held only as lines awaiting their order.
    IdOrderedLines lines(run_bytes, budget);
    const bool is_edge = !table.is_node();
    OG_RETURN_IF_ERROR(snapshot.ScanRows(table, kExportScanBatchRows, [&](const RecordBatch& rows) -> Status {
      const Schema& schema = *rows.schema();
      int id_column = schema.FieldIndex("id");
      if (id_column < 0) return CorruptData(fmt::format("table '{}' has no id column", key));
      const Array& ids = *rows.column(id_column);
      int src = schema.FieldIndex("src"), dst = schema.FieldIndex("dst");
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        std::string line;
        if (is_edge) {
          line += "{\"edge\":";
          AppendJsonString(&line, table.type_name());
          line += ",\"from\":";
          AppendJsonString(&line, rows.column(src)->GetView(r));
          line += ",\"to\":";
          AppendJsonString(&line, rows.column(dst)->GetView(r));
        } else {
          line += "{\"type\":";
          AppendJsonString(&line, table.type_name());
        }
        line += ",\"data\":{\"id\":";
        AppendJsonString(&line, ids.GetView(r));
        for (int c = 0; c < schema.num_fields(); ++c) {
          const std::string& name = schema.field(c).name;
          if (c == id_column || (is_edge && (c == src || c == dst))) continue;
          line += ',';
          AppendJsonString(&line, name);
          line += ':';
          AppendExportValueJson(&line, *rows.column(c), r);
        }
        line += "}}\n";
        OG_RETURN_IF_ERROR(lines.Add(ids.GetView(r), std::move(line)));
      }
      return Status::OK();
    }));
    OG_RETURN_IF_ERROR(lines.Drain(emit));
  }
  if (!out.empty()) OG_RETURN_IF_ERROR(sink(out));
  return Status::OK();
}

}  // namespace omnigraph::exec
