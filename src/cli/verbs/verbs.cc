#include "cli/verbs/verbs.h"

namespace omnigraph::cli {

void RegisterVerbs(CLI::App& app, Context& context) {
  RegisterInit(app, context);
  RegisterLoad(app, context);
  RegisterQuery(app, context);
  RegisterMutate(app, context);
  RegisterExport(app, context);
  RegisterBlob(app, context);
  RegisterSnapshot(app, context);
  RegisterSchema(app, context);
  RegisterLint(app, context);
  RegisterBranch(app, context);
  RegisterCommit(app, context);
  RegisterChanges(app, context);
  RegisterOptimize(app, context);
  RegisterRepair(app, context);
  RegisterCleanup(app, context);
  RegisterVersion(app, context);
}

}  // namespace omnigraph::cli
