#include "graph/init.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "graph/layout.h"
#include "graph/write/publisher.h"
#include "table/dataset.h"
#include "util/random.h"
#include "util/ulid.h"

namespace omnigraph::graph {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t NonZeroRandom() {
  uint64_t v;
  do {
    v = RandomU64();
  } while (v == 0);
  return v;
}

// This machine's boot id: a claim's pid means something only on the boot
// that wrote it. Empty when unavailable.
std::string BootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The init claim: who claimed (pid on this boot) and when.
std::string InitClaimText() {
  nlohmann::json claim = {{"claimed_at_us", NowMicros()},
                          {"claim", Uuid::Random().ToString()},
                          {"pid", static_cast<int64_t>(::getpid())},
                          {"boot_id", BootId()}};
  return claim.dump();
}

// Whether the claim at `key` was written on this boot by a process that no
// longer exists. Unreadable claims, other machines' claims and claims
// without a pid (older writers) are presumed alive.
bool ClaimOwnerIsGone(ObjectStore* store, const std::string& key) {
  auto bytes = store->Get(key);
  if (!bytes.ok()) return false;
  auto claim = nlohmann::json::parse((*bytes)->view(), nullptr, /*allow_exceptions=*/false);
  if (!claim.is_object() || !claim.contains("pid") || !claim["pid"].is_number_integer() ||
      !claim.contains("boot_id") || !claim["boot_id"].is_string()) {
    return false;
  }
  const std::string boot_id = BootId();
  const auto pid = claim["pid"].get<int64_t>();
  if (boot_id.empty() || claim["boot_id"].get<std::string>() != boot_id || pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Creates `spec`'s table at version 1 of its identity's location and
// returns its registration pinned there.
Result<TableEntry> CreateTable(GraphStore& graph, const TableSpec& spec, const TableIdentity& identity) {
  TableEntry entry;
  entry.identity = identity;
  entry.table_key = spec.table_key;
  entry.location = TableLocation(spec.table_key, entry.identity);
  std::string uuid = Uuid::Random().ToString();
  OG_ASSIGN_OR_RETURN(table::Dataset created,
                      table::Dataset::Create(graph.store(), graph.Key(entry.location), spec.schema, {}, uuid));
  entry.pin.published_version = 1;
  entry.pin.last_linear_version = created.version();
  entry.pin.transaction_uuid = uuid;
  entry.pin.row_count = 0;
  entry.pin.manifest_path = created.manifest_path().substr(graph.root().empty() ? 0 : graph.root().size() + 1);
  entry.pin.manifest_size = created.manifest_size();
  return entry;
}

// Init after the claim: every table at version 1, then __manifest v1.
// `table_roots` receives each table's root as its creation starts.
Result<std::shared_ptr<GraphStore>> CreateClaimed(std::shared_ptr<GraphStore> graph, SchemaContract contract,
                                                  const std::vector<TableSpec>& tables,
                                                  std::vector<std::string>* table_roots) {
  const ObjectStorePtr& store = graph->store();
  const std::string& root = graph->root();
  const std::string manifest_root = graph->Key(layout::kManifestDir);
  GraphState state;
  state.schema = std::move(contract);
  for (const TableSpec& spec : tables) {
    TableIdentity identity{spec.stable_id, NonZeroRandom()};
    table_roots->push_back(graph->Key(TableLocation(spec.table_key, identity)));
    OG_ASSIGN_OR_RETURN(TableEntry entry, CreateTable(*graph, spec, identity));
    state.tables.emplace(entry.table_key, std::move(entry));
  }
  state.head.id = Ulid::New().ToString();
  state.head.created_at_us = NowMicros();
  state.head.manifest_version = 1;
  state.head.generation = 0;
  state.manifest_version = 1;
  OG_ASSIGN_OR_RETURN(RecordBatchPtr rows, EncodeGraphState(state));
  Status created = table::Dataset::Create(store, manifest_root, *ManifestSchema(), {rows}).status();
  if (created.code() == ErrorCode::kAlreadyExists) {
    // Another init published __manifest v1 first (possible only when both
    // took over a stale claim): the graph exists, and it is theirs.
    return AlreadyExists(fmt::format("graph '{}' is already initialized", store->Uri(root)))
        .WithDetail("kind", "already_initialized");
  }
  if (created.details().count(std::string(kDurabilityDetail))) {
    // __manifest v1 became visible but its name may not be durable: the
    // graph may exist now and be gone after a power cut. Keep the claim.
    return created.WithDetail("outcome", "indeterminate")
        .WithDetail("commit", state.head.id)
        .WithDetail("kind", "initialization_indeterminate");
  }
  OG_RETURN_IF_ERROR(created);
  (void)store->Delete(graph->Key(layout::kInitClaim));
  return graph;
}

}  // namespace

Result<TableEntry> CreateAddedTable(GraphStore& graph, const TableSpec& spec, const TableIdentity& identity) {
  const std::string location = graph.Key(TableLocation(spec.table_key, identity));
  // Nothing references an unregistered identity-derived path: whatever an
  // earlier attempt left there (a retry after a crash or a lost CAS) is
  // replaced, never adopted.
  OG_RETURN_IF_ERROR(graph.store()->DeletePrefix(location));
  return CreateTable(graph, spec, identity);
}

Result<std::shared_ptr<GraphStore>> InitGraph(ObjectStorePtr store, std::string root, SchemaContract contract,
                                              const std::vector<TableSpec>& tables, TableVersionCachePtr versions) {
  std::shared_ptr<GraphStore> graph = GraphStore::Attach(store, root, std::move(versions));
  OG_ASSIGN_OR_RETURN(bool initialized, GraphStore::IsInitialized(store.get(), root));
  if (initialized) {
    return AlreadyExists(fmt::format("graph '{}' is already initialized", store->Uri(root)))
        .WithDetail("kind", "already_initialized");
  }
  const std::string claim_key = graph->Key(layout::kInitClaim);
  Status claim = store->PutIfAbsent(claim_key, InitClaimText());
  if (claim.code() == ErrorCode::kAlreadyExists && ClaimOwnerIsGone(store.get(), claim_key)) {
    // The claimant died on this machine before publishing: the claim is
    // stale. Whoever wins the fresh claim (or, after a race here, the
    // __manifest create below) initializes; the tables a dead init created
    // are unreferenced and never read.
    (void)store->Delete(claim_key);
    claim = store->PutIfAbsent(claim_key, InitClaimText());
  }
  if (claim.code() == ErrorCode::kAlreadyExists) {
    return AlreadyExists(fmt::format("graph '{}' is being initialized by another process (remove {} if that "
                                     "process died)", store->Uri(root), layout::kInitClaim))
        .WithDetail("kind", "initialization_claimed");
  }
  OG_RETURN_IF_ERROR(claim);
  // Until __manifest v1 is published, a failure leaves nothing anyone
  // reads; releasing the claim lets the next init start over at once.
  std::vector<std::string> table_roots;
  Result<std::shared_ptr<GraphStore>> created = CreateClaimed(graph, std::move(contract), tables, &table_roots);
  if (!created.ok() && !PublicationMayHaveLanded(created.status())) {
    // No __manifest version of this init can appear, so its tables (each
    // at a fresh random incarnation) are referenced by nothing: remove
    // them, so a failure (a full disk) leaves the root as it found it.
    for (const std::string& table_root : table_roots) (void)store->DeletePrefix(table_root);
  }
  if (!created.ok() && created.status().details().count("kind") == 0) (void)store->Delete(claim_key);
  return created;
}

}  // namespace omnigraph::graph
