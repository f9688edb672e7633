// gtest printers for change values: a failed comparison shows the wire
// JSON instead of raw bytes.
#pragma once

#include <ostream>
#include <string>

#include "api/wire/changes_json.h"

namespace omnigraph::exec {

inline void PrintTo(const EntityChange& change, std::ostream* os) {
  std::string out;
  api::wire::AppendChangeJson(&out, change);
  *os << out;
}

inline void PrintTo(const ChangeCause& cause, std::ostream* os) {
  std::string out;
  api::wire::AppendCauseJson(&out, cause);
  *os << out;
}

}  // namespace omnigraph::exec
