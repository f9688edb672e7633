#include "cluster/queries.h"

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cluster/files.h"
#include "compiler/query_parser.h"
#include "compiler/typecheck.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

// A `.gq` file to read: as declared (key of the result) and as resolved.
struct QueryFileToRead {
  std::string declared;
  fs::path resolved;
};

// The files one declared path contributes: a directory's top-level `*.gq`
// files, sorted, or the path itself.
void ExpandDeclaredPath(const fs::path& config_dir, const std::string& graph_id, const std::string& declared,
                        std::vector<QueryFileToRead>* files, Diagnostics* diagnostics) {
  const fs::path resolved = ResolveConfigPath(config_dir, declared);
  std::error_code error;
  if (!fs::is_directory(resolved, error)) {
    files->push_back(QueryFileToRead{declared, resolved});
    return;
  }
  const std::string path = fmt::format("graphs.{}.queries", graph_id);
  std::vector<fs::path> entries;
  fs::directory_iterator iterator(resolved, error);
  for (; !error && iterator != fs::directory_iterator(); iterator.increment(error)) {
    if (iterator->path().extension() == ".gq") entries.push_back(iterator->path());
  }
  if (error) {
    diagnostics->push_back(ErrorDiagnostic(
        "query_dir_unreadable", path,
        fmt::format("could not list query directory '{}': {}", resolved.string(), error.message())));
    return;
  }
  std::sort(entries.begin(), entries.end());
  if (entries.empty()) {
    diagnostics->push_back(WarningDiagnostic(
        "query_dir_empty", path, fmt::format("query directory '{}' contains no .gq files", resolved.string())));
  }
  for (const fs::path& entry : entries) {
    files->push_back(QueryFileToRead{(fs::path(declared) / entry.filename()).string(), entry});
  }
}

}  // namespace

DiscoveredQueries DiscoverQueries(const fs::path& config_dir, const std::string& graph_id,
                                  const QueriesDeclaration& declaration, Diagnostics* diagnostics) {
  DiscoveredQueries discovered;
  if (declaration.spelling == QueriesDeclaration::Spelling::kExplicit) {
    discovered.files = declaration.files;
    return discovered;
  }
  std::vector<QueryFileToRead> files;
  for (const std::string& declared : declaration.paths) {
    ExpandDeclaredPath(config_dir, graph_id, declared, &files, diagnostics);
  }
  const std::string path = fmt::format("graphs.{}.queries", graph_id);
  for (const QueryFileToRead& file : files) {
    Result<std::string> source = ReadSourceFile(file.resolved);
    if (!source.ok()) {
      diagnostics->push_back(ErrorDiagnostic(
          "query_file_missing", path,
          fmt::format("could not read query file '{}': {}", file.resolved.string(), source.status().message())));
      continue;
    }
    auto parsed = compiler::ParseQueries(*source, file.resolved.string());
    if (!parsed.ok()) {
      diagnostics->push_back(ErrorDiagnostic(
          "query_parse_error", path,
          fmt::format("'{}' does not parse: {}", file.resolved.string(), parsed.status().message())));
      continue;
    }
    for (const compiler::query::QueryDecl& query : parsed->queries) {
      auto [existing, inserted] = discovered.files.emplace(query.name, file.declared);
      if (inserted) continue;
      diagnostics->push_back(ErrorDiagnostic(
          "duplicate_query_name", fmt::format("graphs.{}.queries.{}", graph_id, query.name),
          fmt::format("query '{}' is declared in both '{}' and '{}'", query.name, existing->second, file.declared)));
    }
    discovered.contents.emplace(file.declared, std::move(*source));
  }
  return discovered;
}

void CheckQuerySource(const std::string& graph_id, const std::string& query_name, const std::string& source,
                      const std::string& file_name, const compiler::Catalog* catalog, Diagnostics* diagnostics) {
  const std::string path = fmt::format("graphs.{}.queries.{}", graph_id, query_name);
  auto parsed = compiler::ParseQueries(source, file_name);
  if (!parsed.ok()) {
    diagnostics->push_back(ErrorDiagnostic("query_parse_error", path, parsed.status().message()));
    return;
  }
  const auto& queries = parsed->queries;
  const auto query = std::find_if(queries.begin(), queries.end(),
                                  [&](const compiler::query::QueryDecl& declaration) { return declaration.name == query_name; });
  if (query == queries.end()) {
    diagnostics->push_back(ErrorDiagnostic(
        "query_key_mismatch", path,
        fmt::format("no `query {}` declaration found in the referenced .gq file", query_name)));
    return;
  }
  if (catalog == nullptr) {
    diagnostics->push_back(WarningDiagnostic(
        "query_typecheck_skipped", path,
        "query parsed, but type-check was skipped because the graph schema is invalid"));
    return;
  }
  auto checked = compiler::TypeCheck(*catalog, *query);
  if (!checked.ok()) diagnostics->push_back(ErrorDiagnostic("query_typecheck_error", path, checked.status().message()));
}

}  // namespace omnigraph::cluster
