// What a Lance data file's schema (its FileDescriptor) tells the reader:
// the readable top-level fields, their columns and leaf paths, shared per
// distinct schema across files (docs/lance-file-encoding.md §1.1, §2; blob
// v2 descriptor fields, lance/blob_v2.h). Internal to src/lance.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/data_type.h"
#include "lance/repdef.h"
#include "util/status.h"

namespace omnigraph::lance {

// A top-level field of the file.
struct TopField {
  int32_t id = -1;
  std::string name;
  const Field* field = nullptr;  // in the reader's schema; null when unsupported
  Status unsupported;            // why `field` is null
  int first_column = 0;
  int num_columns = 0;
  std::vector<LeafPath> paths;  // one per column
  bool blob = false;            // a blob v2 descriptor column (one column, no paths)
};

// What a data file's schema tells the reader: its readable top-level
// fields, their leaf columns and paths. Every file written with one table
// schema carries the same schema bytes, so a process shares one layout per
// distinct schema instead of parsing it again for each file (a table written
// by many small commits is mostly files to open).
struct FileLayout {
  SchemaPtr schema;
  std::vector<TopField> top_fields;
  std::map<int32_t, int> top_by_id;
  int total_columns = 0;
  // False when a field is unreadable: its Unsupported status names the file
  // it was built for, so such a layout is never shared.
  bool shareable = true;
};
using FileLayoutPtr = std::shared_ptr<const FileLayout>;

// Reads a serialized FileDescriptor: its row count into `num_rows` and the
// layout of its schema into `layout`, shared with earlier files of the same
// schema bytes. `where` names the file in errors. Errors: CorruptData for
// undecodable bytes, duplicate field ids or dangling parents.
Status ReadFileLayout(std::string_view descriptor_bytes, const std::string& where, uint64_t* num_rows,
                      FileLayoutPtr* layout);

// Leaf columns of `field` (structs and lists have none of their own).
int CountLeaves(const Field& field);

// Protobuf wire helpers for hand-parsed messages.
// Reads a base-128 varint at `*pos` of [p, p + size); false when truncated
// or longer than 64 bits.
bool ReadProtoVarint(const uint8_t* p, size_t size, size_t* pos, uint64_t* out);
// Skips the value of a field with `key` at `*pos`; false when truncated or
// of a wire type we do not skip (groups).
bool SkipProtoField(const uint8_t* p, size_t size, size_t* pos, uint64_t key);

}  // namespace omnigraph::lance
