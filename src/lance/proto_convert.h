// Conversions between the in-memory model and the generated protobuf
// messages. Internal to src/lance: protobuf types never appear in public
// headers.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>
#include <google/protobuf/repeated_ptr_field.h>

#include "columnar/data_type.h"
#include "file.pb.h"
#include "lance/manifest.h"
#include "table.pb.h"

namespace omnigraph::lance {

using ProtoFields = google::protobuf::RepeatedPtrField<::lance::file::Field>;
using ProtoBytesMap = google::protobuf::Map<std::string, std::string>;

// Which schema a field list is for: the two differ only for blob v2 fields
// (lance/blob_v2.h), a {data, uri} struct in a manifest and Lance's
// descriptor struct in a data file's FileDescriptor.
enum class SchemaForm { kManifest, kDataFile };

// Flattens `schema` into Lance's pre-order field list (parents first).
// Every field must carry an id. Errors: InvalidArgument for a missing id, a
// type Lance cannot name, or a blob v2 field below the top level.
Status SchemaToProto(const Schema& schema, ProtoFields* fields, ProtoBytesMap* metadata,
                     SchemaForm form = SchemaForm::kManifest);

// Rebuilds a schema from a flattened (manifest) field list; a blob v2
// struct becomes its in-memory LargeBinary field (columnar/blob_cell.h).
// `where` names the file in errors. Errors: CorruptData (dangling parent
// ids, duplicate ids, a list without exactly one child), Unsupported (a
// logical type we cannot read, a blob v2 field below the top level or with
// other children than data and uri).
Result<Schema> SchemaFromProto(const ProtoFields& fields, const ProtoBytesMap& metadata, std::string_view where);

void FragmentToProto(const Fragment& fragment, ::lance::table::DataFragment* out);
// Errors: CorruptData for inconsistent fragments; Unsupported for stable
// row-id sequences or data overlays.
Result<Fragment> FragmentFromProto(const ::lance::table::DataFragment& proto, std::string_view where);

// Parses `bytes` read from a file into `message`; false when they do not
// decode. Without printing anything: protobuf logs some decoding failures
// (invalid UTF-8 in a string field) to stderr itself, while every caller
// reports the failure as a typed error of its own.
bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message);

}  // namespace omnigraph::lance
