#include "api/wire/cleanup_json.h"

namespace omnigraph::api::wire {

Json CleanupJson(const std::string& uri, const graph::CleanupPolicy& policy, const graph::CleanupReport& report) {
  Json doc = Json::object();
  doc["uri"] = uri;
  doc["confirmed"] = report.confirmed;
  doc["keep_versions"] = policy.keep_versions ? Json(*policy.keep_versions) : Json(nullptr);
  doc["older_than_secs"] = policy.older_than_secs ? Json(*policy.older_than_secs) : Json(nullptr);
  doc["versions_removed"] = report.versions_removed();
  doc["bytes_removed"] = report.bytes_removed();
  doc["released_tags"] = report.released_tags;
  Json datasets = Json::array();
  for (const graph::DatasetCleanup& d : report.datasets) {
    Json entry = Json::object();
    entry["type_key"] = d.type_key;
    entry["location"] = d.location;
    entry["bytes_removed"] = d.bytes_removed;
    entry["old_versions_removed"] = d.manifests_removed;
    entry["manifests_removed"] = d.manifests_removed;
    entry["unpublished_manifests"] = d.unpublished_manifests;
    entry["unpublished_bytes"] = d.unpublished_bytes;
    entry["orphan_files_removed"] = d.orphan_files_removed;
    entry["foreign_versions"] = d.foreign_versions;
    entry["error"] = d.error ? Json(*d.error) : Json(nullptr);
    datasets.push_back(std::move(entry));
  }
  doc["datasets"] = std::move(datasets);
  return doc;
}

}  // namespace omnigraph::api::wire
