// The layering guard: every `#include "..."` under src/ must be an edge that
// architecture.md §2 allows. §2's "may use" column is read transitively
// ("dependencies point down only": a layer may use whatever the layers it
// uses may use), plus the one amendment structure.md §2 makes, compiler ->
// columnar. Third-party and system headers (`<...>`) are not layer edges and
// are not read.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::guards {

// The layer folders §2 names, bottom first (a folder below src/ that is
// missing here is in no layer, and every edge into or out of it fails).
const std::vector<std::string_view>& Layers();

// The layers `layer` may include from, itself excluded; empty for a name
// that is no layer.
std::set<std::string_view> AllowedLayers(std::string_view layer);

// One include the layering forbids.
struct LayeringViolation {
  std::string file;                 // relative to the scanned root, e.g. "util/x.h"
  int line = 0;                     // 1-based
  std::string include;              // the quoted path as written
  std::optional<std::string> from;  // the including file's layer; none outside every layer folder
  std::optional<std::string> to;    // the included file's layer; none when it resolves to no layer

  // "src/util/x.h:3: util -> graph (#include "graph/y.h")", with "(no layer)"
  // for an absent side.
  std::string ToString() const;
};

struct LayeringReport {
  std::vector<LayeringViolation> violations;        // by file, then line
  std::set<std::pair<std::string, std::string>> edges;  // every cross-layer (from, to) seen, allowed or not
  size_t includes = 0;                              // quoted includes read
};

// Reads every regular file below `src_root` (a tree laid out like src/) and
// checks each quoted include. A file's layer is its top folder below the
// root; subfolders belong to it. An include is resolved as the compiler
// resolves a quoted include here: the including file's folder first, then the
// root (src/ is the include path); failing both, by its first path
// component. Generated protobuf (`*.pb.h`) and flatbuffer (`*_generated.h`)
// headers belong to lance, which owns their schemas.
LayeringReport CheckLayering(const std::filesystem::path& src_root);

}  // namespace omnigraph::guards
