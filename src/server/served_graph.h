// One graph the server serves: its engine handles, its policy and its
// stored queries (spec/server.md §1.7, cluster.md §5).
//
// Engine handles are not shared between threads: the graph keeps a small
// pool of reader handles and lends one to one read at a time, and one
// writer handle used only under the graph's write gate, so writes' effect
// windows serialize in-process (one writer process per graph is the
// supported topology; a foreign writer is caught by the manifest CAS) and
// every write starts from the state the previous one left in the writer's
// caches. The actor is set on the writer only while the gate is held.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/omnigraph.h"
#include "compiler/query_ast.h"
#include "policy/evaluate.h"
#include "util/status.h"

namespace omnigraph::server {

// A stored query of the graph's applied revision.
struct StoredQuery {
  std::string name;
  std::string source;  // the whole .gq file it was declared in
  compiler::query::QueryDecl declaration;
};

class ServedGraph {
 public:
  // Opens `root` with one writer handle and `pool_size` reader handles (at
  // least 1), all reading through `engine`'s caches and admitting the
  // external Blob URIs `blob_policy` admits. `queries` maps a
  // stored query's name to its file's source; each is parsed and its
  // declaration selected, then type-checked against the live schema.
  // Errors: those of api::Omnigraph::Open; InvalidArgument "graph '<g>': N
  // stored quer(y|ies) failed the schema check:" + one "  query '<n>':
  // <message>" line per failure (cluster.md §5).
  static Result<std::unique_ptr<ServedGraph>> Open(std::string id, std::string root,
                                                   std::shared_ptr<const policy::Evaluator> policy,
                                                   const std::map<std::string, std::string>& queries,
                                                   size_t pool_size, api::EnginePtr engine,
                                                   const exec::ExternalBlobPolicy& blob_policy);

  const std::string& id() const { return id_; }
  const std::string& uri() const { return root_; }
  // The engine context every handle on this graph shares.
  const api::EnginePtr& engine() const { return engine_; }
  // The bundle bound to this graph; null when none is.
  const policy::Evaluator* policy() const { return policy_.get(); }
  const std::map<std::string, StoredQuery>& queries() const { return queries_; }

  // Runs `work` with a borrowed handle. REQUIRES: `work` must not keep the
  // handle past its return.
  template <typename T>
  T Read(const std::function<T(api::Omnigraph&)>& work) {
    Lease lease(this);
    return work(*lease.handle);
  }

  // Runs `work` with the writer handle under the write gate, with the
  // handle's actor set to `actor` for the duration.
  template <typename T>
  T Write(const std::optional<std::string>& actor, const std::function<T(api::Omnigraph&)>& work) {
    std::lock_guard<std::mutex> gate(write_gate_);
    Status set = writer_->set_actor(actor);
    if (!set.ok()) return T(set);
    T result = work(*writer_);
    (void)writer_->set_actor(std::nullopt);
    return result;
  }

 private:
  struct Lease {
    explicit Lease(ServedGraph* graph);
    ~Lease();
    ServedGraph* graph;
    api::Omnigraph* handle;
  };

  ServedGraph() = default;

  std::string id_;
  std::string root_;
  api::EnginePtr engine_;
  std::shared_ptr<const policy::Evaluator> policy_;
  std::map<std::string, StoredQuery> queries_;

  std::unique_ptr<api::Omnigraph> writer_;  // guarded by write_gate_
  std::vector<std::unique_ptr<api::Omnigraph>> handles_;  // readers
  std::mutex pool_mutex_;
  std::condition_variable pool_changed_;
  std::vector<api::Omnigraph*> idle_;
  std::mutex write_gate_;
};

}  // namespace omnigraph::server
