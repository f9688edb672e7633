// The `cleanup --json` document (spec/surface.md §5.2 `cleanup`; per-dataset
// fields of spec/engine.md §8.2).
#pragma once

#include <string>

#include "api/wire/report_json.h"
#include "graph/maintenance/collector.h"

namespace omnigraph::api::wire {

// {uri, confirmed, keep_versions, older_than_secs, versions_removed,
// bytes_removed, released_tags, datasets:[{type_key, location,
// bytes_removed, old_versions_removed, manifests_removed,
// unpublished_manifests, unpublished_bytes, orphan_files_removed,
// foreign_versions, error}]}: keep_versions and older_than_secs are null
// when not given; old_versions_removed and manifests_removed are the two
// spellings (surface.md, engine.md) of one count.
Json CleanupJson(const std::string& uri, const graph::CleanupPolicy& policy, const graph::CleanupReport& report);

}  // namespace omnigraph::api::wire
