// Every `.pg` and `.gq` file shipped under ../shared/cases and
// ../shared/corpus (when present) must compile. A `.gq` file is checked
// against the schema of the same stem in its directory, else any `.pg` in
// its directory, else the nearest ancestor directory holding `.pg` files;
// it passes when one candidate schema compiles it. The D2 rule (mixed
// mutations) is a run-time refusal, so it is not applied here.
#include <filesystem>
#include <algorithm>
#include <iostream>

#include <gtest/gtest.h>

#include "compiler/catalog.h"
#include "compiler/typecheck.h"
#include "support/shared_files.h"

namespace omnigraph::compiler {
namespace shared_files_test {

namespace fs = std::filesystem;
using ::omnigraph::testing::ReadFileText;
using ::omnigraph::testing::SchemasNear;

struct Counts {
  int schemas = 0;
  int queries = 0;
};

void CheckTree(const fs::path& root, Counts* counts) {
  if (!fs::is_directory(root)) {
    std::cout << "[shared files] " << root.string() << " is not present: checked 0 files there\n";
    return;
  }
  std::vector<fs::path> files = ::omnigraph::testing::FilesUnder(root, ".pg");
  for (const fs::path& gq : ::omnigraph::testing::FilesUnder(root, ".gq")) files.push_back(gq);
  std::sort(files.begin(), files.end());
  CompileOptions options;
  options.enforce_d2 = false;
  for (const fs::path& f : files) {
    if (f.extension() == ".pg") {
      ++counts->schemas;
      Result<Catalog> c = CompileSchema(ReadFileText(f), f.string());
      EXPECT_TRUE(c.ok()) << c.status().message();
      continue;
    }
    ++counts->queries;
    std::vector<fs::path> schemas = SchemasNear(f, root);
    ASSERT_FALSE(schemas.empty()) << "no schema found for " << f;
    std::string failures;
    bool ok = false;
    for (const fs::path& pg : schemas) {
      Result<Catalog> c = CompileSchema(ReadFileText(pg), pg.string());
      if (!c.ok()) continue;
      Result<std::vector<ir::QueryIR>> q = CompileQueries(*c, ReadFileText(f), f.string(), options);
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

}  // namespace shared_files_test
}  // namespace omnigraph::compiler
