#include "exec/changes/change_tokens.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exec/export.h"
#include "exec/json_value.h"
#include "graph/manifest/manifest_reader.h"
#include "util/checksum.h"
#include "util/endian.h"

namespace omnigraph::exec {
namespace {

using Json = nlohmann::json;

constexpr int kTokenVersion = 1;
// Seeds the checksum, so text that happens to carry a valid checksum of
// some other format is still refused.
constexpr uint64_t kChecksumSeed = 0x6f6763686e676573;  // "ogchnges"

// The kinds, as the "t" member spells them.
constexpr const char* kCursor = "cursor";
constexpr const char* kFeedPage = "feed_page";
constexpr const char* kCommitPage = "commit_page";

std::string Base64Url(std::string_view bytes) {
  std::string text = EncodeBase64(bytes);
  while (!text.empty() && text.back() == '=') text.pop_back();
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  return text;
}

bool FromBase64Url(std::string_view text, std::string* bytes) {
  std::string standard(text);
  if (standard.find_first_of("+/=") != std::string::npos) return false;
  std::replace(standard.begin(), standard.end(), '-', '+');
  std::replace(standard.begin(), standard.end(), '_', '/');
  while (standard.size() % 4 != 0) standard.push_back('=');
  return DecodeBase64(standard, bytes);
}

std::string Seal(const Json& payload) {
  std::string bytes = payload.dump();  // std::map members: keys sorted, so deterministic
  uint64_t sum = Checksum64(bytes, kChecksumSeed);
  char raw[8];
  StoreLE<uint64_t>(reinterpret_cast<uint8_t*>(raw), sum);
  bytes.append(raw, sizeof(raw));
  return Base64Url(bytes);
}

Status Malformed(std::string_view what) {
  return CursorRejected(fmt::format("not a change cursor or page token ({})", what));
}

// The payload of `text` and its kind.
Result<Json> Open(std::string_view text) {
  std::string bytes;
  if (text.empty() || !FromBase64Url(text, &bytes)) return Malformed("malformed encoding");
  if (bytes.size() <= 8) return Malformed("too short");
  std::string_view body(bytes.data(), bytes.size() - 8);
  uint64_t sum = LoadLE<uint64_t>(reinterpret_cast<const uint8_t*>(bytes.data() + body.size()));
  if (sum != Checksum64(body, kChecksumSeed)) return Malformed("damaged: checksum mismatch");
  Json payload = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (!payload.is_object() || !payload.contains("v") || !payload["v"].is_number_integer() || !payload.contains("t") ||
      !payload["t"].is_string()) {
    return Malformed("malformed payload");
  }
  if (payload["v"].get<int>() != kTokenVersion) return Malformed("unsupported version");
  return payload;
}

// The string member `key`, or an error naming the token malformed.
Result<std::string> Member(const Json& payload, const char* key) {
  auto it = payload.find(key);
  if (it == payload.end() || !it->is_string()) return Malformed(fmt::format("missing {}", key));
  return it->get<std::string>();
}

std::string_view KindPhrase(std::string_view kind) {
  if (kind == kCursor) return "a cursor";
  if (kind == kFeedPage) return "a page token";
  if (kind == kCommitPage) return "a commit changes page token";
  return "an unknown token";
}

// Opens `text` expecting kind `expected`, which `expected_phrase` names.
Result<Json> OpenAs(std::string_view text, std::string_view expected, std::string_view expected_phrase) {
  OG_ASSIGN_OR_RETURN(Json payload, Open(text));
  std::string kind = payload["t"].get<std::string>();
  if (kind != expected) {
    return CursorRejected(fmt::format("{} cannot be used as {}", KindPhrase(kind), expected_phrase));
  }
  return payload;
}

Json ScopeJson(const FeedScope& scope) {
  return Json{{"g", scope.graph}, {"b", scope.incarnation}, {"f", scope.filter}};
}

Status CheckScope(const Json& payload, const FeedScope& expected) {
  OG_ASSIGN_OR_RETURN(std::string graph, Member(payload, "g"));
  OG_ASSIGN_OR_RETURN(std::string incarnation, Member(payload, "b"));
  OG_ASSIGN_OR_RETURN(std::string filter, Member(payload, "f"));
  if (graph != expected.graph) return CursorRejected("it belongs to another graph");
  if (incarnation != expected.incarnation) {
    std::string issued_for = graph::LogicalBranchOf(incarnation);
    std::string polled = graph::LogicalBranchOf(expected.incarnation);
    if (issued_for != polled) {
      return CursorRejected(fmt::format("it was issued for branch '{}', not '{}'", issued_for, polled));
    }
    return CursorRejected(fmt::format(
        "it was issued for another incarnation of branch '{}' (the branch was deleted and created again)", polled));
  }
  if (filter != expected.filter) return CursorRejected("it was issued for a different filter");
  return Status::OK();
}

Json KeyJson(const ChangeKey& key) {
  return Json{{"k", std::string(EntityKindName(key.kind))},
              {"ty", key.type_id},
              {"id", key.id},
              {"op", std::string(ChangeOpName(key.op))}};
}

Result<ChangeKey> KeyFrom(const Json& payload, const char* member) {
  auto it = payload.find(member);
  if (it == payload.end() || !it->is_object()) return Malformed(fmt::format("missing {}", member));
  ChangeKey key;
  OG_ASSIGN_OR_RETURN(std::string kind, Member(*it, "k"));
  OG_ASSIGN_OR_RETURN(std::string op, Member(*it, "op"));
  OG_ASSIGN_OR_RETURN(key.type_id, Member(*it, "ty"));
  OG_ASSIGN_OR_RETURN(key.id, Member(*it, "id"));
  auto parsed_kind = ParseEntityKind(kind);
  auto parsed_op = ParseChangeOp(op);
  if (!parsed_kind.ok() || !parsed_op.ok()) return Malformed("malformed change key");
  key.kind = *parsed_kind;
  key.op = *parsed_op;
  return key;
}

}  // namespace

Status CursorRejected(std::string_view reason) {
  return Status(ErrorCode::kChangeCursorRejected, fmt::format("change cursor rejected: {}", reason));
}

std::string EncodeFeedCursor(const FeedCursor& cursor) {
  Json payload = ScopeJson(cursor.scope);
  payload["v"] = kTokenVersion;
  payload["t"] = kCursor;
  payload["a"] = cursor.after;
  return Seal(payload);
}

std::string EncodeFeedPageToken(const FeedPageToken& token) {
  Json payload = ScopeJson(token.scope);
  payload["v"] = kTokenVersion;
  payload["t"] = kFeedPage;
  payload["s"] = token.poll_start;
  payload["c"] = token.cut;
  payload["a"] = token.after;
  if (token.inside) payload["i"] = KeyJson(*token.inside);
  return Seal(payload);
}

std::string EncodeCommitPageToken(const CommitPageToken& token) {
  Json payload{{"v", kTokenVersion}, {"t", kCommitPage}, {"c", token.commit}, {"f", token.filter}};
  payload["i"] = KeyJson(token.after);
  return Seal(payload);
}

Result<FeedCursor> DecodeFeedCursor(std::string_view text, const FeedScope& expected) {
  OG_ASSIGN_OR_RETURN(Json payload, OpenAs(text, kCursor, "a cursor"));
  OG_RETURN_IF_ERROR(CheckScope(payload, expected));
  FeedCursor cursor{expected, {}};
  OG_ASSIGN_OR_RETURN(cursor.after, Member(payload, "a"));
  return cursor;
}

Result<FeedPageToken> DecodeFeedPageToken(std::string_view text, const FeedScope& expected) {
  OG_ASSIGN_OR_RETURN(Json payload, OpenAs(text, kFeedPage, "a page token"));
  OG_RETURN_IF_ERROR(CheckScope(payload, expected));
  FeedPageToken token{expected, {}, {}, {}, std::nullopt};
  OG_ASSIGN_OR_RETURN(token.poll_start, Member(payload, "s"));
  OG_ASSIGN_OR_RETURN(token.cut, Member(payload, "c"));
  OG_ASSIGN_OR_RETURN(token.after, Member(payload, "a"));
  if (payload.contains("i")) {
    OG_ASSIGN_OR_RETURN(ChangeKey inside, KeyFrom(payload, "i"));
    token.inside = std::move(inside);
  }
  return token;
}

Result<CommitPageToken> DecodeCommitPageToken(std::string_view text, std::string_view commit, std::string_view filter) {
  OG_ASSIGN_OR_RETURN(Json payload, OpenAs(text, kCommitPage, "a commit changes page token"));
  CommitPageToken token;
  OG_ASSIGN_OR_RETURN(token.commit, Member(payload, "c"));
  OG_ASSIGN_OR_RETURN(token.filter, Member(payload, "f"));
  if (token.commit != commit) return CursorRejected("it was issued for another commit");
  if (token.filter != filter) return CursorRejected("it was issued for a different filter");
  OG_ASSIGN_OR_RETURN(token.after, KeyFrom(payload, "i"));
  return token;
}

}  // namespace omnigraph::exec
