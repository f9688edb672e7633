#include "server/served_graph.h"

#include "compiler/query_parser.h"
#include "compiler/typecheck.h"

namespace omnigraph::server {

ServedGraph::Lease::Lease(ServedGraph* owner) : graph(owner) {
  std::unique_lock<std::mutex> lock(graph->pool_mutex_);
  graph->pool_changed_.wait(lock, [this] { return !graph->idle_.empty(); });
  handle = graph->idle_.back();
  graph->idle_.pop_back();
}

ServedGraph::Lease::~Lease() {
  {
    std::lock_guard<std::mutex> lock(graph->pool_mutex_);
    graph->idle_.push_back(handle);
  }
  graph->pool_changed_.notify_one();
}

Result<std::unique_ptr<ServedGraph>> ServedGraph::Open(std::string id, std::string root,
                                                       std::shared_ptr<const policy::Evaluator> policy,
                                                       const std::map<std::string, std::string>& queries,
                                                       size_t pool_size, api::EnginePtr engine,
                                                       const exec::ExternalBlobPolicy& blob_policy) {
  std::unique_ptr<ServedGraph> graph(new ServedGraph());
  graph->id_ = std::move(id);
  graph->root_ = std::move(root);
  graph->engine_ = std::move(engine);
  graph->policy_ = std::move(policy);
  OG_ASSIGN_OR_RETURN(graph->writer_, api::Omnigraph::Open(graph->root_, graph->engine_));
  // The engine checks every write again (defence in depth, §2.4).
  graph->writer_->set_policy(graph->policy_);
  graph->writer_->set_external_blob_policy(blob_policy);
  for (size_t i = 0; i < std::max<size_t>(pool_size, 1); ++i) {
    OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> handle, api::Omnigraph::Open(graph->root_, graph->engine_));
    handle->set_policy(graph->policy_);
    handle->set_external_blob_policy(blob_policy);
    graph->idle_.push_back(handle.get());
    graph->handles_.push_back(std::move(handle));
  }
  OG_ASSIGN_OR_RETURN(auto catalog, graph->writer_->Catalog());
  std::vector<std::string> failures;
  for (const auto& [name, source] : queries) {
    std::string file_name = name + ".gq";
    auto parsed = compiler::ParseQueries(source, file_name);
    if (!parsed.ok()) {
      failures.push_back("  query '" + name + "': " + parsed.status().message());
      continue;
    }
    const compiler::query::QueryDecl* declaration = nullptr;
    for (const auto& candidate : parsed->queries) {
      if (candidate.name == name) declaration = &candidate;
    }
    if (declaration == nullptr) {
      failures.push_back("  query '" + name + "': no `query " + name + "` declaration found in the stored source");
      continue;
    }
    auto checked = compiler::TypeCheck(*catalog, *declaration);
    if (!checked.ok()) {
      failures.push_back("  query '" + name + "': " + checked.status().message());
      continue;
    }
    graph->queries_.emplace(name, StoredQuery{name, source, *declaration});
  }
  if (!failures.empty()) {
    std::string message = "graph '" + graph->id_ + "': " + std::to_string(failures.size()) + " stored " +
                          (failures.size() == 1 ? "query" : "queries") + " failed the schema check:";
    for (const std::string& line : failures) message += "\n" + line;
    return InvalidArgument(message);
  }
  return graph;
}

}  // namespace omnigraph::server
