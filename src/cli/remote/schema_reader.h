// The SchemaApplyOutput a server sends (POST /schema/apply; openapi.json,
// api/wire/report_json.h SchemaApplyJson) read back into the engine's
// result type, so a served `schema apply` prints exactly what a local one
// prints.
#pragma once

#include <nlohmann/json.hpp>

#include "compiler/schema_plan.h"
#include "exec/writers/schema_apply.h"
#include "util/status.h"

namespace omnigraph::cli::remote {

// One step as SchemaStepJson writes it. Errors: InvalidArgument naming
// the member that is missing or of the wrong kind.
Result<compiler::SchemaStep> ParseSchemaStep(const nlohmann::ordered_json& step);

// {uri, supported, applied, step_count, graph_manifest_version, steps}
// without its uri (the reply's "uri" member is the caller's to read); the
// result carries no commit. Errors: InvalidArgument as ParseSchemaStep,
// and for a missing or mistyped member.
Result<exec::SchemaChangeResult> ParseSchemaApplyOutput(const nlohmann::ordered_json& reply);

}  // namespace omnigraph::cli::remote
