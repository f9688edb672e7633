#include "exec/write_delta.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include "columnar/scalar.h"
#include "compiler/entity_id.h"
#include "exec/json_value.h"
#include "exec/rust_regex.h"
#include "graph/id_index.h"

namespace omnigraph::exec {
namespace {

using compiler::Catalog;
using compiler::EdgeType;
using compiler::NodeType;
using compiler::Property;
using graph::GraphState;
using graph::TableDataPtr;

// Names the written row a violation is about (details table_key and
// entity_id), so a loader can point at the input line that wrote it.
Status AtRow(Status st, const std::string& table_key, const RecordBatch& rows, int64_t row) {
  return st.WithDetail("table_key", table_key).WithDetail("entity_id", std::string(rows.GetColumn("id")->GetView(row)));
}

std::string ValueText(const Array& column, int64_t row) {
  Scalar v = GetScalar(column, row);
  if (v.is_string()) return v.string_value();
  return v.ToString();
}

// The view of one table after the write: committed survivors plus upserts.
class EffectiveTable {
 public:
  EffectiveTable(const TableDelta* delta, TableDataPtr committed) : delta_(delta), committed_(std::move(committed)) {}

  bool Contains(std::string_view id) const {
    if (UpsertIndex().Find(id) >= 0) return true;
    return CommittedSurvives(id) && committed_ && committed_->RowOf(id) >= 0;
  }
  // found[i] = Contains(ids[i]), with the lookups of each index pipelined
  // (IdIndex::FindMany): the endpoints of every written edge are checked
  // this way.
  void ContainsMany(const std::vector<std::string_view>& ids, std::vector<bool>* found) const {
    std::vector<int64_t> rows;
    UpsertIndex().FindMany(ids, &rows);
    found->assign(ids.size(), false);
    std::vector<std::string_view> committed_ids;
    std::vector<size_t> where;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (rows[i] >= 0) {
        (*found)[i] = true;
      } else if (committed_ && CommittedSurvivesUnlessUpserted(ids[i])) {
        committed_ids.push_back(ids[i]);
        where.push_back(i);
      }
    }
    if (committed_ids.empty()) return;
    committed_->RowsOf(committed_ids, &rows);
    for (size_t k = 0; k < where.size(); ++k) (*found)[where[k]] = rows[k] >= 0;
  }
  // Whether committed row `id` is still visible (not replaced, deleted or shadowed).
  bool CommittedSurvives(std::string_view id) const {
    return CommittedSurvivesUnlessUpserted(id) && (!delta_ || UpsertIndex().Find(id) < 0);
  }
  const TableDataPtr& committed() const { return committed_; }
  const RecordBatchPtr* upserts() const { return delta_ && delta_->upserts ? &delta_->upserts : nullptr; }

 private:
  bool CommittedSurvivesUnlessUpserted(std::string_view id) const {
    if (!delta_) return true;
    if (delta_->replace_all) return false;
    return delta_->deleted_ids.empty() || !delta_->deleted_ids.count(std::string(id));
  }
  // Id -> row of the written rows, built on first use: most tables a write
  // touches (an edge table of a load) are never probed by id.
  const graph::IdIndex& UpsertIndex() const {
    if (!upsert_index_built_ && delta_ && delta_->upserts) {
      // Views into the delta's id column, which outlives this table.
      const Array& ids = *delta_->upserts->GetColumn("id");
      upsert_row_.Reserve(static_cast<size_t>(ids.length()));
      for (int64_t r = 0; r < ids.length(); ++r) upsert_row_.Insert(ids.GetView(r), r);
    }
    upsert_index_built_ = true;
    return upsert_row_;
  }

  const TableDelta* delta_;
  TableDataPtr committed_;
  mutable graph::IdIndex upsert_row_;
  mutable bool upsert_index_built_ = false;
};

class Validator {
 public:
  // `collect`: null to stop at the first violation (loads, mutations),
  // else where to record every violation (merges).
  Validator(const graph::Snapshot& snapshot, const Catalog& catalog, const WriteDelta& delta,
            std::vector<Violation>* collect = nullptr)
      : snapshot_(snapshot), base_(snapshot.state()), catalog_(catalog), delta_(delta), collect_(collect) {}

  Status Run() {
    for (const auto& [key, d] : delta_) {
      if (!d.upserts) continue;
      if (const NodeType* node = NodeOf(key)) OG_RETURN_IF_ERROR(CheckValues(key, *node, *d.upserts));
      if (const EdgeType* edge = EdgeOf(key)) {
        OG_RETURN_IF_ERROR(CheckEnums(key, edge->name, edge->properties, *d.upserts));
      }
    }
    for (const auto& [key, d] : delta_) {
      if (!d.upserts) continue;
      if (const NodeType* node = NodeOf(key)) {
        for (const auto& tuple : node->uniques) OG_RETURN_IF_ERROR(CheckUnique(key, node->name, tuple));
      } else if (const EdgeType* edge = EdgeOf(key)) {
        for (const auto& tuple : edge->uniques) OG_RETURN_IF_ERROR(CheckUnique(key, edge->name, tuple));
      }
    }
    OG_RETURN_IF_ERROR(CheckReferences());
    return CheckCardinality();
  }

 private:
  // A violation ends a first-violation validation; a collecting one
  // records it and goes on.
  Status Violated(Violation::Kind kind, Status st) {
    if (collect_ == nullptr) return st;
    const auto& details = st.details();
    auto detail = [&](const char* name) -> std::optional<std::string> {
      auto it = details.find(name);
      return it == details.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    std::optional<std::string> entity = kind == Violation::Kind::kOrphanEdge && detail("edge_id") ? detail("edge_id")
                                                                                                   : detail("entity_id");
    // A stranded committed edge's message without the "(kept by …)" tail:
    // its id is the violation's entity (BR-9.7 message shape).
    std::string message = detail("violation").value_or(std::string(st.message()));
    collect_->push_back(Violation{kind, detail("table_key").value_or(""), std::move(entity), std::move(message)});
    return Status::OK();
  }

  const NodeType* NodeOf(const std::string& key) const {
    return key.rfind("node:", 0) == 0 ? catalog_.FindNode(key.substr(5)) : nullptr;
  }
  const EdgeType* EdgeOf(const std::string& key) const {
    return key.rfind("edge:", 0) == 0 ? catalog_.FindEdge(key.substr(5)) : nullptr;
  }

  Result<const EffectiveTable*> Table(const std::string& key) {
    if (auto it = tables_.find(key); it != tables_.end()) return &it->second;
    const graph::TableEntry* entry = base_.FindTable(key);
    if (entry == nullptr) return Internal(fmt::format("table '{}' is not in the snapshot", key));
    auto d = delta_.find(key);
    const TableDelta* delta = d == delta_.end() ? nullptr : &d->second;
    TableDataPtr committed;
    if (!delta || !delta->replace_all) {
      OG_ASSIGN_OR_RETURN(committed, snapshot_.CachedRows(*entry));
    }
    auto [it, inserted] = tables_.emplace(key, EffectiveTable(delta, std::move(committed)));
    return &it->second;
  }

  Status CheckEnums(const std::string& key, const std::string& type_name, const std::vector<Property>& properties,
                    const RecordBatch& rows) {
    for (const Property& p : properties) {
      if (!p.type.is_enum()) continue;
      const Array& column = *rows.GetColumn(p.name);
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        if (column.IsNull(r)) continue;
        std::string_view v = column.GetView(r);
        if (!std::binary_search(p.type.enum_values.begin(), p.type.enum_values.end(), v)) {
          std::string expected;
          for (const std::string& e : p.type.enum_values) expected += (expected.empty() ? "" : ", ") + e;
          OG_RETURN_IF_ERROR(Violated(Violation::Kind::kValueConstraint,
                                      AtRow(InvalidArgument(fmt::format("invalid enum value '{}' for {}.{} (expected: {})",
                                                                        ShortenForMessage(v), type_name, p.name,
                                                                        expected)),
                                            key, rows, r)));
        }
      }
    }
    return Status::OK();
  }

  Status CheckValues(const std::string& key, const NodeType& node, const RecordBatch& rows) {
    OG_RETURN_IF_ERROR(CheckEnums(key, node.name, node.properties, rows));
    for (const auto& range : node.ranges) {
      const Array& column = *rows.GetColumn(range.property);
      const Property* property = node.FindProperty(range.property);
      const bool is_f32 = property != nullptr && property->type.scalar == compiler::ScalarKind::kF32;
      // Bounds compare in the property's own type: an F32 value is stored
      // narrowed, so a float bound is narrowed too (`..0.1` admits the
      // F32 value written as 0.1). Integers compare exactly, U64 included.
      auto bound_scalar = [&](const compiler::RangeBoundValue& b) {
        if (b.is_unsigned) return Scalar::UInt(b.uint_value);
        if (!b.is_float) return Scalar::Int(b.int_value);
        return Scalar::Double(is_f32 ? static_cast<double>(static_cast<float>(b.float_value)) : b.float_value);
      };
      auto value_text = [&](const Scalar& v) {
        if (is_f32) return compiler::FormatFloatShortest(v.AsDouble(), /*is_f32=*/true).value_or(v.ToString());
        return v.ToString();
      };
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        if (column.IsNull(r)) continue;
        Scalar v = GetScalar(column, r);
        std::optional<std::string> violation;
        if (std::isnan(v.AsDouble())) {
          violation = fmt::format("@range violation on {}.{}: value NaN is outside the range", node.name,
                                  range.property);
        } else if (range.min && *Scalar::Compare(v, bound_scalar(*range.min)) < 0) {
          violation = fmt::format("@range violation on {}.{}: value {} < min {}", node.name, range.property,
                                  value_text(v), range.min->ToString());
        } else if (range.max && *Scalar::Compare(v, bound_scalar(*range.max)) > 0) {
          violation = fmt::format("@range violation on {}.{}: value {} > max {}", node.name, range.property,
                                  value_text(v), range.max->ToString());
        }
        if (violation) {
          OG_RETURN_IF_ERROR(
              Violated(Violation::Kind::kValueConstraint, AtRow(InvalidArgument(*violation), key, rows, r)));
        }
      }
    }
    for (const auto& check : node.checks) {
      // The pattern is Rust `regex` syntax (§1.4), translated for RE2.
      Result<std::string> translated = RustRegexToRe2(check.pattern);
      std::optional<RE2> pattern;
      if (translated.ok()) pattern.emplace(*translated, RE2::Quiet);
      const std::string pattern_error =
          !translated.ok() ? translated.status().message() : pattern->ok() ? "" : pattern->error();
      const Array& column = *rows.GetColumn(check.property);
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        if (column.IsNull(r)) continue;  // NULL is exempt, even from a broken pattern
        if (!pattern_error.empty()) {
          // §1.4: an invalid regex surfaces when a value is validated; name
          // the first record that needed it.
          OG_RETURN_IF_ERROR(Violated(Violation::Kind::kValueConstraint,
                                      AtRow(InvalidArgument(fmt::format("@check on {}.{} has an invalid regex '{}': {}",
                                                                        node.name, check.property, check.pattern,
                                                                        pattern_error)),
                                            key, rows, r)));
          break;  // one report per broken pattern
        }
        std::string_view v = column.GetView(r);
        if (!RE2::PartialMatch(re2::StringPiece(v.data(), v.size()), *pattern)) {
          OG_RETURN_IF_ERROR(Violated(
              Violation::Kind::kValueConstraint,
              AtRow(InvalidArgument(fmt::format("@check violation on {}.{}: value '{}' does not match pattern '{}'",
                                                node.name, check.property, ShortenForMessage(v), check.pattern)),
                    key, rows, r)));
        }
      }
    }
    return Status::OK();
  }

  // One value of a @unique tuple, spelled canonically (§1.7): a float at
  // its stored width in positional notation, +0 and -0 both "0" (NaN and
  // infinities, which no key holds, by name).
  static std::string UniquePart(const Array& column, int64_t r) {
    const TypeId type = column.type_id();
    if (type == TypeId::kFloat32 || type == TypeId::kFloat64) {
      const double v = type == TypeId::kFloat32 ? column.Value<float>(r) : column.Value<double>(r);
      if (auto text = compiler::FormatFloatShortest(v, type == TypeId::kFloat32)) return *text;
      return std::isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf";
    }
    return ValueText(column, r);
  }

  // A row's @unique tuple: `key` compares (the parts as a JSON array when
  // there are several, so no part can pass for two), `display` is for
  // messages ("(a, b)"). Nullopt when a value is null: NULLs never clash.
  struct UniqueTuple {
    std::string key;
    std::string display;
  };
  static std::optional<UniqueTuple> TupleOf(const std::vector<const Array*>& columns, int64_t r) {
    std::vector<std::string> parts;
    for (const Array* c : columns) {
      if (c->IsNull(r)) return std::nullopt;
      parts.push_back(UniquePart(*c, r));
    }
    if (parts.size() == 1) return UniqueTuple{parts.front(), parts.front()};
    return UniqueTuple{compiler::CompositeKeyJson(parts), fmt::format("({})", fmt::join(parts, ", "))};
  }

  Status CheckUnique(const std::string& key, const std::string& type_name, const std::vector<std::string>& tuple) {
    OG_ASSIGN_OR_RETURN(const EffectiveTable* table, Table(key));
    std::string cols = tuple.size() == 1 ? tuple.front() : "(" + fmt::format("{}", fmt::join(tuple, ", ")) + ")";
    std::unordered_map<std::string, std::string> holder;  // tuple key -> id
    // The written row at fault: the later of two written holders, or the
    // written holder of a value a committed row also holds.
    auto violation = [&](const std::string& value, const std::string& a, const std::string& b, bool b_written) {
      return InvalidArgument(fmt::format("@unique violation on {}.{}: value '{}' held by '{}' and '{}'", type_name,
                                         cols, ShortenForMessage(value), ShortenForMessage(a), ShortenForMessage(b)))
          .WithDetail("table_key", key)
          .WithDetail("entity_id", b_written ? b : a);
    };
    auto scan = [&](const RecordBatch& rows, bool committed) -> Status {
      std::vector<const Array*> columns;
      for (const std::string& c : tuple) columns.push_back(rows.GetColumn(c).get());
      const Array& ids = *rows.GetColumn("id");
      for (int64_t r = 0; r < rows.num_rows(); ++r) {
        std::string_view id = ids.GetView(r);
        if (committed && !table->CommittedSurvives(id)) continue;
        auto value = TupleOf(columns, r);
        if (!value) continue;
        auto [it, inserted] = holder.emplace(std::move(value->key), std::string(id));
        if (!inserted && it->second != id) {
          OG_RETURN_IF_ERROR(Violated(Violation::Kind::kUnique,
                                      violation(value->display, it->second, std::string(id), !committed)));
        }
      }
      return Status::OK();
    };
    if (const RecordBatchPtr* upserts = table->upserts()) OG_RETURN_IF_ERROR(scan(**upserts, false));
    if (table->committed()) OG_RETURN_IF_ERROR(scan(*table->committed()->rows(), true));
    return Status::OK();
  }

  Status CheckEdgeEndpoints(const EdgeType& edge, const RecordBatch& rows, bool committed, const EffectiveTable* self) {
    // A written edge points at its input row; a committed edge stranded by
    // this write is named by its id, since no input line holds it.
    auto at_row = [&](Status st, int64_t r) {
      std::string edge_id(rows.GetColumn("id")->GetView(r));
      if (!committed) return AtRow(st, edge.TableKey(), rows, r).WithDetail("edge_id", edge_id);
      return Status(st.code(),
                    fmt::format("{} (kept by committed {} edge '{}')", st.message(), edge.name,
                                ShortenForMessage(edge_id)),
                    st.details())
          .WithDetail("table_key", edge.TableKey())
          .WithDetail("edge_id", edge_id)
          .WithDetail("violation", std::string(st.message()));
    };
    OG_ASSIGN_OR_RETURN(const EffectiveTable* from, Table("node:" + edge.from_type));
    OG_ASSIGN_OR_RETURN(const EffectiveTable* to, Table("node:" + edge.to_type));
    const Array& ids = *rows.GetColumn("id");
    const Array& src = *rows.GetColumn("src");
    const Array& dst = *rows.GetColumn("dst");
    std::vector<std::string_view> src_ids(static_cast<size_t>(rows.num_rows()));
    std::vector<std::string_view> dst_ids(src_ids.size());
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      src_ids[static_cast<size_t>(r)] = src.GetView(r);
      dst_ids[static_cast<size_t>(r)] = dst.GetView(r);
    }
    std::vector<bool> src_found, dst_found;
    from->ContainsMany(src_ids, &src_found);
    to->ContainsMany(dst_ids, &dst_found);
    // The first failing row in row order, src before dst.
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      const size_t k = static_cast<size_t>(r);
      if (src_found[k] && dst_found[k]) continue;
      if (committed && !self->CommittedSurvives(ids.GetView(r))) continue;
      Status orphan = !src_found[k] ? InvalidArgument(fmt::format("src '{}' not found in {}",
                                                                  ShortenForMessage(src.GetView(r)), edge.from_type))
                                    : InvalidArgument(fmt::format("dst '{}' not found in {}",
                                                                  ShortenForMessage(dst.GetView(r)), edge.to_type));
      OG_RETURN_IF_ERROR(Violated(Violation::Kind::kOrphanEdge, at_row(orphan, r)));
    }
    return Status::OK();
  }

  Status CheckReferences() {
    // Written edges.
    for (const auto& [key, d] : delta_) {
      const EdgeType* edge = EdgeOf(key);
      if (!edge || !d.upserts) continue;
      OG_ASSIGN_OR_RETURN(const EffectiveTable* self, Table(key));
      OG_RETURN_IF_ERROR(CheckEdgeEndpoints(*edge, *d.upserts, false, self));
    }
    // Committed edges stranded by node deletions or replaced node types.
    for (const EdgeType& edge : catalog_.edges()) {
      bool touched = false;
      for (const std::string& endpoint : {edge.from_type, edge.to_type}) {
        auto it = delta_.find("node:" + endpoint);
        if (it != delta_.end() && (it->second.replace_all || !it->second.deleted_ids.empty())) touched = true;
      }
      if (!touched) continue;
      OG_ASSIGN_OR_RETURN(const EffectiveTable* self, Table(edge.TableKey()));
      if (self->committed()) OG_RETURN_IF_ERROR(CheckEdgeEndpoints(edge, *self->committed()->rows(), true, self));
    }
    return Status::OK();
  }

  Status CheckCardinality() {
    for (const auto& [key, d] : delta_) {
      const EdgeType* edge = EdgeOf(key);
      if (!edge || (edge->card_min == 0 && !edge->card_max)) continue;
      OG_ASSIGN_OR_RETURN(const EffectiveTable* self, Table(key));
      // Touched sources: those of written edges, and those of committed
      // edges the write removes (deleted, replaced by a written edge of the
      // same id that may start elsewhere, or dropped by an overwrite).
      std::unordered_map<std::string, uint64_t> counts;
      if (d.upserts) {
        const Array& src = *d.upserts->GetColumn("src");
        for (int64_t r = 0; r < src.length(); ++r) counts.emplace(std::string(src.GetView(r)), 0);
      }
      TableDataPtr before = self->committed();
      // Per source that lost edges, the id of one of them (a merge that
      // moved it elsewhere wrote it again: its line is the one to name).
      std::unordered_map<std::string, std::string_view> removed_edge;
      if (d.replace_all && edge->card_min > 0) {
        // An overwrite reads nothing committed, but every source it drops
        // edges from may now hold fewer than the minimum.
        const graph::TableEntry* entry = base_.FindTable(key);
        if (entry == nullptr) return Internal(fmt::format("table '{}' is not in the snapshot", key));
        OG_ASSIGN_OR_RETURN(before, snapshot_.CachedRows(*entry));
      }
      if (before) {
        const RecordBatch& committed = *before->rows();
        const Array& ids = *committed.GetColumn("id");
        const Array& src = *committed.GetColumn("src");
        for (int64_t r = 0; r < committed.num_rows(); ++r) {
          if (self->CommittedSurvives(ids.GetView(r))) continue;
          counts.emplace(std::string(src.GetView(r)), 0);
          removed_edge.emplace(std::string(src.GetView(r)), ids.GetView(r));
        }
        for (int64_t r = 0; r < committed.num_rows(); ++r) {
          if (!self->CommittedSurvives(ids.GetView(r))) continue;
          auto it = counts.find(std::string(src.GetView(r)));
          if (it != counts.end()) ++it->second;
        }
      }
      if (d.upserts) {
        const Array& src = *d.upserts->GetColumn("src");
        for (int64_t r = 0; r < src.length(); ++r) ++counts[std::string(src.GetView(r))];
      }
      // Sources in name order, so the same input always reports the same
      // violation; each names the last written edge of its source, which
      // the loader turns into that edge's input line.
      std::vector<std::pair<std::string, uint64_t>> sorted(counts.begin(), counts.end());
      std::sort(sorted.begin(), sorted.end());
      for (const auto& [source, n] : sorted) {
        std::string violation;
        bool too_few = n < edge->card_min;
        if (too_few) {
          // A source the write deletes has no edges to count. The source
          // table is read only when some source is short of edges.
          OG_ASSIGN_OR_RETURN(const EffectiveTable* sources, Table("node:" + edge->from_type));
          too_few = sources->Contains(source);
        }
        if (edge->card_max && n > *edge->card_max) {
          violation = fmt::format("@card violation on edge {}: source '{}' has {} edges (max {})", edge->name,
                                  ShortenForMessage(source), n, *edge->card_max);
        } else if (too_few) {
          violation = fmt::format("@card violation on edge {}: source '{}' has {} edges (min {})", edge->name,
                                  ShortenForMessage(source), n, edge->card_min);
        } else {
          continue;
        }
        OG_RETURN_IF_ERROR(Violated(Violation::Kind::kCardinality,
                                    CardinalityAt(InvalidArgument(violation).WithDetail("table_key", key), key, d,
                                                  source, removed_edge)));
      }
    }
    return Status::OK();
  }

  // A @card violation of `source`, naming the last written edge of the
  // source (the loader turns it into that edge's input line), else the
  // written edge that moved one of its edges elsewhere.
  static Status CardinalityAt(Status st, const std::string& key, const TableDelta& d, const std::string& source,
                              const std::unordered_map<std::string, std::string_view>& removed_edge) {
    if (!d.upserts) return st;
    const Array& src = *d.upserts->GetColumn("src");
    for (int64_t r = src.length() - 1; r >= 0; --r) {
      if (src.GetView(r) == source) return AtRow(st, key, *d.upserts, r);
    }
    if (auto moved = removed_edge.find(source); moved != removed_edge.end()) {
      const Array& ids = *d.upserts->GetColumn("id");
      for (int64_t r = ids.length() - 1; r >= 0; --r) {
        if (ids.GetView(r) == moved->second) return AtRow(st, key, *d.upserts, r);
      }
    }
    return st;
  }

  const graph::Snapshot& snapshot_;
  const GraphState& base_;
  const Catalog& catalog_;
  const WriteDelta& delta_;
  std::vector<Violation>* collect_;
  std::map<std::string, EffectiveTable> tables_;
};

}  // namespace

Status ValidateWrite(const graph::Snapshot& base, const Catalog& catalog, const WriteDelta& delta) {
  return Validator(base, catalog, delta).Run();
}

Result<std::vector<Violation>> CollectViolations(const graph::Snapshot& base, const Catalog& catalog,
                                                 const WriteDelta& delta) {
  std::vector<Violation> violations;
  OG_RETURN_IF_ERROR(Validator(base, catalog, delta, &violations).Run());
  return violations;
}

std::vector<TableChange> ToTableChanges(const WriteDelta& delta) {
  std::vector<TableChange> changes;
  for (const auto& [key, d] : delta) {
    TableChange change;
    change.table_key = key;
    if (d.replace_all) {
      change.kind = TableChange::Kind::kOverwrite;
      if (d.upserts) change.rows.push_back(d.upserts);
    } else if (!d.deleted_ids.empty()) {
      change.kind = TableChange::Kind::kDeleteIds;
      change.delete_ids.assign(d.deleted_ids.begin(), d.deleted_ids.end());
      std::sort(change.delete_ids.begin(), change.delete_ids.end());
    } else if (d.upserts && d.upserts->num_rows() > 0) {
      change.kind = d.insert_kind;
      change.rows.push_back(d.upserts);
    } else {
      continue;  // nothing to stage for this table
    }
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace omnigraph::exec
