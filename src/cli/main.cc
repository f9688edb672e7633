// omnigraph: the command-line front end (spec/surface.md §5).
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  int exit_code = omnigraph::cli::Run(argc, argv);
  // Everything a command acknowledges is durable before Run returns, so the
  // process skips static destructors and freeing its caches (about a
  // millisecond of a cold query) once its output is flushed.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(exit_code);
}
