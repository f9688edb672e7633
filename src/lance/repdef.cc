#include "lance/repdef.h"

#include <fmt/format.h>

#include <algorithm>

namespace omnigraph::lance {

std::string_view LayerName(Layer layer) {
  switch (layer) {
    case Layer::kAllValidItem: return "ALL_VALID_ITEM";
    case Layer::kAllValidList: return "ALL_VALID_LIST";
    case Layer::kNullableItem: return "NULLABLE_ITEM";
    case Layer::kNullableList: return "NULLABLE_LIST";
    case Layer::kEmptyableList: return "EMPTYABLE_LIST";
    case Layer::kNullAndEmptyList: return "NULL_AND_EMPTY_LIST";
  }
  return "UNKNOWN_LAYER";
}

LayerInfo LayerInfo::Of(const std::vector<Layer>& layers) {
  LayerInfo info;
  bool inside_innermost_list = true;
  for (Layer layer : layers) {
    int ndef = DefLevelsOf(layer);
    info.max_def += ndef;
    if (IsListLayer(layer)) {
      ++info.max_rep;
      inside_innermost_list = false;
    } else {
      info.max_visible_full_zip += ndef;
      if (inside_innermost_list) info.max_visible += ndef;
    }
  }
  return info;
}

namespace {

Status CollectInto(const Field& field, std::vector<PathStep>* prefix, std::vector<LeafPath>* out) {
  switch (field.type->id()) {
    case TypeId::kStruct: {
      const auto& members = field.type->children();
      for (size_t i = 0; i < members.size(); ++i) {
        prefix->push_back(PathStep{PathStep::kStruct, field.nullable, static_cast<int>(i)});
        Status st = CollectInto(members[i], prefix, out);
        prefix->pop_back();
        OG_RETURN_IF_ERROR(st);
      }
      return Status::OK();
    }
    case TypeId::kList: {
      prefix->push_back(PathStep{PathStep::kList, field.nullable, 0});
      Status st = CollectInto(field.type->item(), prefix, out);
      prefix->pop_back();
      return st;
    }
    default: {
      auto shape = LeafShape::ForType(*field.type);
      if (!shape.ok()) return shape.status().WithContext(fmt::format("field '{}'", field.name));
      LeafPath path;
      path.steps = *prefix;
      path.steps.push_back(PathStep{PathStep::kLeaf, field.nullable, 0});
      for (int k = 0; k < path.depth(); ++k) {
        if (path.steps[k].kind == PathStep::kList) {
          ++path.max_rep;
          path.innermost_list = k;
        }
      }
      path.leaf_type = field.type;
      path.leaf_field_id = field.id;
      path.shape = *shape;
      out->push_back(std::move(path));
      return Status::OK();
    }
  }
}

}  // namespace

Status CollectLeafPaths(const Field& field, std::vector<LeafPath>* out) {
  std::vector<PathStep> prefix;
  return CollectInto(field, &prefix, out);
}

Status CheckLayers(const LeafPath& path, const std::vector<Layer>& layers, std::string_view where) {
  if (static_cast<int>(layers.size()) != path.depth()) {
    return CorruptData(
        fmt::format("{}: page has {} rep/def layers, the field path has {}", where, layers.size(), path.depth()));
  }
  for (int i = 0; i < path.depth(); ++i) {
    const PathStep& step = path.steps[path.depth() - 1 - i];
    if (IsListLayer(layers[i]) != (step.kind == PathStep::kList)) {
      return CorruptData(fmt::format("{}: layer {} is {}, which does not fit a {} field", where, i,
                                     LayerName(layers[i]), step.kind == PathStep::kList ? "list" : "non-list"));
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------- ShreddedPage

ShreddedPage::ShreddedPage(const LeafPath* path) : path_(path), has_rep_(path->max_rep > 0), values_(path->shape) {
  int depth = path->depth();
  canon_null_.resize(depth);
  canon_empty_.resize(depth);
  rep_number_.resize(depth);
  has_null_.assign(depth, 0);
  has_empty_.assign(depth, 0);
  // Canonical numbering: innermost steps get the lowest codes; every item
  // step takes one code (null), every list step two (null, empty).
  int base = 0;
  for (int k = depth - 1; k >= 0; --k) {
    bool list = path->steps[k].kind == PathStep::kList;
    canon_null_[k] = static_cast<uint16_t>(base + 1);
    canon_empty_[k] = static_cast<uint16_t>(list ? base + 2 : 0);
    base += list ? 2 : 1;
  }
  int rep = path->max_rep;
  for (int k = 0; k < depth; ++k) {
    if (path->steps[k].kind == PathStep::kList) rep_number_[k] = static_cast<uint16_t>(rep--);
  }
}

void ShreddedPage::MaterializeDef() {
  def_on_ = true;
  def_.assign(num_levels_, 0);
}

void ShreddedPage::EmitNull(int step, uint16_t rep) {
  EmitLevel(rep, canon_null_[step]);
  has_null_[step] = 1;
  // Nulls inside the innermost list are visible and own a (zeroed) value.
  if (step > path_->innermost_list) values_.AppendNulls(1);
}

Status ShreddedPage::EmitLeafRange(const Array& leaf, int64_t start, int64_t n, uint16_t first_rep, uint16_t rest_rep,
                                   std::string_view column) {
  if (n <= 0) return Status::OK();
  const int leaf_step = path_->depth() - 1;
  int64_t nulls = 0;
  if (leaf.null_count() > 0) {
    nulls = n - static_cast<int64_t>(
                    CountSetBits(leaf.validity()->data(), static_cast<uint64_t>(start), static_cast<uint64_t>(n)));
  }
  if (nulls > 0 && !path_->steps[leaf_step].nullable) {
    return InvalidArgument(fmt::format("column '{}': non-nullable field holds a null", column));
  }
  if (has_rep_) {
    rep_.push_back(first_rep);
    rep_.insert(rep_.end(), static_cast<size_t>(n - 1), rest_rep);
  }
  if (nulls > 0) {
    if (!def_on_) MaterializeDef();
    has_null_[leaf_step] = 1;
    uint16_t code = canon_null_[leaf_step];
    size_t at = def_.size();
    def_.resize(at + static_cast<size_t>(n));
    const uint8_t* valid = leaf.validity()->data();
    for (int64_t i = 0; i < n; ++i) {
      def_[at + static_cast<size_t>(i)] = ((valid[(start + i) >> 3] >> ((start + i) & 7)) & 1) ? 0 : code;
    }
  } else if (def_on_) {
    def_.resize(def_.size() + static_cast<size_t>(n), 0);
  }
  num_levels_ += static_cast<uint64_t>(n);
  values_.AppendFromArray(leaf, start, n);
  non_null_values_ += static_cast<uint64_t>(n - nulls);
  return Status::OK();
}

Status ShreddedPage::Walk(int step, const Array& array, int64_t slot, uint16_t rep, std::string_view column) {
  const int leaf_step = path_->depth() - 1;
  if (step == leaf_step) return EmitLeafRange(array, slot, 1, rep, rep, column);
  const PathStep& s = path_->steps[step];
  if (array.IsNull(slot)) {
    if (!s.nullable) return InvalidArgument(fmt::format("column '{}': non-nullable field holds a null", column));
    EmitNull(step, rep);
    return Status::OK();
  }
  if (s.kind == PathStep::kStruct) return Walk(step + 1, *array.child(s.member), slot, rep, column);
  int64_t begin = array.ValueOffset(slot);
  int64_t end = array.ValueOffset(slot + 1);
  if (begin == end) {
    EmitLevel(rep, canon_empty_[step]);
    has_empty_[step] = 1;
    return Status::OK();
  }
  const Array& child = *array.child(0);
  uint16_t rest = static_cast<uint16_t>(rep_number_[step] - 1);
  if (step + 1 == leaf_step) return EmitLeafRange(child, begin, end - begin, rep, rest, column);
  for (int64_t j = begin; j < end; ++j) {
    OG_RETURN_IF_ERROR(Walk(step + 1, child, j, j == begin ? rep : rest, column));
  }
  return Status::OK();
}

Status ShreddedPage::Append(const Array& array, int64_t start, int64_t count, std::string_view column) {
  if (count <= 0) return Status::OK();
  const int leaf_step = path_->depth() - 1;
  if (leaf_step == 0) {
    OG_RETURN_IF_ERROR(EmitLeafRange(array, start, count, 0, 0, column));
  } else {
    // Struct-only paths without nulls above the leaf map rows 1:1 to values.
    const Array* leaf = &array;
    bool bulk = path_->max_rep == 0;
    for (int k = 0; bulk && k < leaf_step; ++k) {
      if (leaf->null_count() > 0 && CountSetBits(leaf->validity()->data(), static_cast<uint64_t>(start),
                                                 static_cast<uint64_t>(count)) != static_cast<uint64_t>(count)) {
        bulk = false;
        break;
      }
      leaf = leaf->child(path_->steps[k].member).get();
    }
    if (bulk) {
      OG_RETURN_IF_ERROR(EmitLeafRange(*leaf, start, count, 0, 0, column));
    } else {
      uint16_t row_rep = static_cast<uint16_t>(path_->max_rep);
      for (int64_t i = start; i < start + count; ++i) OG_RETURN_IF_ERROR(Walk(0, array, i, row_rep, column));
    }
  }
  num_rows_ += static_cast<uint64_t>(count);
  return Status::OK();
}

uint64_t ShreddedPage::EstimateBytes(const Array& array, int64_t start, int64_t end) const {
  const Array* a = &array;
  int64_t lo = start, hi = end;
  const int leaf_step = path_->depth() - 1;
  for (int k = 0; k < leaf_step; ++k) {
    const PathStep& s = path_->steps[k];
    if (s.kind == PathStep::kStruct) {
      a = a->child(s.member).get();
    } else {
      int64_t nlo = a->ValueOffset(lo), nhi = a->ValueOffset(hi);
      lo = nlo;
      hi = std::max(nlo, nhi);
      a = a->child(0).get();
    }
  }
  uint64_t n = static_cast<uint64_t>(hi - lo);
  uint64_t bytes = 0;
  const LeafShape& shape = path_->shape;
  switch (shape.kind) {
    case LeafKind::kFixed:
    case LeafKind::kFsl: bytes = n * static_cast<uint64_t>(shape.value_bytes); break;
    case LeafKind::kBool: bytes = n / 8 + 1; break;
    case LeafKind::kVar:
      bytes = static_cast<uint64_t>(std::max<int64_t>(0, a->ValueOffset(hi) - a->ValueOffset(lo))) + 4 * n;
      break;
  }
  uint64_t levels = n + static_cast<uint64_t>(end - start) * static_cast<uint64_t>(path_->max_rep);
  uint64_t level_buffers = (has_rep_ ? 1 : 0) + 1;
  return bytes + 2 * levels * level_buffers;
}

uint64_t ShreddedPage::buffered_bytes() const {
  uint64_t bytes = values_.data_bytes();
  if (values_.shape().kind == LeafKind::kVar) bytes += 4 * values_.count();
  if (values_.has_item_validity()) bytes += values_.item_validity().bytes().size();
  uint64_t level_buffers = (has_rep_ ? 1 : 0) + (def_on_ ? 1 : 0);
  return bytes + 2 * num_levels_ * level_buffers;
}

void ShreddedPage::Finalize() {
  const int depth = path_->depth();
  std::vector<Layer> outer(depth);
  std::vector<uint16_t> remap(static_cast<size_t>(2 * depth + 1), 0);
  int base = 0;
  for (int k = depth - 1; k >= 0; --k) {
    bool null = has_null_[k] != 0;
    bool empty = has_empty_[k] != 0;
    if (path_->steps[k].kind == PathStep::kList) {
      outer[k] = null && empty ? Layer::kNullAndEmptyList
                 : null        ? Layer::kNullableList
                 : empty       ? Layer::kEmptyableList
                               : Layer::kAllValidList;
      if (null) remap[canon_null_[k]] = static_cast<uint16_t>(base + 1);
      if (empty) remap[canon_empty_[k]] = static_cast<uint16_t>(base + (null ? 2 : 1));
    } else {
      outer[k] = null ? Layer::kNullableItem : Layer::kAllValidItem;
      if (null) remap[canon_null_[k]] = static_cast<uint16_t>(base + 1);
    }
    base += DefLevelsOf(outer[k]);
  }
  if (def_on_) {
    for (uint16_t& d : def_) d = remap[d];
  }
  layers_.assign(outer.rbegin(), outer.rend());
}

void ShreddedPage::Clear() {
  std::fill(has_null_.begin(), has_null_.end(), 0);
  std::fill(has_empty_.begin(), has_empty_.end(), 0);
  rep_.clear();
  def_.clear();
  def_on_ = false;
  num_levels_ = 0;
  num_rows_ = 0;
  non_null_values_ = 0;
  values_.Clear();
  layers_.clear();
}

// ---------------------------------------------------------------- LevelAssembler

LevelAssembler::LevelAssembler(const LeafPath* path) : path_(path), steps_(path->depth()) {}

Result<uint64_t> LevelAssembler::Consume(const std::vector<Layer>& layers, const uint16_t* rep, const uint16_t* def,
                                         uint64_t n, std::string_view where) {
  OG_RETURN_IF_ERROR(CheckLayers(*path_, layers, where));
  const int depth = path_->depth();
  const LayerInfo info = LayerInfo::Of(layers);
  if (info.max_rep == 0) rep = nullptr;
  if (info.max_def == 0) def = nullptr;
  if (n == 0) return uint64_t{0};

  // Fast path: no definition levels and no lists, so every level is a valid
  // slot at every step.
  if (rep == nullptr && def == nullptr && info.max_rep == 0) {
    for (StepArrays& s : steps_) {
      s.validity.AppendN(true, n);
      s.length += static_cast<int64_t>(n);
    }
    valid_depth_ = depth;
    return n;
  }
  // Fast path: a single nullable leaf.
  if (depth == 1) {
    StepArrays& s = steps_[0];
    for (uint64_t i = 0; i < n; ++i) {
      if (def[i] > 1) return CorruptData(fmt::format("{}: definition level {} exceeds 1", where, def[i]));
      bool valid = def[i] == 0;
      s.validity.Append(valid);
      s.null_count += valid ? 0 : 1;
    }
    s.length += static_cast<int64_t>(n);
    valid_depth_ = 1;
    return n;
  }

  // Decode tables. Step index k counts from the outermost step.
  constexpr uint8_t kNull = 0, kEmpty = 1;
  std::vector<int> term_step(static_cast<size_t>(info.max_def) + 1, depth);
  std::vector<uint8_t> term_kind(static_cast<size_t>(info.max_def) + 1, kNull);
  int code = 0;
  for (int i = 0; i < depth; ++i) {
    int k = depth - 1 - i;
    switch (layers[i]) {
      case Layer::kNullableItem:
      case Layer::kNullableList:
        term_step[++code] = k;
        term_kind[code] = kNull;
        break;
      case Layer::kEmptyableList:
        term_step[++code] = k;
        term_kind[code] = kEmpty;
        break;
      case Layer::kNullAndEmptyList:
        term_step[++code] = k;
        term_kind[code] = kNull;
        term_step[++code] = k;
        term_kind[code] = kEmpty;
        break;
      default: break;
    }
  }
  // A level with rep r < max_rep adds an element to the list whose rep
  // number is r + 1, so its new slots start just inside that list.
  std::vector<int> start_step(static_cast<size_t>(info.max_rep) + 1, 0);
  {
    int r = info.max_rep;
    for (int k = 0; k < depth; ++k) {
      if (path_->steps[k].kind == PathStep::kList) {
        start_step[static_cast<size_t>(r - 1)] = k + 1;
        --r;
      }
    }
    start_step[static_cast<size_t>(info.max_rep)] = 0;
  }

  uint64_t leaf_slots = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int r = rep != nullptr ? rep[i] : info.max_rep;
    int d = def != nullptr ? def[i] : 0;
    if (r > info.max_rep) {
      return CorruptData(fmt::format("{}: repetition level {} exceeds {}", where, r, info.max_rep));
    }
    if (d > info.max_def) {
      return CorruptData(fmt::format("{}: definition level {} exceeds {}", where, d, info.max_def));
    }
    if (i == 0 && r != info.max_rep) {
      return CorruptData(fmt::format("{}: levels start in the middle of a row", where));
    }
    int s = start_step[static_cast<size_t>(r)];
    if (r < info.max_rep && s - 1 >= valid_depth_) {
      return CorruptData(fmt::format("{}: level {} continues a list that is null or empty", where, i));
    }
    int t = d == 0 ? depth : term_step[static_cast<size_t>(d)];
    if (t < s) {
      return CorruptData(fmt::format("{}: level {} ends above the list it continues", where, i));
    }
    bool empty = d != 0 && term_kind[static_cast<size_t>(d)] == kEmpty;
    for (int k = s; k < depth; ++k) {
      StepArrays& st = steps_[static_cast<size_t>(k)];
      bool list = path_->steps[static_cast<size_t>(k)].kind == PathStep::kList;
      if (list) st.offsets.push_back(steps_[static_cast<size_t>(k) + 1].length);
      ++st.length;
      if (k < t || (k == t && empty)) {
        st.validity.Append(true);
        if (k == t) break;  // an empty list has no children
      } else {
        // Null here, or below a null struct: Arrow keeps one null slot per
        // step down to the leaf or the first list (which has no children).
        st.validity.Append(false);
        ++st.null_count;
        if (list) break;
      }
      if (k == depth - 1) ++leaf_slots;
    }
    valid_depth_ = t;
  }
  return leaf_slots;
}

std::vector<StepArrays>& LevelAssembler::Finish() {
  for (size_t k = 0; k + 1 < steps_.size(); ++k) {
    if (path_->steps[k].kind == PathStep::kList) steps_[k].offsets.push_back(steps_[k + 1].length);
  }
  return steps_;
}

}  // namespace omnigraph::lance
