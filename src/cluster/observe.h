// Observing a graph root (spec/cluster.md §4.2, §6.2): whether
// `R/graphs/<g>.omni` exists, opens, and which schema it serves. Import,
// refresh and the recovery sweep decide from this; none of them writes to
// the graph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace omnigraph::cluster {

struct GraphProbe {
  bool exists = false;  // local: the root directory is there
  bool opened = false;
  std::optional<uint64_t> manifest_version;  // main's, when opened
  std::optional<std::string> schema_digest;  // SHA-256 of the live schema source, when opened
  std::string error;                         // why it did not open (exists && !opened)
};

// Probes the graph at `graph_uri` (a local path): branch main, no writes.
GraphProbe ProbeGraph(const std::string& graph_uri);

}  // namespace omnigraph::cluster
