#include "support/shared_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace omnigraph::testing {

namespace fs = std::filesystem;

std::string ReadFileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> SchemasNear(const fs::path& input, const fs::path& root) {
  fs::path same = input;
  same.replace_extension(".pg");
  if (fs::exists(same)) return {same};
  for (fs::path dir = input.parent_path();; dir = dir.parent_path()) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".pg") found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    if (!found.empty()) return found;
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) return {};
  }
}

std::vector<fs::path> FilesUnder(const fs::path& root, const std::string& extension) {
  std::vector<fs::path> files;
  if (!fs::is_directory(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace omnigraph::testing
