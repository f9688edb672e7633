// omnigraph: the command-line front end (spec/surface.md §5).
#include "cli/commands.h"

int main(int argc, char** argv) { return omnigraph::cli::Run(argc, argv); }
