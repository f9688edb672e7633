#include "graph/layout.h"

#include <fmt/format.h>

#include "graph/manifest/graph_state.h"

namespace omnigraph::graph::layout {

std::string TableLocation(std::string_view table_key, const TableIdentity& identity) {
  std::string_view kind = table_key.rfind("edge:", 0) == 0 ? "edges" : "nodes";
  return fmt::format("{}/{:016x}-{:016x}", kind, identity.stable_id, identity.incarnation_id);
}

std::string DeletedIdsFile(std::string_view table_location, std::string_view transaction_uuid) {
  return fmt::format("{}/_deleted_ids/{}.json", table_location, transaction_uuid);
}

std::string BranchWritersLock(std::string_view branch) {
  std::string name;
  name.reserve(branch.size() * 2);
  for (unsigned char c : branch) name += fmt::format("{:02x}", c);
  return fmt::format("{}/branch-{}.lock", kLocksDir, name);
}

std::string HistorySegment(std::string_view segment_id) {
  return fmt::format("{}/{}.hist", kHistorySegmentsDir, segment_id);
}

}  // namespace omnigraph::graph::layout
