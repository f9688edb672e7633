// `cluster approve RESOURCE` (spec/cluster.md §4.5, §2.7): records an
// operator's approval of one gated destructive change as a digest-bound
// artifact. The ledger is untouched; the next `cluster apply` that plans
// exactly that change (same config digest, same before/after digests)
// executes it and consumes the artifact.
#pragma once

#include <optional>
#include <string>

#include "cluster/command.h"

namespace omnigraph::cluster {

// §4.5 JSON {ok, config_dir, approval_id?, resource?, operation?,
// approved_by?, diagnostics}.
struct ApproveReport {
  bool ok = false;
  std::string config_dir;
  std::optional<std::string> approval_id;
  std::optional<std::string> resource;
  std::optional<std::string> operation;
  std::optional<std::string> approved_by;
  Diagnostics diagnostics;
};

// Load → lock ("approve") → read state (state_missing "approve requires an
// existing state.json; run `cluster import` to bootstrap state") → content
// diff and gates (no sweep, no metadata updates) → `resource` must be gated
// (approval_not_required "no pending change for this resource requires
// approval (check `cluster plan`)") → writes the artifact. Other codes:
// those of LoadDesiredCluster, storage_root_invalid, state_lock_held,
// state_lock_error, state_read_error, invalid_state_json,
// state_write_error. REQUIRES: `options.actor` is set (the CLI refuses
// an approval without an approver before calling this).
ApproveReport RunApprove(const CommandOptions& options, const std::string& resource);

}  // namespace omnigraph::cluster
