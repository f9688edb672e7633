#include "lance/versioning.h"

#include <charconv>

#include <fmt/format.h>

#include "util/random.h"

namespace omnigraph::lance {
namespace {

constexpr std::string_view kManifestSuffix = ".manifest";

std::optional<uint64_t> ParseDecimal(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

uint64_t NewDetachedVersion() {
  uint64_t v;
  do {
    v = RandomU64() | kDetachedVersionMask;
  } while (v == kDetachedVersionMask || v == ~0ULL);
  return v;
}

std::string ManifestFileName(uint64_t version) {
  if (IsDetachedVersion(version)) return fmt::format("d{}.manifest", version);
  return fmt::format("{:020}.manifest", ~0ULL - version);
}

std::optional<ParsedManifestName> ParseManifestFileName(std::string_view name) {
  if (name.size() <= kManifestSuffix.size() || name.substr(name.size() - kManifestSuffix.size()) != kManifestSuffix) {
    return std::nullopt;
  }
  std::string_view stem = name.substr(0, name.size() - kManifestSuffix.size());
  if (stem.front() == 'd') {
    auto v = ParseDecimal(stem.substr(1));
    if (!v || !IsDetachedVersion(*v)) return std::nullopt;
    return ParsedManifestName{*v, ManifestNaming::kDetached};
  }
  auto v = ParseDecimal(stem);
  if (!v) return std::nullopt;
  if (stem.size() == 20) return ParsedManifestName{~0ULL - *v, ManifestNaming::kV2};
  return ParsedManifestName{*v, ManifestNaming::kV1};
}

}  // namespace omnigraph::lance
