// The planning core of `cluster plan`, `cluster apply` and `cluster
// approve` (spec/cluster.md §3): the content diff of the ledger's applied
// resources against the desired cluster, metadata-only updates, approval
// gates, per-change dispositions and blast radius. Pure: no storage I/O
// (the migration preview of §3.6 is attached by the plan command).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/desired.h"
#include "cluster/diagnostics.h"
#include "cluster/records.h"
#include "cluster/state.h"

namespace omnigraph::cluster {

enum class ChangeOperation { kCreate, kUpdate, kDelete };
enum class Disposition { kApplied, kDerived, kDeferred, kBlocked };

// "create" | "update" | "delete" (JSON) and "Create" | … (human).
std::string_view OperationName(ChangeOperation operation);
std::string_view OperationTitle(ChangeOperation operation);
// "applied" | "derived" | "deferred" | "blocked" and "Applied" | ….
std::string_view DispositionName(Disposition disposition);
std::string_view DispositionTitle(Disposition disposition);

// §3.6: the engine's schema-apply preview of a schema Update; each step is
// its compact JSON (surface.md §1.9, tagged `kind`).
struct MigrationPreview {
  bool supported = true;
  std::vector<std::string> steps;
};

// One change (§4.0 PlanChange).
struct PlanChange {
  std::string resource;
  ChangeOperation operation = ChangeOperation::kCreate;
  std::optional<std::string> before_digest;
  std::optional<std::string> after_digest;
  std::optional<Disposition> disposition;
  std::optional<std::string> reason;
  bool binding_change = false;
  std::optional<std::string> metadata_change;  // "policy_bindings" | "embedding_profile"
  std::optional<MigrationPreview> migration;
};

// A destructive change that needs an operator's approval (§3.3).
struct ApprovalGate {
  std::string resource;
  std::string reason;  // kGateReason
  bool satisfied = false;
  std::optional<std::string> approval_id;  // the satisfying artifact
};

inline constexpr std::string_view kGateReason = "delete may remove deployed graph or schema definition";

// §3.5: the resources that depend on a changed one.
struct BlastRadius {
  std::string resource;
  std::vector<std::string> affected;
};

struct ClusterPlan {
  std::vector<PlanChange> changes;         // by resource address
  std::vector<ApprovalGate> gates;         // by resource address
  std::vector<BlastRadius> blast_radius;   // one per change with a non-empty radius
  Diagnostics diagnostics;                 // approval_stale warnings
};

struct PlanInputs {
  const DesiredCluster* desired = nullptr;
  // The ledger; none plans every desired resource as a Create.
  const ClusterState* state = nullptr;
  // Every approval artifact listed under the storage root.
  std::vector<ApprovalArtifact> approvals;
  // P of §3.4: graphs whose recovery sidecar the sweep kept (empty in plan).
  std::set<std::string> pending_recovery;
  // §3.2 metadata-only updates (approve diffs content only).
  bool metadata_updates = true;
};

// Runs §3.1–§3.5. REQUIRES: `inputs.desired` is set and error-free.
ClusterPlan PlanCluster(const PlanInputs& inputs);

// The ledger entry the desired cluster implies for `address` (§4.4 step 8):
// its digest plus applies_to (policies), embedding_provider and
// external_blob_policy (graphs), embedding_profile (providers).
// REQUIRES: `address` is a desired resource.
StateResource DesiredStateResource(const DesiredCluster& desired, const std::string& address);

// The resolved source file of a desired schema, query or policy address;
// none for other kinds.
std::optional<std::string> DesiredResourcePath(const DesiredCluster& desired, std::string_view address);

// The graph id an address belongs to: `graph.<g>`, `schema.<g>`,
// `query.<g>.<n>`; none for policies and providers.
std::optional<std::string> GraphOfAddress(std::string_view address);

// §2.2 authority check: every `graph.<g>` digest in `state` equals the
// composite recomputed from the ledger's own entries. Errors:
// external_blob_policy_digest_mismatch "the applied graph resource
// metadata is not bound by its composite digest; restore the cluster state
// ledger from a trusted copy before retrying".
Status CheckLedgerAuthority(const ClusterState& state);

// The composite digest of graph `graph_id` from the ledger's schema and
// query entries, with the given provider binding and external-blob policy
// (§1.8; the provider digest is the ledger's entry for that address).
std::string LedgerGraphDigest(const ClusterState& state, const std::string& graph_id,
                              const std::optional<std::string>& embedding_provider,
                              const std::optional<std::string>& external_blob_policy);

}  // namespace omnigraph::cluster
