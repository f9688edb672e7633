// Streamed NDJSON export (spec/server.md §1.6): the export runs on its own
// thread and hands pieces of at most ~64 KiB to the response through a
// channel holding at most two, so a client that stops reading stops the
// export instead of growing the server's memory. Every ordinary failure
// (unknown type, unknown branch, a reclaimed version) happens before the
// first piece and becomes an error response before any header; a failure
// after that aborts the body without its terminal chunk.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/omnigraph.h"
#include "server/http.h"
#include "server/served_graph.h"
#include "util/status.h"

namespace omnigraph::server {

// Pieces a stream may hold before its producer waits for the client.
inline constexpr size_t kExportQueuedPieces = 2;
// Exports that may stream at once, process-wide (each reserves (2+2) ×
// 64 KiB, so 8 make the 2 MiB budget of §1.6), and how long a new export
// waits for a slot before it is refused.
inline constexpr size_t kExportSlots = 8;
inline constexpr auto kExportSlotWait = std::chrono::milliseconds(250);

// The process-wide export slots.
class ExportSlots {
 public:
  // Takes a slot, waiting at most kExportSlotWait; false when none freed.
  bool Acquire();
  void Release();
  // Waits (at most `timeout`) until every slot is free again: every
  // export thread has finished. Used at shutdown.
  void Drain(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t in_use_ = 0;
};

// Starts exporting `types` of `target` from `graph`, on a thread with an
// engine handle of its own (a stalled client never holds a handle reads
// need), and waits for its
// first piece. Returns the body producer of the 200 response, or the
// export's error when it failed before producing anything. Errors:
// ResourceLimitExceeded (413, resource stream_export_slots) when no slot
// frees within kExportSlotWait; those of api::Omnigraph::ExportTo.
Result<std::shared_ptr<BodyProducer>> StartExportStream(ServedGraph& graph, ExportSlots& slots,
                                                        api::ReadTarget target, std::vector<std::string> types);

}  // namespace omnigraph::server
