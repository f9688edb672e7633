// Command definitions of the `omnigraph` CLI (spec/surface.md §5.2).
#pragma once

namespace omnigraph::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPreconditionFailed = 4;

// Parses argv, runs the command and returns the process exit code.
int Run(int argc, char** argv);

}  // namespace omnigraph::cli
