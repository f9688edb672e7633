// The verbs of the `omnigraph` CLI (spec/surface.md §5.2), one file each.
//
// A verb is added in three steps:
//   1. verbs/<verb>.cc defines `void Register<Verb>(CLI::App& app,
//      Context& context)`. It adds the subcommand (and its own
//      subcommands) to `app`, binds the options to storage it owns (a
//      std::shared_ptr captured by the callback, since CLI11 keeps
//      references to it until parsing ends) and sets a callback that runs
//      the verb and stores its exit code in `context.exit_code`.
//   2. The declaration goes below, and the call into RegisterVerbs
//      (verbs.cc), whose order is the order `--help` lists them.
//   3. The file is added to src/cli/CMakeLists.txt.
//
// A verb's callback starts with PrepareVerb (cli/context.h), naming the
// global flags it accepts, reports failures with `context.Fail(status)`,
// prints its --json output through api/wire, and, when it writes, records
// what it made durable in `context.published`.
#pragma once

#include <string_view>

#include <CLI/CLI.hpp>

#include "api/version.h"
#include "cli/context.h"

namespace omnigraph::cli {

// The program's version, printed by `version` and by `-v`.
using api::kVersion;

// Registers the verb named `verb` on `app` when it is one of the verbs
// below, otherwise every verb, in the order of `--help`. Building CLI11's
// option tree of all the verbs costs about as many instructions as a
// small cold query itself, so a command line that names its verb builds
// only that verb's (the program's own `--help`, a typo and no verb at all
// still see every verb). `verb` is the command word after the deprecated
// spellings were rewritten (app.cc); empty when there is none.
void RegisterVerbs(CLI::App& app, Context& context, std::string_view verb);

void RegisterInit(CLI::App& app, Context& context);      // init: create a graph
void RegisterLoad(CLI::App& app, Context& context);      // load: strict NDJSON load
void RegisterIngest(CLI::App& app, Context& context);    // ingest: deprecated legacy load (hidden; verbs/load.cc)
void RegisterQuery(CLI::App& app, Context& context);     // query: run a read query
void RegisterMutate(CLI::App& app, Context& context);    // mutate: run a mutation
void RegisterExport(CLI::App& app, Context& context);    // export: NDJSON export
void RegisterBlob(CLI::App& app, Context& context);      // blob get / stat
void RegisterSnapshot(CLI::App& app, Context& context);  // snapshot: datasets a branch reads
void RegisterSchema(CLI::App& app, Context& context);    // schema show / plan / apply
void RegisterLint(CLI::App& app, Context& context);      // lint: check queries against a schema
void RegisterBranch(CLI::App& app, Context& context);    // branch create / list / delete / merge
void RegisterCommit(CLI::App& app, Context& context);    // commit list / show / changes
void RegisterChanges(CLI::App& app, Context& context);   // changes poll / baseline
// `commit changes`, registered by RegisterCommit (verbs/changes.cc).
void RegisterCommitChanges(CLI::App* commit, Context& context);
void RegisterOptimize(CLI::App& app, Context& context);  // optimize: compact main's tables
void RegisterRepair(CLI::App& app, Context& context);    // repair: report foreign drift
void RegisterCleanup(CLI::App& app, Context& context);   // cleanup: reclaim unneeded versions
void RegisterPolicy(CLI::App& app, Context& context);    // policy validate / test / explain
void RegisterCluster(CLI::App& app, Context& context);   // cluster validate (more cluster verbs to come)
void RegisterVersion(CLI::App& app, Context& context);   // version
void RegisterGraphs(CLI::App& app, Context& context);    // graphs list (served)
void RegisterQueries(CLI::App& app, Context& context);   // queries list / validate (cluster config)
void RegisterAlias(CLI::App& app, Context& context);     // alias: run an operator alias
void RegisterLogin(CLI::App& app, Context& context);     // login: save a server's token
void RegisterLogout(CLI::App& app, Context& context);    // logout: remove a server's token
void RegisterProfile(CLI::App& app, Context& context);   // profile list / show

}  // namespace omnigraph::cli
