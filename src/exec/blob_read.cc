#include "exec/blob_read.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "exec/blob_value.h"
#include "util/utf8.h"

namespace omnigraph::exec {

using utf8::ShortenForMessage;

Result<BlobValue> ReadBlobCell(const graph::Snapshot& snapshot, const compiler::Catalog& catalog,
                               BlobSelector* selector) {
  const compiler::Property* property = nullptr;
  std::string table_key;
  if (selector->entity == "node") {
    const compiler::NodeType* node = catalog.FindNode(selector->type);
    if (node == nullptr) return NotFound(fmt::format("unknown node type '{}'", ShortenForMessage(selector->type)));
    property = node->FindProperty(selector->property);
    table_key = node->TableKey();
  } else if (selector->entity == "edge") {
    const compiler::EdgeType* edge = catalog.FindEdge(selector->type);
    if (edge == nullptr) return NotFound(fmt::format("unknown edge type '{}'", ShortenForMessage(selector->type)));
    selector->type = edge->name;  // canonical spelling
    property = edge->FindProperty(selector->property);
    table_key = edge->TableKey();
  } else {
    return InvalidArgument(
        fmt::format("blob entity must be 'node' or 'edge', got '{}'", ShortenForMessage(selector->entity)));
  }
  const std::string dotted = fmt::format("{}.{}", selector->type, ShortenForMessage(selector->property));
  if (property == nullptr) {
    return NotFound(fmt::format("{} type '{}' has no property '{}'", selector->entity, selector->type,
                                ShortenForMessage(selector->property)));
  }
  if (!property->type.is_blob()) {
    return InvalidArgument(fmt::format("property '{}' is {}, not Blob", dotted, property->type.ToString()));
  }
  const graph::TableEntry* table = snapshot.FindTable(table_key);
  if (table == nullptr) return NotFound(fmt::format("unknown {} type '{}'", selector->entity, selector->type));
  OG_ASSIGN_OR_RETURN(graph::TableDataPtr rows, snapshot.CachedRows(*table));
  const int64_t row = rows->RowOf(selector->id);
  if (row < 0) {
    return NotFound(fmt::format("{} {} '{}' not found", selector->entity, selector->type, ShortenForMessage(selector->id)));
  }
  const Array* column = rows->Column(selector->property);
  // A column added after this snapshot's rows were written reads as NULL.
  if (column == nullptr || column->IsNull(row)) {
    return NotFound(fmt::format("blob property '{}' of {} '{}' is null", dotted, selector->entity,
                                ShortenForMessage(selector->id)));
  }
  if (column->type_id() != TypeId::kLargeBinary) {
    return CorruptData(fmt::format("blob column '{}' of table '{}' is not LargeBinary", selector->property, table_key));
  }
  BlobCell cell = DecodeBlobCell(column->GetView(row));
  BlobValue value;
  value.external = cell.external;
  (cell.external ? value.uri : value.bytes) = std::string(cell.payload);
  return value;
}

Status CheckBlobRange(const BlobRangeRequest& range) {
  if (!range.length) return Status::OK();
  if (*range.length == 0) return InvalidArgument("blob range length must be positive");
  if (*range.length > std::numeric_limits<uint64_t>::max() - range.offset) {
    return InvalidArgument(fmt::format("blob range offset {} + length {} overflows", range.offset, *range.length));
  }
  if (*range.length > kBlobReadRangeMaxBytes) {
    return ResourceLimitExceeded("Blob read range bytes", kBlobReadRangeMaxBytes, *range.length);
  }
  return Status::OK();
}

Result<std::pair<uint64_t, uint64_t>> ResolveBlobRange(const BlobRangeRequest& range, uint64_t size) {
  if (size == 0) return std::pair<uint64_t, uint64_t>{0, 0};
  const uint64_t start = range.offset;
  const uint64_t wanted_end = range.length ? start + *range.length : size;
  if (start >= size) {
    return Status(ErrorCode::kBlobRangeNotSatisfiable,
                  fmt::format("blob range [{}, {}) is not satisfiable: the value holds {} bytes", start, wanted_end,
                              size),
                  {{"start", std::to_string(start)}, {"end", std::to_string(wanted_end)},
                   {"length", std::to_string(size)}});
  }
  uint64_t end = std::min(wanted_end, size);
  if (!range.length) end = std::min(end, start + kBlobReadRangeMaxBytes);
  return std::pair<uint64_t, uint64_t>{start, end};
}

}  // namespace omnigraph::exec
