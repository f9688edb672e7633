// Locating inputs under ../shared (cases and corpus) for tests that run
// whenever that folder is present.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace omnigraph::testing {

// Whole file as bytes ("" when unreadable).
std::string ReadFileText(const std::filesystem::path& path);

// Candidate schemas for an input file (.gq or .jsonl): the `.pg` of the same
// stem in its directory, else every `.pg` in its directory, else those of
// the nearest ancestor directory (up to `root`) holding `.pg` files. Sorted.
std::vector<std::filesystem::path> SchemasNear(const std::filesystem::path& input, const std::filesystem::path& root);

// Regular files under `root` (recursively) with extension `extension`
// (".gq"), sorted; empty when `root` is absent.
std::vector<std::filesystem::path> FilesUnder(const std::filesystem::path& root, const std::string& extension);

}  // namespace omnigraph::testing
