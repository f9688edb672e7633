#include "graph/maintenance/inventory.h"

#include <algorithm>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "graph/write/write_txn.h"
#include "io/local_store.h"
#include "lance/versioning.h"
#include "table/scanner.h"

namespace omnigraph::graph::collector {
namespace {

// The subdirectories of a Lance dataset (or tree) whose files versions name.
constexpr std::string_view kFileDirs[] = {lance::kVersionsDir, lance::kTransactionsDir, lance::kDataDir,
                                          lance::kDeletionsDir};

// Lists every file under the file directories of `dir` (and `extra`) into `files`.
Status ListFiles(ObjectStore& store, const std::string& dir, std::vector<std::string_view> extra,
                 std::map<std::string, uint64_t>* files) {
  std::vector<std::string_view> subdirs(std::begin(kFileDirs), std::end(kFileDirs));
  subdirs.insert(subdirs.end(), extra.begin(), extra.end());
  for (std::string_view sub : subdirs) {
    OG_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listed, store.List(JoinPath(dir, sub), /*recursive=*/true));
    for (ObjectMeta& meta : listed) files->emplace(std::move(meta.path), meta.size);
  }
  return Status::OK();
}

// Store keys of the data, deletion and transaction files `dataset`'s version names.
Result<std::vector<std::string>> FilesOf(const table::Dataset& dataset) {
  std::vector<std::string> files;
  for (const lance::Fragment& fragment : dataset.manifest().fragments) {
    for (const lance::DataFile& file : fragment.files.get()) {
      OG_ASSIGN_OR_RETURN(std::string key, dataset.ResolveFilePath(lance::kDataDir, file.path, file.base_id));
      files.push_back(std::move(key));
    }
    if (fragment.deletion_file) {
      OG_ASSIGN_OR_RETURN(std::string key,
                          dataset.ResolveFilePath(lance::kDeletionsDir, fragment.deletion_file->FileName(fragment.id),
                                                  fragment.deletion_file->base_id));
      files.push_back(std::move(key));
    }
  }
  if (!dataset.manifest().transaction_file.empty()) {
    files.push_back(
        JoinPath(JoinPath(dataset.branch_root(), lance::kTransactionsDir), dataset.manifest().transaction_file));
  }
  return files;
}

// Appends to `files` the store keys of the data and deletion files the
// fragments `transaction` lists name (those it wrote, and for a Delete,
// Update or Merge also ones it kept), under the table directory `dir`.
// false when a fragment names a file through a base path, which only the
// manifest can resolve.
bool WrittenFiles(const lance::Transaction& transaction, const std::string& dir, std::vector<std::string>* files) {
  auto add = [&](const std::vector<lance::Fragment>& fragments) {
    for (const lance::Fragment& fragment : fragments) {
      for (const lance::DataFile& file : fragment.files.get()) {
        if (file.base_id) return false;
        files->push_back(JoinPath(JoinPath(dir, lance::kDataDir), file.path));
      }
      if (fragment.deletion_file) {
        if (fragment.deletion_file->base_id) return false;
        files->push_back(
            JoinPath(JoinPath(dir, lance::kDeletionsDir), fragment.deletion_file->FileName(fragment.id)));
      }
    }
    return true;
  };
  return std::visit(
      [&](const auto& op) {
        using Op = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<Op, lance::AppendOperation> || std::is_same_v<Op, lance::OverwriteOperation> ||
                      std::is_same_v<Op, lance::MergeOperation>) {
          return add(op.fragments);
        } else if constexpr (std::is_same_v<Op, lance::DeleteOperation>) {
          return add(op.updated_fragments);
        } else if constexpr (std::is_same_v<Op, lance::UpdateOperation>) {
          return add(op.updated_fragments) && add(op.new_fragments);
        } else if constexpr (std::is_same_v<Op, lance::RewriteOperation>) {
          for (const lance::RewriteGroup& group : op.groups) {
            if (!add(group.new_fragments)) return false;
          }
          return true;
        } else if constexpr (std::is_same_v<Op, lance::ProjectOperation>) {
          return true;
        } else {
          return false;  // a clone or restore names what only its manifest resolves
        }
      },
      transaction.operation);
}

// The deleted-ids side file a version's transaction names, if any.
void AddDeletedIdsFile(GraphStore& graph, TableVersionFacts* facts) {
  if (auto side = facts->properties.find(std::string(kDeletedIdsPath)); side != facts->properties.end()) {
    facts->files.push_back(graph.Key(side->second));
  }
}

// The versions named in `dir`/_versions, ascending.
Result<std::vector<lance::ParsedManifestName>> VersionsIn(ObjectStore& store, const std::string& dir) {
  OG_ASSIGN_OR_RETURN(std::vector<std::string> names, store.ListNames(JoinPath(dir, lance::kVersionsDir)));
  std::vector<lance::ParsedManifestName> versions;
  for (const std::string& name : names) {
    if (auto parsed = lance::ParseManifestFileName(name)) versions.push_back(*parsed);
  }
  std::sort(versions.begin(), versions.end(),
            [](const lance::ParsedManifestName& a, const lance::ParsedManifestName& b) { return a.version < b.version; });
  return versions;
}

Result<ManifestVersionFacts> ReadManifestVersion(GraphStore& graph, const std::string& ref, uint64_t version) {
  table::VersionRef at = table::VersionRef::Version(version);
  if (ref != kMainBranch) at.branch = ref;
  OG_ASSIGN_OR_RETURN(table::Dataset dataset, table::Dataset::Open(graph.store(), graph.manifests().root(), at));
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, dataset.ToBatch({}));
  OG_ASSIGN_OR_RETURN(GraphState state, DecodeGraphState(*rows, dataset.manifest_path()));
  ManifestVersionFacts facts;
  facts.version = version;
  facts.detached = dataset.is_detached();
  facts.state = std::make_shared<const GraphState>(std::move(state));
  facts.timestamp_nanos = dataset.manifest().timestamp_nanos;
  facts.manifest_key = dataset.manifest_path();
  OG_ASSIGN_OR_RETURN(facts.files, FilesOf(dataset));
  if (facts.detached) {
    auto txn = dataset.ReadTransaction();
    if (txn.ok()) {
      auto property = txn->properties.find(std::string(kUnpublishedCommitProperty));
      if (property != txn->properties.end()) {
        auto recipe = DecodeProposalRecipe(property->second, dataset.manifest_path());
        if (recipe.ok()) facts.recipe = std::move(*recipe);
      }
    }
  }
  return facts;
}

// Tree directories under `dir` (`__manifest/tree/...`), relative names appended to `refs`.
Status FindTrees(ObjectStore& store, const std::string& base, const std::string& relative,
                 std::vector<std::string>* refs) {
  std::string dir = relative.empty() ? base : JoinPath(base, relative);
  OG_ASSIGN_OR_RETURN(std::vector<std::string> children, store.ListDirectories(dir));
  bool is_tree = std::find(children.begin(), children.end(), std::string(lance::kVersionsDir)) != children.end();
  if (is_tree && !relative.empty()) refs->push_back(relative);
  for (const std::string& child : children) {
    if (is_tree && (child == lance::kVersionsDir || child == lance::kTransactionsDir || child == lance::kDataDir ||
                    child == lance::kDeletionsDir || child == lance::kIndicesDir || child == "_refs")) {
      continue;
    }
    OG_RETURN_IF_ERROR(FindTrees(store, base, relative.empty() ? child : JoinPath(relative, child), refs));
  }
  return Status::OK();
}

}  // namespace

bool RefView::operator==(const RefView& other) const {
  auto same_branch = [](const table::BranchInfo& a, const table::BranchInfo& b) {
    return a.name == b.name && a.identifier == b.identifier && a.parent_branch == b.parent_branch &&
           a.parent_version == b.parent_version;
  };
  auto same_tag = [](const table::TagInfo& a, const table::TagInfo& b) {
    return a.name == b.name && a.branch == b.branch && a.version == b.version;
  };
  return std::equal(branches.begin(), branches.end(), other.branches.begin(), other.branches.end(), same_branch) &&
         std::equal(tags.begin(), tags.end(), other.tags.begin(), other.tags.end(), same_tag);
}

Result<RefView> ReadRefView(GraphStore& graph) {
  RefView view;
  OG_ASSIGN_OR_RETURN(view.branches,
                      table::Dataset::ListBranchRecords(graph.store().get(), graph.manifests().root()));
  OG_ASSIGN_OR_RETURN(view.tags, graph.manifests().ListTags());
  std::sort(view.tags.begin(), view.tags.end(),
            [](const table::TagInfo& a, const table::TagInfo& b) { return a.name < b.name; });
  return view;
}

std::optional<uint64_t> ManifestTree::head() const {
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (!it->second.detached) return it->first;
  }
  return std::nullopt;
}

Result<std::vector<ManifestTree>> ReadManifestTrees(GraphStore& graph) {
  ObjectStore& store = *graph.store();
  const std::string& root = graph.manifests().root();
  std::vector<std::string> refs{std::string(kMainBranch)};
  OG_RETURN_IF_ERROR(FindTrees(store, JoinPath(root, lance::kBranchTreeDir), "", &refs));
  std::vector<ManifestTree> trees;
  for (const std::string& ref : refs) {
    ManifestTree tree;
    tree.ref = ref;
    tree.dir = table::BranchRoot(root, ref == kMainBranch ? std::nullopt : std::optional<std::string>(ref));
    OG_ASSIGN_OR_RETURN(std::vector<lance::ParsedManifestName> versions, VersionsIn(store, tree.dir));
    for (const lance::ParsedManifestName& v : versions) {
      OG_ASSIGN_OR_RETURN(ManifestVersionFacts facts, ReadManifestVersion(graph, ref, v.version));
      tree.versions.emplace(v.version, std::move(facts));
    }
    OG_RETURN_IF_ERROR(ListFiles(store, tree.dir, {}, &tree.files));
    trees.push_back(std::move(tree));
  }
  return trees;
}

Result<std::vector<std::string>> ListTableLocations(GraphStore& graph) {
  std::vector<std::string> locations;
  for (std::string_view kind : {"nodes", "edges"}) {
    OG_ASSIGN_OR_RETURN(std::vector<std::string> dirs, graph.store()->ListDirectories(graph.Key(kind)));
    for (const std::string& d : dirs) locations.push_back(JoinPath(kind, d));
  }
  return locations;
}

Result<TableDir> ReadTableDir(GraphStore& graph, const std::string& location) {
  TableDir table;
  table.location = location;
  table.dir = graph.Key(location);
  ObjectStore& store = *graph.store();
  OG_ASSIGN_OR_RETURN(std::vector<lance::ParsedManifestName> versions, VersionsIn(store, table.dir));
  for (const lance::ParsedManifestName& v : versions) {
    TableVersionFacts facts;
    facts.version = v.version;
    facts.detached = v.naming == lance::ManifestNaming::kDetached;
    facts.manifest_key = table::Dataset::ManifestKey(table.dir, std::nullopt, v.version);
    if (facts.detached) {
      OG_ASSIGN_OR_RETURN(std::optional<lance::Transaction> txn,
                          table::Dataset::ReadLeadingTransaction(&store, facts.manifest_key));
      // A detached version (only this build writes them) keeps its
      // transaction inline alone: there is no `_transactions/` file to add.
      if (txn && WrittenFiles(*txn, table.dir, &facts.files)) {
        facts.read_version = txn->read_version;
        facts.properties = std::move(txn->properties);
        AddDeletedIdsFile(graph, &facts);
        table.versions.emplace(v.version, std::move(facts));
        continue;
      }
      facts.files.clear();
    }
    table.versions.emplace(v.version, std::move(facts));
    OG_RETURN_IF_ERROR(CompleteTableVersion(graph, &table, v.version));
  }
  OG_RETURN_IF_ERROR(ListFiles(store, table.dir, {"_deleted_ids"}, &table.files));
  return table;
}

Status CompleteTableVersion(GraphStore& graph, TableDir* table, uint64_t version) {
  TableVersionFacts& facts = table->versions.at(version);
  if (facts.complete) return Status::OK();
  OG_ASSIGN_OR_RETURN(table::Dataset dataset,
                      table::Dataset::Open(graph.store(), table->dir, table::VersionRef::Version(version)));
  facts.detached = dataset.is_detached();
  facts.manifest_key = dataset.manifest_path();
  OG_ASSIGN_OR_RETURN(facts.files, FilesOf(dataset));
  auto txn = dataset.ReadTransaction();
  if (txn.ok()) {
    facts.read_version = txn->read_version;
    facts.properties = txn->properties;
    AddDeletedIdsFile(graph, &facts);
  } else if (txn.status().code() != ErrorCode::kNotFound) {
    return txn.status();
  }
  facts.complete = true;
  return Status::OK();
}

std::optional<int64_t> ModifiedAt(ObjectStore& store, const std::string& key) {
  auto* local = dynamic_cast<LocalStore*>(&store);
  if (local == nullptr) return std::nullopt;
  auto modified = local->ModifiedUnixNanos(key);
  if (!modified.ok()) return std::nullopt;
  return *modified;
}

}  // namespace omnigraph::graph::collector
