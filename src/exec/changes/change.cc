#include "exec/changes/change.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/checksum.h"
#include "util/json_text.h"
#include "util/utf8.h"

namespace omnigraph::exec {

std::string_view EntityKindName(EntityKind kind) { return kind == EntityKind::kNode ? "node" : "edge"; }

std::string_view ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kInsert: return "insert";
    case ChangeOp::kUpdate: return "update";
    case ChangeOp::kDelete: return "delete";
  }
  return "?";
}

Result<EntityKind> ParseEntityKind(std::string_view text) {
  if (text == "node") return EntityKind::kNode;
  if (text == "edge") return EntityKind::kEdge;
  return InvalidArgument(fmt::format("unknown change kind '{}' (expected node | edge)", utf8::ShortenForMessage(text)));
}

Result<ChangeOp> ParseChangeOp(std::string_view text) {
  for (ChangeOp op : {ChangeOp::kInsert, ChangeOp::kUpdate, ChangeOp::kDelete}) {
    if (text == ChangeOpName(op)) return op;
  }
  return InvalidArgument(
      fmt::format("unknown change op '{}' (expected insert | update | delete)", utf8::ShortenForMessage(text)));
}

std::string TypeIdOf(const graph::TableIdentity& identity) { return fmt::format("{:016x}", identity.stable_id); }

namespace {

// {"properties":{…},"endpoints":{"from":…,"to":…}}
uint64_t ImageBytes(const EntityImage& image) {
  uint64_t bytes = std::string_view(R"({"properties":{}})").size();
  for (size_t i = 0; i < image.properties.size(); ++i) {
    const auto& [key, value] = image.properties[i];
    bytes += (i ? 1 : 0) + JsonStringBytes(key) + 1 + value.size();
  }
  if (image.endpoints) {
    bytes += std::string_view(R"(,"endpoints":{"from":,"to":})").size() + JsonStringBytes(image.endpoints->from) +
             JsonStringBytes(image.endpoints->to);
  }
  return bytes;
}

}  // namespace

uint64_t WireBytes(const EntityChange& change) {
  // {"kind":K,"type":{"id":I,"name":N},"id":E,"op":O[,"before":B][,"after":A]}
  uint64_t bytes = std::string_view(R"({"kind":,"type":{"id":,"name":},"id":,"op":})").size();
  bytes += JsonStringBytes(EntityKindName(change.kind)) + JsonStringBytes(change.type.id) +
           JsonStringBytes(change.type.name) + JsonStringBytes(change.id) + JsonStringBytes(ChangeOpName(change.op));
  if (change.before) bytes += std::string_view(R"(,"before":)").size() + ImageBytes(*change.before);
  if (change.after) bytes += std::string_view(R"(,"after":)").size() + ImageBytes(*change.after);
  return bytes;
}

ChangeCause CauseOf(const graph::CommitRecord& commit) {
  ChangeCause cause;
  cause.graph_commit_id = commit.id;
  cause.parent_commit_id = commit.parent_id;
  cause.merged_parent_commit_id = commit.merged_parent_id;
  cause.authored_branch = commit.graph_branch.value_or(std::string(graph::kMainBranch));
  cause.actor_id = commit.actor_id;
  cause.authored_at_us = commit.created_at_us;
  return cause;
}

bool ChangeFilter::AdmitsTable(EntityKind kind, std::string_view type_name) const {
  if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) return false;
  return types.empty() || std::find(types.begin(), types.end(), type_name) != types.end();
}

bool ChangeFilter::AdmitsOp(ChangeOp op) const {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

std::string ChangeFilter::Fingerprint() const {
  // A canonical spelling of the three sets, hashed: tokens stay short
  // however many types a filter names.
  auto canonical = [](auto values, auto name) {
    std::vector<std::string> names;
    for (const auto& v : values) names.emplace_back(name(v));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string out;
    for (const std::string& n : names) {
      out += std::to_string(n.size());  // length-prefixed: no separator can be forged
      out += ':';
      out += n;
    }
    return out;
  };
  std::string text = "kinds=" + canonical(kinds, EntityKindName) +
                     ";types=" + canonical(types, [](const std::string& t) { return std::string_view(t); }) +
                     ";ops=" + canonical(ops, ChangeOpName);
  return fmt::format("{:016x}", Checksum64(text));
}

}  // namespace omnigraph::exec
