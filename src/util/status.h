// Error model shared by every layer (architecture.md §3.8).
//
// One error type crosses layers: a stable `ErrorCode` from the engine taxonomy
// (spec/engine.md §9, spec/surface.md §6.3), a human message that names the
// input at fault, and structured details (string map). Every code maps to one
// HTTP status. Exceptions never cross public headers; functions that can fail
// return `Status` or `Result<T>`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace omnigraph {

enum class ErrorCode : uint16_t {
  kOk = 0,
  // Caller input is malformed or violates a rule (400).
  kInvalidArgument,
  // The named object, version, tag, branch or column does not exist (404).
  kNotFound,
  // Create-if-absent target already exists (409).
  kAlreadyExists,
  // A linear commit lost the put-if-absent race for version n+1 (409).
  // Never retried or rebased by the table store.
  kCommitConflict,
  // A strict keyed insert hit an existing primary key (409).
  kKeyConflict,
  // A writer's captured authority changed before publication (409).
  kReadSetChanged,
  // A caller precondition (expected head or version) is not current (412).
  kPreconditionFailed,
  // A size or count ceiling was exceeded before any effect (413).
  kResourceLimitExceeded,
  // A file's bytes contradict the format: truncated, bit-flipped, bad
  // offsets, bad magic (500).
  kCorruptData,
  // A well-formed file uses a feature flag, encoding or type this build does
  // not implement (500). The message names the feature.
  kUnsupported,
  // A pinned version was removed by cleanup (410).
  kVersionReclaimed,
  // Local or object-store I/O failed (500).
  kIoError,
  // A bug or impossible state (500).
  kInternal,
  // A control operation conflicts with the current branch namespace or a
  // commit's state: a live name, a descendant, the active branch, a
  // published commit dropped (409; spec/branches.md BR-13.3 `manifest`
  // Conflict).
  kConflict,
  // A merge found row conflicts or constraint violations (409; details
  // name them, spec/branches.md BR-9.8).
  kMergeConflicts,
  // A snapshot or merge base can no longer be rebuilt (410; BR-7, BR-9.3).
  kHistoryGap,
  // The change feed cannot continue contiguously (410; BR-10.2).
  kChangeFeedGap,
  // A change cursor, page token or start position is rejected (400; BR-10).
  kChangeCursorRejected,
  // A commit diff is refused: genesis, or an unprovable schema boundary
  // (409; BR-10.1 `change_diff_refusal`).
  kChangeDiffRefused,
  // An external Blob URI is refused by the graph's ExternalBlobPolicy or is
  // malformed (400; engine.md §9 `ExternalBlobPolicy{uri, reason}`; details
  // uri and reason).
  kExternalBlobPolicy,
  // A Blob byte range starts at or past the end of a non-empty value (416;
  // engine.md §9 `BlobRangeNotSatisfiable{start, end, length}`; details
  // start, end and length as decimal text).
  kBlobRangeNotSatisfiable,
  // The actor's policy does not grant the action (403; server.md §2.4,
  // engine.md §9 Policy). The message is the policy decision's.
  kPolicyDenied,
};

// Stable snake_case name of a code, e.g. "key_conflict".
std::string_view ErrorCodeName(ErrorCode code);

// HTTP status the code maps to (spec/surface.md §6.3).
int HttpStatusOf(ErrorCode code);

class [[nodiscard]] Status {
 public:
  using Details = std::map<std::string, std::string>;

  Status() = default;
  Status(ErrorCode code, std::string message, Details details = {});

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  ErrorCode code() const { return state_ ? state_->code : ErrorCode::kOk; }
  const std::string& message() const;
  const Details& details() const;
  int http_status() const { return HttpStatusOf(code()); }

  // Returns a copy with `context + ": "` prepended to the message, keeping
  // code and details. Used to name the file or input at fault.
  Status WithContext(std::string_view context) const;
  // Returns a copy with one more detail entry.
  Status WithDetail(std::string key, std::string value) const;

  // "<code>: <message>".
  std::string ToString() const;

 private:
  struct State {
    ErrorCode code;
    std::string message;
    Details details;
  };
  std::shared_ptr<const State> state_;
};

Status InvalidArgument(std::string message);
Status NotFound(std::string message);
Status AlreadyExists(std::string message);
Status CommitConflict(std::string message);
Status CorruptData(std::string message);
Status Unsupported(std::string message);
Status IoError(std::string message);
Status Internal(std::string message);
Status ResourceLimitExceeded(std::string resource, uint64_t limit, uint64_t actual);

// Holds either a value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : storage_(std::move(status)) {  // NOLINT
    if (std::get<Status>(storage_).ok()) {
      storage_ = Status(ErrorCode::kInternal, "Result constructed from OK status");
    }
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(storage_); }

  T& value() & { return std::get<T>(storage_); }
  const T& value() const& { return std::get<T>(storage_); }
  T&& value() && { return std::get<T>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T ValueOr(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> storage_;
};

}  // namespace omnigraph

#define OG_CONCAT_INNER(a, b) a##b
#define OG_CONCAT(a, b) OG_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function if it is an error.
#define OG_RETURN_IF_ERROR(expr)                       \
  do {                                                 \
    ::omnigraph::Status og_status_ = (expr);           \
    if (!og_status_.ok()) return og_status_;           \
  } while (false)

#define OG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// `lhs = value of expr`, or return its error from the enclosing function.
#define OG_ASSIGN_OR_RETURN(lhs, expr) \
  OG_ASSIGN_OR_RETURN_IMPL(OG_CONCAT(og_result_, __LINE__), lhs, expr)
