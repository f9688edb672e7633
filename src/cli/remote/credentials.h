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

// The token to send, "" for none. `server_name` is the operator-config
// server the URL belongs to ("" for a URL no server entry names, which
// skips the keyed chain). Errors: InvalidArgument when the credentials
// file is readable or writable by group or others (it must be 0600);
// IoError when it exists but cannot be read.
Result<std::string> BearerToken(const std::string& server_name);

}  // namespace omnigraph::cli::remote
