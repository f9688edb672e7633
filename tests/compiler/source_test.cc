// Source locations (compiler/source.h): line and column in code points,
// whatever order the parser asks in.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/source.h"

namespace omnigraph::compiler {
namespace source_test {

TEST(LineIndex, LocationsAreExactInAnyOrder) {
  // "é" and "名" are two and three bytes: one column each.
  const std::string source = "match { $é: Person 名 }\n  return\n\nx";
  LineIndex index(source);
  auto expect_at = [&](size_t offset, uint32_t line, uint32_t column) {
    SourceLocation loc = index.Locate(offset);
    EXPECT_EQ(loc.line, line) << "offset " << offset;
    EXPECT_EQ(loc.column, column) << "offset " << offset;
    EXPECT_EQ(loc.offset, std::min(offset, source.size()));
  };
  expect_at(0, 1, 1);
  expect_at(9, 1, 10);                         // after "$" and "é" (2 bytes)
  expect_at(source.find("Person"), 1, 13);
  expect_at(source.find("名") + 3, 1, 21);     // after the 3-byte character
  expect_at(source.find("Person"), 1, 13);     // backwards on the same line
  expect_at(source.find("return"), 2, 3);
  expect_at(source.find('x'), 4, 1);
  expect_at(0, 1, 1);                          // back to an earlier line
  expect_at(source.size() + 5, 4, 2);          // clamped to the end
  // Every offset, forwards and then backwards, agrees with counting from
  // the start of the source.
  std::vector<size_t> offsets;
  for (size_t i = 0; i <= source.size(); ++i) offsets.push_back(i);
  for (size_t i = source.size() + 1; i-- > 0;) offsets.push_back(i);
  for (size_t offset : offsets) {
    SourceLocation got = index.Locate(offset), counted = LocateOffset(source, offset);
    EXPECT_EQ(got.line, counted.line) << "offset " << offset;
    EXPECT_EQ(got.column, counted.column) << "offset " << offset;
  }
}

}  // namespace source_test
}  // namespace omnigraph::compiler
