// Lance `logical_type` strings for our column types (spec/lance-format.md §1.4).
#pragma once

#include <string>
#include <string_view>

#include "columnar/data_type.h"
#include "util/status.h"

namespace omnigraph::lance {

// "bool", "int32", "int64", "uint32", "uint64", "float", "double", "string",
// "large_binary", "date32:day", "date64:ms", "list", "struct", and
// "fixed_size_list:{item}:{n}" for fixed-size lists of primitives (a single
// leaf field in Lance's schema). InvalidArgument for other shapes (for
// example a fixed-size list of lists).
Result<std::string> LogicalTypeName(const DataType& type);

// Parses a leaf logical type (not "list"/"struct"). Unsupported names the
// type when it is outside our type set.
Result<DataTypePtr> ParseLeafLogicalType(std::string_view name);

}  // namespace omnigraph::lance
