#include "api/wire/cleanup_json.h"

namespace omnigraph::api::wire {

Json CleanupJson(const std::string& uri, const graph::CleanupPolicy& policy, const graph::CleanupReport& report) {
  // surface.md's members first, in its order; then the collector's own.
  Json doc = Json::object();
  doc["uri"] = uri;
  doc["keep_versions"] = policy.keep_versions ? Json(*policy.keep_versions) : Json(nullptr);
  doc["older_than_secs"] = policy.older_than_secs ? Json(*policy.older_than_secs) : Json(nullptr);
  Json datasets = Json::array();
  for (const graph::DatasetCleanup& d : report.datasets) {
    Json entry = Json::object();
    entry["type_key"] = d.type_key;
    entry["bytes_removed"] = d.bytes_removed;
    entry["old_versions_removed"] = d.manifests_removed;
    entry["error"] = d.error ? Json(*d.error) : Json(nullptr);
    // engine.md §8.2's per-table result (manifests_removed spells
    // old_versions_removed), then where and what else.
    entry["manifests_removed"] = d.manifests_removed;
    entry["unpublished_manifests"] = d.unpublished_manifests;
    entry["unpublished_bytes"] = d.unpublished_bytes;
    entry["foreign_versions"] = d.foreign_versions;
    entry["location"] = d.location;
    entry["orphan_files_removed"] = d.orphan_files_removed;
    entry["history_segments_removed"] = d.history_segments_removed;
    datasets.push_back(std::move(entry));
  }
  doc["datasets"] = std::move(datasets);
  doc["confirmed"] = report.confirmed;
  doc["versions_removed"] = report.versions_removed();
  doc["bytes_removed"] = report.bytes_removed();
  doc["released_tags"] = report.released_tags;
  return doc;
}

}  // namespace omnigraph::api::wire
