#include "util/failpoint.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
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

// Parses `name=action[;name=action...]`.
Status ParseSpec(std::string_view spec, std::vector<std::pair<std::string, Action>>* out) {
  std::string_view rest = spec;
  while (!rest.empty()) {
    size_t end = rest.find(';');
    std::string_view entry = rest.substr(0, end);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument(fmt::format("failpoint entry '{}' is not name=action", entry));
    }
    std::string_view action = entry.substr(eq + 1);
    Action a;
    if (action == "crash") a = Action::kCrash;
    else if (action == "error") a = Action::kError;
    else if (action == "off") a = Action::kOff;
    else return InvalidArgument(fmt::format("failpoint action '{}' is not crash, error or off", action));
    out->emplace_back(std::string(entry.substr(0, eq)), a);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return Status::OK();
}

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry();
    std::vector<std::pair<std::string, Action>> parsed;
    if (const char* spec = std::getenv("OMNIGRAPH_FAILPOINTS"); spec != nullptr) {
      // A malformed environment spec arms nothing rather than aborting.
      if (ParseSpec(spec, &parsed).ok()) {
        for (auto& [name, action] : parsed) {
          if (action != Action::kOff) r->armed[name] = Armed{action, 0};
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
  std::vector<std::pair<std::string, Action>> parsed;
  OG_RETURN_IF_ERROR(ParseSpec(spec, &parsed));
  for (auto& [name, action] : parsed) Set(name, action);
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
