// Lance transactions: what a commit did, against which read version, with a
// caller-chosen UUID and a string map of properties (spec/lance-format.md §1.6).
// Stored raw in `_transactions/{read_version}-{uuid}.txn` and inline in the
// manifest's transaction section.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lance/manifest.h"

namespace omnigraph::lance {

// New fragments (ids assigned at commit).
struct AppendOperation {
  std::vector<Fragment> fragments;
};

// Fragments whose deletion files changed, and fragments removed entirely.
struct DeleteOperation {
  std::vector<Fragment> updated_fragments;
  std::vector<uint64_t> deleted_fragment_ids;
  std::string predicate;
};

// Replaces all fragments and the schema (also used to create version 1).
struct OverwriteOperation {
  std::vector<Fragment> fragments;
  Schema schema;
  std::map<std::string, std::string> config_upsert_values;
};

// Keyed merge-insert: matched rows are deleted in their fragments
// (updated_fragments carry new deletion files, removed fragments are fully
// deleted) and the new row images land in new_fragments.
struct UpdateOperation {
  std::vector<uint64_t> removed_fragment_ids;
  std::vector<Fragment> updated_fragments;
  std::vector<Fragment> new_fragments;
  std::vector<uint32_t> fields_modified;
};

// Adds columns: every fragment keeps its data files and may gain new ones;
// the schema gains fields (metadata-only when no files are added).
struct MergeOperation {
  std::vector<Fragment> fragments;
  Schema schema;
};

// Renames or drops columns (metadata only).
struct ProjectOperation {
  Schema schema;
};

// Compaction: each group replaces old fragments with new ones.
struct RewriteGroup {
  std::vector<Fragment> old_fragments;
  std::vector<Fragment> new_fragments;
};
struct RewriteOperation {
  std::vector<RewriteGroup> groups;
};

// The shallow clone that starts a native branch.
struct CloneOperation {
  bool is_shallow = true;
  std::optional<std::string> ref_name;
  uint64_t ref_version = 0;
  std::string ref_path;
  std::optional<std::string> branch_name;
};

struct RestoreOperation {
  uint64_t version = 0;
};

using Operation = std::variant<AppendOperation, DeleteOperation, OverwriteOperation, UpdateOperation, MergeOperation,
                               ProjectOperation, RewriteOperation, CloneOperation, RestoreOperation>;

struct Transaction {
  uint64_t read_version = 0;  // version the transaction was staged against (0 = none, for create)
  std::string uuid;           // canonical 36-character UUID
  std::string tag;
  std::map<std::string, std::string> properties;
  Operation operation;

  // "{read_version}-{uuid}.txn" under _transactions/.
  std::string FileName() const;
  // Operation name for messages: "Append", "Delete", ...
  std::string_view OperationName() const;
};

// Raw protobuf bytes of the transaction, ending with a checksum field
// (util/checksum.h). Errors: InvalidArgument (a schema field without an
// id), Unsupported (a field type Lance cannot name).
Result<std::string> EncodeTransaction(const Transaction& transaction);
// Errors: CorruptData (undecodable, checksum mismatch, missing operation), Unsupported (an
// operation this build cannot represent, named).
Result<Transaction> DecodeTransaction(std::string_view bytes, std::string_view path);
// Only the `uuid` of the transaction in `bytes` (empty when unset), read by
// skipping every other field undecoded: checking that an opened version is
// a pinned transaction must not decode the fragment lists of, say, a
// compaction's Rewrite (thousands of fragments). The checksum is still
// verified. Errors: CorruptData (malformed wire format, checksum mismatch).
Result<std::string> DecodeTransactionUuid(std::string_view bytes, std::string_view path);

}  // namespace omnigraph::lance
