// A served read's reply (`ReadOutput`, spec/openapi.json; server.md §1.2
// POST /graphs/{id}/query) as the neutral grid the §5.3 layouts render
// (exec::ResultGrid), so `query --server` prints exactly what the same
// read prints against the store.
//
// Rows keep the exact JSON text the server sent (numbers keep their
// spelling), so json and jsonl reproduce the local bytes; a cell's text
// for table/kv/csv is that JSON text, with a string's quotes and escapes
// removed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/result_format.h"
#include "util/status.h"

namespace omnigraph::cli::remote {

class ServedRead {
 public:
  // Parses a ReadOutput body. Errors: InvalidArgument naming what is
  // malformed (not JSON, a missing or mistyped field, a row that is not an
  // object with one member per column).
  static Result<ServedRead> Parse(std::string body);

  // The grid over this reply; `*this` must outlive it and stay in place.
  exec::ResultGrid Grid() const;

 private:
  std::shared_ptr<const std::string> body_;  // the views below point into it
  exec::ResultGrid meta_;  // envelope fields; the callbacks are set by Grid()
  std::vector<std::string_view> rows_;                // each row's raw JSON object
  std::vector<std::vector<std::string_view>> cells_;  // each row's raw member values, in column order
};

}  // namespace omnigraph::cli::remote
