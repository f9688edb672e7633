#include "cli/verbs/verbs.h"

#include <array>

namespace omnigraph::cli {
namespace {

struct VerbRegistration {
  std::string_view name;
  void (*add)(CLI::App& app, Context& context);
};

// Every verb, in the order `--help` lists them. `repair` is registered by
// RegisterRepair, which lives with optimize; `ingest` (hidden from --help)
// by RegisterIngest, which lives with load.
constexpr std::array<VerbRegistration, 25> kVerbs = {{
    {"init", RegisterInit},         {"load", RegisterLoad},       {"query", RegisterQuery},
    {"mutate", RegisterMutate},     {"export", RegisterExport},   {"blob", RegisterBlob},
    {"snapshot", RegisterSnapshot}, {"schema", RegisterSchema},   {"lint", RegisterLint},
    {"branch", RegisterBranch},     {"commit", RegisterCommit},   {"changes", RegisterChanges},
    {"optimize", RegisterOptimize}, {"repair", RegisterRepair},   {"cleanup", RegisterCleanup},
    {"cluster", RegisterCluster},   {"policy", RegisterPolicy},     {"version", RegisterVersion},
    {"graphs", RegisterGraphs},     {"queries", RegisterQueries}, {"alias", RegisterAlias},
    {"login", RegisterLogin},       {"logout", RegisterLogout},   {"profile", RegisterProfile}, {"ingest", RegisterIngest},
}};

}  // namespace

void RegisterVerbs(CLI::App& app, Context& context, std::string_view verb) {
  for (const VerbRegistration& registration : kVerbs) {
    if (registration.name == verb) {
      registration.add(app, context);
      return;
    }
  }
  for (const VerbRegistration& registration : kVerbs) registration.add(app, context);
}

}  // namespace omnigraph::cli
