#include "cli/input.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "cli/context.h"

namespace omnigraph::cli {
namespace {

// Reads `fd` to its end. A descriptor that cannot be read (closed, a
// directory) is an error, never an empty input.
Result<std::string> ReadAllFrom(int fd, std::string_view name) {
  std::string out;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n == 0) return out;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return InvalidArgument(fmt::format("cannot read {}: it is a directory", name));
      return IoError(fmt::format("cannot read {}: {}", name, std::strerror(errno)));
    }
    out.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

Result<std::string> ReadFile(const std::string& path) {
  if (path == "-") return ReadAllFrom(STDIN_FILENO, "standard input");
  const std::string name = fmt::format("'{}'", path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    std::string message = fmt::format("cannot read {}: {}", name, std::strerror(err));
    return err == ENOENT ? NotFound(std::move(message)) : IoError(std::move(message));
  }
  // A directory opens but reads as an error (EISDIR), refused rather than
  // taken as empty: `load --data dir` must not commit an empty load.
  auto data = ReadAllFrom(fd, name);
  ::close(fd);
  return data;
}

Result<std::string> ReadParams(const std::string& params, const std::string& params_file) {
  if (!params.empty() && !params_file.empty()) return UsageError("pass --params or --params-file, not both");
  if (!params_file.empty()) return ReadFile(params_file);
  return params.empty() ? std::string("{}") : params;
}

}  // namespace omnigraph::cli
