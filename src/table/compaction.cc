#include "table/compaction.h"

#include <set>

namespace omnigraph::table {
namespace {

void CollectIds(const Field& field, std::set<int32_t>* out) {
  out->insert(field.id);
  if (field.type) {
    for (const Field& child : field.type->children()) CollectIds(child, out);
  }
}

std::set<int32_t> SchemaIds(const Schema& schema) {
  std::set<int32_t> ids;
  for (const Field& field : schema.fields()) CollectIds(field, &ids);
  return ids;
}

bool HoldsIdsOutside(const std::set<int32_t>& ids, const lance::Fragment& fragment) {
  for (const lance::DataFile& file : fragment.files) {
    for (int32_t id : file.fields) {
      if (id >= 0 && ids.count(id) == 0) return true;  // negative ids are tombstones
    }
  }
  return false;
}

}  // namespace

uint64_t CompactionPlan::fragments_removed() const {
  uint64_t n = 0;
  for (const auto& group : groups) n += group.size();
  return n;
}

bool HoldsDroppedFields(const Schema& schema, const lance::Fragment& fragment) {
  return HoldsIdsOutside(SchemaIds(schema), fragment);
}

CompactionPlan PlanCompaction(const Dataset& base, const CompactionOptions& options) {
  const std::set<int32_t> ids = SchemaIds(*base.schema());
  CompactionPlan plan;
  std::vector<uint64_t> run;
  bool run_must_rewrite = false;
  auto close_run = [&] {
    if (run.size() >= 2 || (!run.empty() && run_must_rewrite)) plan.groups.push_back(run);
    run.clear();
    run_must_rewrite = false;
  };
  for (const lance::Fragment& f : base.manifest().fragments) {
    CompactionCandidate c;
    c.has_deletions = f.num_deleted_rows() > 0;
    c.small = f.num_rows() < options.target_rows_per_fragment;
    c.holds_dropped = HoldsIdsOutside(ids, f);
    if (!c.has_deletions && !c.small && !c.holds_dropped) {
      close_run();
      continue;
    }
    run.push_back(f.id);
    run_must_rewrite = run_must_rewrite || c.has_deletions || c.holds_dropped;
  }
  close_run();
  return plan;
}

}  // namespace omnigraph::table
