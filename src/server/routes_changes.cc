// The change routes (spec/branches.md BR-10, server.md §1.2): a commit's
// entity changes, a branch's change feed, and the baseline handshake.
#include <charconv>
#include <set>

#include "api/wire/changes_json.h"
#include "server/errors.h"
#include "server/routes.h"
#include "server/server.h"

namespace omnigraph::server {
namespace {

// Rejects query parameters outside `allowed` (unknown parameters are a
// client bug the spec answers with 400 rather than ignore).
std::optional<HttpResponse> OnlyParams(const Exchange& exchange, const std::set<std::string>& allowed) {
  for (const auto& [name, value] : exchange.request.query) {
    if (!allowed.count(name)) return BadRequest("unknown query parameter '" + name + "'");
  }
  return std::nullopt;
}

// The filter of `kind`, `type` and `op` (each repeatable), and `limit`.
std::optional<HttpResponse> FilterAndLimit(const Exchange& exchange, exec::ChangeFilter* filter,
                                           exec::PageLimits* page) {
  for (const auto& [name, value] : exchange.request.query) {
    if (name == "kind") {
      auto kind = exec::ParseEntityKind(value);
      if (!kind.ok()) return ErrorResponse(kind.status());
      filter->kinds.push_back(*kind);
    } else if (name == "type") {
      filter->types.push_back(value);
    } else if (name == "op") {
      auto op = exec::ParseChangeOp(value);
      if (!op.ok()) return ErrorResponse(op.status());
      filter->ops.push_back(*op);
    } else if (name == "limit") {
      uint32_t limit = 0;
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), limit);
      if (error != std::errc() || end != value.data() + value.size()) {
        return BadRequest("limit must be a non-negative integer; got '" + value + "'");
      }
      page->changes = limit;
    }
  }
  return std::nullopt;
}

HttpResponse RawJson(std::string body) {
  HttpResponse response;
  response.body = std::move(body);
  return response;
}

// A JSON array member of strings (absent or null: empty).
std::optional<HttpResponse> StringList(const nlohmann::json& body, const char* name, std::vector<std::string>* out) {
  auto found = body.find(name);
  if (found == body.end() || found->is_null()) return std::nullopt;
  if (!found->is_array()) return BadRequest(std::string("request field '") + name + "' must be an array of strings");
  for (const auto& item : *found) {
    if (!item.is_string()) return BadRequest(std::string("request field '") + name + "' must be an array of strings");
    out->push_back(item.get<std::string>());
  }
  return std::nullopt;
}

}  // namespace

HttpResponse HandleCommitChanges(Exchange& exchange) {
  if (auto refusal = OnlyParams(exchange, {"page_token", "limit", "kind", "type", "op"})) return *refusal;
  const std::string& id = exchange.params.at("commit_id");
  exec::CommitChangesRequest request;
  if (auto refusal = FilterAndLimit(exchange, &request.filter, &request.page)) return *refusal;
  request.page_token = exchange.request.QueryParam("page_token");
  // Checked against the branch the commit was authored on.
  auto view = exchange.graph->Read<Result<exec::CommitView>>(
      [&](api::Omnigraph& handle) { return handle.DescribeCommit(id); });
  std::string branch = view.ok() ? view->commit.graph_branch.value_or("main") : "main";
  if (auto refusal = Authorize(exchange, policy::Action::kRead, branch, std::nullopt)) return *refusal;
  if (!view.ok()) return ErrorResponse(view.status());
  auto page = exchange.graph->Read<Result<exec::CommitChangesPage>>(
      [&](api::Omnigraph& handle) { return handle.CommitChanges(id, request); });
  if (!page.ok()) return ErrorResponse(page.status());
  return RawJson(api::wire::CommitChangesPageJson(*page));
}

HttpResponse HandleChangesFeed(Exchange& exchange) {
  if (auto refusal = OnlyParams(exchange, {"branch", "cursor", "start", "page_token", "limit", "kind", "type", "op"})) {
    return *refusal;
  }
  std::string branch = exchange.request.QueryParam("branch").value_or("main");
  exec::FeedPosition position;
  position.cursor = exchange.request.QueryParam("cursor");
  position.start = exchange.request.QueryParam("start");
  position.page_token = exchange.request.QueryParam("page_token");
  int given = (position.cursor ? 1 : 0) + (position.start ? 1 : 0) + (position.page_token ? 1 : 0);
  if (given != 1) {
    return ErrorResponse(Status(ErrorCode::kChangeCursorRejected,
                                "change cursor rejected: pass exactly one of cursor, start or page_token"));
  }
  exec::ChangeFeedRequest request;
  if (auto refusal = FilterAndLimit(exchange, &request.filter, &request.page)) return *refusal;
  if (auto refusal = Authorize(exchange, policy::Action::kRead, branch, std::nullopt)) return *refusal;
  auto page = exchange.graph->Read<Result<exec::ChangeFeedPage>>(
      [&](api::Omnigraph& handle) { return handle.ChangesPoll(branch, position, request); });
  if (!page.ok()) return ErrorResponse(page.status());
  return RawJson(api::wire::ChangeFeedPageJson(*page));
}

HttpResponse HandleChangesBaseline(Exchange& exchange) {
  nlohmann::json body;
  if (auto refusal = JsonBody(exchange, &body, /*empty_is_object=*/true)) return *refusal;
  std::optional<std::string> branch;
  if (auto refusal = StringField(body, "branch", &branch)) return *refusal;
  std::vector<std::string> kinds, types, ops;
  if (auto refusal = StringList(body, "kind", &kinds)) return *refusal;
  if (auto refusal = StringList(body, "type", &types)) return *refusal;
  if (auto refusal = StringList(body, "op", &ops)) return *refusal;
  exec::ChangeFilter filter;
  for (const std::string& text : kinds) {
    auto kind = exec::ParseEntityKind(text);
    if (!kind.ok()) return ErrorResponse(kind.status());
    filter.kinds.push_back(*kind);
  }
  filter.types = types;
  for (const std::string& text : ops) {
    auto op = exec::ParseChangeOp(text);
    if (!op.ok()) return ErrorResponse(op.status());
    filter.ops.push_back(*op);
  }
  std::string target = branch.value_or("main");
  if (auto refusal = Authorize(exchange, policy::Action::kExport, target, std::nullopt)) return *refusal;
  auto baseline = exchange.graph->Read<Result<exec::ChangeBaseline>>(
      [&](api::Omnigraph& handle) { return handle.ChangesBaseline(target, filter); });
  if (!baseline.ok()) return ErrorResponse(baseline.status());
  HttpResponse response;
  response.content_type = "application/x-ndjson; charset=utf-8";
  response.body = std::move(baseline->snapshot) + api::wire::BaselineTrailerLine(*baseline);
  return response;
}

}  // namespace omnigraph::server
