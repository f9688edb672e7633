#include "compiler/lint.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compiler/query_parser.h"
#include "compiler/typecheck.h"

namespace omnigraph::compiler {

namespace {

constexpr const char* kHardcodedMutationWarning = "mutation declares no params; hardcoded mutations are easy to miss";
// The D2 rule (§3.2) is a run-time refusal, not a type error: lint passes
// such a query, as upstream does, but says it cannot run.
constexpr const char* kMixedMutationWarning =
    "mixes inserts/updates and deletes, so `mutate` refuses it; split it into (1) inserts and updates, then (2) "
    "deletes";

std::string ScalarValueKind(ScalarKind k) {
  switch (k) {
    case ScalarKind::kString: return "string";
    case ScalarKind::kBool: return "bool";
    case ScalarKind::kI32:
    case ScalarKind::kU32: return "int";
    case ScalarKind::kI64:
    case ScalarKind::kU64: return "bigint";
    case ScalarKind::kF32:
    case ScalarKind::kF64: return "float";
    case ScalarKind::kDate: return "date";
    case ScalarKind::kDateTime: return "datetime";
    case ScalarKind::kBlob: return "blob";
  }
  return "string";
}

LintResultField Field(const ir::Projection& p) {
  LintResultField f;
  f.name = p.descriptor_name;
  const PropertyType& t = p.expr.type;
  f.nullable = t.nullable;
  if (p.expr.kind == ir::Expr::Kind::kNodeId) {
    f.kind = "object";
    f.nullable = false;
  } else if (t.is_vector()) {
    f.kind = "vector";
    f.vector_dim = t.vector_dim;
  } else if (t.is_list()) {
    f.kind = "list";
    f.item_kind = ScalarValueKind(t.scalar);
  } else if (t.is_enum()) {
    f.kind = "string";
  } else {
    f.kind = ScalarValueKind(t.scalar);
  }
  return f;
}

int SeverityRank(LintFinding::Severity s) {
  switch (s) {
    case LintFinding::Severity::kError: return 0;
    case LintFinding::Severity::kWarning: return 1;
    case LintFinding::Severity::kInfo: return 2;
  }
  return 3;
}

const char* SeverityName(LintFinding::Severity s) {
  switch (s) {
    case LintFinding::Severity::kError: return "error";
    case LintFinding::Severity::kWarning: return "warning";
    case LintFinding::Severity::kInfo: return "info";
  }
  return "info";
}

const char* SeverityLabel(LintFinding::Severity s) {
  switch (s) {
    case LintFinding::Severity::kError: return "ERROR";
    case LintFinding::Severity::kWarning: return "WARN ";
    case LintFinding::Severity::kInfo: return "INFO ";
  }
  return "INFO ";
}

struct UpdateCoverage {
  std::set<std::string> query_names;
  std::set<std::string> assigned;
};

}  // namespace

LintOperation DescribeOperation(const ir::QueryIR& query) {
  LintOperation op;
  if (!query.is_mutation) {
    for (const ir::Projection& p : query.read.projections) op.result.push_back(Field(p));
  }
  op.reads = query.reads;
  op.writes = query.writes;
  return op;
}

LintReport LintQueries(const Catalog& catalog, std::string_view query_source, std::string_view query_path,
                       LintSchemaSource schema_source) {
  LintReport report;
  report.schema_source = std::move(schema_source);
  report.query_path = std::string(query_path);
  Result<query::QueryFile> parsed = ParseQueries(query_source, query_path);
  if (!parsed.ok()) {
    report.ok = false;
    report.errors = 1;
    LintFinding f;
    f.severity = LintFinding::Severity::kError;
    f.code = "Q000";
    f.message = parsed.status().message();
    report.findings.push_back(std::move(f));
    return report;
  }
  std::map<std::string, UpdateCoverage> coverage;
  std::map<std::string, const query::QueryDecl*> first_by_name;
  for (const query::QueryDecl& q : parsed->queries) {
    LintQueryResult r;
    r.name = q.name;
    r.is_mutation = q.is_mutation;
    if (q.is_mutation && q.params.empty()) r.warnings.push_back(kHardcodedMutationWarning);
    // Running a query by name picks its first declaration; a later one with
    // the same name can never run.
    auto [first, inserted] = first_by_name.emplace(q.name, &q);
    if (!inserted) {
      r.warnings.push_back(fmt::format("a query named `{}` is already declared at line {}; this one can never run",
                                       q.name, first->second->location.line));
    }
    CompileOptions options;
    options.enforce_d2 = false;
    Result<ir::QueryIR> checked = TypeCheck(catalog, q, options);
    if (checked.ok()) {
      if (checked->is_mutation && !CheckMutationKinds(*checked).ok()) r.warnings.push_back(kMixedMutationWarning);
      r.operation = DescribeOperation(*checked);
      for (const ir::MutationStatement& s : checked->statements) {
        if (s.kind != ir::MutationStatement::Kind::kUpdate) continue;
        UpdateCoverage& c = coverage[s.type_name];
        c.query_names.insert(q.name);
        for (const ir::Assignment& a : s.assignments) c.assigned.insert(a.property);
      }
    } else {
      r.ok = false;
      r.error = checked.status().message();
      const Status::Details& details = checked.status().details();
      // Type errors carry line and column; the file is the one linted.
      auto line = details.find("line"), column = details.find("column");
      if (line != details.end() && column != details.end()) {
        r.error_location = fmt::format("{}:{}:{}", query_path, line->second, column->second);
      }
    }
    report.results.push_back(std::move(r));
  }
  report.queries_processed = report.results.size();
  // L201: nullable, non-key, non-@embed properties no update query sets.
  for (const NodeType& node : catalog.nodes()) {
    auto it = coverage.find(node.name);
    if (it == coverage.end() || it->second.query_names.empty()) continue;
    for (const Property& p : node.properties) {
      if (!p.type.nullable || node.IsKeyProperty(p.name) || p.embed_source || it->second.assigned.count(p.name)) {
        continue;
      }
      LintFinding f;
      f.severity = LintFinding::Severity::kWarning;
      f.code = "L201";
      f.message = fmt::format("{}.{} exists in schema but no update query sets it", node.name, p.name);
      f.type_name = node.name;
      f.property = p.name;
      f.query_names.assign(it->second.query_names.begin(), it->second.query_names.end());
      report.findings.push_back(std::move(f));
    }
  }
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const LintFinding& a, const LintFinding& b) {
    if (SeverityRank(a.severity) != SeverityRank(b.severity)) return SeverityRank(a.severity) < SeverityRank(b.severity);
    if (a.type_name != b.type_name) return a.type_name < b.type_name;
    if (a.property != b.property) return a.property < b.property;
    return a.message < b.message;
  });
  for (const LintQueryResult& r : report.results) {
    if (!r.ok) ++report.errors;
    report.warnings += r.warnings.size();
  }
  for (const LintFinding& f : report.findings) {
    if (f.severity == LintFinding::Severity::kError) ++report.errors;
    if (f.severity == LintFinding::Severity::kWarning) ++report.warnings;
    if (f.severity == LintFinding::Severity::kInfo) ++report.infos;
  }
  report.ok = report.errors == 0;
  return report;
}

std::string LintReport::ToJson(bool pretty) const {
  using Json = nlohmann::ordered_json;
  auto refs = [](const std::vector<ir::TypeRef>& list) {
    Json arr = Json::array();
    for (const ir::TypeRef& r : list) arr.push_back(Json{{"kind", r.is_edge ? "edge" : "node"}, {"type_name", r.type_name}});
    return arr;
  };
  Json root = Json::object();
  root["status"] = ok ? "ok" : "error";
  Json source = Json::object();
  if (schema_source.kind == LintSchemaSource::Kind::kFile) {
    source["kind"] = "file";
    source["path"] = schema_source.location;
  } else {
    source["kind"] = "graph";
    source["uri"] = schema_source.location;
  }
  root["schema_source"] = std::move(source);
  root["query_path"] = query_path;
  root["queries_processed"] = queries_processed;
  root["errors"] = errors;
  root["warnings"] = warnings;
  root["infos"] = infos;
  Json results_json = Json::array();
  for (const LintQueryResult& r : results) {
    Json j = Json::object();
    j["name"] = r.name;
    j["kind"] = r.is_mutation ? "mutation" : "read";
    j["status"] = r.ok ? "ok" : "error";
    if (!r.warnings.empty()) j["warnings"] = r.warnings;
    if (r.error) j["error"] = *r.error;
    if (r.error_location) j["location"] = *r.error_location;
    if (r.operation) {
      Json op = Json::object();
      Json result = Json::array();
      for (const LintResultField& f : r.operation->result) {
        Json col = Json::object();
        col["name"] = f.name;
        col["kind"] = f.kind;
        if (f.item_kind) col["item_kind"] = *f.item_kind;
        if (f.vector_dim) col["vector_dim"] = *f.vector_dim;
        col["nullable"] = f.nullable;
        result.push_back(std::move(col));
      }
      op["result"] = std::move(result);
      op["reads"] = refs(r.operation->reads);
      op["writes"] = refs(r.operation->writes);
      j["operation"] = std::move(op);
    }
    results_json.push_back(std::move(j));
  }
  root["results"] = std::move(results_json);
  Json findings_json = Json::array();
  for (const LintFinding& f : findings) {
    Json j = Json::object();
    j["severity"] = SeverityName(f.severity);
    j["code"] = f.code;
    j["message"] = f.message;
    if (f.type_name) j["type_name"] = *f.type_name;
    if (f.property) j["property"] = *f.property;
    if (!f.query_names.empty()) j["query_names"] = f.query_names;
    findings_json.push_back(std::move(j));
  }
  root["findings"] = std::move(findings_json);
  return root.dump(pretty ? 2 : -1, ' ', false, Json::error_handler_t::replace);
}

std::string LintReport::ToHuman() const {
  std::string out;
  for (const LintQueryResult& r : results) {
    if (r.ok) {
      out += fmt::format("OK    query `{}` ({})\n", r.name, r.is_mutation ? "mutation" : "read");
    } else {
      out += fmt::format("ERROR query `{}`: {}\n", r.name, r.error.value_or(""));
      if (r.error_location) out += fmt::format("  --> {}\n", *r.error_location);
    }
    for (const std::string& w : r.warnings) out += fmt::format("WARN  query `{}`: {}\n", r.name, w);
  }
  for (const LintFinding& f : findings) out += fmt::format("{} {}\n", SeverityLabel(f.severity), f.message);
  out += fmt::format("INFO  Lint complete: {} queries processed ({} error(s), {} warning(s), {} info item(s))\n",
                     queries_processed, errors, warnings, infos);
  return out;
}

}  // namespace omnigraph::compiler
