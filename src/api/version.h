// The product version every front end reports (`omnigraph version`,
// `GET /healthz`).
#pragma once

#include <string_view>

namespace omnigraph::api {

inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace omnigraph::api
