#include "util/buffer.h"

namespace omnigraph {

std::shared_ptr<Buffer> Buffer::FromVector(std::vector<uint8_t> bytes) {
  std::shared_ptr<Buffer> buffer(new Buffer());
  buffer->storage_ = std::move(bytes);
  buffer->data_ = buffer->storage_.data();
  buffer->size_ = buffer->storage_.size();
  return buffer;
}

std::shared_ptr<Buffer> Buffer::FromString(std::string_view bytes) {
  return FromVector(std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

std::shared_ptr<Buffer> Buffer::Zeroed(size_t size) {
  return FromVector(std::vector<uint8_t>(size, 0));
}

std::shared_ptr<Buffer> Buffer::Uninitialized(size_t size) {
  std::shared_ptr<uint8_t[]> storage(new uint8_t[size == 0 ? 1 : size]);
  const uint8_t* data = storage.get();
  return View(data, size, std::move(storage));
}

std::shared_ptr<Buffer> Buffer::View(const uint8_t* data, size_t size,
                                     std::shared_ptr<const void> owner) {
  std::shared_ptr<Buffer> buffer(new Buffer());
  buffer->owner_ = std::move(owner);
  buffer->data_ = data;
  buffer->size_ = size;
  return buffer;
}

BufferPtr Buffer::Slice(size_t offset, size_t length) const {
  return View(data_ + offset, length, shared_from_this());
}

}  // namespace omnigraph
