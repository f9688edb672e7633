#include "graph/history/commit_id.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/ulid.h"
#include "util/utf8.h"

namespace omnigraph::graph {

std::string MakeCommitId(std::string_view block, uint32_t slot, std::string_view nonce) {
  return fmt::format("hb1.{}.{}.{}", block, slot, nonce);
}

Status ValidateCommitId(std::string_view id) {
  constexpr std::string_view kPrefix = "hb1.";
  if (id.substr(0, kPrefix.size()) != kPrefix) return Status::OK();
  auto malformed = [&](std::string_view why) {
    return InvalidArgument(fmt::format("invalid canonical history-block commit id '{}': {} (expected "
                                       "hb1.<block>.<slot>.<nonce>)",
                                       utf8::ShortenForMessage(id), why));
  };
  std::string_view rest = id.substr(kPrefix.size());
  size_t first = rest.find('.');
  size_t second = first == std::string_view::npos ? first : rest.find('.', first + 1);
  if (second == std::string_view::npos) return malformed("it does not have four dot-separated parts");
  std::string_view block = rest.substr(0, first);
  std::string_view slot = rest.substr(first + 1, second - first - 1);
  std::string_view nonce = rest.substr(second + 1);
  if (!IsCanonicalUlid(block)) return malformed("the block is not a canonical ULID");
  if (!IsCanonicalUlid(nonce)) return malformed("the nonce is not a canonical ULID");
  bool digits = !slot.empty() && slot.size() <= 5 &&
                std::all_of(slot.begin(), slot.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (slot.size() > 1 && slot[0] == '0') || std::stoul(std::string(slot)) >= kHistoryBlockSlots) {
    return malformed(fmt::format("the slot must be a decimal number below {} without leading zeros", kHistoryBlockSlots));
  }
  return Status::OK();
}

CommitAddress NextCommitAddress(const CommitRecord& parent, std::string_view native_ref, std::string_view nonce) {
  bool continues = !parent.block.empty() && parent.id.rfind("hb1.", 0) == 0 && parent.NativeRef() == native_ref &&
                   parent.slot + 1 < kHistoryBlockSlots;
  if (continues) return CommitAddress{parent.block, parent.slot + 1};
  return CommitAddress{std::string(nonce), 0};
}

std::string_view NonceOf(std::string_view id) {
  if (id.rfind("hb1.", 0) != 0) return {};
  size_t dot = id.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : id.substr(dot + 1);
}

}  // namespace omnigraph::graph
