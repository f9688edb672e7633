// The `omnigraph` command line (spec/surface.md §5): parses argv with the
// global flags of §5.1 and runs one verb (cli/verbs/).
#pragma once

#include <string>

#include "cli/context.h"

namespace omnigraph::cli {

struct RunResult {
  int exit_code = kExitOk;
  // What a write verb made durable before writing its confirmation
  // ("commit '<id>'", "graph '<uri>'"); empty for reads and failed writes.
  // When the confirmation cannot be written, main still reports success:
  // the change happened, and a caller retrying on failure would repeat it.
  std::string published;
};

// Parses argv and runs the command.
RunResult Run(int argc, char** argv);

// Whether argv names a verb that changes a graph (init, load, mutate and
// their deprecated spellings), before any parsing.
bool IsWriteVerb(int argc, char** argv);

}  // namespace omnigraph::cli
