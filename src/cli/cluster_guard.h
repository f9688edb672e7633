// A graph that a cluster manages changes only through the cluster's ledger
// (spec/cluster.md §4.8): `init` and a direct `schema apply` on
// `<root>/graphs/<id>.omni` are refused, before anything is written, when
// `<root>/__cluster/state.json` exists.
#pragma once

#include <string>

#include "util/status.h"

namespace omnigraph::cli {

// OK unless `uri` (a local graph path) is `<root>/graphs/<id>.omni` with a
// ledger at `<root>/__cluster/state.json`; then InvalidArgument naming the
// cluster root and pointing at `omnigraph cluster apply`. `verb` names the
// refused command in the message.
Status RefuseClusterManagedGraph(const std::string& uri, std::string_view verb);

}  // namespace omnigraph::cli
