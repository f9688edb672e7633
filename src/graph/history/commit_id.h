// Graph commit ids (spec/engine.md §2.2; spec/branches.md BR-4.2).
//
// Genesis is a canonical ULID. Every later commit is
// "hb1.<block>.<slot>.<nonce>": the nonce is minted with the write intent
// before any effect, the block and slot place the commit in its branch's
// history. Ids are opaque to clients and do not sort as strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "graph/manifest/graph_state.h"
#include "util/status.h"

namespace omnigraph::graph {

inline constexpr uint32_t kHistoryBlockSlots = 16384;

// "hb1.<block>.<slot>.<nonce>".
std::string MakeCommitId(std::string_view block, uint32_t slot, std::string_view nonce);

// The nonce an hb1 id wraps ("hb1.<block>.<slot>.<nonce>"); empty for any
// other text (a genesis id has no nonce of its own). A commit is also found
// by its nonce alone.
std::string_view NonceOf(std::string_view id);

// Checks an id a caller supplied: anything starting with "hb1." must be
// exactly "hb1.<ULID>.<slot>.<ULID>" with a decimal slot below
// kHistoryBlockSlots and no leading zeros; other text passes (a genesis ULID,
// an intent nonce, or an id that simply names no commit).
// Errors: InvalidArgument "invalid canonical history-block commit id '<id>':
// <what is wrong>" (BR-7, HTTP 400).
Status ValidateCommitId(std::string_view id);

// The block and slot of a commit published by incarnation `native_ref` on
// top of `parent` (BR-4.2): it continues the parent's block when the parent
// is an hb1 commit of the same incarnation with room for one more slot, and
// opens a block named by its own nonce otherwise.
struct CommitAddress {
  std::string block;
  uint32_t slot = 0;
};
CommitAddress NextCommitAddress(const CommitRecord& parent, std::string_view native_ref, std::string_view nonce);

}  // namespace omnigraph::graph
