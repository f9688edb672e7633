// A minimal Arrow IPC *file* reader and writer (Arrow columnar format,
// "IPC File Format"): "ARROW1", padding, encapsulated messages, an optional
// end-of-stream marker, the Footer flatbuffer, its int32 length, "ARROW1".
//
// Lance's `.arrow` deletion files are such files (spec/lance-format.md §4).
// Today only flat (childless) fields are understood, and the writer only
// emits integer columns; the reader hands back the flattened field nodes and
// the (decompressed) buffers of a record batch, so interpreting further
// layouts is the caller's job and the reader can grow without API changes.
//
// Every flatbuffer is checked by the flatbuffers Verifier before it is read,
// and every offset and length taken from the file is bounds-checked, so any
// byte string yields either a value or a typed error, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::lance::arrow_ipc {

// Tags of Arrow's `Type` union (Schema.fbs). Values are wire values.
enum class TypeId : uint8_t {
  kNone = 0,
  kNull = 1,
  kInt = 2,
  kFloatingPoint = 3,
  kBinary = 4,
  kUtf8 = 5,
  kBool = 6,
  kDecimal = 7,
  kDate = 8,
  kTime = 9,
  kTimestamp = 10,
  kInterval = 11,
  kList = 12,
  kStruct = 13,
  kUnion = 14,
  kFixedSizeBinary = 15,
  kFixedSizeList = 16,
  kMap = 17,
  kDuration = 18,
  kLargeBinary = 19,
  kLargeUtf8 = 20,
  kLargeList = 21,
  kRunEndEncoded = 22,
  kBinaryView = 23,
  kUtf8View = 24,
  kListView = 25,
  kLargeListView = 26,
};

// The logical type of a field, as far as this reader decodes it.
struct DataType {
  TypeId id = TypeId::kNone;
  int32_t bit_width = 0;    // kInt only: 8, 16, 32 or 64
  bool is_signed = false;   // kInt only
  int16_t precision = 0;    // kFloatingPoint only: 0 half, 1 single, 2 double

  static DataType UInt32() { return DataType{TypeId::kInt, 32, false, 0}; }
  // Arrow-style name for messages: "UInt32", "Int64", "Float64", "Utf8",
  // or "type #<tag>" for tags newer than this reader.
  std::string ToString() const;
  bool operator==(const DataType&) const = default;
};

// One top-level field of the schema.
struct Field {
  std::string name;
  bool nullable = true;
  DataType type;
  bool dictionary_encoded = false;  // reader only; files using it are refused
  int32_t num_children = 0;         // reader only; nested fields are refused

  bool operator==(const Field&) const = default;
};

// Per-array metadata of a record batch, in pre-order of the flattened schema.
struct FieldNode {
  int64_t length = 0;      // number of slots
  int64_t null_count = 0;

  bool operator==(const FieldNode&) const = default;
};

// One record batch: nodes and buffers in Arrow's flattened order (for a flat
// primitive column: validity bitmap, then values). Buffers are always held
// uncompressed; an empty buffer means "absent" (e.g. no validity bitmap).
struct RecordBatch {
  int64_t length = 0;  // rows
  std::vector<FieldNode> nodes;
  std::vector<std::string> buffers;
};

// Body compression codec (Message.fbs `CompressionType`, plus "none").
enum class Compression { kNone, kLz4Frame, kZstd };

struct WriteOptions {
  Compression compression = Compression::kNone;
  // With compression, store a buffer raw (length prefix -1) when compressing
  // does not make it smaller, as Arrow writers (and so Lance) do. Tests turn
  // this off to force the compressed path.
  bool store_raw_if_not_smaller = true;
};

// Serializes an Arrow IPC file holding `fields` and `batches`.
// The layout matches the Arrow specification with 8-byte alignment:
//   "ARROW1\0\0", Schema message, one RecordBatch message per batch,
//   end-of-stream marker (0xFFFFFFFF, 0), Footer, int32 footer size, "ARROW1".
// Messages use the continuation marker and metadata version V5. With
// compression, each non-empty buffer is written as an int64 uncompressed
// length (-1 = stored raw) followed by the (compressed) bytes.
// Errors: Unsupported for fields other than flat integer columns;
// InvalidArgument when a batch's node count differs from the field count,
// its buffer count is not 2 per field, or a length or null count is negative;
// Internal if a compressor fails.
Result<std::string> WriteFile(std::span<const Field> fields, std::span<const RecordBatch> batches,
                              const WriteOptions& options = {});

// Reads an Arrow IPC file held in memory. `file_name` only appears in error
// messages. The reader keeps a view of `bytes`: they must outlive it.
class FileReader {
 public:
  // Parses and checks the framing (both magics), the footer and the schema.
  // Errors: CorruptData (naming `file_name` and what is wrong: missing magic,
  // footer size or position out of range, flatbuffer that fails
  // verification, missing schema, dictionary blocks without dictionary
  // fields); Unsupported (metadata version before V4, big-endian data,
  // dictionary-encoded or nested fields, naming the feature).
  static Result<FileReader> Open(std::string_view bytes, std::string_view file_name);

  const std::vector<Field>& fields() const { return fields_; }
  int num_record_batches() const { return static_cast<int>(blocks_.size()); }

  // Reads record batch `index` (0-based; must be < num_record_batches()) and
  // decompresses its buffers.
  // Errors: InvalidArgument (index out of range); CorruptData (block or
  // message framing outside the file or disagreeing with the footer's
  // metadata length, flatbuffer that fails verification,
  // message that is not a RecordBatch, body length mismatch between block
  // and message, negative counts, a buffer outside the body, a compressed
  // buffer that does not decompress to exactly its declared length);
  // Unsupported (compression codec or method this build does not know,
  // naming it; variadic buffers of view types).
  Result<RecordBatch> ReadRecordBatch(int index) const;

 private:
  struct Block {
    int64_t offset = 0;
    int32_t metadata_length = 0;
    int64_t body_length = 0;
  };

  FileReader() = default;
  Status Corrupt(std::string_view what) const;

  std::string_view bytes_;
  std::string file_name_;
  std::vector<Field> fields_;
  std::vector<Block> blocks_;
  int64_t data_end_ = 0;  // where the end-of-stream marker/footer begins
};

// Convenience for the common case: a file with exactly one record batch
// holding one flat, non-nullable UInt32 column named `column_name`, as Lance
// writes for deletion files. Returns the values in file order.
// Errors: everything FileReader::Open and ReadRecordBatch return, plus
// CorruptData when the schema or batch does not have exactly that shape
// (field count, name, nullability, batch count, node/buffer counts, node
// length != batch length, nulls present, value buffer too short) and
// Unsupported when the column has another type (naming it).
Result<std::vector<uint32_t>> ReadSingleUInt32Column(std::string_view bytes, std::string_view column_name,
                                                     std::string_view file_name);

// Writes a file with one record batch holding one non-nullable UInt32
// column `column_name` with `values` (no validity bitmap).
// Errors: as WriteFile.
Result<std::string> WriteSingleUInt32Column(std::string_view column_name, std::span<const uint32_t> values,
                                            const WriteOptions& options = {});

}  // namespace omnigraph::lance::arrow_ipc
