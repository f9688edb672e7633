// omnigraph: the command-line front end (spec/surface.md §5).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>

#include "cli/app.h"

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
  // A write must outlive a reader that went away: with SIGPIPE a closed pipe
  // would kill the process after its commit, silently. Reads keep the
  // default, so `omnigraph export g | head` stops quietly.
  if (omnigraph::cli::IsWriteVerb(argc, argv)) std::signal(SIGPIPE, SIG_IGN);
  omnigraph::cli::RunResult result;
  try {
    result = omnigraph::cli::Run(argc, argv);
  } catch (const std::exception& e) {
    // Errors are values everywhere below; an exception reaching here is a
    // bug, reported as an error instead of an abort and a core dump.
    std::cerr << "error: internal error: " << e.what() << "\n";
    result.exit_code = omnigraph::cli::kExitError;
  }
  int exit_code = result.exit_code;
  if (!FlushStandardOutput() && exit_code == 0) {
    if (!result.published.empty()) {
      // The change is durable; failing now would invite a retry that
      // repeats it.
      std::cerr << "warning: " << result.published
                << " was published, but writing its confirmation to standard output failed: "
                << std::strerror(errno) << "\n";
    } else {
      // A command whose output was lost must not report success: a
      // truncated export is a broken backup.
      std::cerr << "error: writing standard output failed: " << std::strerror(errno) << "\n";
      exit_code = 1;
    }
  }
  // Everything a command acknowledges is durable before Run returns, so the
  // process skips static destructors and freeing its caches (about a
  // millisecond of a cold query) once its output is flushed.
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(exit_code);
}
