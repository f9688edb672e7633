#include "server/admission.h"

#include <charconv>

namespace omnigraph::server {
namespace {

// The positive integer `name` holds, `fallback` when unset, and
// `fallback` with a warning when set to anything else.
uint64_t PositiveOr(const Environment& environment, const std::string& name, uint64_t fallback,
                    std::string* warnings) {
  auto text = environment(name);
  if (!text) return fallback;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value == 0) {
    *warnings += "warning: " + name + "='" + *text + "' is not a positive integer; using the default " +
                 std::to_string(fallback) + "\n";
    return fallback;
  }
  return value;
}

}  // namespace

std::unique_ptr<Admission> Admission::FromEnvironment(const Environment& environment, std::string* warnings) {
  uint64_t in_flight = PositiveOr(environment, "OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX", kDefaultInFlightPerActor, warnings);
  if (in_flight > UINT32_MAX) in_flight = UINT32_MAX;
  uint64_t bytes = PositiveOr(environment, "OMNIGRAPH_PER_ACTOR_BYTES_MAX", kDefaultBytesPerActor, warnings);
  return std::make_unique<Admission>(static_cast<uint32_t>(in_flight), bytes);
}

Admission::Ticket::~Ticket() {
  if (owner_ != nullptr) owner_->Release(actor_, bytes_);
}

std::optional<Admission::Ticket> Admission::TryAdmit(const std::string& actor, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  Usage& usage = usage_[actor];
  if (usage.in_flight >= max_in_flight_ || bytes > max_bytes_ - usage.bytes) {
    if (usage.in_flight == 0) usage_.erase(actor);
    return std::nullopt;
  }
  ++usage.in_flight;
  usage.bytes += bytes;
  return Ticket(this, actor, bytes);
}

void Admission::Release(const std::string& actor, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = usage_.find(actor);
  if (found == usage_.end()) return;
  --found->second.in_flight;
  found->second.bytes -= bytes;
  if (found->second.in_flight == 0) usage_.erase(found);
}

}  // namespace omnigraph::server
