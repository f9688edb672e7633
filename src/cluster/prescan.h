// The text pre-scans of `cluster.yaml` (spec/cluster.md §1.1 step 3), run
// before the typed parse so that a mistake the typed parse would hide or
// word obscurely is named: YAML readers keep one of two duplicate keys
// silently, and a reserved or removed key would only read "unknown field".
#pragma once

#include <string_view>

#include "cluster/diagnostics.h"

namespace omnigraph::cluster {

// Duplicate keys (§1.1 step 3), found line by line: one error
// `duplicate_yaml_key` per repeated key, at its dotted path (a `- ` item is
// its own scope `<parent>[]`, so `allow[].scope`), with the message
// "duplicate YAML key `<k>` on line <n>" (n = 1-based line of the repeat).
// A `#` inside quotes is not a comment; keys inside flow collections
// (`{a: 1}`) and block scalars are not scanned.
Diagnostics DuplicateKeyDiagnostics(std::string_view text);

// Top-level keys reserved for later phases (§1.1 step 3): `apply`,
// `env_file`, `pipelines`, `embeddings`, `ui`, `aliases`, `bindings`, each an
// error `future_phase_field` at the key: "`<key>` is reserved for a later
// cluster-control phase". Text that is not YAML yields none (the typed
// parse reports it).
Diagnostics FuturePhaseDiagnostics(std::string_view text);

// `graphs.<g>.streaming` (§1.1 step 3): an error
// `removed_streaming_declaration` per graph declaring it. Text that is not
// YAML yields none.
Diagnostics RemovedStreamingDiagnostics(std::string_view text);

}  // namespace omnigraph::cluster
