#include "cli/remote/changes_reader.h"

#include <nlohmann/json.hpp>

#include "cli/remote/raw_json.h"

namespace omnigraph::cli::remote {
namespace {

using Members = std::vector<std::pair<std::string, std::string_view>>;

Status MalformedChange(std::string_view what) {
  return InvalidArgument("the server's change reply is malformed: " + std::string(what));
}

// The raw value of member `name`, or nullopt.
std::optional<std::string_view> Find(const Members& members, std::string_view name) {
  for (const auto& [key, value] : members) {
    if (key == name) return value;
  }
  return std::nullopt;
}

Result<Members> MembersOf(std::string_view raw, std::string_view what) {
  auto members = ObjectMembers(raw);
  if (!members.ok()) return MalformedChange(std::string(what) + " is not an object");
  return std::move(*members);
}

// A string member; nullopt when absent or null.
Result<std::optional<std::string>> OptionalString(const Members& members, std::string_view name) {
  auto raw = Find(members, name);
  if (!raw || *raw == "null") return std::optional<std::string>();
  nlohmann::json value = nlohmann::json::parse(*raw, nullptr, false);
  if (!value.is_string()) return MalformedChange("'" + std::string(name) + "' is not a string");
  return std::optional<std::string>(value.get<std::string>());
}

Result<std::string> RequiredString(const Members& members, std::string_view name) {
  OG_ASSIGN_OR_RETURN(std::optional<std::string> value, OptionalString(members, name));
  if (!value) return MalformedChange("'" + std::string(name) + "' is missing");
  return *value;
}

// The raw elements of an array member (absent: none).
Result<std::vector<std::string_view>> Elements(const Members& members, std::string_view name) {
  auto raw = Find(members, name);
  if (!raw) return std::vector<std::string_view>();
  auto elements = ArrayElements(*raw);
  if (!elements.ok()) return MalformedChange("'" + std::string(name) + "' is not an array");
  return std::move(*elements);
}

Result<exec::ChangeCause> ParseCause(std::string_view raw) {
  OG_ASSIGN_OR_RETURN(Members members, MembersOf(raw, "a cause"));
  exec::ChangeCause cause;
  OG_ASSIGN_OR_RETURN(cause.graph_commit_id, RequiredString(members, "graph_commit_id"));
  OG_ASSIGN_OR_RETURN(cause.parent_commit_id, OptionalString(members, "parent_commit_id"));
  OG_ASSIGN_OR_RETURN(cause.merged_parent_commit_id, OptionalString(members, "merged_parent_commit_id"));
  OG_ASSIGN_OR_RETURN(cause.authored_branch, RequiredString(members, "authored_branch"));
  OG_ASSIGN_OR_RETURN(cause.actor_id, OptionalString(members, "actor_id"));
  auto at = Find(members, "authored_at");
  nlohmann::json value = at ? nlohmann::json::parse(*at, nullptr, false) : nlohmann::json();
  if (!value.is_number_integer()) return MalformedChange("'authored_at' is not an integer");
  cause.authored_at_us = value.get<int64_t>();
  return cause;
}

Result<exec::EntityImage> ParseImage(std::string_view raw) {
  OG_ASSIGN_OR_RETURN(Members members, MembersOf(raw, "an image"));
  exec::EntityImage image;
  auto properties = Find(members, "properties");
  if (!properties) return MalformedChange("an image has no properties");
  OG_ASSIGN_OR_RETURN(Members values, MembersOf(*properties, "properties"));
  for (const auto& [name, value] : values) image.properties.emplace_back(name, std::string(value));
  if (auto endpoints = Find(members, "endpoints")) {
    OG_ASSIGN_OR_RETURN(Members ends, MembersOf(*endpoints, "endpoints"));
    exec::Endpoints pair;
    OG_ASSIGN_OR_RETURN(pair.from, RequiredString(ends, "from"));
    OG_ASSIGN_OR_RETURN(pair.to, RequiredString(ends, "to"));
    image.endpoints = std::move(pair);
  }
  return image;
}

Result<exec::EntityChange> ParseChange(std::string_view raw) {
  OG_ASSIGN_OR_RETURN(Members members, MembersOf(raw, "a change"));
  exec::EntityChange change;
  OG_ASSIGN_OR_RETURN(std::string kind, RequiredString(members, "kind"));
  OG_ASSIGN_OR_RETURN(change.kind, exec::ParseEntityKind(kind));
  auto type = Find(members, "type");
  if (!type) return MalformedChange("a change has no type");
  OG_ASSIGN_OR_RETURN(Members type_members, MembersOf(*type, "a change's type"));
  OG_ASSIGN_OR_RETURN(change.type.id, RequiredString(type_members, "id"));
  OG_ASSIGN_OR_RETURN(change.type.name, RequiredString(type_members, "name"));
  OG_ASSIGN_OR_RETURN(change.id, RequiredString(members, "id"));
  OG_ASSIGN_OR_RETURN(std::string op, RequiredString(members, "op"));
  OG_ASSIGN_OR_RETURN(change.op, exec::ParseChangeOp(op));
  if (auto before = Find(members, "before")) {
    OG_ASSIGN_OR_RETURN(change.before, ParseImage(*before));
  }
  if (auto after = Find(members, "after")) {
    OG_ASSIGN_OR_RETURN(change.after, ParseImage(*after));
  }
  return change;
}

Result<std::vector<exec::EntityChange>> ParseChanges(const Members& members) {
  OG_ASSIGN_OR_RETURN(std::vector<std::string_view> elements, Elements(members, "changes"));
  std::vector<exec::EntityChange> changes;
  for (std::string_view element : elements) {
    OG_ASSIGN_OR_RETURN(exec::EntityChange change, ParseChange(element));
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace

Result<exec::CommitChangesPage> ParseCommitChangesPage(std::string_view body) {
  OG_ASSIGN_OR_RETURN(Members members, MembersOf(body, "the reply"));
  exec::CommitChangesPage page;
  auto cause = Find(members, "cause");
  if (!cause) return MalformedChange("no cause");
  OG_ASSIGN_OR_RETURN(page.cause, ParseCause(*cause));
  OG_ASSIGN_OR_RETURN(page.changes, ParseChanges(members));
  OG_ASSIGN_OR_RETURN(page.next_page_token, OptionalString(members, "next_page_token"));
  return page;
}

Result<exec::ChangeFeedPage> ParseChangeFeedPage(std::string_view body) {
  OG_ASSIGN_OR_RETURN(Members members, MembersOf(body, "the reply"));
  exec::ChangeFeedPage page;
  OG_ASSIGN_OR_RETURN(std::vector<std::string_view> blocks, Elements(members, "blocks"));
  for (std::string_view raw : blocks) {
    OG_ASSIGN_OR_RETURN(Members block_members, MembersOf(raw, "a block"));
    exec::ChangeBlock block;
    auto cause = Find(block_members, "cause");
    if (!cause) return MalformedChange("a block has no cause");
    OG_ASSIGN_OR_RETURN(block.cause, ParseCause(*cause));
    OG_ASSIGN_OR_RETURN(block.changes, ParseChanges(block_members));
    page.blocks.push_back(std::move(block));
  }
  OG_ASSIGN_OR_RETURN(page.next_page_token, OptionalString(members, "next_page_token"));
  OG_ASSIGN_OR_RETURN(page.cursor, OptionalString(members, "cursor"));
  page.caught_up = Find(members, "caught_up").value_or("false") == "true";
  return page;
}

Result<exec::ChangeBaseline> ParseBaseline(std::string body) {
  if (body.empty() || body.back() != '\n') return MalformedChange("the baseline does not end with a complete line");
  const size_t start = body.rfind('\n', body.size() - 2);
  const size_t trailer = start == std::string::npos ? 0 : start + 1;
  OG_ASSIGN_OR_RETURN(Members members,
                      MembersOf(std::string_view(body).substr(trailer, body.size() - 1 - trailer), "the trailer"));
  auto handshake = Find(members, "baseline");
  if (!handshake || members.size() != 1) return MalformedChange("the baseline has no {\"baseline\":…} trailer");
  OG_ASSIGN_OR_RETURN(Members fields, MembersOf(*handshake, "the baseline trailer"));
  exec::ChangeBaseline baseline;
  OG_ASSIGN_OR_RETURN(baseline.snapshot_commit_id, RequiredString(fields, "snapshot_commit_id"));
  OG_ASSIGN_OR_RETURN(baseline.resume_cursor, RequiredString(fields, "resume_cursor"));
  body.resize(trailer);
  baseline.snapshot = std::move(body);
  return baseline;
}

}  // namespace omnigraph::cli::remote
