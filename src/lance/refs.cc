#include "lance/refs.h"

#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lance/versioning.h"

namespace omnigraph::lance {
namespace {

using nlohmann::json;

constexpr std::string_view kJsonSuffix = ".json";

Result<json> ParseObject(std::string_view text, std::string_view path) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return CorruptData(fmt::format("{}: not a JSON object", path));
  }
  return doc;
}

Result<uint64_t> RequireUnsigned(const json& doc, const char* key, std::string_view path) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_number_unsigned()) {
    if (it != doc.end() && it->is_number_integer() && it->get<int64_t>() >= 0) return it->get<uint64_t>();
    return CorruptData(fmt::format("{}: missing or non-numeric \"{}\"", path, key));
  }
  return it->get<uint64_t>();
}

Result<std::optional<std::string>> OptionalString(const json& doc, const char* key, std::string_view path) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return CorruptData(fmt::format("{}: \"{}\" is not a string", path, key));
  return std::optional<std::string>(it->get<std::string>());
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// `allow_utf8`: bytes of multi-byte UTF-8 sequences are allowed too (branch
// names may hold non-ASCII letters; the graph layer checks which).
Status ValidateSegment(std::string_view name, std::string_view whole, std::string_view kind, bool allow_utf8 = false) {
  if (name.empty()) return InvalidArgument(fmt::format("{} name '{}' has an empty segment", kind, whole));
  for (char c : name) {
    bool utf8_byte = allow_utf8 && static_cast<unsigned char>(c) >= 0x80;
    if (!IsNameChar(c) && !utf8_byte) return InvalidArgument(fmt::format("{} name '{}' contains '{}'", kind, whole, c));
  }
  if (name.front() == '.' || name.back() == '.') {
    return InvalidArgument(fmt::format("{} name '{}' starts or ends with '.'", kind, whole));
  }
  if (name.find("..") != std::string_view::npos) return InvalidArgument(fmt::format("{} name '{}' contains '..'", kind, whole));
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".lock") {
    return InvalidArgument(fmt::format("{} name '{}' ends with .lock", kind, whole));
  }
  return Status::OK();
}

std::string NowRfc3339() {
  auto now = std::chrono::system_clock::now();
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(nanos / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, nanos % 1'000'000'000);
}

}  // namespace

std::string EncodeTagRecord(const TagRecord& tag) {
  json doc = json::object();
  doc["branch"] = tag.branch ? json(*tag.branch) : json(nullptr);
  doc["version"] = tag.version;
  std::string created = tag.created_at.empty() ? NowRfc3339() : tag.created_at;
  doc["createdAt"] = created;
  doc["updatedAt"] = created;
  doc["manifestSize"] = tag.manifest_size;
  doc["metadata"] = json::object();
  return doc.dump();
}

Result<TagRecord> DecodeTagRecord(std::string_view text, std::string_view path) {
  OG_ASSIGN_OR_RETURN(json doc, ParseObject(text, path));
  TagRecord tag;
  OG_ASSIGN_OR_RETURN(tag.branch, OptionalString(doc, "branch", path));
  OG_ASSIGN_OR_RETURN(tag.version, RequireUnsigned(doc, "version", path));
  if (doc.contains("manifestSize")) {
    OG_ASSIGN_OR_RETURN(tag.manifest_size, RequireUnsigned(doc, "manifestSize", path));
  }
  OG_ASSIGN_OR_RETURN(auto created, OptionalString(doc, "createdAt", path));
  tag.created_at = created.value_or("");
  return tag;
}

std::string EncodeBranchRecord(const BranchRecord& branch) {
  json doc = json::object();
  doc["parentBranch"] = branch.parent_branch ? json(*branch.parent_branch) : json(nullptr);
  doc["identifier"] = json{{"version_mapping", json::array({json::array({branch.parent_version, branch.identifier})})}};
  doc["parentVersion"] = branch.parent_version;
  doc["createAt"] = branch.create_at;
  doc["manifestSize"] = branch.manifest_size;
  doc["metadata"] = json::object();
  return doc.dump();
}

Result<BranchRecord> DecodeBranchRecord(std::string_view text, std::string_view path) {
  OG_ASSIGN_OR_RETURN(json doc, ParseObject(text, path));
  BranchRecord branch;
  OG_ASSIGN_OR_RETURN(branch.parent_branch, OptionalString(doc, "parentBranch", path));
  OG_ASSIGN_OR_RETURN(branch.parent_version, RequireUnsigned(doc, "parentVersion", path));
  if (doc.contains("manifestSize")) {
    OG_ASSIGN_OR_RETURN(branch.manifest_size, RequireUnsigned(doc, "manifestSize", path));
  }
  if (auto it = doc.find("createAt"); it != doc.end() && it->is_number_integer()) branch.create_at = it->get<int64_t>();
  // identifier.version_mapping = [[version, "id"], ...]; the last entry names this lifetime.
  if (auto it = doc.find("identifier"); it != doc.end() && it->is_object()) {
    auto mapping = it->find("version_mapping");
    if (mapping != it->end() && mapping->is_array() && !mapping->empty()) {
      const json& last = mapping->back();
      if (last.is_array() && last.size() == 2 && last[1].is_string()) branch.identifier = last[1].get<std::string>();
    }
  }
  return branch;
}

Status ValidateTagName(std::string_view name) { return ValidateSegment(name, name, "tag"); }

Status ValidateBranchName(std::string_view name) {
  if (name.empty()) return InvalidArgument("branch name is empty");
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    OG_RETURN_IF_ERROR(ValidateSegment(name.substr(start, slash - start), name, "branch", /*allow_utf8=*/true));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::OK();
}

std::string TagRecordPath(std::string_view name) { return fmt::format("{}/{}.json", kTagsDir, name); }

std::string BranchRecordPath(std::string_view name) {
  std::string encoded;
  for (char c : name) {
    if (c == '/') {
      encoded += "%2F";
    } else {
      encoded += c;
    }
  }
  return fmt::format("{}/{}.json", kBranchesDir, encoded);
}

std::optional<std::string> BranchNameFromRecordFile(std::string_view file_name) {
  if (file_name.size() <= kJsonSuffix.size() || file_name.substr(file_name.size() - kJsonSuffix.size()) != kJsonSuffix) {
    return std::nullopt;
  }
  std::string_view stem = file_name.substr(0, file_name.size() - kJsonSuffix.size());
  std::string name;
  for (size_t i = 0; i < stem.size(); ++i) {
    if (stem.substr(i, 3) == "%2F" || stem.substr(i, 3) == "%2f") {
      name += '/';
      i += 2;
    } else {
      name += stem[i];
    }
  }
  return name;
}

std::optional<std::string> TagNameFromRecordFile(std::string_view file_name) {
  if (file_name.size() <= kJsonSuffix.size() || file_name.substr(file_name.size() - kJsonSuffix.size()) != kJsonSuffix) {
    return std::nullopt;
  }
  return std::string(file_name.substr(0, file_name.size() - kJsonSuffix.size()));
}

}  // namespace omnigraph::lance
