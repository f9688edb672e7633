#include "api/wire/changes_json.h"

#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace omnigraph::api::wire {
namespace {

void AppendImageJson(std::string* out, const exec::EntityImage& image) {
  out->append(R"({"properties":{)");
  for (size_t i = 0; i < image.properties.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(out, image.properties[i].first);
    out->push_back(':');
    out->append(image.properties[i].second);
  }
  out->push_back('}');
  if (image.endpoints) {
    out->append(R"(,"endpoints":{"from":)");
    AppendJsonString(out, image.endpoints->from);
    out->append(R"(,"to":)");
    AppendJsonString(out, image.endpoints->to);
    out->push_back('}');
  }
  out->push_back('}');
}

void AppendOptionalMember(std::string* out, std::string_view key, const std::optional<std::string>& value) {
  if (!value) return;
  out->push_back(',');
  AppendJsonString(out, key);
  out->push_back(':');
  AppendJsonString(out, *value);
}

void AppendChangesArray(std::string* out, const std::vector<exec::EntityChange>& changes) {
  out->push_back('[');
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i) out->push_back(',');
    AppendChangeJson(out, changes[i]);
  }
  out->push_back(']');
}

// {"cause":…,"changes":[…] without the closing brace.
void AppendBlockMembers(std::string* out, const exec::ChangeCause& cause,
                        const std::vector<exec::EntityChange>& changes) {
  out->append(R"({"cause":)");
  AppendCauseJson(out, cause);
  out->append(R"(,"changes":)");
  AppendChangesArray(out, changes);
}

void AppendBlocksArray(std::string* out, const std::vector<exec::ChangeBlock>& blocks) {
  out->push_back('[');
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i) out->push_back(',');
    AppendBlockMembers(out, blocks[i].cause, blocks[i].changes);
    out->push_back('}');
  }
  out->push_back(']');
}

// A property value for people (BR-10.1 "CLI human"): strings raw, JSON
// null as <null>, a value an image lacks as <absent>, anything else as its
// compact JSON.
std::string HumanValue(const std::optional<std::string>& json) {
  if (!json) return "<absent>";
  if (*json == "null") return "<null>";
  if (!json->empty() && json->front() == '"') {
    nlohmann::json parsed = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_string()) return parsed.get<std::string>();
  }
  return *json;
}

const std::string* FindProperty(const exec::EntityImage& image, const std::string& key) {
  for (const auto& [name, value] : image.properties) {
    if (name == key) return &value;
  }
  return nullptr;
}

std::optional<std::string> PropertyOf(const exec::EntityImage& image, const std::string& key) {
  const std::string* value = FindProperty(image, key);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

void AppendEndpointsText(std::string* out, const exec::EntityChange& change) {
  auto arrow = [](const exec::Endpoints& e) { return fmt::format("{} -> {}", e.from, e.to); };
  const exec::EntityImage& shown = change.after ? *change.after : *change.before;
  if (!shown.endpoints) return;
  if (change.before && change.after && change.before->endpoints != change.after->endpoints) {
    *out += fmt::format("  {} => {}\n", arrow(*change.before->endpoints), arrow(*change.after->endpoints));
  } else {
    *out += fmt::format("  {}\n", arrow(*shown.endpoints));
  }
}

void AppendChangeText(std::string* out, const exec::EntityChange& change) {
  *out += fmt::format("{} {} {} {}\n", exec::ChangeOpName(change.op), exec::EntityKindName(change.kind),
                      change.type.name, change.id);
  AppendEndpointsText(out, change);
  switch (change.op) {
    case exec::ChangeOp::kInsert:
      for (const auto& [key, value] : change.after->properties) {
        *out += fmt::format("  + {}: {}\n", key, HumanValue(value));
      }
      break;
    case exec::ChangeOp::kDelete:
      for (const auto& [key, value] : change.before->properties) {
        *out += fmt::format("  - {}: {}\n", key, HumanValue(value));
      }
      break;
    case exec::ChangeOp::kUpdate: {
      // Only the keys that differ: the newer image's order, then keys only
      // the older image has.
      std::vector<std::string> keys;
      for (const auto& property : change.after->properties) keys.push_back(property.first);
      for (const auto& property : change.before->properties) {
        if (!FindProperty(*change.after, property.first)) keys.push_back(property.first);
      }
      for (const std::string& key : keys) {
        std::optional<std::string> was = PropertyOf(*change.before, key);
        std::optional<std::string> now = PropertyOf(*change.after, key);
        if (was == now) continue;
        *out += fmt::format("  {}: {} -> {}\n", key, HumanValue(was), HumanValue(now));
      }
      break;
    }
  }
}

void AppendCauseText(std::string* out, const exec::ChangeCause& cause) {
  *out += fmt::format("commit: {}\nbranch: {}\n", cause.graph_commit_id, cause.authored_branch);
  if (cause.parent_commit_id) *out += fmt::format("parent: {}\n", *cause.parent_commit_id);
  if (cause.merged_parent_commit_id) *out += fmt::format("merged_parent: {}\n", *cause.merged_parent_commit_id);
  if (cause.actor_id) *out += fmt::format("actor: {}\n", *cause.actor_id);
  *out += fmt::format("authored_at: {}\n", cause.authored_at_us);
}

}  // namespace

void AppendChangeJson(std::string* out, const exec::EntityChange& change) {
  out->append(R"({"kind":)");
  AppendJsonString(out, exec::EntityKindName(change.kind));
  out->append(R"(,"type":{"id":)");
  AppendJsonString(out, change.type.id);
  out->append(R"(,"name":)");
  AppendJsonString(out, change.type.name);
  out->append(R"(},"id":)");
  AppendJsonString(out, change.id);
  out->append(R"(,"op":)");
  AppendJsonString(out, exec::ChangeOpName(change.op));
  if (change.before) {
    out->append(R"(,"before":)");
    AppendImageJson(out, *change.before);
  }
  if (change.after) {
    out->append(R"(,"after":)");
    AppendImageJson(out, *change.after);
  }
  out->push_back('}');
}

void AppendCauseJson(std::string* out, const exec::ChangeCause& cause) {
  out->append(R"({"graph_commit_id":)");
  AppendJsonString(out, cause.graph_commit_id);
  AppendOptionalMember(out, "parent_commit_id", cause.parent_commit_id);
  AppendOptionalMember(out, "merged_parent_commit_id", cause.merged_parent_commit_id);
  out->append(R"(,"authored_branch":)");
  AppendJsonString(out, cause.authored_branch);
  AppendOptionalMember(out, "actor_id", cause.actor_id);
  out->append(R"(,"authored_at":)");
  out->append(std::to_string(cause.authored_at_us));
  out->push_back('}');
}

std::string CommitChangesJson(const exec::ChangeCause& cause, const std::vector<exec::EntityChange>& changes) {
  std::string out;
  AppendBlockMembers(&out, cause, changes);
  out.push_back('}');
  return out;
}

std::string CommitChangesPageJson(const exec::CommitChangesPage& page) {
  std::string out;
  AppendBlockMembers(&out, page.cause, page.changes);
  out.append(R"(,"next_page_token":)");
  if (page.next_page_token) {
    AppendJsonString(&out, *page.next_page_token);
  } else {
    out.append("null");
  }
  out.push_back('}');
  return out;
}

std::string CommitChangesText(const exec::ChangeCause& cause, const std::vector<exec::EntityChange>& changes,
                              const std::optional<std::string>& next_page_token) {
  std::string out;
  AppendCauseText(&out, cause);
  for (const exec::EntityChange& change : changes) AppendChangeText(&out, change);
  if (next_page_token) out += fmt::format("next_page_token: {}\n", *next_page_token);
  return out;
}

void ChangeFeedCollector::Add(exec::ChangeFeedPage page) {
  auto next = page.blocks.begin();
  if (next != page.blocks.end() && !blocks_.empty() &&
      blocks_.back().cause.graph_commit_id == next->cause.graph_commit_id) {
    auto& changes = blocks_.back().changes;
    changes.insert(changes.end(), std::make_move_iterator(next->changes.begin()),
                   std::make_move_iterator(next->changes.end()));
    ++next;
  }
  blocks_.insert(blocks_.end(), std::make_move_iterator(next), std::make_move_iterator(page.blocks.end()));
  if (page.terminal()) {
    cursor_ = std::move(page.cursor);
    caught_up_ = page.caught_up;
  }
}

std::string ChangeFeedJson(const std::vector<exec::ChangeBlock>& blocks, const std::string& cursor, bool caught_up) {
  std::string out = R"({"blocks":)";
  AppendBlocksArray(&out, blocks);
  out.append(R"(,"cursor":)");
  AppendJsonString(&out, cursor);
  out.append(caught_up ? R"(,"caught_up":true})" : R"(,"caught_up":false})");
  return out;
}

std::string ChangeFeedPageJson(const exec::ChangeFeedPage& page) {
  if (page.terminal()) return ChangeFeedJson(page.blocks, *page.cursor, page.caught_up);
  std::string out = R"({"blocks":)";
  AppendBlocksArray(&out, page.blocks);
  out.append(R"(,"next_page_token":)");
  AppendJsonString(&out, page.next_page_token.value_or(""));
  out.push_back('}');
  return out;
}

std::string ChangeFeedText(const std::vector<exec::ChangeBlock>& blocks, const std::string& cursor, bool caught_up) {
  std::string out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i) out.push_back('\n');
    out += CommitChangesText(blocks[i].cause, blocks[i].changes);
  }
  if (blocks.empty()) out += "(no new commits)\n";
  out += fmt::format("\ncursor: {}\ncaught_up: {}\n", cursor, caught_up ? "true" : "false");
  return out;
}

std::string BaselineHandshakeJson(const exec::ChangeBaseline& baseline) {
  std::string out = R"({"snapshot_commit_id":)";
  AppendJsonString(&out, baseline.snapshot_commit_id);
  out.append(R"(,"resume_cursor":)");
  AppendJsonString(&out, baseline.resume_cursor);
  out.push_back('}');
  return out;
}

std::string BaselineTrailerLine(const exec::ChangeBaseline& baseline) {
  return R"({"baseline":)" + BaselineHandshakeJson(baseline) + "}\n";
}

std::string BaselineText(std::string_view snapshot_path, const exec::ChangeBaseline& baseline) {
  return fmt::format("snapshot: {}\nsnapshot_commit_id: {}\nresume_cursor: {}\n", snapshot_path,
                     baseline.snapshot_commit_id, baseline.resume_cursor);
}

}  // namespace omnigraph::api::wire
