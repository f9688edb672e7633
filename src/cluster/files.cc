#include "cluster/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace omnigraph::cluster {

std::filesystem::path ResolveConfigPath(const std::filesystem::path& config_dir, std::string_view declared) {
  std::filesystem::path path(declared);
  return path.is_absolute() ? path : config_dir / path;
}

Result<std::string> ReadSourceFile(const std::filesystem::path& path) {
  auto failure = [](int error) {
    return Status(error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIoError, std::strerror(error));
  };
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0) return failure(errno);
  struct stat info {};
  // A directory opens read-only; reading it fails with EISDIR, named here
  // before any read.
  if (::fstat(descriptor, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(descriptor);
    return failure(EISDIR);
  }
  std::string bytes;
  char buffer[65536];
  while (true) {
    const ssize_t count = ::read(descriptor, buffer, sizeof(buffer));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      const int error = errno;
      ::close(descriptor);
      return failure(error);
    }
    if (count == 0) break;
    bytes.append(buffer, static_cast<size_t>(count));
  }
  ::close(descriptor);
  return bytes;
}

}  // namespace omnigraph::cluster
