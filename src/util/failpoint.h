// Named failpoints at durable steps, so crash tests can stop a process
// exactly there (issue: table store; architecture.md §2 util).
//
// A failpoint is armed by the environment variable OMNIGRAPH_FAILPOINTS,
// read once at first use, as `name=action[@skip][;name=action[@skip]...]`,
// or by the test API below (`@skip`: that many hits pass first). Actions:
//   error  the step returns an IoError naming the failpoint; nothing after it
//          runs, so the operation fails without its later effects;
//   crash  the process kills itself with SIGKILL at that point, as a power
//          cut or OOM kill would (no destructors, no buffered output).
// Unarmed failpoints cost one relaxed atomic load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace omnigraph::failpoint {

enum class Action { kOff, kError, kCrash };

// Arms or disarms `name` in this process. With `skip` > 0 the first `skip`
// hits pass and the next one acts (crash tests stop a write at its second
// detached commit this way).
void Set(std::string_view name, Action action, uint32_t skip = 0);
void ClearAll();

// Evaluates the failpoint: OK when unarmed, an IoError for kError, and never
// returns for kCrash.
Status Hit(std::string_view name);

// Every failpoint name the code base declares, for crash-test matrices.
const std::vector<std::string_view>& AllNames();

// Parses an OMNIGRAPH_FAILPOINTS spec; exposed for tests. Returns
// InvalidArgument naming the bad entry.
Status Configure(std::string_view spec);

}  // namespace omnigraph::failpoint

#define OG_FAILPOINT(name) OG_RETURN_IF_ERROR(::omnigraph::failpoint::Hit(name))
