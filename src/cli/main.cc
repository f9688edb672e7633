// omnigraph: the command-line front end (spec/surface.md §5).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/commands.h"

namespace {

// Flushes standard output; false (with errno set) when any byte of it could
// not be written, e.g. an export redirected to a full disk.
bool FlushStandardOutput() {
  std::cout.flush();
  bool ok = !std::cout.fail();
  int error = ok ? 0 : EIO;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    ok = false;
    error = errno != 0 ? errno : EIO;
  }
  errno = error;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = omnigraph::cli::Run(argc, argv);
  // A command whose output was lost must not report success: a truncated
  // export is a broken backup.
  if (!FlushStandardOutput() && exit_code == 0) {
    std::cerr << "error: writing standard output failed: " << std::strerror(errno) << "\n";
    exit_code = 1;
  }
  // Everything a command acknowledges is durable before Run returns, so the
  // process skips static destructors and freeing its caches (about a
  // millisecond of a cold query) once its output is flushed.
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(exit_code);
}
