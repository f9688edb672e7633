// Policy tests files (spec/server.md §2.2, the `policy test` verb): a list
// of requests with the decision each one must get, run against a bundle.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/evaluate.h"
#include "policy/source_position.h"
#include "util/status.h"

namespace omnigraph::policy {

struct PolicyTestCase {
  std::string id;
  SourcePosition position;        // the case's id
  SourcePosition actor_position;  // its actor
  Request request;
  bool expect_allow = false;
};

struct PolicyTestFile {
  std::string file;
  std::vector<PolicyTestCase> cases;  // file order
};

// Parses and validates tests-file text `text` read from `file`:
// {version: 1, cases?: [{id, actor, action, branch?, target_branch?,
// expect: allow|deny}]}, unknown keys rejected. Errors are InvalidArgument
// "<file>:<line>:<column>: <what>" (details file, line, column): the shape
// errors of ParseBundle (mapping, list, string, unknown field, duplicate
// key, missing field, unknown policy action), "expect must be allow or
// deny, got '<s>'", then in order "policy test version must be 1",
// and per case "policy test case ids must not be blank",
// "duplicate policy test case id '<id>'" and
// "policy test case '<id>' must not use a blank actor".
Result<PolicyTestFile> ParsePolicyTests(std::string_view text, std::string_view file);

// Reads file `path` and parses it. Errors: as ReadTextFile and
// ParsePolicyTests.
Result<PolicyTestFile> LoadPolicyTests(const std::string& path);

struct PolicyTestOutcome {
  const PolicyTestCase* test_case = nullptr;  // into the PolicyTestFile run
  Decision decision;
  bool passed = false;
};

struct PolicyTestReport {
  std::vector<PolicyTestOutcome> outcomes;  // one per case, file order
  size_t failed = 0;

  bool passed() const { return failed == 0; }
  // "<id>: expected <allow|deny>, got <allow|deny> (<decision message>)"
  // per failed case, one a line.
  std::string FailureLines() const;
};

// Decides every case of `tests` with `evaluator`. `tests` must outlive
// the report (outcomes point at its cases). Never fails.
PolicyTestReport RunPolicyTests(const Evaluator& evaluator, const PolicyTestFile& tests);

}  // namespace omnigraph::policy
