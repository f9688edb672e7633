// Running the `omnigraph` binary of this build from a test, for tests of
// CLI behaviour (exit codes, stdout, stderr).
#pragma once

#include <string>

namespace omnigraph::testing {

// Absolute path of the `omnigraph` binary this build made: the build
// passes $<TARGET_FILE:omnigraph> as OMNIGRAPH_CLI_BINARY
// (tests/CMakeLists.txt), and builds it before the tests.
std::string CliBinary();

// What one run of the binary did.
struct CliRun {
  int rc = -1;      // exit code; -1 when it did not exit normally
  std::string out;  // standard output
  std::string err;  // standard error
};

// Runs `omnigraph <args>` through the shell in `directory` (`args` are
// shell words, quoted as a shell needs them). OMNIGRAPH_HOME is
// <directory>/home, so the operator config of whoever runs the tests never
// applies; a test that wants one writes <directory>/home/config.yaml.
CliRun RunCli(const std::string& directory, const std::string& args);

}  // namespace omnigraph::testing
