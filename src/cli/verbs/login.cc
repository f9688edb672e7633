// `login NAME [--token T]` and `logout NAME` (surface §5.2, §5.5; local):
// save or remove the bearer token of operator-config server NAME in the
// credentials file (~/.omnigraph/credentials, or $OMNIGRAPH_HOME/
// credentials), which served commands read (cli/remote/credentials.h).
// The file is replaced durably and is never readable by others (0600).
//
// Human output:
//   login:  saved the token of server 'NAME' in <path>
//   logout: removed the token of server 'NAME' from <path>
//           no token of server 'NAME' in <path>   (nothing to remove; exit 0)
#include <termios.h>
#include <unistd.h>

#include <cctype>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/operator_config.h"
#include "cli/remote/credentials.h"
#include "cli/verbs/verbs.h"

namespace omnigraph::cli {
namespace {

struct LoginOptions {
  std::string name;   // positional NAME: a servers.<name> entry
  std::string token;  // --token; read from stdin when not given
  CLI::Option* token_option = nullptr;
};

// A server name the credentials file can hold as a `[name]` header and
// OMNIGRAPH_TOKEN_<NAME> can key: ASCII letters, digits, '-', '_', '.'.
Status CheckServerName(std::string_view name) {
  bool valid = !name.empty();
  for (unsigned char c : name) valid = valid && (std::isalnum(c) || c == '-' || c == '_' || c == '.');
  if (valid) return Status::OK();
  return UsageError(fmt::format("server name '{}' must be non-empty ASCII letters, digits, '-', '_' or '.'", name));
}

// A bearer token as RFC 6750 §2.1 spells one (b64token: letters, digits,
// "-._~+/" and trailing '='), so that it is written and read back as is.
Status CheckToken(std::string_view token) {
  if (token.empty()) return UsageError("no token given: pass --token <T> or type the token on standard input");
  for (unsigned char c : token) {
    if (!std::isalnum(c) && std::string_view("-._~+/=").find(static_cast<char>(c)) == std::string_view::npos) {
      return UsageError("the token must be a bearer token: ASCII letters, digits and -._~+/= only");
    }
  }
  return Status::OK();
}

// One line of standard input, without its line end. On a terminal the
// user is prompted on stderr and the typed token is not echoed.
std::string ReadTokenLine(std::string_view name) {
  termios saved{};
  const bool silenced = ::isatty(STDIN_FILENO) != 0 && ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (silenced) {
    std::cerr << fmt::format("token for server '{}': ", name) << std::flush;
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (silenced) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    std::cerr << "\n";
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// The credentials file, or a UsageError when neither HOME nor
// OMNIGRAPH_HOME says where it is.
Result<std::string> CredentialsFile() {
  std::string path = remote::CredentialsPath();
  if (path.empty()) return UsageError("no credentials file: set HOME or OMNIGRAPH_HOME");
  return path;
}

int RunLogin(Context& context, const LoginOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "login", {.store = false, .json = false}); !st.ok()) {
    return context.Fail(st);
  }
  if (Status st = CheckServerName(options.name); !st.ok()) return context.Fail(st);
  auto path = CredentialsFile();
  if (!path.ok()) return context.Fail(path.status());
  const std::string token = options.token_option->count() > 0 ? options.token : ReadTokenLine(options.name);
  if (Status st = CheckToken(token); !st.ok()) return context.Fail(st);
  auto text = remote::ReadCredentials(*path);
  if (!text.ok()) return context.Fail(text.status());
  if (Status st = remote::WriteCredentials(*path, remote::WithToken(*text, options.name, token)); !st.ok()) {
    return context.Fail(st);
  }
  context.published = fmt::format("credentials file '{}'", *path);
  // A token is only sent to the server it is keyed to: say so when no
  // servers.<name> entry can use it yet.
  if (auto config = LoadOperatorConfig(); config.ok() && !config->servers.contains(options.name)) {
    std::cerr << fmt::format("warning: server '{}' is not in {}; its token is used once servers.{}.url names it\n",
                             options.name, config->path.empty() ? "the operator config" : config->path,
                             options.name);
  }
  std::cout << fmt::format("saved the token of server '{}' in {}\n", options.name, *path);
  return kExitOk;
}

int RunLogout(Context& context, const LoginOptions& options) {
  if (Status st = PrepareVerb(&context.flags, "logout", {.store = false, .json = false}); !st.ok()) {
    return context.Fail(st);
  }
  if (Status st = CheckServerName(options.name); !st.ok()) return context.Fail(st);
  auto path = CredentialsFile();
  if (!path.ok()) return context.Fail(path.status());
  auto text = remote::ReadCredentials(*path);
  if (!text.ok()) return context.Fail(text.status());
  bool removed = false;
  std::string rest = remote::WithoutSection(*text, options.name, &removed);
  if (!removed) {
    std::cout << fmt::format("no token of server '{}' in {}\n", options.name, *path);
    return kExitOk;
  }
  if (Status st = remote::WriteCredentials(*path, rest); !st.ok()) return context.Fail(st);
  context.published = fmt::format("credentials file '{}'", *path);
  std::cout << fmt::format("removed the token of server '{}' from {}\n", options.name, *path);
  return kExitOk;
}

}  // namespace

void RegisterLogin(CLI::App& app, Context& context) {
  auto options = std::make_shared<LoginOptions>();
  CLI::App* login = app.add_subcommand("login", "save the bearer token of a server in the credentials file");
  login->add_option("NAME", options->name, "server name (servers.<name> of the operator config)")->required();
  options->token_option = login->add_option("--token", options->token, "the token (default: read from stdin)");
  login->callback([&context, options] { context.exit_code = RunLogin(context, *options); });
}

void RegisterLogout(CLI::App& app, Context& context) {
  auto options = std::make_shared<LoginOptions>();
  CLI::App* logout = app.add_subcommand("logout", "remove the token of a server from the credentials file");
  logout->add_option("NAME", options->name, "server name")->required();
  logout->callback([&context, options] { context.exit_code = RunLogout(context, *options); });
}

}  // namespace omnigraph::cli
