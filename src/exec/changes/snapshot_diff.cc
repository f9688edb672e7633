#include "exec/changes/snapshot_diff.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace omnigraph::exec {

std::vector<LifetimePair> PairLifetimes(const graph::GraphState& from, const graph::GraphState& to) {
  std::map<graph::TableIdentity, LifetimePair> pairs;
  for (const auto& [key, entry] : from.tables) pairs[entry.identity].before = &entry;
  for (const auto& [key, entry] : to.tables) pairs[entry.identity].after = &entry;
  std::vector<LifetimePair> out;
  out.reserve(pairs.size());
  for (const auto& [identity, pair] : pairs) out.push_back(pair);
  return out;
}

namespace {

// Where a lifetime sorts among those sharing its table key (kTableKey): the
// one that left the name before the one that kept it, before the one that
// took it.
int LifetimeRank(const LifetimePair& pair) {
  if (pair.after == nullptr) return 0;
  return pair.before == nullptr ? 2 : 1;
}

}  // namespace

Result<SnapshotDiff> SnapshotDiff::Compute(const graph::Snapshot& from, const graph::Snapshot& to,
                                           const ChangeFilter& filter, ChangeOrder order) {
  struct Compared {
    TableDiff diff;
    std::string table_key;
    int rank;
  };
  std::vector<Compared> compared;
  for (const LifetimePair& pair : PairLifetimes(from.state(), to.state())) {
    if (pair.before && pair.after && pair.before->pin == pair.after->pin &&
        pair.before->location == pair.after->location) {
      continue;  // one immutable version on both sides: nothing changed
    }
    const graph::TableEntry& named = pair.after ? *pair.after : *pair.before;
    EntityKind kind = named.is_node() ? EntityKind::kNode : EntityKind::kEdge;
    if (!filter.AdmitsTable(kind, named.type_name())) continue;
    OG_ASSIGN_OR_RETURN(TableDiff diff, TableDiff::Compare({&from, pair.before}, {&to, pair.after}, filter));
    if (diff.size() == 0) continue;
    compared.push_back(Compared{std::move(diff), named.table_key, LifetimeRank(pair)});
  }

  auto type_of = [](const TableDiff& d) { return std::make_tuple(d.kind(), std::string_view(d.type().id)); };
  if (order == ChangeOrder::kCommit) {
    std::stable_sort(compared.begin(), compared.end(),
                     [&](const Compared& a, const Compared& b) { return type_of(a.diff) < type_of(b.diff); });
  } else {
    std::stable_sort(compared.begin(), compared.end(), [](const Compared& a, const Compared& b) {
      return std::tie(a.table_key, a.rank) < std::tie(b.table_key, b.rank);
    });
  }

  SnapshotDiff out;
  std::vector<size_t> first_ref;  // per table: where its changes start in order_
  for (size_t t = 0; t < compared.size(); ++t) {
    first_ref.push_back(out.order_.size());
    for (size_t r = 0; r < compared[t].diff.size(); ++r) out.order_.push_back(Ref{t, r});
    out.tables_.push_back(std::move(compared[t].diff));
  }
  first_ref.push_back(out.order_.size());
  if (order == ChangeOrder::kCommit) {
    // Two lifetimes of one type id (dropped and added again within one
    // commit) interleave by entity id, then op, as the frozen order says.
    size_t group = 0;
    while (group < out.tables_.size()) {
      size_t next = group + 1;
      while (next < out.tables_.size() && type_of(out.tables_[next]) == type_of(out.tables_[group])) ++next;
      if (next - group > 1) {
        std::sort(out.order_.begin() + static_cast<std::ptrdiff_t>(first_ref[group]),
                  out.order_.begin() + static_cast<std::ptrdiff_t>(first_ref[next]),
                  [&out](const Ref& a, const Ref& b) {
                    const TableDiff& x = out.tables_[a.table];
                    const TableDiff& y = out.tables_[b.table];
                    return std::make_tuple(x.id(a.row), x.op(a.row)) < std::make_tuple(y.id(b.row), y.op(b.row));
                  });
      }
      group = next;
    }
  }
  return out;
}

ChangeKey SnapshotDiff::KeyAt(size_t i) const {
  const TableDiff& table = tables_[order_[i].table];
  size_t row = order_[i].row;
  return ChangeKey{table.kind(), table.type().id, std::string(table.id(row)), table.op(row)};
}

size_t SnapshotDiff::PositionAfter(const ChangeKey& key) const {
  auto after = std::partition_point(order_.begin(), order_.end(), [&](const Ref& ref) {
    const TableDiff& table = tables_[ref.table];
    return std::make_tuple(table.kind(), std::string_view(table.type().id), table.id(ref.row), table.op(ref.row)) <=
           std::make_tuple(key.kind, std::string_view(key.type_id), std::string_view(key.id), key.op);
  });
  return static_cast<size_t>(after - order_.begin());
}

Result<ChangeSet> DiffSnapshots(const graph::Snapshot& from, const graph::Snapshot& to, const ChangeFilter& filter) {
  OG_ASSIGN_OR_RETURN(SnapshotDiff diff, SnapshotDiff::Compute(from, to, filter, ChangeOrder::kTableKey));
  ChangeSet set;
  set.from_commit_id = from.head().id;
  set.to_commit_id = to.head().id;
  set.changes.reserve(diff.size());
  for (size_t i = 0; i < diff.size(); ++i) {
    set.changes.push_back(diff.Render(i));
    switch (set.changes.back().op) {
      case ChangeOp::kInsert: ++set.stats.inserts; break;
      case ChangeOp::kUpdate: ++set.stats.updates; break;
      case ChangeOp::kDelete: ++set.stats.deletes; break;
    }
  }
  return set;
}

}  // namespace omnigraph::exec
