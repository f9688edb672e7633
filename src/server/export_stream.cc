#include "server/export_stream.h"

#include <deque>
#include <thread>

namespace omnigraph::server {

bool ExportSlots::Acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, kExportSlotWait, [this] { return in_use_ < kExportSlots; })) return false;
  ++in_use_;
  return true;
}

void ExportSlots::Release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_use_;
  }
  changed_.notify_all();
}

void ExportSlots::Drain(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [this] { return in_use_ == 0; });
}

namespace {

// The hand-off between the export thread and the response.
struct Channel {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::string> pieces;  // at most kExportQueuedPieces
  bool finished = false;           // the export returned
  Status result;                   // its result, once finished
  bool abandoned = false;          // the response is gone (client left)
};

// Marks the channel abandoned when the response's producer is destroyed,
// which wakes a producer waiting for room so the export thread ends.
struct Abandon {
  explicit Abandon(std::shared_ptr<Channel> owned) : channel(std::move(owned)) {}
  Abandon(const Abandon&) = delete;
  Abandon& operator=(const Abandon&) = delete;
  std::shared_ptr<Channel> channel;
  ~Abandon() {
    {
      std::lock_guard<std::mutex> lock(channel->mutex);
      channel->abandoned = true;
    }
    channel->changed.notify_all();
  }
};

}  // namespace

Result<std::shared_ptr<BodyProducer>> StartExportStream(ServedGraph& graph, ExportSlots& slots,
                                                        api::ReadTarget target, std::vector<std::string> types) {
  if (!slots.Acquire()) {
    return Status(ErrorCode::kResourceLimitExceeded,
                  "too many exports are streaming; retry when one finishes",
                  {{"resource", "stream_export_slots"},
                   {"limit", std::to_string(kExportSlots)},
                   {"actual", std::to_string(kExportSlots + 1)}});
  }
  auto channel = std::make_shared<Channel>();
  std::thread([&graph, &slots, channel, target = std::move(target), types = std::move(types)] {
    auto sink = [&channel](std::string_view piece) -> Status {
      std::unique_lock<std::mutex> lock(channel->mutex);
      channel->changed.wait(lock, [&] { return channel->abandoned || channel->pieces.size() < kExportQueuedPieces; });
      if (channel->abandoned) return Internal("the export's client went away");
      channel->pieces.emplace_back(piece);
      channel->changed.notify_all();
      return Status::OK();
    };
    // The export has an engine handle of its own: a client that stops
    // reading holds it for as long as it stalls, and must not hold one of
    // the handles the graph's reads share.
    Status result = [&]() -> Status {
      OG_ASSIGN_OR_RETURN(std::unique_ptr<api::Omnigraph> handle, api::Omnigraph::Open(graph.uri(), graph.engine()));
      return handle->ExportTo(target, types, sink);
    }();
    {
      std::lock_guard<std::mutex> lock(channel->mutex);
      channel->finished = true;
      channel->result = std::move(result);
    }
    channel->changed.notify_all();
    slots.Release();
  }).detach();

  // Wait for the first piece or the end, so ordinary failures answer
  // before any header is sent.
  {
    std::unique_lock<std::mutex> lock(channel->mutex);
    channel->changed.wait(lock, [&] { return channel->finished || !channel->pieces.empty(); });
    if (channel->pieces.empty() && !channel->result.ok()) return channel->result;
  }
  auto abandon = std::make_shared<Abandon>(channel);
  auto producer = std::make_shared<BodyProducer>();
  producer->next = [channel, abandon](std::string* chunk, bool* failed) {
    std::unique_lock<std::mutex> lock(channel->mutex);
    channel->changed.wait(lock, [&] { return channel->finished || !channel->pieces.empty(); });
    *failed = false;
    if (!channel->pieces.empty()) {
      *chunk = std::move(channel->pieces.front());
      channel->pieces.pop_front();
      channel->changed.notify_all();
      return true;
    }
    *failed = !channel->result.ok();
    return false;
  };
  return producer;
}

}  // namespace omnigraph::server
