// The `blob stat` document (spec/surface.md §5.2), shared by the CLI and
// the server: {selector:{entity,type,id,property}, kind:"managed"|
// "external", size?, etag?, uri?, target:{branch?, snapshot?,
// resolved_snapshot}}. Optional members are omitted when absent.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/omnigraph.h"

namespace omnigraph::api::wire {

nlohmann::ordered_json BlobStatJson(const BlobInfo& info);

// The human form: one `key: value` line each for kind, size, etag, uri
// (those present), and the snapshot read.
std::string BlobStatText(const BlobInfo& info);

}  // namespace omnigraph::api::wire
