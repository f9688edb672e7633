// The cluster state lock `__cluster/lock.json` (spec/cluster.md §2.4,
// §4.7): one mutating cluster command at a time per storage root.
//
// The lock is a file created if absent, so taking it is atomic on every
// store; it has no TTL, PID check or automatic break, because a lock
// broken under a live command would let two commands interleave ledger
// writes. Only `cluster force-unlock <id>` removes a lock this process does
// not hold, and only when the id matches. Serving never takes or waits on
// it. The file is strict pretty JSON: exactly
// {"version":1,"lock_id":<ULID>,"operation":<verb>,"created_at":<RFC 3339>,"pid":<u32>}.
//
// Errors carry the spec's code as the Status detail "code" (as state.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/object_store.h"
#include "util/status.h"

namespace omnigraph::cluster {

inline constexpr std::string_view kLockKey = "__cluster/lock.json";

struct LockRecord {
  uint32_t version = 1;
  std::string lock_id;     // ULID
  std::string operation;   // plan | apply | approve | refresh | import
  std::string created_at;  // RFC 3339 UTC, seconds
  uint32_t pid = 0;
  bool operator==(const LockRecord&) const = default;
};

// "YYYY-MM-DDTHH:MM:SSZ" of a Unix time in milliseconds.
std::string FormatRfc3339(int64_t unix_ms);
// The Unix milliseconds of a FormatRfc3339 string; nullopt if it is not one.
std::optional<int64_t> ParseRfc3339(std::string_view text);

// Decodes lock.json bytes. Errors: invalid_state_lock (not JSON, a missing
// or extra field, a wrong type or operation), unsupported_state_lock_version.
Result<LockRecord> ParseLock(std::string_view bytes);
// Pretty JSON (two-space indent) with a trailing newline.
std::string SerializeLock(const LockRecord& lock);

// The lock under `root`, if one is there. Errors: those of ParseLock,
// state_lock_error for storage failures.
Result<std::optional<LockRecord>> ReadLock(ObjectStore& store, const std::string& root);

// Takes the lock for `operation` (a fresh ULID, `now_unix_ms`, `pid`).
// Errors: state_lock_held "cluster state lock already exists (lock id <id>);
// run `omnigraph cluster force-unlock <id>` only after confirming no cluster
// operation is active" when a lock file is there (details lock_id,
// lock_operation, lock_created_at, lock_pid when it decodes);
// state_lock_error for storage failures.
Result<LockRecord> AcquireLock(ObjectStore& store, const std::string& root, std::string_view operation,
                               int64_t now_unix_ms, uint32_t pid);

// Removes the lock if it still holds `lock_id` (a lock some force-unlock
// replaced is left alone). A missing lock is success. Errors:
// state_lock_error for storage failures.
Status ReleaseLock(ObjectStore& store, const std::string& root, const std::string& lock_id);

// `cluster force-unlock <lock_id>` (§4.7): removes the lock only when it
// holds exactly `lock_id`; every failure keeps the file. Errors:
// state_lock_missing (no lock), invalid_state_lock,
// unsupported_state_lock_version, state_lock_id_mismatch "lock id
// mismatch: held lock is <id>, refusing to remove (pass the exact id from
// `cluster status`)", state_lock_error.
Status ForceUnlock(ObjectStore& store, const std::string& root, const std::string& lock_id);

}  // namespace omnigraph::cluster
