// Tag and branch records (spec/lance-format.md §1.8–§1.9).
//
// Tags live at `_refs/tags/{name}.json` in the dataset root (also for tags
// that point into a branch); branch records at `_refs/branches/{name}.json`
// with '/' written as "%2F". Keys are camelCase, as Lance 8 writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::lance {

struct TagRecord {
  std::optional<std::string> branch;  // nullopt = main
  uint64_t version = 0;               // linear or detached version
  uint64_t manifest_size = 0;         // bytes of the target manifest (read hint)
  std::string created_at;             // RFC 3339, UTC
};

struct BranchRecord {
  std::optional<std::string> parent_branch;  // nullopt = main
  uint64_t parent_version = 0;
  int64_t create_at = 0;                     // Unix seconds
  uint64_t manifest_size = 0;
  // Lifetime identifier of this branch: a fresh random id per creation, so a
  // deleted and re-created branch of the same name is distinguishable.
  std::string identifier;
};

std::string EncodeTagRecord(const TagRecord& tag);
// Errors: CorruptData naming `path` for malformed JSON or missing keys.
Result<TagRecord> DecodeTagRecord(std::string_view json, std::string_view path);

std::string EncodeBranchRecord(const BranchRecord& branch);
Result<BranchRecord> DecodeBranchRecord(std::string_view json, std::string_view path);

// Tag names: [A-Za-z0-9._-]+, no leading or trailing '.', no "..", no
// ".lock" suffix. Branch names additionally allow '/' between non-empty
// segments that each satisfy the tag rule, and the bytes of multi-byte
// UTF-8 characters (non-ASCII letters; the graph layer decides which are
// allowed). InvalidArgument explains why.
Status ValidateTagName(std::string_view name);
Status ValidateBranchName(std::string_view name);

// `_refs/tags/{name}.json`.
std::string TagRecordPath(std::string_view name);
// `_refs/branches/{name with '/' as %2F}.json`.
std::string BranchRecordPath(std::string_view name);
// Inverse of the file-name encoding; nullopt for non-record names.
std::optional<std::string> BranchNameFromRecordFile(std::string_view file_name);
std::optional<std::string> TagNameFromRecordFile(std::string_view file_name);

}  // namespace omnigraph::lance
