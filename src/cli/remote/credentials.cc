#include "cli/remote/credentials.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace omnigraph::cli::remote {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string Environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

std::string TokenVariable(std::string_view name) {
  std::string out = "OMNIGRAPH_TOKEN_";
  for (unsigned char c : name) out += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return out;
}

std::string CredentialsPath() {
  std::string home = Environment("OMNIGRAPH_HOME");
  if (!home.empty()) return home + "/credentials";
  home = Environment("HOME");
  return home.empty() ? std::string() : home + "/.omnigraph/credentials";
}

std::string TokenInCredentials(std::string_view text, std::string_view name) {
  bool in_section = false;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      in_section = Trim(line.substr(1, line.size() - 2)) == name;
      continue;
    }
    size_t equals = line.find('=');
    if (in_section && equals != std::string_view::npos && Trim(line.substr(0, equals)) == "token") {
      std::string_view value = Trim(line.substr(equals + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
  }
  return "";
}

Result<std::string> BearerToken(const std::string& server_name) {
  if (!server_name.empty()) {
    std::string keyed = Environment(TokenVariable(server_name));
    if (!keyed.empty()) return keyed;
    std::string path = CredentialsPath();
    struct stat info {};
    if (!path.empty() && ::stat(path.c_str(), &info) == 0) {
      if ((info.st_mode & 077) != 0) {
        return InvalidArgument(fmt::format("the credentials file '{}' is accessible by others (mode {:04o}); it "
                                           "must be 0600: chmod 600 '{}'",
                                           path, info.st_mode & 07777, path));
      }
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in) return IoError(fmt::format("cannot read the credentials file '{}'", path));
      std::string token = TokenInCredentials(text.str(), server_name);
      if (!token.empty()) return token;
    }
  }
  return Environment("OMNIGRAPH_BEARER_TOKEN");
}

}  // namespace omnigraph::cli::remote
