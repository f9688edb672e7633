// `commit changes [--uri U] ID …`, `changes poll [--uri U] [--branch B]
// (--cursor C | --start S) …` and `changes baseline [--uri U] [--branch B]
// --out PATH …` (spec/branches.md BR-10, BR-13.1): a commit's entity
// changes, the branch's change feed, and a baseline to start it from.
#include <filesystem>
#include <functional>
#include <optional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/wire/changes_json.h"
#include "cli/remote/changes_reader.h"
#include "cli/remote/http_client.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/verbs.h"
#include "exec/result_json.h"
#include "io/local_store.h"

namespace omnigraph::cli {
namespace {

// The filter and page options every change verb takes.
struct ChangeOptions {
  std::string uri;  // --uri
  std::vector<std::string> kinds;
  std::vector<std::string> types;
  std::vector<std::string> ops;
  uint32_t limit = exec::kDefaultPageChanges;  // changes per page
};

void AddChangeOptions(CLI::App* command, ChangeOptions* options, bool with_ops = true) {
  command->add_option("--uri", options->uri, "graph directory");
  command->add_option("--kind", options->kinds, "node | edge (repeatable)");
  command->add_option("--type", options->types, "a node or edge type (repeatable)");
  if (with_ops) command->add_option("--op", options->ops, "insert | update | delete (repeatable)");
}

Result<exec::ChangeFilter> FilterOf(const ChangeOptions& options) {
  exec::ChangeFilter filter;
  for (const std::string& k : options.kinds) {
    OG_ASSIGN_OR_RETURN(exec::EntityKind kind, exec::ParseEntityKind(k));
    filter.kinds.push_back(kind);
  }
  filter.types = options.types;
  for (const std::string& o : options.ops) {
    OG_ASSIGN_OR_RETURN(exec::ChangeOp op, exec::ParseChangeOp(o));
    filter.ops.push_back(op);
  }
  return filter;
}

// The filter and page size as the query string of a change route
// ("limit=N&kind=…&type=…&op=…"), each filter value repeated as given.
std::string FilterQuery(const ChangeOptions& options) {
  std::string query = "limit=" + std::to_string(options.limit);
  for (const std::string& kind : options.kinds) query += "&kind=" + remote::UrlEncode(kind);
  for (const std::string& type : options.types) query += "&type=" + remote::UrlEncode(type);
  for (const std::string& op : options.ops) query += "&op=" + remote::UrlEncode(op);
  return query;
}

// One page of a served change route, read back into the engine's type.
template <typename Page>
Result<Page> ServedPage(Result<std::string> body, Result<Page> (*parse)(std::string_view)) {
  if (!body.ok()) return body.status();
  return parse(*body);
}

struct CommitChangesOptions : ChangeOptions {
  std::string id;          // positional
  std::string page_token;  // --page-token: one raw page
};

int RunCommitChanges(Context& context, const CommitChangesOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "commit changes", {.served = true}); !st.ok()) {
    return context.Fail(st);
  }
  auto filter = FilterOf(options);
  if (!filter.ok()) return context.Fail(UsageError(filter.status().message()));
  // Pages come from the store, or from the server's GET
  // /commits/{id}/changes (§5.1), and print alike.
  std::function<Result<exec::CommitChangesPage>(const exec::CommitChangesRequest&)> fetch;
  std::unique_ptr<api::Omnigraph> local;
  std::optional<remote::RemoteGraph> served;
  if (AddressesServer(options.uri, context.flags)) {
    auto opened = remote::RemoteGraph::Open(context.flags, options.uri);
    if (!opened.ok()) return context.Fail(opened.status());
    served.emplace(std::move(*opened));
    fetch = [&](const exec::CommitChangesRequest& request) {
      std::string query = FilterQuery(options);
      if (request.page_token) query += "&page_token=" + remote::UrlEncode(*request.page_token);
      return ServedPage(served->CommitChanges(options.id, query), remote::ParseCommitChangesPage);
    };
  } else {
    auto opened = OpenGraph(options.uri, context.flags);
    if (!opened.ok()) return context.Fail(opened.status());
    local = std::move(*opened);
    fetch = [&](const exec::CommitChangesRequest& request) { return local->CommitChanges(options.id, request); };
  }
  exec::CommitChangesRequest request;
  request.filter = *filter;
  request.page.changes = options.limit;
  if (!options.page_token.empty()) {
    // Exactly one raw page, with its continuation.
    request.page_token = options.page_token;
    auto page = fetch(request);
    if (!page.ok()) return context.Fail(page.status());
    if (context.flags.json) {
      std::cout << exec::PrettyJson(api::wire::CommitChangesPageJson(*page)) << "\n";
    } else {
      std::cout << api::wire::CommitChangesText(page->cause, page->changes,
                                                page->next_page_token.value_or("null"));
    }
    return kExitOk;
  }
  // Every page of the commit, joined.
  std::vector<exec::EntityChange> changes;
  std::optional<exec::ChangeCause> cause;
  while (true) {
    auto page = fetch(request);
    if (!page.ok()) return context.Fail(page.status());
    cause = page->cause;
    for (exec::EntityChange& change : page->changes) changes.push_back(std::move(change));
    if (!page->next_page_token) break;
    request.page_token = page->next_page_token;
  }
  if (context.flags.json) {
    std::cout << exec::PrettyJson(api::wire::CommitChangesJson(*cause, changes)) << "\n";
  } else {
    std::cout << api::wire::CommitChangesText(*cause, changes);
  }
  return kExitOk;
}

struct PollOptions : ChangeOptions {
  std::string branch = "main";
  std::string cursor;  // --cursor
  std::string start;   // --start now | beginning | after:<id>
};

int RunChangesPoll(Context& context, const PollOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "changes poll", {.served = true}); !st.ok()) return context.Fail(st);
  auto filter = FilterOf(options);
  if (!filter.ok()) return context.Fail(UsageError(filter.status().message()));
  // Pages come from the store, or from the server's GET /changes (§5.1).
  std::function<Result<exec::ChangeFeedPage>(const exec::FeedPosition&, const exec::ChangeFeedRequest&)> fetch;
  std::unique_ptr<api::Omnigraph> local;
  std::optional<remote::RemoteGraph> served;
  if (AddressesServer(options.uri, context.flags)) {
    auto opened = remote::RemoteGraph::Open(context.flags, options.uri);
    if (!opened.ok()) return context.Fail(opened.status());
    served.emplace(std::move(*opened));
    fetch = [&](const exec::FeedPosition& at, const exec::ChangeFeedRequest&) {
      std::string query = "branch=" + remote::UrlEncode(options.branch) + "&" + FilterQuery(options);
      if (at.cursor) query += "&cursor=" + remote::UrlEncode(*at.cursor);
      if (at.start) query += "&start=" + remote::UrlEncode(*at.start);
      if (at.page_token) query += "&page_token=" + remote::UrlEncode(*at.page_token);
      return ServedPage(served->ChangesFeed(query), remote::ParseChangeFeedPage);
    };
  } else {
    auto opened = OpenGraph(options.uri, context.flags);
    if (!opened.ok()) return context.Fail(opened.status());
    local = std::move(*opened);
    fetch = [&](const exec::FeedPosition& at, const exec::ChangeFeedRequest& request) {
      return local->ChangesPoll(options.branch, at, request);
    };
  }
  exec::FeedPosition position;
  if (!options.cursor.empty()) position.cursor = options.cursor;
  if (!options.start.empty()) position.start = options.start;
  exec::ChangeFeedRequest request;
  request.filter = *filter;
  request.page.changes = options.limit;
  // One poll, streamed across its pages until the terminal one.
  api::wire::ChangeFeedCollector collected;
  while (true) {
    auto page = fetch(position, request);
    if (!page.ok()) return context.Fail(page.status());
    bool terminal = page->terminal();
    std::optional<std::string> next = page->next_page_token;
    collected.Add(std::move(*page));
    if (terminal) break;
    position = exec::FeedPosition{};
    position.page_token = next;
  }
  const std::string& cursor = *collected.cursor();
  if (context.flags.json) {
    std::cout << exec::PrettyJson(api::wire::ChangeFeedJson(collected.blocks(), cursor, collected.caught_up())) << "\n";
  } else {
    std::cout << api::wire::ChangeFeedText(collected.blocks(), cursor, collected.caught_up());
  }
  return kExitOk;
}

struct BaselineOptions : ChangeOptions {
  std::string branch = "main";
  std::string out;  // --out PATH
};

// Installs `bytes` at `path` durably: written beside it, fsynced, renamed
// over it, and the directory fsynced (BR-10.3), so the file a consumer
// resumes from is never a torn or lost snapshot.
Status InstallDurably(const std::string& path, std::string_view bytes) {
  std::filesystem::path target = std::filesystem::absolute(path);
  auto directory = LocalStore::Make(target.parent_path().string());
  return directory->Put(target.filename().string(), bytes);
}

// The baseline of the graph a command addresses: its store's, or the
// server's POST /changes/baseline (§5.1), read back into the same type.
Result<exec::ChangeBaseline> CaptureBaseline(const Context& context, const BaselineOptions& options) {
  // The filter is checked here for a server too, so a bad one is the
  // same usage error either way.
  auto filter = FilterOf(options);
  if (!filter.ok()) return UsageError(filter.status().message());
  if (AddressesServer(options.uri, context.flags)) {
    OG_ASSIGN_OR_RETURN(remote::RemoteGraph graph, remote::RemoteGraph::Open(context.flags, options.uri));
    OG_ASSIGN_OR_RETURN(std::string reply, graph.ChangesBaseline(options.branch, options.kinds, options.types,
                                                                 options.ops));
    return remote::ParseBaseline(std::move(reply));
  }
  OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> graph, OpenGraph(options.uri, context.flags));
  return graph->ChangesBaseline(options.branch, *filter);
}

int RunChangesBaseline(Context& context, const BaselineOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "changes baseline", {.served = true}); !st.ok()) {
    return context.Fail(st);
  }
  auto baseline = CaptureBaseline(context, options);
  if (!baseline.ok()) return context.Fail(baseline.status());
  if (Status st = InstallDurably(options.out, baseline->snapshot); !st.ok()) return context.Fail(st);
  if (context.flags.json) {
    std::cout << exec::PrettyJson(api::wire::BaselineHandshakeJson(*baseline)) << "\n";
  } else {
    std::cout << api::wire::BaselineText(options.out, *baseline);
  }
  return kExitOk;
}

}  // namespace

void RegisterCommitChanges(CLI::App* commit, Context& context) {
  auto options = std::make_shared<CommitChangesOptions>();
  CLI::App* changes = commit->add_subcommand("changes", "the entity changes of one commit");
  AddChangeOptions(changes, options.get());
  changes->add_option("id", options->id, "graph commit id")->required();
  changes->add_option("--limit", options->limit, "changes per page (default 1000)");
  changes->add_option("--page-token", options->page_token, "print exactly the page this token continues");
  changes->callback([&context, options] { context.exit_code = RunCommitChanges(context, *options); });
}

void RegisterChanges(CLI::App& app, Context& context) {
  CLI::App* changes = app.add_subcommand("changes", "the change feed of a branch");

  auto poll_options = std::make_shared<PollOptions>();
  CLI::App* poll = changes->add_subcommand("poll", "the commits after a cursor or a start position");
  AddChangeOptions(poll, poll_options.get());
  poll->add_option("--branch", poll_options->branch, "branch (default main)");
  CLI::Option* cursor = poll->add_option("--cursor", poll_options->cursor, "resume after this cursor");
  poll->add_option("--start", poll_options->start, "now | beginning | after:<commit id>")->excludes(cursor);
  poll->add_option("--limit", poll_options->limit, "changes per page (default 1000)");
  poll->callback([&context, poll_options] { context.exit_code = RunChangesPoll(context, *poll_options); });

  auto baseline_options = std::make_shared<BaselineOptions>();
  CLI::App* baseline = changes->add_subcommand("baseline", "an exact snapshot and the cursor to resume after it");
  AddChangeOptions(baseline, baseline_options.get());
  baseline->add_option("--branch", baseline_options->branch, "branch (default main)");
  baseline->add_option("--out", baseline_options->out, "file to write the NDJSON snapshot to")->required();
  baseline->callback(
      [&context, baseline_options] { context.exit_code = RunChangesBaseline(context, *baseline_options); });

  changes->require_subcommand(1);
}

}  // namespace omnigraph::cli
