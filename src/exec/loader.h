// Strict NDJSON graph-batch load (spec/surface.md §4.1–§4.4), and the same
// load of loader-compatible records (§4.6, LoadSyntax::kLegacy, read by
// exec/legacy_records.h).
//
// Every line is parsed, checked against the envelope rules and converted to
// typed columns in memory; ids are derived (keyed nodes) or taken from
// `data.id` / minted (ULID); then the whole file becomes one WriteDelta that
// is validated and published as one atomic commit by the caller. Nothing is
// written before the whole file is known to be valid.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "compiler/catalog.h"
#include "exec/blob_value.h"
#include "exec/write_delta.h"
#include "graph/snapshot.h"

namespace omnigraph::exec {

enum class LoadMode {
  kOverwrite,  // each type present in the file is replaced by the file's records
  kAppend,     // strict insert: an existing id is a KeyConflict
  kMerge,      // upsert by id; repeated explicit ids in the file: last wins
};

// The syntax of a load's input (spec/surface.md §4 intro). Both feed the
// same conversion, validation and commit.
enum class LoadSyntax {
  kStrict,  // strict graph batch, one record per line (§4.1): CLI `load`, POST /load/ndjson
  kLegacy,  // loader-compatible stream of JSON values (§4.6; exec/legacy_records.h):
            // CLI `ingest`, POST /load and /ingest
};

// Called while records are read: (bytes of input consumed, total bytes).
// Lets a front end draw progress; it must not throw.
using LoadProgress = std::function<void(uint64_t bytes_read, uint64_t bytes_total)>;
// Lines (legacy syntax: records) between two progress calls.
inline constexpr uint64_t kLoadProgressLines = 4096;

struct LoadPlan {
  WriteDelta delta;
  std::map<std::string, uint64_t> node_records;  // input records per node type
  std::map<std::string, uint64_t> edge_records;  // input records per edge type
  uint64_t total_records = 0;
};

// Parses and converts `data` (the file's bytes), then validates the delta
// against `base` (ValidateWrite). `file_name` prefixes every error about a
// record: "<file>:<line>: <what>" ("<file>:<line>: invalid JSON at column
// <n>: …" for malformed JSON). Only violations no single record causes
// (a committed edge stranded by an overwrite, @card counts) carry no line.
// Errors: InvalidArgument (envelope, unknown type or field, value
// conversion, missing key, explicit id mismatch, duplicate @key in the file
// as an @unique violation, enum/@range/@check/@unique, dangling edge
// endpoints, @card), KeyConflict (append: an id already committed or
// repeated in the file; overwrite: an explicit id repeated in the file),
// ResourceLimitExceeded (line bytes, structural tokens, "external Blob
// reference cells" above 8,192 URI cells in the file, "external Blob URI
// bytes"), ExternalBlobPolicy "<file>:<line>: blob property 'p': …" for a
// Blob URI `blob_policy` refuses (every URI under the default Deny).
//
// With `syntax` kLegacy, `data` is read by ReadLegacyRecords (§4.6) and
// every error about a record says "record N: <what>" instead of
// "<file>:<line>: <what>" (`file_name` is unused), including those of
// ReadLegacyRecords. A keyed node's `data.id` may then be a legacy spelling
// of one key component (LegacySpellingMatches); the node is stored under
// its canonical id, and the import's edges naming the legacy id from or to
// that node type are remapped. One legacy id standing for two canonical
// ids of a type is refused ("record N: node T explicit id 'x' maps to both
// canonical @key ids 'a' and 'b'; refusing ambiguous edge endpoint remap").
Result<LoadPlan> PlanLoad(const graph::Snapshot& base, const compiler::Catalog& catalog,
                          std::string_view data, std::string_view file_name, LoadMode mode,
                          const LoadProgress& progress = {},
                          const ExternalBlobPolicy& blob_policy = DenyExternalBlobs(),
                          LoadSyntax syntax = LoadSyntax::kStrict);

}  // namespace omnigraph::exec
