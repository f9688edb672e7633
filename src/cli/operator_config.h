// The operator config file of the CLI (spec/surface.md §5.5):
// ~/.omnigraph/config.yaml, or $OMNIGRAPH_HOME/config.yaml when
// OMNIGRAPH_HOME is set.
//
// It uses the keys that address a graph (defaults.store, defaults.server,
// defaults.default_graph, servers.<name>.url, profiles), the cluster
// roots `--cluster NAME` names (clusters.<name>.root) and the aliases of
// `alias`. A key outside
// that schema is reported as a warning, never an error, so a config shared
// with other versions keeps working.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/result_format.h"
#include "util/status.h"

namespace omnigraph::cli {

// profiles.<name> (§5.5): a named way to address a graph.
struct OperatorProfile {
  std::optional<std::string> store;          // a graph path or file:// URI
  std::optional<std::string> server;         // a server name (servers.<name>) or http(s) URL
  std::optional<std::string> cluster;        // a cluster root (not reachable by this build)
  std::optional<std::string> default_graph;  // a graph on that server or cluster
};

// aliases.<name> (§5.5): a stored read query on a named server, run by
// `omnigraph alias NAME [ARGS…]`.
struct OperatorAlias {
  std::optional<std::string> server;  // a server name (servers.<name>) or http(s) URL
  std::optional<std::string> graph;   // the graph id on that server
  std::optional<std::string> query;   // the stored query's name
  std::vector<std::string> args;      // parameter names the positional ARGS bind to, in order
  std::string params_json = "{}";     // fixed parameters, as a JSON object
  std::optional<exec::OutputFormat> format;  // the read format given no --format/--json
};

struct OperatorConfig {
  std::string path;                              // the file read; "" when there was none
  std::optional<std::string> actor;              // operator.actor: the actor of writes given no --as
  std::optional<exec::OutputFormat> output;      // defaults.output: the read format given no --format
  std::optional<std::string> store;              // defaults.store: the graph when a command names none
  std::optional<std::string> server;             // defaults.server: a server name or URL
  std::optional<std::string> default_graph;      // defaults.default_graph: the graph id on that server
  std::map<std::string, std::string> servers;    // servers.<name>.url, by name
  std::map<std::string, std::string> clusters;   // clusters.<name>.root, by name
  std::optional<size_t> table_max_column_width;  // defaults.table_max_column_width, in terminal columns
  bool table_cell_wrap = false;                  // defaults.table_cell_layout: wrap (else truncate)
  std::map<std::string, OperatorProfile> profiles;  // profiles.<name>, by name
  std::map<std::string, OperatorAlias> aliases;     // aliases.<name>, by name
  std::vector<std::string> warnings;             // "<path>: unknown key 'a.b'", in file order
};

// The per-project CLI file `omnigraph.yaml` of the working directory (the
// corpus cookbooks' "per-operator omnigraph.yaml sugar"), read by `alias`
// and `query --alias` only, for aliases the operator config lacks. Of its
// sections only these are read (the rest, e.g. project, query, server,
// auth, is ignored; cluster.md §4.0: no cluster command reads the file):
//   graphs.<g>.{uri, bearer_token_env}
//   cli.{graph, branch, output_format, table_max_column_width,
//        table_cell_layout}
//   aliases.<name>.{command, query, name, args, params, format, graph,
//                   branch}
// An alias runs stored query `name` (`query` is its .gq file, for the
// reader) on the graph graphs.<graph, else cli.graph>.uri, which must be
// a served graph `http(s)://host[:port][/prefix]/graphs/<id>`.
struct ProjectAlias {
  OperatorAlias alias;                // server, graph and query as aliases.<name> of the operator config would
  std::optional<std::string> branch;  // aliases.<name>.branch, else cli.branch
  // The environment variable holding the graph's bearer token
  // (graphs.<g>.bearer_token_env); when it is unset or empty, the token
  // chain of §5.5 applies.
  std::optional<std::string> token_env;
  // Why the alias cannot run here (a mutation, a graph that is a store
  // or not declared, no stored query name); "" when it can.
  std::string problem;
};

struct ProjectConfig {
  std::string path;  // the file read; "" when there was none
  std::map<std::string, ProjectAlias> aliases;
  std::optional<size_t> table_max_column_width;  // cli.table_max_column_width
  bool table_cell_wrap = false;                  // cli.table_cell_layout: wrap
};

// Parses the text of an omnigraph.yaml; `path` names it in messages.
// Errors: InvalidArgument "<path>:<line>:<column>: <reason>" for YAML
// syntax, a section or alias that is not a map, and a value of the wrong
// kind among the keys above.
Result<ProjectConfig> ParseProjectConfig(std::string_view text, std::string_view path);

// Reads `directory`/omnigraph.yaml; a missing file is an empty config.
// Errors: as ParseProjectConfig; IoError when it cannot be read.
Result<ProjectConfig> LoadProjectConfig(const std::string& directory = ".");

// The config file's path: `omnigraph_home`/config.yaml when it is set and
// non-empty, else `home`/.omnigraph/config.yaml; "" when neither is set.
std::string OperatorConfigPath(const char* omnigraph_home, const char* home);

// Parses the text of a config file; `path` names it in messages.
// Errors: InvalidArgument "<path>:<line>:<column>: <reason>" for YAML
// syntax and for a key given twice in one map, or
// "<path>:<line>:<column>: <key> must be …" for a value of the wrong kind
// (defaults.output not a format of §5.3, a width that is not a positive
// integer, a layout other than truncate/wrap, a section that is not a map,
// a profile value that is not a single value, a profile naming more than
// one of store, server and cluster, an alias's args that are not a list of
// names, params that are not a map, a format not of §5.3).
Result<OperatorConfig> ParseOperatorConfig(std::string_view text, std::string_view path);

// Reads the file at OperatorConfigPath($OMNIGRAPH_HOME, $HOME). A missing
// file is an empty config. Errors: as ParseOperatorConfig; IoError when
// the file exists but cannot be read.
Result<OperatorConfig> LoadOperatorConfig();

}  // namespace omnigraph::cli
