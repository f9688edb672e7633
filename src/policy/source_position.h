// Where a value of a policy file was read from, so that every error about
// it can name <file>:<line>:<column>.
#pragma once

namespace omnigraph::policy {

// 1-based line and column; {0, 0} when unknown.
struct SourcePosition {
  int line = 0;
  int column = 0;

  bool operator==(const SourcePosition&) const = default;
};

}  // namespace omnigraph::policy
