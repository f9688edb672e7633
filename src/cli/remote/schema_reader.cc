#include "cli/remote/schema_reader.h"

#include <optional>
#include <string>
#include <vector>

namespace omnigraph::cli::remote {
namespace {

using Json = nlohmann::ordered_json;

Status MalformedApply(std::string_view what) {
  return InvalidArgument("the server's schema apply reply is malformed: " + std::string(what));
}

// Member `name` of `object` as a string: required, or nullopt when absent.
Result<std::optional<std::string>> StringMember(const Json& object, const char* name, bool required) {
  auto member = object.find(name);
  if (member == object.end()) {
    if (required) return MalformedApply(std::string("'") + name + "' is missing");
    return std::optional<std::string>();
  }
  if (!member->is_string()) return MalformedApply(std::string("'") + name + "' is not a string");
  return std::optional<std::string>(member->get<std::string>());
}

Result<bool> BoolMember(const Json& object, const char* name) {
  auto member = object.find(name);
  if (member == object.end() || !member->is_boolean()) {
    return MalformedApply(std::string("'") + name + "' is not a boolean");
  }
  return member->get<bool>();
}

}  // namespace

Result<compiler::SchemaStep> ParseSchemaStep(const Json& json) {
  if (!json.is_object()) return MalformedApply("a step is not an object");
  compiler::SchemaStep step;
  OG_ASSIGN_OR_RETURN(std::optional<std::string> kind, StringMember(json, "kind", true));
  step.kind = *kind;
  if (step.kind == "unsupported_change") {
    OG_ASSIGN_OR_RETURN(step.entity, StringMember(json, "entity", true));
    OG_ASSIGN_OR_RETURN(step.reason, StringMember(json, "reason", true));
    OG_ASSIGN_OR_RETURN(step.code, StringMember(json, "code", false));
    OG_ASSIGN_OR_RETURN(step.tier, StringMember(json, "tier", false));
    return step;
  }
  OG_ASSIGN_OR_RETURN(std::optional<std::string> type_kind, StringMember(json, "type_kind", true));
  OG_ASSIGN_OR_RETURN(std::optional<std::string> type_name, StringMember(json, "type_name", true));
  step.type_kind = *type_kind;
  step.type_name = *type_name;
  OG_ASSIGN_OR_RETURN(step.from, StringMember(json, "from", false));
  OG_ASSIGN_OR_RETURN(step.property, StringMember(json, "property_name", false));
  OG_ASSIGN_OR_RETURN(step.mode, StringMember(json, "mode", false));
  if (auto columns = json.find("columns"); columns != json.end()) {
    if (!columns->is_array()) return MalformedApply("'columns' is not a list");
    std::vector<std::string> names;
    for (const Json& column : *columns) {
      if (!column.is_string()) return MalformedApply("'columns' holds a value that is not a string");
      names.push_back(column.get<std::string>());
    }
    step.columns = std::move(names);
  }
  return step;
}

Result<exec::SchemaChangeResult> ParseSchemaApplyOutput(const Json& reply) {
  if (!reply.is_object()) return MalformedApply("it is not an object");
  exec::SchemaChangeResult result;
  OG_ASSIGN_OR_RETURN(result.plan.supported, BoolMember(reply, "supported"));
  OG_ASSIGN_OR_RETURN(result.applied, BoolMember(reply, "applied"));
  auto version = reply.find("graph_manifest_version");
  if (version == reply.end() || !version->is_number_unsigned()) {
    return MalformedApply("'graph_manifest_version' is not a whole number");
  }
  result.manifest_version = version->get<uint64_t>();
  auto steps = reply.find("steps");
  if (steps == reply.end() || !steps->is_array()) return MalformedApply("'steps' is not a list");
  for (const Json& step : *steps) {
    OG_ASSIGN_OR_RETURN(compiler::SchemaStep parsed, ParseSchemaStep(step));
    result.plan.steps.push_back(std::move(parsed));
  }
  return result;
}

}  // namespace omnigraph::cli::remote
