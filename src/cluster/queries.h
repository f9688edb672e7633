// `graphs.<g>.queries` (spec/cluster.md §1.3): discovering a graph's stored
// queries from `.gq` files, and checking each one against the graph's
// desired schema.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "cluster/config.h"
#include "cluster/diagnostics.h"
#include "compiler/catalog.h"

namespace omnigraph::cluster {

// A graph's queries by name: the file each is declared in, as written
// (directory entries as `<declared dir>/<file>`), and the bytes of every
// file read during discovery, keyed by that declared path, so each file
// is read once.
struct DiscoveredQueries {
  std::map<std::string, std::string> files;     // query name -> declared file
  std::map<std::string, std::string> contents;  // declared file -> bytes
};

// Expands a graph's `queries` declaration (§1.3) into name -> file.
// An explicit map is returned as written, with nothing read. A string or
// list names directories (their top-level `*.gq` files, sorted; other files
// and subdirectories ignored) or single files; each file is read and
// parsed, and every `query <name>` in it registers <name>. Appends to
// `diagnostics`, all at `graphs.<g>.queries` unless said otherwise:
//   * warning `query_dir_empty` "query directory '<dir>' contains no .gq files";
//   * error `query_dir_unreadable` "could not list query directory '<dir>': <io>";
//   * error `query_file_missing` "could not read query file '<file>': <io>";
//   * error `query_parse_error` "'<file>' does not parse: <compiler error>";
//   * error `duplicate_query_name` at `graphs.<g>.queries.<n>` "query '<n>'
//     is declared in both '<a>' and '<b>'" (a, b as declared), keeping the
//     first.
// Paths in messages are resolved against `config_dir`.
DiscoveredQueries DiscoverQueries(const std::filesystem::path& config_dir, const std::string& graph_id,
                                  const QueriesDeclaration& declaration, Diagnostics* diagnostics);

// Checks one stored query's source (§1.3, per query): the file must parse
// and hold a declaration named `query_name`, which must type-check against
// `catalog` (the desired schema; null when that schema is invalid).
// Appends at `graphs.<g>.queries.<n>`: error `query_parse_error` (compiler
// text), error `query_key_mismatch` "no `query <n>` declaration found in the
// referenced .gq file", error `query_typecheck_error` (compiler text), or,
// with no catalog, warning `query_typecheck_skipped`. `file_name` names the
// file in compiler messages.
void CheckQuerySource(const std::string& graph_id, const std::string& query_name, const std::string& source,
                      const std::string& file_name, const compiler::Catalog* catalog, Diagnostics* diagnostics);

}  // namespace omnigraph::cluster
