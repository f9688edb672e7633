#include "api/wire/error_json.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace omnigraph::api::wire {
namespace {

using Json = nlohmann::ordered_json;

// The detail `key` of `status`, or nullopt.
std::optional<std::string> Detail(const Status& status, const std::string& key) {
  auto found = status.details().find(key);
  if (found == status.details().end()) return std::nullopt;
  return found->second;
}

Json StringOrNull(const std::optional<std::string>& value) { return value ? Json(*value) : Json(nullptr); }

// A count the Status holds as decimal text, or nullopt when it is not one.
std::optional<uint64_t> Count(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

// Adds to `body` the one detail object the spec names for `status`'s kind
// of error, when the Status carries that object's required fields.
void AddDetail(const Status& status, Json* body) {
  switch (status.code()) {
    case ErrorCode::kPreconditionFailed: {
      auto expected = Detail(status, "expected");
      if (!expected) return;
      Json detail{{"expected", *expected}};
      if (auto actual = Detail(status, "actual")) detail["actual"] = *actual;
      (*body)["precondition_failure"] = std::move(detail);
      return;
    }
    case ErrorCode::kReadSetChanged: {
      auto member = Detail(status, "member");
      if (!member) return;
      (*body)["read_set_conflict"] = Json{{"member", *member},
                                          {"expected", StringOrNull(Detail(status, "expected"))},
                                          {"actual", StringOrNull(Detail(status, "actual"))}};
      return;
    }
    case ErrorCode::kKeyConflict: {
      auto entity_kind = Detail(status, "entity_kind"), type_name = Detail(status, "type_name");
      if (!entity_kind || !type_name) return;
      Json detail{{"entity_kind", *entity_kind}, {"type_name", *type_name}};
      if (auto entity_id = Detail(status, "entity_id")) detail["entity_id"] = *entity_id;
      (*body)["key_conflict"] = std::move(detail);
      return;
    }
    case ErrorCode::kResourceLimitExceeded: {
      auto resource = Detail(status, "resource");
      auto limit = Count(Detail(status, "limit")), actual = Count(Detail(status, "actual"));
      if (!resource || !limit || !actual) return;
      (*body)["resource_limit"] = Json{{"resource", *resource}, {"limit", *limit}, {"actual", *actual}};
      return;
    }
    case ErrorCode::kMergeConflicts: {
      // The writer carries the list as JSON text (a Status holds strings).
      auto list = Detail(status, "merge_conflicts");
      if (!list) return;
      Json conflicts = Json::parse(*list, nullptr, /*allow_exceptions=*/false);
      if (conflicts.is_array() && !conflicts.empty()) (*body)["merge_conflicts"] = std::move(conflicts);
      return;
    }
    case ErrorCode::kHistoryGap: {
      auto ids = Detail(status, "graph_commit_ids");
      if (!ids) return;
      Json list = Json::array();
      for (size_t start = 0; start <= ids->size();) {
        size_t comma = ids->find(',', start);
        if (comma == std::string::npos) comma = ids->size();
        if (comma > start) list.push_back(ids->substr(start, comma - start));
        start = comma + 1;
      }
      (*body)["history_gap"] = Json{{"graph_commit_ids", std::move(list)}};
      return;
    }
    case ErrorCode::kChangeFeedGap: {
      auto first = Detail(status, "first_unreadable_commit_id");
      if (!first) return;
      Json detail;
      if (auto cursor = Detail(status, "cursor")) detail["cursor"] = *cursor;
      detail["first_unreadable_commit_id"] = *first;
      (*body)["change_feed_gap"] = std::move(detail);
      return;
    }
    case ErrorCode::kChangeDiffRefused: {
      auto reason = Detail(status, "reason"), commit = Detail(status, "graph_commit_id");
      if (!reason || !commit) return;
      Json detail{{"reason", *reason}, {"graph_commit_id", *commit}};
      if (auto type = Detail(status, "type_name")) detail["type_name"] = *type;
      (*body)["change_diff_refusal"] = std::move(detail);
      return;
    }
    case ErrorCode::kBlobRangeNotSatisfiable: {
      auto start = Count(Detail(status, "start")), end = Count(Detail(status, "end"));
      auto length = Count(Detail(status, "length"));
      if (!start || !end || !length) return;
      (*body)["blob_range"] = Json{{"start", *start}, {"end", *end}, {"length", *length}};
      return;
    }
    case ErrorCode::kConflict: {
      // BR-12.4: publishing an unattached snapshot.
      auto reason = Detail(status, "commit_refusal"), commit = Detail(status, "graph_commit_id");
      if (!reason || !commit) return;
      (*body)["commit_refusal"] = Json{{"reason", *reason}, {"graph_commit_id", *commit}};
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::optional<std::string_view> WireErrorCode(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return std::nullopt;
    case ErrorCode::kInvalidArgument: return "bad_request";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kPolicyDenied: return "forbidden";
    case ErrorCode::kAlreadyExists:
    case ErrorCode::kCommitConflict:
    case ErrorCode::kKeyConflict:
    case ErrorCode::kReadSetChanged:
    case ErrorCode::kConflict:
    case ErrorCode::kMergeConflicts:
    case ErrorCode::kChangeDiffRefused: return "conflict";
    case ErrorCode::kChangeCursorRejected:
    case ErrorCode::kExternalBlobPolicy: return "bad_request";
    // 416 carries its `blob_range` detail; clients know a bad range as a
    // bad request.
    case ErrorCode::kBlobRangeNotSatisfiable: return "bad_request";
    // The closed enum has no code of its own for 412 and 410: BR-8 and
    // server.md §1.5 identify those outcomes by status and detail alone.
    case ErrorCode::kPreconditionFailed:
    case ErrorCode::kHistoryGap:
    case ErrorCode::kChangeFeedGap: return std::nullopt;
    // 413 has no code of its own either, but a resource limit is an
    // older outcome that clients know as a bad request.
    case ErrorCode::kResourceLimitExceeded: return "bad_request";
    case ErrorCode::kVersionReclaimed:
    case ErrorCode::kCorruptData:
    case ErrorCode::kUnsupported:
    case ErrorCode::kIoError:
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

Json ErrorJson(const Status& status) {
  Json body{{"error", status.message()}};
  if (auto code = WireErrorCode(status.code())) body["code"] = std::string(*code);
  AddDetail(status, &body);
  return body;
}

}  // namespace omnigraph::api::wire
