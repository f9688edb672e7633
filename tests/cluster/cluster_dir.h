// A cluster config dir written into a temporary directory, for the tests of
// the cluster config layer (spec/cluster.md §1). The default files are the
// fixture F of §7: `people.pg`, `people.gq` (find_person), a policy with
// `rules: []`, graph `knowledge` with an explicit query map and policy
// `base` bound to it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "cluster/desired.h"
#include "support/temp_dir.h"

namespace omnigraph::cluster::testing {

inline constexpr std::string_view kPeopleSchema =
    "node Person {\n"
    "    name: String @key\n"
    "    age: I32?\n"
    "}\n";

inline constexpr std::string_view kFindPerson =
    "query find_person($name: String) {\n"
    "    match { $p: Person { name: $name } }\n"
    "    return { $p.name, $p.age }\n"
    "}\n";

inline constexpr std::string_view kEmptyPolicy = "version: 1\nrules: []\n";

inline constexpr std::string_view kMinimalCluster =
    "version: 1\n"
    "graphs:\n"
    "  knowledge:\n"
    "    schema: people.pg\n"
    "    queries:\n"
    "      find_person:\n"
    "        file: people.gq\n"
    "policies:\n"
    "  base:\n"
    "    file: base.policy.yaml\n"
    "    applies_to: [knowledge]\n";

class ClusterDir {
 public:
  // Writes the fixture's schema, query and policy (not cluster.yaml).
  ClusterDir() {
    Write("people.pg", kPeopleSchema);
    Write("people.gq", kFindPerson);
    Write("base.policy.yaml", kEmptyPolicy);
  }

  const std::string& path() const { return directory_.path(); }

  // Writes `text` to <dir>/<name>, creating parent directories.
  void Write(const std::string& name, std::string_view text) const {
    const std::filesystem::path file = std::filesystem::path(path()) / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
  }

  // Writes cluster.yaml and loads the dir.
  LoadOutcome Load(std::string_view cluster_yaml, const LoadOptions& options = {}) const {
    Write("cluster.yaml", cluster_yaml);
    return LoadDesiredCluster(path(), options);
  }

  // <dir>/<name>, as diagnostics print resolved paths.
  std::string Resolved(const std::string& name) const { return (std::filesystem::path(path()) / name).string(); }

 private:
  omnigraph::testing::TempDir directory_;
};

// The diagnostics with `code`.
inline Diagnostics WithCode(const LoadOutcome& outcome, std::string_view code) {
  Diagnostics found;
  for (const Diagnostic& diagnostic : outcome.diagnostics) {
    if (diagnostic.code == code) found.push_back(diagnostic);
  }
  return found;
}

// Every diagnostic as one line each, for failure messages.
inline std::string Describe(const Diagnostics& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) text += FormatDiagnostic(diagnostic) + "\n";
  return text;
}

}  // namespace omnigraph::cluster::testing
