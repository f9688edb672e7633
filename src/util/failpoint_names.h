// Compile-time constants for every failpoint name (see failpoint_names.inc).
#pragma once

#include <string_view>

namespace omnigraph::failpoint {
#define OG_DECLARE_FAILPOINT(constant, text) inline constexpr std::string_view constant = text;
#include "util/failpoint_names.inc"
#undef OG_DECLARE_FAILPOINT
}  // namespace omnigraph::failpoint
