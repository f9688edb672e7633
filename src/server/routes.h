// The route handlers (spec/openapi.json, server.md §1.2), grouped by file:
//   routes_meta.cc     healthz, openapi.json, graphs
//   routes_read.cc     snapshot, query, read, export, schema, queries
//                      catalog, branches list, commits
//   routes_write.cc    mutate (and if-graph-commit, change), load (and
//                      ndjson, ingest), branches create/delete/merge,
//                      schema apply, stored query invocation
//   routes_changes.cc  changes feed, commit changes, changes baseline
//   routes_blob.cc     GET and HEAD blob
// Each handler runs the pipeline's step 4: policy, admission, body, engine.
#pragma once

#include "server/exchange.h"
#include "server/http.h"

namespace omnigraph::server {

HttpResponse HandleHealth(Exchange& exchange);
HttpResponse HandleOpenApi(Exchange& exchange);
HttpResponse HandleGraphList(Exchange& exchange);

HttpResponse HandleSnapshot(Exchange& exchange);
HttpResponse HandleQuery(Exchange& exchange);
HttpResponse HandleLegacyRead(Exchange& exchange);
HttpResponse HandleExport(Exchange& exchange);
HttpResponse HandleSchemaGet(Exchange& exchange);
HttpResponse HandleQueriesCatalog(Exchange& exchange);
HttpResponse HandleBranchList(Exchange& exchange);
HttpResponse HandleCommitList(Exchange& exchange);
HttpResponse HandleCommitShow(Exchange& exchange);
HttpResponse HandleBlobGet(Exchange& exchange);
HttpResponse HandleBlobHead(Exchange& exchange);

HttpResponse HandleMutate(Exchange& exchange);
HttpResponse HandleMutateIfGraphCommit(Exchange& exchange);
HttpResponse HandleLegacyChange(Exchange& exchange);
// POST /load and the deprecated /ingest: the JSON envelope {branch?, from?,
// mode?, data}, whose data is read by the loader-compatible parser
// (surface.md §4.6, exec::LoadSyntax::kLegacy). POST /load/ndjson: a raw,
// strict graph batch (§4.1).
HttpResponse HandleLoad(Exchange& exchange);
HttpResponse HandleLoadNdjson(Exchange& exchange);
std::optional<HttpResponse> PreflightLoadNdjson(Exchange& exchange);
HttpResponse HandleLegacyIngest(Exchange& exchange);
HttpResponse HandleBranchCreate(Exchange& exchange);
HttpResponse HandleBranchDelete(Exchange& exchange);
HttpResponse HandleBranchMerge(Exchange& exchange);
HttpResponse HandleSchemaApply(Exchange& exchange);
HttpResponse HandleStoredQuery(Exchange& exchange);
HttpResponse HandleStoredQueryIfGraphCommit(Exchange& exchange);

HttpResponse HandleChangesFeed(Exchange& exchange);
HttpResponse HandleCommitChanges(Exchange& exchange);
HttpResponse HandleChangesBaseline(Exchange& exchange);

// Shared by the read and stored-query routes: runs read query `name` of
// `source` with `params_json` on `branch` xor `snapshot` after the read
// check on the branch the target resolves to; `legacy` answers the
// LegacyReadOutput (no graph_commit_id). Mutation sources are 400 unless
// `allow_mutation` (the deprecated /read), in which case they run as
// mutations through the change check.
HttpResponse RunRead(Exchange& exchange, const std::string& source, const std::string& name,
                     const std::string& params_json, const std::optional<std::string>& branch,
                     const std::optional<std::string>& snapshot, bool legacy);

// Shared by the mutation and stored-query routes: the change check on
// `branch` (default main), admission, then the engine mutation, with the
// `Omnigraph-If-Graph-Commit` head when `if_commit` is set.
HttpResponse RunMutation(Exchange& exchange, const std::string& source, const std::string& name,
                         const std::string& params_json, const std::optional<std::string>& branch,
                         const std::optional<std::string>& if_commit);

// Adds the deprecation headers of server.md §1.2 to a deprecated route's
// response: `Deprecation: true` and `Link: <successor>; rel="successor-version"`.
void MarkDeprecated(const Exchange& exchange, std::string_view successor, HttpResponse* response);

}  // namespace omnigraph::server
