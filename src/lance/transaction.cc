#include "lance/transaction.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "lance/proto_convert.h"
#include "transaction.pb.h"
#include "util/checksum.h"

namespace omnigraph::lance {
namespace {

using ProtoTransaction = ::lance::table::Transaction;
using ProtoFragments = google::protobuf::RepeatedPtrField<::lance::table::DataFragment>;

void FragmentsToProto(const std::vector<Fragment>& fragments, ProtoFragments* out) {
  for (const Fragment& f : fragments) FragmentToProto(f, out->Add());
}

Result<std::vector<Fragment>> FragmentsFromProto(const ProtoFragments& protos, std::string_view where) {
  std::vector<Fragment> out;
  out.reserve(protos.size());
  for (const auto& p : protos) {
    OG_ASSIGN_OR_RETURN(Fragment f, FragmentFromProto(p, where));
    out.push_back(std::move(f));
  }
  return out;
}

struct EncodeVisitor {
  ProtoTransaction* proto;
  Status* status;  // the first schema that did not encode
  void Keep(Status st) const {
    if (status->ok()) *status = std::move(st);
  }
  void operator()(const AppendOperation& op) const { FragmentsToProto(op.fragments, proto->mutable_append()->mutable_fragments()); }
  void operator()(const DeleteOperation& op) const {
    auto* d = proto->mutable_delete_();
    FragmentsToProto(op.updated_fragments, d->mutable_updated_fragments());
    for (uint64_t id : op.deleted_fragment_ids) d->add_deleted_fragment_ids(id);
    d->set_predicate(op.predicate);
  }
  void operator()(const OverwriteOperation& op) const {
    auto* o = proto->mutable_overwrite();
    FragmentsToProto(op.fragments, o->mutable_fragments());
    Keep(SchemaToProto(op.schema, o->mutable_schema(), o->mutable_schema_metadata()));
    for (const auto& [k, v] : op.config_upsert_values) (*o->mutable_config_upsert_values())[k] = v;
  }
  void operator()(const UpdateOperation& op) const {
    auto* u = proto->mutable_update();
    for (uint64_t id : op.removed_fragment_ids) u->add_removed_fragment_ids(id);
    FragmentsToProto(op.updated_fragments, u->mutable_updated_fragments());
    FragmentsToProto(op.new_fragments, u->mutable_new_fragments());
    for (uint32_t f : op.fields_modified) u->add_fields_modified(f);
  }
  void operator()(const MergeOperation& op) const {
    auto* m = proto->mutable_merge();
    FragmentsToProto(op.fragments, m->mutable_fragments());
    Keep(SchemaToProto(op.schema, m->mutable_schema(), m->mutable_schema_metadata()));
  }
  void operator()(const ProjectOperation& op) const {
    Keep(SchemaToProto(op.schema, proto->mutable_project()->mutable_schema(), nullptr));
  }
  void operator()(const RewriteOperation& op) const {
    auto* r = proto->mutable_rewrite();
    for (const RewriteGroup& g : op.groups) {
      auto* group = r->add_groups();
      FragmentsToProto(g.old_fragments, group->mutable_old_fragments());
      FragmentsToProto(g.new_fragments, group->mutable_new_fragments());
    }
  }
  void operator()(const CloneOperation& op) const {
    auto* c = proto->mutable_clone();
    c->set_is_shallow(op.is_shallow);
    if (op.ref_name) c->set_ref_name(*op.ref_name);
    c->set_ref_version(op.ref_version);
    c->set_ref_path(op.ref_path);
    if (op.branch_name) c->set_branch_name(*op.branch_name);
  }
  void operator()(const RestoreOperation& op) const { proto->mutable_restore()->set_version(op.version); }
};

}  // namespace

std::string Transaction::FileName() const { return fmt::format("{}-{}.txn", read_version, uuid); }

std::string_view Transaction::OperationName() const {
  static constexpr std::string_view kNames[] = {"Append", "Delete", "Overwrite", "Update", "Merge",
                                                "Project", "Rewrite", "Clone", "Restore"};
  return kNames[operation.index()];
}

Result<std::string> EncodeTransaction(const Transaction& transaction) {
  ProtoTransaction proto;
  proto.set_read_version(transaction.read_version);
  proto.set_uuid(transaction.uuid);
  proto.set_tag(transaction.tag);
  for (const auto& [k, v] : transaction.properties) (*proto.mutable_transaction_properties())[k] = v;
  Status status;
  std::visit(EncodeVisitor{&proto, &status}, transaction.operation);
  OG_RETURN_IF_ERROR(status);
  std::string bytes = proto.SerializeAsString();
  AppendChecksumField(&bytes);
  return bytes;
}

Result<std::string> DecodeTransactionUuid(std::string_view bytes, std::string_view path) {
  using google::protobuf::internal::WireFormatLite;
  if (CheckTrailingChecksum(bytes) == ChecksumState::kMismatch) {
    return CorruptData(fmt::format("{}: transaction checksum does not match its bytes", path));
  }
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  std::string uuid;
  while (uint32_t tag = in.ReadTag()) {
    bool read = WireFormatLite::GetTagFieldNumber(tag) == ProtoTransaction::kUuidFieldNumber &&
                        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED
                    ? WireFormatLite::ReadString(&in, &uuid)  // the last occurrence wins, as in a full parse
                    : WireFormatLite::SkipField(&in, tag);
    if (!read) return CorruptData(fmt::format("{}: transaction protobuf does not decode", path));
  }
  if (!in.ConsumedEntireMessage() || in.CurrentPosition() != static_cast<int>(bytes.size())) {
    return CorruptData(fmt::format("{}: transaction protobuf does not decode", path));
  }
  return uuid;
}

Result<Transaction> DecodeTransaction(std::string_view bytes, std::string_view path) {
  if (CheckTrailingChecksum(bytes) == ChecksumState::kMismatch) {
    return CorruptData(fmt::format("{}: transaction checksum does not match its bytes", path));
  }
  ProtoTransaction proto;
  if (!ParseMessage(bytes, &proto)) {
    return CorruptData(fmt::format("{}: transaction protobuf does not decode", path));
  }
  Transaction t;
  t.read_version = proto.read_version();
  t.uuid = proto.uuid();
  t.tag = proto.tag();
  t.properties.insert(proto.transaction_properties().begin(), proto.transaction_properties().end());
  switch (proto.operation_case()) {
    case ProtoTransaction::kAppend: {
      OG_ASSIGN_OR_RETURN(auto fragments, FragmentsFromProto(proto.append().fragments(), path));
      t.operation = AppendOperation{std::move(fragments)};
      break;
    }
    case ProtoTransaction::kDelete: {
      DeleteOperation op;
      OG_ASSIGN_OR_RETURN(op.updated_fragments, FragmentsFromProto(proto.delete_().updated_fragments(), path));
      op.deleted_fragment_ids.assign(proto.delete_().deleted_fragment_ids().begin(),
                                     proto.delete_().deleted_fragment_ids().end());
      op.predicate = proto.delete_().predicate();
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kOverwrite: {
      OverwriteOperation op;
      OG_ASSIGN_OR_RETURN(op.fragments, FragmentsFromProto(proto.overwrite().fragments(), path));
      OG_ASSIGN_OR_RETURN(op.schema,
                          SchemaFromProto(proto.overwrite().schema(), proto.overwrite().schema_metadata(), path));
      op.config_upsert_values.insert(proto.overwrite().config_upsert_values().begin(),
                                     proto.overwrite().config_upsert_values().end());
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kUpdate: {
      UpdateOperation op;
      op.removed_fragment_ids.assign(proto.update().removed_fragment_ids().begin(),
                                     proto.update().removed_fragment_ids().end());
      OG_ASSIGN_OR_RETURN(op.updated_fragments, FragmentsFromProto(proto.update().updated_fragments(), path));
      OG_ASSIGN_OR_RETURN(op.new_fragments, FragmentsFromProto(proto.update().new_fragments(), path));
      op.fields_modified.assign(proto.update().fields_modified().begin(), proto.update().fields_modified().end());
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kMerge: {
      MergeOperation op;
      OG_ASSIGN_OR_RETURN(op.fragments, FragmentsFromProto(proto.merge().fragments(), path));
      OG_ASSIGN_OR_RETURN(op.schema, SchemaFromProto(proto.merge().schema(), proto.merge().schema_metadata(), path));
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kProject: {
      ProjectOperation op;
      OG_ASSIGN_OR_RETURN(op.schema, SchemaFromProto(proto.project().schema(), {}, path));
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kRewrite: {
      RewriteOperation op;
      for (const auto& g : proto.rewrite().groups()) {
        RewriteGroup group;
        OG_ASSIGN_OR_RETURN(group.old_fragments, FragmentsFromProto(g.old_fragments(), path));
        OG_ASSIGN_OR_RETURN(group.new_fragments, FragmentsFromProto(g.new_fragments(), path));
        op.groups.push_back(std::move(group));
      }
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kClone: {
      CloneOperation op;
      op.is_shallow = proto.clone().is_shallow();
      if (proto.clone().has_ref_name()) op.ref_name = proto.clone().ref_name();
      op.ref_version = proto.clone().ref_version();
      op.ref_path = proto.clone().ref_path();
      if (proto.clone().has_branch_name()) op.branch_name = proto.clone().branch_name();
      t.operation = std::move(op);
      break;
    }
    case ProtoTransaction::kRestore:
      t.operation = RestoreOperation{proto.restore().version()};
      break;
    case ProtoTransaction::OPERATION_NOT_SET:
      return CorruptData(fmt::format("{}: transaction has no operation", path));
    default:
      return Unsupported(fmt::format("{}: transaction operation (field {}) is not supported", path,
                                     static_cast<int>(proto.operation_case())));
  }
  return t;
}

}  // namespace omnigraph::lance
