// The server's event log (spec/server.md §1.1 "RUST_LOG-style filter",
// §1.3 step 2 per-request trace, §1.4 "policy decision" events): one line
// per event on stderr,
//
//   2026-12-03T13:10:00.123Z INFO policy: policy decision actor_id=reader action=read ...
//
// Which events are written is decided by a filter read from OMNIGRAPH_LOG,
// our equivalent of upstream's RUST_LOG: comma-separated directives, each
// either `LEVEL` (the level of every target) or `TARGET=LEVEL`, the last
// directive for a target winning. Levels: off, error, warn, info, debug,
// trace. Targets:
//   policy   every HTTP-layer policy decision (info)
//   routing  "graph routed" for each request on a graph (info)
//   request  one line per request once its handler returns: method, path,
//            status, actor, latency (debug)
// Unset or empty: `info`.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

namespace omnigraph::server {

enum class LogLevel { kOff = 0, kError, kWarn, kInfo, kDebug, kTrace };

// The targets events are written under.
enum class LogTarget { kPolicy = 0, kRouting, kRequest };
inline constexpr size_t kLogTargets = 3;

class EventLog {
 public:
  using Field = std::pair<std::string_view, std::string_view>;
  // Receives each whole line, newline included. The default writes it to
  // stderr with one write(2), so lines of concurrent events never interleave.
  using Sink = std::function<void(std::string_view line)>;

  // Every target at `info`, written to stderr.
  EventLog();

  // Parses an OMNIGRAPH_LOG filter (see above). Errors: InvalidArgument
  // "OMNIGRAPH_LOG: '<directive>' is not a level or TARGET=LEVEL (levels:
  // off, error, warn, info, debug, trace; targets: policy, routing,
  // request)".
  static Result<EventLog> FromFilter(std::string_view filter);

  bool Enabled(LogTarget target, LogLevel level) const {
    return level != LogLevel::kOff && level <= levels_[static_cast<size_t>(target)];
  }

  // Writes one event if `target` is enabled at `level`. Field values with
  // spaces, quotes or '=' are written quoted, with '"' and '\' escaped.
  void Write(LogTarget target, LogLevel level, std::string_view message, std::initializer_list<Field> fields) const;

  // For tests: where lines go instead of stderr.
  void set_sink(Sink sink) { sink_ = std::move(sink); }

 private:
  std::array<LogLevel, kLogTargets> levels_;
  Sink sink_;
};

}  // namespace omnigraph::server
