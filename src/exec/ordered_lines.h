// Lines keyed by entity id, handed back in ascending id order with bounded
// memory: an external merge sort (spec/engine.md Appendix A, "ordered scan":
// sorted runs of about 32 MiB spilled to scratch files, then merged). Export
// renders each row's line as it scans a table batch by batch, and emits the
// table in id order without holding the table.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::exec {

// Bytes of ids and lines a run holds before it is sorted and spilled.
inline constexpr int64_t kOrderedRunBytes = int64_t{32} << 20;

class IdOrderedLines {
 public:
  // `run_bytes`: see kOrderedRunBytes (tests make it small to force spills).
  explicit IdOrderedLines(int64_t run_bytes = kOrderedRunBytes);
  ~IdOrderedLines();
  IdOrderedLines(const IdOrderedLines&) = delete;
  IdOrderedLines& operator=(const IdOrderedLines&) = delete;

  // Adds `line` under `id` (ids are unique within one table). Errors:
  // IoError when a full run cannot be written to the scratch directory
  // (std::filesystem::temp_directory_path: $TMPDIR, else /tmp).
  Status Add(std::string_view id, std::string line);

  // Hands every line to `emit`, in ascending id order (byte order), and
  // empties this. Stops at, and returns, the first error of `emit`.
  // Errors: IoError reading a spilled run back.
  Status Drain(const std::function<Status(std::string_view line)>& emit);

  // Runs written to scratch files so far (for tests and diagnostics).
  size_t spilled_runs() const { return runs_.size(); }

 private:
  struct Entry {
    std::string id;
    std::string line;
  };
  struct CloseFile {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  using File = std::unique_ptr<std::FILE, CloseFile>;

  void SortRun();
  Status Spill();

  int64_t run_bytes_;
  std::vector<Entry> run_;
  int64_t held_bytes_ = 0;
  // Each an unlinked scratch file: the kernel frees it when closed, also
  // when the process dies.
  std::vector<File> runs_;
};

}  // namespace omnigraph::exec
