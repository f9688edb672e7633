// `version` (surface §5.2): the program's version and the internal schema
// (storage stamp) it reads and writes.
#include <iostream>

#include "cli/verbs/verbs.h"
#include "graph/manifest/graph_state.h"

namespace omnigraph::cli {
namespace {

int RunVersion(Context& context) {
  if (Status st = CheckGlobalFlags(context.flags, "version", {.store = false, .json = false}); !st.ok()) {
    return context.Fail(st);
  }
  std::cout << "omnigraph " << kVersion << "\ninternal-schema " << graph::kStorageStamp << "\n";
  return kExitOk;
}

}  // namespace

void RegisterVersion(CLI::App& app, Context& context) {
  CLI::App* version = app.add_subcommand("version", "print the version");
  version->callback([&context] { context.exit_code = RunVersion(context); });
}

}  // namespace omnigraph::cli
