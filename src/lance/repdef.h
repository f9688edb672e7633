// Repetition and definition levels of Lance 2.1 leaf columns
// (docs/lance-file-encoding.md §3): the path from a top-level field to each
// leaf, shredding Arrow arrays into levels plus visible values (writer), and
// rebuilding validity bitmaps and list offsets from levels (reader).
//
// Terminology: a leaf path has one *step* per field from the top-level field
// (step 0) down to the leaf (last step). Lance calls the same things layers
// and lists them innermost first; steps here are outermost first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "lance/bit_util.h"
#include "lance/leaf_values.h"
#include "util/status.h"

namespace omnigraph::lance {

// RepDefLayer values of the wire format (§1.3).
enum class Layer : uint8_t {
  kAllValidItem = 1,
  kAllValidList = 2,
  kNullableItem = 3,
  kNullableList = 4,
  kEmptyableList = 5,
  kNullAndEmptyList = 6,
};

inline bool IsListLayer(Layer layer) {
  return layer == Layer::kAllValidList || layer == Layer::kNullableList || layer == Layer::kEmptyableList ||
         layer == Layer::kNullAndEmptyList;
}
// Definition levels a layer adds: 0, 1 or 2.
inline int DefLevelsOf(Layer layer) {
  switch (layer) {
    case Layer::kNullableItem:
    case Layer::kNullableList:
    case Layer::kEmptyableList: return 1;
    case Layer::kNullAndEmptyList: return 2;
    default: return 0;
  }
}
// "NULLABLE_LIST", ... for messages.
std::string_view LayerName(Layer layer);

// Derived numbers of a layer list (innermost first).
struct LayerInfo {
  int max_rep = 0;               // number of list layers
  int max_def = 0;               // sum of DefLevelsOf
  int max_visible = 0;           // def levels of the layers inside the innermost list (§3.2)
  int max_visible_full_zip = 0;  // def levels of all non-list layers (§5.2)
  static LayerInfo Of(const std::vector<Layer>& layers);
};

struct PathStep {
  enum Kind : uint8_t { kStruct, kList, kLeaf };
  Kind kind = kLeaf;
  bool nullable = true;
  int member = 0;  // kStruct: index of the member on the path
};

// The path of one leaf column.
struct LeafPath {
  std::vector<PathStep> steps;  // top-level field first, leaf last
  int max_rep = 0;              // list steps
  int innermost_list = -1;      // step index of the innermost list, -1 if none
  DataTypePtr leaf_type;
  int32_t leaf_field_id = -1;
  LeafShape shape;

  int depth() const { return static_cast<int>(steps.size()); }
};

// Appends the leaf paths of top-level field `field` in pre-order (the file's
// column order). InvalidArgument for a type no Lance leaf can hold.
Status CollectLeafPaths(const Field& field, std::vector<LeafPath>* out);

// ---------------------------------------------------------------- writer

// The pending page of one leaf column: levels and visible values of whole
// top-level rows. Definition levels are recorded in a canonical numbering
// (every item step 1 level, every list step 2) and mapped to the page's
// data-derived layers by Finalize().
class ShreddedPage {
 public:
  explicit ShreddedPage(const LeafPath* path);

  // Shreds top-level rows [start, start + count) of `array`, the top-level
  // column of this leaf. InvalidArgument (naming `column`) for a null in a
  // non-nullable field; the page is then unusable.
  Status Append(const Array& array, int64_t start, int64_t count, std::string_view column);

  // Upper estimate of the encoded bytes of rows [start, end) of `array`
  // (values, offsets, levels), computed from offsets only.
  uint64_t EstimateBytes(const Array& array, int64_t start, int64_t end) const;
  // Encoded bytes buffered so far (same accounting).
  uint64_t buffered_bytes() const;

  uint64_t num_rows() const { return num_rows_; }
  uint64_t num_levels() const { return num_levels_; }
  // Visible values that are not null.
  uint64_t non_null_values() const { return non_null_values_; }
  const LeafValues& values() const { return values_; }

  // Chooses the layers from the data and rewrites the definition levels in
  // that numbering. After it, rep()/def() are the page's levels (empty when
  // absent) and layers() is innermost first. Call once, then Clear().
  void Finalize();
  const std::vector<Layer>& layers() const { return layers_; }
  const std::vector<uint16_t>& rep() const { return rep_; }
  const std::vector<uint16_t>& def() const { return def_; }

  void Clear();

 private:
  void MaterializeDef();
  void EmitLevel(uint16_t rep, uint16_t def) {
    if (has_rep_) rep_.push_back(rep);
    if (def != 0 && !def_on_) MaterializeDef();
    if (def_on_) def_.push_back(def);
    ++num_levels_;
  }
  void EmitNull(int step, uint16_t rep);
  Status EmitLeafRange(const Array& leaf, int64_t start, int64_t n, uint16_t first_rep, uint16_t rest_rep,
                       std::string_view column);
  Status Walk(int step, const Array& array, int64_t slot, uint16_t rep, std::string_view column);

  const LeafPath* path_;
  bool has_rep_;
  std::vector<uint16_t> canon_null_;   // per step: canonical "null" code
  std::vector<uint16_t> canon_empty_;  // per step (lists): canonical "empty" code
  std::vector<uint16_t> rep_number_;   // per step (lists): rep value that opens it
  std::vector<uint8_t> has_null_;
  std::vector<uint8_t> has_empty_;
  std::vector<uint16_t> rep_;
  std::vector<uint16_t> def_;
  bool def_on_ = false;
  uint64_t num_levels_ = 0;
  uint64_t num_rows_ = 0;
  uint64_t non_null_values_ = 0;
  LeafValues values_;
  std::vector<Layer> layers_;
};

// ---------------------------------------------------------------- reader

// Structural arrays of one path step, rebuilt from levels.
struct StepArrays {
  BitVector validity;  // one bit per slot
  int64_t length = 0;  // slots
  int64_t null_count = 0;
  std::vector<int64_t> offsets;  // list steps: start of each slot in the child step
};

// Rebuilds the per-step validity and list offsets of one leaf path from the
// levels of consecutive page windows. Each window must start at a row start.
class LevelAssembler {
 public:
  explicit LevelAssembler(const LeafPath* path);

  // Consumes `n` levels of a page with `layers` (innermost first; must match
  // the path). `rep`/`def` may be null when the page has none. Returns the
  // number of leaf slots (visible levels) added. CorruptData (prefixed with
  // `where`) for levels that do not describe valid rows.
  Result<uint64_t> Consume(const std::vector<Layer>& layers, const uint16_t* rep, const uint16_t* def, uint64_t n,
                           std::string_view where);

  // Per-step arrays; list offsets get their final entry here. Call once.
  std::vector<StepArrays>& Finish();

 private:
  const LeafPath* path_;
  std::vector<StepArrays> steps_;
  int valid_depth_ = 0;  // steps at which the last level's slots are valid
};

// Checks that `layers` (innermost first) fit `path`: same count, list layers
// exactly at list steps. CorruptData naming `where` otherwise.
Status CheckLayers(const LeafPath& path, const std::vector<Layer>& layers, std::string_view where);

}  // namespace omnigraph::lance
