// The `cleanup --json` document (spec/surface.md §5.2 `cleanup`; per-dataset
// fields of spec/engine.md §8.2).
#pragma once

#include <string>

#include "api/wire/report_json.h"
#include "graph/maintenance/collector.h"

namespace omnigraph::api::wire {

// {uri, keep_versions, older_than_secs, datasets:[{type_key, bytes_removed,
// old_versions_removed, error, manifests_removed, unpublished_manifests,
// unpublished_bytes, foreign_versions, location, orphan_files_removed}],
// confirmed, versions_removed, bytes_removed, released_tags}:
// keep_versions and older_than_secs are null when not given;
// old_versions_removed (surface.md) and manifests_removed (engine.md) are
// the two spellings of one count.
Json CleanupJson(const std::string& uri, const graph::CleanupPolicy& policy, const graph::CleanupReport& report);

}  // namespace omnigraph::api::wire
