#include "server/event_log.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>

#include <fmt/format.h>

namespace omnigraph::server {
namespace {

constexpr std::array<std::string_view, kLogTargets> kTargetNames = {"policy", "routing", "request"};
constexpr std::array<std::string_view, 6> kLevelNames = {"OFF", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::optional<LogLevel> ParseLevel(std::string_view text) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    std::string_view name = kLevelNames[i];
    if (text.size() != name.size()) continue;
    bool same = true;
    for (size_t c = 0; c < text.size() && same; ++c) {
      same = std::toupper(static_cast<unsigned char>(text[c])) == name[c];
    }
    if (same) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

void WriteToStderr(std::string_view line) {
  while (!line.empty()) {
    ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // nowhere to report a failing stderr
    line.remove_prefix(static_cast<size_t>(written));
  }
}

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return false;
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

void AppendValue(std::string* line, std::string_view value) {
  if (!NeedsQuotes(value)) {
    line->append(value);
    return;
  }
  line->push_back('"');
  for (char c : value) {
    if (c == '"' || c == '\\') line->push_back('\\');
    if (c == '\n') {
      line->append("\\n");
      continue;
    }
    line->push_back(c);
  }
  line->push_back('"');
}

}  // namespace

EventLog::EventLog() : sink_(WriteToStderr) { levels_.fill(LogLevel::kInfo); }

Result<EventLog> EventLog::FromFilter(std::string_view filter) {
  EventLog log;
  size_t start = 0;
  while (start <= filter.size()) {
    size_t comma = filter.find(',', start);
    if (comma == std::string_view::npos) comma = filter.size();
    std::string_view directive = TrimBlanks(filter.substr(start, comma - start));
    start = comma + 1;
    if (directive.empty()) continue;
    auto refuse = [&] {
      return InvalidArgument(fmt::format(
          "OMNIGRAPH_LOG: '{}' is not a level or TARGET=LEVEL (levels: off, error, warn, info, debug, trace; "
          "targets: policy, routing, request)",
          directive));
    };
    size_t equals = directive.find('=');
    std::optional<LogLevel> level =
        ParseLevel(TrimBlanks(equals == std::string_view::npos ? directive : directive.substr(equals + 1)));
    if (!level) return refuse();
    if (equals == std::string_view::npos) {
      log.levels_.fill(*level);
      continue;
    }
    std::string_view target = TrimBlanks(directive.substr(0, equals));
    size_t index = 0;
    while (index < kTargetNames.size() && kTargetNames[index] != target) ++index;
    if (index == kTargetNames.size()) return refuse();
    log.levels_[index] = *level;
  }
  return log;
}

void EventLog::Write(LogTarget target, LogLevel level, std::string_view message,
                     std::initializer_list<Field> fields) const {
  if (!Enabled(target, level)) return;
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::string line = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z {} {}: {}", utc.tm_year + 1900,
                                 utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis,
                                 kLevelNames[static_cast<size_t>(level)], kTargetNames[static_cast<size_t>(target)],
                                 message);
  for (const auto& [name, value] : fields) {
    line.push_back(' ');
    line.append(name);
    line.push_back('=');
    AppendValue(&line, value);
  }
  line.push_back('\n');
  sink_(line);
}

}  // namespace omnigraph::server
