#include "exec/query_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "columnar/builder.h"
#include "compiler/entity_id.h"
#include "exec/expr_eval.h"
#include "exec/text_search.h"
#include "exec/topology.h"
#include "exec/topology_file.h"
#include "table/dataset.h"
#include "table/scanner.h"

namespace omnigraph::exec {

namespace {

namespace ir = compiler::ir;

using RowList = std::vector<uint32_t>;
using Scores = std::vector<std::optional<double>>;

constexpr uint64_t kMaxBindingRows = std::numeric_limits<uint32_t>::max();
// Outer rows seeded into one run of a negation's inner pipeline: bounds the
// memory of inner cartesian products without per-row pipeline overhead.
constexpr size_t kNegationChunkRows = 4096;
constexpr uint32_t kNoRow = std::numeric_limits<uint32_t>::max();

// ---------------------------------------------------------------------------
// Binding table

// One column of the binding table.
struct Slot {
  enum class Kind { kNode, kEdge, kOrigin };
  std::string name;
  Kind kind = Kind::kNode;
  std::string type_name;
  graph::TableDataPtr data;  // rows of the node/edge table; null for kOrigin
};

// Columnar binding table: cols[c][row] is the table row bound to slots[c].
// kOrigin slots hold the outer row a negation seeded the row from.
struct Bindings {
  std::vector<Slot> slots;
  std::vector<RowList> cols;
  size_t num_rows = 1;  // the unit table: one row, no columns

  int Find(std::string_view name) const {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
};

// The rows `picks` of `in`, in that order.
Bindings Gather(const Bindings& in, const RowList& picks) {
  Bindings out;
  out.slots = in.slots;
  out.cols.resize(in.cols.size());
  for (size_t c = 0; c < in.cols.size(); ++c) {
    const RowList& src = in.cols[c];
    RowList& dst = out.cols[c];
    dst.resize(picks.size());
    for (size_t k = 0; k < picks.size(); ++k) dst[k] = src[picks[k]];
  }
  out.num_rows = picks.size();
  return out;
}

// Keeps the rows `keep` (ascending) of `b` in place.
void Select(Bindings* b, const RowList& keep) {
  if (keep.size() == b->num_rows) return;
  for (RowList& col : b->cols) {
    for (size_t k = 0; k < keep.size(); ++k) col[k] = col[keep[k]];
    col.resize(keep.size());
  }
  b->num_rows = keep.size();
}

// A value source resolved against one binding-table layout: a constant
// (literal / parameter) or a column read through a binding column.
class Operand {
 public:
  static Operand Constant(const Scalar* value) {
    Operand o;
    o.constant_ = value;
    return o;
  }
  static Operand Column(const RowList* rows, const Array* array) {
    Operand o;
    o.rows_ = rows;
    o.array_ = array;
    return o;
  }

  bool is_constant() const { return constant_ != nullptr; }
  const Scalar& constant() const { return *constant_; }
  const Array* array() const { return array_; }
  // Table row behind binding row `r` (columns only).
  uint32_t TableRow(size_t r) const { return (*rows_)[r]; }
  const uint32_t* table_rows() const { return rows_->data(); }
  Cell At(size_t r) const { return constant_ ? CellOf(*constant_) : CellOf(array_, (*rows_)[r]); }

 private:
  const Scalar* constant_ = nullptr;
  const RowList* rows_ = nullptr;
  const Array* array_ = nullptr;
};

// An inline `{ p: v }` filter resolved against a table.
struct ResolvedPropertyFilter {
  const Array* column = nullptr;  // null: the column is absent (all NULL)
  const Scalar* value = nullptr;
  bool membership = false;

  bool Matches(int64_t row) const {
    Cell cell = CellOf(column, row);
    Cell v = CellOf(*value);
    return membership ? ListContains(cell, v) : CellsEqual(cell, v);
  }
};

// The value an equality on a single-property @key looks up by id (§1.7).
// A number of another kind than the key takes the key's representation, so
// that its derived id is the key's canonical spelling (2.0 finds the I32
// key 2); nullopt when no key value equals it (2.5, or 2^32 + 2 against an
// I32 key): nothing matches.
std::optional<Scalar> KeyLookupValue(const compiler::PropertyType& key_type, const Scalar& value) {
  if (!value.is_numeric() || !key_type.is_numeric()) return value;
  return compiler::ExactNumericValue(value, key_type.scalar);
}

bool EvalFilter(const ir::Filter& f, const Cell& l, const Cell& r) {
  switch (f.kind) {
    case ir::Filter::Kind::kCompare: {
      std::optional<int> c = CompareCells(l, r);
      return c.has_value() && CompareOpHolds(f.op, *c);
    }
    case ir::Filter::Kind::kListContains: return ListContains(l, r);
    case ir::Filter::Kind::kStringContains:
      return l.kind == Cell::Kind::kString && r.kind == Cell::Kind::kString && l.s.find(r.s) != std::string_view::npos;
    case ir::Filter::Kind::kStartsWith:
      return l.kind == Cell::Kind::kString && r.kind == Cell::Kind::kString && l.s.starts_with(r.s);
    case ir::Filter::Kind::kTextSearch: return false;  // handled separately
  }
  return false;
}

// Three-way order of two cells for sorting: NULL is the smallest value;
// incomparable values tie.
int OrderCells(const Cell& x, const Cell& y) {
  if (x.is_null() || y.is_null()) return x.is_null() == y.is_null() ? 0 : (x.is_null() ? -1 : 1);
  if (x.kind == Cell::Kind::kList && y.kind == Cell::Kind::kList) {
    // Lists and vectors order lexicographically, element by element (a
    // NULL element first), then a proper prefix before the longer list.
    const int64_t n = std::min(x.list_size(), y.list_size());
    for (int64_t k = 0; k < n; ++k) {
      if (int c = OrderCells(x.ListElement(k), y.ListElement(k)); c != 0) return c;
    }
    return x.list_size() < y.list_size() ? -1 : (x.list_size() > y.list_size() ? 1 : 0);
  }
  return CompareCells(x, y).value_or(0);
}

// Epoch-stamped visited marks reused across BFS runs of one thread, so a
// traversal from one source costs O(reached), not O(nodes).
struct VisitMarks {
  std::vector<uint32_t> marks;
  uint32_t epoch = 0;

  void Begin(size_t nodes) {
    if (marks.size() < nodes) marks.resize(nodes, 0);
    if (++epoch == 0) {
      std::fill(marks.begin(), marks.end(), 0);
      epoch = 1;
    }
  }
  // Marks `node`; false when it was already marked in this run.
  bool Mark(uint32_t node) {
    if (marks[node] == epoch) return false;
    marks[node] = epoch;
    return true;
  }
};

thread_local VisitMarks tl_visit_marks;

// One traversal step's view of a topology.
class Expander {
 public:
  Expander(const Topology& topology, const ir::Traverse& t) : t_(t) {
    switch (t.follow) {
      case ir::Traverse::Follow::kSrcToDst: primary_ = &topology.forward; break;
      case ir::Traverse::Follow::kDstToSrc: primary_ = &topology.reverse; break;
      case ir::Traverse::Follow::kBoth:
        primary_ = &topology.forward;
        secondary_ = &topology.reverse;
        break;
    }
    same_type_ = t.from_type == t.to_type;
    // Endpoint types that differ cap the hops at 1 (§2.4 rule 4); the IR
    // already did, this keeps the BFS honest for any input.
    max_hops_ = same_type_ ? t.max_hops : std::min<uint32_t>(t.max_hops, 1);
    num_to_nodes_ = t.follow == ir::Traverse::Follow::kDstToSrc ? topology.forward.num_nodes()
                                                                : topology.reverse.num_nodes();
  }

  // True once an expansion found the persisted topology corrupt where it
  // read it; that expansion yielded nothing and the step must be redone.
  bool corrupt() const { return corrupt_; }

  // Distinct neighbours of `node` (ascending), appended to `out`.
  void UniqueNeighbors(uint32_t node, RowList* out) const {
    if (node >= primary_->num_nodes() || !Ready(node)) return;
    const uint32_t* a = primary_->neighbors.data();
    uint32_t i = primary_->begin(node), ie = primary_->end(node);
    if (secondary_ == nullptr) {
      for (uint32_t k = i; k < ie; ++k) {
        if (k == i || a[k] != a[k - 1]) out->push_back(a[k]);
      }
      return;
    }
    const uint32_t* b = secondary_->neighbors.data();
    uint32_t j = secondary_->begin(node), je = secondary_->end(node);
    uint32_t last = kNoRow;
    bool any = false;
    auto emit = [&](uint32_t v) {
      if (!any || v != last) out->push_back(v);
      last = v;
      any = true;
    };
    while (i < ie || j < je) {
      if (j >= je || (i < ie && a[i] <= b[j])) {
        emit(a[i++]);
      } else {
        emit(b[j++]);
      }
    }
  }

  // Every matching edge from `node`: fn(neighbor, edge row). Undirected:
  // both directions, a self-loop once.
  template <typename Fn>
  void ForEachEdge(uint32_t node, Fn&& fn) const {
    if (node >= primary_->num_nodes() || !Ready(node)) return;
    for (uint32_t k = primary_->begin(node); k < primary_->end(node); ++k) {
      fn(primary_->neighbors[k], primary_->edges[k]);
    }
    if (secondary_ == nullptr) return;
    for (uint32_t k = secondary_->begin(node); k < secondary_->end(node); ++k) {
      if (secondary_->neighbors[k] != node) fn(secondary_->neighbors[k], secondary_->edges[k]);
    }
  }

  // Whether `target` is a direct neighbour of `node`.
  bool IsNeighbor(uint32_t node, uint32_t target) const {
    if (node >= primary_->num_nodes() || !Ready(node)) return false;
    return primary_->HasNeighbor(node, target) || (secondary_ != nullptr && secondary_->HasNeighbor(node, target));
  }

  bool single_hop() const { return max_hops_ == 1; }
  bool empty_range() const { return t_.min_hops > max_hops_ || t_.min_hops == 0; }

  // Reports every node reachable from `source` within [min, max] hops per
  // the normative BFS of §2.4 (amended by case B01): emit(node) once per
  // node, at its shortest hop distance; the source only through its own
  // self-loop at hop 1.
  template <typename Fn>
  void Reach(uint32_t source, Fn&& emit) {
    if (empty_range() || source >= primary_->num_nodes()) return;
    if (max_hops_ == 1) {
      // min is 1 here: every distinct neighbour, the source included when it
      // has a self-loop.
      scratch_.clear();
      UniqueNeighbors(source, &scratch_);
      for (uint32_t v : scratch_) emit(v);
      return;
    }
    VisitMarks& marks = tl_visit_marks;
    marks.Begin(num_to_nodes_);
    marks.Mark(source);  // same endpoint types here (max > 1)
    frontier_.assign(1, source);
    for (uint32_t hop = 1; hop <= max_hops_ && !frontier_.empty(); ++hop) {
      next_.clear();
      for (uint32_t node : frontier_) {
        scratch_.clear();
        UniqueNeighbors(node, &scratch_);
        for (uint32_t v : scratch_) {
          if (hop == 1 && v == source) {
            if (t_.min_hops <= 1) emit(source);
            continue;
          }
          if (!marks.Mark(v)) continue;
          if (hop < max_hops_) next_.push_back(v);
          if (hop >= t_.min_hops) emit(v);
        }
      }
      frontier_.swap(next_);
    }
  }

 private:
  // Whether `node` may be expanded in every direction followed; notes a
  // corrupt persisted copy (Adjacency::Ready).
  bool Ready(uint32_t node) const {
    if (primary_->Ready(node) && (secondary_ == nullptr || secondary_->Ready(node))) return true;
    corrupt_ = true;
    return false;
  }

  const ir::Traverse& t_;
  const Adjacency* primary_ = nullptr;
  const Adjacency* secondary_ = nullptr;
  bool same_type_ = true;
  uint32_t max_hops_ = 1;
  uint32_t num_to_nodes_ = 0;
  mutable bool corrupt_ = false;
  RowList scratch_, frontier_, next_;
};

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> IntegerArgument(const Cell& c, std::string_view what) {
  if (c.kind == Cell::Kind::kInt) return c.i;
  if (c.kind == Cell::Kind::kUInt) {
    if (c.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(c.u);
  }
  return InvalidArgument(fmt::format("{} must be an integer", what));
}

// ---------------------------------------------------------------------------
// The executor of one query run.

class ReadExecutor {
 public:
  ReadExecutor(const ir::QueryIR& query, const QueryContext& context) : q_(query), ctx_(context) {}

  Result<QueryResult> Run() {
    if (q_.is_mutation) {
      return InvalidArgument(fmt::format("query '{}' is a mutation; run it as a mutation, not a read", q_.name));
    }
    if (ctx_.snapshot == nullptr || ctx_.catalog == nullptr) {
      return InvalidArgument("query context needs a graph, a state and a catalog");
    }
    OG_RETURN_IF_ERROR(CheckParams());
    PrefetchTopologies(q_.read.steps);
    Bindings b;
    OG_RETURN_IF_ERROR(RunSteps(q_.read.steps, &b));

    QueryResult result;
    result.query_name = q_.name;
    result.branch = ctx_.snapshot->state().branch;
    result.graph_commit_id = ctx_.snapshot->state().head.id;
    for (const ir::Projection& p : q_.read.projections) result.columns.push_back(p.column);
    std::vector<ArrayPtr> columns;
    if (q_.read.aggregate) {
      OG_ASSIGN_OR_RETURN(columns, Aggregate(b));
    } else {
      OG_ASSIGN_OR_RETURN(columns, Project(b));
    }
    std::vector<Field> fields;
    for (size_t i = 0; i < columns.size(); ++i) fields.emplace_back(result.columns[i], columns[i]->type(), true);
    int64_t rows = columns.empty() ? 0 : columns.front()->length();
    result.rows = std::make_shared<RecordBatch>(std::make_shared<Schema>(std::move(fields)), rows, std::move(columns));
    return result;
  }

 private:
  // ---- parameters ---------------------------------------------------------

  Status CheckParams() {
    for (const ir::ParamDecl& p : q_.params) {
      if (!p.used || p.type.nullable || FindParam(p.name) != nullptr) continue;
      return InvalidArgument(fmt::format("parameter '{}' not provided", p.name));
    }
    // now() is one instant per query run (§2.8).
    if (q_.uses_now && FindParam(ir::kNowParam) == nullptr) now_ = Scalar::Int(NowMillis());
    return Status::OK();
  }

  const Scalar* FindParam(std::string_view name) const {
    if (ctx_.params == nullptr) return nullptr;
    auto it = ctx_.params->find(std::string(name));
    return it == ctx_.params->end() ? nullptr : &it->second;
  }

  // The value of a parameter; NULL for an omitted nullable one.
  const Scalar* Param(const std::string& name) const {
    if (const Scalar* v = FindParam(name)) return v;
    if (name == ir::kNowParam) return &now_;
    return &null_;
  }

  const Scalar* ValueOf(const ir::Value& v) const {
    return v.kind == ir::Value::Kind::kParam ? Param(v.param) : &v.literal;
  }

  // ---- data access --------------------------------------------------------

  Result<graph::TableDataPtr> Table(const std::string& table_key) {
    if (auto it = tables_.find(table_key); it != tables_.end()) return it->second;
    const graph::TableEntry* entry = ctx_.snapshot->state().FindTable(table_key);
    if (entry == nullptr) return NotFound(fmt::format("table '{}' is not part of the snapshot", table_key));
    OG_ASSIGN_OR_RETURN(graph::TableDataPtr data, ctx_.snapshot->CachedRows(*entry));
    tables_.emplace(table_key, data);
    return data;
  }

  // The `src` and `dst` columns of an edge table, in row order. A topology
  // needs nothing else, so unless the table's data is already decoded only
  // these two columns are read (edge ids and properties are skipped).
  Result<RecordBatchPtr> EdgeEndpoints(const graph::TableEntry& edges) {
    if (auto it = tables_.find(edges.table_key); it != tables_.end()) return it->second->rows();
    OG_ASSIGN_OR_RETURN(table::Dataset dataset, ctx_.snapshot->OpenDataset(edges));
    table::ScanOptions options;
    options.columns = {"src", "dst"};
    OG_ASSIGN_OR_RETURN(RecordBatchPtr endpoints, dataset.ToBatch(options));
    if (!endpoints->GetColumn("src") || !endpoints->GetColumn("dst")) {
      return CorruptData(fmt::format("edge table '{}' has no src/dst columns", edges.table_key));
    }
    return endpoints;
  }

  // The edge, from-node and to-node tables of `edge_type` in the snapshot.
  struct TopologyTables {
    const graph::TableEntry* edges = nullptr;
    const graph::TableEntry* from = nullptr;
    const graph::TableEntry* to = nullptr;
    std::string identity;  // TopologyIdentity of the three
  };

  Result<TopologyTables> TopologyTablesOf(const std::string& edge_type) const {
    const compiler::EdgeType* edge = ctx_.catalog->FindEdge(edge_type);
    if (edge == nullptr) return NotFound(fmt::format("edge type '{}' is not in the catalog", edge_type));
    TopologyTables t;
    t.edges = ctx_.snapshot->state().FindTable(edge->TableKey());
    t.from = ctx_.snapshot->state().FindTable("node:" + edge->from_type);
    t.to = ctx_.snapshot->state().FindTable("node:" + edge->to_type);
    if (t.edges == nullptr || t.from == nullptr || t.to == nullptr) {
      return NotFound(fmt::format("tables of edge type '{}' are not part of the snapshot", edge->name));
    }
    t.identity = TopologyIdentity(*t.edges, *t.from, *t.to);
    return t;
  }

  // By the root's URI: the cache is shared by every graph of the process.
  std::string TopologyCacheKey(const TopologyTables& t) const { return ctx_.snapshot->graph().uri() + "|" + t.identity; }

  // Starts reading the persisted topology of every edge type `steps`
  // traverse that the process has not cached, on background threads, so a
  // new process (a CLI query) reads them while it decodes the node tables
  // its scans need first.
  void PrefetchTopologies(const std::vector<ir::MatchStep>& steps) {
    for (const ir::MatchStep& step : steps) {
      if (step.kind == ir::MatchStep::Kind::kNegation) PrefetchTopologies(step.negation.steps);
      if (step.kind != ir::MatchStep::Kind::kTraverse || prefetched_.count(step.traverse.edge_type)) continue;
      Result<TopologyTables> t = TopologyTablesOf(step.traverse.edge_type);
      if (!t.ok() || ctx_.topologies->Contains(TopologyCacheKey(*t))) continue;
      prefetched_.emplace(step.traverse.edge_type,
                          std::async(std::launch::async, [store = ctx_.snapshot->graph().store(), root = ctx_.snapshot->graph().root(),
                                                          identity = t->identity] {
                            // Only loads: the persisting threshold (read from the environment) is moot.
                            return TopologyFiles(store.get(), root, /*min_edges=*/0).Load(identity);
                          }));
    }
  }

  Result<TopologyPtr> TopologyOf(const std::string& edge_type) {
    if (auto it = topologies_.find(edge_type); it != topologies_.end()) return it->second;
    OG_ASSIGN_OR_RETURN(TopologyTables t, TopologyTablesOf(edge_type));
    OG_ASSIGN_OR_RETURN(TopologyPtr topology,
                        ctx_.topologies->GetOrBuild(TopologyCacheKey(t), [&]() -> Result<TopologyPtr> {
      // A new process first looks for a copy an earlier one persisted.
      TopologyFiles files(ctx_.snapshot->graph().store().get(), ctx_.snapshot->graph().root());
      TopologyPtr persisted;
      if (auto it = prefetched_.find(edge_type); it != prefetched_.end()) {
        persisted = it->second.get();
        prefetched_.erase(it);
      } else if (!distrusted_.count(edge_type)) {
        persisted = files.Load(t.identity);
      }
      if (distrusted_.count(edge_type)) persisted = nullptr;
      OG_ASSIGN_OR_RETURN(graph::TableDataPtr from_nodes, Table(t.from->table_key));
      OG_ASSIGN_OR_RETURN(graph::TableDataPtr to_nodes, Table(t.to->table_key));
      // A copy verified its own identity and checksum; its node counts must
      // also be the tables' before node rows are read through it.
      if (persisted && persisted->forward.num_nodes() == from_nodes->num_rows() &&
          persisted->reverse.num_nodes() == to_nodes->num_rows()) {
        return persisted;
      }
      OG_ASSIGN_OR_RETURN(RecordBatchPtr endpoints, EdgeEndpoints(*t.edges));
      OG_ASSIGN_OR_RETURN(TopologyPtr built, BuildTopology(*endpoints->GetColumn("src"), *endpoints->GetColumn("dst"),
                                                           *from_nodes, *to_nodes));
      files.Save(t.identity, *built);
      return built;
    }));
    topologies_.emplace(edge_type, topology);
    return topology;
  }

  // Resolves a value expression against the layout of `b`.
  Result<Operand> Resolve(const ir::Expr& e, const Bindings& b) const {
    switch (e.kind) {
      case ir::Expr::Kind::kLiteral: return Operand::Constant(&e.literal);
      case ir::Expr::Kind::kParam: return Operand::Constant(Param(e.param));
      case ir::Expr::Kind::kProperty:
      case ir::Expr::Kind::kNodeId: {
        int s = b.Find(e.variable);
        if (s < 0) return Internal(fmt::format("variable `${}` is not bound", e.variable));
        const Slot& slot = b.slots[static_cast<size_t>(s)];
        const Array* array = e.kind == ir::Expr::Kind::kNodeId ? &slot.data->ids() : slot.data->Column(e.property);
        return Operand::Column(&b.cols[static_cast<size_t>(s)], array);
      }
      default: return Unsupported(fmt::format("expression `{}` cannot be evaluated here", e.source));
    }
  }

  // ---- match pipeline -----------------------------------------------------

  Status RunSteps(const std::vector<ir::MatchStep>& steps, Bindings* b) {
    for (const ir::MatchStep& step : steps) {
      switch (step.kind) {
        case ir::MatchStep::Kind::kScan: OG_RETURN_IF_ERROR(Scan(step.scan, b)); break;
        case ir::MatchStep::Kind::kCheck: OG_RETURN_IF_ERROR(Check(step.check, b)); break;
        case ir::MatchStep::Kind::kTraverse: OG_RETURN_IF_ERROR(Traverse(step.traverse, b)); break;
        case ir::MatchStep::Kind::kFilter: OG_RETURN_IF_ERROR(ApplyFilter(step.filter, b)); break;
        case ir::MatchStep::Kind::kNegation: OG_RETURN_IF_ERROR(Negate(step.negation, b)); break;
      }
    }
    return Status::OK();
  }

  std::vector<ResolvedPropertyFilter> ResolveFilters(const graph::TableData& data,
                                                     const std::vector<ir::PropertyFilter>& filters) const {
    std::vector<ResolvedPropertyFilter> out;
    for (const ir::PropertyFilter& f : filters) {
      out.push_back({data.Column(f.property), ValueOf(f.value), f.membership});
    }
    return out;
  }

  static bool MatchesAll(const std::vector<ResolvedPropertyFilter>& filters, int64_t row) {
    for (const ResolvedPropertyFilter& f : filters) {
      if (!f.Matches(row)) return false;
    }
    return true;
  }

  // Rows of node type `type_name` passing `filters`. An equality on the
  // single-property @key is answered by the id index: the id of a keyed node
  // is the canonical spelling of its key (§1.7).
  Status ScanRows(const std::string& type_name, const graph::TableData& data,
                  const std::vector<ir::PropertyFilter>& filters, RowList* rows) const {
    std::vector<ResolvedPropertyFilter> resolved = ResolveFilters(data, filters);
    const compiler::NodeType* node = ctx_.catalog->FindNode(type_name);
    if (node != nullptr && node->key.size() == 1) {
      for (const ir::PropertyFilter& f : filters) {
        if (f.membership || f.property != node->key[0]) continue;
        const Scalar* value = ValueOf(f.value);
        if (value->is_null()) return Status::OK();  // NULL never matches
        std::optional<Scalar> key = KeyLookupValue(f.property_type, *value);
        if (!key) return Status::OK();
        Result<std::string> id = compiler::DeriveKeyId(*node, {*key});
        if (!id.ok()) break;  // not a representable key value: fall back to the scan
        int64_t row = data.RowOf(*id);
        if (row >= 0 && MatchesAll(resolved, row)) rows->push_back(static_cast<uint32_t>(row));
        return Status::OK();
      }
    }
    const int64_t n = data.num_rows();
    // One equality runs as a typed column loop; the other filters check its
    // candidates.
    for (size_t k = 0; k < resolved.size(); ++k) {
      const ResolvedPropertyFilter& f = resolved[k];
      if (f.membership || f.column == nullptr) continue;
      RowList candidates;
      if (!FilterColumnAgainstConstant(*f.column, nullptr, static_cast<size_t>(n), CellOf(*f.value),
                                       /*constant_on_left=*/false, ir::CompareOp::kEq, &candidates)) {
        continue;
      }
      resolved.erase(resolved.begin() + static_cast<std::ptrdiff_t>(k));
      for (uint32_t r : candidates) {
        if (MatchesAll(resolved, r)) rows->push_back(r);
      }
      return Status::OK();
    }
    if (resolved.empty()) {
      rows->resize(static_cast<size_t>(n));
      std::iota(rows->begin(), rows->end(), 0u);
      return Status::OK();
    }
    for (int64_t r = 0; r < n; ++r) {
      if (MatchesAll(resolved, r)) rows->push_back(static_cast<uint32_t>(r));
    }
    return Status::OK();
  }

  // Adds `slot` bound to each of `rows`, as a cartesian product with the
  // rows bound so far (§2.4: unconnected bindings multiply).
  static Status Cartesian(Bindings* b, Slot slot, RowList rows) {
    const uint64_t n = b->num_rows, m = rows.size();
    if (n * m > kMaxBindingRows) return ResourceLimitExceeded("binding rows", kMaxBindingRows, n * m);
    if (n == 1) {
      for (RowList& col : b->cols) {
        const uint32_t v = col[0];
        col.assign(m, v);
      }
      b->cols.push_back(std::move(rows));
    } else {
      for (RowList& col : b->cols) {
        RowList out;
        out.reserve(n * m);
        for (uint32_t v : col) out.insert(out.end(), m, v);
        col = std::move(out);
      }
      RowList out;
      out.reserve(n * m);
      for (uint64_t i = 0; i < n; ++i) out.insert(out.end(), rows.begin(), rows.end());
      b->cols.push_back(std::move(out));
    }
    b->slots.push_back(std::move(slot));
    b->num_rows = n * m;
    return Status::OK();
  }

  Status Scan(const ir::NodeScan& s, Bindings* b) {
    OG_ASSIGN_OR_RETURN(graph::TableDataPtr data, Table("node:" + s.type_name));
    RowList rows;
    if (b->num_rows > 0) OG_RETURN_IF_ERROR(ScanRows(s.type_name, *data, s.filters, &rows));
    return Cartesian(b, Slot{s.variable, Slot::Kind::kNode, s.type_name, data}, std::move(rows));
  }

  Status Check(const ir::BindingCheck& c, Bindings* b) const {
    int s = b->Find(c.variable);
    if (s < 0) return Internal(fmt::format("variable `${}` is not bound", c.variable));
    const Slot& slot = b->slots[static_cast<size_t>(s)];
    std::vector<ResolvedPropertyFilter> filters = ResolveFilters(*slot.data, c.filters);
    const RowList& col = b->cols[static_cast<size_t>(s)];
    RowList keep;
    for (size_t i = 0; i < b->num_rows; ++i) {
      if (MatchesAll(filters, col[i])) keep.push_back(static_cast<uint32_t>(i));
    }
    Select(b, keep);
    return Status::OK();
  }

  Status Traverse(const ir::Traverse& t, Bindings* b) {
    OG_ASSIGN_OR_RETURN(TopologyPtr topology, TopologyOf(t.edge_type));
    int from = b->Find(t.from_variable);
    if (from < 0) return Internal(fmt::format("traversal source `${}` is not bound", t.from_variable));
    int to = t.to_is_new ? -1 : b->Find(t.to_variable);
    if (!t.to_is_new && to < 0) return Internal(fmt::format("traversal target `${}` is not bound", t.to_variable));
    const bool with_edge = !t.edge_variable.empty();
    Expander expander(*topology, t);

    RowList parent, to_rows, edge_rows;
    const RowList& from_col = b->cols[static_cast<size_t>(from)];
    if (t.to_is_new) {
      for (size_t i = 0; i < b->num_rows; ++i) {
        const uint32_t row = static_cast<uint32_t>(i);
        if (with_edge) {
          // One row per edge ({1,1} only, §2.4 edge bindings).
          if (expander.empty_range()) continue;
          expander.ForEachEdge(from_col[i], [&](uint32_t v, uint32_t e) {
            parent.push_back(row);
            to_rows.push_back(v);
            edge_rows.push_back(e);
          });
        } else {
          expander.Reach(from_col[i], [&](uint32_t v) {
            parent.push_back(row);
            to_rows.push_back(v);
          });
        }
      }
    } else {
      // Cycle check: keep the rows whose reached node is the bound target.
      const RowList& to_col = b->cols[static_cast<size_t>(to)];
      for (size_t i = 0; i < b->num_rows; ++i) {
        const uint32_t row = static_cast<uint32_t>(i);
        const uint32_t target = to_col[i];
        if (with_edge) {
          if (expander.empty_range()) continue;
          expander.ForEachEdge(from_col[i], [&](uint32_t v, uint32_t e) {
            if (v != target) return;
            parent.push_back(row);
            edge_rows.push_back(e);
          });
        } else if (expander.single_hop()) {
          if (!expander.empty_range() && expander.IsNeighbor(from_col[i], target)) parent.push_back(row);
        } else {
          bool found = false;
          expander.Reach(from_col[i], [&](uint32_t v) { found = found || v == target; });
          if (found) parent.push_back(row);
        }
      }
    }
    if (expander.corrupt()) {
      // The persisted copy failed verification where this step read it. It
      // is only a cache: traverse again over a topology built from the
      // tables (which replaces the file). A built one is never unverified.
      if (!distrusted_.insert(t.edge_type).second) {
        return Internal(fmt::format("topology of '{}' failed verification twice", t.edge_type));
      }
      OG_ASSIGN_OR_RETURN(TopologyTables tables, TopologyTablesOf(t.edge_type));
      ctx_.topologies->Erase(TopologyCacheKey(tables), topology);
      topologies_.erase(t.edge_type);
      return Traverse(t, b);
    }
    if (parent.size() > kMaxBindingRows) return ResourceLimitExceeded("binding rows", kMaxBindingRows, parent.size());

    Bindings out = Gather(*b, parent);
    if (t.to_is_new) {
      OG_ASSIGN_OR_RETURN(graph::TableDataPtr to_data, Table("node:" + t.to_type));
      out.slots.push_back(Slot{t.to_variable, Slot::Kind::kNode, t.to_type, std::move(to_data)});
      out.cols.push_back(std::move(to_rows));
    }
    if (with_edge) {
      OG_ASSIGN_OR_RETURN(graph::TableDataPtr edge_data, Table("edge:" + t.edge_type));
      if (static_cast<uint64_t>(edge_data->num_rows()) != topology->edge_rows) {
        return CorruptData(fmt::format("traversal topology of '{}' indexes {} edge rows, the table has {}",
                                       t.edge_type, topology->edge_rows, edge_data->num_rows()));
      }
      out.slots.push_back(Slot{t.edge_variable, Slot::Kind::kEdge, t.edge_type, std::move(edge_data)});
      out.cols.push_back(std::move(edge_rows));
    }
    *b = std::move(out);
    return Status::OK();
  }

  Status ApplyFilter(const ir::Filter& f, Bindings* b) {
    if (f.kind == ir::Filter::Kind::kTextSearch) return ApplyTextSearch(f.left, b);
    OG_ASSIGN_OR_RETURN(Operand l, Resolve(f.left, *b));
    OG_ASSIGN_OR_RETURN(Operand r, Resolve(f.right, *b));
    RowList keep;
    if (f.kind == ir::Filter::Kind::kCompare && l.is_constant() != r.is_constant()) {
      // Column against a constant: a typed loop when the kinds allow it.
      const Operand& column = l.is_constant() ? r : l;
      const Operand& constant = l.is_constant() ? l : r;
      if (column.array() != nullptr &&
          FilterColumnAgainstConstant(*column.array(), column.table_rows(), b->num_rows, constant.At(0),
                                      /*constant_on_left=*/l.is_constant(), f.op, &keep)) {
        Select(b, keep);
        return Status::OK();
      }
      keep.clear();
    }
    if (l.is_constant() && r.is_constant()) {
      if (EvalFilter(f, l.At(0), r.At(0))) return Status::OK();
      Select(b, keep);
      return Status::OK();
    }
    for (size_t i = 0; i < b->num_rows; ++i) {
      if (EvalFilter(f, l.At(i), r.At(i))) keep.push_back(static_cast<uint32_t>(i));
    }
    Select(b, keep);
    return Status::OK();
  }

  // search / fuzzy / match_text as a boolean clause (§2.7).
  Status ApplyTextSearch(const ir::Expr& e, Bindings* b) {
    if (e.args.size() < 2) return Internal(fmt::format("malformed text search `{}`", e.source));
    OG_ASSIGN_OR_RETURN(Operand field, Resolve(e.args[0], *b));
    OG_ASSIGN_OR_RETURN(Operand query, Resolve(e.args[1], *b));
    uint32_t max_edits = 0;
    const bool fuzzy = e.kind == ir::Expr::Kind::kFuzzy;
    if (fuzzy) {
      if (e.args.size() < 3) return Internal("fuzzy without max_edits");
      OG_ASSIGN_OR_RETURN(Operand m, Resolve(e.args[2], *b));
      if (!m.is_constant()) return Unsupported("fuzzy max_edits must be a literal or a parameter");
      Cell c = m.At(0);
      if (c.is_null()) return InvalidArgument("fuzzy max_edits must not be null");
      OG_ASSIGN_OR_RETURN(int64_t edits, IntegerArgument(c, "fuzzy max_edits"));
      if (edits < 0) return InvalidArgument(fmt::format("fuzzy max_edits must be >= 0, got {}", edits));
      max_edits = static_cast<uint32_t>(std::min<int64_t>(edits, 1 << 20));
    }
    auto matches = [&](const Cell& text, const std::vector<std::string>& query_tokens) {
      if (text.kind != Cell::Kind::kString) return false;
      std::vector<std::string> tokens = UniqueTokens(text.s);
      return fuzzy ? AnyTokenFuzzyMatches(tokens, query_tokens, max_edits) : AnyTokenMatches(tokens, query_tokens);
    };
    RowList keep;
    if (query.is_constant()) {
      Cell q = query.At(0);
      if (q.kind != Cell::Kind::kString) {
        Select(b, keep);
        return Status::OK();
      }
      std::vector<std::string> query_tokens = UniqueTokens(q.s);
      // Rows repeat entities; tokenize each table row once.
      std::unordered_map<uint32_t, bool> cache;
      for (size_t i = 0; i < b->num_rows; ++i) {
        bool pass;
        if (field.is_constant()) {
          pass = matches(field.At(i), query_tokens);
        } else {
          auto [it, inserted] = cache.try_emplace(field.TableRow(i), false);
          if (inserted) it->second = matches(field.At(i), query_tokens);
          pass = it->second;
        }
        if (pass) keep.push_back(static_cast<uint32_t>(i));
      }
    } else {
      for (size_t i = 0; i < b->num_rows; ++i) {
        Cell q = query.At(i);
        if (q.kind == Cell::Kind::kString && matches(field.At(i), UniqueTokens(q.s))) {
          keep.push_back(static_cast<uint32_t>(i));
        }
      }
    }
    Select(b, keep);
    return Status::OK();
  }

  // Anti-join (§2.4): the inner steps run seeded with the outer rows, each
  // tagged by a hidden origin column; outer rows with a surviving inner row
  // are dropped.
  Status Negate(const ir::Negation& n, Bindings* b) {
    if (b->num_rows == 0) return Status::OK();
    const std::string origin = fmt::format("#origin{}", negation_depth_++);
    std::vector<uint8_t> matched(b->num_rows, 0);
    Status status;
    for (size_t start = 0; start < b->num_rows && status.ok(); start += kNegationChunkRows) {
      size_t end = std::min(b->num_rows, start + kNegationChunkRows);
      RowList picks(end - start);
      std::iota(picks.begin(), picks.end(), static_cast<uint32_t>(start));
      Bindings seed = Gather(*b, picks);
      seed.slots.push_back(Slot{origin, Slot::Kind::kOrigin, "", nullptr});
      seed.cols.push_back(std::move(picks));
      status = RunSteps(n.steps, &seed);
      if (!status.ok()) break;
      const RowList& origins = seed.cols[static_cast<size_t>(seed.Find(origin))];
      for (size_t r = 0; r < seed.num_rows; ++r) matched[origins[r]] = 1;
    }
    --negation_depth_;
    OG_RETURN_IF_ERROR(status);
    RowList keep;
    for (size_t i = 0; i < b->num_rows; ++i) {
      if (!matched[i]) keep.push_back(static_cast<uint32_t>(i));
    }
    Select(b, keep);
    return Status::OK();
  }

  // ---- search scoring ----------------------------------------------------

  // Squared L2 distance of each row's vector to the query (nullopt: NULL
  // vector). Rows of one entity share a value.
  Status NearestScores(const ir::Expr& e, const Bindings& b, Scores* out) const {
    int s = b.Find(e.variable);
    if (s < 0) return Internal(fmt::format("variable `${}` is not bound", e.variable));
    const Slot& slot = b.slots[static_cast<size_t>(s)];
    const Array* column = slot.data->Column(e.property);
    out->assign(b.num_rows, std::nullopt);
    if (e.args.empty()) return Internal("nearest without a query");
    OG_ASSIGN_OR_RETURN(Operand query, Resolve(e.args[0], b));
    if (!query.is_constant()) return Unsupported("nearest query must be a literal or a parameter");
    const Scalar& qv = query.constant();
    if (qv.is_null()) return Status::OK();  // a NULL query is near nothing
    std::vector<double> q;
    if (e.embed_text) {
      if (!qv.is_string()) return InvalidArgument("nearest text query must be a String");
      if (!MockEmbeddingsEnabled()) return EmbeddingProviderUnavailable();
      int32_t dim = column != nullptr && column->type_id() == TypeId::kFixedSizeList ? column->type()->list_size() : 0;
      if (dim <= 0) return Status::OK();
      OG_ASSIGN_OR_RETURN(std::vector<float> v, MockEmbedding(qv.string_value(), dim));
      q.assign(v.begin(), v.end());
    } else {
      if (!qv.is_nested()) return InvalidArgument("nearest query must be a vector");
      for (const Scalar& x : qv.nested()) {
        if (!x.is_numeric()) return InvalidArgument("nearest query vector must hold numbers");
        q.push_back(static_cast<double>(static_cast<float>(x.AsDouble())));
      }
    }
    if (column == nullptr) return Status::OK();
    if (column->type_id() != TypeId::kFixedSizeList || column->child(0)->type_id() != TypeId::kFloat32) {
      return Unsupported(fmt::format("nearest over a {} column", column->type()->ToString()));
    }
    const int64_t dim = column->type()->list_size();
    if (static_cast<int64_t>(q.size()) != dim) {
      return InvalidArgument(
          fmt::format("nearest query vector has {} elements, property {} is Vector({})", q.size(), e.property, dim));
    }
    const Array& child = *column->child(0);
    const float* values = child.raw_values<float>();
    const RowList& rows = b.cols[static_cast<size_t>(s)];
    for (size_t i = 0; i < b.num_rows; ++i) {
      const int64_t r = rows[i];
      if (column->IsNull(r)) continue;
      double sum = 0;
      bool valid = true;
      for (int64_t k = 0; k < dim; ++k) {
        if (child.IsNull(r * dim + k)) {
          valid = false;
          break;
        }
        double d = static_cast<double>(values[r * dim + k]) - q[static_cast<size_t>(k)];
        sum += d * d;
      }
      if (valid) (*out)[i] = sum;
    }
    return Status::OK();
  }

  // BM25 score of each row's field (nullopt: no query token in it). The
  // corpus statistics are those of the distinct candidate entities.
  Status Bm25Scores(const ir::Expr& e, const Bindings& b, Scores* out) const {
    out->assign(b.num_rows, std::nullopt);
    if (e.args.size() < 2) return Internal("malformed bm25");
    OG_ASSIGN_OR_RETURN(Operand field, Resolve(e.args[0], b));
    OG_ASSIGN_OR_RETURN(Operand query, Resolve(e.args[1], b));
    if (!query.is_constant() || field.is_constant()) {
      return Unsupported("bm25 needs a property field and a literal or parameter query");
    }
    Cell q = query.At(0);
    if (q.kind != Cell::Kind::kString) return Status::OK();
    std::vector<std::string> tokens;
    Tokenize(q.s, &tokens);
    Bm25Scorer scorer(std::move(tokens));
    std::unordered_map<uint32_t, size_t> doc_of;
    std::vector<size_t> doc_of_row(b.num_rows, SIZE_MAX);
    for (size_t i = 0; i < b.num_rows; ++i) {
      Cell text = field.At(i);
      if (text.kind != Cell::Kind::kString) continue;
      auto [it, inserted] = doc_of.try_emplace(field.TableRow(i), 0);
      if (inserted) it->second = scorer.AddDocument(text.s);
      doc_of_row[i] = it->second;
    }
    for (size_t i = 0; i < b.num_rows; ++i) {
      if (doc_of_row[i] != SIZE_MAX && scorer.Matches(doc_of_row[i])) (*out)[i] = scorer.Score(doc_of_row[i]);
    }
    return Status::OK();
  }

  Status ComputeScores(const ir::Expr& e, const Bindings& b, Scores* out) const {
    switch (e.kind) {
      case ir::Expr::Kind::kNearest: return NearestScores(e, b, out);
      case ir::Expr::Kind::kBm25: return Bm25Scores(e, b, out);
      default: return Unsupported(fmt::format("`{}` cannot be scored here", e.source));
    }
  }

  // Rows of one search arm in rank order: nearest ascending distance (at
  // most `limit`), bm25 descending score (matching rows only).
  Status RankRows(const ir::Expr& e, const Bindings& b, RowList* rows, Scores* scores) const {
    OG_RETURN_IF_ERROR(ComputeScores(e, b, scores));
    rows->clear();
    for (size_t i = 0; i < b.num_rows; ++i) {
      if ((*scores)[i]) rows->push_back(static_cast<uint32_t>(i));
    }
    const bool ascending = e.kind == ir::Expr::Kind::kNearest;
    std::stable_sort(rows->begin(), rows->end(), [&](uint32_t x, uint32_t y) {
      return ascending ? *(*scores)[x] < *(*scores)[y] : *(*scores)[x] > *(*scores)[y];
    });
    if (ascending && q_.read.limit && rows->size() > *q_.read.limit) rows->resize(*q_.read.limit);
    return Status::OK();
  }

  // The entity a search arm ranks: the variable of its searched property.
  Result<const Slot*> ArmEntity(const ir::Expr& arm, const Bindings& b, const RowList** col) const {
    const std::string& var = arm.kind == ir::Expr::Kind::kNearest ? arm.variable : arm.args.at(0).variable;
    int s = b.Find(var);
    if (s < 0) return Internal(fmt::format("variable `${}` is not bound", var));
    *col = &b.cols[static_cast<size_t>(s)];
    return &b.slots[static_cast<size_t>(s)];
  }

  // Reciprocal rank fusion (§2.7).
  Status RrfOrder(const ir::Expr& e, const Bindings& b, RowList* perm, Scores* scores) const {
    if (e.args.size() < 3) return Internal("malformed rrf");
    OG_ASSIGN_OR_RETURN(Operand k_operand, Resolve(e.args[2], b));
    if (!k_operand.is_constant() || k_operand.At(0).is_null()) return InvalidArgument("rrf k must be an integer");
    OG_ASSIGN_OR_RETURN(int64_t k, IntegerArgument(k_operand.At(0), "rrf k"));
    if (k <= 0) return InvalidArgument(fmt::format("rrf k must be greater than 0, got {}", k));

    struct Arm {
      RowList rows;                                   // rank order
      std::vector<std::string_view> entities;         // distinct, first-appearance order
      std::unordered_map<std::string_view, size_t> rank;
      std::vector<RowList> entity_rows;               // per entity, rank order
    };
    Arm arms[2];
    for (int a = 0; a < 2; ++a) {
      const ir::Expr& expr = e.args[static_cast<size_t>(a)];
      Scores arm_scores;
      OG_RETURN_IF_ERROR(RankRows(expr, b, &arms[a].rows, &arm_scores));
      const RowList* col = nullptr;
      OG_ASSIGN_OR_RETURN(const Slot* slot, ArmEntity(expr, b, &col));
      for (uint32_t row : arms[a].rows) {
        std::string_view id = slot->data->ids().GetView((*col)[row]);
        auto [it, inserted] = arms[a].rank.try_emplace(id, arms[a].entities.size());
        if (inserted) {
          arms[a].entities.push_back(id);
          arms[a].entity_rows.emplace_back();
        }
        arms[a].entity_rows[it->second].push_back(row);
      }
    }
    struct Candidate {
      std::string_view id;
      double score = 0;
    };
    std::vector<Candidate> candidates;
    auto fused = [&](std::string_view id) {
      double s = 0;
      for (const Arm& arm : arms) {
        if (auto it = arm.rank.find(id); it != arm.rank.end()) s += 1.0 / (static_cast<double>(k) + it->second + 1);
      }
      return s;
    };
    for (std::string_view id : arms[0].entities) candidates.push_back({id, fused(id)});
    for (std::string_view id : arms[1].entities) {
      if (!arms[0].rank.count(id)) candidates.push_back({id, fused(id)});
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
    const uint64_t limit = q_.read.limit.value_or(candidates.size());
    if (candidates.size() > limit) candidates.resize(limit);
    perm->clear();
    scores->clear();
    for (const Candidate& c : candidates) {
      const Arm& arm = arms[0].rank.count(c.id) ? arms[0] : arms[1];
      for (uint32_t row : arm.entity_rows[arm.rank.at(c.id)]) {
        perm->push_back(row);
        scores->push_back(c.score);
      }
    }
    if (perm->size() > limit) {
      perm->resize(limit);
      scores->resize(limit);
    }
    return Status::OK();
  }

  // The search order (§2.6, §2.7): the rows in search order with their
  // scores (parallel to `perm`).
  Status SearchOrder(const ir::Expr& e, const Bindings& b, RowList* perm, Scores* scores) const {
    if (e.kind == ir::Expr::Kind::kRrf) return RrfOrder(e, b, perm, scores);
    Scores all;
    OG_RETURN_IF_ERROR(RankRows(e, b, perm, &all));
    scores->clear();
    for (uint32_t row : *perm) scores->push_back(all[row]);
    return Status::OK();
  }

  // ---- projection -----------------------------------------------------------

  // A column of `type` holding `value` `n` times.
  static Result<ArrayPtr> RepeatConstant(const DataTypePtr& type, const Scalar& value, size_t n) {
    auto builder = ArrayBuilder::Make(type);
    builder->Reserve(static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) OG_RETURN_IF_ERROR(builder->AppendScalar(value));
    return builder->Finish();
  }

  // The values of `operand` at binding rows `rows`.
  static Result<ArrayPtr> TakeOperand(const Operand& operand, const DataTypePtr& type, const RowList& rows) {
    if (operand.is_constant()) return RepeatConstant(type, operand.constant(), rows.size());
    if (operand.array() == nullptr) return MakeNullArray(type, static_cast<int64_t>(rows.size()));
    std::vector<int64_t> indices(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) indices[k] = operand.TableRow(rows[k]);
    return TakeArray(*operand.array(), indices);
  }

  static ArrayPtr ScoreColumn(const Scores& scores) {
    Float64Builder builder(DataType::Float64());
    for (const std::optional<double>& s : scores) {
      if (s) {
        builder.Append(*s);
      } else {
        builder.AppendNull();
      }
    }
    return builder.Finish();
  }

  static bool SameSearch(const ir::Expr& a, const ir::Expr& b) { return a.kind == b.kind && a.source == b.source; }

  Result<std::vector<ArrayPtr>> Project(const Bindings& b) {
    const ir::ReadQuery& read = q_.read;
    RowList perm;
    Scores search_scores;
    if (read.search_order) {
      OG_RETURN_IF_ERROR(SearchOrder(*read.search_order, b, &perm, &search_scores));
    } else {
      perm.resize(b.num_rows);
      std::iota(perm.begin(), perm.end(), 0u);
      if (!read.order.empty()) OG_RETURN_IF_ERROR(SortRows(b, &perm));
    }
    if (read.limit && perm.size() > *read.limit) {
      perm.resize(*read.limit);
      if (!search_scores.empty()) search_scores.resize(*read.limit);
    }

    std::vector<ArrayPtr> columns;
    for (const ir::Projection& p : read.projections) {
      const ir::Expr& e = p.expr;
      switch (e.kind) {
        case ir::Expr::Kind::kLiteral:
        case ir::Expr::Kind::kParam:
        case ir::Expr::Kind::kProperty:
        case ir::Expr::Kind::kNodeId: {
          OG_ASSIGN_OR_RETURN(Operand operand, Resolve(e, b));
          DataTypePtr type = operand.array() != nullptr ? operand.array()->type() : e.type.PhysicalType();
          OG_ASSIGN_OR_RETURN(ArrayPtr column, TakeOperand(operand, type, perm));
          columns.push_back(std::move(column));
          break;
        }
        case ir::Expr::Kind::kNearest:
        case ir::Expr::Kind::kBm25:
        case ir::Expr::Kind::kRrf: {
          if (read.search_order && SameSearch(e, *read.search_order)) {
            columns.push_back(ScoreColumn(search_scores));
            break;
          }
          if (e.kind == ir::Expr::Kind::kRrf) {
            return Unsupported(fmt::format("projecting `{}` requires ordering by the same rrf(...)", e.source));
          }
          Scores all, picked;
          OG_RETURN_IF_ERROR(ComputeScores(e, b, &all));
          for (uint32_t row : perm) picked.push_back(all[row]);
          columns.push_back(ScoreColumn(picked));
          break;
        }
        default: return Unsupported(fmt::format("unsupported projection expression `{}`", e.source));
      }
    }
    return columns;
  }

  // User order keys, then the ids of every bound named variable (§2.6).
  Status SortRows(const Bindings& b, RowList* perm) const {
    struct Key {
      Operand operand;
      bool descending;
    };
    std::vector<Key> keys;
    for (const ir::OrderKey& k : q_.read.order) {
      const ir::Expr& e = k.kind == ir::OrderKey::Kind::kProjection
                              ? q_.read.projections.at(static_cast<size_t>(k.projection)).expr
                              : k.expr;
      OG_ASSIGN_OR_RETURN(Operand operand, Resolve(e, b));
      keys.push_back({operand, k.descending});
    }
    std::vector<std::pair<const Array*, const RowList*>> ties;
    for (const std::string& var : q_.read.tie_break_variables) {
      int s = b.Find(var);
      if (s < 0) continue;
      ties.emplace_back(&b.slots[static_cast<size_t>(s)].data->ids(), &b.cols[static_cast<size_t>(s)]);
    }
    auto less = [&](uint32_t x, uint32_t y) {
      for (const Key& k : keys) {
        int c = OrderCells(k.operand.At(x), k.operand.At(y));
        if (c != 0) return k.descending ? c > 0 : c < 0;
      }
      for (const auto& [ids, rows] : ties) {
        int c = ids->GetView((*rows)[x]).compare(ids->GetView((*rows)[y]));
        if (c != 0) return c < 0;
      }
      return false;
    };
    // Rows equal under this order agree on every projectable value (all named
    // variables are tie-break keys), so an unstable sort is safe.
    const uint64_t limit = q_.read.limit.value_or(perm->size());
    if (limit < perm->size() / 2) {
      std::partial_sort(perm->begin(), perm->begin() + static_cast<std::ptrdiff_t>(limit), perm->end(), less);
      perm->resize(limit);
    } else {
      std::sort(perm->begin(), perm->end(), less);
    }
    return Status::OK();
  }

  // ---- aggregation ----------------------------------------------------------

  Result<std::vector<ArrayPtr>> Aggregate(const Bindings& b) {
    const ir::ReadQuery& read = q_.read;
    if (read.search_order) return Unsupported("search ordering in an aggregate query");
    const size_t n = b.num_rows;

    // Groups in first-appearance order (§2.5).
    std::vector<Operand> key_operands;
    for (int k : read.group_keys) {
      OG_ASSIGN_OR_RETURN(Operand o, Resolve(read.projections.at(static_cast<size_t>(k)).expr, b));
      key_operands.push_back(o);
    }
    RowList group_of(n, 0);
    RowList representative;  // first binding row of each group
    if (key_operands.empty()) {
      representative.push_back(n > 0 ? 0 : kNoRow);  // one group even without rows
    } else {
      std::unordered_map<std::string, uint32_t> groups;
      std::string key;
      for (size_t i = 0; i < n; ++i) {
        key.clear();
        for (const Operand& o : key_operands) AppendGroupKey(o.At(i), &key);
        auto it = groups.find(key);
        if (it == groups.end()) {
          it = groups.emplace(key, static_cast<uint32_t>(representative.size())).first;
          representative.push_back(static_cast<uint32_t>(i));
        }
        group_of[i] = it->second;
      }
    }
    const size_t num_groups = representative.size();

    std::vector<ArrayPtr> columns;
    for (const ir::Projection& p : read.projections) {
      if (!p.is_aggregate) {
        OG_ASSIGN_OR_RETURN(Operand o, Resolve(p.expr, b));
        DataTypePtr type = o.array() != nullptr ? o.array()->type() : p.expr.type.PhysicalType();
        OG_ASSIGN_OR_RETURN(ArrayPtr column, TakeOperand(o, type, representative));
        columns.push_back(std::move(column));
        continue;
      }
      const ir::Expr& e = p.expr;
      if (e.args.empty()) return Internal(fmt::format("aggregate `{}` without argument", e.source));
      OG_ASSIGN_OR_RETURN(Operand arg, Resolve(e.args[0], b));
      std::vector<int64_t> counts(num_groups, 0);
      std::vector<double> sums(num_groups, 0);
      RowList best(num_groups, kNoRow);
      for (size_t i = 0; i < n; ++i) {
        Cell c = arg.At(i);
        if (c.is_null()) continue;
        const uint32_t g = group_of[i];
        ++counts[g];
        switch (e.agg) {
          case compiler::query::AggFunc::kCount: break;
          case compiler::query::AggFunc::kSum:
          case compiler::query::AggFunc::kAvg:
            sums[g] += c.kind == Cell::Kind::kInt    ? static_cast<double>(c.i)
                       : c.kind == Cell::Kind::kUInt ? static_cast<double>(c.u)
                                                     : c.d;
            break;
          case compiler::query::AggFunc::kMin:
          case compiler::query::AggFunc::kMax: {
            if (best[g] == kNoRow) {
              best[g] = static_cast<uint32_t>(i);
              break;
            }
            int cmp = OrderCells(c, arg.At(best[g]));
            if (e.agg == compiler::query::AggFunc::kMin ? cmp < 0 : cmp > 0) best[g] = static_cast<uint32_t>(i);
            break;
          }
        }
      }
      switch (e.agg) {
        case compiler::query::AggFunc::kCount: {
          Int64Builder builder(DataType::Int64());
          for (int64_t c : counts) builder.Append(c);
          columns.push_back(builder.Finish());
          break;
        }
        case compiler::query::AggFunc::kSum:
        case compiler::query::AggFunc::kAvg: {
          Float64Builder builder(DataType::Float64());
          for (size_t g = 0; g < num_groups; ++g) {
            if (counts[g] == 0) {
              builder.AppendNull();
            } else {
              builder.Append(e.agg == compiler::query::AggFunc::kSum ? sums[g]
                                                                     : sums[g] / static_cast<double>(counts[g]));
            }
          }
          columns.push_back(builder.Finish());
          break;
        }
        case compiler::query::AggFunc::kMin:
        case compiler::query::AggFunc::kMax: {
          DataTypePtr type = arg.array() != nullptr ? arg.array()->type() : e.type.PhysicalType();
          auto builder = ArrayBuilder::Make(type);
          for (size_t g = 0; g < num_groups; ++g) {
            if (best[g] == kNoRow) {
              builder->AppendNull();
            } else if (arg.is_constant()) {
              OG_RETURN_IF_ERROR(builder->AppendScalar(arg.constant()));
            } else {
              builder->AppendFrom(*arg.array(), arg.TableRow(best[g]), 1);
            }
          }
          columns.push_back(builder->Finish());
          break;
        }
      }
    }
    // Order (stable: ties keep first-appearance order, §2.6) and limit.
    RowList perm(num_groups);
    std::iota(perm.begin(), perm.end(), 0u);
    if (!read.order.empty()) {
      std::vector<std::pair<const Array*, bool>> keys;
      for (const ir::OrderKey& k : read.order) {
        if (k.kind != ir::OrderKey::Kind::kProjection || k.projection < 0 ||
            static_cast<size_t>(k.projection) >= columns.size()) {
          return Unsupported(fmt::format("order key `{}` in an aggregate query", k.expr.source));
        }
        keys.emplace_back(columns[static_cast<size_t>(k.projection)].get(), k.descending);
      }
      std::stable_sort(perm.begin(), perm.end(), [&](uint32_t x, uint32_t y) {
        for (const auto& [column, descending] : keys) {
          int c = OrderCells(CellOf(column, x), CellOf(column, y));
          if (c != 0) return descending ? c > 0 : c < 0;
        }
        return false;
      });
    }
    if (read.limit && perm.size() > *read.limit) perm.resize(*read.limit);
    bool identity = true;
    for (size_t k = 0; k < perm.size() && identity; ++k) identity = perm[k] == k;
    if (!identity || perm.size() != num_groups) {
      std::vector<int64_t> indices(perm.begin(), perm.end());
      for (ArrayPtr& column : columns) column = TakeArray(*column, indices);
    }
    return columns;
  }

  const ir::QueryIR& q_;
  const QueryContext& ctx_;
  std::map<std::string, graph::TableDataPtr, std::less<>> tables_;
  std::map<std::string, TopologyPtr, std::less<>> topologies_;
  // Persisted topologies being read in the background (PrefetchTopologies);
  // destroying a future waits for its read, so none outlives the executor.
  std::map<std::string, std::future<TopologyPtr>, std::less<>> prefetched_;
  // Edge types whose persisted topology failed verification in this query.
  std::set<std::string, std::less<>> distrusted_;
  Scalar null_;
  Scalar now_;
  int negation_depth_ = 0;
};

}  // namespace

Result<QueryResult> ExecuteRead(const compiler::ir::QueryIR& query, const QueryContext& context) {
  ReadExecutor executor(query, context);
  return executor.Run();
}

}  // namespace omnigraph::exec
