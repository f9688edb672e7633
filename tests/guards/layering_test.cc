// The layering guard (structure.md §2): the checker is proved on a synthetic
// tree holding one forbidden edge of every kind, then run on the real src/.
#include "guards/layering.h"

#include <filesystem>
#include <fstream>
#include <initializer_list>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace omnigraph::guards {
namespace layering_test {

namespace fs = std::filesystem;
using ::testing::IsSupersetOf;

// Every violation on its own line, so that a failure lists them all.
std::string Lines(const std::vector<LayeringViolation>& violations) {
  std::string text;
  for (const LayeringViolation& v : violations) text += v.ToString() + "\n";
  return text;
}

void WriteFile(const fs::path& root, const std::string& relative, std::initializer_list<std::string_view> lines) {
  fs::path path = root / relative;
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  for (std::string_view line : lines) out << line << "\n";
}

using Allowed = std::set<std::string_view>;

TEST(LayeringTest, AllowedLayersAreSection2ClosedDownwardPlusTheAmendments) {
  EXPECT_EQ(AllowedLayers("util"), Allowed{});
  EXPECT_EQ(AllowedLayers("columnar"), (Allowed{"util"}));
  EXPECT_EQ(AllowedLayers("io"), (Allowed{"util"}));
  EXPECT_EQ(AllowedLayers("lance"), (Allowed{"util", "columnar", "io"}));
  EXPECT_EQ(AllowedLayers("table"), (Allowed{"util", "columnar", "io", "lance"}));
  EXPECT_EQ(AllowedLayers("index"), (Allowed{"util", "columnar", "io", "lance", "table"}));
  EXPECT_EQ(AllowedLayers("compiler"), (Allowed{"util", "columnar"}));
  EXPECT_EQ(AllowedLayers("graph"), (Allowed{"util", "columnar", "io", "lance", "table", "compiler"}));
  EXPECT_EQ(AllowedLayers("exec"), (Allowed{"util", "columnar", "io", "lance", "table", "index", "compiler", "graph"}));
  EXPECT_EQ(AllowedLayers("policy"), (Allowed{"util"}));
  const Allowed below_api{"util", "columnar", "io", "lance", "table", "index", "compiler", "graph", "exec", "policy"};
  EXPECT_EQ(AllowedLayers("api"), below_api);
  Allowed below_cluster = below_api;
  below_cluster.insert("api");
  EXPECT_EQ(AllowedLayers("cluster"), below_cluster);
  Allowed below_front_ends = below_cluster;
  below_front_ends.insert("cluster");
  EXPECT_EQ(AllowedLayers("cli"), below_front_ends);
  EXPECT_EQ(AllowedLayers("server"), below_front_ends);
  EXPECT_EQ(AllowedLayers("plan"), Allowed{});
  EXPECT_EQ(Layers(), (std::vector<std::string_view>{"util", "columnar", "io", "lance", "table", "index", "compiler",
                                                      "graph", "exec", "policy", "api", "cluster", "cli",
                                                      "server"}));
}

// One file per kind of edge; the comment on each line says what the checker
// must conclude about it.
TEST(LayeringTest, SyntheticTreeReportsEveryForbiddenEdgeWithFileAndLine) {
  testing::TempDir dir;
  const fs::path root = fs::path(dir.path()) / "src";
  WriteFile(root, "CMakeLists.txt", {"add_library(og_util STATIC util/status.cc)"});
  WriteFile(root, "util/status.h", {"#pragma once", "#include <string>"});
  WriteFile(root, "util/bad.h", {"#pragma once",
                                 "#include \"util/status.h\"",    // same layer
                                 "#include \"graph/store.h\""});  // util -> graph: forbidden
  WriteFile(root, "util/relative.cc", {"#include \"../exec/query.h\""});  // util -> exec, spelled relatively
  WriteFile(root, "graph/store.h", {"#include \"table/dataset.h\"",    // graph -> table: §2 row
                                    "#include \"lance/manifest.h\"",   // graph -> lance: through table
                                    "#include \"exec/query.h\""});     // graph -> exec: upward
  WriteFile(root, "graph/write/door.h", {"#pragma once"});
  WriteFile(root, "graph/write/door.cc", {"#include \"door.h\"",          // found beside the includer: graph
                                          "#include \"exec/query.h\""});  // a subfolder is its top layer
  WriteFile(root, "compiler/catalog.cc", {"#include \"columnar/schema.h\"",  // the amendment
                                          "#include \"io/store.h\""});      // compiler -> io: no storage
  WriteFile(root, "lance/manifest.cc", {"#include \"table.pb.h\""});  // generated: lance's own
  WriteFile(root, "io/store.cc", {"#include \"file.pb.h\""});         // io -> lance through generated code
  WriteFile(root, "exec/query.h", {"#include \"missing.h\""});        // resolves to no layer
  WriteFile(root, "exec/topology.cc", {"#  include   \"index/csr.h\""});  // exec -> index, odd spacing
  WriteFile(root, "plan/planner.cc", {"#include \"util/status.h\""});     // from a folder §2 does not name
  WriteFile(root, "api/omnigraph.cc", {"// #include \"cli/main.h\"",      // a comment: no edge
                                       "#include <cli/main.h>"});         // angle brackets: not a layer edge

  LayeringReport report = CheckLayering(root);

  EXPECT_EQ(Lines(report.violations),
            "src/compiler/catalog.cc:2: compiler -> io (#include \"io/store.h\")\n"
            "src/exec/query.h:1: exec -> (no layer) (#include \"missing.h\")\n"
            "src/graph/store.h:3: graph -> exec (#include \"exec/query.h\")\n"
            "src/graph/write/door.cc:2: graph -> exec (#include \"exec/query.h\")\n"
            "src/io/store.cc:1: io -> lance (#include \"file.pb.h\")\n"
            "src/plan/planner.cc:1: (no layer) -> util (#include \"util/status.h\")\n"
            "src/util/bad.h:3: util -> graph (#include \"graph/store.h\")\n"
            "src/util/relative.cc:1: util -> exec (#include \"../exec/query.h\")\n");
  EXPECT_EQ(report.includes, 15u);
  using Edge = std::pair<std::string, std::string>;
  EXPECT_EQ(report.edges, (std::set<Edge>{{"compiler", "columnar"},
                                          {"compiler", "io"},
                                          {"exec", "index"},
                                          {"graph", "exec"},
                                          {"graph", "lance"},
                                          {"graph", "table"},
                                          {"io", "lance"},
                                          {"util", "exec"},
                                          {"util", "graph"}}));
}

TEST(LayeringTest, AnEmptyTreeHasNothingToReport) {
  testing::TempDir dir;
  LayeringReport report = CheckLayering(dir.path());
  EXPECT_EQ(Lines(report.violations), "");
  EXPECT_EQ(report.includes, 0u);
  EXPECT_TRUE(report.edges.empty());
}

TEST(LayeringTest, SrcIncludesOnlyWhatArchitectureSection2Allows) {
  LayeringReport report = CheckLayering(fs::path(OMNIGRAPH_SOURCE_DIR) / "src");
  EXPECT_EQ(Lines(report.violations), "");
  // The scan read the real tree: the spine of §2 is there.
  using Edge = std::pair<std::string, std::string>;
  EXPECT_THAT(report.edges, IsSupersetOf({Edge{"columnar", "util"}, Edge{"lance", "io"}, Edge{"table", "lance"},
                                          Edge{"graph", "table"}, Edge{"exec", "graph"}, Edge{"api", "exec"},
                                          Edge{"cli", "api"}}));
}

}  // namespace layering_test
}  // namespace omnigraph::guards
