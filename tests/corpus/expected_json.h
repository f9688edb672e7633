// corpus/expected.json (format in ../shared/corpus/README.md): reading its
// entries and checking one against a graph. Shared by the corpus tests that
// check the documented results on the graphs as loaded and on evolved ones.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/omnigraph.h"

namespace omnigraph::testing::corpus {

namespace fs = std::filesystem;

// The corpus folder: $OMNIGRAPH_CORPUS_DIR, else ../shared/corpus.
fs::path CorpusRoot();

// Every documented result is checked entry by entry.
//
// Cells are compared as the CLI prints them (exec::AppendCellJson), parsed
// back into JSON, so numbers compare as JSON numbers (30 == 30.0, as the
// README allows for a float column). The README's other rule, that an
// integer column must not print a fraction, is checked on that printed
// text: comparing the stored values would not see how they print.

// Ordered so that expected rows and messages keep the file's column order.
using Json = nlohmann::ordered_json;
using JsonRows = std::vector<std::vector<Json>>;

// What an entry demands of a result: its rows restricted to `columns`.
struct ExpectedRows {
  std::vector<std::string> columns;
  JsonRows rows;  // values in `columns` order
  bool ordered = false;
  bool prefix = false;  // only the first rows.size() result rows are fixed
};

// One entry of queries[].
struct QueryEntry {
  size_t index = 0;
  std::string corpus, file, name, source;
  std::string params;  // a JSON object's text
  ExpectedRows expected;
};

// One entry of graphs{}: the counts export must show after the seed loads.
struct GraphEntry {
  std::string name;
  fs::path schema, seed;
  uint64_t nodes = 0, edges = 0;
};

// Refuses members outside `known`: an entry in a format this test does not
// know must fail rather than be checked partly.
Status OnlyKnownMembers(const Json& object, const std::vector<std::string>& known);
// queries[index]; errors name what is not understood.
Result<QueryEntry> ReadQueryEntry(size_t index, const Json& entry);
// graphs.<name> (paths resolved under `root`).
Result<GraphEntry> ReadGraphEntry(const fs::path& root, const std::string& name, const Json& entry);

// Rewrites a query file's text before it runs (an evolved schema's names).
using SourceRewrite = std::function<std::string(std::string)>;
// Runs `entry` on `graph` (main) and compares its rows; OK when they match.
Status CheckQueryEntry(api::Omnigraph& graph, const fs::path& root, const QueryEntry& entry,
                       const SourceRewrite& rewrite = {});
// The export's node and edge counts equal the entry's.
Status CheckGraphCounts(api::Omnigraph& graph, const GraphEntry& entry);
// A graph created from the entry's schema with its seed loaded (overwrite).
Result<std::unique_ptr<api::Omnigraph>> LoadGraph(const GraphEntry& entry, const std::string& uri);

}  // namespace omnigraph::testing::corpus
