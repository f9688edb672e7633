// The one-door guard (design/write-path.md; design/structure.md §2
// "forbidden-API test"): outside the table layer that defines them, only the
// publisher may commit a `__manifest` version (table::CommitLinear; a
// proposal's detached `__manifest` version is the publisher's too) and only
// the door may commit a detached table version (table::CommitDetached). A
// new writer that calls either directly fails here, naming the call.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace omnigraph::guards {
namespace forbidden_api_test {

namespace fs = std::filesystem;

// The files below `src_root` (relative paths) allowed to call each function.
const std::map<std::string, std::set<std::string>>& Allowed() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"CommitLinear(", {"graph/write/publisher.cc"}},
      {"CommitDetached(", {"graph/write/door.cc", "graph/write/publisher.cc"}},
  };
  return allowed;
}

// "file:line: calls Name(" for every call of a guarded function outside the
// table layer and outside the files allowed to make it.
std::vector<std::string> ForbiddenCalls(const fs::path& src_root) {
  std::vector<std::string> found;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src_root)) {
    if (!entry.is_regular_file()) continue;
    std::string relative = fs::relative(entry.path(), src_root).generic_string();
    if (relative.rfind("table/", 0) == 0) continue;  // the definitions
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::string code = line.substr(0, line.find("//"));  // comments may name them
      for (const auto& [call, files] : Allowed()) {
        if (code.find(call) != std::string::npos && !files.count(relative)) {
          found.push_back(relative + ":" + std::to_string(number) + ": calls " + call);
        }
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

TEST(ForbiddenApiTest, OnlyThePublisherAndTheDoorCommitTableVersions) {
  std::vector<std::string> found = ForbiddenCalls(fs::path(OMNIGRAPH_SOURCE_DIR) / "src");
  EXPECT_TRUE(found.empty()) << [&] {
    std::ostringstream out;
    for (const std::string& f : found) out << "\n  " << f;
    return "table versions committed outside the publication door:" + out.str();
  }();
}

// The guard finds a call in a writer of its own, and accepts the same call
// in the files allowed to make it and in comments.
TEST(ForbiddenApiTest, ACallOutsideTheDoorIsFound) {
  testing::TempDir dir;
  fs::path root(dir.path());
  auto write = [&](const std::string& relative, const std::string& text) {
    fs::create_directories((root / relative).parent_path());
    std::ofstream(root / relative) << text;
  };
  write("exec/writers/rogue.cc", "void F() {\n  // table::CommitDetached(x) is the door's\n  table::CommitDetached(s);\n}\n");
  write("graph/write/door.cc", "auto c = table::CommitDetached(s);\n");
  write("graph/write/publisher.cc", "auto c = table::CommitLinear(s);\n");
  write("graph/init.cc", "auto m = table::CommitLinear(s);\n");
  write("table/commit.cc", "Result<Dataset> CommitLinear(const StagedTransaction& staged) {}\n");
  EXPECT_EQ(ForbiddenCalls(root), (std::vector<std::string>{"exec/writers/rogue.cc:3: calls CommitDetached(",
                                                            "graph/init.cc:1: calls CommitLinear("}));
}

}  // namespace forbidden_api_test
}  // namespace omnigraph::guards
