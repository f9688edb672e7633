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

// Reads one length-prefixed field; false at a clean end of file.
Result<bool> ReadField(std::FILE* file, std::string* out) {
  uint32_t size = 0;
  if (std::fread(&size, sizeof(size), 1, file) != 1) {
    if (std::feof(file)) return false;
    return ScratchError("cannot read a run back", errno);
  }
  out->resize(size);
  if (size > 0 && std::fread(out->data(), 1, size, file) != size) {
    return ScratchError("a run ends mid-record", std::ferror(file) ? errno : EIO);
  }
  return true;
}

}  // namespace

IdOrderedLines::IdOrderedLines(int64_t run_bytes) : run_bytes_(std::max<int64_t>(run_bytes, 1)) {}

IdOrderedLines::~IdOrderedLines() = default;

Status IdOrderedLines::Add(std::string_view id, std::string line) {
  held_bytes_ += static_cast<int64_t>(id.size() + line.size()) + kEntryOverhead;
  run_.push_back(Entry{std::string(id), std::move(line)});
  if (held_bytes_ >= run_bytes_) return Spill();
  return Status::OK();
}

void IdOrderedLines::SortRun() {
  std::sort(run_.begin(), run_.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
}

Status IdOrderedLines::Spill() {
  if (run_.empty()) return Status::OK();
  SortRun();
  OG_ASSIGN_OR_RETURN(std::FILE* opened, OpenScratchFile());
  File file(opened);
  for (const Entry& entry : run_) {
    if (!WriteField(file.get(), entry.id) || !WriteField(file.get(), entry.line)) {
      return ScratchError("cannot write a run", errno);
    }
  }
  if (std::fflush(file.get()) != 0 || std::fseek(file.get(), 0, SEEK_SET) != 0) {
    return ScratchError("cannot write a run", errno);
  }
  runs_.push_back(std::move(file));
  run_.clear();
  run_.shrink_to_fit();
  held_bytes_ = 0;
  return Status::OK();
}

Status IdOrderedLines::Drain(const std::function<Status(std::string_view line)>& emit) {
  if (runs_.empty()) {
    // Everything fit in one run: no scratch file at all.
    SortRun();
    std::vector<Entry> run = std::move(run_);
    run_.clear();
    held_bytes_ = 0;
    for (const Entry& entry : run) OG_RETURN_IF_ERROR(emit(entry.line));
    return Status::OK();
  }
  OG_RETURN_IF_ERROR(Spill());
  // A k-way merge: each run's current entry in a min-heap by id.
  std::vector<File> runs = std::move(runs_);
  runs_.clear();
  std::vector<Entry> heads(runs.size());
  auto later = [&heads](size_t a, size_t b) { return heads[a].id > heads[b].id; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> order(later);
  auto advance = [&](size_t i) -> Status {
    OG_ASSIGN_OR_RETURN(bool more, ReadField(runs[i].get(), &heads[i].id));
    if (!more) return Status::OK();
    OG_ASSIGN_OR_RETURN(bool line, ReadField(runs[i].get(), &heads[i].line));
    if (!line) return ScratchError("a run ends mid-record", EIO);
    order.push(i);
    return Status::OK();
  };
  for (size_t i = 0; i < runs.size(); ++i) OG_RETURN_IF_ERROR(advance(i));
  while (!order.empty()) {
    size_t i = order.top();
    order.pop();
    OG_RETURN_IF_ERROR(emit(heads[i].line));
    OG_RETURN_IF_ERROR(advance(i));
  }
  return Status::OK();
}

}  // namespace omnigraph::exec
