#include "graph/write/write_txn.h"

#include <chrono>

#include "util/ulid.h"

namespace omnigraph::graph {

Result<WriteTxn> WriteTxn::Capture(GraphStore& graph, const NativeRef& ref, std::optional<std::string> actor_id) {
  WriteTxn txn;
  txn.ref_ = ref;
  OG_ASSIGN_OR_RETURN(uint64_t version, graph.manifests().LatestVersion(txn.ref_));
  OG_ASSIGN_OR_RETURN(txn.base_, graph.AtRef(txn.ref_, version));
  txn.authority_version_ = txn.base_.manifest_version();
  txn.authority_head_ = txn.base_.head().id;
  txn.intent_nonce_ = Ulid::New().ToString();
  txn.created_at_us_ = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  txn.actor_id_ = std::move(actor_id);
  return txn;
}

WriteTxn WriteTxn::OnBase(Snapshot base) const {
  WriteTxn txn = *this;
  txn.base_ = std::move(base);
  return txn;
}

}  // namespace omnigraph::graph
