#include "exec/ordered_lines.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <queue>

#include <fmt/format.h>

namespace omnigraph::exec {
namespace {

// Per-entry bookkeeping beyond its bytes (two strings and their headers).
constexpr int64_t kEntryOverhead = 2 * sizeof(std::string);
// Bounds of one run's read buffer in the merge.
constexpr int64_t kMinMergeReadBytes = 1024;
constexpr int64_t kMaxMergeReadBytes = 64 * 1024;

Status ScratchError(std::string_view what, int error) {
  return IoError(fmt::format("export scratch file: {}: {}", what, std::strerror(error)));
}

// A new unlinked file in the scratch directory, open for reading and writing.
Result<std::FILE*> OpenScratchFile() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string path = (dir / "omnigraph-export-XXXXXX").string();
  int fd = ::mkstemp(path.data());
  if (fd < 0) return ScratchError("cannot create one in " + dir.string(), errno);
  ::unlink(path.c_str());
  std::FILE* file = ::fdopen(fd, "w+b");
  if (file == nullptr) {
    int error = errno;
    ::close(fd);
    return ScratchError("cannot open", error);
  }
  return file;
}

bool WriteField(std::FILE* file, std::string_view bytes) {
  uint32_t size = static_cast<uint32_t>(bytes.size());
  return std::fwrite(&size, sizeof(size), 1, file) == 1 &&
         (bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size());
}

// Reads one spilled run back through a buffer of its own, with pread(2):
// every run shares the scan's one scratch file.
struct RunCursor {
  int fd;
  int64_t next;  // file offset of the first byte not yet in `buffer`
  int64_t end;
  size_t read_bytes;
  std::string buffer;
  size_t used = 0;  // bytes of `buffer` already consumed
  struct {
    std::string id;
    std::string line;
  } head;

  bool AtEnd() const { return used == buffer.size() && next == end; }

  Status Read(char* out, size_t size) {
    while (size > 0) {
      if (used == buffer.size()) {
        if (next == end) return ScratchError("a run ends mid-record", EIO);
        buffer.resize(static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(read_bytes), end - next)));
        ssize_t got = 0;
        do {
          got = ::pread(fd, buffer.data(), buffer.size(), next);
        } while (got < 0 && errno == EINTR);
        if (got < 0) return ScratchError("cannot read a run back", errno);
        if (got == 0) return ScratchError("a run ends mid-record", EIO);
        buffer.resize(static_cast<size_t>(got));
        next += got;
        used = 0;
      }
      size_t take = std::min(size, buffer.size() - used);
      std::memcpy(out, buffer.data() + used, take);
      used += take;
      out += take;
      size -= take;
    }
    return Status::OK();
  }

  // One length-prefixed field (WriteField).
  Status ReadField(std::string* out) {
    uint32_t size = 0;
    OG_RETURN_IF_ERROR(Read(reinterpret_cast<char*>(&size), sizeof(size)));
    out->resize(size);
    return Read(out->data(), size);
  }
};

}  // namespace

IdOrderedLines::IdOrderedLines(int64_t run_bytes, OrderedScanBudget* budget)
    : run_bytes_(std::max<int64_t>(run_bytes, 1)), budget_(budget) {
  if (budget_ != nullptr) {
    granted_bytes_ = MinRunBytes();
    budget_->ReserveGuaranteed(granted_bytes_);
  }
}

IdOrderedLines::~IdOrderedLines() { Release(); }

int64_t IdOrderedLines::MinRunBytes() const {
  return budget_ == nullptr ? 0 : std::min(run_bytes_, budget_->limits().min_run_bytes);
}

Status IdOrderedLines::Add(std::string_view id, std::string line) {
  const int64_t entry_bytes = static_cast<int64_t>(id.size() + line.size()) + kEntryOverhead;
  OG_RETURN_IF_ERROR(Reserve(entry_bytes));
  held_bytes_ += entry_bytes;
  run_.push_back(Entry{std::string(id), std::move(line)});
  if (held_bytes_ >= run_bytes_) return Spill();
  return Status::OK();
}

Status IdOrderedLines::Reserve(int64_t entry_bytes) {
  if (budget_ == nullptr || held_bytes_ + entry_bytes <= granted_bytes_) return Status::OK();
  // Grants come a quarter of the minimum run at a time, so a scan takes the
  // pool's lock about once per 256 KiB of lines, and not past its run_bytes.
  const int64_t shortfall = held_bytes_ + entry_bytes - granted_bytes_;
  const int64_t step = std::max(shortfall, std::min(MinRunBytes() / 4, run_bytes_ - granted_bytes_));
  if (budget_->TryReserve(step)) {
    granted_bytes_ += step;
    return Status::OK();
  }
  // The pool is spent. Waiting for another scan to give bytes back could
  // wait on a client that stopped reading; this run is spilled instead, and
  // the scan carries on within its guaranteed minimum.
  if (!run_.empty()) {
    budget_->CountEarlySpill();
    OG_RETURN_IF_ERROR(Spill());
  }
  if (entry_bytes > granted_bytes_) {
    // One entry larger than the minimum: an empty run must still take it.
    budget_->ReserveGuaranteed(entry_bytes - granted_bytes_);
    granted_bytes_ = entry_bytes;
  }
  return Status::OK();
}

void IdOrderedLines::SortRun() {
  std::sort(run_.begin(), run_.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
}

Status IdOrderedLines::Spill() {
  if (run_.empty()) return Status::OK();
  SortRun();
  int64_t bytes = 0;
  for (const Entry& entry : run_) bytes += static_cast<int64_t>(2 * sizeof(uint32_t) + entry.id.size() + entry.line.size());
  // Reserved before the first byte is written, and kept until the scan
  // ends: a partly written run occupies the disk all the same.
  if (budget_ != nullptr) OG_RETURN_IF_ERROR(budget_->ReserveScratch(bytes));
  scratch_bytes_ += bytes;
  if (!scratch_) {
    OG_ASSIGN_OR_RETURN(std::FILE* opened, OpenScratchFile());
    scratch_.reset(opened);
  }
  for (const Entry& entry : run_) {
    if (!WriteField(scratch_.get(), entry.id) || !WriteField(scratch_.get(), entry.line)) {
      return ScratchError("cannot write a run", errno);
    }
  }
  if (std::fflush(scratch_.get()) != 0) return ScratchError("cannot write a run", errno);
  runs_.push_back(Run{scratch_end_, bytes});
  scratch_end_ += bytes;
  run_.clear();
  run_.shrink_to_fit();
  held_bytes_ = 0;
  // The empty run keeps its minimum and gives the rest back to the pool,
  // for the other scans to grow into.
  if (budget_ != nullptr && granted_bytes_ > MinRunBytes()) {
    budget_->ReleaseResident(granted_bytes_ - MinRunBytes());
    granted_bytes_ = MinRunBytes();
  }
  return Status::OK();
}

Status IdOrderedLines::Drain(const std::function<Status(std::string_view line)>& emit) {
  Status status = Status::OK();
  if (runs_.empty()) {
    // Everything fit in one run: no scratch file at all.
    SortRun();
    for (const Entry& entry : run_) {
      status = emit(entry.line);
      if (!status.ok()) break;
    }
  } else {
    status = Spill();
    if (status.ok()) status = Merge(emit);
  }
  Release();
  return status;
}

Status IdOrderedLines::Merge(const std::function<Status(std::string_view line)>& emit) {
  // The runs' read buffers share one minimum run (what a budgeted scan
  // holds anyway at this point): up to 64 KiB each, and at least 1 KiB,
  // which passes the 1 MiB only beyond 1,024 runs (over 1 GiB spilled in
  // minimum-sized runs; a multi-pass merge would bound that too).
  const int64_t share = std::max(granted_bytes_, kOrderedScanMinRunBytes) / static_cast<int64_t>(runs_.size());
  const auto read_bytes = static_cast<size_t>(std::clamp(share, kMinMergeReadBytes, kMaxMergeReadBytes));
  const int fd = ::fileno(scratch_.get());
  std::vector<RunCursor> cursors;
  cursors.reserve(runs_.size());
  for (const Run& run : runs_) cursors.push_back(RunCursor{fd, run.offset, run.offset + run.bytes, read_bytes});
  // A k-way merge: each run's current entry in a min-heap by id.
  auto later = [&cursors](size_t a, size_t b) { return cursors[a].head.id > cursors[b].head.id; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> order(later);
  auto advance = [&](size_t i) -> Status {
    RunCursor& cursor = cursors[i];
    if (cursor.AtEnd()) return Status::OK();
    OG_RETURN_IF_ERROR(cursor.ReadField(&cursor.head.id));
    OG_RETURN_IF_ERROR(cursor.ReadField(&cursor.head.line));
    order.push(i);
    return Status::OK();
  };
  for (size_t i = 0; i < cursors.size(); ++i) OG_RETURN_IF_ERROR(advance(i));
  while (!order.empty()) {
    size_t i = order.top();
    order.pop();
    OG_RETURN_IF_ERROR(emit(cursors[i].head.line));
    OG_RETURN_IF_ERROR(advance(i));
  }
  return Status::OK();
}

void IdOrderedLines::Release() {
  run_.clear();
  run_.shrink_to_fit();
  held_bytes_ = 0;
  runs_.clear();
  scratch_.reset();
  scratch_end_ = 0;
  if (budget_ != nullptr) {
    budget_->ReleaseResident(granted_bytes_);
    budget_->ReleaseScratch(scratch_bytes_);
  }
  granted_bytes_ = 0;
  scratch_bytes_ = 0;
}

}  // namespace omnigraph::exec
