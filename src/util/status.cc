#include "util/status.h"

#include <fmt/format.h>

namespace omnigraph {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kAlreadyExists: return "already_exists";
    case ErrorCode::kCommitConflict: return "commit_conflict";
    case ErrorCode::kKeyConflict: return "key_conflict";
    case ErrorCode::kReadSetChanged: return "read_set_changed";
    case ErrorCode::kPreconditionFailed: return "precondition_failed";
    case ErrorCode::kResourceLimitExceeded: return "resource_limit_exceeded";
    case ErrorCode::kCorruptData: return "corrupt_data";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kVersionReclaimed: return "version_reclaimed";
    case ErrorCode::kIoError: return "io_error";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kConflict: return "conflict";
    case ErrorCode::kMergeConflicts: return "merge_conflicts";
    case ErrorCode::kHistoryGap: return "history_gap";
    case ErrorCode::kChangeFeedGap: return "change_feed_gap";
    case ErrorCode::kChangeCursorRejected: return "change_cursor_rejected";
    case ErrorCode::kChangeDiffRefused: return "change_diff_refusal";
    case ErrorCode::kExternalBlobPolicy: return "external_blob_policy";
    case ErrorCode::kBlobRangeNotSatisfiable: return "blob_range_not_satisfiable";
    case ErrorCode::kPolicyDenied: return "policy_denied";
  }
  return "unknown";
}

int HttpStatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return 200;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kChangeCursorRejected:
    case ErrorCode::kExternalBlobPolicy: return 400;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kAlreadyExists:
    case ErrorCode::kCommitConflict:
    case ErrorCode::kKeyConflict:
    case ErrorCode::kReadSetChanged:
    case ErrorCode::kConflict:
    case ErrorCode::kMergeConflicts:
    case ErrorCode::kChangeDiffRefused: return 409;
    case ErrorCode::kHistoryGap:
    case ErrorCode::kChangeFeedGap: return 410;
    case ErrorCode::kPolicyDenied: return 403;
    case ErrorCode::kPreconditionFailed: return 412;
    case ErrorCode::kResourceLimitExceeded: return 413;
    case ErrorCode::kBlobRangeNotSatisfiable: return 416;
    // BR-7: a reclaimed pin is a 500 on read routes; change routes turn it
    // into a ChangeFeedGap (410) first.
    case ErrorCode::kVersionReclaimed:
    case ErrorCode::kCorruptData:
    case ErrorCode::kUnsupported:
    case ErrorCode::kIoError:
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

Status::Status(ErrorCode code, std::string message, Details details) {
  if (code == ErrorCode::kOk) return;
  state_ = std::make_shared<const State>(State{code, std::move(message), std::move(details)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

const Status::Details& Status::details() const {
  static const Details kEmpty;
  return state_ ? state_->details : kEmpty;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(state_->code, fmt::format("{}: {}", context, state_->message), state_->details);
}

Status Status::WithDetail(std::string key, std::string value) const {
  if (ok()) return *this;
  Details details = state_->details;
  details[std::move(key)] = std::move(value);
  return Status(state_->code, state_->message, std::move(details));
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return fmt::format("{}: {}", ErrorCodeName(state_->code), state_->message);
}

Status InvalidArgument(std::string message) { return Status(ErrorCode::kInvalidArgument, std::move(message)); }
Status NotFound(std::string message) { return Status(ErrorCode::kNotFound, std::move(message)); }
Status AlreadyExists(std::string message) { return Status(ErrorCode::kAlreadyExists, std::move(message)); }
Status CommitConflict(std::string message) { return Status(ErrorCode::kCommitConflict, std::move(message)); }
Status CorruptData(std::string message) { return Status(ErrorCode::kCorruptData, std::move(message)); }
Status Unsupported(std::string message) { return Status(ErrorCode::kUnsupported, std::move(message)); }
Status IoError(std::string message) { return Status(ErrorCode::kIoError, std::move(message)); }
Status Internal(std::string message) { return Status(ErrorCode::kInternal, std::move(message)); }

Status ResourceLimitExceeded(std::string resource, uint64_t limit, uint64_t actual) {
  std::string message = fmt::format("{} exceeds the limit: {} > {}", resource, actual, limit);
  return Status(ErrorCode::kResourceLimitExceeded, std::move(message),
                {{"resource", std::move(resource)},
                 {"limit", std::to_string(limit)},
                 {"actual", std::to_string(actual)}});
}

}  // namespace omnigraph
