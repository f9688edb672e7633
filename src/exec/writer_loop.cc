#include "exec/writer_loop.h"

namespace omnigraph::exec {

Status RunWriter(graph::GraphStore& graph, std::string_view branch, const std::optional<std::string>& actor,
                 const WriterAttempt& attempt) {
  for (int n = 1;; ++n) {
    OG_ASSIGN_OR_RETURN(graph::GraphStore::BranchWriters writers, graph.LockBranchWriters(branch));
    OG_ASSIGN_OR_RETURN(graph::WriteTxn txn, graph::WriteTxn::Capture(graph, writers.ref, actor));
    RetryPolicy policy;
    Status result = attempt(txn, &policy);
    bool retry = result.code() == ErrorCode::kReadSetChanged && policy.re_prepare_on_read_set_changed &&
                 n < kMaxRePrepareAttempts;
    if (!retry) return result;
  }
}

}  // namespace omnigraph::exec
