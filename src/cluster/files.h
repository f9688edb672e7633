// Reading the files a cluster config references (spec/cluster.md §1.2:
// paths resolve against the config dir, and are shown as resolved).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/status.h"

namespace omnigraph::cluster {

// `declared` (as written in cluster.yaml) resolved against `config_dir`:
// an absolute path stays as it is, a relative one is joined to the dir.
std::filesystem::path ResolveConfigPath(const std::filesystem::path& config_dir, std::string_view declared);

// The whole file at `path` as bytes. Errors: kNotFound / kIoError whose
// message is the operating system's reason ("No such file or directory",
// "Is a directory", …), which diagnostics quote after "could not read …: ".
Result<std::string> ReadSourceFile(const std::filesystem::path& path);

}  // namespace omnigraph::cluster
