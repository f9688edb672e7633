#include "cluster/observe.h"

#include <filesystem>
#include <system_error>

#include "api/omnigraph.h"
#include "util/sha256.h"

namespace omnigraph::cluster {

GraphProbe ProbeGraph(const std::string& graph_uri) {
  GraphProbe probe;
  std::error_code error;
  probe.exists = std::filesystem::exists(graph_uri, error);
  if (!probe.exists) return probe;
  auto graph = api::Omnigraph::Open(graph_uri);
  if (!graph.ok()) {
    probe.error = graph.status().message();
    return probe;
  }
  auto source = (*graph)->SchemaSource();
  if (!source.ok()) {
    probe.error = source.status().message();
    return probe;
  }
  auto snapshot = (*graph)->Snapshot("main");
  if (!snapshot.ok()) {
    probe.error = snapshot.status().message();
    return probe;
  }
  probe.opened = true;
  probe.schema_digest = Sha256Hex(*source);
  probe.manifest_version = snapshot->graph_manifest_version;
  return probe;
}

}  // namespace omnigraph::cluster
