#include "lance/proto_convert.h"

#include <map>
#include <set>

#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>

#include "columnar/blob_cell.h"
#include "lance/blob_v2.h"
#include "lance/logical_type.h"

namespace omnigraph::lance {
namespace {

constexpr int32_t kEncodingPlain = 1;
constexpr int32_t kEncodingVarBinary = 2;

Status AppendField(const Field& field, int32_t parent_id, ProtoFields* out, SchemaForm form) {
  if (field.id < 0) return InvalidArgument(fmt::format("field '{}' has no field id", field.name));
  if (IsBlobV2Field(field)) {
    if (parent_id >= 0) return InvalidArgument(fmt::format("blob field '{}' is not a top-level field", field.name));
    AppendBlobV2Fields(field, form == SchemaForm::kDataFile, out);
    return Status::OK();
  }
  OG_ASSIGN_OR_RETURN(std::string logical, LogicalTypeName(*field.type));
  ::lance::file::Field* proto = out->Add();
  proto->set_name(field.name);
  proto->set_id(field.id);
  proto->set_parent_id(parent_id);
  proto->set_logical_type(logical);
  proto->set_nullable(field.nullable);
  proto->set_encoding(field.type->is_binary_like() ? kEncodingVarBinary : kEncodingPlain);
  for (const auto& [key, value] : field.metadata) (*proto->mutable_metadata())[key] = value;
  if (field.unenforced_primary_key) {
    proto->set_unenforced_primary_key(true);
  }
  // A fixed-size list of primitives is a single leaf in Lance's schema.
  if (field.type->id() == TypeId::kList || field.type->id() == TypeId::kStruct) {
    for (const Field& child : field.type->children()) OG_RETURN_IF_ERROR(AppendField(child, field.id, out, form));
  }
  return Status::OK();
}

struct Node {
  const ::lance::file::Field* proto;
  std::vector<int> children;  // indices into the flat list
};

Result<Field> BuildField(const std::vector<Node>& nodes, int index, std::string_view where, int depth) {
  const ::lance::file::Field& proto = *nodes[index].proto;
  if (depth > 64) return CorruptData(fmt::format("{}: schema nesting deeper than 64 levels", where));
  Field field;
  field.name = proto.name();
  field.id = proto.id();
  field.nullable = proto.nullable();
  field.unenforced_primary_key = proto.unenforced_primary_key();
  for (const auto& [key, value] : proto.metadata()) field.metadata[key] = value;
  const std::string& logical = proto.logical_type();
  const std::vector<int>& children = nodes[index].children;
  if (IsBlobV2ManifestField(proto)) {
    if (depth > 0) return Unsupported(fmt::format("{}: blob field '{}' is not a top-level field", where, field.name));
    std::vector<const ::lance::file::Field*> members;
    for (int child : children) members.push_back(nodes[child].proto);
    return BlobV2FieldFromManifest(proto, members, where);
  }
  if (logical == "list") {
    if (children.size() != 1) {
      return CorruptData(fmt::format("{}: list field '{}' has {} children, expected 1", where, field.name, children.size()));
    }
    OG_ASSIGN_OR_RETURN(Field item, BuildField(nodes, children.front(), where, depth + 1));
    field.type = DataType::List(std::move(item));
  } else if (logical == "struct") {
    std::vector<Field> members;
    for (int child : children) {
      OG_ASSIGN_OR_RETURN(Field member, BuildField(nodes, child, where, depth + 1));
      members.push_back(std::move(member));
    }
    field.type = DataType::Struct(std::move(members));
  } else {
    if (!children.empty()) {
      return Unsupported(fmt::format("{}: field '{}' of type '{}' has child fields", where, field.name, logical));
    }
    auto type = ParseLeafLogicalType(logical);
    if (!type.ok()) return type.status().WithContext(fmt::format("{}: field '{}'", where, field.name));
    field.type = std::move(type).value();
  }
  return field;
}

}  // namespace

Status SchemaToProto(const Schema& schema, ProtoFields* fields, ProtoBytesMap* metadata, SchemaForm form) {
  for (const Field& field : schema.fields()) OG_RETURN_IF_ERROR(AppendField(field, -1, fields, form));
  if (metadata != nullptr) {
    for (const auto& [key, value] : schema.metadata()) (*metadata)[key] = value;
  }
  return Status::OK();
}

Result<Schema> SchemaFromProto(const ProtoFields& fields, const ProtoBytesMap& metadata, std::string_view where) {
  std::vector<Node> nodes;
  nodes.reserve(fields.size());
  std::map<int32_t, int> index_of_id;
  std::vector<int> roots;
  for (int i = 0; i < fields.size(); ++i) {
    const auto& proto = fields.Get(i);
    if (proto.id() < 0) return CorruptData(fmt::format("{}: field '{}' has negative id {}", where, proto.name(), proto.id()));
    if (!index_of_id.emplace(proto.id(), i).second) {
      return CorruptData(fmt::format("{}: field id {} is used twice", where, proto.id()));
    }
    nodes.push_back(Node{&proto, {}});
  }
  for (int i = 0; i < fields.size(); ++i) {
    int32_t parent = fields.Get(i).parent_id();
    if (parent < 0) {
      roots.push_back(i);
      continue;
    }
    auto it = index_of_id.find(parent);
    // Pre-order: a parent always precedes its children, which also rules out cycles.
    if (it == index_of_id.end() || it->second >= i) {
      return CorruptData(fmt::format("{}: field '{}' names parent id {} which does not precede it", where,
                                     fields.Get(i).name(), parent));
    }
    nodes[it->second].children.push_back(i);
  }
  std::vector<Field> top;
  for (int root : roots) {
    OG_ASSIGN_OR_RETURN(Field field, BuildField(nodes, root, where, 0));
    top.push_back(std::move(field));
  }
  Metadata schema_metadata;
  for (const auto& [key, value] : metadata) schema_metadata[key] = value;
  return Schema(std::move(top), std::move(schema_metadata));
}

void FragmentToProto(const Fragment& fragment, ::lance::table::DataFragment* out) {
  out->set_id(fragment.id);
  out->set_physical_rows(fragment.physical_rows);
  for (const DataFile& file : fragment.files) {
    auto* proto = out->add_files();
    proto->set_path(file.path);
    for (int32_t f : file.fields) proto->add_fields(f);
    for (int32_t c : file.column_indices) proto->add_column_indices(c);
    proto->set_file_major_version(file.file_major_version);
    proto->set_file_minor_version(file.file_minor_version);
    proto->set_file_size_bytes(file.file_size_bytes);
    if (file.base_id) proto->set_base_id(*file.base_id);
  }
  if (fragment.deletion_file) {
    const DeletionFile& d = *fragment.deletion_file;
    auto* proto = out->mutable_deletion_file();
    proto->set_file_type(d.kind == DeletionFileKind::kBitmap ? ::lance::table::DeletionFile::BITMAP
                                                             : ::lance::table::DeletionFile::ARROW_ARRAY);
    proto->set_read_version(d.read_version);
    proto->set_id(d.id);
    proto->set_num_deleted_rows(d.num_deleted_rows);
    if (d.base_id) proto->set_base_id(*d.base_id);
    if (d.checksum) proto->set_omnigraph_checksum(*d.checksum);
  }
}

Result<Fragment> FragmentFromProto(const ::lance::table::DataFragment& proto, std::string_view where) {
  Fragment fragment;
  fragment.id = proto.id();
  fragment.physical_rows = proto.physical_rows();
  if (proto.row_id_sequence_case() != ::lance::table::DataFragment::ROW_ID_SEQUENCE_NOT_SET ||
      proto.created_at_version_sequence_case() != ::lance::table::DataFragment::CREATED_AT_VERSION_SEQUENCE_NOT_SET ||
      proto.last_updated_at_version_sequence_case() !=
          ::lance::table::DataFragment::LAST_UPDATED_AT_VERSION_SEQUENCE_NOT_SET) {
    return Unsupported(fmt::format("{}: fragment {} carries stable row-id sequences", where, fragment.id));
  }
  if (proto.overlays_size() > 0) {
    return Unsupported(fmt::format("{}: fragment {} carries data overlay files", where, fragment.id));
  }
  for (const auto& f : proto.files()) {
    DataFile file;
    file.path = f.path();
    file.fields.assign(f.fields().begin(), f.fields().end());
    file.column_indices.assign(f.column_indices().begin(), f.column_indices().end());
    file.file_major_version = f.file_major_version();
    file.file_minor_version = f.file_minor_version();
    file.file_size_bytes = f.file_size_bytes();
    if (f.has_base_id()) file.base_id = f.base_id();
    if (file.path.empty()) return CorruptData(fmt::format("{}: fragment {} has a data file without a path", where, fragment.id));
    if (!file.column_indices.empty() && file.column_indices.size() != file.fields.size()) {
      return CorruptData(fmt::format("{}: fragment {} data file '{}' lists {} fields but {} column indices", where,
                                     fragment.id, file.path, file.fields.size(), file.column_indices.size()));
    }
    fragment.files.push_back(std::move(file));
  }
  if (proto.has_deletion_file()) {
    const auto& d = proto.deletion_file();
    DeletionFile deletion;
    switch (d.file_type()) {
      case ::lance::table::DeletionFile::ARROW_ARRAY: deletion.kind = DeletionFileKind::kArrowArray; break;
      case ::lance::table::DeletionFile::BITMAP: deletion.kind = DeletionFileKind::kBitmap; break;
      default:
        return Unsupported(fmt::format("{}: fragment {} has deletion file type {}", where, fragment.id,
                                       static_cast<int>(d.file_type())));
    }
    deletion.read_version = d.read_version();
    deletion.id = d.id();
    deletion.num_deleted_rows = d.num_deleted_rows();
    if (d.has_base_id()) deletion.base_id = d.base_id();
    if (d.has_omnigraph_checksum()) deletion.checksum = d.omnigraph_checksum();
    if (deletion.num_deleted_rows > fragment.physical_rows) {
      return CorruptData(fmt::format("{}: fragment {} deletes {} of its {} rows", where, fragment.id,
                                     deletion.num_deleted_rows, fragment.physical_rows));
    }
    fragment.deletion_file = deletion;
  }
  return fragment;
}

bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message) {
  google::protobuf::LogSilencer quiet;  // counted: discards non-fatal logs while any exists
  return message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace omnigraph::lance
