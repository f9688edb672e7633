#include "graph/history/history_segments.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <simdjson.h>

#include "util/checksum.h"
#include "util/json_text.h"
#include "util/ulid.h"

namespace omnigraph::graph {
namespace {

constexpr std::string_view kFormat = "omnigraph.history_segment.v1";

void AppendMember(std::string* out, std::string_view name, bool* first) {
  out->push_back(*first ? '{' : ',');
  *first = false;
  AppendJsonString(out, name);
  out->push_back(':');
}

void AppendOptional(std::string* out, std::string_view name, const std::optional<std::string>& value, bool* first) {
  AppendMember(out, name, first);
  if (value) {
    AppendJsonString(out, *value);
  } else {
    out->append("null");
  }
}

// One record as a JSON object on one line (keys as CommitOutput names them).
void AppendRecordLine(std::string* out, const CommitRecord& c) {
  bool first = true;
  AppendMember(out, "graph_commit_id", &first);
  AppendJsonString(out, c.id);
  AppendOptional(out, "graph_branch", c.graph_branch, &first);
  AppendOptional(out, "native_branch", c.native_branch, &first);
  AppendMember(out, "graph_manifest_version", &first);
  out->append(std::to_string(c.manifest_version));
  AppendOptional(out, "parent_commit_id", c.parent_id, &first);
  AppendOptional(out, "merged_parent_commit_id", c.merged_parent_id, &first);
  AppendOptional(out, "actor_id", c.actor_id, &first);
  AppendMember(out, "created_at", &first);
  out->append(std::to_string(c.created_at_us));
  AppendMember(out, "generation", &first);
  out->append(std::to_string(c.generation));
  AppendMember(out, "block", &first);
  AppendJsonString(out, c.block);
  AppendMember(out, "slot", &first);
  out->append(std::to_string(c.slot));
  out->append("}\n");
}

Status Malformed(std::string_view where, size_t line, std::string_view what) {
  return CorruptData(fmt::format("{}: history segment line {}: {}", where, line, what));
}

// Reads an optional string member: absent and null are both nullopt.
bool OptionalText(simdjson::dom::object& object, std::string_view key, std::optional<std::string>* out) {
  simdjson::dom::element value;
  if (object[key].get(value) != simdjson::SUCCESS || value.is_null()) return true;
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) return false;
  *out = std::string(text);
  return true;
}

bool RequiredU64(simdjson::dom::object& object, std::string_view key, uint64_t* out) {
  return object[key].get_uint64().get(*out) == simdjson::SUCCESS;
}

Result<CommitRecord> DecodeRecordLine(simdjson::dom::parser& parser, std::string_view line, std::string_view where,
                                      size_t line_number) {
  simdjson::dom::element doc;
  if (parser.parse(line.data(), line.size()).get(doc) != simdjson::SUCCESS) {
    return Malformed(where, line_number, "not a JSON object");
  }
  simdjson::dom::object object;
  if (doc.get_object().get(object) != simdjson::SUCCESS) return Malformed(where, line_number, "not a JSON object");
  CommitRecord c;
  std::string_view id, block;
  uint64_t created_at = 0, slot = 0;
  bool ok = object["graph_commit_id"].get_string().get(id) == simdjson::SUCCESS &&
            OptionalText(object, "graph_branch", &c.graph_branch) &&
            OptionalText(object, "native_branch", &c.native_branch) &&
            RequiredU64(object, "graph_manifest_version", &c.manifest_version) &&
            OptionalText(object, "parent_commit_id", &c.parent_id) &&
            OptionalText(object, "merged_parent_commit_id", &c.merged_parent_id) &&
            OptionalText(object, "actor_id", &c.actor_id) && RequiredU64(object, "created_at", &created_at) &&
            RequiredU64(object, "generation", &c.generation) &&
            object["block"].get_string().get(block) == simdjson::SUCCESS && RequiredU64(object, "slot", &slot);
  if (!ok) return Malformed(where, line_number, "a commit record field is missing or has the wrong type");
  c.id = std::string(id);
  c.block = std::string(block);
  c.created_at_us = static_cast<int64_t>(created_at);
  c.slot = static_cast<uint32_t>(slot);
  return c;
}

// Estimated encoded size of a record (for the buffer's byte bound).
size_t EncodedSize(const CommitRecord& c) {
  std::string line;
  AppendRecordLine(&line, c);
  return line.size();
}

}  // namespace

std::string EncodeHistorySegment(const HistorySegment& segment) {
  std::string out;
  out.reserve(256 + segment.records.size() * 320);
  bool first = true;
  AppendMember(&out, "format", &first);
  AppendJsonString(&out, kFormat);
  AppendMember(&out, "id", &first);
  AppendJsonString(&out, segment.id);
  AppendMember(&out, "level", &first);
  out.append(std::to_string(segment.level));
  AppendMember(&out, "parents", &first);
  out.push_back('[');
  for (size_t i = 0; i < segment.parents.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(&out, segment.parents[i]);
  }
  out.push_back(']');
  AppendMember(&out, "count", &first);
  out.append(std::to_string(segment.records.size()));
  out.append("}\n");
  for (const CommitRecord& c : segment.records) AppendRecordLine(&out, c);
  out.append(fmt::format("{{\"checksum\":\"{:016x}\"}}\n", Checksum64(out)));
  return out;
}

Result<HistorySegment> DecodeHistorySegment(std::string_view bytes, std::string_view where) {
  // The checksum line is the last line; it covers every byte before it.
  if (bytes.size() < 2 || bytes.back() != '\n') return CorruptData(fmt::format("{}: history segment is truncated", where));
  size_t last = bytes.rfind('\n', bytes.size() - 2);
  if (last == std::string_view::npos) return CorruptData(fmt::format("{}: history segment is truncated", where));
  std::string_view body = bytes.substr(0, last + 1);
  std::string_view footer = bytes.substr(last + 1, bytes.size() - last - 2);
  constexpr std::string_view kPrefix = "{\"checksum\":\"";
  if (footer.size() != kPrefix.size() + 18 || footer.substr(0, kPrefix.size()) != kPrefix ||
      footer.substr(kPrefix.size() + 16) != "\"}") {
    return CorruptData(fmt::format("{}: history segment has no checksum line", where));
  }
  uint64_t stored = 0;
  std::string_view hex = footer.substr(kPrefix.size(), 16);
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), stored, 16);
  if (ec != std::errc() || end != hex.data() + hex.size() || stored != Checksum64(body)) {
    return CorruptData(fmt::format("{}: history segment checksum mismatch (damaged file)", where));
  }

  simdjson::dom::parser parser;
  HistorySegment segment;
  size_t line_number = 0, start = 0;
  uint64_t count = 0;
  while (start < body.size()) {
    size_t newline = body.find('\n', start);
    std::string_view line = body.substr(start, newline - start);
    start = newline + 1;
    ++line_number;
    if (line_number == 1) {
      simdjson::dom::element doc;
      simdjson::dom::object header;
      std::string_view format, id;
      uint64_t level = 0;
      simdjson::dom::array parents;
      bool ok = parser.parse(line.data(), line.size()).get(doc) == simdjson::SUCCESS &&
                doc.get_object().get(header) == simdjson::SUCCESS &&
                header["format"].get_string().get(format) == simdjson::SUCCESS && format == kFormat &&
                header["id"].get_string().get(id) == simdjson::SUCCESS &&
                RequiredU64(header, "level", &level) && RequiredU64(header, "count", &count) &&
                header["parents"].get_array().get(parents) == simdjson::SUCCESS;
      if (!ok) return Malformed(where, line_number, "not a history segment header");
      segment.id = std::string(id);
      segment.level = static_cast<uint32_t>(level);
      for (simdjson::dom::element parent : parents) {
        std::string_view parent_id;
        if (parent.get_string().get(parent_id) != simdjson::SUCCESS) {
          return Malformed(where, line_number, "a parent segment id is not text");
        }
        segment.parents.emplace_back(parent_id);
      }
      segment.records.reserve(count);
      continue;
    }
    OG_ASSIGN_OR_RETURN(CommitRecord record, DecodeRecordLine(parser, line, where, line_number));
    segment.records.push_back(std::move(record));
  }
  if (line_number == 0) return CorruptData(fmt::format("{}: history segment has no header", where));
  if (segment.records.size() != count) {
    return CorruptData(fmt::format("{}: history segment holds {} records, its header says {}", where,
                                   segment.records.size(), count));
  }
  return segment;
}

std::string HistoryStore::Key(std::string_view id) const { return JoinPath(root_, layout::HistorySegment(id)); }

Result<HistorySegmentPtr> HistoryStore::Read(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = cache_.find(id); it != cache_.end()) return it->second;
  }
  std::string key = Key(id);
  auto bytes = store_->Get(key);
  if (!bytes.ok()) {
    if (bytes.status().code() == ErrorCode::kNotFound) {
      return Status(ErrorCode::kVersionReclaimed,
                    fmt::format("history segment '{}' is gone: reclaimed by a cleanup, or removed from the store", id),
                    {{"kind", "history_gap"}, {"segment", id}});
    }
    return bytes.status();
  }
  OG_ASSIGN_OR_RETURN(HistorySegment segment, DecodeHistorySegment((*bytes)->view(), key));
  if (segment.id != id) return CorruptData(fmt::format("{}: holds segment '{}'", key, segment.id));
  auto shared = std::make_shared<const HistorySegment>(std::move(segment));
  Remember(shared);
  return shared;
}

void HistoryStore::Remember(HistorySegmentPtr segment) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cache_.size() >= kCachedSegments) cache_.erase(cache_.begin());
  cache_[segment->id] = std::move(segment);
}

Status HistoryStore::Write(const HistorySegment& segment, std::vector<std::string>* unsynced) {
  std::string key = Key(segment.id);
  WriteOptions options;
  options.durable = false;  // synced with the publication that names it
  options.direct = true;    // nobody reads it before a durable manifest names it
  OG_RETURN_IF_ERROR(store_->PutIfAbsent(key, EncodeHistorySegment(segment), options));
  unsynced->push_back(key);
  return Status::OK();
}

Result<SettledHistory> SettleHistory(HistoryStore& history, const GraphState& base, const CommitRecord& previous_head,
                                     const std::vector<CommitRecord>& imported,
                                     const std::vector<std::string>& imported_segments) {
  SettledHistory out;
  out.settled = base.settled;
  out.settled.push_back(previous_head);
  out.settled.insert(out.settled.end(), imported.begin(), imported.end());
  out.segments = base.history_segments;
  for (const std::string& id : imported_segments) {
    if (std::find(out.segments.begin(), out.segments.end(), id) == out.segments.end()) out.segments.push_back(id);
  }
  size_t bytes = 0;
  for (const CommitRecord& c : out.settled) bytes += EncodedSize(c);
  if (out.settled.size() <= kHistoryBufferCommits && bytes <= kHistoryBufferBytes &&
      out.segments.size() <= kMaxHistoryTips) {
    return out;
  }
  // Archive the buffer. A segment with one parent absorbs it while the
  // parent's level is not higher, so a linear history keeps about log2(n)
  // segments and no publication rewrites more than kMaxSegmentRecords.
  auto segment = std::make_shared<HistorySegment>();
  segment->id = Ulid::New().ToString();
  segment->parents = std::move(out.segments);
  segment->records = std::move(out.settled);
  while (segment->parents.size() == 1) {
    OG_ASSIGN_OR_RETURN(HistorySegmentPtr parent, history.Read(segment->parents[0]));
    if (parent->level > segment->level || parent->records.size() + segment->records.size() > kMaxSegmentRecords) break;
    std::vector<CommitRecord> records = parent->records;
    records.insert(records.end(), segment->records.begin(), segment->records.end());
    segment->records = std::move(records);
    segment->parents = parent->parents;
    segment->level = std::max(parent->level, segment->level) + 1;
  }
  out.settled.clear();
  out.segments = {segment->id};
  out.new_segment = std::move(segment);
  return out;
}

}  // namespace omnigraph::graph
