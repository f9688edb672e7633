#include "io/new_name_durability.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace omnigraph {

bool FileSyncPersistsNewNames(std::string_view fs_type) {
  return fs_type == "ext4" || fs_type == "ext3" || fs_type == "xfs" || fs_type == "btrfs";
}

std::optional<std::string> MountedFileSystemType(std::string_view mountinfo, unsigned major, unsigned minor) {
  // Each line: id parent major:minor root mount-point options [optional
  // fields...] - fs-type source super-options.
  const std::string device = std::to_string(major) + ":" + std::to_string(minor);
  size_t start = 0;
  while (start < mountinfo.size()) {
    size_t end = mountinfo.find('\n', start);
    if (end == std::string_view::npos) end = mountinfo.size();
    std::string_view line = mountinfo.substr(start, end - start);
    start = end + 1;
    std::istringstream fields{std::string(line)};
    std::string id, parent, dev;
    if (!(fields >> id >> parent >> dev) || dev != device) continue;
    size_t separator = line.find(" - ");
    if (separator == std::string_view::npos) continue;
    std::istringstream tail{std::string(line.substr(separator + 3))};
    std::string type;
    if (tail >> type) return type;
  }
  return std::nullopt;
}

bool FileSyncPersistsNewNamesUnder(const std::string& directory) {
  if (const char* mode = std::getenv("OMNIGRAPH_DIRECTORY_FSYNC"); mode && std::string_view(mode) == "always") {
    return false;
  }
  // The nearest existing ancestor is on the same mount a new directory
  // under it would be.
  std::string path = directory.empty() ? "." : directory;
  struct stat st;
  while (::stat(path.c_str(), &st) != 0) {
    if (path == "/" || path == ".") return false;
    size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  }
  std::ifstream in("/proc/self/mountinfo");
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  auto type = MountedFileSystemType(text.str(), major(st.st_dev), minor(st.st_dev));
  return type && FileSyncPersistsNewNames(*type);
}

}  // namespace omnigraph
