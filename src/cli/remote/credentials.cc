#include "cli/remote/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

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

// One line of a credentials file as the INI reading of TokenInCredentials
// sees it. Every reader and writer of the file goes through ScanLines, so
// they agree on what a section and a token line are.
struct CredentialLine {
  std::string_view raw;                     // the line with its newline, as in the file
  std::optional<std::string_view> section;  // a `[name]` header: the name, trimmed
  bool token = false;                       // a `token = value` line
  std::string_view value;                   // a token line's value, unquoted
};

std::vector<CredentialLine> ScanLines(std::string_view text) {
  std::vector<CredentialLine> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    CredentialLine entry;
    entry.raw = text.substr(0, end == std::string_view::npos ? text.size() : end + 1);
    text.remove_prefix(entry.raw.size());
    std::string_view line = Trim(entry.raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') {
      lines.push_back(entry);
      continue;
    }
    if (line.front() == '[' && line.back() == ']') {
      entry.section = Trim(line.substr(1, line.size() - 2));
    } else if (size_t equals = line.find('=');
               equals != std::string_view::npos && Trim(line.substr(0, equals)) == "token") {
      std::string_view value = Trim(line.substr(equals + 1));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      entry.token = true;
      entry.value = value;
    }
    lines.push_back(entry);
  }
  return lines;
}

Status ErrnoError(std::string_view what, const std::string& path, int error) {
  return IoError(fmt::format("cannot {} '{}': {}", what, path, std::strerror(error)));
}

Status WriteAndSync(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return ErrnoError("write", path, errno);
    text.remove_prefix(static_cast<size_t>(written));
  }
  if (::fsync(fd) != 0) return ErrnoError("sync", path, errno);
  return Status::OK();
}

Status SyncDirectory(const std::string& directory) {
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open the directory", directory, errno);
  int error = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return error == 0 ? Status::OK() : ErrnoError("sync the directory", directory, error);
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
  for (const CredentialLine& line : ScanLines(text)) {
    if (line.section) in_section = *line.section == name;
    if (in_section && line.token) return std::string(line.value);
  }
  return "";
}

std::string WithToken(std::string_view text, std::string_view name, std::string_view token) {
  std::string out;
  bool in_section = false, found = false, written = false;
  auto put_token = [&] {
    if (!out.empty() && !out.ends_with('\n')) out += '\n';
    out += fmt::format("token = {}\n", token);
    written = true;
  };
  for (const CredentialLine& line : ScanLines(text)) {
    if (line.section) {
      // A section without a token line gets one at its end.
      if (in_section && !written) put_token();
      in_section = *line.section == name;
      found = found || in_section;
    }
    if (in_section && line.token) {
      if (!written) put_token();
      continue;
    }
    out += line.raw;
  }
  if (in_section && !written) put_token();
  if (!found) {
    if (!out.empty()) out += out.ends_with('\n') ? "\n" : "\n\n";
    out += fmt::format("[{}]\n", name);
    put_token();
  }
  return out;
}

std::string WithoutSection(std::string_view text, std::string_view name, bool* removed) {
  std::string out;
  bool in_section = false;
  *removed = false;
  for (const CredentialLine& line : ScanLines(text)) {
    if (line.section) in_section = *line.section == name;
    if (in_section) {
      *removed = true;
      continue;
    }
    out += line.raw;
  }
  return out;
}

Result<std::string> ReadCredentials(const std::string& path) {
  struct stat info {};
  if (path.empty() || ::stat(path.c_str(), &info) != 0) return std::string();
  if ((info.st_mode & 077) != 0) {
    return InvalidArgument(fmt::format("the credentials file '{}' is accessible by others (mode {:04o}); it "
                                       "must be 0600: chmod 600 '{}'",
                                       path, info.st_mode & 07777, path));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return IoError(fmt::format("cannot read the credentials file '{}'", path));
  return text.str();
}

Status WriteCredentials(const std::string& path, std::string_view text) {
  const std::filesystem::path target(path);
  const std::string directory = target.parent_path().empty() ? "." : target.parent_path().string();
  std::error_code ec;
  if (!std::filesystem::is_directory(directory, ec)) {
    std::filesystem::create_directories(directory, ec);
    if (ec) return IoError(fmt::format("cannot create the directory '{}': {}", directory, ec.message()));
    std::filesystem::permissions(directory, std::filesystem::perms::owner_all, ec);
  }
  const std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return ErrnoError("create", temp, errno);
  // The mode given to open() is masked by the umask; 0600 is the contract.
  Status st = ::fchmod(fd, 0600) == 0 ? WriteAndSync(fd, text, temp) : ErrnoError("chmod", temp, errno);
  ::close(fd);
  if (st.ok() && ::rename(temp.c_str(), path.c_str()) != 0) st = ErrnoError("rename over", path, errno);
  if (!st.ok()) {
    ::unlink(temp.c_str());
    return st;
  }
  return SyncDirectory(directory);
}

Result<std::string> BearerToken(const std::string& server_name) {
  if (!server_name.empty()) {
    std::string keyed = Environment(TokenVariable(server_name));
    if (!keyed.empty()) return keyed;
    OG_ASSIGN_OR_RETURN(std::string text, ReadCredentials(CredentialsPath()));
    std::string token = TokenInCredentials(text, server_name);
    if (!token.empty()) return token;
  }
  return Environment("OMNIGRAPH_BEARER_TOKEN");
}

}  // namespace omnigraph::cli::remote
