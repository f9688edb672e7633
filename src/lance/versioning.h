// Manifest file naming (spec/lance-format.md §1.2, §1.7).
//
// V2 naming stores version v at `_versions/{u64::MAX - v:020}.manifest`, so a
// lexicographic listing shows the newest version first. Detached versions are
// random u64 values with the top bit set, stored at `_versions/d{v}.manifest`;
// listings skip them, so they never become the latest version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace omnigraph::lance {

inline constexpr uint64_t kDetachedVersionMask = 0x8000'0000'0000'0000ULL;
inline constexpr std::string_view kVersionsDir = "_versions";
inline constexpr std::string_view kTransactionsDir = "_transactions";
inline constexpr std::string_view kDataDir = "data";
inline constexpr std::string_view kDeletionsDir = "_deletions";
inline constexpr std::string_view kIndicesDir = "_indices";
inline constexpr std::string_view kTagsDir = "_refs/tags";
inline constexpr std::string_view kBranchesDir = "_refs/branches";
inline constexpr std::string_view kBranchTreeDir = "tree";
inline constexpr std::string_view kLatestVersionHint = "_versions/latest_version_hint.json";

inline bool IsDetachedVersion(uint64_t version) { return (version & kDetachedVersionMask) != 0; }

// A fresh random detached version id (top bit set, never equal to the mask alone).
uint64_t NewDetachedVersion();

// File name (without directory) of the manifest of `version`: V2 naming for
// linear versions, `d{version}.manifest` for detached ones.
std::string ManifestFileName(uint64_t version);

enum class ManifestNaming { kV1, kV2, kDetached };

struct ParsedManifestName {
  uint64_t version;
  ManifestNaming naming;
};

// Parses a `_versions/` entry name. Returns nullopt for names that are not
// manifests (hint file, temporary files, `{name}-{uuid}` staging files).
// Detached names parse with naming kDetached so listings can skip them.
std::optional<ParsedManifestName> ParseManifestFileName(std::string_view name);

}  // namespace omnigraph::lance
