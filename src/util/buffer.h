// Immutable, shareable byte buffers. Columns, page buffers and object-store
// reads all hand bytes around as `BufferPtr`, so slices and views never copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph {

class Buffer;
using BufferPtr = std::shared_ptr<const Buffer>;

class Buffer : public std::enable_shared_from_this<Buffer> {
 public:
  // Takes ownership of `bytes`.
  static std::shared_ptr<Buffer> FromVector(std::vector<uint8_t> bytes);
  static std::shared_ptr<Buffer> FromString(std::string_view bytes);
  // `size` zero bytes.
  static std::shared_ptr<Buffer> Zeroed(size_t size);
  // `size` bytes of unspecified content, for a creator that overwrites them
  // all (file reads: zeroing first would touch every byte twice).
  static std::shared_ptr<Buffer> Uninitialized(size_t size);
  // A view of `size` bytes at `data` that keeps `owner` alive.
  static std::shared_ptr<Buffer> View(const uint8_t* data, size_t size,
                                      std::shared_ptr<const void> owner);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  // Mutable access for the creator before the buffer is shared.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }

  // A zero-copy view of [offset, offset + length); the caller checks bounds.
  BufferPtr Slice(size_t offset, size_t length) const;

  bool Equals(const Buffer& other) const {
    return size_ == other.size_ && (size_ == 0 || std::memcmp(data_, other.data_, size_) == 0);
  }

 private:
  Buffer() = default;
  std::vector<uint8_t> storage_;
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace omnigraph
