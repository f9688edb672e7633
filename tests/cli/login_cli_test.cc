// `login NAME [--token T]` and `logout NAME` (surface §5.2, §5.5): the
// credentials file's INI edits (cli/remote/credentials.h) and the verbs
// that make them, with exact output, mode 0600 and the token served
// commands then read.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/remote/credentials.h"
#include "support/cli_runner.h"

namespace omnigraph::cli {
namespace login_cli_test {

using testing::CliRun;

TEST(CredentialsText, WithTokenReplacesAppendsAndKeepsTheRest) {
  EXPECT_EQ(remote::WithToken("", "dev", "t1"), "[dev]\ntoken = t1\n");
  const std::string text = "# mine\n[dev]\ntoken = old\ntoken = older\nuser = x\n\n[prod]\ntoken=p\n";
  EXPECT_EQ(remote::WithToken(text, "dev", "new"), "# mine\n[dev]\ntoken = new\nuser = x\n\n[prod]\ntoken=p\n");
  EXPECT_EQ(remote::WithToken(text, "qa", "q"), text + "\n[qa]\ntoken = q\n");
  // A section without a token line, and a file without a final newline.
  EXPECT_EQ(remote::WithToken("[dev]\nuser = x\n[prod]\ntoken = p", "dev", "d"),
            "[dev]\nuser = x\ntoken = d\n[prod]\ntoken = p");
  EXPECT_EQ(remote::WithToken("[prod]\ntoken = p", "qa", "q"), "[prod]\ntoken = p\n\n[qa]\ntoken = q\n");
  // What is written reads back through the parser served commands use.
  EXPECT_EQ(remote::TokenInCredentials(remote::WithToken(text, "dev", "new"), "dev"), "new");
  EXPECT_EQ(remote::TokenInCredentials(remote::WithToken(text, "dev", "new"), "prod"), "p");
}

TEST(CredentialsText, WithoutSectionRemovesOnlyThatSection) {
  bool removed = false;
  const std::string text = "# mine\n[dev]\ntoken = d\n\n[prod]\ntoken = p\n";
  EXPECT_EQ(remote::WithoutSection(text, "dev", &removed), "# mine\n[prod]\ntoken = p\n");
  EXPECT_TRUE(removed);
  EXPECT_EQ(remote::WithoutSection(text, "prod", &removed), "# mine\n[dev]\ntoken = d\n\n");
  EXPECT_TRUE(removed);
  EXPECT_EQ(remote::WithoutSection(text, "qa", &removed), text);
  EXPECT_FALSE(removed);
}

class LoginCliTest : public testing::CliGraphTest {
 protected:
  std::string Home() const { return dir_.path() + "/home"; }
  std::string CredentialsFile() const { return Home() + "/credentials"; }
  std::string Credentials() const {
    std::ifstream in(CredentialsFile());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  unsigned Mode() const {
    struct stat info {};
    EXPECT_EQ(::stat(CredentialsFile().c_str(), &info), 0);
    return info.st_mode & 07777;
  }
};

TEST_F(LoginCliTest, LoginWritesTheTokenAt0600AndLogoutRemovesIt) {
  std::filesystem::create_directories(Home());
  Write("home/config.yaml", "servers:\n  dev:\n    url: http://127.0.0.1:1\n");
  CliRun login = Run("login dev --token abc.DEF-123");
  EXPECT_EQ(login.rc, 0) << login.err;
  EXPECT_EQ(login.out, "saved the token of server 'dev' in " + CredentialsFile() + "\n");
  EXPECT_EQ(login.err, "");
  EXPECT_EQ(Credentials(), "[dev]\ntoken = abc.DEF-123\n");
  EXPECT_EQ(Mode(), 0600u);

  // Again, replacing it; a second server's token is kept beside it.
  ASSERT_EQ(Run("login dev --token second").rc, 0);
  CliRun other = Run("login prod --token p");
  EXPECT_EQ(other.rc, 0);
  EXPECT_EQ(other.err, "warning: server 'prod' is not in " + Home() +
                           "/config.yaml; its token is used once servers.prod.url names it\n");
  EXPECT_EQ(Credentials(), "[dev]\ntoken = second\n\n[prod]\ntoken = p\n");
  EXPECT_EQ(Mode(), 0600u);

  CliRun logout = Run("logout dev");
  EXPECT_EQ(logout.rc, 0) << logout.err;
  EXPECT_EQ(logout.out, "removed the token of server 'dev' from " + CredentialsFile() + "\n");
  EXPECT_EQ(Credentials(), "[prod]\ntoken = p\n");
  EXPECT_EQ(Mode(), 0600u);
  CliRun again = Run("logout dev");
  EXPECT_EQ(again.rc, 0);
  EXPECT_EQ(again.out, "no token of server 'dev' in " + CredentialsFile() + "\n");
  // No temporary file is left behind.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(Home())) ++entries;
  EXPECT_EQ(entries, 2u);
}

TEST_F(LoginCliTest, LoginReadsOneLineOfStandardInputAndCreatesTheDirectory) {
  Write("token.txt", "from-stdin\r\nsecond line\n");
  CliRun login = Run("login dev < token.txt");
  EXPECT_EQ(login.rc, 0) << login.err;
  EXPECT_EQ(login.out, "saved the token of server 'dev' in " + CredentialsFile() + "\n");
  EXPECT_EQ(Credentials(), "[dev]\ntoken = from-stdin\n");
  struct stat info {};
  ASSERT_EQ(::stat(Home().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
}

TEST_F(LoginCliTest, RefusesBadNamesTokensAndAnOpenCredentialsFile) {
  CliRun empty = Run("login dev < /dev/null");
  EXPECT_EQ(empty.rc, 2);
  EXPECT_EQ(empty.err, "error: no token given: pass --token <T> or type the token on standard input\n");
  CliRun spaced = Run("login dev --token 'a b'");
  EXPECT_EQ(spaced.rc, 2);
  EXPECT_EQ(spaced.err, "error: the token must be a bearer token: ASCII letters, digits and -._~+/= only\n");
  CliRun name = Run("login '[x]' --token t");
  EXPECT_EQ(name.rc, 2);
  EXPECT_EQ(name.err, "error: server name '[x]' must be non-empty ASCII letters, digits, '-', '_' or '.'\n");
  CliRun store = Run("login dev --token t --store g");
  EXPECT_EQ(store.rc, 2);
  EXPECT_EQ(store.err, "error: `login` addresses no graph; drop --store\n");
  EXPECT_FALSE(std::filesystem::exists(CredentialsFile()));

  std::filesystem::create_directories(Home());
  Write("home/credentials", "[dev]\ntoken = t\n");
  ::chmod(CredentialsFile().c_str(), 0644);
  for (const char* args : {"login dev --token u", "logout dev"}) {
    CliRun open = Run(args);
    EXPECT_EQ(open.rc, 1) << args;
    EXPECT_EQ(open.err, "error: the credentials file '" + CredentialsFile() +
                            "' is accessible by others (mode 0644); it must be 0600: chmod 600 '" +
                            CredentialsFile() + "'\n")
        << args;
  }
  EXPECT_EQ(Credentials(), "[dev]\ntoken = t\n");
}

}  // namespace login_cli_test
}  // namespace omnigraph::cli
