// Every `.pg` and `.gq` file shipped under ../shared/cases and
// ../shared/corpus (when present) must compile. A `.gq` file is checked
// against the schema of the same stem in its directory, else any `.pg` in
// its directory, else the nearest ancestor directory holding `.pg` files;
// it passes when one candidate schema compiles it. The D2 rule (mixed
// mutations) is a run-time refusal, so it is not applied here.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler/typecheck.h"

namespace omnigraph::compiler {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> SchemasNear(const fs::path& gq, const fs::path& root) {
  fs::path same = gq;
  same.replace_extension(".pg");
  if (fs::exists(same)) return {same};
  for (fs::path dir = gq.parent_path();; dir = dir.parent_path()) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".pg") found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    if (!found.empty()) return found;
    if (dir == root || !dir.has_parent_path() || dir.parent_path() == dir) return {};
  }
}

struct Counts {
  int schemas = 0;
  int queries = 0;
};

void CheckTree(const fs::path& root, Counts* counts) {
  if (!fs::is_directory(root)) {
    std::cout << "[shared files] " << root.string() << " is not present: checked 0 files there\n";
    return;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    if (entry.path().extension() == ".pg" || entry.path().extension() == ".gq") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  CompileOptions options;
  options.enforce_d2 = false;
  for (const fs::path& f : files) {
    if (f.extension() == ".pg") {
      ++counts->schemas;
      Result<Catalog> c = CompileSchema(ReadFile(f), f.string());
      EXPECT_TRUE(c.ok()) << c.status().message();
      continue;
    }
    ++counts->queries;
    std::vector<fs::path> schemas = SchemasNear(f, root);
    ASSERT_FALSE(schemas.empty()) << "no schema found for " << f;
    std::string failures;
    bool ok = false;
    for (const fs::path& pg : schemas) {
      Result<Catalog> c = CompileSchema(ReadFile(pg), pg.string());
      if (!c.ok()) continue;
      Result<std::vector<ir::QueryIR>> q = CompileQueries(*c, ReadFile(f), f.string(), options);
      if (q.ok()) {
        ok = true;
        break;
      }
      failures += "\n  against " + pg.string() + ": " + q.status().message();
    }
    EXPECT_TRUE(ok) << f << failures;
  }
}

TEST(QuerySharedFiles, EveryCaseAndCorpusFileCompiles) {
  fs::path shared = OMNIGRAPH_SHARED_DIR;
  Counts counts;
  CheckTree(shared / "cases", &counts);
  CheckTree(shared / "corpus", &counts);
  std::cout << "[shared files] checked " << counts.schemas << " .pg and " << counts.queries << " .gq files under "
            << shared.string() << "\n";
}

}  // namespace
}  // namespace omnigraph::compiler
