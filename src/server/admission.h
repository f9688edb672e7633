// Per-actor admission for writes (spec/server.md §1.7): each actor may
// have at most `max_in_flight` admitted requests and `max_bytes` estimated
// request bytes at once, process-wide. Admission never waits: a request
// that does not fit is refused at once (the caller answers 429 with
// Retry-After: 60), so one actor's burst cannot queue ahead of others.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/auth.h"

namespace omnigraph::server {

inline constexpr uint32_t kDefaultInFlightPerActor = 16;
inline constexpr uint64_t kDefaultBytesPerActor = 4ull * 1024 * 1024 * 1024;

class Admission {
 public:
  Admission(uint32_t max_in_flight, uint64_t max_bytes) : max_in_flight_(max_in_flight), max_bytes_(max_bytes) {}

  // The limits from OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX and
  // OMNIGRAPH_PER_ACTOR_BYTES_MAX; an unset value takes the default, and
  // so does an invalid one (a positive decimal integer is required), with
  // a warning written to `warnings`.
  static std::unique_ptr<Admission> FromEnvironment(const Environment& environment, std::string* warnings);

  // Holds one admitted request's share until destroyed.
  class Ticket {
   public:
    Ticket(Ticket&& other) noexcept : owner_(other.owner_), actor_(std::move(other.actor_)), bytes_(other.bytes_) {
      other.owner_ = nullptr;
    }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();

   private:
    friend class Admission;
    Ticket(Admission* owner, std::string actor, uint64_t bytes)
        : owner_(owner), actor_(std::move(actor)), bytes_(bytes) {}
    Admission* owner_;
    std::string actor_;
    uint64_t bytes_;
  };

  // Admits one request of `bytes` estimated bytes for `actor`, or nullopt
  // when the actor already has max_in_flight requests or the bytes would
  // pass max_bytes. A request larger than max_bytes alone is refused too.
  std::optional<Ticket> TryAdmit(const std::string& actor, uint64_t bytes);

  uint32_t max_in_flight() const { return max_in_flight_; }
  uint64_t max_bytes() const { return max_bytes_; }

 private:
  struct Usage {
    uint32_t in_flight = 0;
    uint64_t bytes = 0;
  };
  void Release(const std::string& actor, uint64_t bytes);

  const uint32_t max_in_flight_;
  const uint64_t max_bytes_;
  std::mutex mutex_;
  std::map<std::string, Usage> usage_;  // only actors with something in flight
};

}  // namespace omnigraph::server
