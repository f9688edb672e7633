// The route table (spec/openapi.json paths; server.md §1.2). Literal
// routes come before parameter routes of the same shape, so
// "/branches/merge" is never read as the branch "merge".
#include "server/routes.h"

#include "server/server.h"

namespace omnigraph::server {

void Server::AddRoutes() {
  struct Entry {
    const char* method;
    const char* pattern;
    Handler handler;
    bool authenticated = true;
    uint64_t body_limit = kDefaultBodyLimit;
    bool writes = false;
  };
  constexpr bool kWrites = true;
  const Entry entries[] = {
      {"GET", "/healthz", HandleHealth, false},
      {"GET", "/openapi.json", HandleOpenApi, false},
      {"GET", "/graphs", HandleGraphList},
      {"GET", "/graphs/{graph_id}/snapshot", HandleSnapshot},
      {"GET", "/graphs/{graph_id}/blob", HandleBlobGet},
      {"HEAD", "/graphs/{graph_id}/blob", HandleBlobHead},
      {"POST", "/graphs/{graph_id}/query", HandleQuery},
      {"POST", "/graphs/{graph_id}/read", HandleLegacyRead},
      {"POST", "/graphs/{graph_id}/export", HandleExport},
      {"POST", "/graphs/{graph_id}/mutate", HandleMutate, true, kDefaultBodyLimit, kWrites},
      {"POST", "/graphs/{graph_id}/mutate/if-graph-commit", HandleMutateIfGraphCommit, true, kDefaultBodyLimit, kWrites},
      {"POST", "/graphs/{graph_id}/change", HandleLegacyChange, true, kDefaultBodyLimit, kWrites},
      {"GET", "/graphs/{graph_id}/queries", HandleQueriesCatalog},
      {"POST", "/graphs/{graph_id}/queries/{name}", HandleStoredQuery},
      {"POST", "/graphs/{graph_id}/queries/{name}/if-graph-commit", HandleStoredQueryIfGraphCommit, true, kDefaultBodyLimit, kWrites},
      {"GET", "/graphs/{graph_id}/schema", HandleSchemaGet},
      {"POST", "/graphs/{graph_id}/schema/apply", HandleSchemaApply},
      {"POST", "/graphs/{graph_id}/load", HandleLoad, true, kLoadBodyLimit, kWrites},
      {"POST", "/graphs/{graph_id}/load/ndjson", HandleLoadNdjson, true, kLoadBodyLimit, kWrites},
      {"POST", "/graphs/{graph_id}/ingest", HandleLegacyIngest, true, kLoadBodyLimit, kWrites},
      {"GET", "/graphs/{graph_id}/branches", HandleBranchList},
      {"POST", "/graphs/{graph_id}/branches", HandleBranchCreate, true, kDefaultBodyLimit, kWrites},
      {"POST", "/graphs/{graph_id}/branches/merge", HandleBranchMerge, true, kDefaultBodyLimit, kWrites},
      {"DELETE", "/graphs/{graph_id}/branches/{branch}", HandleBranchDelete, true, kDefaultBodyLimit, kWrites},
      {"GET", "/graphs/{graph_id}/commits", HandleCommitList},
      {"GET", "/graphs/{graph_id}/commits/{commit_id}", HandleCommitShow},
      {"GET", "/graphs/{graph_id}/commits/{commit_id}/changes", HandleCommitChanges},
      {"GET", "/graphs/{graph_id}/changes", HandleChangesFeed},
      {"POST", "/graphs/{graph_id}/changes/baseline", HandleChangesBaseline},
  };
  for (const Entry& entry : entries) {
    Route route;
    route.method = entry.method;
    route.pattern = entry.pattern;
    route.handler = entry.handler;
    route.authenticated = entry.authenticated;
    route.body_limit = entry.body_limit;
    route.writes = entry.writes;
    if (std::string_view(entry.pattern) == "/graphs/{graph_id}/load/ndjson") route.preflight = PreflightLoadNdjson;
    router_.Add(std::move(route));
  }
}

}  // namespace omnigraph::server
