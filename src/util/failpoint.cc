#include "util/failpoint.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace omnigraph::failpoint {
namespace {

struct Armed {
  Action action = Action::kOff;
  uint32_t skip = 0;  // hits that still pass before the action
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Armed, std::less<>> armed;
  std::atomic<bool> any_armed{false};
};

struct ParsedEntry {
  std::string name;
  Action action = Action::kOff;
  uint32_t skip = 0;
};

// Parses `name=action[@skip][;name=action[@skip]...]`.
Status ParseSpec(std::string_view spec, std::vector<ParsedEntry>* out) {
  std::string_view rest = spec;
  while (!rest.empty()) {
    size_t end = rest.find(';');
    std::string_view entry = rest.substr(0, end);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument(fmt::format("failpoint entry '{}' is not name=action", entry));
    }
    std::string_view action = entry.substr(eq + 1);
    uint32_t skip = 0;
    if (size_t at = action.find('@'); at != std::string_view::npos) {
      std::string_view count = action.substr(at + 1);
      auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), skip);
      if (count.empty() || ec != std::errc() || ptr != count.data() + count.size()) {
        return InvalidArgument(fmt::format("failpoint skip count '{}' is not a number", count));
      }
      action = action.substr(0, at);
    }
    Action a;
    if (action == "crash") a = Action::kCrash;
    else if (action == "error") a = Action::kError;
    else if (action == "off") a = Action::kOff;
    else return InvalidArgument(fmt::format("failpoint action '{}' is not crash, error or off", action));
    out->push_back(ParsedEntry{std::string(entry.substr(0, eq)), a, skip});
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return Status::OK();
}

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry();
    std::vector<ParsedEntry> parsed;
    if (const char* spec = std::getenv("OMNIGRAPH_FAILPOINTS"); spec != nullptr) {
      // A malformed environment spec arms nothing rather than aborting.
      if (ParseSpec(spec, &parsed).ok()) {
        for (const ParsedEntry& e : parsed) {
          if (e.action != Action::kOff) r->armed[e.name] = Armed{e.action, e.skip};
        }
      }
    }
    r->any_armed = !r->armed.empty();
    return r;
  }();
  return *instance;
}

}  // namespace

void Set(std::string_view name, Action action, uint32_t skip) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (action == Action::kOff) {
    r.armed.erase(std::string(name));
  } else {
    r.armed[std::string(name)] = Armed{action, skip};
  }
  r.any_armed = !r.armed.empty();
}

void ClearAll() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.armed.clear();
  r.any_armed = false;
}

Status Configure(std::string_view spec) {
  std::vector<ParsedEntry> parsed;
  OG_RETURN_IF_ERROR(ParseSpec(spec, &parsed));
  for (const ParsedEntry& e : parsed) Set(e.name, e.action, e.skip);
  return Status::OK();
}

Status Hit(std::string_view name) {
  Registry& r = registry();
  if (!r.any_armed.load(std::memory_order_relaxed)) return Status::OK();
  Action action;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.armed.find(name);
    if (it == r.armed.end()) return Status::OK();
    if (it->second.skip > 0) {
      --it->second.skip;
      return Status::OK();
    }
    action = it->second.action;
  }
  if (action == Action::kCrash) {
    ::kill(::getpid(), SIGKILL);
    ::_exit(137);  // unreachable unless SIGKILL is blocked
  }
  return IoError(fmt::format("failpoint '{}' triggered", name));
}

const std::vector<std::string_view>& AllNames() {
  static const std::vector<std::string_view> kNames = {
#define OG_DECLARE_FAILPOINT(constant, text) text,
#include "util/failpoint_names.inc"
#undef OG_DECLARE_FAILPOINT
  };
  return kNames;
}

}  // namespace omnigraph::failpoint
