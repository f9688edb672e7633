// Reading the files and parameters a command line names.
#pragma once

#include <string>

#include "util/status.h"

namespace omnigraph::cli {

// The whole of file `path`; "-" is standard input. A directory, or a
// descriptor that cannot be read, is an error, never an empty input.
// Errors: NotFound for a missing file; InvalidArgument for a directory;
// IoError otherwise. Messages name the file ("cannot read 'x': …").
Result<std::string> ReadFile(const std::string& path);

// The parameters JSON object of a query or mutation: the text of
// `params` (--params), else of file `params_file` (--params-file), else
// "{}". Errors: UsageError when both are given; as ReadFile.
Result<std::string> ReadParams(const std::string& params, const std::string& params_file);

}  // namespace omnigraph::cli
