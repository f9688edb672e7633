// Running the `omnigraph` binary of this build from a test, for tests of
// CLI behaviour (exit codes, stdout, stderr).
#pragma once

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

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

// A CLI test in its own directory, where the graph is `g`.
class CliGraphTest : public ::testing::Test {
 protected:
  // Runs `omnigraph <args>` in the test's directory.
  CliRun Run(const std::string& args) { return RunCli(dir_.path(), args); }
  // Writes `text` to <directory>/<name>.
  void Write(const std::string& name, std::string_view text);
  // `init` of g from `schema_file` and a quiet `load` of `data_file` in
  // `mode` (both already written); a failure fails the test.
  void InitGraph(const std::string& schema_file, const std::string& data_file, const std::string& mode);
  // The head commit id of `branch`, as `commit list --json` reports it.
  std::string Head(const std::string& branch = "main");

  TempDir dir_;
};

}  // namespace omnigraph::testing
