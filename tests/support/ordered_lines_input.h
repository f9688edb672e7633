// Input and expectations shared by the ordered-scan tests: entries with
// ids "NNNNNN" and lines "line NNNNNN\n", added in a shuffled order.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/ordered_lines.h"

namespace omnigraph::testing {

// 0..n-1 in an order fixed by `seed`.
inline std::vector<int> ShuffledIds(int n, unsigned seed) {
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937(seed));
  return ids;
}

inline Status AddId(exec::IdOrderedLines& lines, int id) {
  std::string key = fmt::format("{:06}", id);
  return lines.Add(key, "line " + key + "\n");
}

// Everything Drain emits, expecting it to succeed.
inline std::vector<std::string> DrainAll(exec::IdOrderedLines& lines) {
  std::vector<std::string> out;
  Status drained = lines.Drain([&](std::string_view line) {
    out.emplace_back(line);
    return Status::OK();
  });
  EXPECT_TRUE(drained.ok()) << drained.ToString();
  return out;
}

// The lines of ids 0..n-1 in id order.
inline std::vector<std::string> ExpectedLines(int n) {
  std::vector<std::string> expected;
  for (int i = 0; i < n; ++i) expected.push_back(fmt::format("line {:06}\n", i));
  return expected;
}

}  // namespace omnigraph::testing
