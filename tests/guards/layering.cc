#include "guards/layering.h"

#include <algorithm>
#include <fstream>
#include <regex>

#include <fmt/format.h>

namespace omnigraph::guards {
namespace {

namespace fs = std::filesystem;

struct Section2Row {
  std::string_view layer;
  std::vector<std::string_view> may_use;
};

// architecture.md §2's table, bottom first: each folder and its "may use"
// column as written there (std, fmt, protobuf and CRoaring are libraries,
// not layers), plus two amendments: compiler may use columnar, whose Schema
// and value types the catalog shares with storage (structure.md §2); and the
// cluster control plane (spec/cluster.md), which the table predates, sits
// above api: it reads config dirs and ledgers through io, type-checks
// stored queries with the compiler, and creates, observes and migrates the
// graphs it applies through api; both front ends (the `cluster` verbs and
// the server's boot) use it.
const std::vector<Section2Row>& Section2() {
  static const auto* rows = new std::vector<Section2Row>{
      {"util", {}},
      {"columnar", {"util"}},
      {"io", {"util"}},
      {"lance", {"io", "columnar"}},
      {"table", {"lance"}},
      {"index", {"table"}},
      {"compiler", {"util", "columnar"}},
      {"graph", {"table", "compiler"}},
      {"exec", {"graph", "index"}},
      {"policy", {"util"}},
      {"api", {"exec", "policy"}},
      {"cluster", {"io", "compiler", "api"}},
      {"cli", {"api", "cluster"}},
      {"server", {"api", "cluster"}},
  };
  return *rows;
}

const Section2Row* RowOf(std::string_view layer) {
  for (const Section2Row& row : Section2()) {
    if (row.layer == layer) return &row;
  }
  return nullptr;
}

std::optional<std::string> LayerOfFolder(std::string_view folder) {
  if (RowOf(folder) == nullptr) return std::nullopt;
  return std::string(folder);
}

// The layer of `relative` (a path below the root): its first component, if
// that names a layer and is a folder rather than a file directly in the root.
std::optional<std::string> LayerOfPath(const fs::path& relative) {
  auto first = relative.begin();
  if (first == relative.end() || std::next(first) == relative.end()) return std::nullopt;
  return LayerOfFolder(first->string());
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Headers protoc and flatc write into the build tree from lance's schemas.
bool IsGeneratedLanceHeader(std::string_view include) {
  return EndsWith(include, ".pb.h") || EndsWith(include, "_generated.h");
}

// The layer `include`, written in `includer` (relative to `root`), names.
std::optional<std::string> LayerOfInclude(const fs::path& root, const fs::path& includer, const std::string& include) {
  if (IsGeneratedLanceHeader(include)) return std::string("lance");
  for (const fs::path& base : {root / includer.parent_path(), root}) {
    fs::path candidate = (base / include).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    fs::path relative = candidate.lexically_relative(root);
    // A header outside the root ("../tests/x.h") is in no layer.
    if (relative.empty() || *relative.begin() == "..") return std::nullopt;
    return LayerOfPath(relative);
  }
  // Not on disk (a header about to be added): its spelling decides.
  return LayerOfPath(fs::path(include).lexically_normal());
}

bool IsAllowed(const std::optional<std::string>& from, const std::optional<std::string>& to) {
  if (!from || !to) return false;
  return *from == *to || AllowedLayers(*from).count(*to) > 0;
}

// Every `#include "..."` of `file`, with its 1-based line number.
std::vector<std::pair<int, std::string>> QuotedIncludes(const fs::path& file) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::pair<int, std::string>> includes;
  std::ifstream in(file, std::ios::binary);
  std::string text;
  std::smatch match;
  for (int line = 1; std::getline(in, text); ++line) {
    if (std::regex_search(text, match, kInclude)) includes.emplace_back(line, match[1].str());
  }
  return includes;
}

// Regular files below `root`, relative to it, sorted so that reports are
// stable.
std::vector<fs::path> FilesBelow(const fs::path& root) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().lexically_relative(root));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

const std::vector<std::string_view>& Layers() {
  static const auto* layers = [] {
    auto* names = new std::vector<std::string_view>();
    for (const Section2Row& row : Section2()) names->push_back(row.layer);
    return names;
  }();
  return *layers;
}

std::set<std::string_view> AllowedLayers(std::string_view layer) {
  std::set<std::string_view> allowed;
  const Section2Row* row = RowOf(layer);
  if (row == nullptr) return allowed;
  // The transitive closure of "may use", depth first; a layer reached twice
  // is expanded once.
  std::vector<std::string_view> pending = row->may_use;
  while (!pending.empty()) {
    std::string_view next = pending.back();
    pending.pop_back();
    if (!allowed.insert(next).second) continue;
    const std::vector<std::string_view>& below = RowOf(next)->may_use;
    pending.insert(pending.end(), below.begin(), below.end());
  }
  return allowed;
}

std::string LayeringViolation::ToString() const {
  return fmt::format("src/{}:{}: {} -> {} (#include \"{}\")", file, line, from.value_or("(no layer)"),
                     to.value_or("(no layer)"), include);
}

LayeringReport CheckLayering(const fs::path& src_root) {
  LayeringReport report;
  fs::path root = fs::absolute(src_root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "src/" -> "src"
  for (const fs::path& file : FilesBelow(root)) {
    std::optional<std::string> from = LayerOfPath(file);
    for (const auto& [line, include] : QuotedIncludes(root / file)) {
      ++report.includes;
      std::optional<std::string> to = LayerOfInclude(root, file, include);
      if (from && to && *from != *to) report.edges.emplace(*from, *to);
      if (IsAllowed(from, to)) continue;
      report.violations.push_back(LayeringViolation{file.generic_string(), line, include, from, to});
    }
  }
  return report;
}

}  // namespace omnigraph::guards
