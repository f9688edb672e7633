#include "graph/maintenance/collector.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <fmt/format.h>

#include "graph/history/history_segments.h"
#include "graph/layout.h"
#include "graph/maintenance/inventory.h"
#include "graph/write/write_txn.h"
#include "lance/data_file.h"
#include "util/failpoint.h"
#include "util/failpoint_names.h"
#include "util/ulid.h"

namespace omnigraph::graph {
namespace {

using collector::ManifestTree;
using collector::ManifestVersionFacts;
using collector::RefView;
using collector::TableDir;
using collector::TableVersionFacts;

constexpr int64_t kNanosPerSecond = 1'000'000'000;

// One live branch head: its tree, snapshot state and commit graph.
struct LiveHead {
  std::string ref;
  std::shared_ptr<const GraphState> state;
  CommitGraphPtr commits;
};

// What a table's sweep will do.
struct TablePlan {
  TableDir dir;
  std::string type_key;
  std::set<uint64_t> roots;
  std::set<uint64_t> named;  // staged versions some decoded __manifest version names
  uint64_t last_linear = 0;  // highest last_linear_version any pin records (0: none)
  std::vector<uint64_t> published_sweep;  // in deletion order
  std::set<uint64_t> unpublished_sweep;
  std::vector<std::string> orphans;
  std::optional<std::string> error;
};

// What a __manifest tree's sweep will do.
struct TreePlan {
  ManifestTree* tree = nullptr;
  bool live = false;
  std::set<uint64_t> retained;
  std::vector<uint64_t> sweep;              // non-retained versions, ascending
  std::set<uint64_t> unpublished;           // of sweep: detached versions (dead proposals)
  bool reclaim_whole_tree = false;          // a retired tree nothing retains
  std::vector<std::string> orphans;
};

// Adds the pins of `state` to the table plans: roots when `retained`, and
// every staged version to the published set either way.
void NoteState(const GraphState& state, bool retained, std::map<std::string, TablePlan>* tables) {
  for (const auto& [key, entry] : state.tables) {
    TablePlan& plan = (*tables)[entry.location];
    if (plan.type_key.empty()) plan.type_key = key;
    if (retained) plan.roots.insert(entry.pin.LanceVersion());
    if (entry.pin.staged_version) plan.named.insert(*entry.pin.staged_version);
    plan.last_linear = std::max(plan.last_linear, entry.pin.last_linear_version);
  }
}

// The unix milliseconds of the ULID suffix of a native ref name.
std::optional<int64_t> IncarnationMillis(const std::string& ref) {
  size_t dot = ref.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  Ulid ulid;
  if (!IsCanonicalUlid(std::string_view(ref).substr(dot + 1)) || !Ulid::Parse(ref.substr(dot + 1), &ulid)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(ulid.unix_ms());
}

// Whether the staging a detached table version records is provably dead:
// its branch incarnation is gone from the live inventory, or that
// branch's head moved strictly past the head it was staged against.
bool StagingIsDead(const TableVersionFacts& v, const std::map<std::string, LiveHead>& heads) {
  auto incarnation = v.properties.find(std::string(kStagedAgainstBranchIncarnation));
  auto staged_head = v.properties.find(std::string(kStagedAgainstGraphHead));
  if (incarnation == v.properties.end() || staged_head == v.properties.end()) return false;  // undecidable
  auto live = heads.find(incarnation->second);
  if (live == heads.end()) return true;  // the incarnation is retired
  if (live->second.state->head.id == staged_head->second) return false;  // a writer may still publish it
  return Reaches(*live->second.commits, staged_head->second);
}

// Whether a proposal's detached __manifest version is provably dead: its
// target is retired or its head moved past the captured head.
bool ProposalIsDead(const ProposalRecipe& recipe, const std::map<std::string, LiveHead>& heads) {
  auto live = heads.find(recipe.target.name);
  if (live == heads.end()) return true;
  if (live->second.state->head.id == recipe.captured_head) return false;
  return Reaches(*live->second.commits, recipe.captured_head);
}

// Whether a manifest names `key`, or `key` is a blob sidecar (written by
// Lance) of a data file one names.
bool NamedOrSidecarOfNamed(const std::set<std::string>& named, const std::string& key) {
  if (named.count(key)) return true;
  const std::string owner = lance::BlobSidecarOwner(key);
  return !owner.empty() && named.count(owner) > 0;
}

// Plans one table: which versions go, in which order, and the orphans.
// Errors: those of completing a version's file list (inventory.h).
Status PlanTable(GraphStore& graph, TablePlan& plan, const std::map<std::string, LiveHead>& heads,
                 int64_t now_nanos) {
  const auto& versions = plan.dir.versions;
  // The published set: named versions plus the unnamed links below them.
  std::set<uint64_t> published;
  for (uint64_t v : plan.named) {
    if (!versions.count(v)) continue;  // already reclaimed
    published.insert(v);
    uint64_t link = versions.at(v).read_version;
    while (lance::IsDetachedVersion(link) && versions.count(link) && !plan.named.count(link) &&
           published.insert(link).second) {
      link = versions.at(link).read_version;
    }
  }
  std::set<uint64_t> candidates;
  for (const auto& [v, facts] : versions) {
    if (!facts.detached || plan.roots.count(v)) continue;
    if (published.count(v)) {
      candidates.insert(v);
    } else if (StagingIsDead(facts, heads)) {
      candidates.insert(v);
      plan.unpublished_sweep.insert(v);
    }
  }
  // Oldest link first: a version goes after the candidate it was staged on.
  // A chain of one-row writes can be thousands of links long, so depths
  // are found by walking down to a known depth, not by recursion.
  std::map<uint64_t, size_t> depth;
  std::vector<uint64_t> order(candidates.begin(), candidates.end());
  for (uint64_t v : order) {
    std::vector<uint64_t> walk;
    std::set<uint64_t> on_walk;  // a corrupt cycle of links ends the walk
    uint64_t link = v;
    size_t below = 0;
    while (true) {
      if (auto known = depth.find(link); known != depth.end()) {
        below = known->second + 1;
        break;
      }
      walk.push_back(link);
      on_walk.insert(link);
      uint64_t base = versions.at(link).read_version;
      if (!candidates.count(base) || on_walk.count(base)) {
        below = 0;
        break;
      }
      link = base;
    }
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) depth[*it] = below++;
  }
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return depth[a] < depth[b]; });
  plan.published_sweep = std::move(order);  // every candidate, published or not, in deletion order

  // File lists: what a version names is its base's files plus what its
  // transaction wrote (inventory.h), so only two kinds of version need
  // their whole manifest read. A surviving version marks every file it
  // names. A swept version whose base is gone (reclaimed by an earlier run)
  // may name files only that base's transaction wrote; once it goes,
  // nothing would name them. Any other swept version's inherited files are
  // marked (its base survives) or are its swept base's own.
  for (const auto& [v, facts] : versions) {
    if (facts.complete) continue;
    if (!candidates.count(v) || !versions.count(facts.read_version)) {
      OG_RETURN_IF_ERROR(collector::CompleteTableVersion(graph, &plan.dir, v));
    }
  }

  // Orphans: files no manifest names, old enough that no writer can be about to.
  std::set<std::string> named_files;
  for (const auto& [v, facts] : versions) {
    named_files.insert(facts.manifest_key);
    named_files.insert(facts.files.begin(), facts.files.end());
  }
  for (const auto& [key, size] : plan.dir.files) {
    if (NamedOrSidecarOfNamed(named_files, key)) continue;
    if (key.find("/_versions/") != std::string::npos) continue;  // manifests are versions, not orphans
    auto modified = collector::ModifiedAt(*graph.store(), key);
    if (modified && *modified < now_nanos - kOrphanGraceSeconds * kNanosPerSecond) plan.orphans.push_back(key);
  }
  return Status::OK();
}

// Deletes `key`; a file already gone is success (a resumed run).
Status DeleteIfPresent(ObjectStore& store, const std::string& key) {
  Status st = store.Delete(key);
  if (st.code() == ErrorCode::kNotFound) return Status::OK();
  return st;
}

// Superseded history segments (history_segments.h): a level merge copies
// its parent's records into the new segment, which then names the
// parent's parents, so the absorbed parent is reachable from no
// `__manifest` version published after it. Once the versions that named it
// are swept it is a duplicate nobody reads. Kept: every segment reachable
// (through parents) from a version that survives this run. Nothing is
// deleted when a reachable segment cannot be read (a gap must stay visible,
// never grow). REQUIRES: a confirmed run holds every live branch's writers
// lock, so no publication is about to name a segment it just wrote.
Status SweepHistorySegments(GraphStore& graph, const std::vector<std::string>& named, bool confirm,
                            DatasetCleanup* stats) {
  std::set<std::string> reachable;
  std::vector<std::string> pending = named;
  while (!pending.empty()) {
    std::string id = std::move(pending.back());
    pending.pop_back();
    if (!reachable.insert(id).second) continue;
    auto segment = graph.history().Read(id);
    if (!segment.ok()) return Status::OK();  // a gap: leave everything as it is
    for (const std::string& parent : (*segment)->parents) pending.push_back(parent);
  }
  ObjectStore& store = *graph.store();
  OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> files, store.List(graph.Key(layout::kHistorySegmentsDir)));
  for (const ObjectMeta& file : files) {
    std::string name = file.path.substr(file.path.rfind('/') + 1);
    if (name.size() <= 5 || name.substr(name.size() - 5) != ".hist") continue;
    if (reachable.count(name.substr(0, name.size() - 5))) continue;
    if (confirm) OG_RETURN_IF_ERROR(DeleteIfPresent(store, file.path));
    ++stats->history_segments_removed;
    stats->bytes_removed += file.size;
  }
  return Status::OK();
}

// Removes the files of `files` not in `marked` (each once, counted into
// `bytes`), then `manifest_key`.
Status SweepVersion(ObjectStore& store, const std::vector<std::string>& files, const std::string& manifest_key,
                    const std::set<std::string>& marked, const std::map<std::string, uint64_t>& sizes,
                    std::set<std::string>* deleted, bool confirm, uint64_t* bytes) {
  for (const std::string& file : files) {
    if (marked.count(file) || !deleted->insert(file).second) continue;
    if (auto it = sizes.find(file); it != sizes.end()) *bytes += it->second;
    if (confirm) OG_RETURN_IF_ERROR(DeleteIfPresent(store, file));
  }
  if (confirm) OG_FAILPOINT(failpoint::kCleanupAfterVersionFiles);
  if (deleted->insert(manifest_key).second) {
    if (auto it = sizes.find(manifest_key); it != sizes.end()) *bytes += it->second;
  }
  if (confirm) OG_RETURN_IF_ERROR(DeleteIfPresent(store, manifest_key));
  return Status::OK();
}

Status ViewChanged() {
  return Status(ErrorCode::kConflict,
                "cleanup refused: the branches or tags changed while it planned; nothing was deleted, run it again",
                {{"kind", "cleanup_view_changed"}});
}

}  // namespace

uint64_t CleanupReport::versions_removed() const {
  uint64_t n = 0;
  for (const DatasetCleanup& d : datasets) n += d.manifests_removed;
  return n;
}

uint64_t CleanupReport::bytes_removed() const {
  uint64_t n = 0;
  for (const DatasetCleanup& d : datasets) n += d.bytes_removed;
  return n;
}

uint64_t CleanupReport::datasets_touched() const {
  uint64_t n = 0;
  for (const DatasetCleanup& d : datasets) n += (d.manifests_removed > 0 || d.bytes_removed > 0) ? 1 : 0;
  return n;
}

Status ValidateCleanupPolicy(const CleanupPolicy& policy) {
  if (!policy.keep_versions && !policy.older_than_secs) {
    return InvalidArgument("cleanup requires a retention policy: --keep N and/or --older-than DUR")
        .WithDetail("kind", "cleanup_policy_missing");
  }
  if (policy.keep_versions && *policy.keep_versions == 0) return InvalidArgument("--keep must be at least 1");
  return Status::OK();
}

Result<CleanupReport> RunCleanup(GraphStore& graph, const CleanupPolicy& policy) {
  OG_RETURN_IF_ERROR(ValidateCleanupPolicy(policy));
  const int64_t now = policy.now_unix_nanos != 0
                          ? policy.now_unix_nanos
                          : std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  ObjectStore& store = *graph.store();

  // ---- plan ----
  // Every live branch's writers lock, in sorted order: no head moves and no
  // capture is in flight until the run ends (a preview deletes nothing and
  // takes none).
  std::vector<GraphStore::BranchWriters> locks;
  if (policy.confirm) {
    OG_ASSIGN_OR_RETURN(RefView first, collector::ReadRefView(graph));
    std::vector<std::string> names{std::string(kMainBranch)};
    for (const table::BranchInfo& b : first.branches) names.push_back(LogicalBranchOf(b.name));
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const std::string& name : names) {
      auto writers = graph.LockBranchWriters(name);
      if (!writers.ok() && writers.status().code() == ErrorCode::kNotFound) continue;  // deleted meanwhile
      if (!writers.ok()) return writers.status();
      locks.push_back(std::move(*writers));
    }
  }
  OG_ASSIGN_OR_RETURN(RefView view, collector::ReadRefView(graph));
  OG_ASSIGN_OR_RETURN(std::vector<ManifestTree> trees, collector::ReadManifestTrees(graph));
  std::map<std::string, const table::BranchInfo*> records;
  for (const table::BranchInfo& b : view.branches) records[b.name] = &b;

  std::map<std::string, TreePlan> tree_plans;
  for (ManifestTree& tree : trees) {
    TreePlan& p = tree_plans[tree.ref];
    p.tree = &tree;
    p.live = tree.ref == kMainBranch || records.count(tree.ref);
  }
  // A live branch without a tree would leave its writers' staging judged
  // by an incomplete inventory: fail closed.
  for (const table::BranchInfo& b : view.branches) {
    if (!tree_plans.count(b.name)) {
      return CorruptData(fmt::format("live branch ref '{}' of __manifest has no tree; cleanup refused", b.name));
    }
  }
  auto retain = [&](const std::string& ref, uint64_t version) {
    auto it = tree_plans.find(ref);
    if (it != tree_plans.end() && it->second.tree->versions.count(version)) it->second.retained.insert(version);
  };

  // Live heads and the per-branch window.
  std::map<std::string, LiveHead> heads;
  for (auto& [ref, p] : tree_plans) {
    if (!p.live) continue;
    std::optional<uint64_t> head = p.tree->head();
    if (!head) return CorruptData(fmt::format("branch ref '{}' of __manifest has no version", ref));
    const ManifestVersionFacts& facts = p.tree->versions.at(*head);
    auto state = std::make_shared<GraphState>(*facts.state);
    state->branch = ref == kMainBranch ? std::string(kMainBranch) : LogicalBranchOf(ref);
    state->branch_identity = ref;
    OG_ASSIGN_OR_RETURN(CommitGraphPtr commits, graph.Commits(Snapshot(&graph, state)));
    heads[ref] = LiveHead{ref, state, commits};
    p.retained.insert(*head);
    for (const auto& [v, version] : p.tree->versions) {
      if (version.detached) continue;
      bool in_keep = policy.keep_versions && v + *policy.keep_versions > *head;
      bool in_age = policy.older_than_secs &&
                    version.timestamp_nanos >= now - static_cast<int64_t>(*policy.older_than_secs) * kNanosPerSecond;
      if (in_keep || in_age) p.retained.insert(v);
    }
    // The creation version, in the branch's own tree and in its parent's.
    if (auto record = records.find(ref); record != records.end()) {
      retain(ref, record->second->parent_version);
      retain(record->second->parent_branch.value_or(std::string(kMainBranch)), record->second->parent_version);
    }
  }

  // Tags: proposals live or expired, other tags always roots.
  OG_ASSIGN_OR_RETURN(std::vector<Proposal> proposals, ListProposals(graph));
  std::map<std::string, const Proposal*> proposal_of_tag;
  for (const Proposal& p : proposals) proposal_of_tag[p.tag] = &p;
  std::vector<std::string> released;
  std::set<std::pair<std::string, uint64_t>> tagged;
  for (const table::TagInfo& tag : view.tags) {
    std::string ref = tag.branch.value_or(std::string(kMainBranch));
    if (auto it = proposal_of_tag.find(tag.name); it != proposal_of_tag.end()) {
      const ProposalRecipe& recipe = it->second->recipe;
      if (ProposalIsDead(recipe, heads)) {
        released.push_back(tag.name);
        continue;
      }
      // A live proposal's captured input stays readable with it.
      retain(recipe.target.name, recipe.captured_manifest_version);
    }
    tagged.emplace(ref, tag.version);
    retain(ref, tag.version);
  }
  // Untagged detached __manifest versions: proposals whose tag is not (or
  // no longer) there. Kept unless provably dead.
  for (auto& [ref, p] : tree_plans) {
    for (const auto& [v, version] : p.tree->versions) {
      if (!version.detached || tagged.count({ref, v})) continue;
      if (!version.recipe || !ProposalIsDead(*version.recipe, heads)) p.retained.insert(v);
    }
  }
  // Merge bases of every pair of live heads.
  for (auto a = heads.begin(); a != heads.end(); ++a) {
    for (auto b = std::next(a); b != heads.end(); ++b) {
      if (const CommitRecord* base = MergeBase(*a->second.commits, *b->second.commits)) {
        retain(std::string(base->NativeRef()), base->manifest_version);
      }
    }
  }
  // Retired trees: young ones (a create may be about to write its record)
  // and ones whose name carries no incarnation time are kept whole.
  for (auto& [ref, p] : tree_plans) {
    if (p.live) continue;
    std::optional<int64_t> born = IncarnationMillis(ref);
    if (!born || *born * 1'000'000 > now - kRetiredTreeGraceSeconds * kNanosPerSecond) {
      for (const auto& [v, version] : p.tree->versions) p.retained.insert(v);
    }
  }

  // Table roots and published sets, from every decoded version.
  std::map<std::string, TablePlan> tables;
  for (auto& [ref, p] : tree_plans) {
    for (const auto& [v, version] : p.tree->versions) NoteState(*version.state, p.retained.count(v) > 0, &tables);
  }
  // The current alias of a table is the one a live head gives it (main's first).
  for (auto it = heads.rbegin(); it != heads.rend(); ++it) {
    for (const auto& [key, entry] : it->second.state->tables) tables[entry.location].type_key = key;
  }
  if (auto main = heads.find(std::string(kMainBranch)); main != heads.end()) {
    for (const auto& [key, entry] : main->second.state->tables) tables[entry.location].type_key = key;
  }
  OG_ASSIGN_OR_RETURN(std::vector<std::string> locations, collector::ListTableLocations(graph));
  for (const std::string& location : locations) tables[location];
  bool table_failed = false;
  for (auto& [location, plan] : tables) {
    if (plan.type_key.empty()) plan.type_key = location;
    auto dir = collector::ReadTableDir(graph, location);
    if (!dir.ok()) {
      plan.error = dir.status().ToString();
      table_failed = true;
      continue;
    }
    plan.dir = std::move(*dir);
    if (Status planned = PlanTable(graph, plan, heads, now); !planned.ok()) {
      plan.error = planned.ToString();
      table_failed = true;
    }
  }
  // __manifest sweeps: the versions nothing retains.
  for (auto& [ref, p] : tree_plans) {
    for (const auto& [v, version] : p.tree->versions) {
      if (p.retained.count(v)) continue;
      p.sweep.push_back(v);
      if (version.detached) p.unpublished.insert(v);
    }
    p.reclaim_whole_tree = !p.live && p.retained.empty();
    std::set<std::string> named_files;
    for (const auto& [v, version] : p.tree->versions) {
      named_files.insert(version.manifest_key);
      named_files.insert(version.files.begin(), version.files.end());
    }
    for (const auto& [key, size] : p.tree->files) {
      if (NamedOrSidecarOfNamed(named_files, key) || key.find("/_versions/") != std::string::npos) continue;
      auto modified = collector::ModifiedAt(store, key);
      if (modified && *modified < now - kOrphanGraceSeconds * kNanosPerSecond) p.orphans.push_back(key);
    }
  }

  // ---- check: the view the plan was made against is still the view ----
  if (policy.confirm) {
    OG_ASSIGN_OR_RETURN(RefView again, collector::ReadRefView(graph));
    if (!(again == view)) return ViewChanged();
  }

  // ---- sweep ----
  CleanupReport report;
  report.confirmed = policy.confirm;
  std::sort(released.begin(), released.end());
  report.released_tags = released;
  if (policy.confirm && !released.empty()) {
    OG_ASSIGN_OR_RETURN(uint64_t main_head, graph.manifests().LatestVersion(NativeRef::Main()));
    OG_ASSIGN_OR_RETURN(ManifestVersionPtr main, graph.manifests().At(NativeRef::Main(), main_head));
    for (const std::string& tag : released) {
      Status removed = main->dataset.DeleteTag(tag);
      if (!removed.ok() && removed.code() != ErrorCode::kNotFound) return removed;
    }
    OG_FAILPOINT(failpoint::kCleanupAfterReleaseTags);
  }

  DatasetCleanup manifest_stats;
  manifest_stats.type_key = std::string(kManifestDatasetKey);
  manifest_stats.location = std::string(layout::kManifestDir);
  std::vector<DatasetCleanup> table_stats;
  for (auto& [location, plan] : tables) {
    DatasetCleanup stats;
    stats.type_key = plan.type_key;
    stats.location = location;
    stats.error = plan.error;
    if (!plan.error) {
      for (const auto& [v, facts] : plan.dir.versions) {
        if (!facts.detached && plan.last_linear > 0 && v > plan.last_linear) ++stats.foreign_versions;
      }
      // Marks: every file a surviving manifest names.
      std::set<uint64_t> going(plan.published_sweep.begin(), plan.published_sweep.end());
      std::set<std::string> marked;
      for (const auto& [v, facts] : plan.dir.versions) {
        if (!going.count(v)) marked.insert(facts.files.begin(), facts.files.end());
      }
      std::set<std::string> deleted;
      for (uint64_t v : plan.published_sweep) {
        const TableVersionFacts& facts = plan.dir.versions.at(v);
        uint64_t bytes = 0;
        Status swept = SweepVersion(store, facts.files, facts.manifest_key, marked, plan.dir.files, &deleted,
                                    policy.confirm, &bytes);
        if (!swept.ok()) {
          stats.error = swept.ToString();
          table_failed = true;
          break;
        }
        ++stats.manifests_removed;
        stats.bytes_removed += bytes;
        if (plan.unpublished_sweep.count(v)) {
          ++stats.unpublished_manifests;
          stats.unpublished_bytes += bytes;
        }
        if (policy.confirm) OG_FAILPOINT(failpoint::kCleanupAfterTableVersion);
      }
      if (!stats.error) {
        for (const std::string& orphan : plan.orphans) {
          if (policy.confirm) {
            Status removed = DeleteIfPresent(store, orphan);
            if (!removed.ok()) {
              stats.error = removed.ToString();
              table_failed = true;
              break;
            }
          }
          ++stats.orphan_files_removed;
          stats.bytes_removed += plan.dir.files.at(orphan);
        }
      }
    }
    table_stats.push_back(std::move(stats));
  }

  // __manifest versions go last: while one names a table version, that
  // version stays in the published set of a resumed run.
  if (table_failed) {
    manifest_stats.error = "skipped: a table could not be swept completely; the next run completes it";
  } else {
    if (policy.confirm) OG_FAILPOINT(failpoint::kCleanupBeforeManifestSweep);
    for (auto& [ref, p] : tree_plans) {
      // Cold readers trust the version hint when the versions above it are
      // contiguous (table::Dataset::LatestVersionFromHint); name the head
      // before deleting anything below it, so a hint left on a retained old
      // version never skips the gap this sweep opens.
      if (policy.confirm && !p.sweep.empty() && !p.reclaim_whole_tree) {
        if (std::optional<uint64_t> head = p.tree->head()) {
          OG_RETURN_IF_ERROR(table::Dataset::WriteVersionHint(&store, p.tree->dir, *head, /*durable=*/true));
        }
      }
      std::set<std::string> marked;
      for (const auto& [v, version] : p.tree->versions) {
        if (p.retained.count(v)) marked.insert(version.files.begin(), version.files.end());
      }
      std::set<std::string> deleted;
      for (uint64_t v : p.sweep) {
        const ManifestVersionFacts& version = p.tree->versions.at(v);
        uint64_t bytes = 0;
        OG_RETURN_IF_ERROR(SweepVersion(store, version.files, version.manifest_key, marked, p.tree->files, &deleted,
                                        policy.confirm, &bytes));
        ++manifest_stats.manifests_removed;
        manifest_stats.bytes_removed += bytes;
        if (p.unpublished.count(v)) {
          ++manifest_stats.unpublished_manifests;
          manifest_stats.unpublished_bytes += bytes;
        }
        if (policy.confirm) OG_FAILPOINT(failpoint::kCleanupAfterManifestVersion);
      }
      for (const std::string& orphan : p.orphans) {
        if (policy.confirm) OG_RETURN_IF_ERROR(DeleteIfPresent(store, orphan));
        ++manifest_stats.orphan_files_removed;
        manifest_stats.bytes_removed += p.tree->files.at(orphan);
      }
      if (p.reclaim_whole_tree && policy.confirm) {
        // What remains of a retired tree nothing retains: its directories.
        for (std::string_view dir : {lance::kVersionsDir, lance::kTransactionsDir, lance::kDataDir,
                                     lance::kDeletionsDir, lance::kIndicesDir}) {
          OG_RETURN_IF_ERROR(store.DeletePrefix(JoinPath(p.tree->dir, dir)));
        }
      }
    }
    std::vector<std::string> named_segments;
    for (auto& [ref, p] : tree_plans) {
      for (const auto& [v, version] : p.tree->versions) {
        if (!p.retained.count(v)) continue;
        named_segments.insert(named_segments.end(), version.state->history_segments.begin(),
                              version.state->history_segments.end());
      }
    }
    OG_RETURN_IF_ERROR(SweepHistorySegments(graph, named_segments, policy.confirm, &manifest_stats));
  }
  report.datasets.push_back(std::move(manifest_stats));
  for (DatasetCleanup& s : table_stats) report.datasets.push_back(std::move(s));
  return report;
}

}  // namespace omnigraph::graph
