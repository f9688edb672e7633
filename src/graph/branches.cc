#include "graph/branches.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "graph/history/commit_id.h"
#include "graph/write/gates.h"
#include "table/dataset.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/ulid.h"
#include "util/utf8.h"

namespace omnigraph::graph {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

Status BadName(std::string message) { return InvalidArgument(std::move(message)).WithDetail("kind", "manifest"); }

Status NamespaceConflict(std::string message) {
  return Status(ErrorCode::kConflict, std::move(message), {{"kind", "manifest_conflict"}});
}

// Every segment of a '/'-separated name.
std::vector<std::string_view> Segments(std::string_view name) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    out.push_back(name.substr(start, slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

// Whether one of two branch names is a '/'-ancestor of the other: their
// trees would nest (`review` and `review/x`), BR-2 step 5.
bool SharesPath(std::string_view a, std::string_view b) {
  auto nested = [](std::string_view outer, std::string_view inner) {
    return inner.size() > outer.size() && inner.substr(0, outer.size()) == outer && inner[outer.size()] == '/';
  };
  return nested(a, b) || nested(b, a);
}

// Whether `text` parses as a commit id (a snapshot, not a branch).
bool LooksLikeCommitId(std::string_view text) {
  return IsCanonicalUlid(text) || (text.rfind("hb1.", 0) == 0 && ValidateCommitId(text).ok());
}

Result<std::vector<LiveRef>> LiveRefsOf(GraphStore& graph) { return graph.manifests().ListLive(); }

}  // namespace

std::string TrimBranchName(std::string_view name) {
  size_t begin = 0, end = name.size();
  while (begin < end && IsSpace(name[begin])) ++begin;
  while (end > begin && IsSpace(name[end - 1])) --end;
  return std::string(name.substr(begin, end - begin));
}

Status CheckPublicBranchName(std::string_view trimmed, std::string_view operation) {
  if (trimmed.empty()) return BadName("branch name cannot be empty");
  std::string_view first = trimmed.substr(trimmed[0] == '/' ? 1 : 0);
  if (first.rfind("__", 0) == 0) {
    return BadName(fmt::format("{} does not allow internal system ref '{}'", operation,
                               utf8::ShortenForMessage(trimmed)));
  }
  return Status::OK();
}

Status ValidateNewBranchName(std::string_view name) {
  std::string shown = utf8::ShortenForMessage(name);
  if (name.front() == '/' || name.back() == '/') {
    return BadName(fmt::format("branch name '{}' must not start or end with '/'", shown));
  }
  if (name.find("//") != std::string_view::npos) return BadName(fmt::format("branch name '{}' contains '//'", shown));
  if (name.find("..") != std::string_view::npos) return BadName(fmt::format("branch name '{}' contains '..'", shown));
  if (name.find('\\') != std::string_view::npos) return BadName(fmt::format("branch name '{}' contains '\\'", shown));
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".lock") {
    return BadName(fmt::format("branch name '{}' must not end with '.lock'", shown));
  }
  for (std::string_view segment : Segments(name)) {
    std::string segment_shown = utf8::ShortenForMessage(segment);
    for (size_t i = 0; i < segment.size();) {
      char32_t cp = utf8::Next(segment, &i);
      bool allowed = cp == '.' || cp == '-' || cp == '_' || (cp != utf8::kReplacement && utf8::IsLetterOrDigit(cp));
      if (!allowed) {
        return BadName(fmt::format("Branch segment '{}' contains invalid characters. Only alphanumeric, '.', '-', '_' "
                                   "are allowed.",
                                   segment_shown));
      }
    }
    // The native ref appends ".{ULID}" and its tree is a directory: a
    // segment starting or ending with '.' would make a hidden or ".."
    // path (the store's ref rules refuse both).
    if (segment.front() == '.' || segment.back() == '.') {
      return BadName(fmt::format("Branch segment '{}' must not start or end with '.'", segment_shown));
    }
    size_t dot = segment.rfind('.');
    if (dot != std::string_view::npos && IsCanonicalUlid(segment.substr(dot + 1))) {
      return BadName(fmt::format("branch name '{}' contains an incarnation-shaped suffix; choose another name", shown));
    }
  }
  return Status::OK();
}

Result<CreatedBranch> CreateBranch(GraphStore& graph, std::string_view requested, std::string_view requested_from) {
  std::string name = TrimBranchName(requested);
  std::string from = TrimBranchName(requested_from);
  OG_RETURN_IF_ERROR(CheckPublicBranchName(name, "branch_create"));
  if (name == kMainBranch) return BadName("cannot create branch 'main'");
  OG_RETURN_IF_ERROR(ValidateNewBranchName(name));
  OG_RETURN_IF_ERROR(CheckPublicBranchName(from, "branch_create"));

  // Branch creation takes the schema gate exclusively: no CAS covers the
  // namespace it checks (design/write-path.md gate order).
  HeldGates gates(Gates::For(graph.uri()), SchemaAccess::kExclusive, {from, name}, {});
  auto source = graph.manifests().Resolve(from);
  if (!source.ok()) {
    if (source.status().code() == ErrorCode::kNotFound && LooksLikeCommitId(from)) {
      return BadName("branch creation from pinned snapshots is not supported yet");
    }
    return source.status();
  }
  OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, LiveRefsOf(graph));
  for (const LiveRef& r : live) {
    if (r.ref.branch == name) return NamespaceConflict(fmt::format("branch '{}' already exists", name));
  }
  for (const LiveRef& r : live) {
    if (SharesPath(r.ref.branch, name)) {
      return NamespaceConflict(fmt::format("cannot create branch '{}' while live branch '{}' shares its physical Lance "
                                           "path; live graph branch names may not be ancestors or descendants",
                                           name, r.ref.branch));
    }
  }
  OG_ASSIGN_OR_RETURN(uint64_t version, graph.manifests().LatestVersion(*source));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr base, graph.manifests().At(*source, version));
  NativeRef ref{name, NewNativeRefName(name)};
  // The clone writes the ref's tree first and its record last: a crash in
  // between leaves a tree no record names, never a half-visible branch.
  OG_ASSIGN_OR_RETURN(table::Dataset created, base->dataset.CreateBranch(ref.name, version, source->lance_branch(),
                                                                          table::Dataset::CloneDepth::kDeep));
  (void)created;
  OG_FAILPOINT(failpoint::kBranchCreateAfterRef);
  return CreatedBranch{name, from, ref};
}

Result<std::vector<std::string>> ListBranches(GraphStore& graph) {
  OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, LiveRefsOf(graph));
  std::vector<std::string> names{std::string(kMainBranch)};
  for (const LiveRef& r : live) {
    if (r.ref.branch.rfind("__", 0) != 0) names.push_back(r.ref.branch);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Status DeleteBranch(GraphStore& graph, std::string_view requested, const std::optional<std::string>& active_branch) {
  std::string name = TrimBranchName(requested);
  OG_RETURN_IF_ERROR(CheckPublicBranchName(name, "branch_delete"));
  if (name == kMainBranch) return BadName("cannot delete branch 'main'");
  // The branch's writers lock first, as writers take it (before any gate):
  // a deletion waits for the writes in flight and confirms the ref under it.
  OG_ASSIGN_OR_RETURN(GraphStore::BranchWriters writers, graph.LockBranchWriters(name));
  const NativeRef& ref = writers.ref;
  HeldGates gates(Gates::For(graph.uri()), SchemaAccess::kShared, {name}, {});
  OG_ASSIGN_OR_RETURN(std::vector<LiveRef> live, LiveRefsOf(graph));
  for (const LiveRef& r : live) {
    if (r.ref.branch.size() > name.size() && r.ref.branch.rfind(name + "/", 0) == 0) {
      return NamespaceConflict(fmt::format("cannot delete branch '{}' while live branch '{}' shares its physical Lance "
                                           "path; delete the child branch first",
                                           name, r.ref.branch));
    }
  }
  // Descendants: live branches whose recorded parent is this incarnation's
  // ref (a parent that is an older incarnation of the name does not count).
  // The first in byte order is the first a depth-first walk meets.
  std::vector<std::string> children;
  for (const LiveRef& r : live) {
    if (r.parent_ref && *r.parent_ref == ref.name) children.push_back(r.ref.branch);
  }
  if (!children.empty()) {
    std::sort(children.begin(), children.end());
    return NamespaceConflict(
        fmt::format("cannot delete branch '{}' because descendant branch '{}' still depends on it", name, children[0]));
  }
  if (active_branch && *active_branch == name) {
    return NamespaceConflict(fmt::format("cannot delete currently active branch '{}'", name));
  }
  OG_FAILPOINT(failpoint::kBranchDeleteBeforeUnlink);
  OG_RETURN_IF_ERROR(table::Dataset::RetireBranch(graph.store().get(), graph.manifests().root(), ref.name));
  graph.manifests().Forget(ref);
  return Status::OK();
}

}  // namespace omnigraph::graph
