#include "graph/proposals.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/utf8.h"

namespace omnigraph::graph {
namespace {

// The id a proposal tag addresses, or nullopt for other tags.
std::optional<std::string> IdOfTag(std::string_view tag) {
  if (tag.starts_with(kUnpublishedTagPrefix)) return std::string(tag.substr(kUnpublishedTagPrefix.size()));
  if (tag.starts_with(kUnattachedTagPrefix)) {
    std::string_view rest = tag.substr(kUnattachedTagPrefix.size());
    size_t sep = rest.find('_');
    if (sep == std::string_view::npos) return std::nullopt;
    return std::string(rest.substr(sep + 1));
  }
  return std::nullopt;
}

// Reads the proposal tag `tag` names. Errors: NotFound when the tag or its
// version is gone; CorruptData when its version carries no recipe or rows
// of another commit.
Result<Proposal> ReadProposal(GraphStore& graph, const std::string& tag) {
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr version, graph.manifests().AtTag(tag));
  OG_ASSIGN_OR_RETURN(lance::Transaction transaction, version->dataset.ReadTransaction());
  auto property = transaction.properties.find(std::string(kUnpublishedCommitProperty));
  if (property == transaction.properties.end()) {
    return CorruptData(fmt::format("{}: proposal tag '{}' names a version without {}",
                                   version->dataset.manifest_path(), tag, kUnpublishedCommitProperty));
  }
  OG_ASSIGN_OR_RETURN(ProposalRecipe recipe, DecodeProposalRecipe(property->second, version->dataset.manifest_path()));
  if (recipe.id != version->state->head.id || IdOfTag(tag) != recipe.id) {
    return CorruptData(fmt::format("{}: proposal tag '{}' holds commit '{}'", version->dataset.manifest_path(), tag,
                                   version->state->head.id));
  }
  auto state = std::make_shared<GraphState>(*version->state);
  state->branch = recipe.target.branch;
  state->branch_identity = recipe.target.name;
  return Proposal{tag, version->dataset.version(), std::move(recipe), std::move(state)};
}

}  // namespace

std::string EncodeProposalRecipe(const ProposalRecipe& r) {
  nlohmann::json j;
  j["version"] = r.version;
  j["id"] = r.id;
  j["target_branch"] = r.target.branch;
  j["target_ref"] = r.target.name;
  j["captured_manifest_version"] = r.captured_manifest_version;
  j["captured_head"] = r.captured_head;
  if (r.root) j["root"] = *r.root;
  if (r.parent) j["parent"] = *r.parent;
  return j.dump();
}

Result<ProposalRecipe> DecodeProposalRecipe(std::string_view json, std::string_view where) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  auto corrupt = [&](std::string_view what) {
    return CorruptData(fmt::format("{}: malformed {}: {}", where, kUnpublishedCommitProperty, what));
  };
  if (!j.is_object()) return corrupt("not a JSON object");
  for (const char* key : {"id", "target_branch", "target_ref", "captured_head"}) {
    if (!j.contains(key) || !j[key].is_string()) return corrupt(fmt::format("'{}' is not a string", key));
  }
  for (const char* key : {"version", "captured_manifest_version"}) {
    if (!j.contains(key) || !j[key].is_number_unsigned()) return corrupt(fmt::format("'{}' is not a count", key));
  }
  ProposalRecipe r;
  r.version = j["version"].get<uint32_t>();
  if (r.version != 1 && r.version != 2) return corrupt(fmt::format("unknown version {}", r.version));
  r.id = j["id"].get<std::string>();
  r.target = NativeRef{j["target_branch"].get<std::string>(), j["target_ref"].get<std::string>()};
  r.captured_manifest_version = j["captured_manifest_version"].get<uint64_t>();
  r.captured_head = j["captured_head"].get<std::string>();
  for (auto [key, slot] : {std::pair{"root", &r.root}, std::pair{"parent", &r.parent}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string()) return corrupt(fmt::format("'{}' is not a string", key));
    *slot = j[key].get<std::string>();
  }
  if (r.unattached() && (!r.root || !r.parent)) return corrupt("an unattached snapshot without root or parent");
  return r;
}

std::string UnpublishedTagName(std::string_view id) { return fmt::format("{}{}", kUnpublishedTagPrefix, id); }

std::string UnattachedTagName(std::string_view root, std::string_view id) {
  return fmt::format("{}{}_{}", kUnattachedTagPrefix, root, id);
}

Result<std::optional<Proposal>> FindProposal(GraphStore& graph, std::string_view id) {
  // Tag names allow no other characters; such an id names no proposal.
  if (id.empty() || id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") !=
                        std::string_view::npos) {
    return std::optional<Proposal>();
  }
  OG_ASSIGN_OR_RETURN(std::vector<table::TagInfo> tags, graph.manifests().ListTags());
  for (const table::TagInfo& tag : tags) {
    if (IdOfTag(tag.name) != id) continue;
    auto proposal = ReadProposal(graph, tag.name);
    if (!proposal.ok() && proposal.status().code() == ErrorCode::kNotFound) continue;  // dropped meanwhile
    OG_RETURN_IF_ERROR(proposal.status());
    return std::optional<Proposal>(std::move(*proposal));
  }
  return std::optional<Proposal>();
}

Result<std::vector<Proposal>> ListProposals(GraphStore& graph) {
  OG_ASSIGN_OR_RETURN(std::vector<table::TagInfo> tags, graph.manifests().ListTags());
  std::vector<Proposal> out;
  for (const table::TagInfo& tag : tags) {
    if (!IdOfTag(tag.name)) continue;
    auto proposal = ReadProposal(graph, tag.name);
    if (!proposal.ok() && proposal.status().code() == ErrorCode::kNotFound) continue;
    OG_RETURN_IF_ERROR(proposal.status());
    out.push_back(std::move(*proposal));
  }
  return out;
}

Result<bool> IsLive(GraphStore& graph, const Proposal& proposal) {
  const ProposalRecipe& r = proposal.recipe;
  Status live = graph.manifests().CheckLive(r.target);
  if (!live.ok()) {
    if (live.code() == ErrorCode::kNotFound) return false;
    return live;
  }
  OG_ASSIGN_OR_RETURN(uint64_t latest, graph.manifests().LatestVersion(r.target));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr now, graph.manifests().At(r.target, latest));
  if (now->state->head.id != r.captured_head) return false;
  if (!r.unattached() || *r.root == r.id) return true;
  // A child lives while its root does (the root's tag is the tree's anchor).
  auto root = graph.manifests().AtTag(UnattachedTagName(*r.root, *r.root));
  if (!root.ok() && root.status().code() == ErrorCode::kNotFound) return false;
  OG_RETURN_IF_ERROR(root.status());
  return true;
}

Snapshot ProposalSnapshot(GraphStore& graph, const Proposal& proposal) { return Snapshot(&graph, proposal.state); }

Result<std::optional<Snapshot>> LiveProposalSnapshot(GraphStore& graph, std::string_view id) {
  OG_ASSIGN_OR_RETURN(std::optional<Proposal> proposal, FindProposal(graph, id));
  if (!proposal) return std::optional<Snapshot>();
  OG_ASSIGN_OR_RETURN(bool live, IsLive(graph, *proposal));
  if (!live) return std::optional<Snapshot>();
  return std::optional<Snapshot>(ProposalSnapshot(graph, *proposal));
}

Status RemoveProposalTag(GraphStore& graph, const Proposal& proposal) {
  OG_ASSIGN_OR_RETURN(uint64_t latest,
                      graph.manifests().LatestVersion(NativeRef{std::string(kMainBranch), std::string(kMainBranch)}));
  OG_ASSIGN_OR_RETURN(ManifestVersionPtr main,
                      graph.manifests().At(NativeRef{std::string(kMainBranch), std::string(kMainBranch)}, latest));
  Status removed = main->dataset.DeleteTag(proposal.tag);
  if (removed.code() == ErrorCode::kNotFound) return Status::OK();
  return removed;
}

}  // namespace omnigraph::graph
