#include "lance/file_layout.h"

#include <fmt/format.h>

#include <mutex>

#include "columnar/blob_cell.h"
#include "file.pb.h"
#include "lance/blob_v2.h"
#include "lance/proto_convert.h"

namespace omnigraph::lance {
namespace {

// Layouts already built, by the serialized Schema they came from. Bounded:
// a process rarely sees more than a few schemas per table.
class FileLayoutCache {
 public:
  static FileLayoutCache& Instance() {
    static FileLayoutCache cache;
    return cache;
  }
  FileLayoutPtr Find(std::string_view schema_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = layouts_.find(schema_bytes);
    return it == layouts_.end() ? nullptr : it->second;
  }
  void Insert(std::string_view schema_bytes, FileLayoutPtr layout) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (layouts_.size() >= kMaxLayouts) layouts_.clear();
    layouts_.emplace(std::string(schema_bytes), std::move(layout));
  }

 private:
  static constexpr size_t kMaxLayouts = 256;
  std::mutex mutex_;
  std::map<std::string, FileLayoutPtr, std::less<>> layouts_;
};

// Splits a serialized FileDescriptor (1: schema, 2: length) without parsing
// the schema. False when the bytes are not exactly one schema and at most
// one length; the caller then parses them in full.
bool SplitFileDescriptor(std::string_view bytes, std::string_view* schema, uint64_t* length) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t pos = 0;
  bool seen_schema = false, seen_length = false;
  *length = 0;
  while (pos < bytes.size()) {
    uint64_t key, n;
    if (!ReadProtoVarint(p, bytes.size(), &pos, &key)) return false;
    // Field number 0 and tags beyond 32 bits are invalid protobuf: leave
    // them to the full parse, which refuses them.
    if (key >> 3 == 0 || key > 0xFFFFFFFFu) return false;
    if (key == (1 << 3 | 2) && !seen_schema) {
      if (!ReadProtoVarint(p, bytes.size(), &pos, &n) || n > bytes.size() - pos) return false;
      *schema = bytes.substr(pos, n);
      pos += n;
      seen_schema = true;
    } else if (key == (2 << 3 | 0) && !seen_length) {
      if (!ReadProtoVarint(p, bytes.size(), &pos, length)) return false;
      seen_length = true;
    } else if (key >> 3 == 1 || key >> 3 == 2) {
      return false;  // repeated or mistyped: protobuf's merge rules apply
    } else if (!SkipProtoField(p, bytes.size(), &pos, key)) {
      return false;  // unknown fields (our checksum) are skipped
    }
  }
  return seen_schema;
}

bool IsContainer(const std::string& logical_type) {
  return logical_type == "struct" || logical_type == "list" || logical_type == "large_list" || logical_type == "map";
}

// The layout of the flattened schema `proto`. Top-level fields we cannot
// read stay out of its schema and make ReadField return Unsupported.
Result<FileLayoutPtr> BuildLayout(const ::lance::file::Schema& proto, const std::string& where) {
  auto layout = std::make_shared<FileLayout>();
  std::vector<TopField>& top_fields = layout->top_fields;
  const auto& fields = proto.fields();
  std::map<int32_t, int> index_of_id;
  std::vector<std::vector<int>> children(static_cast<size_t>(fields.size()));
  std::vector<int> roots;
  bool in_blob = false;  // after a blob descriptor struct, before its first non-member
  for (int i = 0; i < fields.size(); ++i) {
    const auto& f = fields.Get(i);
    // Lance writes a blob descriptor's members as id -1 fields right
    // after the struct; they are part of its one column.
    if (in_blob && f.id() < 0 && f.parent_id() < 0) continue;
    in_blob = f.parent_id() < 0 && IsBlobV2FileField(f);
    if (!index_of_id.emplace(f.id(), i).second) {
      return CorruptData(fmt::format("{}: field id {} is used twice", where, f.id()));
    }
    int32_t parent = f.parent_id();
    if (parent < 0) {
      roots.push_back(i);
      continue;
    }
    auto it = index_of_id.find(parent);
    if (it == index_of_id.end()) {
      return CorruptData(fmt::format("{}: field '{}' names parent id {} which does not precede it", where,
                                     fields.Get(i).name(), parent));
    }
    children[static_cast<size_t>(it->second)].push_back(i);
  }
  std::vector<Field> supported;
  std::vector<std::pair<size_t, size_t>> supported_index;  // top field -> index in `supported`
  int column = 0;
  for (int root : roots) {
    if (IsBlobV2FileField(fields.Get(root))) {
      TopField top;
      top.id = fields.Get(root).id();
      top.name = fields.Get(root).name();
      top.first_column = column;
      top.num_columns = 1;
      top.blob = true;
      Field field = MakeBlobV2Field(top.name, fields.Get(root).nullable());
      field.id = top.id;
      supported_index.emplace_back(top_fields.size(), supported.size());
      supported.push_back(std::move(field));
      column += 1;
      layout->top_by_id[top.id] = static_cast<int>(top_fields.size());
      top_fields.push_back(std::move(top));
      continue;
    }
    // This field's subtree in pre-order.
    ProtoFields subtree;
    std::vector<int> stack{root};
    int leaves = 0;
    while (!stack.empty()) {
      int i = stack.back();
      stack.pop_back();
      *subtree.Add() = fields.Get(i);
      if (!IsContainer(fields.Get(i).logical_type())) ++leaves;
      const auto& kids = children[static_cast<size_t>(i)];
      for (auto k = kids.rbegin(); k != kids.rend(); ++k) stack.push_back(*k);
    }
    TopField top;
    top.id = fields.Get(root).id();
    top.name = fields.Get(root).name();
    top.first_column = column;
    ProtoBytesMap no_metadata;
    auto parsed = SchemaFromProto(subtree, no_metadata, where);
    if (parsed.ok() && parsed->num_fields() == 1) {
      const Field& field = parsed->field(0);
      top.num_columns = CountLeaves(field);
      Status st = CollectLeafPaths(field, &top.paths);
      if (!st.ok()) {
        top.unsupported = Unsupported(fmt::format("{}: field '{}': {}", where, top.name, st.message()));
        layout->shareable = false;
        top.paths.clear();
      } else {
        supported_index.emplace_back(top_fields.size(), supported.size());
        supported.push_back(field);
      }
    } else if (!parsed.ok() && parsed.status().code() == ErrorCode::kUnsupported) {
      top.unsupported = parsed.status();
      layout->shareable = false;
    } else if (!parsed.ok()) {
      return parsed.status();
    } else {
      return CorruptData(fmt::format("{}: field '{}' does not form one tree", where, top.name));
    }
    if (top.field == nullptr && top.paths.empty()) top.num_columns = leaves;
    column += top.num_columns;
    layout->top_by_id[top.id] = static_cast<int>(top_fields.size());
    top_fields.push_back(std::move(top));
  }
  layout->total_columns = column;
  Metadata metadata;
  for (const auto& [key, value] : proto.metadata()) metadata[key] = value;
  layout->schema = std::make_shared<const Schema>(std::move(supported), std::move(metadata));
  for (const auto& [top_index, schema_index] : supported_index) {
    top_fields[top_index].field = &layout->schema->field(static_cast<int>(schema_index));
  }
  return FileLayoutPtr(std::move(layout));
}

}  // namespace

bool ReadProtoVarint(const uint8_t* p, size_t size, size_t* pos, uint64_t* out) {
  *out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= size) return false;
    uint8_t b = p[(*pos)++];
    *out |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool SkipProtoField(const uint8_t* p, size_t size, size_t* pos, uint64_t key) {
  uint64_t n;
  switch (key & 7) {
    case 0: return ReadProtoVarint(p, size, pos, &n);
    case 1: n = 8; break;
    case 5: n = 4; break;
    case 2:
      if (!ReadProtoVarint(p, size, pos, &n)) return false;
      break;
    default: return false;
  }
  if (n > size - *pos) return false;
  *pos += n;
  return true;
}

int CountLeaves(const Field& field) {
  switch (field.type->id()) {
    case TypeId::kStruct: {
      int n = 0;
      for (const Field& member : field.type->children()) n += CountLeaves(member);
      return n;
    }
    case TypeId::kList: return CountLeaves(field.type->item());
    default: return 1;
  }
}

Status ReadFileLayout(std::string_view descriptor_bytes, const std::string& where, uint64_t* num_rows,
                      FileLayoutPtr* layout_out) {
  std::string_view schema_bytes;
  if (!SplitFileDescriptor(descriptor_bytes, &schema_bytes, num_rows)) {
    ::lance::file::FileDescriptor descriptor;
    if (!ParseMessage(descriptor_bytes, &descriptor)) {
      return CorruptData(fmt::format("{}: undecodable file descriptor", where));
    }
    *num_rows = descriptor.length();
    OG_ASSIGN_OR_RETURN(*layout_out, BuildLayout(descriptor.schema(), where));
    return Status::OK();
  }
  FileLayoutCache& cache = FileLayoutCache::Instance();
  if ((*layout_out = cache.Find(schema_bytes))) return Status::OK();
  ::lance::file::Schema schema;
  if (!ParseMessage(schema_bytes, &schema)) {
    return CorruptData(fmt::format("{}: undecodable file descriptor", where));
  }
  OG_ASSIGN_OR_RETURN(*layout_out, BuildLayout(schema, where));
  if ((*layout_out)->shareable) cache.Insert(schema_bytes, *layout_out);
  return Status::OK();
}

}  // namespace omnigraph::lance
