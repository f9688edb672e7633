// `blob get ENTITY TYPE ID PROPERTY [--branch B | --snapshot S] [--offset N]
// [--length M] [--out PATH]` and `blob stat ENTITY TYPE ID PROPERTY
// [--branch B | --snapshot S] [--json]` (spec/surface.md §5.2): the raw
// bytes and the metadata of one Blob cell. The graph is addressed by
// --store (or the profile / operator default), never a positional URI.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "api/wire/blob_json.h"
#include "cli/remote/remote_graph.h"
#include "cli/verbs/query_source.h"
#include "cli/verbs/verbs.h"
#include "exec/result_json.h"
#include "io/local_store.h"

namespace omnigraph::cli {
namespace {

struct BlobOptions {
  exec::BlobSelector selector;  // ENTITY TYPE ID PROPERTY
  std::string branch = "main";  // --branch
  std::string snapshot;         // --snapshot: a graph commit id
  // --offset and --length (get), as given: parsed here so that a value
  // past 2^64 is refused rather than saturated.
  std::string offset;
  std::string length;
  CLI::Option* length_option = nullptr;
  std::string out;  // --out PATH (get)

  api::ReadTarget Target() const {
    api::ReadTarget target;
    target.branch = branch;
    if (!snapshot.empty()) target.snapshot = snapshot;
    return target;
  }
};

// The refusal of `blob get` on an external value: it names the URI, which
// is where the bytes are (the CLI never fetches them).
Status ExternalRefusal(const api::BlobInfo& info) {
  return Status(ErrorCode::kInvalidArgument,
                fmt::format("blob property '{}.{}' of {} '{}' is an external blob; its bytes are at {}",
                            info.selector.type, info.selector.property, info.selector.entity, info.selector.id,
                            info.uri.value_or("")),
                {{"uri", info.uri.value_or("")}});
}

// Writes `bytes` to `path` durably: written beside it, fsynced, renamed
// over it, and the directory fsynced, so a file that exists holds the
// whole range.
Status InstallDurably(const std::string& path, std::string_view bytes) {
  std::filesystem::path target = std::filesystem::absolute(path);
  auto directory = LocalStore::Make(target.parent_path().string());
  if (Status st = directory->Put(target.filename().string(), bytes); !st.ok()) {
    return IoError(fmt::format("cannot write '{}': {}", path, st.message()));
  }
  return Status::OK();
}

// `text` as a byte count. Errors: UsageError naming `flag`.
Result<uint64_t> ParseCount(std::string_view flag, const std::string& text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return UsageError(fmt::format("{} must be a whole number of bytes below 2^64, got '{}'", flag, text));
  }
  return value;
}

// `blob get` on a server (§5.1): GET /blob with the range as a Range
// header; an external value's 302 is refused as locally, naming its URI.
int RunServedBlobGet(Context& context, const BlobOptions& options, const exec::BlobRangeRequest& range) {
  auto graph = remote::RemoteGraph::Open(context.flags);
  if (!graph.ok()) return context.Fail(graph.status());
  std::string header;
  if (range.offset > 0 || range.length) {
    header = fmt::format("bytes={}-{}", range.offset,
                         range.length ? std::to_string(range.offset + *range.length - 1) : std::string());
  }
  std::optional<std::string> snapshot;
  if (!options.snapshot.empty()) snapshot = options.snapshot;
  const exec::BlobSelector& selector = options.selector;
  auto reply = graph->BlobGet(selector.entity, selector.type, selector.id, selector.property, options.branch,
                              snapshot, header);
  if (!reply.ok()) return context.Fail(reply.status());
  if (reply->status == 302) {
    api::BlobInfo info;
    info.selector = selector;
    info.external = true;
    info.uri = remote::HeaderValue(*reply, "Location");
    std::cout << info.uri.value_or("") << "\n";
    return context.Fail(ExternalRefusal(info));
  }
  if (!options.out.empty()) {
    if (Status st = InstallDurably(options.out, reply->body); !st.ok()) return context.Fail(st);
    return kExitOk;
  }
  std::cout.write(reply->body.data(), static_cast<std::streamsize>(reply->body.size()));
  std::cout.flush();
  if (!std::cout) return context.Fail(IoError("cannot write the blob to standard output"));
  return kExitOk;
}

int RunBlobGet(Context& context, const BlobOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "blob get", {.json = false, .served = true}); !st.ok()) {
    return context.Fail(st);
  }
  exec::BlobRangeRequest whole;
  if (!options.offset.empty()) {
    auto offset = ParseCount("--offset", options.offset);
    if (!offset.ok()) return context.Fail(offset.status());
    whole.offset = *offset;
  }
  if (options.length_option->count() > 0) {
    auto length = ParseCount("--length", options.length);
    if (!length.ok()) return context.Fail(length.status());
    whole.length = *length;
  }
  // Refused before the graph is opened: --length 0 and an end past 2^64.
  // (A length above the engine's 4 MiB per call is read in chunks below.)
  if (whole.length && *whole.length == 0) return context.Fail(UsageError("--length must be positive"));
  if (whole.length && *whole.length > std::numeric_limits<uint64_t>::max() - whole.offset) {
    return context.Fail(UsageError(fmt::format("--offset {} + --length {} overflows", whole.offset, *whole.length)));
  }
  if (AddressesServer("", context.flags)) return RunServedBlobGet(context, options, whole);
  auto uri = ResolveUri("", context.flags);
  if (!uri.ok()) return context.Fail(uri.status());
  auto graph = api::Omnigraph::Open(*uri);
  if (!graph.ok()) return context.Fail(graph.status());

  // The engine serves at most 4 MiB per call; the CLI reads the range in
  // such chunks, each from the snapshot the first one resolved, and
  // refuses a value whose tag changed between chunks.
  api::ReadTarget target = options.Target();
  std::string collected;  // for --out: installed whole, or not at all
  std::optional<std::string> etag;
  uint64_t position = whole.offset;
  std::optional<uint64_t> remaining = whole.length;
  while (true) {
    exec::BlobRangeRequest chunk{position, std::nullopt};
    if (remaining) chunk.length = std::min<uint64_t>(*remaining, exec::kBlobReadRangeMaxBytes);
    auto read = (*graph)->BlobGet(options.selector, target, chunk);
    if (!read.ok()) return context.Fail(read.status());
    if (read->info.external) {
      std::cout << *read->info.uri << "\n";
      return context.Fail(ExternalRefusal(read->info));
    }
    if (!etag) {
      etag = read->info.etag;
      const std::string& resolved = read->info.target.resolved_snapshot;
      if (!resolved.starts_with("manifest:")) target = api::ReadTarget{"main", resolved};
    } else if (read->info.etag != etag) {
      return context.Fail(Internal("the blob changed while it was being read"));
    }
    if (options.out.empty()) {
      std::cout.write(read->bytes.data(), static_cast<std::streamsize>(read->bytes.size()));
    } else {
      collected += read->bytes;
    }
    const uint64_t got = read->end - read->start;
    position = read->end;
    if (remaining) *remaining -= got;
    if (got == 0 || read->end >= *read->info.size || (remaining && *remaining == 0)) break;
  }
  if (options.out.empty()) {
    std::cout.flush();
    if (!std::cout) return context.Fail(IoError("cannot write the blob to standard output"));
    return kExitOk;
  }
  if (Status st = InstallDurably(options.out, collected); !st.ok()) return context.Fail(st);
  return kExitOk;
}

// `blob stat` on a server (§5.1): HEAD /blob, its headers as a BlobInfo.
Result<api::BlobInfo> ServedBlobStat(const GlobalFlags& flags, const BlobOptions& options) {
  OG_ASSIGN_OR_RETURN(remote::RemoteGraph graph, remote::RemoteGraph::Open(flags));
  std::optional<std::string> snapshot;
  if (!options.snapshot.empty()) snapshot = options.snapshot;
  const exec::BlobSelector& selector = options.selector;
  OG_ASSIGN_OR_RETURN(remote::HttpReply reply, graph.BlobGet(selector.entity, selector.type, selector.id,
                                                             selector.property, options.branch, snapshot, "",
                                                             /*head=*/true));
  api::BlobInfo info;
  info.selector = selector;
  if (snapshot) info.target.snapshot = snapshot;
  else info.target.branch = options.branch;
  info.target.resolved_snapshot = remote::HeaderValue(reply, "Omnigraph-Snapshot-Id").value_or("");
  if (reply.status == 302) {
    info.external = true;
    info.uri = remote::HeaderValue(reply, "Location");
    return info;
  }
  info.etag = remote::HeaderValue(reply, "ETag");
  std::string length = remote::HeaderValue(reply, "Content-Length").value_or("0");
  uint64_t size = 0;
  std::from_chars(length.data(), length.data() + length.size(), size);
  info.size = size;
  return info;
}

int RunBlobStat(Context& context, const BlobOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "blob stat", {.served = true}); !st.ok()) return context.Fail(st);
  auto info = [&]() -> Result<api::BlobInfo> {
    if (AddressesServer("", context.flags)) return ServedBlobStat(context.flags, options);
    OG_ASSIGN_OR_RETURN(std::string uri, ResolveUri("", context.flags));
    OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> graph, api::Omnigraph::Open(uri));
    return graph->BlobStat(options.selector, options.Target());
  }();
  if (!info.ok()) return context.Fail(info.status());
  if (context.flags.json) {
    std::cout << api::wire::BlobStatJson(*info).dump(2) << "\n";
  } else {
    std::cout << api::wire::BlobStatText(*info);
  }
  return kExitOk;
}

// The selector and target options both subcommands share.
void AddSelectorOptions(CLI::App* command, BlobOptions* options) {
  command->add_option("entity", options->selector.entity, "node | edge")->required();
  command->add_option("type", options->selector.type, "node or edge type")->required();
  command->add_option("id", options->selector.id, "entity id")->required();
  command->add_option("property", options->selector.property, "Blob property")->required();
  CLI::Option* branch = command->add_option("--branch", options->branch, "branch (default main)");
  // A snapshot names its own branch: giving both is a usage error.
  command->add_option("--snapshot", options->snapshot, "read the graph as of a commit id")
      ->excludes(branch)
      ->check(NonEmptyCommitId());
}

}  // namespace

void RegisterBlob(CLI::App& app, Context& context) {
  CLI::App* blob = app.add_subcommand("blob", "read Blob values");

  auto get_options = std::make_shared<BlobOptions>();
  CLI::App* get = blob->add_subcommand("get", "stream the raw bytes of a managed Blob");
  AddSelectorOptions(get, get_options.get());
  get->add_option("--offset", get_options->offset, "first byte to read (default 0)");
  get_options->length_option = get->add_option("--length", get_options->length, "bytes to read (default: to the end)");
  get->add_option("--out", get_options->out, "write the bytes to this file (durably) instead of stdout");
  get->callback([&context, get_options] { context.exit_code = RunBlobGet(context, *get_options); });

  auto stat_options = std::make_shared<BlobOptions>();
  CLI::App* stat = blob->add_subcommand("stat", "the kind, size and tag of a Blob");
  AddSelectorOptions(stat, stat_options.get());
  stat->callback([&context, stat_options] { context.exit_code = RunBlobStat(context, *stat_options); });

  blob->require_subcommand(1);
}

}  // namespace omnigraph::cli
