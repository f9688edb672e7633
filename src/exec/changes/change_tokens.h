// Feed cursors and page tokens (spec/branches.md BR-10.1, BR-10.2).
//
// All three are opaque to callers and held by them: the engine keeps no
// state between polls, so any process can resume any position. Each is
// self-describing (its kind is part of it, so one kind offered as another
// is told apart), bound to what it may resume (a cursor and a feed page
// token to the graph, the branch incarnation and the filter; a commit
// page token to its commit and filter), and checksummed so that damaged or
// hand-edited text is refused instead of misread. They are not secrets and
// carry no authority: everything they name is checked again on use.
//
//   cursor             durable; "resume after commit C" (only at a block
//                      boundary, so a consumer never checkpoints half a commit)
//   feed page token    continues one poll: its start, its cut (the last
//                      commit it covers) and where the previous page ended,
//                      possibly inside a block
//   commit page token  continues one `commit changes` listing after a change
//
// Encoding: base64url (no padding) of compact JSON followed by its 64-bit
// checksum. Encoding is deterministic: the same position always encodes to
// the same text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "exec/changes/change.h"

namespace omnigraph::exec {

// What a feed position is bound to.
struct FeedScope {
  std::string graph;        // the graph's identity: its genesis commit id
  std::string incarnation;  // the branch's native ref ("main", "{logical}.{ULID}")
  std::string filter;       // ChangeFilter::Fingerprint
  bool operator==(const FeedScope&) const = default;
};

struct FeedCursor {
  FeedScope scope;
  std::string after;  // resume after this commit of the first-parent chain
};

struct FeedPageToken {
  FeedScope scope;
  std::string poll_start;  // the commit the poll started after
  std::string cut;         // the last commit the poll covers
  std::string after;       // the last commit whose block was delivered whole
  // The last change delivered of the block after `after`, when the
  // previous page ended inside it.
  std::optional<ChangeKey> inside;
};

struct CommitPageToken {
  std::string commit;  // graph commit id
  std::string filter;  // ChangeFilter::Fingerprint
  ChangeKey after;     // the last change delivered
};

std::string EncodeFeedCursor(const FeedCursor& cursor);
std::string EncodeFeedPageToken(const FeedPageToken& token);
std::string EncodeCommitPageToken(const CommitPageToken& token);

// The decoders check kind and binding. Every error is ChangeCursorRejected
// (400) with message "change cursor rejected: <reason>", the reason being
// one of: "not a change cursor or page token (<what is wrong>)"; "a page
// token cannot be used as a cursor" (and the other cross-uses); "it belongs
// to another graph"; "it was issued for branch '<b>', not '<c>'"; "it was
// issued for another incarnation of branch '<b>' (the branch was deleted
// and created again)"; "it was issued for a different filter"; "it was
// issued for another commit".
Result<FeedCursor> DecodeFeedCursor(std::string_view text, const FeedScope& expected);
Result<FeedPageToken> DecodeFeedPageToken(std::string_view text, const FeedScope& expected);
Result<CommitPageToken> DecodeCommitPageToken(std::string_view text, std::string_view commit, std::string_view filter);

// ChangeCursorRejected "change cursor rejected: <reason>".
Status CursorRejected(std::string_view reason);

}  // namespace omnigraph::exec
