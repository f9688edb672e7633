// The bearer token of a served command (spec/surface.md §5.5): the keyed
// chain of the operator-config server the URL belongs to,
// OMNIGRAPH_TOKEN_<NAME> then the [<name>] section of the credentials
// file, then the unkeyed OMNIGRAPH_BEARER_TOKEN. A keyed token is only
// ever sent to the server it is keyed to.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace omnigraph::cli::remote {

// The environment variable of server `name`'s token: OMNIGRAPH_TOKEN_
// followed by the name upper-cased, every character other than a letter
// or digit becoming '_' ("intel-dev" → OMNIGRAPH_TOKEN_INTEL_DEV).
std::string TokenVariable(std::string_view name);

// The credentials file: $OMNIGRAPH_HOME/credentials when OMNIGRAPH_HOME
// is set and non-empty, else $HOME/.omnigraph/credentials; "" when
// neither is set.
std::string CredentialsPath();

// The token of section [<name>] in credentials file text (INI: `[name]`
// headers, `token = value` lines, `#`/`;` comments); "" when absent.
std::string TokenInCredentials(std::string_view text, std::string_view name);

// `text` with section [<name>] holding exactly `token = <token>`: the
// section's first token line is replaced (later ones dropped), or the
// section is appended when absent. Other sections, lines and comments are
// kept as they are.
std::string WithToken(std::string_view text, std::string_view name, std::string_view token);

// `text` without section [<name>] (its header and every line up to the
// next header); `*removed` tells whether there was one.
std::string WithoutSection(std::string_view text, std::string_view name, bool* removed);

// The text of the credentials file at `path`, "" when it does not exist.
// Errors: InvalidArgument when the file is readable or writable by group
// or others (it must be 0600); IoError when it cannot be read.
Result<std::string> ReadCredentials(const std::string& path);

// Replaces the credentials file at `path` with `text`, durably and never
// readable by others: the directory is created (0700) when missing, the
// text written to a temporary file created 0600 beside it, fsynced,
// renamed over `path`, and the directory fsynced. Errors: IoError naming
// the step that failed (the temporary file is removed).
Status WriteCredentials(const std::string& path, std::string_view text);

// The token to send, "" for none. `server_name` is the operator-config
// server the URL belongs to ("" for a URL no server entry names, which
// skips the keyed chain). Errors: InvalidArgument when the credentials
// file is readable or writable by group or others (it must be 0600);
// IoError when it exists but cannot be read.
Result<std::string> BearerToken(const std::string& server_name);

}  // namespace omnigraph::cli::remote
