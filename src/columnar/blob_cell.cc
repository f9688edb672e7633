#include "columnar/blob_cell.h"

namespace omnigraph {
namespace {

// Reserved cell prefixes. The NUL bytes keep them out of any text a user is
// likely to store; the escape keeps the encoding injective for the bytes
// that do start with one of them.
constexpr std::string_view kExternalMarker("\0omnigraph:external-blob:v1\0", 28);
constexpr std::string_view kEscapeMarker("\0omnigraph:managed-blob:v1\0", 27);

}  // namespace

BlobCell DecodeBlobCell(std::string_view stored) {
  if (stored.starts_with(kExternalMarker)) return BlobCell{true, stored.substr(kExternalMarker.size())};
  if (stored.starts_with(kEscapeMarker)) return BlobCell{false, stored.substr(kEscapeMarker.size())};
  return BlobCell{false, stored};
}

std::string EncodeManagedBlobCell(std::string_view bytes) {
  if (bytes.starts_with(kExternalMarker) || bytes.starts_with(kEscapeMarker)) {
    std::string cell(kEscapeMarker);
    cell += bytes;
    return cell;
  }
  return std::string(bytes);
}

std::string EncodeExternalBlobCell(std::string_view uri) {
  std::string cell(kExternalMarker);
  cell += uri;
  return cell;
}

bool IsBlobV2Field(const Field& field) {
  if (!field.type || field.type->id() != TypeId::kLargeBinary) return false;
  auto it = field.metadata.find(std::string(kArrowExtensionNameKey));
  return it != field.metadata.end() && it->second == kBlobV2ExtensionName;
}

bool HasBlobV2Field(const Schema& schema) {
  for (const Field& field : schema.fields()) {
    if (IsBlobV2Field(field)) return true;
  }
  return false;
}

Field MakeBlobV2Field(std::string name, bool nullable, Metadata metadata) {
  metadata[std::string(kArrowExtensionNameKey)] = std::string(kBlobV2ExtensionName);
  return Field(std::move(name), DataType::LargeBinary(), nullable, std::move(metadata));
}

}  // namespace omnigraph
