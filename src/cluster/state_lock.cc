#include "cluster/state_lock.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/state.h"
#include "cluster/strict_json.h"
#include "util/ulid.h"

namespace omnigraph::cluster {
namespace {

using Json = nlohmann::json;

Status LockIoError(std::string_view what, const std::string& key, const Status& cause) {
  return WithClusterCode(IoError(fmt::format("could not {} {}: {}", what, key, cause.message())), "state_lock_error");
}

constexpr std::string_view kOperations[] = {"plan", "apply", "approve", "refresh", "import"};

}  // namespace

std::string FormatRfc3339(int64_t unix_ms) {
  std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec);
}

std::optional<int64_t> ParseRfc3339(std::string_view text) {
  std::tm utc{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char zone = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &year, &month, &day, &hour, &minute, &second, &zone) !=
          7 ||
      zone != 'Z' || copy.size() != 20) {
    return std::nullopt;
  }
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  utc.tm_sec = second;
  return static_cast<int64_t>(timegm(&utc)) * 1000;
}

Result<LockRecord> ParseLock(std::string_view bytes) {
  const StrictJson strict("invalid_state_lock", "invalid cluster state lock");
  OG_ASSIGN_OR_RETURN(StrictJson::Json root, strict.ParseObject(bytes));
  OG_RETURN_IF_ERROR(strict.OnlyKeys(root, "$", {"version", "lock_id", "operation", "created_at", "pid"}));
  OG_RETURN_IF_ERROR(strict.RequireKeys(root, "$", {"version", "lock_id", "operation", "created_at", "pid"}));
  OG_ASSIGN_OR_RETURN(uint64_t version, strict.RequiredUnsigned(root, "$", "version"));
  if (version != 1) {
    return WithClusterCode(
        InvalidArgument(
            fmt::format("unsupported cluster state lock version {}; this build supports version 1", version)),
        "unsupported_state_lock_version");
  }
  LockRecord lock;
  OG_ASSIGN_OR_RETURN(lock.lock_id, strict.RequiredString(root, "$", "lock_id"));
  OG_ASSIGN_OR_RETURN(lock.operation, strict.RequiredString(root, "$", "operation"));
  OG_ASSIGN_OR_RETURN(lock.created_at, strict.RequiredString(root, "$", "created_at"));
  if (std::find(std::begin(kOperations), std::end(kOperations), lock.operation) == std::end(kOperations)) {
    return strict.Invalid("operation", fmt::format("unknown operation `{}`", lock.operation));
  }
  OG_ASSIGN_OR_RETURN(uint64_t pid, strict.RequiredUnsigned(root, "$", "pid"));
  if (pid > UINT32_MAX) return strict.Invalid("pid", "expected a 32-bit unsigned integer");
  lock.pid = static_cast<uint32_t>(pid);
  return lock;
}

std::string SerializeLock(const LockRecord& lock) {
  nlohmann::ordered_json root;
  root["version"] = lock.version;
  root["lock_id"] = lock.lock_id;
  root["operation"] = lock.operation;
  root["created_at"] = lock.created_at;
  root["pid"] = lock.pid;
  return root.dump(2) + "\n";
}

Result<std::optional<LockRecord>> ReadLock(ObjectStore& store, const std::string& root) {
  const std::string key = JoinPath(root, kLockKey);
  auto bytes = store.Get(key);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) return std::optional<LockRecord>();
    return LockIoError("read", key, bytes.status());
  }
  OG_ASSIGN_OR_RETURN(LockRecord lock, ParseLock((*bytes)->view()));
  return std::optional<LockRecord>(std::move(lock));
}

Result<LockRecord> AcquireLock(ObjectStore& store, const std::string& root, std::string_view operation,
                               int64_t now_unix_ms, uint32_t pid) {
  LockRecord lock;
  lock.lock_id = Ulid::New().ToString();
  lock.operation = std::string(operation);
  lock.created_at = FormatRfc3339(now_unix_ms);
  lock.pid = pid;
  const std::string key = JoinPath(root, kLockKey);
  Status created = store.PutIfAbsent(key, SerializeLock(lock));
  if (created.ok()) return lock;
  if (created.code() != ErrorCode::kAlreadyExists) return LockIoError("create", key, created);
  auto held = ReadLock(store, root);
  std::string id = held.ok() && *held ? (*held)->lock_id : "unknown";
  Status refused = WithClusterCode(Status(ErrorCode::kConflict,
                                fmt::format("cluster state lock already exists (lock id {}); run `omnigraph cluster "
                                            "force-unlock {}` only after confirming no cluster operation is active",
                                            id, id)),
                         "state_lock_held")
                       .WithDetail("locked", "true");
  if (held.ok() && *held) {
    refused = refused.WithDetail("lock_id", (*held)->lock_id)
                  .WithDetail("lock_operation", (*held)->operation)
                  .WithDetail("lock_created_at", (*held)->created_at)
                  .WithDetail("lock_pid", std::to_string((*held)->pid));
  }
  return refused;
}

Status ReleaseLock(ObjectStore& store, const std::string& root, const std::string& lock_id) {
  auto held = ReadLock(store, root);
  if (!held.ok() || !*held || (*held)->lock_id != lock_id) {
    // Gone, replaced or unreadable: not ours to remove.
    return held.ok() || held.status().code() != ErrorCode::kIoError ? Status::OK() : held.status();
  }
  const std::string key = JoinPath(root, kLockKey);
  Status removed = store.Delete(key);
  if (!removed.ok() && removed.code() != ErrorCode::kNotFound) return LockIoError("remove", key, removed);
  return Status::OK();
}

Status ForceUnlock(ObjectStore& store, const std::string& root, const std::string& lock_id) {
  OG_ASSIGN_OR_RETURN(std::optional<LockRecord> held, ReadLock(store, root));
  if (!held) {
    return WithClusterCode(NotFound("no cluster state lock is held"), "state_lock_missing");
  }
  if (held->lock_id != lock_id) {
    return WithClusterCode(Status(ErrorCode::kConflict,
                        fmt::format("lock id mismatch: held lock is {}, refusing to remove (pass the exact id from "
                                    "`cluster status`)",
                                    held->lock_id)),
                 "state_lock_id_mismatch");
  }
  const std::string key = JoinPath(root, kLockKey);
  Status removed = store.Delete(key);
  if (!removed.ok() && removed.code() != ErrorCode::kNotFound) return LockIoError("remove", key, removed);
  return Status::OK();
}

}  // namespace omnigraph::cluster
