// `cleanup [URI] [--keep N] [--older-than DUR] [--confirm] [--json]`
// (spec/surface.md §5.2; spec/engine.md §8.2): runs the tracing collector.
// A retention policy (--keep and/or --older-than) is required; without
// --confirm the plan is printed to stderr as a preview and nothing is
// deleted (exit 0).
#include <charconv>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "api/wire/cleanup_json.h"
#include "cli/verbs/verbs.h"
#include "compiler/source.h"

namespace omnigraph::cli {
namespace {

struct CleanupOptions {
  std::string uri;         // positional graph URI
  std::optional<std::string> keep;        // --keep N
  std::optional<std::string> older_than;  // --older-than DUR
  bool confirm = false;    // --confirm
};

// A whole decimal number without sign, or nullopt.
std::optional<uint64_t> ParseCount(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "<n>[s|m|h|d|w]" in seconds (no unit = seconds). UsageError otherwise.
Result<uint64_t> ParseDuration(std::string_view text) {
  auto bad = [&] {
    return UsageError(fmt::format("--older-than '{}' is not a duration: expected <n>[s|m|h|d|w], e.g. 90s, 12h, 7d",
                                  compiler::EscapeForDisplay(text)));
  };
  if (text.empty()) return bad();
  uint64_t unit = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: unit = 0; break;
  }
  if (unit != 0) {
    digits.remove_suffix(1);
  } else {
    unit = 1;
  }
  std::optional<uint64_t> n = ParseCount(digits);
  if (!n || *n > UINT64_MAX / unit || *n * unit > static_cast<uint64_t>(INT64_MAX / 1'000'000'000)) return bad();
  return *n * unit;
}

std::string PolicyText(const graph::CleanupPolicy& policy) {
  std::string text;
  if (policy.keep_versions) text = fmt::format("keep {}", *policy.keep_versions);
  if (policy.older_than_secs) {
    text += fmt::format("{}older than {}s", text.empty() ? "" : ", ", *policy.older_than_secs);
  }
  return text;
}

int RunCleanup(Context& context, const CleanupOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "cleanup", {.yes = true, .cluster = true}); !st.ok()) {
    return context.Fail(st);
  }
  graph::CleanupPolicy policy;
  policy.confirm = options.confirm;
  if (options.keep) {
    std::optional<uint64_t> keep = ParseCount(*options.keep);
    if (!keep || *keep == 0) {
      return context.Fail(UsageError(
          fmt::format("--keep '{}' is not a count of versions (a whole number of at least 1)",
                      compiler::EscapeForDisplay(*options.keep))));
    }
    policy.keep_versions = *keep;
  }
  if (options.older_than) {
    auto secs = ParseDuration(*options.older_than);
    if (!secs.ok()) return context.Fail(secs.status());
    policy.older_than_secs = *secs;
  }
  // Refused before the graph is opened: a typed error, nothing read.
  if (Status st = graph::ValidateCleanupPolicy(policy); !st.ok()) return context.Fail(st);
  auto target = ResolveMaintenanceTarget(options.uri, context.flags);
  if (!target.ok()) return context.Fail(target.status());
  auto graph = api::Omnigraph::Open(target->path);
  if (!graph.ok()) return context.Fail(graph.status());
  const std::string uri = target->shown;
  if (policy.confirm) EchoWriteTarget(context.flags, "cleanup", uri);
  auto report = (*graph)->Cleanup(policy);
  if (!report.ok()) return context.Fail(report.status());
  const std::string summary = fmt::format("removed {} versions ({} bytes) across {} datasets",
                                          report->versions_removed(), report->bytes_removed(),
                                          report->datasets_touched());
  if (!policy.confirm) {
    std::cerr << fmt::format("cleanup preview {} ({}) — would have {}; nothing was deleted (pass --confirm)\n", uri,
                             PolicyText(policy), summary);
    for (const graph::DatasetCleanup& d : report->datasets) {
      if (d.manifests_removed == 0 && d.bytes_removed == 0 && !d.error) continue;
      std::cerr << fmt::format("  {}: {} versions ({} bytes){}\n", d.type_key, d.manifests_removed, d.bytes_removed,
                               d.error ? " error: " + *d.error : "");
    }
    if (context.flags.json) std::cout << api::wire::CleanupJson(uri, policy, *report).dump(2) << "\n";
    return kExitOk;
  }
  context.published = fmt::format("cleanup of '{}'", uri);
  if (context.flags.json) {
    std::cout << api::wire::CleanupJson(uri, policy, *report).dump(2) << "\n";
  } else {
    std::cout << fmt::format("cleanup {} ({}) — {}\n", uri, PolicyText(policy), summary);
    for (const graph::DatasetCleanup& d : report->datasets) {
      if (d.error) std::cout << fmt::format("  {}: error: {}\n", d.type_key, *d.error);
    }
  }
  bool failed = false;
  for (const graph::DatasetCleanup& d : report->datasets) failed = failed || d.error.has_value();
  return failed ? kExitError : kExitOk;
}

}  // namespace

void RegisterCleanup(CLI::App& app, Context& context) {
  auto options = std::make_shared<CleanupOptions>();
  CLI::App* cleanup = app.add_subcommand("cleanup", "reclaim table and manifest versions no retained state needs");
  cleanup->add_option("uri", options->uri, "graph directory");
  cleanup->add_option("--keep", options->keep, "keep the newest N graph versions of every branch");
  cleanup->add_option("--older-than", options->older_than, "keep graph versions younger than DUR (<n>[s|m|h|d|w])");
  cleanup->add_flag("--confirm", options->confirm, "delete (without it, print a preview and delete nothing)");
  cleanup->callback([&context, options] { context.exit_code = RunCleanup(context, *options); });
}

}  // namespace omnigraph::cli
