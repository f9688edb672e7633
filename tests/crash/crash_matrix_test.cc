// The crash matrix covers the failpoint registry: one test per declared
// failpoint fails, naming it, when no crash cell reaches it (the cases the
// crash suites run are generated from the same registry and cells), and the
// generation itself is proved on a synthetic registry.
#include "crash/crash_matrix.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/failpoint.h"

namespace omnigraph::crash {
namespace crash_matrix_test {

std::vector<std::string> Names(const std::vector<CrashCase>& cases) {
  std::vector<std::string> names;
  for (const CrashCase& c : cases) names.push_back(CaseName(c));
  return names;
}

class EveryDeclaredFailpoint : public ::testing::TestWithParam<std::string_view> {};

TEST_P(EveryDeclaredFailpoint, HasACrashCell) {
  const std::string_view failpoint = GetParam();
  EXPECT_EQ(UncoveredFailpoints({&failpoint, 1}), std::vector<std::string_view>{})
      << "failpoint '" << failpoint << "' is declared in src/util/failpoint_names.inc but no crash cell kills a "
      << "write there: add a cell to kCells in tests/crash/crash_matrix.cc naming the writes that reach it, the "
      << "hit, and whether the write is visible after a kill there";
}

INSTANTIATE_TEST_SUITE_P(FromFailpointRegistry, EveryDeclaredFailpoint, ::testing::ValuesIn(failpoint::AllNames()),
                         [](const ::testing::TestParamInfo<std::string_view>& info) {
                           std::string name(info.param);
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

TEST(CrashMatrixTest, EveryCellNamesADeclaredFailpoint) {
  EXPECT_EQ(UndeclaredFailpoints(failpoint::AllNames()), std::vector<std::string_view>{});
}

// gtest refuses duplicate test names at run time; this says which cell.
TEST(CrashMatrixTest, EveryCaseHasItsOwnName) {
  std::vector<std::string> names = Names(CrashMatrix(failpoint::AllNames(), kEveryWrite));
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
}

// A synthetic registry: "c.new" was just declared without a cell, "z.gone"
// has a cell but was removed from the registry.
TEST(CrashMatrixTest, GenerationFollowsTheRegistryAndReportsGapsBothWays) {
  constexpr CrashCell kCells[] = {
      {"a.one", Writes{Write::kInsert, Write::kDelete}, 0, Outcome::kUnchanged, "one"},
      {"b.two", Writes{Write::kTag}, 1, Outcome::kCommitted, "two"},
      {"a.one", Writes{Write::kLoad}, 2, Outcome::kUnchanged, "one_again"},
      {"z.gone", Writes{Write::kLoad}, 0, Outcome::kUnchanged, "gone"},
  };
  const std::vector<std::string_view> declared{"b.two", "a.one", "c.new"};

  // Registry order, then cell order, then write order; other kinds of write left out.
  EXPECT_EQ(Names(CrashMatrix(declared, kGraphWrites, kCells)),
            (std::vector<std::string>{"insert_one", "delete_one", "load_one_again"}));
  std::vector<CrashCase> refs = CrashMatrix(declared, kRefWrites, kCells);
  ASSERT_EQ(Names(refs), std::vector<std::string>{"tag_two"});
  EXPECT_EQ(refs[0].cell.skip, 1u);
  EXPECT_EQ(refs[0].cell.outcome, Outcome::kCommitted);

  EXPECT_EQ(UncoveredFailpoints(declared, kCells), std::vector<std::string_view>{"c.new"});
  EXPECT_EQ(UndeclaredFailpoints(declared, kCells), std::vector<std::string_view>{"z.gone"});
}

}  // namespace crash_matrix_test
}  // namespace omnigraph::crash
